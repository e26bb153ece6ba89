//! The page an answer gives: its share of the ranked records with their
//! summaries, and the facet counts over every match, as the whole
//! registry counts them.

use crate::index::Index;
use crate::search::facets::FacetCounts;
use crate::search::{Engine, Filters, PAGE_SIZE, Version};
use crate::shard::search::{Group, SearchStats};

use super::{ListQuery, PageAnswer, PageHit, SearchAnswer};

/// Where page `page` (from 1) of `total` ranked records begins and ends.
pub(super) fn page_range(page: usize, total: usize) -> (usize, usize) {
    let from = (page.saturating_sub(1) * PAGE_SIZE).min(total);
    let to = (from + PAGE_SIZE).min(total);
    (from, to)
}

/// The page of `hits` (score, piece, record in it), of `total` matches
/// counted into `facets`.
pub(super) fn page(
    q: &ListQuery,
    countries: &Index,
    hits: Vec<(f32, &Engine, u32)>,
    total: usize,
    facets: FacetCounts,
) -> SearchAnswer {
    let title = |code: &str| crate::search::facets::country_title(countries, code);
    SearchAnswer::Page(PageAnswer {
        hits: hits
            .into_iter()
            .map(|(score, e, r)| PageHit {
                summary: e.registry().summary(r as usize),
                score,
            })
            .collect(),
        number_of_results: total,
        meta: facets.meta(q.version, title),
    })
}

/// Whether records of columns `g` pass `filters` (status and columns).
pub(super) fn group_passes(filters: &Filters, g: &Group) -> bool {
    filters.visible_statuses(false) & (1 << g.status) != 0
        && filters.matches_columns(g.types, g.continents, &g.countries)
}

/// Adds `n` records of columns `g` to `facets`.
pub(super) fn add_group(
    facets: &mut FacetCounts,
    stats: &SearchStats,
    g: &Group,
    version: Version,
    n: i64,
) {
    let codes = g
        .countries
        .iter()
        .map(|&c| stats.countries[c as usize].code.as_str());
    facets.add(g.status, g.types, g.continents, codes, version, n);
}

/// Counts record `r` of `ix` into `f`.
pub(super) fn add_record(f: &mut FacetCounts, ix: &Index, r: u32, version: Version, sign: i64) {
    let codes = ix
        .record_countries(r)
        .iter()
        .map(|&c| ix.countries()[c as usize].code.as_str());
    f.add(
        ix.status(r),
        ix.type_bits(r),
        ix.continent_bits(r),
        codes,
        version,
        sign,
    );
}
