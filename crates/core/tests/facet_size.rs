//! The `facet_size=all` extension: every entry of each facet with its exact
//! count over all matches (the app's country map), where the API lists the
//! ten largest.

mod search_support;

use std::collections::BTreeMap;

use search_support::{bad, demo, facet, ok};
use serde_json::Value;

fn countries(v: &Value) -> BTreeMap<String, u64> {
    facet(&v["meta"], "countries")
}

#[test]
fn every_country_with_its_count_over_all_matches() {
    let d = demo();
    let v = ok(&d.engine, "/v2/organizations?all_status&facet_size=all");
    // Counted from the records themselves: each record once per country of its locations.
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for r in &d.records {
        let v2 = serde_json::to_value(r).unwrap();
        let mut codes: Vec<String> = v2["locations"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l["geo_details"]["country_code"].as_str())
            .map(str::to_lowercase)
            .collect();
        codes.sort();
        codes.dedup();
        for c in codes {
            *expected.entry(c).or_default() += 1;
        }
    }
    assert!(expected.len() > 10, "the demo has more than ten countries");
    assert_eq!(countries(&v), expected);
    // Without the extension: the ten largest, the same counts.
    let top = countries(&ok(&d.engine, "/v2/organizations?all_status"));
    assert_eq!(top.len(), 10);
    for (c, n) in top {
        assert_eq!(expected[&c], n, "{c}");
    }
}

#[test]
fn facet_size_takes_only_all() {
    let e = &demo().engine;
    let errors = bad(e, "/v2/organizations?facet_size=20");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("facet_size '20'"), "{errors:?}");
    let root = ok(e, "/");
    assert_eq!(root["extensions"]["facet_size=all"], 1);
}
