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

use crate::url_state::{ESTABLISHED, State};

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

/// A range as people read it (`1900–1950`, `from 1900`, `until 1950`,
/// `1900`), for its chip; a value in another form is shown as it is.
pub fn range_label(range: &str) -> String {
    let Some((from, to)) = range
        .trim()
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.split_once(" TO "))
    else {
        return range.to_string();
    };
    match (from.trim(), to.trim()) {
        ("*", "*") => "any year".to_string(),
        ("*", to) => format!("until {to}"),
        (from, "*") => format!("from {from}"),
        (from, to) if from == to => from.to_string(),
        (from, to) => format!("{from}\u{2013}{to}"),
    }
}

/// What the facet shows for the results on screen.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Counts {
    /// No results yet: "Counting the years…" stays.
    #[default]
    Waiting,
    /// The results are an error (a bad advanced query, no answer): there
    /// are no matches to count, and the facet is hidden.
    Nothing,
    /// Counted for the state the results answer.
    Of {
        /// Its histogram request.
        url: String,
        /// Its range ("" for none).
        selected: String,
    },
}

impl Counts {
    /// The counts for the results of `s`: its query, filters and mode
    /// without its own range, asking for the histogram. Made from the
    /// state the results were asked for, not from the address bar, which
    /// follows typing only after a pause.
    pub fn of(s: &State) -> Counts {
        let mut t = s.clone();
        t.filter.retain(|(k, _)| k != ESTABLISHED);
        Counts::Of {
            url: t.list_url(&t.api_filter(None), false, 1) + "&histogram=established",
            selected: s.established().unwrap_or_default().to_string(),
        }
    }
}

/// The facet, redrawn whenever the results on screen change (`counts`,
/// notified on every new answer, even one equal to the last: a results
/// link's early page is shown before the registry is open, and the app's
/// own answer for it is the same); picking a range calls
/// `on_toggle((ESTABLISHED, range))`, clearing it `on_toggle((ESTABLISHED, current))`:
/// the page replaces a range by another.
#[component]
pub fn YearsFacet(
    /// What the results on screen count.
    #[prop(into)]
    counts: Signal<Counts>,
    /// The selected range as written in the URL, if any (what a pick
    /// toggles; the bars show the range of the results on screen).
    #[prop(into)]
    selected: Signal<Option<String>>,
    /// The page's filter toggle.
    on_toggle: Callback<(String, String)>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let pick = Closure::<dyn Fn(String)>::new(move |range: String| {
        let current = selected.get_untracked();
        match (range.is_empty(), current) {
            (true, Some(cur)) => on_toggle.run((ESTABLISHED.to_string(), cur)),
            (true, None) => {}
            (false, cur) if cur.as_deref() == Some(range.as_str()) => {}
            (false, _) => on_toggle.run((ESTABLISHED.to_string(), range)),
        }
    });
    let pick = StoredValue::new_local(pick);
    Effect::new(move |_| {
        // An empty URL clears the facet and cancels a drawing still on its way.
        let (url, chosen) = match counts.get() {
            Counts::Waiting => return,
            Counts::Nothing => (String::new(), String::new()),
            Counts::Of { url, selected } => (url, selected),
        };
        // Without a client (an early page) nothing is asked: the app's own
        // answer, once the registry is open, runs this again.
        if let (Some(root), Some(client)) = (node.get_untracked(), crate::registry_client::client())
        {
            // The promise settles once drawn; a failure is shown in the facet.
            pick.with_value(|f| {
                let _ = years_facet(&root, &client, &url, &chosen, f.as_ref().unchecked_ref());
            });
        }
    });
    view! {
        <fieldset class="facet years-facet" data-facet=ESTABLISHED
            hidden=move || counts.with(|c| *c == Counts::Nothing)>
            <legend>"Established"</legend>
            <div class="years" node_ref=node><p class="loading">"Counting the years…"</p></div>
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::range_label;

    #[test]
    fn ranges_read_as_years() {
        assert_eq!(range_label("[1900 TO 1950]"), "1900\u{2013}1950");
        assert_eq!(range_label("[1900 TO *]"), "from 1900");
        assert_eq!(range_label("[* TO 1950]"), "until 1950");
        assert_eq!(range_label("[1900 TO 1900]"), "1900");
        assert_eq!(range_label("[* TO *]"), "any year");
        assert_eq!(range_label("1900"), "1900");
    }
}
