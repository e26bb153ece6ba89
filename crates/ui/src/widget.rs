//! The form widget: `web/registry-picker.js` defines `<registry-picker>`
//! and calls [`mount_picker`] to render, in the element's light DOM, a
//! label, the combobox's native `<input name>` (the display name or free
//! text) and a hidden input carrying the picked id URL.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use crate::combobox::Combobox;
use crate::registry_client::SuggestContext;
use crate::{Pick, Strings};

fn get(o: &JsValue, k: &str) -> Option<String> {
    js_sys::Reflect::get(o, &k.into())
        .ok()
        .and_then(|v| v.as_string())
        .filter(|s| !s.is_empty())
}

fn get_bool(o: &JsValue, k: &str) -> bool {
    js_sys::Reflect::get(o, &k.into())
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Uses the registry client opened by the widget script.
#[wasm_bindgen(js_name = setClient)]
pub fn set_client(client: JsValue) {
    crate::registry_client::set_client(client);
}

fn get_fn(o: &JsValue, k: &str) -> Option<js_sys::Function> {
    js_sys::Reflect::get(o, &k.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
}

/// Mounts a picker into `host`. `options`: `{uid, name, idName, label,
/// placeholder, value, idValue, filters: [..], strings: {..}, required,
/// allowInactive, autocomplete, onChange(detail), context() → {preferCountries,
/// preferTypes, emailDomain, remembered, lang}, onForget(), multiple}`.
/// With `multiple`, each pick (or text kept with Enter) joins a list of
/// removable entries, submitted as repeated `name` / `idName` pairs (an
/// empty id for text kept as typed); the input itself is not submitted.
/// Returns
/// `{reset(value, idValue), restore(values)}`: `reset` sets the text and the
/// picked id without a change event (what a form's `reset()` does to its
/// fields); `restore` sets a `multiple` picker's list (`[{id, name}]`), also
/// without one (the page shown again from history).
#[wasm_bindgen(js_name = mountPicker)]
pub fn mount_picker(host: web_sys::HtmlElement, options: JsValue) -> JsValue {
    let uid = get(&options, "uid").unwrap_or_else(|| "registry-picker".into());
    let name = get(&options, "name").unwrap_or_else(|| "organization".into());
    let id_name = get(&options, "idName").unwrap_or_else(|| format!("{name}_id"));
    let label = get(&options, "label").unwrap_or_else(|| "Organization".into());
    let placeholder = get(&options, "placeholder").unwrap_or_default();
    let autocomplete = get(&options, "autocomplete").unwrap_or_else(|| "organization".into());
    let initial = get(&options, "value").unwrap_or_default();
    let initial_id = get(&options, "idValue").unwrap_or_default();
    let required = get_bool(&options, "required");
    let allow_inactive = get_bool(&options, "allowInactive");
    let multiple = get_bool(&options, "multiple");
    let filters: Vec<String> = js_sys::Reflect::get(&options, &"filters".into())
        .ok()
        .map(|v| {
            js_sys::Array::from(&v)
                .iter()
                .filter_map(|x| x.as_string())
                .collect()
        })
        .unwrap_or_default();
    let strings: Strings = js_sys::Reflect::get(&options, &"strings".into())
        .ok()
        .filter(|v| v.is_object())
        .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
        .unwrap_or_default();
    let on_change = StoredValue::new_local(get_fn(&options, "onChange"));
    // Asked at every query: the page's e-mail field and this browser's
    // remembered picks can change after mounting.
    let context_fn = get_fn(&options, "context").map(StoredValue::new_local);
    let on_forget = StoredValue::new_local(get_fn(&options, "onForget"));
    // The picker's state lives outside the view, so that `reset` can reach it.
    let text = RwSignal::new(initial.clone());
    let picked = RwSignal::new((!initial_id.is_empty()).then(|| Pick {
        id: initial_id.clone(),
        name: initial.clone(),
        ..Pick::default()
    }));
    // The last value reported by a change event, to report only changes.
    let reported = StoredValue::new((initial_id.clone(), initial.clone()));
    // `multiple`: the picked entries, in order.
    let picks = RwSignal::new(Vec::<Pick>::new());
    let reset = Closure::<dyn Fn(String, String)>::new(move |value: String, id: String| {
        picks.set(Vec::new());
        reported.set_value((id.clone(), value.clone()));
        picked.set((!id.is_empty()).then(|| Pick {
            id,
            name: value.clone(),
            ..Pick::default()
        }));
        text.set(value);
    });
    let api = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&api, &"reset".into(), reset.as_ref());
    reset.forget(); // lives as long as the page: pickers are not unmounted
    // `multiple`: the list as it was (`[{id, name}]`, an empty or null id for
    // text kept as typed), without a change event: what the browser restores
    // when the page is shown again from history.
    let restore = Closure::<dyn Fn(JsValue)>::new(move |values: JsValue| {
        if !js_sys::Array::is_array(&values) {
            return;
        }
        let list: Vec<Pick> = js_sys::Array::from(&values)
            .iter()
            .filter_map(|v| {
                let name = js_sys::Reflect::get(&v, &"name".into()).ok()?.as_string()?;
                let id = js_sys::Reflect::get(&v, &"id".into())
                    .ok()
                    .and_then(|x| x.as_string())
                    .unwrap_or_default();
                Some(Pick {
                    id,
                    name,
                    ..Pick::default()
                })
            })
            .collect();
        picks.set(list);
        text.set(String::new());
    });
    let _ = js_sys::Reflect::set(&api, &"restore".into(), restore.as_ref());
    restore.forget();

    let handle = leptos::mount::mount_to(host, move || {
        let emit = move |p: Option<Pick>, text: String| {
            let key = (
                p.as_ref().map(|p| p.id.clone()).unwrap_or_default(),
                text.clone(),
            );
            if reported.get_value() == key {
                return;
            }
            reported.set_value(key);
            let d = js_sys::Object::new();
            let set = |k: &str, v: JsValue| {
                let _ = js_sys::Reflect::set(&d, &k.into(), &v);
            };
            let free = p.is_none() && !text.trim().is_empty();
            match &p {
                Some(p) => {
                    set("id", p.id.as_str().into());
                    set("name", p.name.as_str().into());
                    set(
                        "country",
                        p.country.as_deref().map_or(JsValue::NULL, JsValue::from),
                    );
                    set("status", p.status.as_str().into());
                }
                None => {
                    set("id", JsValue::NULL);
                    set("name", text.as_str().into());
                    set("country", JsValue::NULL);
                    set("status", JsValue::NULL);
                }
            }
            set("freeText", free.into());
            on_change.with_value(|f| {
                if let Some(f) = f {
                    let _ = f.call1(&JsValue::NULL, &d);
                }
            });
        };
        // `multiple`: the list as the change event's `values`.
        let emit_list = move || {
            let values = js_sys::Array::new();
            picks.with_untracked(|ps| {
                for p in ps {
                    let o = js_sys::Object::new();
                    let _ = js_sys::Reflect::set(
                        &o,
                        &"id".into(),
                        &(if p.id.is_empty() {
                            JsValue::NULL
                        } else {
                            p.id.as_str().into()
                        }),
                    );
                    let _ = js_sys::Reflect::set(&o, &"name".into(), &p.name.as_str().into());
                    let _ = js_sys::Reflect::set(&o, &"freeText".into(), &p.id.is_empty().into());
                    values.push(&o);
                }
            });
            let d = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&d, &"values".into(), &values);
            on_change.with_value(|f| {
                if let Some(f) = f {
                    let _ = f.call1(&JsValue::NULL, &d);
                }
            });
        };
        let add = move |p: Pick| {
            let added = picks.try_update(|ps| {
                let dup = ps.iter().any(|q| {
                    if p.id.is_empty() {
                        q.id.is_empty() && q.name == p.name
                    } else {
                        q.id == p.id
                    }
                });
                if !dup {
                    ps.push(p.clone());
                }
                !dup
            });
            text.set(String::new());
            if added == Some(true) {
                emit_list();
            }
        };
        let on_pick = Callback::new(move |p: Pick| {
            if multiple {
                return add(p);
            }
            picked.set(Some(p.clone()));
            emit(Some(p.clone()), p.name);
        });
        // `multiple`: Enter keeps the text as an entry of its own. Else the
        // text as typed is the value (told before the form's submit event).
        let on_enter = Callback::new(move |t: String| {
            let t = t.trim().to_string();
            if multiple && !t.is_empty() {
                add(Pick {
                    name: t,
                    ..Pick::default()
                });
            } else if !multiple && picked.with_untracked(Option::is_none) {
                emit(None, text.get_untracked());
            }
        });
        // Enter submits the form as in a plain field, except for a text that
        // `multiple` keeps as an entry.
        let enter_to_form = Callback::new(move |t: String| !multiple || t.trim().is_empty());
        let removed = RwSignal::new(String::new());
        let removed_msg = strings.removed.clone();
        let remove_uid = uid.clone();
        let remove = Callback::new(move |i: usize| {
            let gone = picks
                .try_update(|ps| (i < ps.len()).then(|| ps.remove(i)))
                .flatten();
            if let Some(p) = gone {
                removed.set(removed_msg.replace("{name}", &p.name));
                emit_list();
            }
            if let Some(input) = crate::combobox::input_of(&remove_uid) {
                let _ = input.focus();
            }
        });
        let on_edit = Callback::new(move |_: String| picked.set(None));
        let on_blur = Callback::new(move |_| {
            if !multiple && picked.with_untracked(Option::is_none) {
                emit(None, text.get_untracked());
            }
        });
        let filters = Signal::derive(move || filters.clone());
        let context = Callback::new(move |_: ()| -> SuggestContext {
            context_fn
                .and_then(|f| f.with_value(|f| f.call0(&JsValue::NULL).ok()))
                .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
                .unwrap_or_default()
        });
        let remembered_shown = RwSignal::new(false);
        let refresh = Trigger::new();
        let forgotten = RwSignal::new(String::new());
        let forget_uid = uid.clone();
        let forgotten_msg = strings.forgotten.clone();
        let forget = move |_| {
            on_forget.with_value(|f| {
                if let Some(f) = f {
                    let _ = f.call0(&JsValue::NULL);
                }
            });
            remembered_shown.set(false);
            forgotten.set(forgotten_msg.clone());
            // The button hides: focus goes back to the input, whose
            // suggestions are asked for again without the forgotten picks.
            if let Some(i) = crate::combobox::input_of(&forget_uid) {
                let _ = i.focus();
            }
            refresh.notify();
        };
        let forget_label = strings.forget.clone();
        let note_id = format!("{uid}-note");
        let st = strings.clone();
        let note = move || match (picked.get(), text.with(|t| t.trim().is_empty())) {
            (Some(_), _) => Some(st.picked.clone()),
            (None, false) => Some(st.free_text.clone()),
            (None, true) => None,
        };
        let state = move || match (
            picked.with(Option::is_some),
            text.with(|t| t.trim().is_empty()),
        ) {
            (true, _) => "picked",
            (false, false) => "free-text",
            _ => "empty",
        };
        let clear_label = strings.clear.clone();
        let input_uid = uid.clone();
        // `multiple`: the list of entries, each with its submitted pair.
        let list_label = strings.picked_list.clone();
        let remove_label = strings.remove.clone();
        let free_item = strings.free_text_item.clone();
        let (list_name, list_id_name) = (name.clone(), id_name.clone());
        let entries = move || {
            picks
                .get()
                .into_iter()
                .enumerate()
                .map(|(i, p)| {
                    let label = remove_label.replace("{name}", &p.name);
                    let free = p.id.is_empty().then(|| view! { <span class="rp-free">{format!(" ({})", free_item)}</span> });
                    view! {
                        <li class="rp-item">
                            <span class="rp-item-name">{p.name.clone()}</span>{free}
                            <button type="button" class="rp-remove" aria-label=label.clone() title=label on:click=move |_| remove.run(i)>"×"</button>
                            <input type="hidden" name=list_name.clone() value=p.name.clone() />
                            <input type="hidden" name=list_id_name.clone() value=p.id.clone() />
                        </li>
                    }
                })
                .collect::<Vec<_>>()
        };
        let list = multiple.then(|| {
            view! {
                <ul class="rp-list" aria-label=list_label.clone() hidden=move || picks.with(Vec::is_empty)>{entries}</ul>
                <p class="visually-hidden" role="status">{move || removed.get()}</p>
            }
        });
        let single = (!multiple).then(|| {
            view! {
                <input type="hidden" name=id_name.clone() prop:value=move || picked.with(|p| p.as_ref().map(|p| p.id.clone()).unwrap_or_default()) />
                <p id=note_id.clone() class="rp-note" data-state=state>{note}</p>
            }
        });
        // Over the input's end, centred on it (not on the label above it).
        let clear: Children = Box::new(move || {
            (!multiple).then(move || {
                view! {
                    <button type="button" class="rp-clear" aria-label=clear_label.clone() title=clear_label hidden=move || text.with(String::is_empty)
                        on:click=move |_| {
                            text.set(String::new());
                            picked.set(None);
                            emit(None, String::new());
                            if let Some(i) = crate::combobox::input_of(&input_uid) { let _ = i.focus(); }
                        }>"×"</button>
                }
            })
            .into_any()
        });
        // In `multiple` mode the input only searches: the list is submitted.
        let input_name = if multiple {
            String::new()
        } else {
            name.clone()
        }; // an empty name is not submitted
        view! {
            <div class="rp" data-state=state data-multiple=multiple.then_some("")>
                <Combobox id=uid.clone() label=label.clone() text=text filters=filters on_pick=on_pick on_enter=on_enter enter_to_form=enter_to_form on_edit=on_edit on_blur=on_blur
                    disable_inactive=!allow_inactive name=input_name autocomplete=autocomplete.clone() placeholder=placeholder.clone()
                    describedby=note_id.clone() required=required && !multiple strings=strings.clone()
                    context=context on_remembered_shown=Callback::new(move |b| remembered_shown.set(b)) refresh=refresh field_end=clear>
                    <button type="button" class="rp-forget" hidden=move || !remembered_shown.get()
                        on:mousedown=|e| e.prevent_default() on:click=forget>{forget_label.clone()}</button>
                </Combobox>
                {list}
                {single}
                <p class="visually-hidden" role="status">{move || forgotten.get()}</p>
            </div>
        }
    });
    handle.forget();
    api.into()
}
