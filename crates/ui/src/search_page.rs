//! The app: header with the data release, the search box (typeahead),
//! the advanced query box, and under them the results with live facets
//! (`results.rs`, `facets.rs`) or the record page (`record_view.rs`) — all
//! driven by the URL. [`App`] builds the parts over one `Page`, the handles
//! they share, whose methods are the app's rules of navigation and history.

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::combobox::Combobox;
use crate::facets::Facets;
use crate::record_view::RecordView;
use crate::registry_client::{self, Info};
use crate::results::{Results, ResultsColumn, early_results, load};
use crate::url_state::{self, ESTABLISHED, State, encode};
use crate::years::Counts;
use crate::{Pick, Strings};

/// Pause in typing after which the address bar and title follow the query.
const URL_DELAY_MS: u64 = 400;

/// Runs `f` after the next frame is painted (a task queued from the frame's
/// animation callbacks runs after its paint).
fn after_paint(f: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(f, std::time::Duration::ZERO));
}

/// The URL of the data folder, relative to the document (sub-path safe).
fn data_url() -> String {
    document()
        .base_uri()
        .ok()
        .flatten()
        .map(|b| data_url_of(&b))
        .unwrap_or_else(|| "./data/".into())
}

/// `data/` beside the document at `base`: resolved against its path only,
/// as a relative URL is — a query or fragment may hold slashes of its own
/// (`?id=https://ror.org/…`, `?q=10.13039/…`).
fn data_url_of(base: &str) -> String {
    let path = base.split(['?', '#']).next().unwrap_or(base);
    let dir = path.rsplit_once('/').map_or(path, |(a, _)| a);
    format!("{dir}/data/")
}

/// Mounts the search app into `#app` when the page has one: index.html
/// calls it (`startApp(typed)`) once the wasm is initialised, at the moment
/// it hands the early page's search box over (its text, caret and focus):
/// `typed`, text typed there that is not the address bar's query, is the
/// box's text from the first render (so the caret set on it stays).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = startApp)]
pub fn start(typed: Option<String>) {
    let Some(el) = document().get_element_by_id("app") else {
        return;
    };
    el.set_inner_html("");
    let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(el);
    leptos::mount::mount_to(el, move || view! { <App typed=typed /> }).forget();
}

/// What every part of the app shares: the page state (the address bar's),
/// what the registry said, and the bookkeeping of the history while
/// typing. All handles, so a copy is the same page.
#[derive(Clone, Copy)]
struct Page {
    /// The state shown; the address bar follows it ([`Page::show_state`]).
    state: RwSignal<State>,
    /// The open registry's release, once it is open.
    info: RwSignal<Option<Info>>,
    /// Why the registry could not be opened.
    load_error: RwSignal<Option<String>>,
    /// The results on screen (an early page's before the registry is open).
    results: RwSignal<Option<Results>>,
    /// Asks again for the current page's results (after a failed request).
    retry: Trigger,
    /// Counts the states asked for: only the newest one's answer is shown.
    seq: StoredValue<u64>,
    /// The next state comes from typing in the search box.
    typing: StoredValue<bool>,
    /// History while typing: the first time the address bar follows a typed
    /// query it gets a new entry (so Back returns to the page before the
    /// search); the rest of that typing replaces this entry, and Enter
    /// pushes nothing more. Enter, a navigation and Back/Forward end the
    /// typing: the next typed query is a new entry again.
    typed_entry: StoredValue<bool>,
    /// Counts the address bar's updates: a pending one that a newer one
    /// overtook is not made.
    url_seq: StoredValue<u64>,
}

impl Page {
    /// The page of the address bar's state, with the results painted before
    /// this wasm arrived, if they answer it.
    fn new() -> Page {
        let state = url_state::current();
        Page {
            results: RwSignal::new(early_results(&state)),
            state: RwSignal::new(state),
            info: RwSignal::new(None),
            load_error: RwSignal::new(None),
            retry: Trigger::new(),
            seq: StoredValue::new(0),
            typing: StoredValue::new(false),
            typed_entry: StoredValue::new(false),
            url_seq: StoredValue::new(0),
        }
    }

    /// Opens the registry (again, after a failure): `info` once it is open.
    fn open_registry(self) {
        self.load_error.set(None);
        spawn_local(async move {
            match registry_client::open(&data_url(), "full").await {
                Ok(i) => self.info.set(Some(i)),
                Err(e) => self.load_error.set(Some(e.to_string())),
            }
        });
    }

    /// The document's title for a results state (a record page sets its own).
    fn show_title(s: &State) {
        if s.id.is_none() {
            // Blank text (`?q=%20`) is no query.
            document().set_title(&if s.q.trim().is_empty() {
                "Organization registry".to_string()
            } else {
                format!("{} – Organization registry", s.q.trim())
            });
        }
    }

    /// Brings the address bar and the title up to `s`. Every other change of
    /// state writes the address bar itself (a navigation pushes,
    /// Back/Forward come from it): only a typed query is not shown there
    /// yet, and its first showing is a new entry (see `typed_entry`).
    fn show_state(self, s: &State) {
        self.url_seq.update_value(|k| *k += 1);
        Page::show_title(s);
        if self.typed_entry.get_value() || url_state::shows(s) {
            url_state::sync(s);
        } else {
            url_state::write(s, true);
            self.typed_entry.set_value(true);
        }
    }

    /// Navigation: a new history entry. The current entry is first brought
    /// up to date with what was typed, so Back returns to it.
    fn go(self, s: State) {
        self.show_state(&self.state.get_untracked());
        url_state::write(&s, true);
        self.typed_entry.set_value(false);
        self.state.set(s);
        window().scroll_to_with_x_and_y(0.0, 0.0);
    }

    /// Back/Forward show the entry's state and end the typing; leaving the
    /// page brings its entry up to date (no new one).
    fn follow_history(self) {
        let _ = window_event_listener(ev::popstate, move |_| {
            self.typed_entry.set_value(false);
            self.state.set(url_state::current());
        });
        let _ = window_event_listener(ev::pagehide, move |_| {
            let s = self.state.get_untracked();
            Page::show_title(&s);
            url_state::sync(&s);
        });
    }

    /// Asks for the results of every new state once the registry is open
    /// (a record page asks for its record itself). The address bar and the
    /// title follow a typed query once typing pauses: history.replaceState
    /// is a same-document navigation (the browser even reloads the
    /// favicon), far too slow for every keystroke.
    fn load_on_change(self) {
        Effect::new(move |_| {
            self.retry.track();
            if self.info.with(Option::is_none) {
                return;
            }
            let s = self.state.get();
            if s.id.is_some() {
                return;
            }
            let n = self.seq.get_value() + 1;
            self.seq.set_value(n);
            let typed = std::mem::take(&mut *self.typing.write_value());
            if !typed {
                self.show_state(&s);
                self.ask(s, n, false);
                return;
            }
            let k = self.url_seq.get_value() + 1;
            self.url_seq.set_value(k);
            set_timeout(
                move || {
                    if self.url_seq.get_value() == k {
                        self.show_state(&self.state.get_untracked());
                    }
                },
                std::time::Duration::from_millis(URL_DELAY_MS),
            );
            // While typing, the list and facet counts are asked for after the
            // keystroke's frame: the suggestion request was posted first and the
            // Worker answers in order, so it never waits behind them.
            after_paint(move || self.ask(s, n, true));
        });
    }

    /// Asks for the results of `s`, the `n`th state, and shows them unless a
    /// newer state came since; a `typed` one's after the next paint, so the
    /// suggestions go first.
    fn ask(self, s: State, n: u64, typed: bool) {
        if self.seq.get_value() != n {
            return; // a newer state (keystroke) superseded this one
        }
        spawn_local(async move {
            let r = load(&s).await;
            if self.seq.get_value() != n {
                return; // only the newest state's answer is ever shown
            }
            after_paint(registry_client::answered);
            if typed {
                after_paint(move || {
                    if self.seq.get_value() == n {
                        self.results.set(Some(r));
                    }
                });
            } else {
                self.results.set(Some(r));
            }
        });
    }

    /// Text typed in the search box: the state to search, from a record
    /// page or an advanced query a navigation (whose entry the typing that
    /// follows replaces).
    fn edit(self, v: String) {
        let mut s = self.state.get_untracked();
        let from_record = s.id.take().is_some();
        // Text typed in the search box is what is searched: an advanced
        // query (which the API does not combine with a keyword query, and
        // which would otherwise answer in its place) is dropped — its box
        // empties — and Back returns to its results.
        let from_adv = !std::mem::take(&mut s.adv).is_empty();
        s.q = v;
        s.page = 1;
        self.typing.set_value(!from_record && !from_adv);
        if from_record || from_adv {
            url_state::write(&s, true); // leaving the record page (or the advanced query) is a navigation
            self.typed_entry.set_value(true); // whose entry the typing that follows replaces
        }
        self.state.set(s);
    }

    /// A registry id in any form (URL, `ror.org/…`, bare) opens its record,
    /// as picking it would: the record API (E1) is the judge of what an id
    /// is. A mistyped one stays in the results, which say what is wrong.
    fn open_id(self, typed: String) {
        let answer =
            registry_client::request(&format!("/v2/organizations/{}", encode(typed.trim())));
        spawn_local(async move {
            if let Ok((200, body)) = answer.await
                && self
                    .state
                    .with_untracked(|s| s.id.is_none() && s.q == typed)
                && let Ok(v) = serde_json::from_str::<Value>(&body)
                && let Some(id) = v.get("id").and_then(Value::as_str)
            {
                self.go(State::record(id));
            }
        });
    }
}

/// The whole app: the header, the search box and the main view, over one
/// [`Page`].
#[component]
pub fn App(
    /// The search box's text when it is not the address bar's query (typed
    /// before the app was in; index.html then hands it over as typing).
    #[prop(default = None)]
    typed: Option<String>,
) -> impl IntoView {
    let page = Page::new();
    // A results link painted before this wasm arrived stays on screen
    // until the registry is open and its own answer is in.
    let early = page.results.with_untracked(Option::is_some);
    page.open_registry();
    page.follow_history();
    let go = Callback::new(move |s: State| page.go(s));
    let text = RwSignal::new(typed.unwrap_or_else(|| page.state.get_untracked().q));
    let adv_text = RwSignal::new(page.state.get_untracked().adv);
    follow_state(page.state, text, adv_text);
    page.load_on_change();
    view! {
        <header class="top">
            <a class="brand" href="./">"Organization registry"</a>
            <ReleaseLine page=page />
        </header>
        <main id="main">
            <search class="search" aria-label="Organizations">
                <SearchBox page=page go=go text=text />
                <AdvancedQuery page=page go=go adv_text=adv_text />
            </search>
            <MainView page=page go=go early=early />
        </main>
        <footer class="foot"><a href="match.html">"Match a list"</a>" · "<a href="widget-demo.html">"Form widget demo"</a>" · "<a href="api.html">"Local API"</a></footer>
    }
}

/// The search box's and the advanced query box's texts follow the state's
/// (Back/Forward, a link).
fn follow_state(state: RwSignal<State>, text: RwSignal<String>, adv_text: RwSignal<String>) {
    let q_memo = Memo::new(move |_| state.with(|s| s.q.clone()));
    Effect::new(move |_| {
        let q = q_memo.get();
        if text.get_untracked() != q {
            text.set(q);
        }
    });
    let adv_memo = Memo::new(move |_| state.with(|s| s.adv.clone()));
    Effect::new(move |_| adv_text.set(adv_memo.get()));
}

/// The header's line about the data: its release and size, or that it
/// could not be loaded; a deploy while the page is open says that its
/// answers come from the new release from then on.
#[component]
fn ReleaseLine(page: Page) -> impl IntoView {
    let loading = Strings::default().loading;
    let new_release = RwSignal::new(false);
    registry_client::on_new_release(move |i| {
        page.info.set(Some(i));
        new_release.set(true);
    });
    let release = move || match (page.info.get(), page.load_error.get()) {
        (Some(i), _) => format!(
            "data: {}, {} records{}",
            i.release,
            crate::grouped(i.record_count),
            if new_release.get() {
                " — a new data release is available, and answers come from it now"
            } else {
                ""
            }
        ),
        (None, Some(_)) => "The registry could not be loaded".to_string(),
        _ => loading.clone(),
    };
    view! { <p class="release" id="release">{release}</p> }
}

/// The search box (typeahead): a pick opens its record; Enter without a
/// highlighted option keeps the results below as the answer, or opens the
/// record of an id typed in full.
#[component]
fn SearchBox(page: Page, go: Callback<State>, text: RwSignal<String>) -> impl IntoView {
    let on_edit = Callback::new(move |v: String| page.edit(v));
    let on_pick = Callback::new(move |p: Pick| go.run(State::record(&p.id)));
    // Enter before the registry is open: looked up once it is.
    let pending_id = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        if page.info.with(Option::is_some)
            && let Some(t) = pending_id.get_value()
        {
            pending_id.set_value(None);
            page.open_id(t);
        }
    });
    let on_enter = Callback::new(move |typed: String| {
        // Enter without a highlighted option: the results below are the answer;
        // the query is a history entry (one: typing's, when it made one).
        page.show_state(&page.state.get_untracked());
        page.typed_entry.set_value(false);
        if typed.trim().is_empty() || typed.trim().contains(char::is_whitespace) {
            return; // an id is one word
        }
        if page.info.with_untracked(Option::is_some) {
            page.open_id(typed);
        } else {
            pending_id.set_value(Some(typed));
        }
    });
    let no_filters = Signal::derive(Vec::new);
    view! {
        <Combobox id="q" label="Search organizations by name, acronym or identifier" text=text filters=no_filters
            on_pick=on_pick on_enter=on_enter on_edit=on_edit limit=8
            placeholder="Name, acronym or identifier" />
    }
}

/// The advanced query box: a field query that answers alone (the search
/// box empties), its error under it.
#[component]
fn AdvancedQuery(page: Page, go: Callback<State>, adv_text: RwSignal<String>) -> impl IntoView {
    let state = page.state;
    let submit_adv = move |ev: ev::SubmitEvent| {
        ev.prevent_default();
        let mut s = state.get_untracked();
        s.adv = adv_text.get_untracked().trim().to_string();
        // The advanced query answers alone: the search box empties rather
        // than show text that is not searched.
        if !s.adv.is_empty() {
            s.q.clear();
        }
        s.page = 1;
        go.run(s);
    };
    let adv_error = move || {
        page.results
            .with(|r| r.as_ref().and_then(|r| r.error.clone()))
            .filter(|_| state.with(|s| !s.adv.is_empty()))
    };
    let adv_open = state.with_untracked(|s| !s.adv.is_empty());
    view! {
        <details class="advanced" open=adv_open>
            <summary>"Advanced query"</summary>
            <form on:submit=submit_adv>
                <label for="adv-input">"Field query (for example "<code>"locations.geo_details.name:Brno"</code>" or "<code>"types:funder AND established:[1900 TO 1950]"</code>")"</label>
                <div class="row">
                    <input id="adv-input" type="text" spellcheck="false" autocomplete="off"
                        aria-describedby="adv-error" aria-invalid=move || adv_error().is_some().to_string()
                        prop:value=move || adv_text.get()
                        on:input=move |ev| adv_text.set(event_target_value(&ev)) />
                    <button type="submit">"Search"</button>
                    <button type="button" class="link" hidden=move || state.with(|s| s.adv.is_empty()) on:click=move |_| {
                        let mut s = state.get_untracked();
                        s.adv.clear();
                        go.run(s);
                    }>"Clear"</button>
                </div>
                <p id="adv-error" class="error" role="alert">{adv_error}</p>
            </form>
        </details>
    }
}

/// The page under the search box: a record page, or the facets beside the
/// results; until the registry is open, a record's early name, the early
/// results, or why it could not be loaded. Only a change of page kind
/// (results ↔ record) rebuilds it.
#[component]
fn MainView(page: Page, go: Callback<State>, early: bool) -> impl IntoView {
    let load_error = page.load_error;
    let id_memo = Memo::new(move |_| page.state.with(|s| s.id.clone()));
    let ready = Memo::new(move |_| page.info.with(Option::is_some));
    move || match id_memo.get() {
        Some(id) if !ready.get() && load_error.with(Option::is_none) => {
            crate::record_view::loading_view(&id)
        }
        _ if !ready.get() && (!early || load_error.with(Option::is_some)) => {
            view! { {move || load_error.get().map(|e| load_failed_view(page, e))} }.into_any()
        }
        Some(id) => view! { <RecordView id=id go=go /> }.into_any(),
        None => view! { <ResultsLayout page=page go=go /> }.into_any(),
    }
}

/// The registry could not be loaded: what to check, a retry, and the
/// technical reason under "Details".
fn load_failed_view(page: Page, e: String) -> impl IntoView {
    view! {
        <div class="load-failed" role="alert">
            <p><strong>"The registry could not be loaded."</strong>" Check your connection, then try again."</p>
            <p><button type="button" on:click=move |_| page.open_registry()>"Try again"</button></p>
            <details><summary>"Details"</summary><p>{e}</p></details>
        </div>
    }
}

/// The facets beside the results column; ticking a value (or picking a
/// range) is a navigation to page 1.
#[component]
fn ResultsLayout(page: Page, go: Callback<State>) -> impl IntoView {
    let (state, results) = (page.state, page.results);
    let toggle = Callback::new(move |(k, v): (String, String)| {
        let mut s = state.get_untracked();
        if s.has(&k, &v) {
            s.filter.retain(|(a, b)| !(a == &k && b == &v));
        } else {
            if k == ESTABLISHED {
                s.filter.retain(|(a, _)| a != &k); // one range: a new one replaces it
            }
            s.filter.push((k, v));
        }
        s.page = 1;
        go.run(s);
    });
    // Facet selections only: typing must not rebuild the sidebar.
    let filter = Memo::new(move |_| state.with(|s| s.filter.clone()));
    // Results on the world map: the country facet's map is not drawn too.
    // (A memo: a filter picked on that map must not rebuild it under the click.)
    let results_map = Memo::new(move |_| state.with(|s| s.map));
    let clear = Callback::new(move |_| {
        let mut s = state.get_untracked();
        s.filter.clear();
        s.page = 1;
        go.run(s);
    });
    let groups = Memo::new(move |_| {
        results.with(|r| r.as_ref().map(|r| r.groups.clone()).unwrap_or_default())
    });
    // Not a memo: an answer equal to the one shown (the app's own answer
    // to an early page) must still reach the facet.
    let years = Signal::derive(move || {
        results.with(|r| r.as_ref().map_or(Counts::Waiting, |r| r.years.clone()))
    });
    view! {
        <div class="layout" data-results=move || results.with(|r| match r {
                Some(r) if r.total == 0 => "none",
                _ => "some",
            })>
            <SkipLink />
            <Facets groups=groups years=years selection=filter on_toggle=toggle on_clear=clear
                results_map=results_map />
            <section class="results-col" tabindex="-1" aria-live="off"
                data-for=move || results.with(|r| r.as_ref().map(|r| r.q.clone()))>
                <ResultsColumn results=results state=state retry=page.retry go=go clear=clear />
            </section>
        </div>
    }
}

/// "Skip to results": keyboard users would otherwise tab through every
/// facet checkbox (about 35 stops) before the first result.
#[component]
fn SkipLink() -> impl IntoView {
    view! {
        <a class="skip-link" href="#results-h" on:click=move |ev: web_sys::MouseEvent| {
            ev.prevent_default(); // no `#results-h` in the URL: the state is the query string
            let target = document()
                .get_element_by_id("results-h")
                .or_else(|| document().query_selector(".results-col").ok().flatten());
            if let Some(el) = target {
                let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(el);
                let _ = el.focus();
            }
        }>"Skip to results"</a>
    }
}

#[cfg(test)]
mod tests {
    use super::data_url_of;

    #[test]
    fn data_url_ignores_the_query() {
        assert_eq!(data_url_of("http://h/"), "http://h/data/");
        assert_eq!(data_url_of("http://h/app/index.html"), "http://h/app/data/");
        assert_eq!(
            data_url_of("http://h/app/?id=https://ror.org/041qyp388"),
            "http://h/app/data/"
        );
        assert_eq!(data_url_of("http://h/?q=and/or#x/y"), "http://h/data/");
    }
}
