//! `query.advanced`: every construct on the demo data, an independent check
//! of every field against the real dump, and fuzzing.

mod common;

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::Rng;
use registry_core::advanced::{self, ErrorKind, Field, FieldKind};
use registry_core::search::Engine;
use registry_core::{Record, Registry, container, import, shard};
use serde_json::Value;

// ---------------------------------------------------------------- demo data

fn demo() -> &'static [Record] {
    static DEMO: OnceLock<Vec<Record>> = OnceLock::new();
    DEMO.get_or_init(|| {
        let bytes = include_bytes!("../../../data/demo/registry-demo.json");
        import::import_dump(bytes, Default::default(), &mut |_, _| {})
            .unwrap()
            .records
    })
}

/// Unique strings of the matching demo records, sorted.
#[track_caller]
fn ids(expr: &str) -> Vec<String> {
    let q = advanced::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let mut out: Vec<String> = demo()
        .iter()
        .filter(|r| q.matches(r))
        .map(|r| r.id.rsplit('/').next().unwrap().to_string())
        .collect();
    out.sort();
    out
}

#[track_caller]
fn count(expr: &str) -> usize {
    ids(expr).len()
}

#[track_caller]
fn same(a: &str, b: &str) {
    let (x, y) = (ids(a), ids(b));
    assert_eq!(x, y, "{a} vs {b}");
}

#[test]
fn demo_keyword_fields_exact_and_case_sensitive() {
    let quebec = ["004x1me50", "0ag71dd60", "0xxepzr05"];
    assert_eq!(ids("locations.geo_details.name:Québec"), quebec);
    assert_eq!(ids("locations.geonames_details.name:Québec"), quebec);
    assert_eq!(count("locations.geo_details.name:québec"), 0);
    assert_eq!(count("locations.geo_details.name:Quebec"), 0);
    assert_eq!(count("locations.geo_details.country_code:US"), 10);
    assert_eq!(count("locations.geo_details.country_code:us"), 0);
    // Schema 2.1 records carry continents; a 2.0 record's place has its
    // country's (12 and 11 of the 2.1 records, 6 and 4 of the 2.0 ones).
    assert_eq!(count("locations.geo_details.continent_name:Europe"), 18);
    assert_eq!(count("locations.geo_details.continent_code:EU"), 18);
    assert_eq!(
        count("locations.geo_details.continent_name:\"North America\""),
        15
    );
    assert_eq!(
        count("locations.geo_details.continent_name:(North America)"),
        15
    );
    same(
        "locations.geo_details.continent_name:North\\ America",
        "locations.geo_details.continent_code:NA",
    );
    assert_eq!(
        ids("locations.geo_details.country_name:\"Bonaire, Sint Eustatius, and Saba\""),
        ["04wmws746"]
    );
    assert_eq!(count("status:inactive"), 6);
    assert_eq!(count("status:withdrawn"), 3);
    assert_eq!(count("status:Inactive"), 0);
    assert_eq!(count("types:education"), 18);
    assert_eq!(count("types:Education"), 0);
    assert_eq!(count("external_ids.type:funder_registry"), 9);
    same(
        "external_ids.type:fundref",
        "external_ids.type:funder_registry",
    );
    assert_eq!(count("links.type:encyclopedia"), 17);
    same("links.type:wikipedia", "links.type:encyclopedia");
    same("names.types:ror_display", "names.types:registry_display");
    assert_eq!(count("names.types:registry_display"), 63);
    assert_eq!(
        ids("relationships.type:successor"),
        [
            "0a2mwvv07",
            "0ag71dd60",
            "0cy1q8h86",
            "0j0srqq47",
            "0pegvkw89",
            "0tdhvk851",
            "0yst4h310"
        ]
    );
    assert_eq!(ids("id:https://ror.org/0040h0667"), ["0040h0667"]);
    assert_eq!(ids("id:0040h0667"), ["0040h0667"]);
    assert_eq!(ids("id:\"ror.org/0040h0667\""), ["0040h0667"]);
    assert_eq!(ids(r"id:https\://ror.org/0040h0667"), ["0040h0667"]);
    assert_eq!(count("id:https://ror.org/0040h0668"), 0);
    // Northfield University's three institutes, its hospital, and the
    // withdrawn board it succeeds.
    assert_eq!(
        ids("relationships.id:https://ror.org/041qyp388"),
        [
            "01149pg79",
            "0adh71a67",
            "0c5dsvg09",
            "0tdhvk851",
            "0vdptrg82"
        ]
    );
    same(
        "relationships.id:041qyp388",
        "relationships.id:https://ror.org/041qyp388",
    );
    assert_eq!(count("admin.created.schema_version:2.1"), 7);
    assert_eq!(count("admin.last_modified.schema_version:1.0"), 1);
    assert_eq!(count("names.lang:ja"), 2);
    assert_eq!(count("names.lang:JA"), 0);
    same(
        "external_ids.preferred:*",
        "_exists_:external_ids.preferred",
    );
}

#[test]
fn demo_text_fields_fold_case_and_accents() {
    let nu = [
        "01149pg79",
        "041qyp388",
        "0adh71a67",
        "0c5dsvg09",
        "0tdhvk851",
        "0vdptrg82",
    ];
    assert_eq!(ids("names.value:\"Northfield University\""), nu);
    assert_eq!(ids("names.value:\"NORTHFIELD university\""), nu);
    same("names.value:quebec", "names.value:QUÉBEC");
    assert_eq!(ids("names.value:quebec"), ["0xxepzr05"]);
    assert_eq!(ids("names.value:\"sainte brigitte\""), ["0xxepzr05"]);
    // Unquoted words need not be adjacent or in order.
    assert!(count("names.value:(university northfield)") > nu.len());
    assert_eq!(ids("names.value:сим"), ["0cy1q8h86"]);
    assert_eq!(ids("names.value:\"東雲\""), ["03ncywt35"]);
    assert_eq!(ids("names.value:大学"), ["03ncywt35"]);
    assert_eq!(ids("names.value:\"da nang\""), ["0csnf6z83"]);
    assert_eq!(ids("names.value:\"đà nẵng\""), ["0csnf6z83"]);
    assert_eq!(ids("names.value:\"o brien\""), ["0wzd05415"]);
    assert_eq!(ids("names.value:αιγαιου"), ["04rfy9693"]);
    same(
        "relationships.label:\"northfield university\"",
        "relationships.label:\"Northfield University\"",
    );
    assert_eq!(count("relationships.label:\"Northfield University\""), 8);
}

#[test]
fn demo_letter_fields() {
    assert_eq!(
        ids("domains:northfield-university.example"),
        ["041qyp388", "0c5dsvg09"]
    );
    assert_eq!(ids("domains:\"polar.northfield\""), ["0c5dsvg09"]);
    assert_eq!(count("domains:\"northfield.polar\""), 0);
    same("domains:CJDSE.EXAMPLE", "domains:cjdse.example");
    same(
        "links.value:https://www.cjdse.example",
        r"links.value:https\://www.cjdse.example",
    );
    assert!(ids("links.value:\"www.cjdse.example\"").contains(&"0040h0667".to_string()));
    assert_eq!(count("domains:12345"), 0);
}

#[test]
fn demo_numbers_and_dates() {
    assert_eq!(ids("established:[1280 TO 1300]"), ["0bsd6jb11"]);
    assert_eq!(ids("established:1289"), ["0bsd6jb11"]);
    assert_eq!(count("established:{1900 TO *}"), 49);
    same("established:{1900 TO *}", "established:>1900");
    same("established:[1901 TO *]", "established:>=1901");
    assert_eq!(
        ids("established:<1700"),
        ["0bsd6jb11", "0dcdkst53", "0xxepzr05"]
    );
    same("established:<1700", "established:[* TO 1700}");
    same("established:<=1693", "established:<1700");
    assert_eq!(count("established:[1700 TO 1600]"), 0);
    assert_eq!(
        ids("-_exists_:established"),
        ["075q5nn52", "07grpk610", "0g4yf1574", "0tdhvk851"]
    );
    assert_eq!(count("_exists_:established"), 59);
    same("established:*", "_exists_:established");
    assert_eq!(ids("locations.geo_id:3078610"), ["0040h0667"]);
    assert_eq!(ids("locations.geo_details.lat:49.19522"), ["0040h0667"]);
    assert_eq!(
        ids("locations.geo_details.lat:[49 TO 49.2] AND locations.geo_details.lng:[16 TO 17]"),
        ["0040h0667"]
    );
    // Southern hemisphere, negative values without escaping.
    same(
        "locations.geo_details.lat:<0",
        "locations.geo_details.lat:[-90 TO 0}",
    );
    assert!(count("locations.geo_details.lat:<0") >= 10);
    assert_eq!(
        ids("admin.last_modified.date:[2024-12-27 TO 2025-01-27]"),
        ["0b3x17y73", "0cbvm4522", "0jmnkjz58"]
    );
    assert_eq!(ids("admin.created.date:2021"), ["0040h0667"]);
    same(
        "admin.created.date:2021",
        "admin.created.date:[2021 TO 2021]",
    );
    same(
        "admin.created.date:2021",
        "admin.created.date:[2021-01-01 TO 2021-12-31]",
    );
    same(
        "admin.created.date:2021",
        "admin.created.date:{2020 TO 2022}",
    );
    same(
        "admin.created.date:{2020 TO *]",
        "admin.created.date:>=2021-01-01",
    );
    same(
        "admin.created.date:[* TO 2020-03}",
        "admin.created.date:<2020-03-01",
    );
    same(
        "admin.created.date:[* TO 2020-02]",
        "admin.created.date:<=2020-02-29",
    );
    assert_eq!(
        count("admin.created.date:*"),
        63,
        "every record has a creation date"
    );
}

#[test]
fn demo_bare_terms_and_phrases() {
    // A bare word searches every field, with each field's analyser.
    assert!(ids("Northfield").len() >= 10);
    same(
        "Northfield",
        "names.value:Northfield OR locations.geo_details.name:Northfield OR relationships.label:Northfield OR domains:Northfield OR links.value:Northfield",
    );
    // A chunk must match within one field.
    same(
        "Northfield Hospital",
        "names.value:(Northfield Hospital) OR relationships.label:(Northfield Hospital)",
    );
    assert_eq!(count("Boston Cork"), 0);
    assert_eq!(ids("Boston AND Cork"), ["0wzd05415"]);
    assert_eq!(ids("Boston Cork OR Cork"), ["0wzd05415"]);
    // A keyword field sees the chunk as one value.
    same(
        "Cape Town",
        "locations.geo_details.name:\"Cape Town\" OR names.value:(cape town) OR relationships.label:(cape town)",
    );
    // The name, and the relationship label of its parent.
    assert_eq!(ids("\"Sainte-Brigitte\""), ["004x1me50", "0xxepzr05"]);
    assert_eq!(ids("Q190975160"), ["0040h0667"]);
    assert_eq!(count("q190975160"), 0, "external ids are case-sensitive");
    assert_eq!(
        ids("2021-03-16"),
        ids("admin.created.date:2021-03-16 OR admin.last_modified.date:2021-03-16")
    );
    assert_eq!(count("*"), 63);
    assert_eq!(count("*:*"), 63);
    same("*:Québec", "Québec");
    same("wikipedia", "links.type:encyclopedia");
    assert_eq!(count(""), 0);
    assert_eq!(count("   "), 0);
}

#[test]
fn demo_boolean_operators() {
    assert_eq!(
        ids("types:education status:inactive"),
        ["0a2mwvv07", "0pegvkw89"]
    );
    same(
        "types:education status:inactive",
        "types:education AND status:inactive",
    );
    same(
        "types:education status:inactive",
        "types:education && status:inactive",
    );
    same(
        "types:education status:inactive",
        "+types:education +status:inactive",
    );
    assert_eq!(count("types:funder OR types:company"), 12);
    same(
        "types:funder OR types:company",
        "types:funder || types:company",
    );
    same("types:funder OR types:company", "types:(funder OR company)");
    assert_eq!(count("types:(funder AND nonprofit)"), 3);
    assert_eq!(count("-status:active"), 9);
    same("-status:active", "NOT status:active");
    same("-status:active", "!status:active");
    same("-status:active", "status:(inactive OR withdrawn)");
    assert_eq!(
        count("types:education -status:active"),
        count("types:education AND NOT status:active")
    );
    // Usual precedence: AND binds tighter than OR.
    same(
        "status:withdrawn OR types:education status:inactive",
        "status:withdrawn OR (types:education AND status:inactive)",
    );
    assert_eq!(
        count("(status:withdrawn OR types:education) status:inactive"),
        2
    );
    assert_eq!(
        count("status:withdrawn OR types:education status:inactive"),
        5
    );
    same("NOT NOT status:active", "status:active");
    same("status:active^3", "status:active");
    assert!(
        advanced::parse("status:inactive")
            .unwrap()
            .constrains_status()
    );
    assert!(
        advanced::parse("types:x -status:active")
            .unwrap()
            .constrains_status()
    );
    assert!(!advanced::parse("inactive").unwrap().constrains_status());
}

#[test]
fn demo_wildcards() {
    assert_eq!(count("locations.geo_details.name:Nor*"), 6);
    assert_eq!(count("locations.geo_details.name:nor*"), 0);
    assert_eq!(ids("locations.geo_details.name:?ork"), ["0wzd05415"]);
    assert_eq!(
        ids("locations.geo_details.name:Qu?bec"),
        ids("locations.geo_details.name:Québec")
    );
    assert_eq!(ids("locations.geo_details.name:*Bottom"), ["04wmws746"]);
    // Text fields: one word, folded.
    same("names.value:NORTH*", "names.value:north*");
    same("names.value:qu?bec", "names.value:québec");
    assert_eq!(
        count("names.value:north*field"),
        count("names.value:northfield")
    );
    assert_eq!(count("names.value:northfield*university"), 0);
    same("domains:northfield*", "domains:(northfield*)");
    same(
        "external_ids.all:Q19*",
        "_exists_:external_ids.all AND external_ids.type:open_kb",
    );
    same("Q19*", "external_ids.all:Q19*");
    // An escaped star is literal.
    assert_eq!(count(r"names.value:north\*"), 0);
}

#[test]
fn demo_escapes_and_groups() {
    same(r"names.value:\(Singapore\)", "names.value:Singapore");
    assert_eq!(
        ids("names.value:\"Tallowmere Biologics, Ltd. (Singapore)\""),
        ["07j3zs607"]
    );
    assert_eq!(
        ids(r"locations.geo_details.name:The\ Bottom"),
        ["04wmws746"]
    );
    same(
        "names.value:(northfield AND -university)",
        "names.value:northfield AND NOT names.value:university",
    );
    same("locations.*:Nairobi", "locations.geo_details.name:Nairobi");
    same(
        r"locations.\*:Nairobi",
        "locations.geo_details.name:Nairobi",
    );
    same(
        "locations.geonames_details.*:KE",
        "locations.geo_details.country_code:KE",
    );
    assert_eq!(count("_exists_:relationships"), count("relationships.id:*"));
    // Every place has a continent: its own or its country's.
    assert_eq!(
        count("_exists_:locations.geo_details.continent_code"),
        count("_exists_:locations.geo_details.country_code")
    );
    assert_eq!(
        count("_exists_:locations.geo_details.country_subdivision_code"),
        count("admin.last_modified.schema_version:2.1") - 4
    );
}

#[test]
fn demo_errors() {
    let e = advanced::parse("locations:Québec").unwrap_err();
    assert_eq!(
        e.to_string(),
        "query.advanced: unknown field 'locations' at position 0 (did you mean locations.geo_details.name?)"
    );
    let cases: &[(&str, ErrorKind, usize)] = &[
        ("names:x", ErrorKind::UnknownField, 0),
        (
            "status:active AND country_code:US",
            ErrorKind::UnknownField,
            18,
        ),
        ("(status:active", ErrorKind::Syntax, 0),
        ("status:active)", ErrorKind::Syntax, 13),
        ("names.value:\"abc", ErrorKind::Syntax, 12),
        ("status:active AND", ErrorKind::Syntax, 14),
        ("OR status:active", ErrorKind::Syntax, 0),
        (
            "admin.created.date:[2024-01-01 TO 2024-02-31]",
            ErrorKind::BadValue,
            34,
        ),
        ("established:[x TO 2000]", ErrorKind::BadValue, 13),
        ("established:19*", ErrorKind::BadValue, 12),
        ("[2000 TO 2001]", ErrorKind::Syntax, 0),
    ];
    for (expr, kind, pos) in cases {
        let e = advanced::parse(expr).unwrap_err();
        assert_eq!((e.kind, e.position), (*kind, *pos), "{expr}: {e}");
        assert!(e.to_string().starts_with("query.advanced: "));
        assert!(e.to_string().contains(&format!("at position {pos}")));
    }
}

#[test]
fn field_list_is_documented() {
    let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names.len(), 30);
    for f in Field::ALL {
        let case_sensitive = f.case_sensitive();
        assert_eq!(case_sensitive, f.kind() == FieldKind::Keyword);
        assert!(
            advanced::parse(&format!("_exists_:{}", f.name())).is_ok(),
            "{}",
            f.name()
        );
    }
    // The module docs' table lists every field with its kind.
    let src = include_str!("../src/advanced/mod.rs");
    for f in Field::ALL {
        let row = format!("//! | `{}` | {}", f.name(), f.kind().name());
        assert!(src.contains(&row), "missing doc row: {row}");
    }
}

// ----------------------------------------------------------- real data

const SHARED_DUMP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/registry-v2.json.gz"
);

/// The oracle's own description of the fields: path and kind, written from
/// the spec, not from the module.
const ORACLE_FIELDS: &[(&str, &str)] = &[
    ("names.value", "text"),
    ("names.types", "keyword"),
    ("names.lang", "keyword"),
    ("locations.geo_details.name", "keyword"),
    ("locations.geo_details.country_code", "keyword"),
    ("locations.geo_details.country_name", "keyword"),
    ("locations.geo_details.continent_code", "keyword"),
    ("locations.geo_details.continent_name", "keyword"),
    ("locations.geo_details.country_subdivision_code", "keyword"),
    ("locations.geo_details.country_subdivision_name", "keyword"),
    ("locations.geo_details.lat", "number"),
    ("locations.geo_details.lng", "number"),
    ("locations.geo_id", "number"),
    ("links.value", "letters"),
    ("links.type", "keyword"),
    ("domains", "letters"),
    ("external_ids.all", "keyword"),
    ("external_ids.type", "keyword"),
    ("external_ids.preferred", "keyword"),
    ("relationships.id", "keyword"),
    ("relationships.type", "keyword"),
    ("relationships.label", "text"),
    ("status", "keyword"),
    ("types", "keyword"),
    ("established", "number"),
    ("id", "keyword"),
    ("admin.created.date", "date"),
    ("admin.created.schema_version", "keyword"),
    ("admin.last_modified.date", "date"),
    ("admin.last_modified.schema_version", "keyword"),
];

/// One field's values, per record, read straight from the raw JSON.
struct Column {
    path: &'static str,
    kind: &'static str,
    /// Non-null values as JSON (for sampling).
    raw: Vec<Vec<Value>>,
    strs: Vec<Vec<String>>,
    nums: Vec<Vec<f64>>,
    /// Analysed words of each string value (text and letter fields).
    words: Vec<Vec<Vec<String>>>,
}

struct Real {
    records: Vec<Record>,
    columns: Vec<Column>,
    /// The same records behind the API engine (shard order: by id).
    engine: Engine,
    /// Engine record index → position in `records`.
    order: Vec<usize>,
}

/// A place without a continent (schema 2.0) is searched by its country's
/// (`registry_core::continent`): the oracle sees the raw JSON that way.
fn with_derived_continents(r: &mut Value) {
    use registry_core::continent::{CONTINENTS, of_country};
    let Some(locs) = r["locations"].as_array_mut() else {
        return;
    };
    for l in locs {
        let g = &mut l["geo_details"];
        if !g["continent_code"].is_null() || !g["continent_name"].is_null() {
            continue;
        }
        if let Some(i) = g["country_code"].as_str().and_then(of_country) {
            g["continent_code"] = Value::from(CONTINENTS[i].0);
            g["continent_name"] = Value::from(CONTINENTS[i].1);
        }
    }
}

fn real() -> Option<&'static Real> {
    static REAL: OnceLock<Option<Real>> = OnceLock::new();
    REAL.get_or_init(|| {
        let bytes = std::fs::read(SHARED_DUMP).ok()?;
        let records = import::import_dump(&bytes, Default::default(), &mut |_, _| {})
            .unwrap()
            .records;
        let json = container::unwrap_dump(&bytes).unwrap();
        let mut raw: Vec<Value> = serde_json::from_slice(&json).unwrap();
        raw.iter_mut()
            .for_each(registry_core::model::rename_upstream_json);
        raw.iter_mut().for_each(with_derived_continents);
        assert_eq!(raw.len(), records.len());
        for (r, v) in records.iter().zip(&raw) {
            assert_eq!(Some(r.id.as_str()), v["id"].as_str());
        }
        let columns = ORACLE_FIELDS
            .iter()
            .map(|&(path, kind)| {
                let vals: Vec<Vec<Value>> = raw
                    .iter()
                    .map(|r| values(r, path).into_iter().cloned().collect())
                    .collect();
                let strs: Vec<Vec<String>> = vals
                    .iter()
                    .map(|vs| {
                        vs.iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect()
                    })
                    .collect();
                let nums = vals
                    .iter()
                    .map(|vs| vs.iter().filter_map(Value::as_f64).collect())
                    .collect();
                let words = strs
                    .iter()
                    .map(|ss| ss.iter().map(|s| analyse(kind, s)).collect())
                    .collect();
                Column {
                    path,
                    kind,
                    raw: vals,
                    strs,
                    nums,
                    words,
                }
            })
            .collect();
        let built = shard::build(&records, "test", 0, &shard::Stored).unwrap();
        let engine = Engine::new(Registry::from_bytes(&built.full_file()).unwrap());
        let by_id: std::collections::HashMap<&str, usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.as_str(), i))
            .collect();
        let order = (0..engine.registry().len())
            .map(|i| by_id[engine.registry().id(i).url().as_str()])
            .collect();
        Some(Real {
            records,
            columns,
            engine,
            order,
        })
    })
    .as_ref()
}

/// Non-null values at a dotted path, arrays flattened.
fn values<'a>(v: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut cur = vec![v];
    for seg in path.split('.') {
        let mut next = Vec::new();
        for x in cur {
            let Some(y) = x.get(seg) else { continue };
            match y {
                Value::Array(a) => next.extend(a.iter()),
                y => next.push(y),
            }
        }
        cur = next;
    }
    cur.into_iter().filter(|x| !x.is_null()).collect()
}

/// The simple analyser, written independently: letter runs, lower-cased.
fn oracle_letters(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn analyse(kind: &str, s: &str) -> Vec<String> {
    match kind {
        "text" => advanced::text_tokens(s),
        "letters" => oracle_letters(s),
        _ => Vec::new(),
    }
}

/// What a query asks of one field's values, in the oracle's terms.
enum Want<'a> {
    /// An unquoted value: keyword fields need it whole, text and letter
    /// fields need each of its words somewhere in the field.
    Term(&'a str, [Vec<String>; 2]),
    /// A quoted value: keyword fields need it whole, text and letter fields
    /// need its words consecutively in one value.
    Phrase(&'a str, [Vec<String>; 2]),
    /// `prefix*` (the prefix as it must appear, analysed for the field).
    Prefix(&'a str),
    /// Number range (bound, inclusive).
    NumRange(Option<(f64, bool)>, Option<(f64, bool)>),
    /// Range over `YYYY-MM-DD` strings (bound, inclusive).
    DateRange(Option<(&'a str, bool)>, Option<(&'a str, bool)>),
    Exists,
}

fn term(t: &str) -> Want<'_> {
    Want::Term(t, [analyse("text", t), analyse("letters", t)])
}

fn phrase(t: &str) -> Want<'_> {
    Want::Phrase(t, [analyse("text", t), analyse("letters", t)])
}

fn oracle(col: &Column, i: usize, want: &Want) -> bool {
    let (strs, nums, words) = (&col.strs[i], &col.nums[i], &col.words[i]);
    match want {
        Want::Exists => !col.raw[i].is_empty(),
        Want::Term(t, analysed) | Want::Phrase(t, analysed) => match col.kind {
            "keyword" => strs.iter().any(|v| v == t),
            "text" | "letters" => {
                let q = &analysed[usize::from(col.kind == "letters")];
                if q.is_empty() {
                    false
                } else if matches!(want, Want::Phrase(..)) {
                    words
                        .iter()
                        .any(|toks| toks.windows(q.len()).any(|w| w == q))
                } else {
                    q.iter().all(|w| words.iter().any(|toks| toks.contains(w)))
                }
            }
            "number" => {
                let numeric = !t.is_empty()
                    && t.bytes()
                        .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
                numeric && t.parse::<f64>().is_ok_and(|n| nums.contains(&n))
            }
            // Only full dates (what a bare word can match).
            "date" => t.len() == 10 && strs.iter().any(|v| v == t),
            _ => unreachable!(),
        },
        Want::Prefix(p) => match col.kind {
            "keyword" => strs.iter().any(|v| v.starts_with(p)),
            "text" | "letters" => words.iter().flatten().any(|t| t.starts_with(p)),
            _ => false,
        },
        Want::NumRange(lo, hi) => nums.iter().any(|&v| {
            lo.is_none_or(|(b, inc)| if inc { v >= b } else { v > b })
                && hi.is_none_or(|(b, inc)| if inc { v <= b } else { v < b })
        }),
        Want::DateRange(lo, hi) => strs.iter().any(|v| {
            let v = v.as_str();
            lo.is_none_or(|(b, inc)| if inc { v >= b } else { v > b })
                && hi.is_none_or(|(b, inc)| if inc { v <= b } else { v < b })
        }),
    }
}

/// Escapes every character that is not a letter or digit (and the
/// operator words).
fn escape(s: &str) -> String {
    let mut out = String::new();
    if matches!(s, "AND" | "OR" | "NOT") {
        out.push('\\');
    }
    for c in s.chars() {
        if !c.is_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

struct Checker<'a> {
    real: &'a Real,
    checked: usize,
    nonempty: usize,
    engine: Duration,
    /// Time in the engine's column evaluation (the API's fast path).
    fast: Duration,
}

impl Checker<'_> {
    /// The query's matches equal the records the oracle accepts.
    #[track_caller]
    fn check(&mut self, expr: &str, want: &dyn Fn(usize) -> bool) {
        let q = advanced::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let t = Instant::now();
        let mut m = q.matcher();
        let got: BTreeSet<usize> = (0..self.real.records.len())
            .filter(|&i| m.matches(&self.real.records[i]))
            .collect();
        self.engine += t.elapsed();
        // The API's fast path (column index) gives the same records.
        let t = Instant::now();
        let fast: BTreeSet<usize> = self
            .real
            .engine
            .advanced_matches(&q)
            .unwrap()
            .iter()
            .map(|r| self.real.order[r as usize])
            .collect();
        self.fast += t.elapsed();
        if fast != got {
            let ids = |s: Vec<&usize>| -> Vec<&str> {
                s.into_iter()
                    .take(3)
                    .map(|&i| self.real.records[i].id.as_str())
                    .collect()
            };
            panic!(
                "{expr}: fast path {} matches, scan {}; extra {:?}, missing {:?}",
                fast.len(),
                got.len(),
                ids(fast.difference(&got).collect()),
                ids(got.difference(&fast).collect()),
            );
        }
        let expected: BTreeSet<usize> = (0..self.real.records.len()).filter(|&i| want(i)).collect();
        if got != expected {
            let ids = |s: Vec<&usize>| -> Vec<&str> {
                s.into_iter()
                    .take(3)
                    .map(|&i| self.real.records[i].id.as_str())
                    .collect()
            };
            panic!(
                "{expr}: {} matches, oracle {}; extra {:?}, missing {:?}",
                got.len(),
                expected.len(),
                ids(got.difference(&expected).collect()),
                ids(expected.difference(&got).collect()),
            );
        }
        self.checked += 1;
        self.nonempty += usize::from(!got.is_empty());
    }
}

/// Up to `n` distinct values of a column, from records spread over the dump.
fn sample(col: &Column, n: usize) -> Vec<Value> {
    let len = col.raw.len();
    let mut out: Vec<Value> = Vec::new();
    let mut i = 0usize;
    for tries in 0..len {
        if out.len() == n {
            break;
        }
        i = (i + 7919) % len;
        let vals = &col.raw[i];
        if let Some(v) = vals.get(tries % vals.len().max(1))
            && !out.contains(v)
        {
            out.push(v.clone());
        }
    }
    out
}

#[test]
fn real_data_every_field_matches_an_independent_scan() {
    let Some(real) = real() else {
        println!("skipped: ../shared not found");
        return;
    };
    let started = Instant::now();
    assert_eq!(
        Field::ALL.iter().map(|f| f.name()).collect::<Vec<_>>(),
        ORACLE_FIELDS.iter().map(|(p, _)| *p).collect::<Vec<_>>()
    );
    let mut c = Checker {
        real,
        checked: 0,
        nonempty: 0,
        engine: Duration::ZERO,
        fast: Duration::ZERO,
    };
    for col in &real.columns {
        let (path, kind) = (col.path, col.kind);
        c.check(&format!("_exists_:{path}"), &|i| {
            oracle(col, i, &Want::Exists)
        });
        c.check(&format!("-_exists_:{path}"), &|i| {
            !oracle(col, i, &Want::Exists)
        });
        let upstream = path
            .replace("geo_details", "geonames_details")
            .replace("geo_id", "geonames_id");
        match kind {
            "keyword" | "text" | "letters" => {
                for v in sample(col, 3) {
                    let v = v.as_str().unwrap();
                    let p = phrase(v);
                    c.check(&format!("{path}:{}", quote(v)), &|i| oracle(col, i, &p));
                    if upstream != path {
                        c.check(&format!("{upstream}:{}", quote(v)), &|i| oracle(col, i, &p));
                    }
                    let t = term(v);
                    c.check(&format!("{path}:{}", escape(v)), &|i| oracle(col, i, &t));
                    c.check(&format!("{path}:({})", escape(v)), &|i| oracle(col, i, &t));
                    // Keyword fields are case-sensitive, the others are not.
                    let lower = v.to_lowercase();
                    let t = term(&lower);
                    c.check(&format!("{path}:{}", escape(&lower)), &|i| {
                        oracle(col, i, &t)
                    });
                    // Wildcards on the whole value or its first word.
                    let base = if kind == "keyword" {
                        v.to_string()
                    } else {
                        analyse(kind, v).into_iter().next().unwrap_or_default()
                    };
                    let prefix: String = base.chars().take(3).collect();
                    if !prefix.is_empty() {
                        let w = Want::Prefix(&prefix);
                        c.check(&format!("{path}:{}*", escape(&prefix)), &|i| {
                            oracle(col, i, &w)
                        });
                    }
                    let chars: Vec<char> = base.chars().collect();
                    if chars.len() >= 3 {
                        let (a, b) = (chars[0], chars[2]);
                        let expr = format!(
                            "{path}:{}?{}*",
                            escape(&a.to_string()),
                            escape(&b.to_string())
                        );
                        let shape = |t: &str| {
                            let t: Vec<char> = t.chars().collect();
                            t.len() >= 3 && t[0] == a && t[2] == b
                        };
                        c.check(&expr, &|i| {
                            if kind == "keyword" {
                                col.strs[i].iter().any(|s| shape(s))
                            } else {
                                col.words[i].iter().flatten().any(|s| shape(s))
                            }
                        });
                    }
                }
            }
            "number" => {
                let mut ns: Vec<(String, f64)> = sample(col, 3)
                    .iter()
                    .map(|v| (v.to_string(), v.as_f64().unwrap()))
                    .collect();
                for (text, n) in &ns {
                    let n = *n;
                    let range = |lo, hi| Want::NumRange(lo, hi);
                    c.check(&format!("{path}:{text}"), &|i| col.nums[i].contains(&n));
                    let w = range(Some((n, true)), None);
                    c.check(&format!("{path}:>={text}"), &|i| oracle(col, i, &w));
                    let w = range(None, Some((n, false)));
                    c.check(&format!("{path}:<{text}"), &|i| oracle(col, i, &w));
                    let w = range(Some((n, false)), None);
                    c.check(&format!("{path}:{{{text} TO *}}"), &|i| oracle(col, i, &w));
                }
                ns.sort_by(|a, b| a.1.total_cmp(&b.1));
                let ((lt, lo), (ht, hi)) = (&ns[0], &ns[ns.len() - 1]);
                let w = Want::NumRange(Some((*lo, true)), Some((*hi, true)));
                c.check(&format!("{path}:[{lt} TO {ht}]"), &|i| oracle(col, i, &w));
                let w = Want::NumRange(Some((*lo, false)), Some((*hi, true)));
                c.check(&format!("{path}:{{{lt} TO {ht}]"), &|i| oracle(col, i, &w));
            }
            "date" => {
                let mut ds: Vec<String> = sample(col, 3)
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect();
                for d in &ds {
                    let d = d.as_str();
                    let strs = |i: usize| &col.strs[i];
                    c.check(&format!("{path}:{d}"), &|i| strs(i).iter().any(|v| v == d));
                    let month = &d[..7];
                    c.check(&format!("{path}:{month}"), &|i| {
                        strs(i).iter().any(|v| v.starts_with(month))
                    });
                    let year = &d[..4];
                    c.check(&format!("{path}:{{{year} TO *]"), &|i| {
                        strs(i).iter().any(|v| &v[..4] > year)
                    });
                    c.check(&format!("{path}:[* TO {month}}}"), &|i| {
                        strs(i).iter().any(|v| &v[..7] < month)
                    });
                    let w = Want::DateRange(Some((d, false)), None);
                    c.check(&format!("{path}:>{d}"), &|i| oracle(col, i, &w));
                }
                ds.sort();
                let (lo, hi) = (ds[0].as_str(), ds[ds.len() - 1].as_str());
                let w = Want::DateRange(Some((lo, true)), Some((hi, true)));
                c.check(&format!("{path}:[{lo} TO {hi}]"), &|i| oracle(col, i, &w));
                let w = Want::DateRange(Some((lo, true)), Some((hi, false)));
                c.check(&format!("{path}:[{lo} TO {hi}}}"), &|i| oracle(col, i, &w));
            }
            _ => unreachable!(),
        }
    }

    // Bare terms and phrases over all fields (lenient), and combinations.
    let col = |path: &str| real.columns.iter().find(|c| c.path == path).unwrap();
    let any_field = |i: usize, want: &Want| real.columns.iter().any(|c| oracle(c, i, want));
    let mut bare: Vec<String> = Vec::new();
    for path in [
        "locations.geo_details.name",
        "locations.geo_details.country_name",
        "names.value",
        "external_ids.all",
        "admin.created.date",
        "established",
    ] {
        for v in sample(col(path), 2) {
            bare.push(match v {
                Value::String(s) => s,
                v => v.to_string(),
            });
        }
    }
    for v in &bare {
        let p = phrase(v);
        c.check(&quote(v), &|i| any_field(i, &p));
        // Unquoted: a chunk of words that must match within one field.
        let words: Vec<String> = v.split_whitespace().map(escape).collect();
        let chunk = v.split_whitespace().collect::<Vec<_>>().join(" ");
        let t = term(&chunk);
        c.check(&words.join(" "), &|i| any_field(i, &t));
    }
    let (a, b) = (phrase(&bare[0]), phrase(&bare[3]));
    c.check(
        &format!("{} OR {}", quote(&bare[0]), quote(&bare[3])),
        &|i| any_field(i, &a) || any_field(i, &b),
    );
    let is = |path: &str, i: usize, v: &str| col(path).strs[i].iter().any(|s| s == v);
    c.check(&format!("status:active AND {}", quote(&bare[0])), &|i| {
        is("status", i, "active") && any_field(i, &a)
    });
    c.check(
        "types:education -locations.geo_details.country_code:US",
        &|i| is("types", i, "education") && !is("locations.geo_details.country_code", i, "US"),
    );
    c.check(
        "(types:funder OR types:government) AND established:[1900 TO 1950} AND NOT status:active",
        &|i| {
            (is("types", i, "funder") || is("types", i, "government"))
                && col("established").nums[i]
                    .iter()
                    .any(|y| (1900.0..1950.0).contains(y))
                && !is("status", i, "active")
        },
    );

    println!(
        "{} queries checked against the independent scan ({} with matches) over {} records in {:.1?} ({:.1?} in the engine's scan, {:.1?} in its column index incl. the one-time build)",
        c.checked,
        c.nonempty,
        real.records.len(),
        started.elapsed(),
        c.engine,
        c.fast,
    );
    assert!(
        c.nonempty * 2 > c.checked,
        "most checks should have matches"
    );
}

// ----------------------------------------------------------- fuzzing

const FUZZ_FIELDS: &[&str] = &[
    "names.value",
    "names.types",
    "locations.geo_details.name",
    "locations.geonames_details.country_code",
    "locations.geo_details.lat",
    "locations.geo_id",
    "established",
    "admin.created.date",
    "admin.last_modified.date",
    "domains",
    "links.value",
    "status",
    "types",
    "id",
    "external_ids.all",
    "relationships.label",
    "locations",
    "locations.*",
    "nonsense",
    "_exists_",
    "*",
    "",
];

const FUZZ_VALUES: &[&str] = &[
    "Northfield",
    "northfield",
    "Québec",
    "2021",
    "2021-03",
    "2021-03-16",
    "2021-13-01",
    "1900",
    "-33.5",
    "49.19522",
    "abc",
    "a*",
    "*",
    "?b*c",
    "\"New York\"",
    "\"unterminated",
    "[1900 TO 2000]",
    "{2020 TO *}",
    "[* TO 2021-03}",
    "[a TO]",
    ">1900",
    "<=2021-01",
    "https://x.org",
    "https\\://x.org",
    "x\\",
    "(a OR b)",
    "東京",
    "сим",
    "education",
    "active",
    "established",
    "^2",
    "~",
    "/re/",
];

const FUZZ_OPS: &[&str] = &[
    " ", " AND ", " OR ", " NOT ", " && ", " || ", " -", " +", " !", " ( ", " ) ", "(", ")",
    " and ",
];

const VALID_VALUES: &[&str] = &[
    "Northfield",
    "québec",
    "2021",
    "1900",
    "a*",
    "*",
    "?b*c",
    "\"New York\"",
    "(a OR b)",
    "education",
    "active",
    "[1900 TO 2000]",
    "{* TO 1950]",
];

const VALID_FIELDS: &[&str] = &[
    "names.value",
    "locations.geo_details.name",
    "status",
    "types",
    "domains",
    "links.value",
    "external_ids.all",
    "relationships.label",
    "locations.*",
    "",
];

fn random_expr(rng: &mut Rng) -> String {
    // Half the cases use only valid pieces, so that many expressions parse
    // and get evaluated; the others mix in invalid ones.
    let valid = rng.below(2) == 0;
    let mut s = String::new();
    let clauses = 1 + rng.below(6);
    for _ in 0..clauses {
        if valid {
            if !s.is_empty() {
                s.push_str(rng.pick(&[" ", " AND ", " OR ", " -", " NOT ", " +"]));
            }
            let field = rng.pick(VALID_FIELDS);
            let mut value = rng.pick(VALID_VALUES);
            if field.is_empty() && value.starts_with(['[', '{']) {
                value = "x";
            }
            let open = rng.below(4) == 0;
            if open {
                s.push('(');
            }
            if !field.is_empty() {
                s.push_str(field);
                s.push(':');
            }
            s.push_str(value);
            if open {
                s.push(')');
            }
            continue;
        }
        if rng.below(3) == 0 {
            s.push_str(rng.pick(FUZZ_OPS));
        }
        let field = rng.pick(FUZZ_FIELDS);
        if !field.is_empty() && rng.below(4) != 0 {
            s.push_str(field);
            s.push(':');
        }
        s.push_str(rng.pick(FUZZ_VALUES));
        if rng.below(5) == 0 {
            s.push_str(rng.pick(FUZZ_OPS));
        } else {
            s.push(' ');
        }
    }
    s
}

/// Parses, and evaluates on every demo record when it parses; errors must
/// carry a position inside the expression.
fn exercise(expr: &str) -> bool {
    match advanced::parse(expr) {
        Ok(q) => {
            let _ = q.constrains_status();
            for r in demo() {
                let _ = q.matches(r);
            }
            true
        }
        Err(e) => {
            assert!(
                e.position <= expr.chars().count().max(advanced::MAX_CHARS),
                "{expr:?}: {e}"
            );
            assert!(!e.message.is_empty());
            let _ = e.to_string();
            false
        }
    }
}

#[test]
fn fuzz_grammar_expressions_never_panic() {
    let mut rng = Rng(0x2545F4914F6CDD1D);
    let (mut ok, mut bad) = (0, 0);
    for _ in 0..5000 {
        let expr = random_expr(&mut rng);
        if exercise(&expr) {
            ok += 1;
        } else {
            bad += 1;
        }
    }
    println!("{ok} parsed, {bad} rejected");
    assert!(ok > 2000 && bad > 1000, "{ok} parsed, {bad} rejected");
}

#[test]
fn fuzz_random_text_never_panics() {
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let alphabet: Vec<char> =
        "ab Z09:\\\"()[]{}*?+-!&|^~/<>=.,' \t\nTOANDORNOTé東\u{0301}\u{200B}\u{FEFF}𝔘"
            .chars()
            .collect();
    for _ in 0..5000 {
        let len = rng.below(40);
        let expr: String = (0..len)
            .map(|_| {
                if rng.below(10) == 0 {
                    char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{FFFD}')
                } else {
                    alphabet[rng.below(alphabet.len())]
                }
            })
            .collect();
        exercise(&expr);
    }
    for _ in 0..2000 {
        let bytes: Vec<u8> = (0..rng.below(60)).map(|_| rng.next() as u8).collect();
        exercise(&String::from_utf8_lossy(&bytes));
    }
}

#[track_caller]
fn quick(expr: &str, limit: Duration) {
    let t = Instant::now();
    exercise(expr);
    assert!(t.elapsed() < limit, "{:.40}…: {:?}", expr, t.elapsed());
}

#[test]
fn hostile_inputs_are_bounded() {
    let limit = Duration::from_secs(2);
    quick(&"(".repeat(100_000), limit);
    quick(&format!("{}a{}", "(".repeat(1000), ")".repeat(1000)), limit);
    quick(&"NOT ".repeat(500), limit);
    quick(&"-".repeat(1999), limit);
    quick(&"\"".repeat(1999), limit);
    quick(&"\\".repeat(1999), limit);
    quick(&"[".repeat(1999), limit);
    quick(&"a:".repeat(999), limit);
    quick(&"x".repeat(10_000_000), limit);
    // Long wildcard patterns against every field of every record.
    let stars = format!("{}b", "a*".repeat(995));
    quick(&stars, limit);
    quick(&format!("names.value:{stars}"), limit);
    quick(
        &format!("locations.geo_details.name:*{}", "?*".repeat(990)),
        limit,
    );
    quick(&format!("*{}*", "a".repeat(1990)), limit);
    quick(&"*?".repeat(999), limit);
    // Many clauses.
    quick(&"a* ".repeat(600), limit);
    quick(
        &(0..120)
            .map(|i| format!("x{i}*"))
            .collect::<Vec<_>>()
            .join(" OR "),
        limit,
    );
    if let Some(real) = real() {
        for expr in [
            format!("names.value:*{}*", "a*".repeat(400)),
            format!("{}z", "*a".repeat(300)),
            "*a*e*i*o*u*".to_string(),
        ] {
            let q = advanced::parse(&expr).unwrap();
            let t = Instant::now();
            let n = real.records.iter().filter(|r| q.matches(r)).count();
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{expr:.40}: {:?}",
                t.elapsed()
            );
            println!("{expr:.40}…: {n} matches in {:?}", t.elapsed());
        }
    }
}

/// Time per query over the full dump: `cargo test -p registry-core --test
/// advanced --release -- --ignored --nocapture timings`.
#[test]
#[ignore]
fn timings() {
    let Some(real) = real() else {
        println!("skipped: ../shared not found");
        return;
    };
    let queries = [
        "status:inactive",
        "locations.geo_details.country_code:DE AND types:education",
        "names.value:university",
        "names.value:\"university of\"",
        "names.value:univ*",
        "admin.last_modified.date:[2024-12-27 TO 2025-01-27]",
        "established:{1900 TO *}",
        "locations.geo_details.name:Berlin",
        "domains:edu",
        "links.value:https\\://www.example.org",
        "Harvard",
        "harvard medical school",
        "\"Max Planck\"",
        "Q1*",
        "-_exists_:established AND types:company",
        "_exists_:relationships",
        "(types:funder OR types:government) AND NOT status:active",
    ];
    let mut all = Vec::new();
    for expr in queries {
        let q = advanced::parse(expr).unwrap();
        let t = Instant::now();
        let mut m = q.matcher();
        let n = real.records.iter().filter(|r| m.matches(r)).count();
        let dt = t.elapsed();
        all.push(dt);
        println!("{dt:>10.2?}  {n:>6}  {expr}");
    }
    all.sort();
    println!(
        "p50 {:.2?}, max {:.2?} over {} records",
        all[all.len() / 2],
        all[all.len() - 1],
        real.records.len()
    );
}
