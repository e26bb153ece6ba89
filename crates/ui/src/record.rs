//! Reading a v2 record's JSON as the pages show it — its display name,
//! places, acronyms, types and relationships — and the link to a record's
//! page. Below every page that shows records (the results list, the record
//! page, its family and map), so none of them imports another for these.

use leptos::prelude::*;
use serde_json::Value;

use crate::url_state::State;
use crate::{place, title_case};

/// The text of `v[k]`, when it is a non-empty string.
pub fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The array `v[k]`, or none.
pub fn arr<'a>(v: &'a Value, k: &str) -> &'a [Value] {
    v.get(k)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Whether a name has type `t`.
pub fn has_type(name: &Value, t: &str) -> bool {
    arr(name, "types").iter().any(|x| x.as_str() == Some(t))
}

/// Whether a name is the display name (either spelling of its type).
pub fn is_display(name: &Value) -> bool {
    has_type(name, "ror_display") || has_type(name, "registry_display")
}

/// The display name of a v2 record.
pub fn display_name(r: &Value) -> String {
    let names = arr(r, "names");
    names
        .iter()
        .find(|n| is_display(n))
        .or_else(|| names.first())
        .and_then(|n| s(n, "value"))
        .unwrap_or("(no name)")
        .to_string()
}

/// The place details of a location (`geonames_details` or `geo_details`).
pub fn geo(loc: &Value) -> &Value {
    loc.get("geonames_details")
        .or_else(|| loc.get("geo_details"))
        .unwrap_or(&Value::Null)
}

/// "City, Country" of the first location.
pub fn first_place(r: &Value) -> String {
    arr(r, "locations")
        .first()
        .map(|l| place(s(geo(l), "name"), s(geo(l), "country_name")))
        .unwrap_or_default()
}

/// The country name of the first location.
pub fn first_country(r: &Value) -> String {
    arr(r, "locations")
        .first()
        .and_then(|l| s(geo(l), "country_name"))
        .unwrap_or_default()
        .to_string()
}

/// Acronyms of a record.
pub fn acronyms(r: &Value) -> Vec<String> {
    arr(r, "names")
        .iter()
        .filter(|n| has_type(n, "acronym"))
        .filter_map(|n| s(n, "value"))
        .map(String::from)
        .collect()
}

/// Types as a readable list.
pub fn types(r: &Value) -> String {
    arr(r, "types")
        .iter()
        .filter_map(Value::as_str)
        .map(title_case)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Relationships of one type: (id, label).
pub fn relations(r: &Value, kind: &str) -> Vec<(String, String)> {
    arr(r, "relationships")
        .iter()
        .filter(|x| s(x, "type").is_some_and(|t| t.eq_ignore_ascii_case(kind)))
        .map(|x| {
            (
                s(x, "id").unwrap_or_default().to_string(),
                s(x, "label").unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// An `<a>` to a URL from the data, or plain text when it is not http(s).
pub fn ext_link(url: &str, text: &str) -> AnyView {
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        view! { <a href=url.to_string() rel="noopener noreferrer" target="_blank">{text.to_string()}</a> }.into_any()
    } else {
        text.to_string().into_any()
    }
}

/// A link to another record of this site.
pub fn record_link(id: &str, label: &str, go: Callback<State>) -> AnyView {
    let state = State::record(id);
    let href = state.href();
    let text = if label.is_empty() {
        id.to_string()
    } else {
        label.to_string()
    };
    view! {
        <a href=href on:click=move |ev: web_sys::MouseEvent| {
            if ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.button() != 0 { return; }
            ev.prevent_default();
            go.run(state.clone());
        }>{text}</a>
    }
    .into_any()
}
