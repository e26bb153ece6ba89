//! The results as dots on the world map (`?view=map`): the wasm hands the
//! page's query with `places=all` (core `search::places`: every located
//! place of every match) to `resultsMap` (`web/registry-dots.js`, loaded
//! on demand through `registry-map.js`), which asks the registry, draws
//! and clusters: the answer (up to megabytes) never crosses the wasm.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::url_state::State;

#[wasm_bindgen(raw_module = "../registry-map.js")]
extern "C" {
    #[wasm_bindgen(js_name = resultsMap)]
    fn results_map(figure: &web_sys::HtmlElement, client: &JsValue, url: &str) -> js_sys::Promise;
}

/// "Show the results as: List | Map", two toggle buttons; the choice is
/// the URL's `view`, so a link keeps it.
#[component]
pub fn ViewToggle(
    /// The page state.
    state: State,
    /// Navigates to a state.
    go: Callback<State>,
) -> impl IntoView {
    let button = move |map: bool, text: &'static str| {
        let mut to = state.clone();
        to.map = map;
        to.page = 1;
        let pressed = state.map == map;
        view! {
            <button type="button" class="view-button" aria-pressed=pressed.to_string()
                data-view=if map { "map" } else { "list" }
                on:click=move |_| if !pressed { go.run(to.clone()) }>{text}</button>
        }
    };
    view! {
        <div class="view-toggle" role="group" aria-label="Show the results as">
            {button(false, "List")}{button(true, "Map")}
        </div>
    }
}

/// The map of the results of `state` (every match, not only a page).
#[component]
pub fn ResultsMap(
    /// The page state whose matches are drawn.
    state: State,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Figure>::new();
    let url = state.list_url(&state.api_filter(None), false, 1) + "&places=all";
    Effect::new(move |_| {
        if let (Some(figure), Some(client)) = (node.get(), crate::registry_client::client()) {
            // The promise settles once drawn; a failure is shown in the figure.
            let _ = results_map(&figure, &client, &url);
        }
    });
    view! {
        <figure id="results-map" class="results-map" node_ref=node>
            <p class="loading" role="status">"Placing the results on the map…"</p>
        </figure>
    }
}
