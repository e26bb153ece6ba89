//! The record page's map and the country facet as a world map. The drawing and the map data live in JS
//! (`web/registry-map.js`, `world-map.json`): the wasm only hands over the
//! record's places, so a first paint carries none of the map.

use leptos::prelude::*;
use leptos::task::spawn_local;
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
            let g = crate::record::geo(l);
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

/// The country facet as a world map (shown on demand, beside the list),
/// shaded by every country's count over all matches (`facet_size=all`; the
/// list shows the ten largest): redrawn whenever the results or the
/// selection change. Picking a country ticks its checkbox in the list, so
/// the URL changes as with the list.
#[component]
pub fn CountryMap(
    /// The country facet's entries as listed (the map's fallback when the
    /// registry cannot count every country).
    #[prop(into)]
    entries: Signal<Vec<crate::meta::Entry>>,
    /// The selected country codes.
    #[prop(into)]
    selected: Signal<Vec<String>>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Figure>::new();
    let seq = StoredValue::new(0u64);
    Effect::new(move |_| {
        let listed = entries.get();
        let selected = selected.get();
        seq.update_value(|n| *n += 1);
        let mine = seq.get_value();
        spawn_local(async move {
            let (all, complete) = match every_country().await {
                Some(all) => (all, true),
                None => (listed, false),
            };
            // A newer answer is on its way: this one is stale.
            if seq.get_value() != mine {
                return;
            }
            let data = json!({
                "entries": all.iter().map(|e| json!({"id": e.id, "title": e.title, "count": e.count})).collect::<Vec<_>>(),
                "selected": selected,
                "complete": complete,
            });
            if let Some(figure) = node.get_untracked() {
                // The promise settles once drawn; a failure is shown in the figure.
                let _ = facet_map(&figure, &data.to_string());
            }
        });
    });
    view! {
        <figure id="country-map" class="country-map" node_ref=node>
            <p class="loading">"Loading the map…"</p>
        </figure>
    }
}

/// Every country's count for the page's query, its own country selection
/// left out (as the list counts), or `None` when the registry cannot say.
async fn every_country() -> Option<Vec<crate::meta::Entry>> {
    let s = crate::url_state::current();
    let url = s.list_url(&s.api_filter(Some("country")), false, 1) + "&facet_size=all";
    let (status, body) = crate::registry_client::request(&url).await.ok()?;
    if status >= 400 {
        return None;
    }
    let v: Value = serde_json::from_str(&body).ok()?;
    Some(crate::meta::entries(v.get("meta")?, "countries"))
}
