//! Targets over the API: the router, advanced queries, affiliation matching.

use registry_core::advanced;
use registry_core::router::encode_component;
use registry_core::search::{Filters, Version};

use crate::data::demo;

/// `Engine::handle` on any path and query: a status of the API (every
/// record is loaded, so never 503) and a JSON body, `errors` on failures.
pub fn router(data: &[u8]) {
    answers_json(&String::from_utf8_lossy(data));
}

fn answers_json(path: &str) -> serde_json::Value {
    let r = demo().engine.handle(path);
    assert!(
        matches!(r.status, 200 | 400 | 404),
        "{path:?}: status {}",
        r.status
    );
    let v: serde_json::Value = serde_json::from_str(&r.json)
        .unwrap_or_else(|e| panic!("{path:?}: the answer is not JSON ({e})"));
    if r.status != 200 {
        assert!(v["errors"][0].is_string(), "{path:?}: {v}");
    }
    v
}

/// `query.advanced`: an expression that parses matches, through the
/// column index the API uses, exactly the records the record-by-record
/// matcher accepts; through the router it answers 200 (or a 400 for a
/// value out of range), with those records.
pub fn advanced(data: &[u8]) {
    let expr = String::from_utf8_lossy(data);
    let Ok(query) = advanced::parse(&expr) else {
        return;
    };
    let d = demo();
    let fast = d
        .engine
        .advanced_matches(&query)
        .expect("the demo has its records");
    let mut matcher = query.matcher();
    for (i, record) in d.records.iter().enumerate() {
        assert_eq!(
            fast.contains(i as u32),
            matcher.matches(record),
            "{expr:?}: the column index and the matcher disagree on {}",
            record.id
        );
    }
    let path = format!(
        "/v2/organizations?all_status&query.advanced={}",
        encode_component(&expr)
    );
    let v = answers_json(&path);
    if let Some(n) = v["number_of_results"].as_u64() {
        assert_eq!(n as usize, fast.iter().count(), "{path:?}");
    }
}

/// E4: at most one item is chosen and it comes first, scores lie in 0–1.
pub fn affiliation(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let answer = demo()
        .engine
        .affiliation(&text, &Filters::default(), Version::V2)
        .expect("the demo has its records");
    let items = &answer.items;
    assert_eq!(answer.number_of_results, items.len());
    let chosen = items.iter().filter(|m| m.chosen).count();
    assert!(chosen <= 1, "{text:?}: {chosen} chosen");
    assert!(chosen == 0 || items[0].chosen, "{text:?}: chosen not first");
    for m in items {
        assert!(
            (0.0..=1.0).contains(&m.score),
            "{text:?}: score {}",
            m.score
        );
    }
}
