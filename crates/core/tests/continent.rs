//! Continent from country: a place without a continent (schema 2.0) counts
//! under its country's continent in the facets, the continent filters and
//! `query.advanced`, so a query's continent facet agrees with its country
//! facet; the records themselves are shown unchanged.

mod search_support;

use std::collections::{BTreeMap, BTreeSet};

use registry_core::continent::{CONTINENTS, of_country};
use search_support::{build, full, ok};
use serde_json::Value;

/// Two records in Britain, one of schema 2.0 (no continent) and one of 2.1,
/// and one 2.0 record in Kenya.
fn dump() -> Vec<u8> {
    let rec = |id: &str,
               name: &str,
               schema: &str,
               cc: &str,
               country: &str,
               cont: Option<(&str, &str)>| {
        let cont = match cont {
            Some((c, n)) => format!(
                r#""continent_code":"{c}","continent_name":"{n}","country_subdivision_code":null,"country_subdivision_name":null,"#
            ),
            None => String::new(),
        };
        format!(
            r#"{{"admin":{{"created":{{"date":"2020-01-01","schema_version":"{schema}"}},"last_modified":{{"date":"2024-05-01","schema_version":"{schema}"}}}},"domains":[],"established":1901,"external_ids":[],"id":"https://ror.org/{id}","links":[],"locations":[{{"geonames_details":{{{cont}"country_code":"{cc}","country_name":"{country}","lat":1.0,"lng":2.0,"name":"Town"}},"geonames_id":1}}],"names":[{{"lang":"en","types":["ror_display","label"],"value":"{name}"}}],"relationships":[],"status":"active","types":["education"]}}"#
        )
    };
    format!(
        "[{},{},{}]",
        rec(
            "02mhbdp94",
            "Cambridge Old College",
            "2.0",
            "GB",
            "United Kingdom",
            None
        ),
        rec(
            "05tg4dc47",
            "Cambridge New College",
            "2.1",
            "GB",
            "United Kingdom",
            Some(("EU", "Europe"))
        ),
        rec(
            "01an7q238",
            "Cambridge Kenya College",
            "2.0",
            "KE",
            "Kenya",
            None
        ),
    )
    .into_bytes()
}

fn facet(v: &Value, name: &str) -> BTreeMap<String, u64> {
    v["meta"][name]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn ids(v: &Value) -> BTreeSet<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i["id"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Each record counts once under each continent of its countries, so a
/// continent's count is at least each of its countries' counts and at most
/// their sum.
fn assert_agree(v: &Value, what: &str) {
    let countries = facet(v, "countries");
    let continents = facet(v, "continents");
    let mut sums: BTreeMap<String, u64> = BTreeMap::new();
    for (code, n) in &countries {
        let k = CONTINENTS
            [of_country(code).unwrap_or_else(|| panic!("{what}: no continent for {code}"))]
        .0
        .to_lowercase();
        let have = continents.get(&k).copied().unwrap_or(0);
        assert!(
            have >= *n,
            "{what}: continent {k} counts {have}, fewer than its country {code} ({n})"
        );
        *sums.entry(k).or_default() += n;
    }
    // The facets list ten entries at most; with fewer countries every
    // continent's count is bounded by its countries' sum.
    if countries.len() < 10 {
        for (k, n) in &continents {
            assert!(n <= sums.get(k).unwrap_or(&0), "{what}: {k} {n} > {sums:?}");
        }
    }
}

#[test]
fn a_place_without_continent_counts_under_its_country_continent() {
    let d = build(&dump());
    let v = ok(&d.engine, "/v2/organizations?query=cambridge");
    assert_eq!(
        facet(&v, "countries"),
        BTreeMap::from([("gb".into(), 2), ("ke".into(), 1)])
    );
    assert_eq!(
        facet(&v, "continents"),
        BTreeMap::from([("eu".into(), 2), ("af".into(), 1)])
    );
    assert_agree(&v, "constructed");
    // The continent filters, by code and by name.
    for f in [
        "locations.geo_details.continent_code:EU",
        "locations.geo_details.continent_name:Europe",
        "locations.geo_details.continent_code:eu",
    ] {
        let v = ok(
            &d.engine,
            &format!("/v2/organizations?query=cambridge&filter={f}"),
        );
        assert_eq!(
            ids(&v),
            BTreeSet::from(["02mhbdp94".into(), "05tg4dc47".into()]),
            "{f}"
        );
    }
    let v = ok(
        &d.engine,
        "/v2/organizations?filter=locations.geo_details.continent_code:AF",
    );
    assert_eq!(ids(&v), BTreeSet::from(["01an7q238".into()]));
    // query.advanced reads the same continents.
    let v = ok(
        &d.engine,
        "/v2/organizations?query.advanced=locations.geo_details.continent_name:Europe",
    );
    assert_eq!(
        ids(&v),
        BTreeSet::from(["02mhbdp94".into(), "05tg4dc47".into()])
    );
    // The record is shown as the dump has it: no continent invented.
    let v = ok(&d.engine, "/v2/organizations/02mhbdp94");
    let g = &v["locations"][0]["geonames_details"];
    assert!(g.get("continent_code").is_none(), "{g}");
}

#[test]
fn full_cambridge_continents_agree_with_countries() {
    let Some(d) = full() else { return };
    let v = ok(&d.engine, "/v2/organizations?query=cambridge");
    let (countries, continents) = (facet(&v, "countries"), facet(&v, "continents"));
    println!("cambridge: countries {countries:?}, continents {continents:?}");
    assert_eq!(countries.get("gb"), continents.get("eu"));
    for q in [
        "cambridge",
        "university",
        "paris",
        "institute+of+technology",
        "hospital",
        "kenya",
    ] {
        let a = ok(&d.engine, &format!("/v2/organizations?query={q}"));
        assert_agree(&a, q);
    }
}

/// The table agrees with every (country, continent) pair the data's own
/// schema-2.1 locations hold.
#[test]
fn full_table_agrees_with_the_data() {
    let Some(d) = full() else { return };
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    for r in &d.records {
        for l in &r.locations {
            if let Some(Some(c)) = &l.geo_details.continent_code {
                pairs.insert((l.geo_details.country_code.clone(), c.clone()));
            }
        }
    }
    assert!(pairs.len() > 150, "{} pairs", pairs.len());
    for (country, cont) in &pairs {
        let got = of_country(country).map(|i| CONTINENTS[i].0);
        assert_eq!(got, Some(cont.as_str()), "{country}");
    }
}
