//! `places=all`: every located place of every match (`meta.places`), for
//! the results map, checked against the imported records themselves.

mod search_support;

use search_support::{Data, all_ids, bad, demo, full, ok};
use serde_json::Value;

/// (id, name, lat, lng) of every located place of the records `ids`, in order.
fn expected(d: &Data, ids: &[String]) -> (Vec<(String, String, f64, f64)>, u64) {
    let mut points = Vec::new();
    let mut unlocated = 0;
    for id in ids {
        let r = d.records.iter().find(|r| &r.id == id).expect("record");
        let v2 = serde_json::to_value(r).unwrap();
        let before = points.len();
        for l in v2["locations"].as_array().unwrap() {
            let g = &l["geo_details"];
            if let (Some(lat), Some(lng)) = (g["lat"].as_f64(), g["lng"].as_f64()) {
                let bare = id.rsplit('/').next().unwrap().to_string();
                points.push((bare, r.display_name().unwrap().to_string(), lat, lng));
            }
        }
        if points.len() == before {
            unlocated += 1;
        }
    }
    (points, unlocated)
}

fn answered(v: &Value) -> (Vec<(String, String, f64, f64)>, u64) {
    let p = &v["meta"]["places"];
    assert_eq!(p["version"], 1, "{p}");
    let points = p["points"]
        .as_array()
        .expect("points")
        .iter()
        .map(|x| {
            (
                x["id"].as_str().unwrap().to_string(),
                x["name"].as_str().unwrap().to_string(),
                x["lat"].as_f64().unwrap(),
                x["lng"].as_f64().unwrap(),
            )
        })
        .collect();
    (points, p["unlocated"].as_u64().unwrap())
}

fn check(d: &Data, queries: &[&str]) {
    for q in queries {
        let base = format!("/v2/organizations?{q}");
        let ids = all_ids(&d.engine, &base);
        let v = ok(&d.engine, &format!("{base}&places=all"));
        assert_eq!(
            v["number_of_results"].as_u64(),
            Some(ids.len() as u64),
            "{q}"
        );
        assert_eq!(answered(&v), expected(d, &ids), "{q}");
    }
}

#[test]
fn demo_places_are_every_match_located() {
    let d = demo();
    check(
        d,
        &[
            "all_status",
            "query=university",
            "query=univ&mode=typed&filter=types:education",
            "query.advanced=types:education",
            "query=university&established=%5B1900%20TO%201950%5D",
        ],
    );
    let v = ok(&d.engine, "/v2/organizations?all_status&places=all");
    assert!(
        answered(&v).0.len() >= d.records.len() - 5,
        "the demo records are located"
    );
}

#[test]
fn real_data_places_are_every_match_located() {
    let Some(d) = full() else { return };
    check(
        d,
        &[
            "query=cambridge&mode=typed",
            "query=max+planck",
            "query.advanced=locations.geo_details.name:Brno",
        ],
    );
    // The whole registry: one point per located place, none lost.
    let v = ok(&d.engine, "/v2/organizations?all_status&places=all");
    let all: Vec<String> = d.records.iter().map(|r| r.id.clone()).collect();
    let (want, unlocated) = expected(d, &all);
    let (got, u) = answered(&v);
    assert_eq!((got.len(), u), (want.len(), unlocated));
}

#[test]
fn places_takes_only_all() {
    let e = &demo().engine;
    let errors = bad(e, "/v2/organizations?query=x&places=some");
    assert!(errors[0].contains("places 'some'"), "{errors:?}");
    assert!(bad(e, "/v1/organizations?affiliation=x&places=all")[0].contains("not to affiliation"));
    assert_eq!(ok(e, "/")["extensions"]["places=all"], 1);
    assert!(
        ok(e, "/v2/organizations?query=university")["meta"]
            .get("places")
            .is_none()
    );
}
