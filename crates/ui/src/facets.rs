//! Facet sidebar: countries, types, statuses, continents, each a group of
//! checkboxes with live counts; several values of one facet widen the
//! result (OR), different facets narrow it (AND), like the API's `filter`.

use leptos::prelude::*;
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

/// The sidebar.
#[component]
pub fn Facets(
    /// The groups to show.
    #[prop(into)]
    groups: Signal<Vec<Group>>,
    /// Whether (key, value) is selected.
    selected: Callback<(String, String), bool>,
    /// Toggles (key, value).
    on_toggle: Callback<(String, String)>,
    /// Clears all selections.
    on_clear: Callback<()>,
    /// Whether anything is selected.
    #[prop(into)]
    any_selected: Signal<bool>,
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
    view! {
        <aside class="facets" aria-labelledby="facets-h">
            <div class="facets-head">
                <h2 id="facets-h">"Filters"</h2>
                <button type="button" class="link" on:click=move |_| on_clear.run(()) hidden=move || !any_selected.get()>
                    "Clear all filters"
                </button>
            </div>
            {move || {
                groups
                    .get()
                    .into_iter()
                    .map(|g| {
                        let key = g.key;
                        let hint = (key == "status").then_some(
                            view! { <p class="hint">"Without a status filter only active organizations are listed."</p> },
                        );
                        view! {
                            <fieldset class="facet" data-facet=key>
                                <legend>{g.title}</legend>
                                {hint}
                                <ul>
                                    {g
                                        .entries
                                        .into_iter()
                                        .map(|e| {
                                            let id = format!("f-{key}-{}", e.id);
                                            let pair = (key.to_string(), e.id.clone());
                                            let checked = selected.run(pair.clone());
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
                                                        <span class="count">{e.count}</span>
                                                    </label>
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                            </fieldset>
                        }
                    })
                    .collect_view()
            }}
        </aside>
    }
}
