//! The "Established" facet: the matches' established years as a histogram
//! with a range filter. The counts are the router's `histogram=established`
//! answer for the page's query without its own range (core
//! `search::years`); asking, drawing and redrawing are
//! `web/registry-years.js` (loaded on demand through `registry-map.js`):
//! the wasm hands over the request's URL and the selected range.
//! The range lives in the URL as a filter, `established:[1900 TO 1950]`
//! (E3's range syntax), and reaches the router as `established=`.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// The URL filter key of the range (one value at most).
pub const KEY: &str = "established";

#[wasm_bindgen(raw_module = "../registry-map.js")]
extern "C" {
    #[wasm_bindgen(js_name = yearsFacet)]
    fn years_facet(
        root: &web_sys::HtmlElement,
        client: &JsValue,
        url: &str,
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
        if let (Some(root), Some(client)) = (node.get_untracked(), crate::registry_client::client())
        {
            // The promise settles once drawn; a failure is shown in the facet.
            pick.with_value(|f| {
                let _ = years_facet(
                    &root,
                    &client,
                    &histogram_url(),
                    &chosen,
                    f.as_ref().unchecked_ref(),
                );
            });
        }
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
