//! The v1 record shape, derived from a v2 record.
//!
//! Conversion rules (upstream's v2→v1 crosswalk): types and relationship types
//! capitalised; one address built from the first location; `geo_admin1.code`
//! = `<country_code>.<subdivision>`; GRID's `all` is one string; external-id
//! keys `FunderRegistry`, `GRID`, `ISNI`, `OpenKB` (others dropped, an entry
//! with neither ids nor a preferred id omitted); `links` are the website URLs
//! and `encyclopedia_url` the first encyclopedia link; fields the registry no
//! longer has are `null` (or `[]` for `ip_addresses`). A zero latitude or
//! longitude becomes `null`, as upstream does.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{ACRONYM, ALIAS, DISPLAY, LABEL, Record};

/// Attribution object every v1 address carries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct License {
    /// Attribution text.
    pub attribution: &'static str,
    /// Licence URL.
    pub license: &'static str,
}

const LICENSE: License = License {
    attribution: "Data from geonames.org under a CC-BY 3.0 license",
    license: "http://creativecommons.org/licenses/by/3.0/",
};

/// A v1 organization record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecordV1 {
    /// Identifier URL.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Always null.
    pub email_address: Option<String>,
    /// Always empty.
    pub ip_addresses: Vec<String>,
    /// Year of establishment.
    pub established: Option<i64>,
    /// Capitalised types.
    pub types: Vec<String>,
    /// Relationships with capitalised types.
    pub relationships: Vec<RelationshipV1>,
    /// One address from the first location (none without locations).
    pub addresses: Vec<AddressV1>,
    /// Website URLs.
    pub links: Vec<String>,
    /// Alias names.
    pub aliases: Vec<String>,
    /// Acronyms.
    pub acronyms: Vec<String>,
    /// Status.
    pub status: String,
    /// First encyclopedia link.
    pub encyclopedia_url: Option<String>,
    /// Labels other than the display name.
    pub labels: Vec<LabelV1>,
    /// Country of the first location.
    pub country: CountryV1,
    /// External ids keyed by v1 name.
    pub external_ids: BTreeMap<&'static str, ExternalIdV1>,
}

/// v1 relationship.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelationshipV1 {
    /// The other record's display name.
    pub label: String,
    /// `Parent`, `Child`, `Related`, `Successor`, `Predecessor`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The other record's id.
    pub id: String,
}

/// v1 label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelV1 {
    /// The label.
    pub label: String,
    /// Its language.
    pub iso639: Option<String>,
}

/// v1 country.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CountryV1 {
    /// Country name.
    pub country_name: Option<String>,
    /// ISO code.
    pub country_code: Option<String>,
}

/// v1 external id: GRID has a single string in `all`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExternalIdV1 {
    /// Preferred id.
    pub preferred: Option<String>,
    /// All ids (one string for GRID).
    pub all: AllIds,
}

/// `all` of a v1 external id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum AllIds {
    /// GRID: the first id.
    One(String),
    /// Everything else.
    Many(Vec<String>),
}

/// A v1 address.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AddressV1 {
    /// Latitude (null when zero).
    pub lat: Option<serde_json::Number>,
    /// Longitude (null when zero).
    pub lng: Option<serde_json::Number>,
    /// Always null.
    pub state: Option<String>,
    /// Always null.
    pub state_code: Option<String>,
    /// Place name.
    pub city: String,
    /// Gazetteer details.
    pub geo_city: GeoCityV1,
    /// Always null.
    pub postcode: Option<String>,
    /// Always false.
    pub primary: bool,
    /// Always null.
    pub line: Option<String>,
    /// Always null.
    pub country_geo_id: Option<i64>,
}

/// `geo_city` of a v1 address.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GeoCityV1 {
    /// Gazetteer id.
    pub id: Option<i64>,
    /// Place name.
    pub city: String,
    /// First-level subdivision.
    pub geo_admin1: AdminAreaV1,
    /// Always all-null.
    pub geo_admin2: AdminAreaV1,
    /// Data licence.
    pub license: License,
    /// Always all-null.
    pub nuts_level1: NutsV1,
    /// Always all-null.
    pub nuts_level2: NutsV1,
    /// Always all-null.
    pub nuts_level3: NutsV1,
}

/// Administrative area.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AdminAreaV1 {
    /// Name.
    pub name: Option<String>,
    /// Gazetteer id.
    pub id: Option<i64>,
    /// ASCII name.
    pub ascii_name: Option<String>,
    /// `<country_code>.<subdivision>`.
    pub code: Option<String>,
}

/// NUTS region.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NutsV1 {
    /// Name.
    pub name: Option<String>,
    /// Code.
    pub code: Option<String>,
}

/// Capitalises the first letter and lowercases the rest (`nonprofit` → `Nonprofit`).
pub fn title_case(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// v2 external-id type → v1 key.
pub fn external_id_key_v1(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "funder_registry" | "fundref" => "FunderRegistry",
        "grid" => "GRID",
        "isni" => "ISNI",
        "open_kb" | "wikidata" => "OpenKB",
        _ => return None,
    })
}

fn nonzero(n: &Option<serde_json::Number>) -> Option<serde_json::Number> {
    n.as_ref()
        .filter(|n| n.as_f64().is_some_and(|f| f != 0.0))
        .cloned()
}

impl RecordV1 {
    /// Derives the v1 view of a v2 record.
    pub fn from_v2(r: &Record) -> RecordV1 {
        let has = |types: &[String], t: &str| types.iter().any(|x| x == t);
        let values = |t: &str| {
            r.names
                .iter()
                .filter(|n| has(&n.types, t))
                .map(|n| n.value.clone())
                .collect()
        };
        let first = r.locations.first();
        let mut external_ids = BTreeMap::new();
        for e in &r.external_ids {
            let Some(key) = external_id_key_v1(&e.kind) else {
                continue;
            };
            let preferred = e.preferred.clone().filter(|p| !p.is_empty());
            if e.all.is_empty() && preferred.is_none() {
                continue;
            }
            let all = if key == "GRID" {
                AllIds::One(e.all.first().cloned().unwrap_or_default())
            } else {
                AllIds::Many(e.all.clone())
            };
            external_ids
                .entry(key)
                .or_insert(ExternalIdV1 { preferred, all });
        }
        RecordV1 {
            id: r.id.clone(),
            name: r.display_name().unwrap_or_default().to_string(),
            email_address: None,
            ip_addresses: Vec::new(),
            established: r.established,
            types: r
                .types
                .iter()
                .map(|t| title_case(t))
                .filter(|t| V1_TYPES.contains(&t.as_str()))
                .collect(),
            relationships: r
                .relationships
                .iter()
                .map(|x| RelationshipV1 {
                    label: x.label.clone(),
                    kind: title_case(&x.kind),
                    id: x.id.clone(),
                })
                .collect(),
            addresses: first
                .map(|l| {
                    let g = &l.geo_details;
                    let sub_code = g.country_subdivision_code.clone().flatten();
                    AddressV1 {
                        lat: nonzero(&g.lat),
                        lng: nonzero(&g.lng),
                        state: None,
                        state_code: None,
                        city: g.name.clone(),
                        geo_city: GeoCityV1 {
                            id: l.geo_id,
                            city: g.name.clone(),
                            geo_admin1: AdminAreaV1 {
                                name: g.country_subdivision_name.clone().flatten(),
                                id: None,
                                ascii_name: None,
                                code: sub_code.map(|s| format!("{}.{s}", g.country_code)),
                            },
                            geo_admin2: AdminAreaV1::default(),
                            license: LICENSE,
                            nuts_level1: NutsV1::default(),
                            nuts_level2: NutsV1::default(),
                            nuts_level3: NutsV1::default(),
                        },
                        postcode: None,
                        primary: false,
                        line: None,
                        country_geo_id: None,
                    }
                })
                .into_iter()
                .collect(),
            links: r
                .links
                .iter()
                .filter(|l| l.kind == "website")
                .map(|l| l.value.clone())
                .collect(),
            aliases: values(ALIAS),
            acronyms: values(ACRONYM),
            status: r.status.clone(),
            encyclopedia_url: r
                .links
                .iter()
                .find(|l| l.kind == "encyclopedia")
                .map(|l| l.value.clone()),
            labels: r
                .names
                .iter()
                .filter(|n| has(&n.types, LABEL) && !has(&n.types, DISPLAY))
                .map(|n| LabelV1 {
                    label: n.value.clone(),
                    iso639: n.lang.clone(),
                })
                .collect(),
            country: CountryV1 {
                country_name: first.map(|l| l.geo_details.country_name.clone()),
                country_code: first.map(|l| l.geo_details.country_code.clone()),
            },
            external_ids,
        }
    }
}

/// Types v1 knows (capitalised).
pub const V1_TYPES: [&str; 9] = [
    "Education",
    "Healthcare",
    "Company",
    "Archive",
    "Nonprofit",
    "Government",
    "Facility",
    "Funder",
    "Other",
];
