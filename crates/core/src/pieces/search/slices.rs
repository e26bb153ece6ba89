//! Slices: the records of one filter value (a country, a type) over
//! which common terms have rank chunks of their own (versions 6, 7).

use crate::search::{Engine, Filters};
use crate::shard::search::{FacetChunks, SearchStats};

use super::{FACET_RANK_CHUNKS, Need, SearchClient};

/// The records of one filter value over which common terms have rank
/// chunks of their own: the one country, or the one type, every record a
/// filter lets through has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slice {
    /// An index into [`SearchStats::countries`].
    Country(u16),
    /// A type's bit ([`crate::model::TYPES`]).
    Type(u16),
}

impl Slice {
    /// The file of rank chunk `n` of common term `t` over this slice.
    pub(super) fn rank_chunk(self, stats: &SearchStats, t: &str, n: u32) -> Need {
        match self {
            Slice::Country(c) => {
                Need::CountryRank(t.to_string(), stats.countries[c as usize].code.clone(), n)
            }
            Slice::Type(b) => Need::TypeRank(
                t.to_string(),
                crate::model::TYPES[b as usize].to_string(),
                n,
            ),
        }
    }
}

/// The one country, and the one type, every record the filters let
/// through has: common terms' rank chunks over their records (versions
/// 6, 7) rank the filtered page.
pub(super) fn slices_of(filters: &Filters, stats: &SearchStats) -> Vec<Slice> {
    let country = filters
        .country_codes
        .as_deref()
        .or(filters.country_names.as_deref())
        .and_then(|c| match c {
            [one] => Some(*one),
            _ => None,
        })
        .filter(|&c| usize::from(c) < stats.countries.len());
    let kind = filters
        .types
        .filter(|b| b.count_ones() == 1)
        .map(|b| b.trailing_zeros() as u16);
    country
        .map(Slice::Country)
        .into_iter()
        .chain(kind.map(Slice::Type))
        .collect()
}

impl SearchClient {
    /// Common term `t`'s rank chunks over `slice` (versions 6, 7): `None`
    /// when its group file is not loaded or describes none over such
    /// slices (an older build); `Some(None)` when no record of `t` is in
    /// `slice`.
    pub(super) fn slice_described(&self, t: &str, slice: Slice) -> Option<Option<&FacetChunks>> {
        let g = self.groups.get(std::slice::from_ref(&t.to_string()))?;
        let (list, value) = match slice {
            Slice::Country(c) => (&g.countries, c),
            Slice::Type(b) => (&g.types, b),
        };
        if list.is_empty() {
            return None;
        }
        Some(
            list.binary_search_by_key(&value, |x| x.value)
                .ok()
                .map(|i| &list[i]),
        )
    }

    /// The term, slice and number of `need` when it is a rank chunk over
    /// one of `slices`.
    pub(super) fn slice_of<'n>(
        &self,
        stats: &SearchStats,
        need: &'n Need,
        slices: &[Slice],
    ) -> Option<(&'n str, Slice, u32)> {
        let (Need::CountryRank(t, _, k) | Need::TypeRank(t, _, k)) = need else {
            return None;
        };
        let slice = slices
            .iter()
            .copied()
            .find(|&s| s.rank_chunk(stats, t, *k) == *need)?;
        Some((t.as_str(), slice, *k))
    }

    /// How many of common term `t`'s rank chunks over `slice` are loaded
    /// (from the first). A written chunk holds records: one that came
    /// empty (a 404: none written, or a broken deploy) ends the count
    /// ([`SearchClient::slice_missing`]).
    pub(super) fn slice_chunks(&self, stats: &SearchStats, t: &str, slice: Slice) -> u32 {
        self.slice_run(stats, t, slice).count() as u32
    }

    /// The loaded rank chunks of `t` over `slice`
    /// ([`SearchClient::slice_chunks`]).
    pub(super) fn slice_run<'a>(
        &'a self,
        stats: &'a SearchStats,
        t: &'a str,
        slice: Slice,
    ) -> impl Iterator<Item = &'a Engine> {
        self.loaded_run(move |n| slice.rank_chunk(stats, t, n))
            .take_while(|e| !e.registry().is_empty())
    }

    /// Whether the next rank chunk of `t` over `slice` came empty: the
    /// slice's chunks are then not read (the term's own serve, as in
    /// version 5).
    pub(super) fn slice_missing(&self, stats: &SearchStats, t: &str, slice: Slice) -> bool {
        let n = self.slice_chunks(stats, t, slice);
        self.engines.contains_key(&slice.rank_chunk(stats, t, n))
    }

    /// How many rank chunks of common term `t` over `slice` the build
    /// wrote.
    pub(super) fn slice_written(&self, t: &str, slice: Slice) -> usize {
        match self.slice_described(t, slice) {
            Some(Some(d)) if d.chunks.is_empty() => 1,
            Some(Some(d)) => d.chunks.len().min(FACET_RANK_CHUNKS),
            _ => 0,
        }
    }
}
