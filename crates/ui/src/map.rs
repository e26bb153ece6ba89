//! The record page's map and the country facet as a world map. The drawing and the map data live in JS
//! (`web/registry-map.js`, `world-map.json`): the wasm only hands over the
//! record's places, so a first paint carries none of the map.

use leptos::prelude::*;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(raw_module = "../registry-map.js")]
extern "C" {
    #[wasm_bindgen(js_name = recordMap)]
    fn record_map(figure: &web_sys::HtmlElement, places: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = facetMap)]
    fn facet_map(figure: &web_sys::HtmlElement, data: &str) -> js_sys::Promise;
}

/// The places of a v2 record's locations that have coordinates, as the JSON
/// `recordMap` takes.
pub fn places(locations: &[Value]) -> Vec<Value> {
    locations
        .iter()
        .filter_map(|l| {
            let g = crate::record_view::geo(l);
            let lat = g.get("lat").and_then(Value::as_f64)?;
            let lng = g.get("lng").and_then(Value::as_f64)?;
            Some(json!({
                "lat": lat,
                "lng": lng,
                "city": g.get("name").and_then(Value::as_str),
                "country_code": g.get("country_code").and_then(Value::as_str),
                "country_name": g.get("country_name").and_then(Value::as_str),
            }))
        })
        .collect()
}

/// A figure the map is drawn into once it is on the page; nothing when no
/// location has coordinates.
#[component]
pub fn RecordMap(
    /// What [`places`] returned for the record.
    places: Vec<Value>,
) -> impl IntoView {
    if places.is_empty() {
        return None;
    }
    let node = NodeRef::<leptos::html::Figure>::new();
    let data = Value::Array(places).to_string();
    Effect::new(move |_| {
        if let Some(figure) = node.get() {
            // The promise settles once drawn; a failure is shown in the figure.
            let _ = record_map(&figure, &data);
        }
    });
    Some(
        view! { <figure class="record-map" node_ref=node><p class="loading">"Loading the map…"</p></figure> },
    )
}

/// The country facet as a world map (shown on demand, beside the list):
/// redrawn whenever the counts or the selection change. Picking a country
/// ticks its checkbox in the list, so the URL changes as with the list.
#[component]
pub fn CountryMap(
    /// The country facet's entries.
    #[prop(into)]
    entries: Signal<Vec<crate::facets::Entry>>,
    /// The selected country codes.
    #[prop(into)]
    selected: Signal<Vec<String>>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Figure>::new();
    Effect::new(move |_| {
        let data = json!({
            "entries": entries.get().iter().map(|e| json!({"id": e.id, "title": e.title, "count": e.count})).collect::<Vec<_>>(),
            "selected": selected.get(),
        });
        if let Some(figure) = node.get() {
            // The promise settles once drawn; a failure is shown in the figure.
            let _ = facet_map(&figure, &data.to_string());
        }
    });
    view! {
        <figure id="country-map" class="country-map" node_ref=node>
            <p class="loading">"Loading the map…"</p>
        </figure>
    }
}
