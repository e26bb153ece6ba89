//! Quoted phrases of common words: the pieces that hold every match of
//! one (a leaf of one of its words, or a phrase piece of two of them), and
//! a lone phrase of two common words answered from its phrase group file
//! and rank chunks (version 7).

use std::collections::HashMap;
use std::ops::ControlFlow::{Break, Continue};

use crate::order::sort_by;
use crate::search::facets::FacetCounts;
use crate::search::query::Occur;
use crate::search::{Engine, GlobalStats};
use crate::shard::search::TermGroups;
use crate::text::{self, TokenKind};

use super::chunks::read_ahead;
use super::page::{add_group, group_passes, page, page_range};
use super::reading::{Reading, common_phrase, phrase_needs};
use super::{Need, PHRASE_RANK_CHUNKS, SearchAnswer, SearchClient, Step, bound, decided};

/// A record of a phrase rank chunk as it ranks: score, prior, id, its
/// piece and its index there.
type PhraseRow<'a> = (f32, u8, u32, &'a Engine, u32);

impl SearchClient {
    /// A quoted phrase of common words alone may match records no piece
    /// holds: unless one of them has a leaf, or (version 6) one of its
    /// pairs of adjacent words a phrase piece; either holds every match.
    /// The phrase pieces that do, of every such phrase of the query.
    pub(super) fn phrase_pieces<'a>(&'a self, r: &Reading) -> Step<Vec<&'a Engine>> {
        let mut pieces: Vec<&Engine> = Vec::new();
        for (occur, exact_phrase, toks) in r.clauses {
            if *exact_phrase && common_phrase(r.stats, toks) {
                match self.phrase_leaf(toks)? {
                    None => pieces.push(self.phrase_piece(r, *occur, toks)?),
                    Some(n) if !self.has(&n) => return Break(SearchAnswer::Need(vec![n])),
                    Some(_) => {}
                }
            }
        }
        Continue(pieces)
    }

    /// The leaf of one of a phrase's common words (`toks`), when one has a
    /// leaf of its own: it holds every record of the word.
    fn phrase_leaf(&self, toks: &[text::Token]) -> Step<Option<Need>> {
        for t in toks.iter().filter(|t| t.kind != TokenKind::Bigram) {
            match self.common_leaf(&t.text) {
                Ok(Some(n)) => return Continue(Some(n)),
                Ok(None) => {}
                Err(n) => return Break(SearchAnswer::Need(vec![n])),
            }
        }
        Continue(None)
    }

    /// The phrase piece of a phrase of common words (`toks`) that holds
    /// records; without one, the lone phrase's answer, or the whole
    /// registry.
    fn phrase_piece<'a>(
        &'a self,
        r: &Reading,
        occur: Occur,
        toks: &[text::Token],
    ) -> Step<&'a Engine> {
        let pairs = phrase_needs(r.stats, occur, toks);
        let missing: Vec<Need> = pairs.iter().filter(|n| !self.has(n)).cloned().collect();
        if !missing.is_empty() {
            return Break(SearchAnswer::Need(missing));
        }
        match pairs
            .iter()
            .filter_map(|n| self.engines.get(n))
            .find(|e| !e.registry().is_empty())
        {
            Some(e) => Continue(e),
            None => Break(match r.lone_phrase() {
                Some((a, b)) => decided(self.answer_phrase(r, a, b)),
                None => SearchAnswer::Whole("a quoted phrase of common words only"),
            }),
        }
    }

    /// A quoted phrase of two common words alone (`"university of"`) whose
    /// records do not fit a phrase piece (version 7): every match holds the
    /// pair, so its group file counts them all by columns (the count and
    /// the facets), and its rank chunks order them by their shortest name
    /// holding it; E2 scores such a name by the two words' IDFs at that
    /// length, so a page is proven once its last record scores above what
    /// the first unloaded chunk's shortest name may (or as much, sorting
    /// before that chunk's first record).
    fn answer_phrase(&self, r: &Reading, a: &str, b: &str) -> Step<SearchAnswer> {
        let whole = SearchAnswer::Whole("a quoted phrase of common words only");
        let Some(g) = self.phrase_groups.get(&(a.to_string(), b.to_string())) else {
            return Break(SearchAnswer::Need(vec![Need::PhraseGroups(
                a.to_string(),
                b.to_string(),
            )]));
        };
        let (Some(ca), Some(cb)) = (r.stats.common(a), r.stats.common(b)) else {
            return Break(whole);
        };
        if g.groups.is_empty() || g.chunks.is_empty() {
            return Break(whole); // none written (an older build)
        }
        let (total, facets) = phrase_count(r, g);
        let global = GlobalStats {
            entries: r.stats.entries as usize,
            avg_len: r.stats.avg_len,
            df: HashMap::from([
                (a.to_string(), ca.df as usize),
                (b.to_string(), cb.df as usize),
            ]),
            prefix_df: HashMap::new(),
        };
        let run = |n| Need::PhraseRank(a.to_string(), b.to_string(), n);
        let loaded: Vec<&Engine> = self
            .loaded_run(run)
            .take_while(|e| !e.registry().is_empty())
            .collect();
        let rows = phrase_rows(r, &loaded, &global)?;
        let k = loaded.len();
        let (from, to) = page_range(r.q.page, total);
        let written = g.chunks.len().min(PHRASE_RANK_CHUNKS);
        let words = [(a, ca.df as usize), (b, cb.df as usize)];
        if !phrase_proven(g, k, &rows, total, to, words, &global)? {
            return Break(if k < written && !self.has(&run(k as u32)) {
                let mut needs = vec![run(k as u32)];
                needs.extend(read_ahead(k as u32, written, || run(k as u32 + 1)));
                SearchAnswer::Need(needs)
            } else {
                SearchAnswer::Whole("a quoted phrase of common words ranks records no piece holds")
            });
        }
        let hits = rows[from..to]
            .iter()
            .map(|&(s, _, _, e, r)| (s, e, r))
            .collect();
        Continue(page(r.q, r.countries, hits, total, facets))
    }
}

/// The phrase's matches that pass the filters, and their facets, from its
/// group file `g`.
fn phrase_count(r: &Reading, g: &TermGroups) -> (usize, FacetCounts) {
    let mut facets = FacetCounts::default();
    let mut total = 0usize;
    for (grp, n) in &g.groups {
        if group_passes(&r.filters, grp) {
            total += *n as usize;
            add_group(&mut facets, r.stats, grp, r.q.version, i64::from(*n));
        }
    }
    (total, facets)
}

/// The matches of the `loaded` phrase rank chunks, best first.
fn phrase_rows<'a>(
    r: &Reading,
    loaded: &[&'a Engine],
    global: &GlobalStats,
) -> Step<Vec<PhraseRow<'a>>> {
    let mut rows: Vec<PhraseRow> = Vec::new();
    for &e in loaded {
        let local = r.filters.relocate(r.countries, e.index());
        let hits = match e.search_with(&r.q.query, &local, Some(global)) {
            Ok(h) => h,
            Err(msg) => return Break(SearchAnswer::Invalid(vec![msg])),
        };
        let reg = e.registry();
        for (&rec, &score) in hits.records.iter().zip(&hits.scores) {
            rows.push((
                score,
                reg.priors()[rec as usize],
                reg.id(rec as usize).number(),
                e,
                rec,
            ));
        }
    }
    sort_by(&mut rows, |x, y| {
        y.0.total_cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2))
    });
    Continue(rows)
}

/// Whether the page of `rows` (from the first `k` rank chunks of group
/// file `g`, of `total` matches) ending at `to` sorts before every record
/// of the unloaded chunks, of the phrase's `words` (with their document
/// frequencies).
fn phrase_proven(
    g: &TermGroups,
    k: usize,
    rows: &[PhraseRow],
    total: usize,
    to: usize,
    words: [(&str, usize); 2],
    global: &GlobalStats,
) -> Step<bool> {
    Continue(match g.chunks.get(k) {
        // Every chunk loaded: the rows are every match.
        None if k == g.chunks.len() => {
            if rows.len() != total {
                return Break(SearchAnswer::Whole("the group files disagree"));
            }
            true
        }
        None => false, // a chunk came empty (a broken deploy)
        Some(&len) if to > 0 => rows.get(to - 1).is_some_and(|&(score, prior, id, ..)| {
            let frontier = bound::Frontier {
                len,
                first: g.chunk_firsts.get(k).copied(),
            };
            bound::OutsideBound::phrase(words, &frontier, global.entries, global.avg_len)
                .proves(score, prior, id)
        }),
        Some(_) => true, // an empty page
    })
}
