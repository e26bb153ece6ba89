//! The v1 view: every key of the spec's v1 table with the right JSON types,
//! and the conversion rules pinned one by one.

mod common;

use registry_core::RecordV1;
use registry_core::model::Record;
use serde_json::{Value, json};

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn assert_kind(v: &Value, key: &str, allowed: &[&str], id: &str) {
    let got = v.get(key).map(kind).unwrap_or("missing");
    assert!(
        allowed.contains(&got),
        "{id}: '{key}' is {got}, expected one of {allowed:?}"
    );
}

fn check_v1_shape(r: &Record) {
    let v = serde_json::to_value(RecordV1::from_v2(r)).unwrap();
    let id = r.id.as_str();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = vec![
        "id",
        "name",
        "status",
        "types",
        "established",
        "acronyms",
        "aliases",
        "labels",
        "links",
        "encyclopedia_url",
        "country",
        "addresses",
        "external_ids",
        "relationships",
        "email_address",
        "ip_addresses",
    ];
    want.sort();
    let mut got = keys.clone();
    got.sort();
    assert_eq!(got, want, "{id}");
    for (key, kinds) in [
        ("id", &["string"][..]),
        ("name", &["string"]),
        ("status", &["string"]),
        ("types", &["array"]),
        ("established", &["integer", "null"]),
        ("acronyms", &["array"]),
        ("aliases", &["array"]),
        ("labels", &["array"]),
        ("links", &["array"]),
        ("encyclopedia_url", &["string", "null"]),
        ("country", &["object"]),
        ("addresses", &["array"]),
        ("external_ids", &["object"]),
        ("relationships", &["array"]),
        ("email_address", &["null"]),
        ("ip_addresses", &["array"]),
    ] {
        assert_kind(&v, key, kinds, id);
    }
    for t in v["types"].as_array().unwrap() {
        let t = t.as_str().unwrap();
        assert!(registry_core::v1::V1_TYPES.contains(&t), "{id}: type {t}");
    }
    for l in v["labels"].as_array().unwrap() {
        assert_kind(l, "label", &["string"], id);
        assert_kind(l, "iso639", &["string", "null"], id);
    }
    for x in v["relationships"].as_array().unwrap() {
        for k in ["id", "label", "type"] {
            assert_kind(x, k, &["string"], id);
        }
        assert!(
            x["type"]
                .as_str()
                .unwrap()
                .chars()
                .next()
                .unwrap()
                .is_uppercase()
        );
    }
    assert_kind(&v["country"], "country_code", &["string"], id);
    assert_kind(&v["country"], "country_name", &["string"], id);
    let addresses = v["addresses"].as_array().unwrap();
    assert_eq!(
        addresses.len(),
        1,
        "{id}: one address from the first location"
    );
    let a = &addresses[0];
    for (k, kinds) in [
        ("city", &["string"][..]),
        ("country_geo_id", &["null"]),
        ("geo_city", &["object"]),
        ("lat", &["number", "integer", "null"]),
        ("lng", &["number", "integer", "null"]),
        ("line", &["null"]),
        ("postcode", &["null"]),
        ("primary", &["bool"]),
        ("state", &["null"]),
        ("state_code", &["null"]),
    ] {
        assert_kind(a, k, kinds, id);
    }
    let g = &a["geo_city"];
    assert_kind(g, "city", &["string"], id);
    assert_kind(g, "id", &["integer"], id);
    for admin in ["geo_admin1", "geo_admin2"] {
        for k in ["ascii_name", "code", "id", "name"] {
            assert!(g[admin].get(k).is_some(), "{id}: {admin}.{k}");
        }
    }
    for nuts in ["nuts_level1", "nuts_level2", "nuts_level3"] {
        assert_eq!(g[nuts], json!({"code": null, "name": null}), "{id}");
    }
    assert_kind(&g["license"], "attribution", &["string"], id);
    assert_kind(&g["license"], "license", &["string"], id);
    for (k, e) in v["external_ids"].as_object().unwrap() {
        assert!(
            ["FunderRegistry", "GRID", "ISNI", "OpenKB"].contains(&k.as_str()),
            "{id}: {k}"
        );
        assert_kind(e, "preferred", &["string", "null"], id);
        assert_kind(
            e,
            "all",
            if k == "GRID" { &["string"] } else { &["array"] },
            id,
        );
    }
}

#[test]
fn every_sample_record_has_the_v1_shape() {
    let Some(path) = common::shared("data/registry-v2-sample.json") else {
        return;
    };
    let records = common::import_file(&path);
    assert_eq!(records.len(), 312);
    records.iter().for_each(check_v1_shape);
}

#[test]
fn every_demo_record_has_the_v1_shape() {
    common::import_file(&common::demo_path())
        .iter()
        .for_each(check_v1_shape);
}

fn record(extra: Value) -> Record {
    let mut base = json!({
        "admin": {"created": {"date": "2020-01-01", "schema_version": "1.0"},
                  "last_modified": {"date": "2024-01-01", "schema_version": "2.1"}},
        "domains": [], "established": 1950,
        "external_ids": [
            {"all": ["grid.1.2", "grid.3.4"], "preferred": "grid.1.2", "type": "grid"},
            {"all": ["501100000001"], "preferred": null, "type": "funder_registry"},
            {"all": ["Q42"], "preferred": "Q42", "type": "open_kb"},
            {"all": [], "preferred": null, "type": "isni"},
            {"all": ["x"], "preferred": null, "type": "unknown_kind"}
        ],
        "id": "https://ror.org/02mhbdp94",
        "links": [{"type": "encyclopedia", "value": "https://en.wikipedia.org/wiki/X"},
                  {"type": "website", "value": "https://x.example"},
                  {"type": "encyclopedia", "value": "https://de.wikipedia.org/wiki/X"}],
        "locations": [
            {"geo_details": {"continent_code": "EU", "continent_name": "Europe", "country_code": "DE",
              "country_name": "Germany", "country_subdivision_code": "BY", "country_subdivision_name": "Bavaria",
              "lat": 0.0, "lng": 11.5, "name": "Munich"}, "geo_id": 2867714},
            {"geo_details": {"country_code": "FR", "country_name": "France", "lat": 1, "lng": 2, "name": "Paris"}, "geo_id": 1}
        ],
        "names": [
            {"lang": null, "types": ["acronym"], "value": "XU"},
            {"lang": "de", "types": ["label"], "value": "X-Universität"},
            {"lang": "en", "types": ["label", "registry_display"], "value": "X University"},
            {"lang": null, "types": ["alias"], "value": "Univ X"}
        ],
        "relationships": [{"id": "https://ror.org/0w7hudk23", "label": "Y", "type": "predecessor"},
                          {"id": "https://ror.org/0w7hudk23", "label": "Y", "type": "parent"}],
        "status": "active", "types": ["education", "nonprofit", "mystery"]
    });
    if let (Value::Object(b), Value::Object(e)) = (&mut base, extra) {
        b.extend(e);
    }
    serde_json::from_value(base).unwrap()
}

#[test]
fn conversion_rules() {
    let v = serde_json::to_value(RecordV1::from_v2(&record(json!({})))).unwrap();
    assert_eq!(
        v["name"], "X University",
        "name = the display name, not the first name"
    );
    assert_eq!(
        v["types"],
        json!(["Education", "Nonprofit"]),
        "capitalised; unknown types dropped"
    );
    assert_eq!(v["acronyms"], json!(["XU"]));
    assert_eq!(v["aliases"], json!(["Univ X"]));
    assert_eq!(
        v["labels"],
        json!([{"label": "X-Universität", "iso639": "de"}]),
        "display label excluded"
    );
    assert_eq!(v["links"], json!(["https://x.example"]));
    assert_eq!(
        v["encyclopedia_url"], "https://en.wikipedia.org/wiki/X",
        "first encyclopedia link"
    );
    assert_eq!(
        v["country"],
        json!({"country_code": "DE", "country_name": "Germany"})
    );
    assert_eq!(v["relationships"][0]["type"], "Predecessor");
    assert_eq!(v["relationships"][1]["type"], "Parent");
    assert_eq!(v["email_address"], Value::Null);
    assert_eq!(v["ip_addresses"], json!([]));
    let ext = &v["external_ids"];
    assert_eq!(
        ext["GRID"],
        json!({"all": "grid.1.2", "preferred": "grid.1.2"}),
        "GRID all is one string"
    );
    assert_eq!(
        ext["FunderRegistry"],
        json!({"all": ["501100000001"], "preferred": null})
    );
    assert_eq!(ext["OpenKB"], json!({"all": ["Q42"], "preferred": "Q42"}));
    assert!(ext.get("ISNI").is_none(), "an entry without ids is omitted");
    assert_eq!(ext.as_object().unwrap().len(), 3, "unknown kinds dropped");
    let a = &v["addresses"];
    assert_eq!(
        a.as_array().unwrap().len(),
        1,
        "one address, from the first location"
    );
    assert_eq!(a[0]["city"], "Munich");
    assert_eq!(
        a[0]["lat"],
        Value::Null,
        "zero latitude becomes null, as upstream"
    );
    assert_eq!(a[0]["lng"], json!(11.5));
    assert_eq!(a[0]["primary"], false);
    assert_eq!(a[0]["geo_city"]["id"], 2867714);
    assert_eq!(
        a[0]["geo_city"]["geo_admin1"],
        json!({"ascii_name": null, "code": "DE.BY", "id": null, "name": "Bavaria"})
    );
    assert_eq!(
        a[0]["geo_city"]["geo_admin2"],
        json!({"ascii_name": null, "code": null, "id": null, "name": null})
    );
    assert_eq!(
        a[0]["geo_city"]["license"],
        json!({"attribution": "Data from geonames.org under a CC-BY 3.0 license", "license": "http://creativecommons.org/licenses/by/3.0/"})
    );
}

#[test]
fn schema_2_0_locations_have_no_admin1_code() {
    let r = record(
        json!({"locations": [{"geo_details": {"country_code": "FR", "country_name": "France",
        "lat": 48.85, "lng": 2.35, "name": "Paris"}, "geo_id": 2988507}]}),
    );
    let v = serde_json::to_value(RecordV1::from_v2(&r)).unwrap();
    assert_eq!(
        v["addresses"][0]["geo_city"]["geo_admin1"]["code"],
        Value::Null
    );
    assert_eq!(v["addresses"][0]["lat"], json!(48.85));
}

#[test]
fn no_locations_gives_no_address_and_null_country() {
    let r = record(json!({"locations": []}));
    let v = serde_json::to_value(RecordV1::from_v2(&r)).unwrap();
    assert_eq!(v["addresses"], json!([]));
    assert_eq!(
        v["country"],
        json!({"country_code": null, "country_name": null})
    );
}

#[test]
fn v1_key_order_follows_upstream() {
    let text = serde_json::to_string(&RecordV1::from_v2(&record(json!({})))).unwrap();
    let order = [
        "\"id\"",
        "\"name\"",
        "\"email_address\"",
        "\"ip_addresses\"",
        "\"established\"",
        "\"types\"",
        "\"relationships\"",
        "\"addresses\"",
        "\"links\"",
        "\"aliases\"",
        "\"acronyms\"",
        "\"status\"",
        "\"encyclopedia_url\"",
        "\"labels\"",
        "\"country\"",
        "\"external_ids\"",
    ];
    let pos: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{text}");
}
