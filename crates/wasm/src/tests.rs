//! Browser tests (headless Chromium via wasm-bindgen-test-runner). Natively
//! these compile to nothing; `scripts/test.sh` runs them on wasm32.

use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

use super::Registry;

wasm_bindgen_test_configure!(run_in_browser);

/// A six-record shard checked in for the format-compatibility test.
const SHARD: &[u8] = include_bytes!("../../core/tests/compat/format-1.shard");

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap()
}

fn message(e: JsValue) -> String {
    js_sys::Error::from(e).message().into()
}

#[wasm_bindgen_test]
fn info_reports_release_and_counts() {
    let r = Registry::new(SHARD).unwrap();
    let info = r.info().unwrap();
    assert_eq!(
        get(&info, "release").as_string().unwrap(),
        "compat-format-1"
    );
    assert_eq!(get(&info, "recordCount").as_f64().unwrap(), 6.0);
    assert_eq!(get(&info, "formatVersion").as_f64().unwrap(), 1.0);
    assert_eq!(get(&info, "hasRecords").as_bool(), Some(true));
}

#[wasm_bindgen_test]
fn get_returns_plain_objects_in_both_versions() {
    let r = Registry::new(SHARD).unwrap();
    let v2 = r.get("ror.org/03ncywt35", None).unwrap();
    assert_eq!(
        get(&v2, "id").as_string().unwrap(),
        "https://ror.org/03ncywt35"
    );
    assert!(js_sys::Array::is_array(&get(&v2, "names")));
    let v1 = r.get("03ncywt35", Some(1)).unwrap();
    assert!(get(&v1, "name").as_string().unwrap().contains("Shinonome"));
    assert!(get(&v1, "external_ids").is_object());
}

#[wasm_bindgen_test]
fn errors_surface_as_exceptions_with_the_core_message() {
    let r = Registry::new(SHARD).unwrap();
    assert!(message(r.get("03ncywt36", None).err().unwrap().into()).contains("check digits"));
    assert!(message(r.get("not-an-id", None).err().unwrap().into()).contains("not a valid"));
    assert!(message(r.get("02mhbdp94", None).err().unwrap().into()).contains("does not exist"));
    let mut corrupt = SHARD.to_vec();
    corrupt[40] ^= 1;
    assert!(message(Registry::new(&corrupt).err().unwrap().into()).contains("corrupted"));
    assert!(
        message(Registry::new(b"<html>").err().unwrap().into()).contains("not a registry shard")
    );
}

fn body(v: &JsValue) -> serde_json::Value {
    serde_json::from_str(&get(v, "body").as_string().unwrap()).unwrap()
}

#[wasm_bindgen_test]
fn request_answers_like_the_router() {
    let r = Registry::new(SHARD).unwrap();
    let ok = r.request("/v2/organizations/03ncywt35").unwrap();
    assert_eq!(get(&ok, "status").as_f64(), Some(200.0));
    assert_eq!(body(&ok)["id"], "https://ror.org/03ncywt35");
    let missing = r.request("/v2/organizations/02mhbdp94").unwrap();
    assert_eq!(get(&missing, "status").as_f64(), Some(404.0));
    assert!(body(&missing)["errors"].is_array());
    let bad = r.request("/v2/organizations?page=0").unwrap();
    assert_eq!(get(&bad, "status").as_f64(), Some(400.0));
}

#[wasm_bindgen_test]
fn search_returns_the_envelope_and_throws_api_errors() {
    let r = Registry::new(SHARD).unwrap();
    let params = js_sys::JSON::parse(r#"{"query": "Shinonome", "allStatus": true}"#).unwrap();
    let env = r.search(params).unwrap();
    assert!(get(&env, "number_of_results").as_f64().unwrap() >= 1.0);
    assert!(js_sys::Array::is_array(&get(&env, "items")));
    assert!(get(&get(&env, "meta"), "countries").is_object());
    let facets = r
        .facets(js_sys::JSON::parse(r#"{"allStatus": true}"#).unwrap())
        .unwrap();
    assert!(js_sys::Array::is_array(&get(&facets, "types")));
    let bad = js_sys::JSON::parse(r#"{"query": "x", "page": 501}"#).unwrap();
    assert!(message(r.search(bad).err().unwrap().into()).contains("501"));
    let bad = js_sys::JSON::parse(r#"{"query": "x", "filter": "colour:red"}"#).unwrap();
    assert!(message(r.search(bad).err().unwrap().into()).contains("colour"));
}

#[wasm_bindgen_test]
fn suggest_gives_ranked_hits_with_utf16_ranges() {
    let r = Registry::new(SHARD).unwrap();
    let hits = r.suggest("東雲", JsValue::UNDEFINED).unwrap();
    let hits = js_sys::Array::from(&hits);
    assert!(hits.length() >= 1);
    let first = hits.get(0);
    assert_eq!(
        get(&get(&first, "summary"), "id").as_string().unwrap(),
        "https://ror.org/03ncywt35"
    );
    let matched = get(&get(&first, "matched"), "value").as_string().unwrap();
    let range = js_sys::Array::from(&js_sys::Array::from(&get(&first, "ranges16")).get(0));
    let (a, b) = (
        range.get(0).as_f64().unwrap() as u32,
        range.get(1).as_f64().unwrap() as u32,
    );
    let js = js_sys::JsString::from(matched);
    assert_eq!(String::from(js.substring(a, b)), "東雲");
    let opts = js_sys::JSON::parse(r#"{"filters": ["types:nosuchtype"], "limit": 3}"#).unwrap();
    assert!(message(r.suggest("東雲", opts).err().unwrap().into()).contains("nosuchtype"));
}

use registry_core::shard::{self, SectionKind::*};

/// The six fixture records as a fresh build, and a registry loaded from its
/// summary + names file only (typeahead mode).
fn typeahead_only() -> (Vec<registry_core::Record>, shard::BuiltShard, Registry) {
    let source = include_bytes!("../../core/tests/compat/format-1.source.json");
    let records = registry_core::import::import_dump(source, Default::default(), &mut |_, _| {})
        .unwrap()
        .records;
    let built = shard::build(&records, "split", 0, &shard::Stored).unwrap();
    let light = vec![js_sys::Uint8Array::from(&built.file(&[Summary, Names])[..])];
    let r = Registry::from_files(light).unwrap();
    (records, built, r)
}

#[wasm_bindgen_test]
fn typeahead_mode_loads_records_later() {
    let (records, built, mut r) = typeahead_only();
    assert_eq!(get(&r.info().unwrap(), "hasRecords").as_bool(), Some(false));
    let hits = js_sys::Array::from(&r.suggest("Shinonome", JsValue::UNDEFINED).unwrap());
    assert!(
        hits.length() >= 1,
        "typeahead works from summary + names alone"
    );
    assert!(message(r.get("03ncywt35", None).err().unwrap().into()).contains("records"));
    let other = shard::build(&records[1..], "split", 0, &shard::Stored).unwrap();
    assert!(
        message(r.add_records(&other.file(&[Records])).err().unwrap().into())
            .contains("different builds")
    );
    r.add_records(&built.file(&[Records])).unwrap();
    assert_eq!(get(&r.info().unwrap(), "hasRecords").as_bool(), Some(true));
    assert_eq!(
        get(&r.get("03ncywt35", None).unwrap(), "id")
            .as_string()
            .unwrap(),
        "https://ror.org/03ncywt35"
    );
    assert!(
        r.add_records(&built.file(&[Records])).is_err(),
        "records given twice"
    );
}

#[wasm_bindgen_test]
fn warm_builds_the_external_id_tables_ahead() {
    let r = Registry::new(SHARD).unwrap();
    r.warm();
    r.warm(); // idempotent
    assert!(!r.suggest_needs_records("0000 0004 1936 8948"));
    // The same answers as without warming: names still match.
    let hits = js_sys::Array::from(&r.suggest("東雲", JsValue::UNDEFINED).unwrap());
    assert!(hits.length() >= 1);
}

#[wasm_bindgen_test]
fn typeahead_mode_says_when_an_id_needs_the_records() {
    let (_, built, mut r) = typeahead_only();
    r.warm(); // nothing to build yet
    assert!(r.suggest_needs_records("Q34433"));
    assert!(r.suggest_needs_records("grid.4991.5"));
    assert!(!r.suggest_needs_records("Shinonome"));
    assert!(!r.suggest_needs_records("3M"));
    r.add_records(&built.file(&[Records])).unwrap();
    assert!(!r.suggest_needs_records("Q34433"));
    r.warm();
}

/// The option objects are read with serde-wasm-bindgen's rules and messages
/// (what these exports did before reading them by hand).
#[wasm_bindgen_test]
fn bad_options_throw_serde_style_messages() {
    let r = Registry::new(SHARD).unwrap();
    let search_error = |json: &str| {
        let params = js_sys::JSON::parse(json).unwrap();
        message(r.search(params).err().unwrap().into())
    };
    for (params, want) in [
        (
            r#"{"query": "x", "page": 1.5}"#,
            "Error: invalid type: floating point `1.5`, expected u32",
        ),
        (
            r#"{"query": "x", "page": -1}"#,
            "Error: invalid type: floating point `-1.0`, expected u32",
        ),
        (
            r#"{"query": "x", "page": 1e21}"#,
            "Error: invalid type: floating point `1000000000000000000000.0`, expected u32",
        ),
        (
            r#"{"query": "x", "page": 5000000000}"#,
            "Error: invalid value: integer `5000000000`, expected u32",
        ),
        (
            r#"{"query": "x", "page": "2"}"#,
            r#"Error: invalid type: string "2", expected u32"#,
        ),
        (
            r#"{"allStatus": "yes"}"#,
            r#"Error: invalid type: string "yes", expected a boolean"#,
        ),
        (
            r#"{"query": 3}"#,
            "Error: invalid type: floating point `3.0`, expected a string",
        ),
    ] {
        assert_eq!(search_error(params), want, "{params}");
    }
    assert_eq!(
        message(r.search(JsValue::UNDEFINED).err().unwrap().into()),
        "Error: invalid type: unit value, expected struct ListParams"
    );
    // null is None; a missing member keeps its default.
    let ok = js_sys::JSON::parse(r#"{"query": "Shinonome", "page": null, "filter": null}"#);
    assert!(r.search(ok.unwrap()).is_ok());
    let opts = js_sys::JSON::parse(r#"{"limit": -2}"#).unwrap();
    assert_eq!(
        message(r.suggest("x", opts).err().unwrap().into()),
        "Error: invalid type: floating point `-2.0`, expected usize"
    );
    // serde-wasm-bindgen asked any non-array for its iterator.
    let opts = js_sys::JSON::parse(r#"{"filters": null}"#).unwrap();
    assert_eq!(
        message(r.suggest("x", opts).err().unwrap().into()),
        "TypeError: Reflect.get called on non-object"
    );
    let opts = js_sys::JSON::parse(r#"{"filters": {"a": 1}}"#).unwrap();
    assert_eq!(
        message(r.suggest("x", opts).err().unwrap().into()),
        "Error: invalid type: JsValue(Object({\"a\":1})), expected a sequence"
    );
    // A string is iterable: its characters are the filters (not valid ones).
    let opts = js_sys::JSON::parse(r#"{"filters": "ab"}"#).unwrap();
    assert!(r.suggest("x", opts).is_err());
}

#[wasm_bindgen_test]
fn a_registry_built_in_steps_answers_like_one_built_at_once() {
    use super::RegistryBuilder;
    let (_, built, once) = typeahead_only();
    let files = || vec![js_sys::Uint8Array::from(&built.file(&[Summary, Names])[..])];
    let mut b = RegistryBuilder::new(files()).unwrap();
    // A zero budget still makes progress (one slice per call).
    while !b.step(0.0).unwrap() {}
    let stepped = b.finish().unwrap();
    for q in ["Shinonome", "東雲", "inst"] {
        let a = js_sys::JSON::stringify(&stepped.suggest(q, JsValue::UNDEFINED).unwrap()).unwrap();
        let w = js_sys::JSON::stringify(&once.suggest(q, JsValue::UNDEFINED).unwrap()).unwrap();
        assert_eq!(String::from(a), String::from(w), "{q}");
    }
    assert!(message(b.finish().err().unwrap().into()).contains("finished"));
    assert!(message(b.step(1.0).err().unwrap().into()).contains("finished"));
    assert!(RegistryBuilder::new(vec![js_sys::Uint8Array::from(&b"<html>"[..])]).is_err());
    // A damaged section is found by the step that reads it, and ends the builder.
    let mut damaged = built.file(&[Summary, Names]);
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    let mut b = RegistryBuilder::new(vec![js_sys::Uint8Array::from(&damaged[..])]).unwrap();
    assert!(message(b.step(1.0).err().unwrap().into()).contains("corrupted"));
    assert!(message(b.finish().err().unwrap().into()).contains("finished"));
}

/// The form's context reaches the core: an e-mail domain offers its record
/// before anything is typed (from summary + names alone), `lang` adds the
/// label, remembered ids come first, and bad remembered ids are skipped.
#[wasm_bindgen_test]
fn suggest_takes_the_forms_context() {
    // A typeahead client that offers e-mail domains loads their section too.
    let (_, built, _) = typeahead_only();
    let files = vec![js_sys::Uint8Array::from(
        &built.file(&[Summary, Names, Domains])[..],
    )];
    let r = Registry::from_files(files).unwrap();
    let opts = js_sys::JSON::parse(r#"{"emailDomain": "x@lab.shinonome-tech.example"}"#).unwrap();
    let hits = js_sys::Array::from(&r.suggest("", opts).unwrap());
    assert_eq!(hits.length(), 1);
    assert_eq!(
        get(&get(&hits.get(0), "summary"), "id")
            .as_string()
            .unwrap(),
        "https://ror.org/03ncywt35"
    );
    assert_eq!(
        get(&hits.get(0), "reason").as_string().unwrap(),
        "email_domain"
    );
    let opts = js_sys::JSON::parse(r#"{"lang": "ja"}"#).unwrap();
    let hits = js_sys::Array::from(&r.suggest("shinonome", opts).unwrap());
    assert_eq!(
        get(&hits.get(0), "localized").as_string().unwrap(),
        "東雲工科大学"
    );
    let opts = js_sys::JSON::parse(
        r#"{"remembered": ["not an id", "https://ror.org/01149pg79"], "preferCountries": ["DE"]}"#,
    )
    .unwrap();
    let hits = js_sys::Array::from(&r.suggest("i", opts).unwrap());
    assert_eq!(
        get(&get(&hits.get(0), "summary"), "id")
            .as_string()
            .unwrap(),
        "https://ror.org/01149pg79"
    );
    assert_eq!(get(&hits.get(0), "remembered").as_bool(), Some(true));
    let bad = js_sys::JSON::parse(r#"{"preferCountries": 3}"#).unwrap();
    assert!(r.suggest("i", bad).is_err());
}

/// The JSON of a suggestion, as the widget, the app and the npm package's
/// `Suggestion` read it (`registry_contract::Hit`): the field names, their
/// order and `null` for an absent city, language or label stay as they are.
#[wasm_bindgen_test]
fn suggestion_json_is_the_contracts() {
    let r = Registry::new(SHARD).unwrap();
    let opts = js_sys::JSON::parse(
        r#"{"limit": 2, "lang": "ja", "remembered": ["https://ror.org/03ncywt35"]}"#,
    )
    .unwrap();
    let hits = r.suggest("東雲", opts).unwrap();
    let json = String::from(js_sys::JSON::stringify(&hits).unwrap());
    assert_eq!(
        json,
        r#"[{"index":2,"summary":{"id":"https://ror.org/03ncywt35","name":"Shinonome Institute of Technology","acronyms":["SIT"],"city":"Tokyo","country_code":"JP","country_name":"Japan","types":["education"],"status":"active","successors":[]},"matched":{"value":"東雲工大","types":["alias"],"lang":"ja"},"ranges":[[0,6]],"reason":"name_prefix","ranges16":[[0,2]],"localized":"東雲工科大学","remembered":true}]"#
    );
}
