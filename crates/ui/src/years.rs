//! The "Established" facet: the matches' established years as a histogram
//! with a range filter. The counts are the router's `histogram=established`
//! answer for the page's query without its own range (core
//! `search::years`), the drawing is `web/registry-years.js` (loaded on
//! demand through `registry-map.js`); the wasm only fetches and hands over.
//! The range lives in the URL as a filter, `established:[1900 TO 1950]`
//! (E3's range syntax), and reaches the router as `established=`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;

/// The URL filter key of the range (one value at most).
pub const KEY: &str = "established";

#[wasm_bindgen(raw_module = "../registry-map.js")]
extern "C" {
    #[wasm_bindgen(js_name = yearsFacet)]
    fn years_facet(
        root: &web_sys::HtmlElement,
        data: &str,
        selected: &str,
        pick: &js_sys::Function,
    ) -> js_sys::Promise;
}

/// The facet, redrawn whenever the results (`track`) or the selected
/// range change; picking a range calls `on_toggle((KEY, range))`, clearing
/// it `on_toggle((KEY, current))`: the page replaces a range by another.
#[component]
pub fn YearsFacet(
    /// The facet groups of the results: changes when the results do; empty
    /// until the first results are in (the counts need the whole registry,
    /// which must not delay the first answer).
    #[prop(into)]
    track: Signal<Vec<crate::facets::Group>>,
    /// The selected range as written in the URL, if any.
    #[prop(into)]
    selected: Signal<Option<String>>,
    /// The page's filter toggle.
    on_toggle: Callback<(String, String)>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    // The last histogram asked for: (request URL, answer), so that a new
    // range alone only redraws.
    let last = StoredValue::new(None::<(String, String)>);
    let seq = StoredValue::new(0u64);
    let pick = Closure::<dyn Fn(String)>::new(move |range: String| {
        let current = selected.get_untracked();
        match (range.is_empty(), current) {
            (true, Some(cur)) => on_toggle.run((KEY.to_string(), cur)),
            (true, None) => {}
            (false, cur) if cur.as_deref() == Some(range.as_str()) => {}
            (false, _) => on_toggle.run((KEY.to_string(), range)),
        }
    });
    let pick = StoredValue::new_local(pick);
    Effect::new(move |_| {
        if track.with(Vec::is_empty) {
            return;
        }
        let chosen = selected.get().unwrap_or_default();
        seq.update_value(|n| *n += 1);
        let mine = seq.get_value();
        let url = histogram_url();
        spawn_local(async move {
            let data = match last.get_value() {
                Some((u, body)) if u == url => body,
                _ => {
                    let body = counts(&url).await;
                    last.set_value(Some((url, body.clone())));
                    body
                }
            };
            if seq.get_value() != mine {
                return; // a newer state is on its way
            }
            if let Some(root) = node.get_untracked() {
                pick.with_value(|f| {
                    let _ = years_facet(&root, &data, &chosen, f.as_ref().unchecked_ref());
                });
            }
        });
    });
    view! {
        <fieldset class="facet years-facet" data-facet=KEY>
            <legend>"Established"</legend>
            <div class="years" node_ref=node><p class="loading">"Counting the years…"</p></div>
        </fieldset>
    }
}

/// The page's query, filters and status without its own range, asking
/// for the histogram.
fn histogram_url() -> String {
    let mut s = crate::url_state::current();
    s.filter.retain(|(k, _)| k != KEY);
    crate::search_page::list_url(&s, &s.api_filter(None), false, 1) + "&histogram=established"
}

/// `meta.established` as JSON text, or `{"error": …}`.
async fn counts(url: &str) -> String {
    let error = |m: String| serde_json::json!({ "error": m }).to_string();
    match crate::registry_client::request(url).await {
        Ok((status, body)) if status < 400 => {
            match serde_json::from_str::<serde_json::Value>(&body) {
                Ok(v) => v["meta"]["established"].to_string(),
                Err(e) => error(e.to_string()),
            }
        }
        Ok((status, _)) => error(format!("HTTP {status}")),
        Err(e) => error(e.to_string()),
    }
}
