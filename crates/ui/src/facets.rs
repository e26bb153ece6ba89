//! Facet sidebar: countries, types, statuses, continents, each a group of
//! checkboxes with live counts; several values of one facet widen the
//! result (OR), different facets narrow it (AND), like the API's `filter`.

use leptos::prelude::*;

use crate::meta::Entry;
use crate::url_state::ESTABLISHED;

/// One facet.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// URL facet key (`country`, `type`, `status`, `continent`).
    pub key: &'static str,
    /// Heading.
    pub title: &'static str,
    /// Values, most frequent first.
    pub entries: Vec<Entry>,
}

/// The entries of one facet as listed: the selected ones first, then the
/// others, most frequent first. Each facet lists at most the API's ten
/// entries, all in sight (no inner scroll box): a box just ticked moves to
/// the top and the rest stay visible below it.
fn listed(entries: Vec<Entry>, is_selected: impl Fn(&Entry) -> bool) -> Vec<(Entry, bool)> {
    let (mut on, off): (Vec<_>, Vec<_>) = entries
        .into_iter()
        .map(|e| {
            let sel = is_selected(&e);
            (e, sel)
        })
        .partition(|(_, sel)| *sel);
    on.extend(off);
    on
}

/// The filters: on a wide screen a sidebar; on a narrow one a "Filters"
/// button (the count of selected values on it) that shows or hides the same
/// panel, so the results come first. The selected values are listed as
/// removable chips above the results on every screen.
#[component]
pub fn Facets(
    /// The groups to show.
    #[prop(into)]
    groups: Signal<Vec<Group>>,
    /// What the years facet counts for the results on screen.
    #[prop(into)]
    years: Signal<crate::years::Counts>,
    /// The selected (facet key, value) pairs, in selection order.
    #[prop(into)]
    selection: Signal<Vec<(String, String)>>,
    /// Toggles (key, value).
    on_toggle: Callback<(String, String)>,
    /// Clears all selections.
    on_clear: Callback<()>,
    /// Whether the results are shown on the world map (`?view=map`): the
    /// country facet's map is then not drawn (one world map on the page).
    #[prop(into, optional)]
    results_map: Signal<bool>,
) -> impl IntoView {
    // The list is rebuilt when counts change: give focus back to the box
    // that was toggled, so keyboard users keep their place.
    let refocus = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        groups.track();
        if let Some(id) = refocus.get_value() {
            request_animation_frame(move || {
                if let Some(el) = document().get_element_by_id(&id) {
                    let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(el);
                    let _ = el.focus();
                }
            });
            refocus.set_value(None);
        }
    });
    // Narrow screens: the panel is shown on demand.
    let open = RwSignal::new(false);
    // The country facet as a world map, above the results (off at first,
    // so that a first paint never loads the map).
    let map_open = RwSignal::new(false);
    let country_entries = Signal::derive(move || {
        groups.with(|gs| {
            gs.iter()
                .find(|g| g.key == "country")
                .map(|g| g.entries.clone())
                .unwrap_or_default()
        })
    });
    let country_selected = Signal::derive(move || {
        selection.with(|s| {
            s.iter()
                .filter(|(k, _)| k == "country")
                .map(|(_, v)| v.clone())
                .collect::<Vec<_>>()
        })
    });
    let established = Signal::derive(move || {
        selection.with(|s| {
            s.iter()
                .find(|(k, _)| k == ESTABLISHED)
                .map(|(_, v)| v.clone())
        })
    });
    let any_selected = move || selection.with(|s| !s.is_empty());
    let title_of = move |key: &str, id: &str| -> (String, String) {
        groups.with(|gs| {
            let g = gs.iter().find(|g| g.key == key);
            if key == ESTABLISHED {
                return ("Established".to_string(), crate::years::range_label(id));
            }
            let facet = g.map_or_else(|| key.to_string(), |g| g.title.to_string());
            let value = g
                .and_then(|g| g.entries.iter().find(|e| e.id.eq_ignore_ascii_case(id)))
                .map_or_else(|| id.to_uppercase(), |e| e.title.clone());
            (facet, value)
        })
    };
    let chips = move || {
        selection
            .get()
            .into_iter()
            .map(|(key, id)| {
                let (facet, value) = title_of(&key, &id);
                let label = format!("Remove the filter {facet}: {value}");
                let pair = (key.clone(), id.clone());
                view! {
                    <li class="chip" data-facet=key.clone() data-value=id.clone()>
                        <button type="button" aria-label=label.clone() title=label
                            on:click=move |_| on_toggle.run(pair.clone())>
                            <span class="chip-facet">{format!("{facet}: ")}</span>{value}<span aria-hidden="true">" ×"</span>
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    let count_label = move || {
        let n = selection.with(Vec::len);
        if n == 0 {
            "Filters".to_string()
        } else {
            format!("Filters ({n} selected)")
        }
    };
    view! {
        <div class="filter-bar">
            <button type="button" class="facets-toggle" aria-controls="facets-panel"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>{count_label}</button>
            <ul class="chips" aria-label="Selected filters" hidden=move || !any_selected()>{chips}</ul>
            <button type="button" class="link clear-filters" on:click=move |_| on_clear.run(()) hidden=move || !any_selected()>
                "Clear all filters"
            </button>
            {move || (map_open.get() && !results_map.get()).then(|| view! { <crate::map::CountryMap entries=country_entries selected=country_selected /> })}
        </div>
        <aside id="facets-panel" class="facets" aria-labelledby="facets-h" data-open=move || open.get().to_string()>
            <div class="facets-head">
                <h2 id="facets-h">"Filters"</h2>
            </div>
            {move || {
                groups
                    .get()
                    .into_iter()
                    .map(|g| group_view(g, selection, refocus, on_toggle, results_map, map_open))
                    .collect_view()
            }}
            <crate::years::YearsFacet counts=years selected=established on_toggle=on_toggle />
            <button type="button" class="facets-done" on:click=move |_| {
                open.set(false);
                if let Some(el) = document().query_selector(".facets-toggle").ok().flatten() {
                    let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(el);
                    let _ = el.focus();
                }
            }>"Show the results"</button>
        </aside>
    }
}

/// One facet's fieldset: its values as checkboxes with their counts (the
/// selected first), the status facet's hint, the country facet's map
/// toggle. A toggled box gets the focus back once the list is rebuilt
/// (`refocus`).
fn group_view(
    g: Group,
    selection: Signal<Vec<(String, String)>>,
    refocus: StoredValue<Option<String>>,
    on_toggle: Callback<(String, String)>,
    results_map: Signal<bool>,
    map_open: RwSignal<bool>,
) -> impl IntoView {
    let key = g.key;
    let is_selected =
        |id: &str| selection.with_untracked(|s| s.iter().any(|(k, v)| k == key && v == id));
    let hint = (key == "status").then_some(
        view! { <p class="hint">"Without a status filter only active organizations are listed."</p> },
    );
    let map_toggle = (key == "country").then(|| {
        view! {
            <button type="button" class="link map-toggle" aria-controls="country-map"
                hidden=move || results_map.get()
                aria-expanded=move || map_open.get().to_string()
                on:click=move |_| map_open.update(|o| *o = !*o)>
                {move || if map_open.get() { "Hide the world map" } else { "Show on a world map" }}
            </button>
        }
    });
    let rows = listed(g.entries, |e| is_selected(&e.id))
        .into_iter()
        .map(|(e, checked)| {
            let id = format!("f-{key}-{}", e.id);
            let pair = (key.to_string(), e.id.clone());
            view! {
                <li>
                    <input type="checkbox" id=id.clone() value=e.id.clone() prop:checked=checked
                        on:change={
                            let id = id.clone();
                            move |_| {
                                refocus.set_value(Some(id.clone()));
                                on_toggle.run(pair.clone())
                            }
                        } />
                    <label for=id>
                        <span class="facet-title">{e.title}</span>
                        " "
                        <span class="count">{crate::grouped(e.count)}</span>
                    </label>
                </li>
            }
        })
        .collect_view();
    view! {
        <fieldset class="facet" data-facet=key>
            <legend>{g.title}</legend>
            {hint}
            {map_toggle}
            <ul>{rows}</ul>
        </fieldset>
    }
}
