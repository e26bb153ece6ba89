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

/// What a page's `options` say of a picker, defaults filled in.
struct Options {
    uid: String,
    name: String,
    id_name: String,
    label: String,
    placeholder: String,
    autocomplete: String,
    initial: String,
    initial_id: String,
    required: bool,
    allow_inactive: bool,
    multiple: bool,
    filters: Vec<String>,
    strings: Strings,
}

impl Options {
    fn read(options: &JsValue) -> Options {
        let name = get(options, "name").unwrap_or_else(|| "organization".into());
        Options {
            uid: get(options, "uid").unwrap_or_else(|| "registry-picker".into()),
            id_name: get(options, "idName").unwrap_or_else(|| format!("{name}_id")),
            name,
            label: get(options, "label").unwrap_or_else(|| "Organization".into()),
            placeholder: get(options, "placeholder").unwrap_or_default(),
            autocomplete: get(options, "autocomplete").unwrap_or_else(|| "organization".into()),
            initial: get(options, "value").unwrap_or_default(),
            initial_id: get(options, "idValue").unwrap_or_default(),
            required: get_bool(options, "required"),
            allow_inactive: get_bool(options, "allowInactive"),
            multiple: get_bool(options, "multiple"),
            filters: js_sys::Reflect::get(options, &"filters".into())
                .ok()
                .map(|v| {
                    js_sys::Array::from(&v)
                        .iter()
                        .filter_map(|x| x.as_string())
                        .collect()
                })
                .unwrap_or_default(),
            strings: js_sys::Reflect::get(options, &"strings".into())
                .ok()
                .filter(|v| v.is_object())
                .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
                .unwrap_or_default(),
        }
    }
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
    let o = Options::read(&options);
    // The picker's state lives outside the view, so that `reset` can reach it.
    let picker = Picker::new(&o, get_fn(&options, "onChange"));
    // Asked at every query: the page's e-mail field and this browser's
    // remembered picks can change after mounting.
    let context_fn = get_fn(&options, "context").map(StoredValue::new_local);
    let on_forget = StoredValue::new_local(get_fn(&options, "onForget"));
    let api = picker.api();
    let handle =
        leptos::mount::mount_to(host, move || picker_view(picker, o, context_fn, on_forget));
    handle.forget();
    api
}

/// One picker's state, all handles, so a copy is the same picker; its
/// methods are what a pick, an entry or a reset change, and what the page
/// is told.
#[derive(Clone, Copy)]
struct Picker {
    /// The input's text.
    text: RwSignal<String>,
    /// The record picked (single mode).
    picked: RwSignal<Option<Pick>>,
    /// The last value reported by a change event, to report only changes.
    reported: StoredValue<(String, String)>,
    /// `multiple`: the picked entries, in order.
    picks: RwSignal<Vec<Pick>>,
    /// The page's `onChange`.
    on_change: StoredValue<Option<js_sys::Function>, LocalStorage>,
    multiple: bool,
}

impl Picker {
    fn new(o: &Options, on_change: Option<js_sys::Function>) -> Picker {
        Picker {
            text: RwSignal::new(o.initial.clone()),
            picked: RwSignal::new((!o.initial_id.is_empty()).then(|| Pick {
                id: o.initial_id.clone(),
                name: o.initial.clone(),
                ..Pick::default()
            })),
            reported: StoredValue::new((o.initial_id.clone(), o.initial.clone())),
            picks: RwSignal::new(Vec::new()),
            on_change: StoredValue::new_local(on_change),
            multiple: o.multiple,
        }
    }

    /// `{reset, restore}` for the page (see [`mount_picker`]); they live as
    /// long as the page: pickers are not unmounted.
    fn api(self) -> JsValue {
        let reset = Closure::<dyn Fn(String, String)>::new(move |value: String, id: String| {
            self.reset(value, id)
        });
        let api = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&api, &"reset".into(), reset.as_ref());
        reset.forget();
        let restore = Closure::<dyn Fn(JsValue)>::new(move |values: JsValue| self.restore(values));
        let _ = js_sys::Reflect::set(&api, &"restore".into(), restore.as_ref());
        restore.forget();
        api.into()
    }

    /// Sets the text and the picked id without a change event.
    fn reset(self, value: String, id: String) {
        self.picks.set(Vec::new());
        self.reported.set_value((id.clone(), value.clone()));
        self.picked.set((!id.is_empty()).then(|| Pick {
            id,
            name: value.clone(),
            ..Pick::default()
        }));
        self.text.set(value);
    }

    /// `multiple`: the list as it was (`[{id, name}]`, an empty or null id for
    /// text kept as typed), without a change event: what the browser restores
    /// when the page is shown again from history.
    fn restore(self, values: JsValue) {
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
        self.picks.set(list);
        self.text.set(String::new());
    }

    /// Calls the page's `onChange` with `detail`.
    fn tell(self, detail: &js_sys::Object) {
        self.on_change.with_value(|f| {
            if let Some(f) = f {
                let _ = f.call1(&JsValue::NULL, detail);
            }
        });
    }

    /// Tells the page the value now (`p`, or `text` as typed) unless it was
    /// the last one told.
    fn emit(self, p: Option<Pick>, text: String) {
        let key = (
            p.as_ref().map(|p| p.id.clone()).unwrap_or_default(),
            text.clone(),
        );
        if self.reported.get_value() == key {
            return;
        }
        self.reported.set_value(key);
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
        self.tell(&d);
    }

    /// `multiple`: tells the page the list, as the change event's `values`.
    fn emit_list(self) {
        let values = js_sys::Array::new();
        self.picks.with_untracked(|ps| {
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
        self.tell(&d);
    }

    /// `multiple`: adds `p` unless listed (the same id, or the same text
    /// kept as typed); the input empties.
    fn add(self, p: Pick) {
        let added = self.picks.try_update(|ps| {
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
        self.text.set(String::new());
        if added == Some(true) {
            self.emit_list();
        }
    }

    /// A pick: joins the list (`multiple`) or is the value.
    fn pick(self, p: Pick) {
        if self.multiple {
            return self.add(p);
        }
        self.picked.set(Some(p.clone()));
        self.emit(Some(p.clone()), p.name);
    }

    /// `multiple`: Enter keeps the text as an entry of its own. Else the
    /// text as typed is the value (told before the form's submit event).
    fn enter(self, t: String) {
        let t = t.trim().to_string();
        if self.multiple && !t.is_empty() {
            self.add(Pick {
                name: t,
                ..Pick::default()
            });
        } else if !self.multiple && self.picked.with_untracked(Option::is_none) {
            self.emit(None, self.text.get_untracked());
        }
    }

    /// Whether the value is picked, free text, or nothing (`data-state`).
    fn state(self) -> &'static str {
        match (
            self.picked.with(Option::is_some),
            self.text.with(|t| t.trim().is_empty()),
        ) {
            (true, _) => "picked",
            (false, false) => "free-text",
            _ => "empty",
        }
    }
}

/// The picker's view: the combobox (with the "forget my past picks"
/// button under it), then the `multiple` list or the single value's hidden
/// id and note.
fn picker_view(
    picker: Picker,
    o: Options,
    context_fn: Option<StoredValue<js_sys::Function, LocalStorage>>,
    on_forget: StoredValue<Option<js_sys::Function>, LocalStorage>,
) -> impl IntoView {
    let Picker {
        text,
        picked,
        multiple,
        ..
    } = picker;
    let on_pick = Callback::new(move |p: Pick| picker.pick(p));
    let on_enter = Callback::new(move |t: String| picker.enter(t));
    // Enter submits the form as in a plain field, except for a text that
    // `multiple` keeps as an entry.
    let enter_to_form = Callback::new(move |t: String| !multiple || t.trim().is_empty());
    let on_edit = Callback::new(move |_: String| picked.set(None));
    let on_blur = Callback::new(move |_| {
        if !multiple && picked.with_untracked(Option::is_none) {
            picker.emit(None, text.get_untracked());
        }
    });
    let filters = o.filters.clone();
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
    let forget_uid = o.uid.clone();
    let forgotten_msg = o.strings.forgotten.clone();
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
    let forget_label = o.strings.forget.clone();
    let note_id = format!("{}-note", o.uid);
    let list = multiple.then(|| entries_view(picker, &o));
    let single = (!multiple).then(|| single_view(picker, &o, note_id.clone()));
    let clear = clear_button(picker, &o);
    // In `multiple` mode the input only searches: the list is submitted.
    let input_name = if multiple {
        String::new()
    } else {
        o.name.clone()
    }; // an empty name is not submitted
    view! {
        <div class="rp" data-state=move || picker.state() data-multiple=multiple.then_some("")>
            <Combobox id=o.uid.clone() label=o.label.clone() text=text filters=filters on_pick=on_pick on_enter=on_enter enter_to_form=enter_to_form on_edit=on_edit on_blur=on_blur
                disable_inactive=!o.allow_inactive name=input_name autocomplete=o.autocomplete.clone() placeholder=o.placeholder.clone()
                describedby=note_id.clone() required=o.required && !multiple strings=o.strings.clone()
                context=context on_remembered_shown=Callback::new(move |b| remembered_shown.set(b)) refresh=refresh field_end=clear>
                <button type="button" class="rp-forget" hidden=move || !remembered_shown.get()
                    on:mousedown=|e| e.prevent_default() on:click=forget>{forget_label.clone()}</button>
            </Combobox>
            {list}
            {single}
            <p class="visually-hidden" role="status">{move || forgotten.get()}</p>
        </div>
    }
}

/// `multiple`: the list of entries, each with its submitted pair and a
/// remove button (focus goes back to the input, the removal announced).
fn entries_view(picker: Picker, o: &Options) -> impl IntoView + use<> {
    let picks = picker.picks;
    let removed = RwSignal::new(String::new());
    let removed_msg = o.strings.removed.clone();
    let remove_uid = o.uid.clone();
    let remove = Callback::new(move |i: usize| {
        let gone = picks
            .try_update(|ps| (i < ps.len()).then(|| ps.remove(i)))
            .flatten();
        if let Some(p) = gone {
            removed.set(removed_msg.replace("{name}", &p.name));
            picker.emit_list();
        }
        if let Some(input) = crate::combobox::input_of(&remove_uid) {
            let _ = input.focus();
        }
    });
    let list_label = o.strings.picked_list.clone();
    let remove_label = o.strings.remove.clone();
    let free_item = o.strings.free_text_item.clone();
    let (list_name, list_id_name) = (o.name.clone(), o.id_name.clone());
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
    view! {
        <ul class="rp-list" aria-label=list_label hidden=move || picks.with(Vec::is_empty)>{entries}</ul>
        <p class="visually-hidden" role="status">{move || removed.get()}</p>
    }
}

/// The single value's hidden id input and the note on what will be sent
/// (picked from the registry, or free text).
fn single_view(picker: Picker, o: &Options, note_id: String) -> impl IntoView + use<> {
    let Picker { text, picked, .. } = picker;
    let st = o.strings.clone();
    let note = move || match (picked.get(), text.with(|t| t.trim().is_empty())) {
        (Some(_), _) => Some(st.picked.clone()),
        (None, false) => Some(st.free_text.clone()),
        (None, true) => None,
    };
    view! {
        <input type="hidden" name=o.id_name.clone() prop:value=move || picked.with(|p| p.as_ref().map(|p| p.id.clone()).unwrap_or_default()) />
        <p id=note_id class="rp-note" data-state=move || picker.state()>{note}</p>
    }
}

/// The clear button over the input's end, centred on it (not on the label
/// above it); none in `multiple` mode.
fn clear_button(picker: Picker, o: &Options) -> Children {
    let Picker {
        text,
        picked,
        multiple,
        ..
    } = picker;
    let clear_label = o.strings.clear.clone();
    let input_uid = o.uid.clone();
    Box::new(move || {
        (!multiple).then(move || {
            view! {
                <button type="button" class="rp-clear" aria-label=clear_label.clone() title=clear_label hidden=move || text.with(String::is_empty)
                    on:click=move |_| {
                        text.set(String::new());
                        picked.set(None);
                        picker.emit(None, String::new());
                        if let Some(i) = crate::combobox::input_of(&input_uid) { let _ = i.focus(); }
                    }>"×"</button>
            }
        })
        .into_any()
    })
}
