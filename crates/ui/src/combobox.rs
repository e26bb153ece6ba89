//! A WAI-ARIA 1.2 combobox (list autocomplete, manual selection): DOM focus
//! stays on the `<input>`, the highlighted option is `aria-activedescendant`,
//! Up/Down/Home/End/Enter/Escape/Tab (and Ctrl-N/P) navigate, nothing
//! navigates while an IME composes, results come per keystroke and stale
//! answers are dropped, and a polite live region announces the count after
//! a second of quiet. With a context from the form ([`SuggestContext`]),
//! focusing the empty input offers the e-mail domain's and the remembered
//! records, and rows show the localized label and "picked before".

use std::collections::HashMap;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::registry_client::{self, CallError, Hit, SuggestContext, Summary};
use crate::{Pick, Strings, highlight, place, title_case};

/// One row of the listbox.
#[derive(Clone, Debug, PartialEq)]
enum Opt {
    /// A record that matched.
    Record(Hit),
    /// "Use its successor" row after an inactive/withdrawn record.
    Successor(Summary),
}

/// The combobox.
#[component]
pub fn Combobox(
    /// Prefix of the element ids (`<id>-input`, `<id>-list`, …).
    #[prop(into)]
    id: String,
    /// Accessible label (a `<label for>` is rendered unless `label_hidden`).
    #[prop(into)]
    label: String,
    /// Visually hide the label (it stays for assistive technology).
    #[prop(optional)]
    label_hidden: bool,
    /// The input's text (shared with the page).
    text: RwSignal<String>,
    /// Filters for the suggestions (`types:education`, …).
    #[prop(into)]
    filters: Signal<Vec<String>>,
    /// Called when an option is picked.
    on_pick: Callback<Pick>,
    /// Called on Enter when no option is highlighted (the input's value).
    #[prop(optional)]
    on_enter: Option<Callback<String>>,
    /// Whether such an Enter (given the input's value) is also left to the
    /// form, whose implicit submission is its default; without this, every
    /// such Enter is handled here only (its default prevented).
    #[prop(optional)]
    enter_to_form: Option<Callback<String, bool>>,
    /// Called when the user edits the text.
    #[prop(optional)]
    on_edit: Option<Callback<String>>,
    /// Called when the input loses focus.
    #[prop(optional)]
    on_blur: Option<Callback<()>>,
    /// Inactive and withdrawn records are `aria-disabled` (only their successor can be picked).
    #[prop(optional)]
    disable_inactive: bool,
    /// The input's `name` (form submission).
    #[prop(optional, into)]
    name: Option<String>,
    /// The input's `autocomplete` attribute.
    #[prop(default = "off".into(), into)]
    autocomplete: String,
    /// Placeholder text.
    #[prop(optional, into)]
    placeholder: String,
    /// Extra `aria-describedby` ids.
    #[prop(optional, into)]
    describedby: Option<String>,
    /// `required` on the input.
    #[prop(optional)]
    required: bool,
    /// Most suggestions shown.
    #[prop(default = 8)]
    limit: usize,
    /// The strings.
    #[prop(optional)]
    strings: Strings,
    /// The form's context, asked for at every query (so an e-mail address
    /// typed elsewhere in the form after mounting counts).
    #[prop(optional)]
    context: Option<Callback<(), SuggestContext>>,
    /// Told whether the rows now shown include remembered records.
    #[prop(optional)]
    on_remembered_shown: Option<Callback<bool>>,
    /// Notified when the context changed under the shown rows: asks again
    /// for the current text if the input has focus.
    #[prop(optional)]
    refresh: Option<Trigger>,
    /// Shown over the input's end (e.g. a clear button), in a box as tall
    /// as the input, so it stays centred on it whatever the label's height.
    #[prop(optional)]
    field_end: Option<Children>,
    /// Shown between the input and the listbox (in the flow, so an open
    /// listbox does not cover it).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let input_id = format!("{id}-input");
    let list_id = format!("{id}-list");
    let hits = RwSignal::new(Vec::<Hit>::new());
    let successors = RwSignal::new(HashMap::<String, Summary>::new());
    let open = RwSignal::new(false);
    let searched = RwSignal::new(false);
    let active = RwSignal::new(None::<usize>);
    let live = RwSignal::new(String::new());
    // The text the shown options answer (`data-for` on the listbox).
    let shown_for = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let composing = StoredValue::new(false);
    let seq = StoredValue::new(0u64);
    let announce_seq = StoredValue::new(0u64);
    let focused = StoredValue::new(false);
    let strings = StoredValue::new(strings);
    // The language of the localized labels shown (their `lang` attribute).
    let shown_lang = StoredValue::new(None::<String>);
    let remembered_shown = move |h: &[Hit]| {
        if let Some(cb) = on_remembered_shown {
            cb.run(h.iter().any(|h| h.remembered));
        }
    };

    let options = Memo::new(move |_| {
        let succ = successors.get();
        let mut out = Vec::new();
        for h in hits.get() {
            let inactive = h.summary.status != "active";
            let ids = h.summary.successors.clone();
            out.push(Opt::Record(h));
            if inactive {
                out.extend(
                    ids.iter()
                        .filter_map(|s| succ.get(s).cloned())
                        .map(Opt::Successor),
                );
            }
        }
        out
    });
    let expanded = move || open.get() && !options.with(Vec::is_empty);

    let announce = move |n: usize| {
        let k = announce_seq.get_value() + 1;
        announce_seq.set_value(k);
        set_timeout(
            move || {
                if announce_seq.get_value() != k || !focused.get_value() {
                    return;
                }
                let s = strings.get_value();
                let msg = match n {
                    0 => s.no_results.clone(),
                    1 => s.one_result.clone(),
                    n => s.results.replace("{n}", &n.to_string()),
                };
                // Alternate a trailing space so a repeated message is re-announced.
                live.update(|l| {
                    *l = if l.ends_with('\u{a0}') {
                        msg
                    } else {
                        format!("{msg}\u{a0}")
                    }
                });
            },
            Duration::from_millis(1000),
        );
    };

    // Closes the listbox without an answer to show.
    let close = move || {
        remembered_shown(&[]);
        hits.set(Vec::new());
        open.set(false);
        searched.set(false);
        active.set(None);
        announce_seq.update_value(|k| *k += 1);
    };

    // Shows the answer for `q` (the caller checked that it is the newest
    // call's); announced only when `complete` (not the first hits of an
    // answer still on its way).
    let show = move |q: String, h: Vec<Hit>, complete: bool| {
        if h.is_empty() && q.trim().is_empty() {
            // Nothing to offer before typing is not "no results".
            return close();
        }
        let mut later = Vec::new();
        for id in h
            .iter()
            .filter(|h| h.summary.status != "active")
            .flat_map(|h| h.summary.successors.clone())
        {
            if successors.with_untracked(|m| m.contains_key(&id)) {
                continue;
            }
            match registry_client::summary_now(&id) {
                Some(s) => successors.update(|m| {
                    m.insert(id, s);
                }),
                None => later.push(id),
            }
        }
        let count = h.len();
        // The rest of an answer whose first hits are shown (the same text,
        // those hits first): the option the user moved to stays active.
        let extends = shown_for.with_untracked(|s| *s == q)
            && hits.with_untracked(|old| {
                old.len() <= h.len()
                    && old
                        .iter()
                        .zip(&h)
                        .all(|(a, b)| a.summary.id == b.summary.id)
            });
        shown_for.set(q);
        remembered_shown(&h);
        hits.set(h);
        if !extends {
            active.set(None);
        }
        searched.set(true);
        open.set(true);
        if complete {
            announce(count);
        } else {
            // The count is announced with the complete answer; a pending
            // one belongs to an older text.
            announce_seq.update_value(|k| *k += 1);
        }
        if !later.is_empty() {
            spawn_local(async move {
                for id in later {
                    if let Ok(Some(s)) = registry_client::summary(&id).await {
                        successors.update(|m| {
                            m.insert(id, s);
                        });
                    }
                }
            });
        }
    };

    // The person typing is told in their words (the `loadError` string);
    // the registry's own message, which names files and HTTP statuses, is
    // for the page's developer, in the console.
    let failed = move |detail: String| {
        leptos::logging::error!("registry: {detail}");
        open.set(false);
        error.set(Some(strings.with_value(|s| s.load_error.clone())));
    };

    let run = move |q: String| {
        let n = seq.get_value() + 1;
        seq.set_value(n);
        error.set(None);
        let ctx = context.map(|c| c.run(())).unwrap_or_default();
        if q.trim().is_empty() && !ctx.offers_on_focus() {
            return close();
        }
        let f = filters.get_untracked();
        shown_lang.set_value(ctx.lang.clone());
        // On the main thread when it can: the answer is in the DOM before the
        // keystroke's frame is painted.
        if let Some(answer) = registry_client::suggest_now(&q, &f, limit, &ctx) {
            match answer {
                Ok(h) => show(q, h, true),
                Err(CallError::Stale) => {}
                Err(CallError::Failed(m)) => failed(m),
            }
            return;
        }
        // Else posted to the Worker now, before anything else this keystroke does.
        let answer = registry_client::suggest(&q, &f, limit, &ctx);
        // Meanwhile the first hits, when the pieces at hand prove them.
        if let Some(h) = registry_client::suggest_partial_now(&q, &f, limit, &ctx) {
            show(q.clone(), h, false);
        }
        spawn_local(async move {
            match answer.await {
                Ok(h) => {
                    if seq.get_value() != n {
                        return; // a newer keystroke is in flight: never show stale results
                    }
                    show(q, h, true);
                }
                Err(CallError::Stale) => {}
                Err(CallError::Failed(m)) => {
                    if seq.get_value() == n {
                        failed(m);
                    }
                }
            }
        });
    };

    let pick = move |s: &Summary| {
        seq.update_value(|k| *k += 1);
        text.set(s.name.clone());
        open.set(false);
        active.set(None);
        remembered_shown(&[]);
        hits.set(Vec::new());
        announce_seq.update_value(|k| *k += 1);
        live.set(strings.with_value(|st| st.selected.replace("{name}", &s.name)));
        on_pick.run(Pick::from(s));
    };

    if let Some(refresh) = refresh {
        Effect::new(move |first: Option<()>| {
            refresh.track();
            if first.is_some() && focused.get_value() {
                run(text.get_untracked());
            }
        });
    }
    // Offers before anything is typed, when the context has some.
    let on_focus = move |_| {
        focused.set_value(true);
        if context.is_some() && text.with_untracked(|t| t.trim().is_empty()) {
            run(String::new());
        }
    };

    // Returns whether the option was committed.
    let commit = move |i: usize| -> bool {
        match options.with_untracked(|o| o.get(i).cloned()) {
            Some(Opt::Record(h)) => {
                if disable_inactive && h.summary.status != "active" {
                    return false;
                }
                pick(&h.summary);
                true
            }
            Some(Opt::Successor(s)) => {
                pick(&s);
                true
            }
            None => false,
        }
    };

    let list_id_scroll = list_id.clone();
    Effect::new(move |_| {
        if let Some(i) = active.get()
            && let Some(el) = document().get_element_by_id(&format!("{list_id_scroll}-{i}"))
        {
            let o = web_sys::ScrollIntoViewOptions::new();
            o.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&o);
        }
    });

    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.is_composing() || composing.get_value() || ev.key_code() == 229 {
            return; // the IME owns the keys while composing
        }
        let n = options.with_untracked(Vec::len);
        let key = ev.key();
        let key = match key.as_str() {
            "n" if ev.ctrl_key() => "ArrowDown",
            "p" if ev.ctrl_key() => "ArrowUp",
            k => k,
        };
        match key {
            "ArrowDown" => {
                ev.prevent_default();
                if !open.get_untracked() {
                    if hits.with_untracked(Vec::is_empty) {
                        run(text.get_untracked());
                    } else {
                        open.set(true);
                    }
                    if ev.alt_key() {
                        return;
                    }
                }
                if n == 0 {
                    return;
                }
                active.update(|a| {
                    *a = match *a {
                        None => Some(0),
                        Some(i) if i + 1 < n => Some(i + 1),
                        Some(_) => None, // past the end: back to the input
                    }
                });
            }
            "ArrowUp" => {
                ev.prevent_default();
                if ev.alt_key() {
                    open.set(false);
                    active.set(None);
                    return;
                }
                if !open.get_untracked() || n == 0 {
                    return;
                }
                active.update(|a| {
                    *a = match *a {
                        None => Some(n - 1),
                        Some(0) => None,
                        Some(i) => Some(i - 1),
                    }
                });
            }
            "Home" | "End" if expanded() && active.get_untracked().is_some() => {
                ev.prevent_default();
                active.set(Some(if key == "Home" { 0 } else { n - 1 }));
            }
            "Enter" => {
                if expanded()
                    && let Some(i) = active.get_untracked()
                {
                    ev.prevent_default();
                    commit(i);
                } else if let Some(cb) = on_enter {
                    let t = text.get_untracked();
                    // Left to the form, the key submits it as in any text
                    // field (the browser's implicit submission, with its
                    // validation): a phone keyboard's "Go" too.
                    if !enter_to_form.is_some_and(|f| f.run(t.clone())) {
                        ev.prevent_default();
                    }
                    seq.update_value(|k| *k += 1); // an answer still on its way is for text now handled
                    open.set(false);
                    active.set(None);
                    cb.run(t);
                }
            }
            // Closes what is shown under the input (the options, or the
            // "no matching organization" note) and keeps the text: what a
            // person typed is never lost to a key with no way back (APG makes
            // clearing optional; the clear button and the usual editing keys
            // remain). Nothing shown: the key is left to the page.
            "Escape" if open.get_untracked() => {
                ev.prevent_default();
                open.set(false);
                active.set(None);
                announce_seq.update_value(|k| *k += 1);
            }
            "Tab" => {
                if expanded()
                    && let Some(i) = active.get_untracked()
                {
                    commit(i); // Tab keeps its default: focus moves on
                }
                open.set(false);
                active.set(None);
            }
            _ => {}
        }
    };

    let on_input = move |ev: web_sys::Event| {
        let v = event_target_value(&ev);
        run(v.clone()); // the suggestion request first: it is what the keystroke waits for
        text.set(v.clone());
        if let Some(cb) = on_edit {
            cb.run(v);
        }
    };

    let list_id_store = StoredValue::new(list_id.clone());
    let list_id_opts = move || list_id_store.get_value();
    let render = move |(i, o): (usize, Opt)| {
        let oid = format!("{}-{i}", list_id_opts());
        let selected = move || active.get() == Some(i);
        let st = strings.get_value();
        match o {
            Opt::Record(h) => {
                let s = h.summary;
                let disabled = disable_inactive && s.status != "active";
                let same = h.matched.value == s.name;
                let lit = |v: &str| {
                    if h.matched.value == v {
                        highlight(v, &h.ranges)
                    } else {
                        v.to_string().into_any()
                    }
                };
                // A localized label is the main line, the display name (what
                // is submitted) the second.
                let (name, display) = match &h.localized {
                    Some(l) => (
                        view! { <span class="cb-name" lang=shown_lang.get_value()>{lit(l)}</span> }
                            .into_any(),
                        Some(view! { <span class="cb-display">{lit(&s.name)}</span> }),
                    ),
                    None => (
                        view! { <span class="cb-name">{lit(&s.name)}</span> }.into_any(),
                        None,
                    ),
                };
                let shown = same || h.localized.as_deref() == Some(h.matched.value.as_str());
                let context_mark = if h.remembered {
                    Some(
                        view! { <span class="cb-mark" data-reason="remembered">{st.picked_before.clone()}</span> },
                    )
                } else if h.reason == "email_domain" {
                    Some(
                        view! { <span class="cb-mark" data-reason="email_domain">{st.from_your_email.clone()}</span> },
                    )
                } else {
                    None
                };
                let matched = (!shown).then(|| {
                    let kind = if h.matched.types.iter().any(|t| t == "acronym") { &st.matched_acronym } else { &st.matched_name };
                    let lang = h.matched.lang.as_ref().map(|l| format!(" ({l})")).unwrap_or_default();
                    view! { <span class="cb-matched">{format!("{kind}: ")}{highlight(&h.matched.value, &h.ranges)}{lang}</span> }
                });
                let meta = [
                    place(s.city.as_deref(), s.country_name.as_deref()),
                    s.types
                        .iter()
                        .map(|t| title_case(t))
                        .collect::<Vec<_>>()
                        .join(", "),
                ]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(" · ");
                let badge = st.status(&s.status);
                let status = s.status.clone();
                let status2 = s.status.clone();
                view! {
                    <li id=oid role="option" class="cb-opt" class:cb-active=selected
                        aria-selected=move || selected().to_string()
                        aria-disabled=disabled.then_some("true") data-status=status2
                        on:mousedown=|e| e.prevent_default()
                        on:click=move |_| { commit(i); }>
                        <span class="cb-line">{name}
                        <span class="cb-tags">{context_mark}<span class="badge" data-status=status>{badge}</span></span></span>
                        {display}
                        {matched}
                        <span class="cb-meta">{meta}</span>
                    </li>
                }
                .into_any()
            }
            Opt::Successor(s) => {
                let meta = place(s.city.as_deref(), s.country_name.as_deref());
                view! {
                    <li id=oid role="option" class="cb-opt cb-succ" class:cb-active=selected
                        aria-selected=move || selected().to_string()
                        on:mousedown=|e| e.prevent_default()
                        on:click=move |_| { commit(i); }>
                        <span class="cb-line">"↳ "{st.use_successor.clone()}" "<span class="cb-name">{s.name.clone()}</span></span>
                        <span class="cb-meta">{meta}</span>
                    </li>
                }
                .into_any()
            }
        }
    };

    let live_id = format!("{id}-live");
    let error_id = format!("{id}-error");
    let described = [describedby, Some(error_id.clone())]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let list_for_aria = list_id.clone();
    let no_results = strings.with_value(|s| s.no_results.clone());
    view! {
        <div class="cb">
            <label for=input_id.clone() class:visually-hidden=label_hidden>{label.clone()}</label>
            <div class="cb-field">
            <input id=input_id type="text" role="combobox" aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-expanded=move || expanded().to_string()
                aria-activedescendant=move || active.get().map(|i| format!("{list_for_aria}-{i}"))
                aria-describedby=described
                name=name autocomplete=autocomplete spellcheck="false" autocapitalize="off"
                placeholder=placeholder required=required
                prop:value=move || text.get()
                on:input=on_input
                on:keydown=on_keydown
                on:compositionstart=move |_| composing.set_value(true)
                on:compositionend=move |_| composing.set_value(false)
                on:focus=on_focus
                on:blur=move |_| {
                    focused.set_value(false);
                    open.set(false);
                    active.set(None);
                    if let Some(cb) = on_blur { cb.run(()); }
                } />
            {field_end.map(|c| c())}
            </div>
            {children.map(|c| c())}
            <ul id=list_id role="listbox" aria-label=label class="cb-list" hidden=move || !expanded() data-for=move || shown_for.get()>
                {move || options.get().into_iter().enumerate().map(render).collect_view()}
            </ul>
            <div class="cb-empty" hidden=move || !(open.get() && searched.get() && options.with(Vec::is_empty))>{no_results}</div>
            <div id=error_id class="cb-error" hidden=move || error.with(Option::is_none)>{move || error.get()}</div>
            <div id=live_id class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">{move || live.get()}</div>
        </div>
    }
}

/// The input element of a combobox, by its id prefix.
pub fn input_of(id: &str) -> Option<web_sys::HtmlInputElement> {
    document()
        .get_element_by_id(&format!("{id}-input"))
        .and_then(|e| e.dyn_into().ok())
}
