//! Facet counts of records, and of groups of records counted by their
//! columns, as the whole registry counts them.

use crate::index::Index;
use crate::search::facets::FacetCounts;
use crate::search::{Filters, Version};
use crate::shard::search::{Group, SearchStats};

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
