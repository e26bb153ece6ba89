//! What a record no loaded piece holds can score, and where it sorts among
//! equal scores: the proof that a page of E2 over pieces is the whole
//! registry's (see the parent module's docs).
//!
//! Such a record matches the query through common terms alone. Its score
//! is its best name's: per query unit whose term the name holds, the
//! term's IDF times BM25's length norm of the name, plus `1e-6`, added in
//! query order. For a set `S` of the query's common terms, a name holding
//! all of `S` is at least as long as the longest of their frontiers (the
//! shortest name of each term's first unloaded rank chunk), so it scores
//! at most that sum at that length, computed exactly as the engine adds it
//! (f32 rounding is monotone, so the bound holds bit for bit). A name at
//! exactly that length holds a term at its frontier, so its record lies in
//! that term's unloaded chunks and, among equal scores, sorts at or after
//! the chunk's first record (the chunks order equal lengths by prior
//! descending, then id: [`crate::shard::search::CommonTerm::chunk_firsts`]).
//! A pair or a triple of common terms with rank chunks of its own (records
//! by their shortest name holding all of it) bounds a name holding all of
//! it the same way: its length is at least the set's frontier, and once
//! every chunk of the set is loaded no unloaded record has such a name.

use crate::search::{EXACT_NAME_BOOST, bm25_norm, idf};
use crate::shard::search::ChunkFirst;

/// More common terms than this in one query: the plain bound only (each
/// set of terms is one case).
const MAX_TERMS: usize = 8;

/// A common term of the query as the bound reads it.
pub(super) struct Frontier {
    /// The shortest name (words besides `and`) a record of its unloaded
    /// chunks may have.
    pub len: u32,
    /// The first record of its first unloaded chunk (`None`: pieces of
    /// version 3, which do not say).
    pub first: Option<ChunkFirst>,
}

/// What a frontier belongs to: a query term, or a pair of them (indexes
/// into the bound's terms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Chunked {
    /// A term's own rank chunks.
    Term(usize),
    /// A pair's or a triple's rank chunks (its terms' bits).
    Set(u32),
}

/// One set of common terms a record no piece holds may have in one name.
struct Case {
    /// The most such a name scores at the shortest length it may have.
    at: f32,
    /// The most it scores when longer.
    beyond: f32,
    /// At the shortest length the record sorts, among equal scores, at or
    /// after one of these.
    after: Vec<ChunkFirst>,
    /// The frontier that sets the shortest length (a pair's, when one
    /// does): whose next chunk raises it.
    longest: Chunked,
    /// Its terms (bits).
    set: u32,
}

/// The bound over every set of the query's common terms.
pub(super) struct OutsideBound {
    cases: Vec<Case>,
}

impl OutsideBound {
    /// `units`: the query's scoring units in the order E2 adds them, each
    /// with its term's index into `terms` when the term is common (else
    /// `None`: no record outside the loaded pieces holds it) and the
    /// document frequency E2 reads for it; `terms`: each common term's
    /// frontier, `None` when all its chunks are loaded; `pairs`: the pairs
    /// of terms (indexes into `terms`) with rank chunks of their own and
    /// their frontier, `None` when all are loaded; `boost`: when the
    /// query's words (besides `and`) are all common, their number and the
    /// set of `terms` they are (bits): a name of exactly those words also
    /// gets E2's exact-name boost. `None` when the query has too many
    /// common terms.
    pub fn new(
        units: &[(Option<usize>, usize)],
        terms: &[Option<Frontier>],
        pairs: &[(u32, Option<Frontier>)],
        boost: Option<(u32, u32)>,
        entries: usize,
        avg_len: f32,
    ) -> Option<OutsideBound> {
        if terms.len() > MAX_TERMS {
            return None;
        }
        let score = |set: u32, len: u32| -> f32 {
            let mut s = 0f32;
            for &(term, df) in units {
                if let Some(t) = term
                    && set & (1 << t) != 0
                {
                    s += idf(entries, df) * bm25_norm(len as usize, avg_len) + 1e-6;
                }
            }
            s
        };
        let mut cases = Vec::new();
        for set in 1u32..(1 << terms.len()) {
            // A term whose chunks are all loaded: every record of it is;
            // a pair's likewise for every name holding both.
            let Some(mut members) = (0..terms.len())
                .filter(|&t| set & (1 << t) != 0)
                .map(|t| terms[t].as_ref().map(|f| (Chunked::Term(t), f)))
                .collect::<Option<Vec<(Chunked, &Frontier)>>>()
            else {
                continue;
            };
            let mut all_loaded = false;
            for (mask, f) in pairs {
                if set & mask == *mask {
                    match f {
                        Some(f) => members.push((Chunked::Set(*mask), f)),
                        None => all_loaded = true,
                    }
                }
            }
            if all_loaded {
                continue;
            }
            // The longest frontier, a pair's first among equals.
            let Some(&(longest, longest_f)) = members
                .iter()
                .max_by_key(|(c, f)| (f.len, matches!(c, Chunked::Set(..))))
            else {
                continue;
            };
            let len = longest_f.len;
            let (mut at, mut beyond) = (score(set, len), score(set, len + 1));
            // A name of exactly the query's words is that long, holds them
            // all, and scores the boost on top (as the engine adds it).
            if let Some((words, exact)) = boost
                && set & exact == exact
            {
                let boosted = score(set, words) + EXACT_NAME_BOOST;
                if words == len {
                    at = boosted;
                } else if words > len {
                    beyond = beyond.max(boosted);
                }
            }
            cases.push(Case {
                at,
                beyond,
                after: members
                    .iter()
                    .filter(|(_, f)| f.len == len)
                    .filter_map(|(_, f)| f.first)
                    .collect(),
                longest,
                set,
            });
        }
        Some(OutsideBound { cases })
    }

    /// The bound of a quoted phrase of two common words alone (`words`:
    /// each with the document frequency E2 reads for it, in the phrase's
    /// order) over the records of its unloaded phrase rank chunks, which
    /// begin at `frontier`: E2 scores a name holding the phrase by the
    /// words' IDFs summed, times the length norm, plus `1e-6` (one unit),
    /// and a name of exactly its words besides `and` gets the exact-name
    /// boost. One case (nothing but the phrase's own chunks to raise).
    pub fn phrase(
        words: [(&str, usize); 2],
        frontier: &Frontier,
        entries: usize,
        avg_len: f32,
    ) -> OutsideBound {
        let idf_sum: f32 = words.iter().map(|&(_, df)| idf(entries, df)).sum();
        let exact = words.iter().filter(|(w, _)| *w != "and").count() as u32;
        let score = |len: u32| {
            let s = idf_sum * bm25_norm(len as usize, avg_len) + 1e-6;
            if len == exact {
                s + EXACT_NAME_BOOST
            } else {
                s
            }
        };
        // (Lengths only grow past the frontier, and the boost's length is at
        // most 2: longer than a frontier of 1 only by one.)
        let case = Case {
            at: score(frontier.len),
            beyond: score(frontier.len + 1),
            after: frontier.first.into_iter().collect(),
            longest: Chunked::Term(0),
            set: 1,
        };
        OutsideBound { cases: vec![case] }
    }

    /// Whether a record of score `score`, prior `prior` and id `id` sorts
    /// before every record no loaded piece holds.
    pub fn proves(&self, score: f32, prior: u8, id: u32) -> bool {
        self.cases.iter().all(|c| c.proves(score, prior, id))
    }

    /// The set of terms of the failing case that leaves the most room for
    /// such a record, when no case of one term fails.
    pub fn worst_set(&self, score: f32, prior: u8, id: u32) -> Option<u32> {
        let failing = || self.cases.iter().filter(|c| !c.proves(score, prior, id));
        if failing().any(|c| c.set.count_ones() == 1) {
            return None;
        }
        failing()
            .max_by(|a, b| a.at.total_cmp(&b.at))
            .map(|c| c.set)
    }

    /// Whose chunks to load next for such a record: while a name of one
    /// term alone may outrank it, that term's (which raise every case of
    /// the term); else the frontier that sets the length of the case that
    /// leaves the most room above it (a pair's raises only its cases).
    pub fn to_raise(&self, score: f32, prior: u8, id: u32) -> Option<Chunked> {
        let failing = || self.cases.iter().filter(|c| !c.proves(score, prior, id));
        let worst = |a: &&Case, b: &&Case| a.at.total_cmp(&b.at);
        failing()
            .filter(|c| c.set.count_ones() == 1)
            .max_by(worst)
            .or_else(|| failing().max_by(worst))
            .map(|c| c.longest)
    }
}

impl Case {
    fn proves(&self, score: f32, prior: u8, id: u32) -> bool {
        self.beyond < score
            && (self.at < score
                || (self.at <= score
                    && self
                        .after
                        .iter()
                        .any(|f| ChunkFirst { prior, id }.order() <= f.order())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRIES: usize = 1000;
    const AVG: f32 = 4.0;

    fn at(len: u32) -> Option<Frontier> {
        Some(Frontier { len, first: None })
    }

    /// Two common terms `a` (index 0, rarer) and `b` (index 1), one unit each.
    fn bound(a: u32, b: u32, pair: Option<Option<Frontier>>) -> OutsideBound {
        let units = [(Some(0), 50), (Some(1), 200)];
        let pairs: Vec<(u32, Option<Frontier>)> = pair.into_iter().map(|f| (0b11, f)).collect();
        OutsideBound::new(&units, &[at(a), at(b)], &pairs, None, ENTRIES, AVG).unwrap()
    }

    fn score(len: u32, terms: &[usize]) -> f32 {
        let mut s = 0f32;
        for &df in &[50, 200][..] {
            if terms.contains(&if df == 50 { 0 } else { 1 }) {
                s += idf(ENTRIES, df) * bm25_norm(len as usize, AVG) + 1e-6;
            }
        }
        s
    }

    #[test]
    fn a_pairs_frontier_bounds_names_holding_both() {
        // Both terms at length 5 outscore either alone at 2: without the
        // pair, a name holding both may be 2 words long.
        let s = score(5, &[0, 1]);
        assert!(s > score(2, &[0]) && s < score(2, &[0, 1]));
        assert!(!bound(2, 2, None).proves(s * 1.01, 0, 0));
        // The pair's unloaded chunks begin at 6 words: it is proven.
        assert!(bound(2, 2, Some(at(6))).proves(s * 1.01, 0, 0));
        // At 5 words, the tie is not (no first record to sort against).
        assert!(!bound(2, 2, Some(at(5))).proves(s, 0, 0));
        // Every chunk of the pair loaded: no unloaded name holds both.
        assert!(bound(2, 2, Some(None)).proves(score(2, &[0]) * 1.01, 0, 0));
    }

    #[test]
    fn single_terms_are_raised_before_pairs() {
        // `a` alone at 1 word may outrank: its chunks first.
        let b = bound(1, 3, Some(at(3)));
        assert_eq!(b.to_raise(score(2, &[0]), 0, 0), Some(Chunked::Term(0)));
        // Each alone is proven, both in one name is not: the pair, which
        // sets that case's length.
        let b = bound(4, 4, Some(at(4)));
        let s = score(4, &[0]) * 1.01;
        assert!(s < score(4, &[0, 1]));
        assert_eq!(b.to_raise(s, 0, 0), Some(Chunked::Set(0b11)));
    }

    #[test]
    fn a_name_of_exactly_the_query_words_scores_the_boost() {
        let units = [(Some(0), 50), (Some(1), 200)];
        let plain = OutsideBound::new(&units, &[at(2), at(2)], &[], None, ENTRIES, AVG).unwrap();
        let boosted =
            OutsideBound::new(&units, &[at(2), at(2)], &[], Some((2, 0b11)), ENTRIES, AVG).unwrap();
        let s = score(2, &[0, 1]) * 1.01;
        assert!(plain.proves(s, 0, 0));
        assert!(!boosted.proves(s, 0, 0));
        assert!(boosted.proves(s + EXACT_NAME_BOOST, 0, 0));
        // A name of those two words cannot be unloaded when both terms'
        // chunks begin at 3 words.
        let later =
            OutsideBound::new(&units, &[at(3), at(3)], &[], Some((2, 0b11)), ENTRIES, AVG).unwrap();
        assert!(later.proves(s, 0, 0));
    }
}
