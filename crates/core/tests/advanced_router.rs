//! E3 through the API router: `/v2/organizations?query.advanced=…` —
//! envelope, facets, paging, filters, the status default, errors, v1; the
//! column fast path against `Query::matches` on every record (demo data,
//! random expressions, and the real data when `../shared` exists).

mod common;

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::Instant;

use common::Rng;
use registry_core::advanced;
use registry_core::search::Engine;
use registry_core::{Record, Registry, import, shard};
use serde_json::Value;

fn engine_of(bytes: &[u8]) -> Engine {
    let records = import::import_dump(bytes, Default::default(), &mut |_, _| {})
        .unwrap()
        .records;
    let built = shard::build(&records, "test", 0, &shard::Stored).unwrap();
    Engine::new(Registry::from_bytes(&built.full_file()).unwrap())
}

fn demo() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| engine_of(include_bytes!("../../../data/demo/registry-demo.json")))
}

fn full() -> Option<&'static (Engine, Vec<Record>)> {
    static E: OnceLock<Option<(Engine, Vec<Record>)>> = OnceLock::new();
    E.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/registry-v2.json.gz"
        );
        let bytes = std::fs::read(path).ok()?;
        let engine = engine_of(&bytes);
        let records = (0..engine.registry().len())
            .map(|i| engine.registry().record(i).unwrap())
            .collect();
        Some((engine, records))
    })
    .as_ref()
}

fn enc(s: &str) -> String {
    registry_core::router::encode_component(s)
}

#[track_caller]
fn get(e: &Engine, url: &str) -> (u16, Value) {
    let r = e.handle(url);
    let v: Value = serde_json::from_str(&r.json).unwrap_or_else(|err| panic!("{url}: {err}"));
    (r.status, v)
}

#[track_caller]
fn adv(e: &Engine, expr: &str, extra: &str) -> Value {
    let url = format!("/v2/organizations?query.advanced={}{extra}", enc(expr));
    let (status, v) = get(e, &url);
    assert_eq!(status, 200, "{url}: {v}");
    v
}

fn item_ids(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every matching record id (all pages), in the router's order.
fn all_ids(e: &Engine, expr: &str, extra: &str) -> Vec<String> {
    let first = adv(e, expr, extra);
    let n = first["number_of_results"].as_u64().unwrap() as usize;
    let mut out = item_ids(&first);
    let mut page = 2;
    while out.len() < n {
        let v = adv(e, expr, &format!("{extra}&page={page}"));
        let ids = item_ids(&v);
        assert!(!ids.is_empty(), "{expr}: page {page} empty before {n}");
        out.extend(ids);
        page += 1;
    }
    assert_eq!(out.len(), n);
    out
}

/// Ids of the registry records `expr` matches by a scan, with the status
/// rule: `statuses` = the visible statuses.
fn scan(e: &Engine, expr: &str, statuses: &[&str]) -> Vec<String> {
    let q = advanced::parse(expr).unwrap();
    (0..e.registry().len())
        .map(|i| e.registry().record(i).unwrap())
        .filter(|r| statuses.contains(&r.status.as_str()) && q.matches(r))
        .map(|r| r.id)
        .collect()
}

const ALL: &[&str] = &["active", "inactive", "withdrawn"];

#[test]
fn envelope_items_and_facets() {
    let e = demo();
    let v = adv(e, "types:education", "");
    let want = scan(e, "types:education", &["active"]);
    assert!(!want.is_empty());
    assert_eq!(v["number_of_results"], want.len());
    assert!(v["time_taken"].is_u64());
    // Full v2 records, in id order (the registry's order).
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), want.len().min(20));
    let first = &items[0];
    let i = e
        .registry()
        .index_of(registry_core::RecordId::parse(first["id"].as_str().unwrap()).unwrap())
        .unwrap();
    assert_eq!(
        first,
        &serde_json::to_value(e.registry().record(i).unwrap()).unwrap()
    );
    let mut sorted = want.clone();
    sorted.sort();
    assert_eq!(want, sorted);
    assert_eq!(all_ids(e, "types:education", ""), want);
    // Facets over every match.
    let meta = &v["meta"];
    for key in ["continents", "countries", "statuses", "types"] {
        assert!(meta[key].is_array(), "{key}: {meta}");
    }
    assert_eq!(meta["statuses"].as_array().unwrap().len(), 1);
    assert_eq!(meta["statuses"][0]["id"], "active");
    assert_eq!(meta["statuses"][0]["count"], want.len());
    let edu = meta["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "education")
        .unwrap();
    assert_eq!(edu["count"], want.len());
}

#[test]
fn paging_is_stable_and_complete() {
    let e = demo();
    let all = all_ids(e, "*", "&all_status");
    assert_eq!(all.len(), e.registry().len());
    let set: BTreeSet<&String> = all.iter().collect();
    assert_eq!(set.len(), all.len(), "pages overlap");
    let p1 = item_ids(&adv(e, "*", "&all_status&page=1"));
    let p2 = item_ids(&adv(e, "*", "&all_status&page=2"));
    assert_eq!(p1.len(), 20);
    assert_eq!(&all[..20], p1.as_slice());
    assert_eq!(&all[20..40], p2.as_slice());
    // Past the end: no items, same count.
    let far = adv(e, "*", "&all_status&page=9");
    assert_eq!(far["items"].as_array().unwrap().len(), 0);
    assert_eq!(far["number_of_results"], all.len());
    // Page validation is unchanged.
    let (s, v) = get(e, "/v2/organizations?query.advanced=*&page=0");
    assert_eq!(s, 400);
    assert_eq!(v["errors"][0], "page '0' outside of range 1-500");
}

#[test]
fn filters_are_anded() {
    let e = demo();
    assert_eq!(
        all_ids(e, "*", "&filter=types:education"),
        all_ids(e, "types:education", "")
    );
    assert_eq!(
        all_ids(
            e,
            "types:education",
            "&filter=locations.geo_details.country_code:US"
        ),
        scan(
            e,
            "types:education AND locations.geo_details.country_code:US",
            &["active"]
        )
    );
    // A filter and the expression on the same key.
    assert_eq!(
        all_ids(e, "types:company", "&filter=types:education").len(),
        scan(e, "types:company AND types:education", &["active"]).len()
    );
    // Bad filters keep their messages.
    let (s, v) = get(
        e,
        "/v2/organizations?query.advanced=*&filter=types:nonsense",
    );
    assert_eq!(s, 400);
    assert!(v["errors"][0].as_str().unwrap().contains("nonsense"), "{v}");
}

#[test]
fn status_default_and_overrides() {
    let e = demo();
    // Active only by default.
    assert_eq!(all_ids(e, "*", ""), scan(e, "*", &["active"]));
    // The expression names status: every status visible.
    assert_eq!(all_ids(e, "status:inactive", "").len(), 6);
    assert_eq!(
        all_ids(e, "NOT status:active", ""),
        scan(e, "NOT status:active", ALL)
    );
    assert_eq!(
        all_ids(e, "status:withdrawn OR types:education", ""),
        scan(e, "status:withdrawn OR types:education", ALL)
    );
    // all_status.
    assert_eq!(all_ids(e, "*", "&all_status"), scan(e, "*", ALL));
    assert_eq!(
        all_ids(e, "*", "&all_status=false"),
        scan(e, "*", &["active"])
    );
    // A status filter decides.
    assert_eq!(
        all_ids(e, "*", "&filter=status:inactive"),
        scan(e, "*", &["inactive"])
    );
    assert_eq!(
        all_ids(e, "status:active", "&filter=status:withdrawn").len(),
        0
    );
    // A bare word is not a status constraint.
    assert_eq!(all_ids(e, "inactive", ""), scan(e, "inactive", &["active"]));
}

#[test]
fn errors_are_400_with_position() {
    let e = demo();
    for (expr, wanted) in [
        (
            "locations:Brno",
            "query.advanced: unknown field 'locations' at position 0 (did you mean locations.geo_details.name?)",
        ),
        ("(names.value:x", "at position 0"),
        ("types:education AND", "at position 16"),
        ("established:[19x0 TO 2000]", "at position"),
        ("names.value:foo~", "at position"),
    ] {
        let url = format!("/v2/organizations?query.advanced={}", enc(expr));
        let (s, v) = get(e, &url);
        assert_eq!(s, 400, "{expr}: {v}");
        let errors = v["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{v}");
        let msg = errors[0].as_str().unwrap();
        assert!(msg.starts_with("query.advanced: "), "{msg}");
        assert!(msg.contains(wanted), "{expr}: {msg}");
    }
    // Too long.
    let long = "a ".repeat(1500);
    let (s, v) = get(
        e,
        &format!("/v2/organizations?query.advanced={}", enc(&long)),
    );
    assert_eq!(s, 400);
    assert!(
        v["errors"][0].as_str().unwrap().contains("longer than"),
        "{v}"
    );
    // Existing validation first, with its messages.
    let (s, v) = get(
        e,
        "/v2/organizations?query=x&query.advanced=types:education",
    );
    assert_eq!(s, 400);
    assert_eq!(
        v["errors"][0],
        "query and query.advanced parameters cannot be combined. please use either query OR query.advanced"
    );
    let (s, v) = get(e, "/v2/organizations?query.advanced=x&bogus=1");
    assert_eq!(s, 400);
    assert_eq!(v["errors"][0], "query parameter 'bogus' is illegal");
    // The empty expression matches nothing.
    for expr in ["", "   "] {
        let v = adv(e, expr, "");
        assert_eq!(v["number_of_results"], 0);
        assert_eq!(v["items"].as_array().unwrap().len(), 0);
    }
    // A blank value for the parameter without '=' is the empty expression too.
    let (s, v) = get(e, "/v2/organizations?query.advanced");
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["number_of_results"], 0);
}

#[test]
fn v1_is_not_supported() {
    let e = demo();
    let (s, v) = get(e, "/v1/organizations?query.advanced=types:education");
    assert_eq!(s, 400);
    assert!(
        v["errors"][0]
            .as_str()
            .unwrap()
            .contains("only available in v2"),
        "{v}"
    );
    // Unversioned is v2.
    let (s, _) = get(e, "/organizations?query.advanced=types:education");
    assert_eq!(s, 200);
}

// ------------------------------------------------------------- fuzzing

const FIELDS: &[&str] = &[
    "",
    "",
    "names.value",
    "names.types",
    "names.lang",
    "locations.geo_details.name",
    "locations.geonames_details.country_code",
    "locations.geo_details.continent_name",
    "locations.geo_details.lat",
    "locations.geo_id",
    "links.value",
    "links.type",
    "domains",
    "external_ids.all",
    "external_ids.type",
    "relationships.type",
    "relationships.label",
    "relationships.id",
    "status",
    "types",
    "established",
    "id",
    "admin.created.date",
    "admin.last_modified.schema_version",
    "locations.*",
    "_exists_",
];

const VALUES: &[&str] = &[
    "university",
    "Univ*",
    "uni*",
    "*ity",
    "*",
    "?a*",
    "c?mbridge",
    "\"university of\"",
    "\"New York\"",
    "(a OR b)",
    "education",
    "active",
    "inactive",
    "US",
    "Europe",
    "québec",
    "Québec",
    "2021",
    "2021-03",
    "1990",
    "[1900 TO 2000]",
    "{* TO 1950]",
    ">2000",
    "<=45.5",
    "[a TO m}",
    "-33.9",
    "label",
    "ror_display",
    "isni",
    "fundref",
    "https://ror.org/02mhbdp94",
    "02mhbdp94",
    "2.1",
    "en",
    "wikipedia",
    "example.org",
    "parent",
    "links",
    "locations",
    "x:y",
    "(",
    ")",
    "\"",
    "~",
    "^2",
    "\\",
];

const OPS: &[&str] = &[
    " ", " AND ", " OR ", " NOT ", " -", " +", " && ", " || ", " !",
];

fn random_expr(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(5) {
        if !s.is_empty() {
            s.push_str(rng.pick(OPS));
        } else if rng.below(5) == 0 {
            s.push_str(rng.pick(&["NOT ", "-", "+", "("]));
        }
        let open = rng.below(5) == 0;
        if open {
            s.push('(');
        }
        let f = rng.pick(FIELDS);
        if !f.is_empty() {
            s.push_str(f);
            s.push(':');
        }
        s.push_str(rng.pick(VALUES));
        if open && rng.below(6) != 0 {
            s.push(')');
        }
    }
    s
}

/// Random expressions through `handle`: never a panic; 200 or 400; on 200
/// the results equal a scan with `Query::matches` (and the status rule).
fn fuzz(e: &Engine, records: &[Record], n: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng(seed);
    let (mut ok, mut bad) = (0, 0);
    for _ in 0..n {
        let expr = random_expr(&mut rng);
        let extra = rng.pick(&["", "&all_status", "&filter=types:education"]);
        let url = format!("/v2/organizations?query.advanced={}{extra}", enc(&expr));
        let r = e.handle(&url);
        let v: Value = serde_json::from_str(&r.json).unwrap();
        match r.status {
            200 => {
                ok += 1;
                let q = advanced::parse(&expr).unwrap();
                let lift = extra == "&all_status" || q.constrains_status();
                let want = records
                    .iter()
                    .filter(|r| lift || r.status == "active")
                    .filter(|r| {
                        extra != "&filter=types:education"
                            || r.types.iter().any(|t| t == "education")
                    })
                    .filter(|r| q.matches(r))
                    .count();
                assert_eq!(v["number_of_results"], want, "{expr}{extra}");
            }
            400 => {
                bad += 1;
                let msg = v["errors"][0].as_str().unwrap();
                assert!(msg.contains("at position"), "{expr}: {msg}");
                assert!(advanced::parse(&expr).is_err());
            }
            s => panic!("{expr}: HTTP {s} {v}"),
        }
    }
    (ok, bad)
}

#[test]
fn fuzz_demo_never_panics_and_agrees_with_scan() {
    let e = demo();
    let records: Vec<Record> = (0..e.registry().len())
        .map(|i| e.registry().record(i).unwrap())
        .collect();
    let (ok, bad) = fuzz(e, &records, 3000, 0x2545_F491_4F6C_DD1D);
    println!("{ok} evaluated, {bad} rejected");
    assert!(ok > 500 && bad > 200, "{ok} ok, {bad} bad");
}

// ------------------------------------------------------------- real data

#[test]
fn full_data_router_agrees_with_scan() {
    let Some((e, records)) = full() else {
        println!("skipped: ../shared not found");
        return;
    };
    let t = Instant::now();
    e.warm_advanced();
    println!(
        "advanced columns: {:.0?}, {:.1} MB",
        t.elapsed(),
        e.advanced_heap_bytes() as f64 / 1e6
    );
    let queries = [
        ("names.value:university", ""),
        ("names.value:univ*", "&all_status"),
        ("\"university of\"", ""),
        ("harvard", ""),
        ("1991", ""),
        ("*uni*", ""),
        ("links.value:*uni*", ""),
        ("established:[1900 TO 1950]", "&filter=types:education"),
        ("admin.last_modified.date:[2024-01 TO *]", ""),
        ("NOT status:active", ""),
        (
            "(types:funder OR types:government) AND NOT locations.geo_details.continent_code:EU",
            "&filter=status:inactive",
        ),
        ("relationships.label:\"university of california\"", ""),
        ("_exists_:domains -types:company", ""),
    ];
    for (expr, extra) in queries {
        let v = adv(e, expr, extra);
        let q = advanced::parse(expr).unwrap();
        let lift = extra.contains("all_status") || q.constrains_status();
        let want: Vec<&str> = records
            .iter()
            .filter(|r| {
                if extra.contains("status:inactive") {
                    r.status == "inactive"
                } else {
                    lift || r.status == "active"
                }
            })
            .filter(|r| {
                !extra.contains("types:education") || r.types.iter().any(|t| t == "education")
            })
            .filter(|r| q.matches(r))
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(v["number_of_results"], want.len(), "{expr}{extra}");
        let got = item_ids(&v);
        assert_eq!(got, want[..want.len().min(20)], "{expr}{extra}");
        let statuses: u64 = v["meta"]["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["count"].as_u64().unwrap())
            .sum();
        assert_eq!(
            statuses as usize,
            want.len(),
            "{expr}: facets over all matches"
        );
    }
    let (ok, bad) = fuzz(e, records, 150, 0x9E37_79B9_7F4A_7C15);
    println!("full data fuzz: {ok} evaluated, {bad} rejected");
}
