//! Proving a page: what a record no loaded piece holds may score at most
//! (the bound, from the loaded rank chunks' frontiers), whether the
//! page's last record ranks above it, and otherwise which file to fetch
//! next.

use std::ops::ControlFlow::{Break, Continue};

use crate::order::{sort, sort_by_key};
use crate::search::query::Occur;
use crate::search::{EXACT_NAME_BOOST, GlobalStats, bm25_norm, idf};

use super::bound::{Chunked, Frontier, OutsideBound};
use super::held::HeldRecords;
use super::outside::Outside;
use super::reading::{Reading, common_units, exact_words};
use super::{MAX_RANK_CHUNKS, Need, SearchAnswer, SearchClient, Step};

/// Triples of common terms one answer may ask for (each a group file and
/// its first rank chunk, in one round): a query of several common words
/// has many, and each is a round trip.
pub(super) const MAX_TRIPLES: usize = 3;

impl SearchClient {
    /// Whether the page of `held`'s records ending at `to` is proven
    /// against the `outside` records; if not, what to fetch next.
    pub(super) fn prove_page(
        &self,
        r: &Reading,
        global: &GlobalStats,
        held: &HeldRecords,
        outside: &Outside,
        to: usize,
    ) -> Step<()> {
        // The page must lie within the pieces' records and rank above
        // every record they do not hold: more units covered, or as many
        // and a score above the bound (E2: no units, the score alone).
        let (first, scored) = (held.first.len(), &held.scored);
        let last = (to - first <= scored.len()).then(|| scored[to - first - 1]);
        let exact = exact_words(r.clauses);
        let boosted = self.name_boosted(r, &exact);
        let bound = self.score_bound(r, global, boosted);
        let fine = self.fine_bound(r, global, &exact, boosted);
        let proven = last.is_some_and(|(cover, score, prior, id, ..)| {
            cover > outside.cover
                || (cover == outside.cover
                    && (score > bound * (1.0 + 1e-4) + 1e-4
                        || fine.as_ref().is_some_and(|b| b.proves(score, prior, id))))
        });
        if proven {
            return Continue(());
        }
        // (A page the loaded records do not fill: below them all.)
        let (score, prior, id) = last.map_or((f32::NEG_INFINITY, 0, u32::MAX), |l| (l.1, l.2, l.3));
        Break(self.next_round(r, global, fine.as_ref(), (score, prior, id)))
    }

    /// What a record no loaded piece holds can score at most: per
    /// unit, as E2 adds them (a word twice counts twice), its term's
    /// IDF at the shortest name of its first unloaded rank chunk; plus
    /// the exact-name boost when it may get it (`boosted`).
    fn score_bound(&self, r: &Reading, global: &GlobalStats, boosted: bool) -> f32 {
        let units: usize = r.clauses.iter().map(|(_, _, t)| t.len()).sum();
        let unit_terms = common_units(r.stats, r.clauses);
        let mut bound = unit_terms
            .iter()
            .map(|t| self.term_bound(r, global, t))
            .sum::<f32>()
            + 1e-6 * units as f32;
        if boosted {
            bound += EXACT_NAME_BOOST;
        }
        bound
    }

    /// What one unit of common term `t` adds at most to the score of a
    /// record no loaded piece holds: its IDF at the shortest name of its
    /// first unloaded rank chunk (nothing when all are loaded).
    fn term_bound(&self, r: &Reading, global: &GlobalStats, t: &str) -> f32 {
        let c = r.stats.common(t).expect("a common term");
        self.frontier_len(r, t).map_or(0.0, |len| {
            idf(global.entries, c.df as usize) * bm25_norm(len as usize, global.avg_len)
        })
    }

    /// The shortest name a record of common term `t` no loaded piece
    /// holds may have (`None`: all are loaded).
    fn frontier_len(&self, r: &Reading, t: &str) -> Option<u32> {
        self.frontier_in(r.stats, t, &r.slices).map(|f| f.len)
    }

    /// The exact-name boost, when the query's words (`exact`) are all
    /// common and each may still be a whole name of an unloaded record.
    fn name_boosted(&self, r: &Reading, exact: &[&str]) -> bool {
        !exact.is_empty()
            && exact.iter().all(|t| {
                r.is_common(t)
                    && self
                        .frontier_len(r, t)
                        .is_some_and(|l| l as usize <= exact.len())
            })
    }

    /// The finer bound, case by case and with the chunks' order
    /// among equal scores; a name of exactly the query's words
    /// (all common) also gets the exact-name boost.
    fn fine_bound(
        &self,
        r: &Reading,
        global: &GlobalStats,
        exact: &[&str],
        boosted: bool,
    ) -> Option<OutsideBound> {
        let terms = &r.common_terms;
        let frontiers: Vec<Option<Frontier>> = terms
            .iter()
            .map(|t| self.frontier_in(r.stats, t, &r.slices))
            .collect();
        let exact_set = exact
            .iter()
            .map(|t| terms.iter().position(|x| x == t))
            .try_fold(0u32, |m, i| Some(m | 1u32.checked_shl(i? as u32)?));
        let boost = if boosted {
            // (Boosted, every exact word is a common query term.)
            exact_set.map(|m| (exact.len() as u32, m))
        } else {
            None
        };
        if boosted && boost.is_none() {
            return None;
        }
        OutsideBound::new(
            &fine_units(r, global),
            &frontiers,
            &self.set_frontiers(r),
            boost,
            global.entries,
            global.avg_len,
        )
    }

    /// Where the unloaded rank chunks of the pairs and triples of the
    /// query's common terms begin, by their set (bits of
    /// [`Reading::common_terms`]): those with rank chunks of their own.
    fn set_frontiers(&self, r: &Reading) -> Vec<(u32, Option<Frontier>)> {
        let terms = &r.common_terms;
        let mut pairs = Vec::new();
        for (i, a) in terms.iter().enumerate() {
            for (j, b) in terms.iter().enumerate().skip(i + 1) {
                if let Some(f) = self.pair_frontier(a, b) {
                    pairs.push(((1u32 << i) | (1 << j), f));
                }
            }
        }
        for t in &r.triples {
            if let Some(f) = self.triple_frontier(t) {
                let mask = t
                    .iter()
                    .filter_map(|x| terms.iter().position(|y| y == x))
                    .fold(0u32, |m, i| m | (1 << i));
                pairs.push((mask, f));
            }
        }
        pairs
    }

    /// What to fetch when the page is not proven (its last record sorts
    /// at `last`: score, prior, id): a triple's files, else the rank chunk
    /// that raises the bound (with the one after it) within the
    /// allowance, else the leaf of a term too common to split; else only
    /// the whole registry can rank the rest.
    fn next_round(
        &self,
        r: &Reading,
        global: &GlobalStats,
        fine: Option<&OutsideBound>,
        last: (f32, u8, u32),
    ) -> SearchAnswer {
        if let Some(t) = self.triple_to_ask(r, fine, last) {
            return SearchAnswer::Need(vec![Need::Groups(t.clone()), Need::SetRank(t, 0)]);
        }
        let next_chunk = self
            .chunk_to_raise(r, fine, last)
            .or_else(|| self.chunk_of_most_room(r, global));
        let allowance = self.chunk_allowance.unwrap_or(MAX_RANK_CHUNKS);
        let spent = self.spent_chunks(r.stats, &common_units(r.stats, r.clauses), &r.slices);
        match next_chunk {
            // (Also when the page's last record covers fewer query
            // units than one no piece holds, in the search page's
            // reading: the records a chunk loads leave fewer
            // unloaded, so the page may be placed after all.)
            Some(n) if spent < allowance => {
                // Read ahead ([`read_ahead`]), within the allowance.
                let ahead = self.chunk_after(r.stats, &n, &r.slices);
                let mut needs = vec![n];
                needs.extend(ahead.filter(|_| spent + 1 < allowance));
                SearchAnswer::Need(needs)
            }
            _ => match self.next_leaf(r, global) {
                Some(needs) => SearchAnswer::Need(needs),
                None => SearchAnswer::Whole("common words rank records no piece holds"),
            },
        }
    }

    /// A case of three or more terms that no single term's
    /// leaves room for: a triple of its rarest terms.
    fn triple_to_ask(
        &self,
        r: &Reading,
        fine: Option<&OutsideBound>,
        (score, prior, id): (f32, u8, u32),
    ) -> Option<Vec<String>> {
        let set = fine?.worst_set(score, prior, id)?;
        if set.count_ones() < 3 {
            return None;
        }
        let asked = r
            .triples
            .iter()
            .filter(|t| self.groups.contains_key(*t))
            .count();
        if asked >= MAX_TRIPLES {
            return None;
        }
        let terms = &r.common_terms;
        let mut members: Vec<&str> = (0..terms.len())
            .filter(|&i| set & (1 << i) != 0)
            .map(|i| terms[i])
            .collect();
        sort_by_key(&mut members, |t| {
            (r.stats.common(t).map_or(0, |c| c.df), *t)
        });
        for x in 0..members.len() {
            for y in x + 1..members.len() {
                for z in y + 1..members.len() {
                    let mut t = vec![
                        members[x].to_string(),
                        members[y].to_string(),
                        members[z].to_string(),
                    ];
                    sort(&mut t);
                    if !self.groups.contains_key(&t) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }

    /// The rank chunk that raises the case of the fine bound that leaves
    /// the most room, when the build wrote one more.
    fn chunk_to_raise(
        &self,
        r: &Reading,
        fine: Option<&OutsideBound>,
        (score, prior, id): (f32, u8, u32),
    ) -> Option<Need> {
        match fine?.to_raise(score, prior, id)? {
            // A pair's chunks when a name holding both sets the length
            // of the case that leaves the most room.
            Chunked::Set(mask) if mask.count_ones() == 2 => {
                let terms = r.set_terms(mask);
                let [a, b] = terms.as_slice() else {
                    return None;
                };
                self.pair_has_next(a, b)
                    .then(|| Need::PairRank(a.to_string(), b.to_string(), self.pair_chunks(a, b)))
            }
            Chunked::Set(mask) if mask.count_ones() == 3 => {
                let t = r.set_terms(mask);
                if !self.triple_has_next(&t) {
                    return None;
                }
                let n = self.triple_chunks(&t);
                Some(Need::SetRank(t, n))
            }
            // The term whose frontier sets the length of the case
            // that leaves the most room: raising another term's
            // (the highest IDF × length norm: `chunk_of_most_room`) leaves that
            // case where it is.
            Chunked::Term(i)
                if self
                    .frontier_in(r.stats, r.common_terms[i], &r.slices)
                    .is_some() =>
            {
                Some(self.next_rank_chunk(r.stats, r.common_terms[i], &r.slices))
            }
            _ => None,
        }
    }

    /// The next chunk to load: the term that leaves the most room.
    fn chunk_of_most_room(&self, r: &Reading, global: &GlobalStats) -> Option<Need> {
        common_units(r.stats, r.clauses)
            .iter()
            .filter(|t| self.frontier_len(r, t).is_some())
            .max_by(|a, b| {
                self.term_bound(r, global, a)
                    .total_cmp(&self.term_bound(r, global, b))
            })
            .map(|t| self.next_rank_chunk(r.stats, t, &r.slices))
    }

    /// When the chunks do not serve: the leaf of a term too common
    /// to split, the one that leaves the most room. Common words are
    /// otherwise read without their directory parts: those first,
    /// all at once.
    fn next_leaf(&self, r: &Reading, global: &GlobalStats) -> Option<Vec<Need>> {
        let unit_terms = common_units(r.stats, r.clauses);
        let open: Vec<&&str> = unit_terms
            .iter()
            .filter(|t| self.frontier_len(r, t).is_some())
            .collect();
        let mut parts: Vec<Need> = open
            .iter()
            .filter_map(|t| self.common_leaf(t).err())
            .collect();
        sort(&mut parts);
        parts.dedup();
        if !parts.is_empty() {
            return Some(parts);
        }
        open.iter()
            .filter_map(|t| Some((t, self.common_leaf(t).ok()??)))
            .max_by(|a, b| {
                self.term_bound(r, global, a.0)
                    .total_cmp(&self.term_bound(r, global, b.0))
            })
            .map(|(_, n)| vec![n])
    }
}

/// The query's units as the fine bound reads them (outside excluded
/// clauses and exact phrases, in the order E2 adds them): a common one's
/// place among [`Reading::common_terms`] and its document frequency (as a
/// prefix, for the search page's last word), a rare one's none.
fn fine_units(r: &Reading, global: &GlobalStats) -> Vec<(Option<usize>, usize)> {
    let mut units = Vec::new();
    for (ci, (occur, exact_phrase, toks)) in r.clauses.iter().enumerate() {
        if *occur == Occur::MustNot || *exact_phrase {
            continue;
        }
        for (k, t) in toks.iter().enumerate() {
            let Some(c) = r.stats.common(&t.text) else {
                units.push((None, 0));
                continue;
            };
            let as_prefix = r.typed_last == Some(ci) && k + 1 == toks.len();
            let df = match global.prefix_df.get(&t.text) {
                Some(&d) if as_prefix => d,
                _ => c.df as usize,
            };
            units.push((r.common_terms.iter().position(|x| *x == t.text), df));
        }
    }
    units
}
