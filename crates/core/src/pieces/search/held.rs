//! The records the loaded pieces hold: which pieces those are, and the
//! records scored, ranked and counted there with the whole registry's
//! statistics.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow::{Break, Continue};

use crate::order::sort_by;
use crate::search::facets::FacetCounts;
use crate::search::{Engine, GlobalStats};

use super::page::add_record;
use super::reading::Reading;
use super::sources::Source;
use super::typeahead::{First, LastWord};
use super::{Need, SearchAnswer, SearchClient, Step};

/// A record of a loaded piece as it ranks: query units covered (the
/// search page's reading; E2's are all 0), score, prior, id, its piece
/// and its index there.
pub(super) type Ranked<'a> = (u16, f32, u8, u32, &'a Engine, u32);

/// The loaded pieces that hold records of the query.
pub(super) struct Held<'a> {
    /// The whole registry's statistics for the query's tokens.
    pub global: GlobalStats,
    /// The pieces, each once, in the order they score records.
    pub engines: Vec<&'a Engine>,
}

/// The records of [`Held`] pieces, ranked and counted.
pub(super) struct HeldRecords<'a> {
    /// The typeahead's matches (the search page's reading), in its order:
    /// score, piece, record.
    pub first: Vec<(f32, &'a Engine, u32)>,
    /// The others, best first.
    pub scored: Vec<Ranked<'a>>,
    /// Facet counts over both.
    pub facets: FacetCounts,
}

impl SearchClient {
    /// The loaded pieces that hold the query's records, and the whole
    /// registry's statistics for its tokens (what those pieces and the
    /// statistics file say).
    pub(super) fn held_pieces<'a>(
        &'a self,
        r: &Reading<'a>,
        last: LastWord<'a>,
        first: &First<'a>,
        phrase_pieces: Vec<&'a Engine>,
    ) -> Step<Held<'a>> {
        let mut global = GlobalStats {
            entries: r.stats.entries as usize,
            avg_len: r.stats.avg_len,
            df: HashMap::new(),
            prefix_df: last.prefix_df,
        };
        // The external id pieces first: a record there is scored with its
        // external ids, which the other pieces do not hold.
        let mut engines: Vec<&Engine> = r
            .external
            .iter()
            .filter_map(|n| self.engines.get(n))
            .collect();
        // (Every piece holds ~32 ids: one that came empty is missing, and
        // the records it would hold may match.)
        if engines.iter().any(|e| e.registry().is_empty()) {
            return Break(SearchAnswer::Whole("an external id piece is missing"));
        }
        for t in r.tokens() {
            match self.source(r.stats, &t.text) {
                Ok(Source::Engine(e)) => {
                    let ix = e.index();
                    let df = ix.term_id(&t.text).map_or(0, |id| ix.postings(id).len());
                    global.df.insert(t.text.clone(), df);
                    push_once(&mut engines, e);
                }
                Ok(Source::Common(c)) => {
                    global.df.insert(t.text.clone(), c.df as usize);
                    if let Some(e) = self.loaded_common_leaf(&c.term) {
                        push_once(&mut engines, e);
                    }
                    for e in self.loaded_run(|n| Need::Rank(c.term.clone(), n)) {
                        push_once(&mut engines, e);
                    }
                    for &slice in &r.slices {
                        for e in self.slice_run(r.stats, &c.term, slice) {
                            push_once(&mut engines, e);
                        }
                    }
                }
                Ok(Source::Nothing) => {
                    global.df.insert(t.text.clone(), 0);
                }
                Err(n) => return Break(SearchAnswer::Need(vec![n])),
            }
        }
        // The loaded rank chunks of pairs of the query's common terms.
        let terms = &r.common_terms;
        for (i, a) in terms.iter().enumerate() {
            for b in &terms[i + 1..] {
                for e in self.loaded_run(|n| Need::PairRank(a.to_string(), b.to_string(), n)) {
                    push_once(&mut engines, e);
                }
            }
        }
        for t in &r.triples {
            for e in self.loaded_run(|n| Need::SetRank(t.clone(), n)) {
                push_once(&mut engines, e);
            }
        }
        for e in [first.piece, last.extension]
            .into_iter()
            .flatten()
            .chain(phrase_pieces)
        {
            push_once(&mut engines, e);
        }
        Continue(Held { global, engines })
    }
}

/// Records held by the loaded pieces: scored and counted there. The
/// typed reading lists the typeahead's matches first (from `first`), then
/// the rest by query units covered (E2's are all 0), score, prior and id.
pub(super) fn rank_held<'a>(
    r: &Reading,
    held: &Held<'a>,
    first: Option<&'a Engine>,
) -> Step<HeldRecords<'a>> {
    let mut seen: HashSet<u32> = HashSet::new();
    let mut typeahead: Vec<(f32, &Engine, u32)> = Vec::new();
    // The first piece's other matches, from the same call (its engine
    // is among `engines`: not scored twice).
    let mut first_rest: Option<Vec<(f32, u32, u16)>> = None;
    if let Some(e) = first {
        let local = r.filters.relocate(r.countries, e.index());
        match e.typed_parts(&r.q.query, r.parsed, &local, Some(&held.global), true) {
            Ok(parts) => {
                for (rec, s) in parts.first {
                    if seen.insert(e.registry().id(rec as usize).number()) {
                        typeahead.push((s, e, rec));
                    }
                }
                first_rest = Some(parts.rest);
            }
            Err(msg) => return Break(SearchAnswer::Invalid(vec![msg])),
        }
    }
    let mut scored: Vec<Ranked> = Vec::new();
    for &e in &held.engines {
        let rows = if first.is_some_and(|f| std::ptr::eq(f, e))
            && let Some(rest) = first_rest.take()
        {
            rest
        } else {
            matches_in(r, e, &held.global)?
        };
        let reg = e.registry();
        for (s, rec, cov) in rows {
            let id = reg.id(rec as usize).number();
            if seen.insert(id) {
                scored.push((cov, s, reg.priors()[rec as usize], id, e, rec));
            }
        }
    }
    sort_by(&mut scored, |a, b| {
        b.0.cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(b.2.cmp(&a.2))
            .then(a.3.cmp(&b.3))
    });
    let mut facets = FacetCounts::default();
    for &(_, e, rec) in &typeahead {
        add_record(&mut facets, e.index(), rec, r.q.version, 1);
    }
    for &(_, _, _, _, e, rec) in &scored {
        add_record(&mut facets, e.index(), rec, r.q.version, 1);
    }
    Continue(HeldRecords {
        first: typeahead,
        scored,
        facets,
    })
}

/// The matches of piece `e` under the filters, in no order: (score,
/// record, query units covered): the search page's reading's (its matches
/// besides the typeahead's), or E2's.
fn matches_in(r: &Reading, e: &Engine, global: &GlobalStats) -> Step<Vec<(f32, u32, u16)>> {
    let local = r.filters.relocate(r.countries, e.index());
    let rows = if r.q.typed {
        e.typed_parts(&r.q.query, r.parsed, &local, Some(global), false)
            .map(|parts| parts.rest)
    } else {
        e.search_with(&r.q.query, &local, Some(global)).map(|h| {
            h.records
                .iter()
                .zip(&h.scores)
                .map(|(&rec, &s)| (s, rec, 0))
                .collect()
        })
    };
    match rows {
        Ok(rows) => Continue(rows),
        Err(msg) => Break(SearchAnswer::Invalid(vec![msg])),
    }
}

/// Adds `e` to `engines` unless it is there: a piece may hold the records
/// of several query words.
fn push_once<'e>(engines: &mut Vec<&'e Engine>, e: &'e Engine) {
    if !engines.iter().any(|x| std::ptr::eq(*x, e)) {
        engines.push(e);
    }
}
