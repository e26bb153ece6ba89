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
    let cb = Cb::new(Hooks {
        text,
        filters,
        limit,
        context,
        on_pick,
        on_enter,
        enter_to_form,
        on_remembered_shown,
        disable_inactive,
        strings,
    });
    if let Some(refresh) = refresh {
        Effect::new(move |first: Option<()>| {
            refresh.track();
            if first.is_some() && cb.focused.get_value() {
                cb.run(text.get_untracked());
            }
        });
    }
    cb.scroll_to_active(list_id.clone());
    let live_id = format!("{id}-live");
    let error_id = format!("{id}-error");
    let described = [describedby, Some(error_id.clone())]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let list_for_aria = list_id.clone();
    let list_id_store = StoredValue::new(list_id.clone());
    let no_results = cb.strings.with_value(|s| s.no_results.clone());
    let Cb {
        open,
        searched,
        active,
        live,
        shown_for,
        error,
        composing,
        focused,
        options,
        ..
    } = cb;
    view! {
        <div class="cb">
            <label for=input_id.clone() class:visually-hidden=label_hidden>{label.clone()}</label>
            <div class="cb-field">
            <input id=input_id type="text" role="combobox" aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-expanded=move || cb.expanded().to_string()
                aria-activedescendant=move || active.get().map(|i| format!("{list_for_aria}-{i}"))
                aria-describedby=described
                name=name autocomplete=autocomplete spellcheck="false" autocapitalize="off"
                placeholder=placeholder required=required
                prop:value=move || text.get()
                on:input=move |ev| cb.input(ev, on_edit)
                on:keydown=move |ev| cb.keydown(ev)
                on:compositionstart=move |_| composing.set_value(true)
                on:compositionend=move |_| composing.set_value(false)
                on:focus=move |_| cb.focus()
                on:blur=move |_| {
                    focused.set_value(false);
                    open.set(false);
                    active.set(None);
                    if let Some(cb) = on_blur { cb.run(()); }
                } />
            {field_end.map(|c| c())}
            </div>
            {children.map(|c| c())}
            <ul id=list_id role="listbox" aria-label=label class="cb-list" hidden=move || !cb.expanded() data-for=move || shown_for.get()>
                {move || options.get().into_iter().enumerate().map(|(i, o)| cb.option_view(i, o, &list_id_store.get_value())).collect_view()}
            </ul>
            <div class="cb-empty" hidden=move || !(open.get() && searched.get() && options.with(Vec::is_empty))>{no_results}</div>
            <div id=error_id class="cb-error" hidden=move || error.with(Option::is_none)>{move || error.get()}</div>
            <div id=live_id class="visually-hidden" role="status" aria-live="polite" aria-atomic="true">{move || live.get()}</div>
        </div>
    }
}

/// What the page hands the combobox that its rules use.
struct Hooks {
    text: RwSignal<String>,
    filters: Signal<Vec<String>>,
    limit: usize,
    context: Option<Callback<(), SuggestContext>>,
    on_pick: Callback<Pick>,
    on_enter: Option<Callback<String>>,
    enter_to_form: Option<Callback<String, bool>>,
    on_remembered_shown: Option<Callback<bool>>,
    disable_inactive: bool,
    strings: Strings,
}

/// One combobox: its state and the page's hooks, all handles, so a copy
/// is the same combobox; its methods are the rules of what it asks, shows
/// and announces.
#[derive(Clone, Copy)]
struct Cb {
    /// The input's text (shared with the page).
    text: RwSignal<String>,
    filters: Signal<Vec<String>>,
    limit: usize,
    context: Option<Callback<(), SuggestContext>>,
    on_pick: Callback<Pick>,
    on_enter: Option<Callback<String>>,
    enter_to_form: Option<Callback<String, bool>>,
    on_remembered_shown: Option<Callback<bool>>,
    disable_inactive: bool,
    /// The suggestions shown.
    hits: RwSignal<Vec<Hit>>,
    /// The successors of inactive suggestions, by id, as they arrive.
    successors: RwSignal<HashMap<String, Summary>>,
    /// The listbox's rows: the hits, each inactive one followed by its successors.
    options: Memo<Vec<Opt>>,
    open: RwSignal<bool>,
    /// An answer was shown since the listbox last closed ("no results" is one).
    searched: RwSignal<bool>,
    /// The highlighted option.
    active: RwSignal<Option<usize>>,
    /// The live region's text.
    live: RwSignal<String>,
    /// The text the shown options answer (`data-for` on the listbox).
    shown_for: RwSignal<String>,
    error: RwSignal<Option<String>>,
    /// An IME is composing: the keys are its.
    composing: StoredValue<bool>,
    /// Counts the texts asked for: only the newest one's answer is shown.
    seq: StoredValue<u64>,
    /// Counts the announcements: a pending one that a newer one overtook is not made.
    announce_seq: StoredValue<u64>,
    focused: StoredValue<bool>,
    strings: StoredValue<Strings>,
    /// The language of the localized labels shown (their `lang` attribute).
    shown_lang: StoredValue<Option<String>>,
}

impl Cb {
    fn new(h: Hooks) -> Cb {
        let hits = RwSignal::new(Vec::<Hit>::new());
        let successors = RwSignal::new(HashMap::<String, Summary>::new());
        Cb {
            text: h.text,
            filters: h.filters,
            limit: h.limit,
            context: h.context,
            on_pick: h.on_pick,
            on_enter: h.on_enter,
            enter_to_form: h.enter_to_form,
            on_remembered_shown: h.on_remembered_shown,
            disable_inactive: h.disable_inactive,
            hits,
            successors,
            options: Memo::new(move |_| options_of(hits.get(), &successors.get())),
            open: RwSignal::new(false),
            searched: RwSignal::new(false),
            active: RwSignal::new(None),
            live: RwSignal::new(String::new()),
            shown_for: RwSignal::new(String::new()),
            error: RwSignal::new(None),
            composing: StoredValue::new(false),
            seq: StoredValue::new(0),
            announce_seq: StoredValue::new(0),
            focused: StoredValue::new(false),
            strings: StoredValue::new(h.strings),
            shown_lang: StoredValue::new(None),
        }
    }

    /// Whether the listbox is shown (open, with options).
    fn expanded(self) -> bool {
        self.open.get() && !self.options.with(Vec::is_empty)
    }

    /// Tells the page whether the rows now shown include remembered records.
    fn remembered_shown(self, h: &[Hit]) {
        if let Some(cb) = self.on_remembered_shown {
            cb.run(h.iter().any(|h| h.remembered));
        }
    }

    /// Announces the count of `n` options after a second of quiet, unless
    /// the input lost focus or a newer announcement came.
    fn announce(self, n: usize) {
        let k = self.announce_seq.get_value() + 1;
        self.announce_seq.set_value(k);
        set_timeout(
            move || {
                if self.announce_seq.get_value() != k || !self.focused.get_value() {
                    return;
                }
                let s = self.strings.get_value();
                let msg = match n {
                    0 => s.no_results.clone(),
                    1 => s.one_result.clone(),
                    n => s.results.replace("{n}", &n.to_string()),
                };
                // Alternate a trailing space so a repeated message is re-announced.
                self.live.update(|l| {
                    *l = if l.ends_with('\u{a0}') {
                        msg
                    } else {
                        format!("{msg}\u{a0}")
                    }
                });
            },
            Duration::from_millis(1000),
        );
    }

    /// Closes the listbox without an answer to show.
    fn close(self) {
        self.remembered_shown(&[]);
        self.hits.set(Vec::new());
        self.open.set(false);
        self.searched.set(false);
        self.active.set(None);
        self.announce_seq.update_value(|k| *k += 1);
    }

    /// Shows the answer for `q` (the caller checked that it is the newest
    /// call's); announced only when `complete` (not the first hits of an
    /// answer still on its way).
    fn show(self, q: String, h: Vec<Hit>, complete: bool) {
        if h.is_empty() && q.trim().is_empty() {
            // Nothing to offer before typing is not "no results".
            return self.close();
        }
        let later = self.successors_at_hand(&h);
        let count = h.len();
        // The rest of an answer whose first hits are shown (the same text,
        // those hits first): the option the user moved to stays active.
        let extends = self.shown_for.with_untracked(|s| *s == q)
            && self.hits.with_untracked(|old| {
                old.len() <= h.len()
                    && old
                        .iter()
                        .zip(&h)
                        .all(|(a, b)| a.summary.id == b.summary.id)
            });
        self.shown_for.set(q);
        self.remembered_shown(&h);
        self.hits.set(h);
        if !extends {
            self.active.set(None);
        }
        self.searched.set(true);
        self.open.set(true);
        if complete {
            self.announce(count);
        } else {
            // The count is announced with the complete answer; a pending
            // one belongs to an older text.
            self.announce_seq.update_value(|k| *k += 1);
        }
        self.fetch_successors(later);
    }

    /// Adds the successors of the inactive hits that the client holds now;
    /// returns the ids it must ask for.
    fn successors_at_hand(self, h: &[Hit]) -> Vec<String> {
        let mut later = Vec::new();
        for id in h
            .iter()
            .filter(|h| h.summary.status != "active")
            .flat_map(|h| h.summary.successors.clone())
        {
            if self.successors.with_untracked(|m| m.contains_key(&id)) {
                continue;
            }
            match registry_client::summary_now(&id) {
                Some(s) => self.successors.update(|m| {
                    m.insert(id, s);
                }),
                None => later.push(id),
            }
        }
        later
    }

    /// Asks for the summaries of `ids`, each added as it arrives.
    fn fetch_successors(self, ids: Vec<String>) {
        if ids.is_empty() {
            return;
        }
        spawn_local(async move {
            for id in ids {
                if let Ok(Some(s)) = registry_client::summary(&id).await {
                    self.successors.update(|m| {
                        m.insert(id, s);
                    });
                }
            }
        });
    }

    /// The person typing is told in their words (the `loadError` string);
    /// the registry's own message, which names files and HTTP statuses, is
    /// for the page's developer, in the console.
    fn failed(self, detail: String) {
        leptos::logging::error!("registry: {detail}");
        self.open.set(false);
        self.error
            .set(Some(self.strings.with_value(|s| s.load_error.clone())));
    }

    /// Asks for the suggestions for `q`: on the main thread when it can (the
    /// answer is in the DOM before the keystroke's frame is painted), else
    /// from the Worker, showing meanwhile the first hits the pieces at hand
    /// prove.
    fn run(self, q: String) {
        let n = self.seq.get_value() + 1;
        self.seq.set_value(n);
        self.error.set(None);
        let ctx = self.context.map(|c| c.run(())).unwrap_or_default();
        if q.trim().is_empty() && !registry_client::offers_on_focus(&ctx) {
            return self.close();
        }
        let f = self.filters.get_untracked();
        self.shown_lang.set_value(ctx.lang.clone());
        if let Some(answer) = registry_client::suggest_now(&q, &f, self.limit, &ctx) {
            match answer {
                Ok(h) => self.show(q, h, true),
                Err(CallError::Stale) => {}
                Err(CallError::Failed(m)) => self.failed(m),
            }
            return;
        }
        // Else posted to the Worker now, before anything else this keystroke does.
        let answer = registry_client::suggest(&q, &f, self.limit, &ctx);
        if let Some(h) = registry_client::suggest_partial_now(&q, &f, self.limit, &ctx) {
            self.show(q.clone(), h, false);
        }
        spawn_local(async move {
            match answer.await {
                Ok(h) => {
                    if self.seq.get_value() != n {
                        return; // a newer keystroke is in flight: never show stale results
                    }
                    self.show(q, h, true);
                }
                Err(CallError::Stale) => {}
                Err(CallError::Failed(m)) => {
                    if self.seq.get_value() == n {
                        self.failed(m);
                    }
                }
            }
        });
    }

    /// Picks `s`: its name in the input, the listbox closed, the pick
    /// announced and handed to the page.
    fn pick(self, s: &Summary) {
        self.seq.update_value(|k| *k += 1);
        self.text.set(s.name.clone());
        self.open.set(false);
        self.active.set(None);
        self.remembered_shown(&[]);
        self.hits.set(Vec::new());
        self.announce_seq.update_value(|k| *k += 1);
        self.live.set(
            self.strings
                .with_value(|st| st.selected.replace("{name}", &s.name)),
        );
        self.on_pick.run(Pick::from(s));
    }

    /// Picks option `i`; returns whether it was (an inactive record is not,
    /// when the page disables them: only its successor can be picked).
    fn commit(self, i: usize) -> bool {
        match self.options.with_untracked(|o| o.get(i).cloned()) {
            Some(Opt::Record(h)) => {
                if self.disable_inactive && h.summary.status != "active" {
                    return false;
                }
                self.pick(&h.summary);
                true
            }
            Some(Opt::Successor(s)) => {
                self.pick(&s);
                true
            }
            None => false,
        }
    }

    /// Keeps the highlighted option in sight in the listbox `list_id`.
    fn scroll_to_active(self, list_id: String) {
        Effect::new(move |_| {
            if let Some(i) = self.active.get()
                && let Some(el) = document().get_element_by_id(&format!("{list_id}-{i}"))
            {
                let o = web_sys::ScrollIntoViewOptions::new();
                o.set_block(web_sys::ScrollLogicalPosition::Nearest);
                el.scroll_into_view_with_scroll_into_view_options(&o);
            }
        });
    }

    /// Offers before anything is typed, when the context has some.
    fn focus(self) {
        self.focused.set_value(true);
        if self.context.is_some() && self.text.with_untracked(|t| t.trim().is_empty()) {
            self.run(String::new());
        }
    }

    /// A keystroke's text: the suggestion request first (it is what the
    /// keystroke waits for), then the page is told.
    fn input(self, ev: web_sys::Event, on_edit: Option<Callback<String>>) {
        let v = event_target_value(&ev);
        self.run(v.clone());
        self.text.set(v.clone());
        if let Some(cb) = on_edit {
            cb.run(v);
        }
    }

    /// The keys of the APG combobox (Ctrl-N/P as Down/Up); none while an
    /// IME composes.
    fn keydown(self, ev: web_sys::KeyboardEvent) {
        if ev.is_composing() || self.composing.get_value() || ev.key_code() == 229 {
            return; // the IME owns the keys while composing
        }
        let n = self.options.with_untracked(Vec::len);
        let key = ev.key();
        let key = match key.as_str() {
            "n" if ev.ctrl_key() => "ArrowDown",
            "p" if ev.ctrl_key() => "ArrowUp",
            k => k,
        };
        match key {
            "ArrowDown" => self.arrow_down(&ev, n),
            "ArrowUp" => self.arrow_up(&ev, n),
            "Home" | "End" if self.expanded() && self.active.get_untracked().is_some() => {
                ev.prevent_default();
                self.active.set(Some(if key == "Home" { 0 } else { n - 1 }));
            }
            "Enter" => self.enter(&ev),
            // Closes what is shown under the input (the options, or the
            // "no matching organization" note) and keeps the text: what a
            // person typed is never lost to a key with no way back (APG makes
            // clearing optional; the clear button and the usual editing keys
            // remain). Nothing shown: the key is left to the page.
            "Escape" if self.open.get_untracked() => {
                ev.prevent_default();
                self.open.set(false);
                self.active.set(None);
                self.announce_seq.update_value(|k| *k += 1);
            }
            "Tab" => {
                if self.expanded()
                    && let Some(i) = self.active.get_untracked()
                {
                    self.commit(i); // Tab keeps its default: focus moves on
                }
                self.open.set(false);
                self.active.set(None);
            }
            _ => {}
        }
    }

    /// Down: opens the listbox (asking when it has nothing), then moves
    /// down the `n` options; past the end, back to the input. Alt+Down
    /// only opens.
    fn arrow_down(self, ev: &web_sys::KeyboardEvent, n: usize) {
        ev.prevent_default();
        if !self.open.get_untracked() {
            if self.hits.with_untracked(Vec::is_empty) {
                self.run(self.text.get_untracked());
            } else {
                self.open.set(true);
            }
            if ev.alt_key() {
                return;
            }
        }
        if n == 0 {
            return;
        }
        self.active.update(|a| {
            *a = match *a {
                None => Some(0),
                Some(i) if i + 1 < n => Some(i + 1),
                Some(_) => None, // past the end: back to the input
            }
        });
    }

    /// Up: moves up the `n` options, from the input to the last; Alt+Up closes.
    fn arrow_up(self, ev: &web_sys::KeyboardEvent, n: usize) {
        ev.prevent_default();
        if ev.alt_key() {
            self.open.set(false);
            self.active.set(None);
            return;
        }
        if !self.open.get_untracked() || n == 0 {
            return;
        }
        self.active.update(|a| {
            *a = match *a {
                None => Some(n - 1),
                Some(0) => None,
                Some(i) => Some(i - 1),
            }
        });
    }

    /// Enter: picks the highlighted option; without one, hands the text to
    /// the page (`on_enter`).
    fn enter(self, ev: &web_sys::KeyboardEvent) {
        if self.expanded()
            && let Some(i) = self.active.get_untracked()
        {
            ev.prevent_default();
            self.commit(i);
        } else if let Some(cb) = self.on_enter {
            let t = self.text.get_untracked();
            // Left to the form, the key submits it as in any text
            // field (the browser's implicit submission, with its
            // validation): a phone keyboard's "Go" too.
            if !self.enter_to_form.is_some_and(|f| f.run(t.clone())) {
                ev.prevent_default();
            }
            self.seq.update_value(|k| *k += 1); // an answer still on its way is for text now handled
            self.open.set(false);
            self.active.set(None);
            cb.run(t);
        }
    }

    /// Option `i` of the listbox `list_id`.
    fn option_view(self, i: usize, o: Opt, list_id: &str) -> AnyView {
        let oid = format!("{list_id}-{i}");
        match o {
            Opt::Record(h) => self.record_option(i, oid, h),
            Opt::Successor(s) => self.successor_option(i, oid, s),
        }
    }

    /// A record that matched: its name (a localized label first, the
    /// display name under it), why it is offered, the name that matched when
    /// another, its place and types; disabled when inactive, if asked.
    fn record_option(self, i: usize, oid: String, h: Hit) -> AnyView {
        let active = self.active;
        let selected = move || active.get() == Some(i);
        let st = self.strings.get_value();
        let s = h.summary;
        let disabled = self.disable_inactive && s.status != "active";
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
                view! { <span class="cb-name" lang=self.shown_lang.get_value()>{lit(l)}</span> }
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
                on:click=move |_| { self.commit(i); }>
                <span class="cb-line">{name}
                <span class="cb-tags">{context_mark}<span class="badge" data-status=status>{badge}</span></span></span>
                {display}
                {matched}
                <span class="cb-meta">{meta}</span>
            </li>
        }
        .into_any()
    }

    /// "Use its successor:" after an inactive record.
    fn successor_option(self, i: usize, oid: String, s: Summary) -> AnyView {
        let active = self.active;
        let selected = move || active.get() == Some(i);
        let st = self.strings.get_value();
        let meta = place(s.city.as_deref(), s.country_name.as_deref());
        view! {
            <li id=oid role="option" class="cb-opt cb-succ" class:cb-active=selected
                aria-selected=move || selected().to_string()
                on:mousedown=|e| e.prevent_default()
                on:click=move |_| { self.commit(i); }>
                <span class="cb-line">"↳ "{st.use_successor.clone()}" "<span class="cb-name">{s.name.clone()}</span></span>
                <span class="cb-meta">{meta}</span>
            </li>
        }
        .into_any()
    }
}

/// The listbox's rows: each hit, an inactive one followed by those of its
/// successors already at hand.
fn options_of(hits: Vec<Hit>, succ: &HashMap<String, Summary>) -> Vec<Opt> {
    let mut out = Vec::new();
    for h in hits {
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
}

/// The input element of a combobox, by its id prefix.
pub fn input_of(id: &str) -> Option<web_sys::HtmlInputElement> {
    document()
        .get_element_by_id(&format!("{id}-input"))
        .and_then(|e| e.dyn_into().ok())
}
