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

use crate::search::{bm25_norm, idf};
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

/// One set of common terms a record no piece holds may have in one name.
struct Case {
    /// The most such a name scores at the shortest length it may have.
    at: f32,
    /// The most it scores when longer.
    beyond: f32,
    /// At the shortest length the record sorts, among equal scores, at or
    /// after one of these.
    after: Vec<ChunkFirst>,
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
    /// frontier, `None` when all its chunks are loaded. `None` when the
    /// query has too many common terms.
    pub fn new(
        units: &[(Option<usize>, usize)],
        terms: &[Option<Frontier>],
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
            // A term whose chunks are all loaded: every record of it is.
            let Some(members) = (0..terms.len())
                .filter(|&t| set & (1 << t) != 0)
                .map(|t| terms[t].as_ref())
                .collect::<Option<Vec<&Frontier>>>()
            else {
                continue;
            };
            let Some(len) = members.iter().map(|f| f.len).max() else {
                continue;
            };
            cases.push(Case {
                at: score(set, len),
                beyond: score(set, len + 1),
                after: members
                    .iter()
                    .filter(|f| f.len == len)
                    .filter_map(|f| f.first)
                    .collect(),
            });
        }
        Some(OutsideBound { cases })
    }

    /// Whether a record of score `score`, prior `prior` and id `id` sorts
    /// before every record no loaded piece holds.
    pub fn proves(&self, score: f32, prior: u8, id: u32) -> bool {
        self.cases.iter().all(|c| {
            c.beyond < score
                && (c.at < score
                    || (c.at <= score
                        && c.after
                            .iter()
                            .any(|f| f.prior < prior || (f.prior == prior && f.id >= id))))
        })
    }
}
