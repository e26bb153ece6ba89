//! What the app reads of an API answer's `meta`: a facet's values with
//! their counts. Below the facet sidebar, its country map and the search
//! page, which all list them.

use serde_json::Value;

use crate::title_case;

/// One facet value.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Value id (as in the API's `meta`).
    pub id: String,
    /// Title.
    pub title: String,
    /// Count.
    pub count: u64,
}

/// Reads the entries of `meta[meta_key]`.
pub fn entries(meta: &Value, meta_key: &str) -> Vec<Entry> {
    meta.get(meta_key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|e| Entry {
                    id: e
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    title: e
                        .get("title")
                        .and_then(Value::as_str)
                        .map(title_case)
                        .unwrap_or_default(),
                    count: e.get("count").and_then(Value::as_u64).unwrap_or(0),
                })
                .collect()
        })
        .unwrap_or_default()
}
