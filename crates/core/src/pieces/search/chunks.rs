//! Rank chunks of common terms, and of their pairs and triples held in
//! one name: how many are loaded, how many the build wrote, and where the
//! unloaded ones begin (the frontiers the bound reads).

use crate::shard::search::{ChunkFirst, SearchStats};

use super::reading::{Clause, common_units, outside_sets};
use super::slices::Slice;
use super::{Need, PAIR_RANK_CHUNKS, SearchClient, TRIPLE_RANK_CHUNKS, bound};

impl SearchClient {
    /// How many of common term `t`'s rank chunks are loaded (from the first).
    pub(super) fn rank_chunks(&self, t: &str) -> u32 {
        self.loaded_run(|n| Need::Rank(t.to_string(), n)).count() as u32
    }

    /// How many rank chunks of the pair of common terms `a` < `b` are
    /// loaded (from the first).
    pub(super) fn pair_chunks(&self, a: &str, b: &str) -> u32 {
        self.loaded_run(|n| Need::PairRank(a.to_string(), b.to_string(), n))
            .count() as u32
    }

    /// How many rank chunks of the pair `a` < `b` the build wrote (0 when
    /// its group file is not loaded).
    pub(super) fn pair_written(&self, a: &str, b: &str) -> usize {
        self.groups
            .get(&vec![a.to_string(), b.to_string()])
            .map_or(0, |g| g.chunks.len().min(PAIR_RANK_CHUNKS))
    }

    /// Whether the next rank chunk of the pair `a` < `b` was written.
    pub(super) fn pair_has_next(&self, a: &str, b: &str) -> bool {
        (self.pair_chunks(a, b) as usize) < self.pair_written(a, b)
    }

    /// Where the unloaded rank chunks of the pair of common terms `a` < `b`
    /// begin: `None` when the pair has none (or its group file is not
    /// loaded), `Some(None)` when all are loaded (its group file describes
    /// at most [`PAIR_RANK_CHUNKS`] + 1 chunks: all of them when fewer).
    pub(super) fn pair_frontier(&self, a: &str, b: &str) -> Option<Option<bound::Frontier>> {
        let g = self.groups.get(&vec![a.to_string(), b.to_string()])?;
        if g.chunks.is_empty() {
            return None;
        }
        let k = self.pair_chunks(a, b) as usize;
        Some(g.chunks.get(k).map(|&len| bound::Frontier {
            len,
            first: g.chunk_firsts.get(k).copied(),
        }))
    }

    /// How many rank chunks of the triple `terms` (sorted) are loaded.
    pub(super) fn triple_chunks(&self, terms: &[String]) -> u32 {
        self.loaded_run(|n| Need::SetRank(terms.to_vec(), n))
            .count() as u32
    }

    /// Where the unloaded rank chunks of the triple `terms` (sorted) begin,
    /// as [`SearchClient::pair_frontier`] says of a pair.
    pub(super) fn triple_frontier(&self, terms: &[String]) -> Option<Option<bound::Frontier>> {
        let g = self.groups.get(terms)?;
        if g.chunks.is_empty() {
            return None;
        }
        let k = self.triple_chunks(terms) as usize;
        if k == 0 {
            // Its first chunk is asked with its group file: not yet in.
            return None;
        }
        Some(g.chunks.get(k).map(|&len| bound::Frontier {
            len,
            first: g.chunk_firsts.get(k).copied(),
        }))
    }

    /// Whether the next rank chunk of the triple `terms` was written.
    pub(super) fn triple_has_next(&self, terms: &[String]) -> bool {
        let k = self.triple_chunks(terms) as usize;
        self.groups
            .get(terms)
            .is_some_and(|g| k > 0 && k < g.chunks.len().min(TRIPLE_RANK_CHUNKS))
    }

    /// Common term `t`'s rank chunks (each one's shortest length, and in
    /// version 4 its first record), from where they are described: the
    /// term's group file (version 4) or the statistics (version 3). `None`:
    /// the group file is not loaded, or `t` is not common.
    pub(super) fn chunks_of<'s>(
        &'s self,
        stats: &'s SearchStats,
        t: &str,
    ) -> Option<(&'s [u32], Option<&'s [ChunkFirst]>)> {
        if stats.groups {
            let g = self.groups.get(&vec![t.to_string()])?;
            Some((g.chunks.as_slice(), Some(g.chunk_firsts.as_slice())))
        } else {
            Some((stats.common(t)?.chunks.as_slice(), None))
        }
    }

    /// How many rank chunks common term `t` has (0 when its group file is
    /// not loaded).
    pub(super) fn chunk_count(&self, stats: &SearchStats, t: &str) -> usize {
        self.chunks_of(stats, t).map_or(0, |(c, _)| c.len())
    }

    /// Where common term `t`'s unloaded rank chunks begin; `None` when all
    /// are loaded, or its leaf is. A group file not loaded (never, as
    /// [`SearchClient::outside_needs`] asks for it) reads as the loosest
    /// frontier.
    pub(super) fn frontier(&self, stats: &SearchStats, t: &str) -> Option<bound::Frontier> {
        if self.loaded_common_leaf(t).is_some() {
            return None;
        }
        let k = self.rank_chunks(t) as usize;
        let Some((chunks, firsts)) = self.chunks_of(stats, t) else {
            return stats.groups.then_some(bound::Frontier {
                len: 1,
                first: None,
            });
        };
        Some(bound::Frontier {
            len: *chunks.get(k)?,
            first: firsts.and_then(|f| f.get(k).copied()),
        })
    }

    /// Where common term `t`'s unloaded records in every one of `slices`
    /// begin: its own frontier ([`SearchClient::frontier`]) or its
    /// frontier over a slice's records, whichever is furthest (each holds
    /// for every such record); `None` when all of them are loaded.
    pub(super) fn frontier_in(
        &self,
        stats: &SearchStats,
        t: &str,
        slices: &[Slice],
    ) -> Option<bound::Frontier> {
        let mut at = self.frontier(stats, t)?;
        for &slice in slices {
            let d = match self.slice_described(t, slice) {
                None => continue,
                Some(None) => return None, // no record of `t` there
                Some(Some(d)) => d,
            };
            let k = self.slice_chunks(stats, t, slice) as usize;
            if k < self.slice_written(t, slice) && self.slice_missing(stats, t, slice) {
                continue;
            }
            let by_slice = if d.chunks.is_empty() {
                // One chunk, not described: nothing left once it is loaded.
                if k > 0 {
                    return None;
                }
                bound::Frontier {
                    len: 1,
                    first: None,
                }
            } else {
                bound::Frontier {
                    len: *d.chunks.get(k)?,
                    first: d.chunk_firsts.get(k).copied(),
                }
            };
            // The later of the two in E2's order among equal scores.
            let later = |a: &bound::Frontier, b: &bound::Frontier| match (a.first, b.first) {
                (Some(x), Some(y)) => x.order() > y.order(),
                (Some(_), None) => true,
                _ => false,
            };
            if by_slice.len > at.len || (by_slice.len == at.len && later(&by_slice, &at)) {
                at = by_slice;
            }
        }
        Some(at)
    }

    /// The next rank chunk of common term `t` to load: over the first of
    /// `slices` the build wrote more of, else its own.
    pub(super) fn next_rank_chunk(&self, stats: &SearchStats, t: &str, slices: &[Slice]) -> Need {
        for &slice in slices {
            let k = self.slice_chunks(stats, t, slice);
            if (k as usize) < self.slice_written(t, slice) && !self.slice_missing(stats, t, slice) {
                return slice.rank_chunk(stats, t, k);
            }
        }
        Need::Rank(t.to_string(), self.rank_chunks(t))
    }

    /// The rank chunk after `n`, read ahead with it ([`read_ahead`]) when
    /// the build wrote it.
    pub(super) fn chunk_after(
        &self,
        stats: &SearchStats,
        n: &Need,
        slices: &[Slice],
    ) -> Option<Need> {
        match n {
            Need::Rank(t, k) => read_ahead(*k, self.chunk_count(stats, t), || {
                Need::Rank(t.clone(), k + 1)
            }),
            Need::PairRank(a, b, k) => read_ahead(*k, self.pair_written(a, b), || {
                Need::PairRank(a.clone(), b.clone(), k + 1)
            }),
            _ => self.slice_of(stats, n, slices).and_then(|(t, slice, k)| {
                read_ahead(k, self.slice_written(t, slice), || {
                    slice.rank_chunk(stats, t, k + 1)
                })
            }),
        }
    }

    /// The loaded rank chunks of `terms` (common terms that score) that
    /// spend the allowance
    /// [`MAX_RANK_CHUNKS`](super::MAX_RANK_CHUNKS): a term whose leaf is
    /// loaded no longer spends it; a country's or a type's do. (A pair's
    /// chunks, at most [`PAIR_RANK_CHUNKS`] of the one pair whose group
    /// file is loaded, do not spend it either.)
    pub(super) fn spent_chunks(
        &self,
        stats: &SearchStats,
        terms: &[&str],
        slices: &[Slice],
    ) -> u32 {
        terms
            .iter()
            .filter(|t| self.loaded_common_leaf(t).is_none())
            .map(|t| {
                self.rank_chunks(t)
                    + slices
                        .iter()
                        .map(|&s| self.slice_chunks(stats, t, s))
                        .sum::<u32>()
            })
            .sum::<u32>()
    }

    /// Rank chunk 0 of the query's rarest common word, asked for with the
    /// files of a round that is made anyway: a page that ranks records
    /// against words this common mostly needs it (a record holding only
    /// them may outscore the rare words' records), and asking for it once
    /// the group files are in costs a round trip (150 ms on a mobile link)
    /// where the chunk costs ~15 KB. The rarest word is the one whose
    /// chunks the bound asks for first when their shortest names are alike
    /// (`chunk_of_most_room`: the highest IDF × length norm); a wrong guess costs
    /// the chunk, never a wrong answer.
    pub(super) fn first_chunk_ahead(
        &self,
        stats: &SearchStats,
        clauses: &[Clause],
        slices: &[Slice],
    ) -> Option<Need> {
        outside_sets(stats, clauses)?;
        let terms = common_units(stats, clauses);
        if terms.iter().any(|t| {
            self.rank_chunks(t) > 0 || slices.iter().any(|&s| self.slice_chunks(stats, t, s) > 0)
        }) {
            return None;
        }
        let rarest = terms
            .into_iter()
            .filter_map(|t| stats.common(t))
            .min_by_key(|c| (c.df, c.term.as_str()))?;
        // With a country or a type filter, its first chunk (a 404 when the
        // build has none: no record of the term there, or an older build).
        let need = match slices.first() {
            Some(&s) => s.rank_chunk(stats, &rarest.term, 0),
            None => Need::Rank(rarest.term.clone(), 0),
        };
        (!self.has(&need)).then_some(need)
    }
}

/// The rank chunk after chunk `k` of a run of `written` (`next`), asked
/// with it when `k` is past the first: a page that needed a second chunk
/// usually needs the one after too, and a round trip costs more than a
/// chunk (~20 KB).
pub(super) fn read_ahead(k: u32, written: usize, next: impl FnOnce() -> Need) -> Option<Need> {
    (k >= 1 && written > k as usize + 1).then(next)
}
