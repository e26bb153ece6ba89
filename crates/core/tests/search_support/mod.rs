//! Helpers for the search, router and typeahead tests (conformance, suggest,
//! fuzz): the demo engine, the full 35,990-record engine when `../shared`
//! exists, and request helpers.
#![allow(dead_code)]

use std::sync::OnceLock;

use registry_core::search::Engine;
use registry_core::{Record, Registry, import, shard};
use serde_json::Value;

/// Path of the demo dump.
pub const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/demo/registry-demo.json"
);
/// Path of the full dump (outside the repository).
pub const FULL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/registry-v2.json.gz"
);

/// An engine plus the imported records it was built from (the independent
/// source of truth for expected values).
pub struct Data {
    pub engine: Engine,
    pub records: Vec<Record>,
}

/// The data of a dump's bytes.
pub fn build(bytes: &[u8]) -> Data {
    let imported = import::import_dump(bytes, Default::default(), &mut |_, _| {}).expect("import");
    let built = shard::build(&imported.records, "test", 0, &shard::Stored).expect("build");
    let registry = Registry::from_bytes(&built.full_file()).expect("load");
    let engine = Engine::new(registry);
    Data {
        engine,
        records: imported.records,
    }
}

/// The 63-record demo data.
pub fn demo() -> &'static Data {
    static D: OnceLock<Data> = OnceLock::new();
    D.get_or_init(|| build(&std::fs::read(DEMO).expect("demo data")))
}

/// The full data, or `None` (with a "skipped" line) when `../shared` is absent.
pub fn full() -> Option<&'static Data> {
    static D: OnceLock<Option<Data>> = OnceLock::new();
    let d = D.get_or_init(|| match std::fs::read(FULL) {
        Ok(bytes) => Some(build(&bytes)),
        Err(_) => None,
    });
    if d.is_none() {
        println!("skipped: ../shared not found ({FULL})");
    }
    d.as_ref()
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    registry_core::router::encode_component(s)
}

/// Sends a request; returns the status and the parsed JSON body.
pub fn get(engine: &Engine, path: &str) -> (u16, Value) {
    let r = engine.handle(path);
    let v: Value = serde_json::from_str(&r.json)
        .unwrap_or_else(|e| panic!("{path}: body is not JSON ({e}): {}", r.json));
    (r.status, v)
}

/// A 200 response's body (panics otherwise).
pub fn ok(engine: &Engine, path: &str) -> Value {
    let (s, v) = get(engine, path);
    assert_eq!(s, 200, "{path}: {v}");
    v
}

/// A 400 response's error list (panics otherwise).
pub fn bad(engine: &Engine, path: &str) -> Vec<String> {
    let (s, v) = get(engine, path);
    assert_eq!(s, 400, "{path}: {v}");
    assert_eq!(
        v.as_object().map(|o| o.len()),
        Some(1),
        "{path}: only 'errors': {v}"
    );
    v["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("{path}: no errors array: {v}"))
        .iter()
        .map(|e| e.as_str().expect("string error").to_string())
        .collect()
}

/// One facet of a `meta` object: id → count.
pub fn facet(meta: &Value, key: &str) -> std::collections::BTreeMap<String, u64> {
    meta[key]
        .as_array()
        .expect("facet")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Ids of the items of a list response.
pub fn ids(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["id"].as_str().expect("id").to_string())
        .collect()
}

/// Every id of a list request, by paging (`path` must have a `?`).
pub fn all_ids(engine: &Engine, path: &str) -> Vec<String> {
    let first = ok(engine, path);
    let total = first["number_of_results"].as_u64().expect("total") as usize;
    let mut out = ids(&first);
    let mut page = 2;
    while out.len() < total && page <= 500 {
        let v = ok(engine, &format!("{path}&page={page}"));
        assert_eq!(
            v["number_of_results"], first["number_of_results"],
            "{path} page {page}"
        );
        assert_eq!(
            v["meta"], first["meta"],
            "{path} page {page}: facets do not depend on the page"
        );
        let got = ids(&v);
        assert!(!got.is_empty(), "{path} page {page} empty before the total");
        out.extend(got);
        page += 1;
    }
    out
}

/// The display name of a record.
pub fn display(r: &Record) -> &str {
    r.display_name().expect("display name")
}
