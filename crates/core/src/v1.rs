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
    let mut out = String::new();
    if let Some(f) = c.next() {
        push_uppercase(&mut out, f);
        out.extend(c.flat_map(char::to_lowercase));
    }
    out
}

/// Appends `c.to_uppercase()` to `out`, from the compact tables below rather
/// than the standard library's (12 KB of wasm, for this one use).
pub(crate) fn push_uppercase(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_uppercase());
        return;
    }
    let cp = c as u32;
    let i = UPPER_KEYS.partition_point(|&k| k >> 8 <= cp);
    if i > 0 {
        let k = UPPER_KEYS[i - 1];
        let (offset, stride) = (cp - (k >> 8), 1 + (k & 1));
        if offset % stride == 0
            && offset / stride < (k >> 1) & 0x7f
            && let Some(u) = char::from_u32(cp.wrapping_add_signed(UPPER_DELTAS[i - 1]))
        {
            out.push(u);
            return;
        }
    }
    match UPPER_MULTI.split(' ').find(|e| e.starts_with(c)) {
        Some(e) => out.push_str(&e[c.len_utf8()..]),
        None => out.push(c),
    }
}

/// [`push_uppercase`]: runs of code points whose uppercase is one character
/// at a constant offset, as `start << 8 | count << 1 | (stride == 2)`,
/// sorted (generated from `char::to_uppercase`; a test checks them) …
const UPPER_KEYS: &[u32] = &[
    0x6134, 0xb502, 0xe02e, 0xf80e, 0xff02, 0x10131, 0x13102, 0x13307, 0x13a11, 0x14b2f, 0x17a07,
    0x17f02, 0x18002, 0x18305, 0x18802, 0x18c02, 0x19202, 0x19502, 0x19902, 0x19a02, 0x19b02,
    0x19e02, 0x1a107, 0x1a802, 0x1ad02, 0x1b002, 0x1b405, 0x1b902, 0x1bd02, 0x1bf02, 0x1c502,
    0x1c602, 0x1c802, 0x1c902, 0x1cb02, 0x1cc02, 0x1ce11, 0x1dd02, 0x1df13, 0x1f202, 0x1f302,
    0x1f502, 0x1f929, 0x22313, 0x23c02, 0x23f04, 0x24202, 0x2470b, 0x25002, 0x25102, 0x25202,
    0x25302, 0x25402, 0x25604, 0x25902, 0x25b02, 0x25c02, 0x26002, 0x26102, 0x26302, 0x26402,
    0x26502, 0x26602, 0x26802, 0x26902, 0x26a02, 0x26b02, 0x26c02, 0x26f02, 0x27102, 0x27202,
    0x27502, 0x27d02, 0x28002, 0x28202, 0x28302, 0x28702, 0x28802, 0x28902, 0x28a04, 0x28c02,
    0x29202, 0x29d02, 0x29e02, 0x34502, 0x37105, 0x37702, 0x37b06, 0x3ac02, 0x3ad06, 0x3b122,
    0x3c202, 0x3c312, 0x3cc02, 0x3cd04, 0x3d002, 0x3d102, 0x3d502, 0x3d602, 0x3d702, 0x3d919,
    0x3f002, 0x3f102, 0x3f202, 0x3f302, 0x3f502, 0x3f802, 0x3fb02, 0x43040, 0x45020, 0x46123,
    0x48b37, 0x4c20f, 0x4cf02, 0x4d161, 0x5614c, 0x10d056, 0x10fd06, 0x13f80c, 0x1c8002, 0x1c8102,
    0x1c8202, 0x1c8304, 0x1c8502, 0x1c8602, 0x1c8702, 0x1c8802, 0x1c8a02, 0x1d7902, 0x1d7d02,
    0x1d8e02, 0x1e0197, 0x1e9b02, 0x1ea161, 0x1f0010, 0x1f100c, 0x1f2010, 0x1f3010, 0x1f400c,
    0x1f5109, 0x1f6010, 0x1f7004, 0x1f7208, 0x1f7604, 0x1f7804, 0x1f7a04, 0x1f7c04, 0x1fb004,
    0x1fbe02, 0x1fd004, 0x1fe004, 0x1fe502, 0x214e02, 0x217020, 0x218402, 0x24d034, 0x2c3060,
    0x2c6102, 0x2c6502, 0x2c6602, 0x2c6807, 0x2c7302, 0x2c7602, 0x2c8165, 0x2cec05, 0x2cf302,
    0x2d004c, 0x2d2702, 0x2d2d02, 0xa6412f, 0xa6811d, 0xa7230f, 0xa7333f, 0xa77a05, 0xa77f0b,
    0xa78c02, 0xa79105, 0xa79402, 0xa79715, 0xa7b511, 0xa7c805, 0xa7cd11, 0xa7f602, 0xab5302,
    0xab70a0, 0xff4134, 0x1042850, 0x104d848, 0x1059716, 0x105a31e, 0x105b30e, 0x105bb04,
    0x10cc066, 0x10d702c, 0x118c040, 0x16e6040, 0x16ebb32, 0x1e92244,
];
/// … and each run's offset.
const UPPER_DELTAS: &[i32] = &[
    -32, 743, -32, -32, 121, -1, -232, -1, -1, -1, -1, -300, 195, -1, -1, -1, -1, 97, -1, 163,
    42561, 130, -1, -1, -1, -1, -1, -1, -1, 56, -1, -2, -1, -2, -1, -2, -1, -79, -1, -1, -2, -1,
    -1, -1, -1, 10815, -1, -1, 10783, 10780, 10782, -210, -206, -205, -202, -203, 42319, -205,
    42315, -207, 42343, 42280, 42308, -209, -211, 42308, 10743, 42305, -211, 10749, -213, -214,
    10727, -218, 42307, -218, 42282, -218, -69, -217, -71, -219, 42261, 42258, 84, -1, -1, 130,
    -38, -37, -32, -31, -32, -64, -63, -62, -57, -47, -54, -8, -1, -86, -80, 7, -116, -96, -1, -1,
    -32, -80, -1, -1, -1, -15, -1, -48, 3008, 3008, -8, -6254, -6253, -6244, -6242, -6243, -6236,
    -6181, 35266, -1, 35332, 3814, 35384, -1, -59, -1, 8, 8, 8, 8, 8, 8, 8, 74, 86, 100, 128, 112,
    126, 8, -7205, 8, 8, 7, -28, -16, -1, -26, -48, -1, -10795, -10792, -1, -1, -1, -1, -1, -1,
    -7264, -7264, -7264, -1, -1, -1, -1, -1, -1, -1, -1, 48, -1, -1, -1, -1, -1, -928, -38864, -32,
    -40, -40, -39, -39, -39, -39, -64, -32, -32, -32, -27, -34,
];
/// [`push_uppercase`]: each letter whose uppercase is several characters,
/// followed by them; space-separated.
const UPPER_MULTI: &str = concat!(
    "\u{df}SS \u{149}\u{2bc}N \u{1f0}J\u{30c} \u{390}\u{399}\u{308}\u{301} \u{3b0}\u{3a5}\u{308}\u{301} \u{587}\u{535}\u{552} ",
    "\u{1e96}H\u{331} \u{1e97}T\u{308} \u{1e98}W\u{30a} \u{1e99}Y\u{30a} \u{1e9a}A\u{2be} \u{1f50}\u{3a5}\u{313} ",
    "\u{1f52}\u{3a5}\u{313}\u{300} \u{1f54}\u{3a5}\u{313}\u{301} \u{1f56}\u{3a5}\u{313}\u{342} \u{1f80}\u{1f08}\u{399} \u{1f81}\u{1f09}\u{399} \u{1f82}\u{1f0a}\u{399} ",
    "\u{1f83}\u{1f0b}\u{399} \u{1f84}\u{1f0c}\u{399} \u{1f85}\u{1f0d}\u{399} \u{1f86}\u{1f0e}\u{399} \u{1f87}\u{1f0f}\u{399} \u{1f88}\u{1f08}\u{399} ",
    "\u{1f89}\u{1f09}\u{399} \u{1f8a}\u{1f0a}\u{399} \u{1f8b}\u{1f0b}\u{399} \u{1f8c}\u{1f0c}\u{399} \u{1f8d}\u{1f0d}\u{399} \u{1f8e}\u{1f0e}\u{399} ",
    "\u{1f8f}\u{1f0f}\u{399} \u{1f90}\u{1f28}\u{399} \u{1f91}\u{1f29}\u{399} \u{1f92}\u{1f2a}\u{399} \u{1f93}\u{1f2b}\u{399} \u{1f94}\u{1f2c}\u{399} ",
    "\u{1f95}\u{1f2d}\u{399} \u{1f96}\u{1f2e}\u{399} \u{1f97}\u{1f2f}\u{399} \u{1f98}\u{1f28}\u{399} \u{1f99}\u{1f29}\u{399} \u{1f9a}\u{1f2a}\u{399} ",
    "\u{1f9b}\u{1f2b}\u{399} \u{1f9c}\u{1f2c}\u{399} \u{1f9d}\u{1f2d}\u{399} \u{1f9e}\u{1f2e}\u{399} \u{1f9f}\u{1f2f}\u{399} \u{1fa0}\u{1f68}\u{399} ",
    "\u{1fa1}\u{1f69}\u{399} \u{1fa2}\u{1f6a}\u{399} \u{1fa3}\u{1f6b}\u{399} \u{1fa4}\u{1f6c}\u{399} \u{1fa5}\u{1f6d}\u{399} \u{1fa6}\u{1f6e}\u{399} ",
    "\u{1fa7}\u{1f6f}\u{399} \u{1fa8}\u{1f68}\u{399} \u{1fa9}\u{1f69}\u{399} \u{1faa}\u{1f6a}\u{399} \u{1fab}\u{1f6b}\u{399} \u{1fac}\u{1f6c}\u{399} ",
    "\u{1fad}\u{1f6d}\u{399} \u{1fae}\u{1f6e}\u{399} \u{1faf}\u{1f6f}\u{399} \u{1fb2}\u{1fba}\u{399} \u{1fb3}\u{391}\u{399} \u{1fb4}\u{386}\u{399} ",
    "\u{1fb6}\u{391}\u{342} \u{1fb7}\u{391}\u{342}\u{399} \u{1fbc}\u{391}\u{399} \u{1fc2}\u{1fca}\u{399} \u{1fc3}\u{397}\u{399} \u{1fc4}\u{389}\u{399} ",
    "\u{1fc6}\u{397}\u{342} \u{1fc7}\u{397}\u{342}\u{399} \u{1fcc}\u{397}\u{399} \u{1fd2}\u{399}\u{308}\u{300} \u{1fd3}\u{399}\u{308}\u{301} \u{1fd6}\u{399}\u{342} ",
    "\u{1fd7}\u{399}\u{308}\u{342} \u{1fe2}\u{3a5}\u{308}\u{300} \u{1fe3}\u{3a5}\u{308}\u{301} \u{1fe4}\u{3a1}\u{313} \u{1fe6}\u{3a5}\u{342} \u{1fe7}\u{3a5}\u{308}\u{342} ",
    "\u{1ff2}\u{1ffa}\u{399} \u{1ff3}\u{3a9}\u{399} \u{1ff4}\u{38f}\u{399} \u{1ff6}\u{3a9}\u{342} \u{1ff7}\u{3a9}\u{342}\u{399} \u{1ffc}\u{3a9}\u{399} ",
    "\u{fb00}FF \u{fb01}FI \u{fb02}FL \u{fb03}FFI \u{fb04}FFL \u{fb05}ST ",
    "\u{fb06}ST \u{fb13}\u{544}\u{546} \u{fb14}\u{544}\u{535} \u{fb15}\u{544}\u{53b} \u{fb16}\u{54e}\u{546} \u{fb17}\u{544}\u{53d}"
);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uppercase_tables_match_the_standard_library() {
        for c in (0..=0x10_ffff).filter_map(char::from_u32) {
            let mut ours = String::new();
            push_uppercase(&mut ours, c);
            assert_eq!(
                ours,
                c.to_uppercase().collect::<String>(),
                "U+{:04X}",
                c as u32
            );
        }
    }
}
