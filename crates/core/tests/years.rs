//! Established years over a list's matches: `histogram=established`
//! (`meta.established`, every year's exact count) and `established=<range>`
//! (E3's range syntax narrowing E2, `mode=typed` and E3 lists), checked
//! against counts made from the imported records themselves.

mod search_support;

use std::collections::BTreeMap;

use search_support::{Data, all_ids, bad, demo, enc, full, ok};
use serde_json::Value;

/// id → established year, from the imported records (the independent truth).
fn years(d: &Data) -> BTreeMap<String, Option<i64>> {
    d.records
        .iter()
        .map(|r| (r.id.clone(), r.established))
        .collect()
}

/// `meta.established` as year → count, and its unknown count.
fn histogram(v: &Value) -> (BTreeMap<i64, u64>, u64) {
    let h = &v["meta"]["established"];
    assert_eq!(h["version"], 1, "{h}");
    let mut last = i64::MIN;
    let years = h["years"]
        .as_array()
        .expect("years")
        .iter()
        .map(|e| {
            let y = e["year"].as_i64().unwrap();
            assert!(y > last, "years in order, once each: {h}");
            last = y;
            let n = e["count"].as_u64().unwrap();
            assert!(n > 0, "only years with a match: {h}");
            (y, n)
        })
        .collect();
    (years, h["unknown"].as_u64().unwrap())
}

/// The histogram counted from the records of `ids`.
fn expected(years: &BTreeMap<String, Option<i64>>, ids: &[String]) -> (BTreeMap<i64, u64>, u64) {
    let mut counts = BTreeMap::new();
    let mut unknown = 0;
    for id in ids {
        match years[id] {
            Some(y) => *counts.entry(y).or_default() += 1,
            None => unknown += 1,
        }
    }
    (counts, unknown)
}

/// The histogram of every record (`all_status` listing) equals the count over
/// the whole registry, record by record.
fn whole_registry(d: &Data) {
    let v = ok(
        &d.engine,
        "/v2/organizations?all_status&histogram=established",
    );
    let all: Vec<String> = d.records.iter().map(|r| r.id.clone()).collect();
    assert_eq!(v["number_of_results"].as_u64(), Some(all.len() as u64));
    let (h, unknown) = histogram(&v);
    assert_eq!((h.clone(), unknown), expected(&years(d), &all));
    assert_eq!(h.values().sum::<u64>() + unknown, all.len() as u64);
    assert!(h.len() > 5, "the data has years to count");
}

/// For each query: the histogram equals the count over the query's every
/// match, and the range keeps exactly the matches in the range, in order.
fn queries(d: &Data, queries: &[&str], range: (i64, i64)) {
    let ys = years(d);
    let written = format!("[{} TO {}]", range.0, range.1);
    for q in queries {
        let base = format!("/v2/organizations?{q}");
        let matches = all_ids(&d.engine, &base);
        let (h, unknown) = histogram(&ok(&d.engine, &format!("{base}&histogram=established")));
        assert_eq!((h.clone(), unknown), expected(&ys, &matches), "{q}");
        // The list without the histogram is the same list.
        assert_eq!(
            all_ids(&d.engine, &format!("{base}&histogram=established")),
            matches,
            "{q}"
        );
        let narrowed = all_ids(&d.engine, &format!("{base}&established={}", enc(&written)));
        let want: Vec<String> = matches
            .iter()
            .filter(|id| ys[*id].is_some_and(|y| y >= range.0 && y <= range.1))
            .cloned()
            .collect();
        assert_eq!(narrowed, want, "{q} {written}");
        let in_range: u64 = h.range(range.0..=range.1).map(|(_, n)| n).sum();
        assert_eq!(
            narrowed.len() as u64,
            in_range,
            "{q}: the histogram's bars add up to the filtered list"
        );
        // Its histogram is the range's part of the query's.
        let (hr, ur) = histogram(&ok(
            &d.engine,
            &format!("{base}&established={}&histogram=established", enc(&written)),
        ));
        assert_eq!(ur, 0);
        assert_eq!(
            hr,
            h.range(range.0..=range.1).map(|(y, n)| (*y, *n)).collect(),
            "{q}"
        );
    }
}

#[test]
fn demo_counts_are_exact() {
    let d = demo();
    whole_registry(d);
    queries(
        d,
        &[
            "query=university",
            "query=univ&mode=typed",
            "query=institute&filter=types:education",
            "query=university&all_status",
            "query.advanced=types:education",
            "all_status",
        ],
        (1900, 1950),
    );
}

#[test]
fn real_data_counts_are_exact() {
    let Some(d) = full() else { return };
    whole_registry(d);
    queries(
        d,
        &[
            "query=cambridge&mode=typed",
            "query=max+planck",
            "query=university+of+oslo&mode=typed&filter=country.country_code:NO",
            "query.advanced=locations.geo_details.name:Brno",
        ],
        (1900, 1950),
    );
}

#[test]
fn ranges_mean_what_e3_means() {
    let d = demo();
    for (range, adv) in [
        ("[1900 TO 1950]", "established:[1900 TO 1950]"),
        ("{1900 TO 1950}", "established:{1900 TO 1950}"),
        ("[1950 TO *]", "established:[1950 TO *]"),
        (">=1990", "established:>=1990"),
        ("<1900", "established:<1900"),
    ] {
        let listed = all_ids(
            &d.engine,
            &format!("/v2/organizations?all_status&established={}", enc(range)),
        );
        let e3 = all_ids(
            &d.engine,
            &format!("/v2/organizations?all_status&query.advanced={}", enc(adv)),
        );
        assert_eq!(listed, e3, "{range}");
        assert!(!listed.is_empty(), "{range} matches something in the demo");
    }
}

#[test]
fn bad_values_say_what_to_write() {
    let e = &demo().engine;
    for v in ["1900", "[a TO b]", "[1900 TO 1950] OR x", "[1900"] {
        let errors = bad(
            e,
            &format!("/v2/organizations?query=x&established={}", enc(v)),
        );
        assert_eq!(errors.len(), 1, "{v}: {errors:?}");
        assert!(
            errors[0].starts_with(&format!("established '{v}'")),
            "{errors:?}"
        );
    }
    let errors = bad(e, "/v2/organizations?query=x&histogram=types");
    assert!(errors[0].contains("histogram 'types'"), "{errors:?}");
    let errors = bad(
        e,
        "/v1/organizations?affiliation=x&established=%5B1900%20TO%201950%5D",
    );
    assert!(errors[0].contains("not to affiliation"), "{errors:?}");
    let root = ok(e, "/");
    assert_eq!(root["extensions"]["histogram=established"], 1);
    assert_eq!(root["extensions"]["established=<range>"], 1);
    // Absent unless asked for: the spec's meta is unchanged.
    assert!(
        ok(e, "/v2/organizations?query=university")["meta"]
            .get("established")
            .is_none()
    );
}
