//! The v2 organization record, with the spec's names.
//!
//! Field order follows the API's output order (alphabetical), so serialising a
//! [`Record`] gives the spec's JSON. Deserialisation accepts both the spec's
//! names and the upstream dump's (`geonames_details`, `geonames_id`); enumerated
//! *values* in upstream spelling (`ror_display`, `fundref`, `wikidata`,
//! `wikipedia`) are renamed by [`Record::adopt_spec_vocabulary`], which the
//! importer always calls.
//!
//! Arrays keep their source order (upstream's API re-sorts some of them on
//! output; we keep the curators' order, which also makes import → shard →
//! record an exact round trip). Values the spec does not list (a relationship
//! type `predecessor`, a future external-id type) are kept as they are.

use serde::{Deserialize, Deserializer, Serialize};

/// One organization, v2 shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Creation and last-modification metadata.
    pub admin: Admin,
    /// Internet domains of the organization.
    #[serde(default)]
    pub domains: Vec<String>,
    /// Year of establishment.
    #[serde(default)]
    pub established: Option<i64>,
    /// Identifiers in other registries.
    #[serde(default)]
    pub external_ids: Vec<ExternalId>,
    /// The identifier URL.
    pub id: String,
    /// Website and encyclopedia links.
    #[serde(default)]
    pub links: Vec<Link>,
    /// Where the organization is; the first one is the primary location.
    #[serde(default)]
    pub locations: Vec<Location>,
    /// Every name: display name, labels, aliases, acronyms.
    pub names: Vec<Name>,
    /// Links to related records.
    #[serde(default)]
    pub relationships: Vec<Relationship>,
    /// `active`, `inactive` or `withdrawn`.
    pub status: String,
    /// Organization types (`education`, `funder`, …).
    #[serde(default)]
    pub types: Vec<String>,
}

/// `admin` block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Admin {
    /// When the record was created.
    pub created: AdminEvent,
    /// When the record was last changed.
    pub last_modified: AdminEvent,
}

/// A dated admin event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminEvent {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Schema version of the record at that time (`1.0`, `2.0`, `2.1`).
    pub schema_version: String,
}

/// An identifier in another registry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalId {
    /// All identifiers of this kind.
    pub all: Vec<String>,
    /// The preferred one, if any.
    pub preferred: Option<String>,
    /// `funder_registry`, `grid`, `isni`, `open_kb`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// A web link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// `website` or `encyclopedia`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The URL.
    pub value: String,
}

/// A location from the geo gazetteer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Location {
    /// Place details.
    #[serde(alias = "geonames_details")]
    pub geo_details: GeoDetails,
    /// Gazetteer id of the place.
    #[serde(alias = "geonames_id")]
    pub geo_id: Option<i64>,
}

/// Place details. The four continent/subdivision members exist only on
/// records of schema 2.1; `None` means "absent", `Some(None)` means "null".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoDetails {
    /// `AF`, `AN`, `AS`, `EU`, `NA`, `OC`, `SA` (schema 2.1).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub continent_code: Option<Option<String>>,
    /// Continent name (schema 2.1).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub continent_name: Option<Option<String>>,
    /// ISO 3166 alpha-2 code.
    pub country_code: String,
    /// Country name.
    pub country_name: String,
    /// Subdivision code without the country prefix (schema 2.1).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub country_subdivision_code: Option<Option<String>>,
    /// Subdivision name (schema 2.1).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub country_subdivision_name: Option<Option<String>>,
    /// Latitude, kept as written (integer or decimal).
    pub lat: Option<serde_json::Number>,
    /// Longitude, kept as written (integer or decimal).
    pub lng: Option<serde_json::Number>,
    /// Place (city) name.
    pub name: String,
}

/// Distinguishes a present `null` from an absent member.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// A name of the organization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Name {
    /// Language code, if known.
    pub lang: Option<String>,
    /// `registry_display`, `label`, `alias`, `acronym` (one or more).
    pub types: Vec<String>,
    /// The name itself.
    pub value: String,
}

/// A link to another record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relationship {
    /// The other record's display name.
    pub label: String,
    /// `parent`, `child`, `related`, `successor`, `predecessor`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The other record's identifier URL.
    pub id: String,
}

/// Name type of the display name.
pub const DISPLAY: &str = "registry_display";
/// Name type of official names in a language.
pub const LABEL: &str = "label";
/// Name type of other names.
pub const ALIAS: &str = "alias";
/// Name type of acronyms.
pub const ACRONYM: &str = "acronym";

/// The three record statuses.
pub const STATUSES: [&str; 3] = ["active", "inactive", "withdrawn"];

/// The nine organization types of the spec.
pub const TYPES: [&str; 9] = [
    "education",
    "funder",
    "healthcare",
    "company",
    "archive",
    "nonprofit",
    "government",
    "facility",
    "other",
];

/// Upstream spelling → spec spelling of enumerated values.
const VALUE_RENAMES: [(&str, &str); 4] = [
    ("ror_display", DISPLAY),
    ("fundref", "funder_registry"),
    ("wikidata", "open_kb"),
    ("wikipedia", "encyclopedia"),
];

fn rename_value(v: &mut String) {
    if let Some((_, to)) = VALUE_RENAMES.iter().find(|(from, _)| v == from) {
        *v = (*to).to_string();
    }
}

impl Record {
    /// Renames upstream enumerated values to the spec's (idempotent).
    pub fn adopt_spec_vocabulary(&mut self) {
        for n in &mut self.names {
            n.types.iter_mut().for_each(rename_value);
        }
        self.external_ids
            .iter_mut()
            .for_each(|e| rename_value(&mut e.kind));
        self.links
            .iter_mut()
            .for_each(|l| rename_value(&mut l.kind));
    }

    /// The display name (the first name typed `registry_display`).
    pub fn display_name(&self) -> Option<&str> {
        self.names
            .iter()
            .find(|n| n.types.iter().any(|t| t == DISPLAY))
            .map(|n| n.value.as_str())
    }

    /// Names of one type, in order.
    pub fn names_of_type<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Name> + 'a {
        self.names
            .iter()
            .filter(move |n| n.types.iter().any(|t| t == kind))
    }
}

/// Renames upstream keys and values in a JSON tree to the spec's spelling.
/// Tests use it to compare a dump with what a shard gives back.
pub fn rename_upstream_json(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            for (from, to) in [
                ("geonames_details", "geo_details"),
                ("geonames_id", "geo_id"),
            ] {
                if let Some(x) = map.remove(from) {
                    map.insert(to.to_string(), x);
                }
            }
            for (k, x) in map.iter_mut() {
                if k == "types" || k == "type" {
                    match x {
                        Value::String(s) => rename_value(s),
                        Value::Array(a) => a.iter_mut().for_each(|t| {
                            if let Value::String(s) = t {
                                rename_value(s)
                            }
                        }),
                        _ => {}
                    }
                }
                rename_upstream_json(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(rename_upstream_json),
        _ => {}
    }
}
