//! The search page's reading of a query (`mode=typed`, an extension of the
//! router; version [`VERSION`]): text a person typed into a search box and
//! submitted, listed as a continuation of what the typeahead above it showed.
//!
//! The spec leaves E2's order to us ("best matches first, order not
//! guaranteed"), and E2 over the API keeps the spec's reading. A person who
//! presses Enter in the search box means something narrower: the words they
//! typed, the last one perhaps unfinished, and at least what the typeahead
//! showed for that text, first. [`Engine::search_typed`]:
//!
//! * **Language**: E2's (phrases, `+`/`-`, escapes: the same parser), so a
//!   front end escapes typed text as it does for E2.
//! * **Matches** (what `number_of_results` and the facets count): E2's
//!   matches, with the query's last bare word also matching by prefix
//!   (`northf` finds Northfield, as `northf*` would), plus every record the
//!   typeahead lists for the query's words (every word by prefix in one name,
//!   any order; an external id in any usual form) that the query's required
//!   and excluded clauses allow. The same filters apply as for E2: active
//!   records only unless `all_status` or a `status` filter says otherwise —
//!   except the typeahead's matches that it ranks before its first active
//!   one (it ranks status after the match band): an inactive or withdrawn
//!   record named exactly as typed, or every match when no active record
//!   matches the words. Those are listed whatever their status, as a record
//!   id is (the page shows their status and successor): what the typeahead
//!   showed first is never hidden by Enter.
//! * **Order**: first the typeahead's matches in the typeahead's order
//!   ([`super::suggest`]: exact names, then the record prior plus the match
//!   bonus, status, shorter names), so the first result is the typeahead's
//!   first suggestion whenever that passes the list's filters; then the other
//!   matches, those whose best name covers more query words first (words a
//!   typeahead query may omit, `of`, `the`, `de`, do not count: `university
//!   of cambridge` lists Cambridge's other organisations before the
//!   University of Oxford), then by
//!   E2's score, the record prior and the record id (a total order: pages
//!   never overlap or skip).
//! * **Ids**: a record id in any form (also escaped, as the search box sends
//!   it) is that record, as in E2; a mistyped identifier URL is the same 400.
//!
//! Every key is record-local (the record's names, status, prior, lengths, id)
//! or a global statistic E2 already uses (term document frequencies, the
//! number of names, their average length), so a pieces-built answer can
//! equal the whole registry's.

use super::context::Resolved;
use super::query::{ClauseKind, Occur, ParsedQuery};
use super::{Engine, Filters, GlobalStats, Hits, SuggestContext, check_length, query};

/// [`crate::index::Index::status`] of an active record.
const ACTIVE: u8 = 0;

/// Version of this reading and ranking: a change of what `mode=typed`
/// matches or of its order raises it (the router's root answer lists it).
pub const VERSION: u32 = 2;

/// What an engine gives of a typed answer over the records it holds (the
/// whole registry, or a piece that [`crate::pieces::search`] merges).
pub(crate) struct TypedParts {
    /// The typeahead's matches, in its order, with their E2 scores (0 for
    /// a match E2 does not find), listed first.
    pub first: Vec<(u32, f32)>,
    /// E2's other matches under the filters, in no order: (score, record,
    /// query units its best-covered name matches).
    pub rest: Vec<(f32, u32, u16)>,
}

impl Engine {
    /// The search page's answer to `query` under `filters` (module docs).
    /// `Err` is a 400 message (syntax, length, a mistyped identifier URL).
    pub fn search_typed(&self, query: &str, filters: &Filters) -> Result<Hits, String> {
        check_length(query)?;
        if let Some(hits) = self.id_query(query, filters)? {
            return Ok(hits);
        }
        let parsed = query::parse(query)?;
        let words = typed_words(&parsed);
        if words != query
            && let Some(hits) = self.id_query(&words, filters)?
        {
            return Ok(hits);
        }
        let TypedParts { first, mut rest } =
            self.typed_parts(query, &parsed, filters, None, true)?;
        // Then the rest: more words covered, E2's score, the prior, the id.
        let prior = self.registry().priors();
        rest.sort_unstable_by(|a, b| {
            b.2.cmp(&a.2)
                .then(b.0.total_cmp(&a.0))
                .then(prior[b.1 as usize].cmp(&prior[a.1 as usize]))
                .then(a.1.cmp(&b.1))
        });
        let (mut records, mut scores): (Vec<u32>, Vec<f32>) = first.into_iter().unzip();
        records.extend(rest.iter().map(|h| h.1));
        scores.extend(rest.iter().map(|h| h.0));
        Ok(Hits { records, scores })
    }

    /// The typed reading's matches among this engine's records, scored with
    /// `stats` when it holds only part of the registry; `with_first`: also
    /// the typeahead's (else every match is in `rest`).
    pub(crate) fn typed_parts(
        &self,
        query: &str,
        parsed: &ParsedQuery,
        filters: &Filters,
        stats: Option<&GlobalStats>,
        with_first: bool,
    ) -> Result<TypedParts, String> {
        let words = typed_words(parsed);
        // Text the typeahead reads as an external id (`grid.798464.a`) is
        // pasted whole, not typed word by word: its last part (`a`) is not
        // a prefix, else every name with a word in `a…` would follow the
        // id's record. Its other matches are E2's, as for a registry id.
        let external = self.external_any_form(&words);
        let prefix = if external.is_empty() {
            last_bare_word(parsed)
        } else {
            None
        };
        let scored = self.score(query, parsed, prefix, stats)?;
        let ix = self.index();

        // The typeahead's matches, in its order (its answer to an external
        // id, or its ranking of every match of the words). Those it ranks
        // before its first active match are listed whatever their status,
        // as a record id is: what the typeahead showed first is never hidden.
        let mut ordered: Vec<u32> = Vec::new();
        if with_first {
            ordered = external;
            if ordered.is_empty() {
                let ctx = Resolved::new(self, &SuggestContext::default());
                if let Some((_, ranked)) = self.ranked_matches(&words, filters, usize::MAX, &ctx) {
                    ordered = ranked.iter().map(|&(_, e, _)| ix.entry_record(e)).collect();
                }
            }
        }
        let mut leading = true;
        let mut first: Vec<u32> = Vec::with_capacity(ordered.len());
        for r in ordered {
            // Only what the typeahead would list under these filters counts.
            if !scored.allows(r) || !filters.matches(ix, r, true) {
                continue;
            }
            leading &= ix.status(r) != ACTIVE;
            if filters.matches(ix, r, leading) {
                first.push(r);
            }
        }
        first.dedup(); // a record with one external id stored twice
        let mut score_of = vec![None::<f32>; ix.records()];
        for &(s, r, _) in &scored.hits {
            score_of[r as usize] = Some(s);
        }
        let first: Vec<(u32, f32)> = first
            .iter()
            .map(|&r| (r, score_of[r as usize].unwrap_or(0.0)))
            .collect();
        for &(r, _) in &first {
            score_of[r as usize] = None; // listed already
        }
        let rest = scored
            .hits
            .iter()
            .copied()
            .filter(|&(_, r, _)| score_of[r as usize].is_some() && filters.matches(ix, r, false))
            .collect();
        Ok(TypedParts { first, rest })
    }
}

/// The words a person typed: the text of every clause but the excluded ones
/// (escapes resolved), what the typeahead was asked while they typed.
pub(crate) fn typed_words(q: &ParsedQuery) -> String {
    let texts: Vec<&str> = q
        .clauses
        .iter()
        .filter(|c| c.occur != Occur::MustNot)
        .map(|c| match &c.kind {
            ClauseKind::Term { text, .. } | ClauseKind::Phrase { text, .. } => text.trim(),
        })
        .filter(|t| !t.is_empty())
        .collect();
    texts.join(" ")
}

/// The query's last clause when it is a bare word that may still be being
/// typed (not excluded, not a phrase, not fuzzy, not already a prefix).
pub(crate) fn last_bare_word(q: &ParsedQuery) -> Option<usize> {
    let last = q.clauses.len().checked_sub(1)?;
    match (&q.clauses[last].occur, &q.clauses[last].kind) {
        (
            Occur::Should | Occur::Must,
            ClauseKind::Term {
                prefix: false,
                fuzzy: false,
                ..
            },
        ) => Some(last),
        _ => None,
    }
}
