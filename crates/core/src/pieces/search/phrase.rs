//! A quoted phrase of two common words alone, answered from its phrase
//! group file and rank chunks (version 7).

use std::collections::HashMap;

use crate::index::Index;
use crate::order::sort_by;
use crate::search::facets::FacetCounts;
use crate::search::{Engine, Filters, GlobalStats, PAGE_SIZE};
use crate::shard::search::SearchStats;

use super::chunks::read_ahead;
use super::facets::{add_group, group_passes};
use super::{ListQuery, Need, PHRASE_RANK_CHUNKS, SearchAnswer, SearchClient, bound};

impl SearchClient {
    /// A quoted phrase of two common words alone (`"university of"`) whose
    /// records do not fit a phrase piece (version 7): every match holds the
    /// pair, so its group file counts them all by columns (the count and
    /// the facets), and its rank chunks order them by their shortest name
    /// holding it; E2 scores such a name by the two words' IDFs at that
    /// length, so a page is proven once its last record scores above what
    /// the first unloaded chunk's shortest name may (or as much, sorting
    /// before that chunk's first record).
    pub(super) fn answer_phrase(
        &self,
        q: &ListQuery,
        stats: &SearchStats,
        countries: &Index,
        filters: &Filters,
        a: &str,
        b: &str,
    ) -> SearchAnswer {
        let whole = SearchAnswer::Whole("a quoted phrase of common words only");
        let Some(g) = self.phrase_groups.get(&(a.to_string(), b.to_string())) else {
            return SearchAnswer::Need(vec![Need::PhraseGroups(a.to_string(), b.to_string())]);
        };
        let (Some(ca), Some(cb)) = (stats.common(a), stats.common(b)) else {
            return whole;
        };
        if g.groups.is_empty() || g.chunks.is_empty() {
            return whole; // none written (an older build)
        }
        let mut facets = FacetCounts::default();
        let mut total = 0usize;
        for (grp, n) in &g.groups {
            if group_passes(filters, grp) {
                total += *n as usize;
                add_group(&mut facets, stats, grp, q.version, i64::from(*n));
            }
        }
        let global = GlobalStats {
            entries: stats.entries as usize,
            avg_len: stats.avg_len,
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
        let mut rows: Vec<(f32, u8, u32, &Engine, u32)> = Vec::new();
        for &e in &loaded {
            let local = filters.relocate(countries, e.index());
            let hits = match e.search_with(&q.query, &local, Some(&global)) {
                Ok(h) => h,
                Err(msg) => return SearchAnswer::Invalid(vec![msg]),
            };
            let reg = e.registry();
            for (&r, &score) in hits.records.iter().zip(&hits.scores) {
                rows.push((
                    score,
                    reg.priors()[r as usize],
                    reg.id(r as usize).number(),
                    e,
                    r,
                ));
            }
        }
        sort_by(&mut rows, |x, y| {
            y.0.total_cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2))
        });
        let k = loaded.len();
        let from = (q.page.saturating_sub(1) * PAGE_SIZE).min(total);
        let to = (from + PAGE_SIZE).min(total);
        let written = g.chunks.len().min(PHRASE_RANK_CHUNKS);
        let proven = match g.chunks.get(k) {
            // Every chunk loaded: the rows are every match.
            None if k == g.chunks.len() => {
                if rows.len() != total {
                    return SearchAnswer::Whole("the group files disagree");
                }
                true
            }
            None => false, // a chunk came empty (a broken deploy)
            Some(&len) if to > 0 => rows.get(to - 1).is_some_and(|&(score, prior, id, ..)| {
                let frontier = bound::Frontier {
                    len,
                    first: g.chunk_firsts.get(k).copied(),
                };
                bound::OutsideBound::phrase(
                    [(a, ca.df as usize), (b, cb.df as usize)],
                    &frontier,
                    global.entries,
                    global.avg_len,
                )
                .proves(score, prior, id)
            }),
            Some(_) => true, // an empty page
        };
        if !proven {
            return if k < written && !self.has(&run(k as u32)) {
                let mut needs = vec![run(k as u32)];
                needs.extend(read_ahead(k as u32, written, || run(k as u32 + 1)));
                SearchAnswer::Need(needs)
            } else {
                SearchAnswer::Whole("a quoted phrase of common words ranks records no piece holds")
            };
        }
        let hits = rows[from..to]
            .iter()
            .map(|&(s, _, _, e, r)| (s, e, r))
            .collect();
        self.page(q, countries, hits, total, facets)
    }
}
