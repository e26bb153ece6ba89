//! The app: header with the data release, the search box (typeahead),
//! results with paging and live facets, the advanced query box, and the
//! record page — all driven by the URL.

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;
use serde_json::Value;

use crate::combobox::Combobox;
use crate::facets::{Entry, Facets, Group, entries};
use crate::record_view::{
    RecordView, acronyms, display_name, first_place, record_link, relations, types,
};
use crate::registry_client::{self, Info, Summary, bare_id};
use crate::url_state::{self, FACETS, State, encode};
use crate::{Pick, Strings, title_case};

/// Results per page (the API's).
const PER_PAGE: u64 = 20;
/// Deepest page the API serves.
const MAX_PAGE: u64 = 500;
/// Pause in typing after which the address bar and title follow the query.
const URL_DELAY_MS: u64 = 400;

/// Runs `f` after the next frame is painted (a task queued from the frame's
/// animation callbacks runs after its paint).
fn after_paint(f: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(f, std::time::Duration::ZERO));
}

/// One row of the results list: what it shows of a record.
#[derive(Clone, Debug, Default, PartialEq)]
struct Row {
    id: String,
    name: String,
    status: String,
    /// Acronyms · place · types.
    meta: String,
    /// Successors: (id, label).
    successors: Vec<(String, String)>,
}

impl Row {
    fn meta(acronyms: &[String], place: String, types: String) -> String {
        [acronyms.join(", "), place, types]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// From the record (an API answer's item).
    fn of_record(rec: &Value) -> Row {
        Row {
            id: rec
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            name: display_name(rec),
            status: rec
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("active")
                .to_string(),
            meta: Row::meta(&acronyms(rec), first_place(rec), types(rec)),
            successors: relations(rec, "successor"),
        }
    }

    /// From its summary (the first paint's rows: no record yet). A
    /// successor is named by its id until the record arrives.
    fn of_summary(s: &Summary) -> Row {
        let types = s
            .types
            .iter()
            .map(|t| title_case(t))
            .collect::<Vec<_>>()
            .join(", ");
        Row {
            id: s.id.clone(),
            name: s.name.clone(),
            status: if s.status.is_empty() {
                "active".into()
            } else {
                s.status.clone()
            },
            meta: Row::meta(
                &s.acronyms,
                crate::place(s.city.as_deref(), s.country_name.as_deref()),
                types,
            ),
            successors: s
                .successors
                .iter()
                .map(|i| (i.clone(), String::new()))
                .collect(),
        }
    }
}

/// One results page.
#[derive(Clone, Debug, Default, PartialEq)]
struct Results {
    /// The query text these results answer (`data-for` on the results column).
    q: String,
    total: u64,
    items: Vec<Row>,
    groups: Vec<Group>,
    error: Option<String>,
    /// The registry did not answer (not a message about the query): worth a retry.
    failed: bool,
    /// What the years facet counts for these results.
    years: crate::years::Counts,
}

/// Escapes the characters the keyword syntax reserves (`"` is kept for phrases).
fn escape_query(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    for c in q.chars() {
        if "+-=&|><!(){}[]^~*?:\\/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(crate) fn list_url(s: &State, filter: &str, all_status: bool, page: u32) -> String {
    let mut parts = Vec::new();
    if !s.adv.trim().is_empty() {
        parts.push(format!("query.advanced={}", encode(&s.adv)));
    } else if !s.q.trim().is_empty() {
        // The router's reading of text typed into a search box: the last
        // word by prefix, the typeahead's matches first (core search::typed).
        parts.push(format!(
            "query={}&mode=typed",
            encode(&escape_query(s.q.trim()))
        ));
    }
    if !filter.is_empty() {
        parts.push(format!("filter={}", encode(filter)));
    }
    if let Some(range) = s.established() {
        parts.push(format!("established={}", encode(range)));
    }
    if all_status {
        parts.push("all_status".into());
    }
    if page > 1 {
        parts.push(format!("page={page}"));
    }
    format!("/v2/organizations?{}", parts.join("&"))
}

/// Posts `url` to the registry now; the future parses the answer as `T`.
fn fetch<T: serde::de::DeserializeOwned>(
    url: &str,
) -> impl std::future::Future<Output = Result<T, Failure>> + use<T> {
    let answer = registry_client::request(url);
    async move {
        match answer.await {
            Ok((status, body)) => decode(status, &body),
            Err(e) => Err(Failure::NoAnswer(e.to_string())),
        }
    }
}

/// An API answer: its value, or the registry's message about the request.
fn decode<T: serde::de::DeserializeOwned>(status: u16, body: &str) -> Result<T, Failure> {
    let unreadable = |e: serde_json::Error| Failure::NoAnswer(e.to_string());
    if status < 400 {
        return serde_json::from_str(body).map_err(unreadable);
    }
    let v: Value = serde_json::from_str(body).map_err(unreadable)?;
    Err(Failure::Query(
        v.get("errors")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_else(|| format!("HTTP {status}")),
    ))
}

/// A results page as the list shows it: rows, total, facet counts.
struct Listed {
    rows: Vec<Row>,
    total: u64,
    meta: Value,
}

/// A results page from the pieces without its records (registry-pieces.js `rows`).
#[derive(Deserialize)]
struct PieceRows {
    #[serde(default)]
    hits: Vec<Summary>,
    #[serde(default)]
    meta: Value,
    #[serde(default)]
    number_of_results: u64,
}

/// `url`'s results page: from the pieces' summaries when they answer it —
/// no record is fetched, so a page (and each typed state) costs the pieces
/// alone — unless a row shows successors, whose names only the records
/// carry (`counts_only`: the rows are not shown); else the API's answer.
fn list(
    url: String,
    counts_only: bool,
) -> impl std::future::Future<Output = Result<Listed, Failure>> {
    // Asked at once: the requests of a page are all posted before any is awaited.
    let rows = registry_client::rows(&url);
    async move {
        if let Ok(Some((status, body))) = rows.await {
            match decode::<PieceRows>(status, &body) {
                Ok(p) if counts_only || p.hits.iter().all(|h| h.successors.is_empty()) => {
                    return Ok(Listed {
                        rows: p.hits.iter().map(Row::of_summary).collect(),
                        total: p.number_of_results,
                        meta: p.meta,
                    });
                }
                Err(e @ Failure::Query(_)) => return Err(e),
                _ => {}
            }
        }
        let page: Page = fetch(&url).await?;
        Ok(Listed {
            rows: page.items.iter().map(Row::of_record).collect(),
            total: page.number_of_results,
            meta: page.meta,
        })
    }
}

/// Why a request gave no results page.
enum Failure {
    /// The registry's message about the request (a syntax error, a mistyped id).
    Query(String),
    /// The registry did not answer (its Worker failed): a retry may help.
    NoAnswer(String),
}

/// A results page as the UI reads it.
#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    items: Vec<Value>,
    #[serde(default)]
    meta: Value,
    #[serde(default)]
    number_of_results: u64,
}

/// Results and facet counts for `s`: each facet with a selection counts
/// the query without its own selection (so its other values stay visible
/// with the number they would add); statuses count all statuses. All the
/// requests are posted at once (the Worker answers them in order).
async fn load(s: &State) -> Results {
    // Past the deepest page the API serves, page 500's answer still says
    // how many pages there are (the page says so, rather than the API's
    // range error).
    let asked = s.page.min(MAX_PAGE as u32);
    let main = list(list_url(s, &s.api_filter(None), false, asked), false);
    let own: Vec<_> = FACETS
        .iter()
        .map(|&(key, _, _)| {
            let selected = s.filter.iter().any(|(k, _)| k == key);
            (selected || key == "status").then(|| {
                list(
                    list_url(s, &s.api_filter(Some(key)), key == "status", 1),
                    true,
                )
            })
        })
        .collect();
    let main = match main.await {
        Ok(v) => v,
        Err(e) => {
            let (error, failed) = match e {
                Failure::Query(m) => (m, false),
                Failure::NoAnswer(m) => (m, true),
            };
            return Results {
                q: s.q.clone(),
                error: Some(error),
                failed,
                years: crate::years::Counts::Nothing,
                ..Results::default()
            };
        }
    };
    let mut metas = Vec::new();
    for own in own {
        metas.push(match own {
            // A failed count lists nothing (not the main answer's counts).
            Some(f) => Some(f.await.map(|v| v.meta).unwrap_or(Value::Null)),
            None => None,
        });
    }
    let groups = facet_groups(s, &main.meta, metas);
    Results {
        q: s.q.clone(),
        total: main.total,
        items: main.rows,
        groups,
        error: None,
        failed: false,
        years: crate::years::Counts::of(s),
    }
}

/// The facet groups of a page: each facet's entries from its own count
/// (`own[i]`: the answer without that facet's selection, or `None` to use
/// the main answer's `meta`).
fn facet_groups(s: &State, main: &Value, own: Vec<Option<Value>>) -> Vec<Group> {
    let mut groups = Vec::new();
    for ((key, _, meta_key), own) in FACETS.iter().zip(own) {
        let mut list = entries(own.as_ref().unwrap_or(main), meta_key);
        // Selected values stay listed. One the facet's own answer does not
        // list (it lists the most frequent: Kenya is not among them for
        // `university`) counts in the main answer, which the selection
        // filters: the same records, under the same title; else 0.
        let selected = entries(main, meta_key);
        for (k, v) in &s.filter {
            if k == key && !list.iter().any(|e| e.id.eq_ignore_ascii_case(v)) {
                let found = selected.iter().find(|e| e.id.eq_ignore_ascii_case(v));
                list.push(Entry {
                    id: v.clone(),
                    title: found.map_or_else(|| v.to_uppercase(), |e| e.title.clone()),
                    count: found.map_or(0, |e| e.count),
                });
            }
        }
        let title = match *key {
            "country" => "Country",
            "type" => "Type",
            "status" => "Status",
            _ => "Continent",
        };
        groups.push(Group {
            key,
            title,
            entries: list,
        });
    }
    groups
}

/// What `registry-first.js` painted before this wasm arrived
/// (`window.registryEarlyResults`, JSON text): a results link's page from
/// the pieces, the rows from summaries.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EarlyResults {
    q: String,
    page: u32,
    total: u64,
    hits: Vec<Summary>,
    meta: Value,
    status_meta: Value,
}

/// The early page, when it answers `s` (a plain query, no filter): shown
/// from the first frame, so the app takes over the page without a
/// "Loading…" in between, until its own answer replaces it.
fn early_results(s: &State) -> Option<Results> {
    let text = js_sys::Reflect::get(&window(), &"registryEarlyResults".into())
        .ok()?
        .as_string()?;
    let e: EarlyResults = serde_json::from_str(&text).ok()?;
    if s.id.is_some() || !s.adv.is_empty() || !s.filter.is_empty() || e.q != s.q || e.page != s.page
    {
        return None;
    }
    let own = FACETS
        .iter()
        .map(|&(key, _, _)| (key == "status").then(|| e.status_meta.clone()))
        .collect();
    Some(Results {
        q: e.q,
        total: e.total,
        items: e.hits.iter().map(Row::of_summary).collect(),
        groups: facet_groups(s, &e.meta, own),
        error: None,
        failed: false,
        years: crate::years::Counts::of(s),
    })
}

/// What the count of a query of several words means: the API's reading,
/// any word matches (best matches first), with a link to the words as a
/// phrase, which narrows it. registry-first.js writes the same line.
fn any_word_note(s: &State, go: Callback<State>) -> Option<impl IntoView + use<>> {
    let words: Vec<&str> = s.q.split_whitespace().collect();
    if !s.adv.is_empty() || words.len() < 2 || s.q.contains('"') {
        return None;
    }
    let phrase = words.join(" ");
    let mut t = s.clone();
    t.q = format!("\"{phrase}\"");
    t.page = 1;
    let href = t.href();
    Some(view! {
        <p class="results-note">"Any of these words matches; the best matches come first. "
            <a href=href on:click=move |ev: web_sys::MouseEvent| {
                if ev.ctrl_key() || ev.meta_key() || ev.shift_key() { return; }
                ev.prevent_default();
                go.run(t.clone());
            }>{format!("Only the phrase “{phrase}”")}</a>
        </p>
    })
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

/// The whole app.
#[component]
pub fn App(
    /// The search box's text when it is not the address bar's query (typed
    /// before the app was in; index.html then hands it over as typing).
    #[prop(default = None)]
    typed: Option<String>,
) -> impl IntoView {
    let strings = Strings::default();
    let state = RwSignal::new(url_state::current());
    let info = RwSignal::new(None::<Info>);
    let load_error = RwSignal::new(None::<String>);
    let results = RwSignal::new(early_results(&state.get_untracked()));
    // A results link painted before this wasm arrived stays on screen
    // until the registry is open and its own answer is in.
    let early = results.with_untracked(Option::is_some);
    let seq = StoredValue::new(0u64);
    let typing = StoredValue::new(false);
    // Asks again for the current page's results (after a failed request).
    let retry = Trigger::new();

    let open_registry = move || {
        load_error.set(None);
        spawn_local(async move {
            match registry_client::open(&data_url(), "full").await {
                Ok(i) => info.set(Some(i)),
                Err(e) => load_error.set(Some(e.to_string())),
            }
        });
    };
    open_registry();
    // History while typing: the first time the address bar follows a typed
    // query it gets a new entry (so Back returns to the page before the
    // search); the rest of that typing replaces this entry, and Enter
    // pushes nothing more. Enter, a navigation and Back/Forward end the
    // typing: the next typed query is a new entry again.
    let typed_entry = StoredValue::new(false);
    let _ = window_event_listener(ev::popstate, move |_| {
        typed_entry.set_value(false);
        state.set(url_state::current());
    });

    // The address bar and the title follow the typed query once typing
    // pauses: history.replaceState is a same-document navigation (the
    // browser even reloads the favicon), far too slow for every keystroke.
    let url_seq = StoredValue::new(0u64);
    let show_title = move |s: &State| {
        if s.id.is_none() {
            // Blank text (`?q=%20`) is no query.
            document().set_title(&if s.q.trim().is_empty() {
                "Organization registry".to_string()
            } else {
                format!("{} – Organization registry", s.q.trim())
            });
        }
    };
    // Every other change of state writes the address bar itself (a
    // navigation pushes, Back/Forward come from it): only a typed query
    // is not shown there yet.
    let show_state = move |s: &State| {
        url_seq.update_value(|k| *k += 1);
        show_title(s);
        if typed_entry.get_value() || url_state::shows(s) {
            url_state::sync(s);
        } else {
            url_state::write(s, true);
            typed_entry.set_value(true);
        }
    };
    // (Leaving the page: its entry brought up to date, no new one.)
    let _ = window_event_listener(ev::pagehide, move |_| {
        let s = state.get_untracked();
        show_title(&s);
        url_state::sync(&s);
    });

    // Navigation: a new history entry. The current entry is first brought up
    // to date with what was typed, so Back returns to it.
    let go = Callback::new(move |s: State| {
        show_state(&state.get_untracked());
        url_state::write(&s, true);
        typed_entry.set_value(false);
        state.set(s);
        window().scroll_to_with_x_and_y(0.0, 0.0);
    });

    let text = RwSignal::new(typed.unwrap_or_else(|| state.get_untracked().q));
    let q_memo = Memo::new(move |_| state.with(|s| s.q.clone()));
    Effect::new(move |_| {
        let q = q_memo.get();
        if text.get_untracked() != q {
            text.set(q);
        }
    });
    let adv_text = RwSignal::new(state.get_untracked().adv);
    let adv_memo = Memo::new(move |_| state.with(|s| s.adv.clone()));
    Effect::new(move |_| adv_text.set(adv_memo.get()));

    Effect::new(move |_| {
        retry.track();
        if info.with(Option::is_none) {
            return;
        }
        let s = state.get();
        if s.id.is_some() {
            return;
        }
        let n = seq.get_value() + 1;
        seq.set_value(n);
        let typed = std::mem::take(&mut *typing.write_value());
        let apply = move |s: State| {
            if seq.get_value() != n {
                return; // a newer state (keystroke) superseded this one
            }
            spawn_local(async move {
                let r = load(&s).await;
                if seq.get_value() != n {
                    return; // only the newest state's answer is ever shown
                }
                after_paint(registry_client::answered);
                if typed {
                    // After the next paint, so the suggestions go first.
                    after_paint(move || {
                        if seq.get_value() == n {
                            results.set(Some(r));
                        }
                    });
                } else {
                    results.set(Some(r));
                }
            });
        };
        if !typed {
            show_state(&s);
            apply(s);
            return;
        }
        let k = url_seq.get_value() + 1;
        url_seq.set_value(k);
        set_timeout(
            move || {
                if url_seq.get_value() == k {
                    show_state(&state.get_untracked());
                }
            },
            std::time::Duration::from_millis(URL_DELAY_MS),
        );
        // While typing, the list and facet counts are asked for after the
        // keystroke's frame: the suggestion request was posted first and the
        // Worker answers in order, so it never waits behind them.
        after_paint(move || apply(s));
    });

    let on_edit = Callback::new(move |v: String| {
        let mut s = state.get_untracked();
        let from_record = s.id.take().is_some();
        // Text typed in the search box is what is searched: an advanced
        // query (which the API does not combine with a keyword query, and
        // which would otherwise answer in its place) is dropped — its box
        // empties — and Back returns to its results.
        let from_adv = !std::mem::take(&mut s.adv).is_empty();
        s.q = v;
        s.page = 1;
        typing.set_value(!from_record && !from_adv);
        if from_record || from_adv {
            url_state::write(&s, true); // leaving the record page (or the advanced query) is a navigation
            typed_entry.set_value(true); // whose entry the typing that follows replaces
        }
        state.set(s);
    });
    let on_pick = Callback::new(move |p: Pick| go.run(State::record(&p.id)));
    // A registry id in any form (URL, `ror.org/…`, bare) opens its record,
    // as picking it would: the record API (E1) is the judge of what an id
    // is. A mistyped one stays in the results, which say what is wrong.
    let open_id = move |typed: String| {
        let answer =
            registry_client::request(&format!("/v2/organizations/{}", encode(typed.trim())));
        spawn_local(async move {
            if let Ok((200, body)) = answer.await
                && state.with_untracked(|s| s.id.is_none() && s.q == typed)
                && let Ok(v) = serde_json::from_str::<Value>(&body)
                && let Some(id) = v.get("id").and_then(Value::as_str)
            {
                go.run(State::record(id));
            }
        });
    };
    // Enter before the registry is open: looked up once it is.
    let pending_id = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        if info.with(Option::is_some)
            && let Some(t) = pending_id.get_value()
        {
            pending_id.set_value(None);
            open_id(t);
        }
    });
    let on_enter = Callback::new(move |typed: String| {
        // Enter without a highlighted option: the results below are the answer;
        // the query is a history entry (one: typing's, when it made one).
        show_state(&state.get_untracked());
        typed_entry.set_value(false);
        if typed.trim().is_empty() || typed.trim().contains(char::is_whitespace) {
            return; // an id is one word
        }
        if info.with_untracked(Option::is_some) {
            open_id(typed);
        } else {
            pending_id.set_value(Some(typed));
        }
    });

    let toggle = Callback::new(move |(k, v): (String, String)| {
        let mut s = state.get_untracked();
        if s.has(&k, &v) {
            s.filter.retain(|(a, b)| !(a == &k && b == &v));
        } else {
            if k == crate::years::KEY {
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
        results.with(|r| {
            r.as_ref()
                .map_or(crate::years::Counts::Waiting, |r| r.years.clone())
        })
    });
    let no_filters = Signal::derive(Vec::new);

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
        results
            .with(|r| r.as_ref().and_then(|r| r.error.clone()))
            .filter(|_| state.with(|s| !s.adv.is_empty()))
    };
    let adv_open = state.with_untracked(|s| !s.adv.is_empty());

    // A deploy while the page is open: its answers come from the new
    // release from then on, and the header says so.
    let new_release = RwSignal::new(false);
    registry_client::on_new_release(move |i| {
        info.set(Some(i));
        new_release.set(true);
    });
    let release = move || match (info.get(), load_error.get()) {
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
        _ => strings.loading.clone(),
    };

    let results_view = move || {
        results.with(|r| {
        let Some(r) = r.as_ref() else {
            return view! { <p class="loading" role="status">"Loading…"</p> }.into_any();
        };
        let s = state.get_untracked();
        if r.failed {
            return view! {
                <div class="error" role="alert">
                    <p>"The search could not be run: the registry in this page did not answer. "
                        <button type="button" on:click=move |_| retry.notify()>"Try again"</button></p>
                    <details><summary>"Details"</summary><p>{r.error.clone()}</p></details>
                </div>
            }
            .into_any();
        }
        if let Some(e) = r.error.clone().filter(|_| s.adv.is_empty()) {
            return view! { <p class="error" role="alert">{e}</p> }.into_any();
        }
        let pages = r.total.div_ceil(PER_PAGE).clamp(1, MAX_PAGE) as u32;
        let heading = match r.total {
            0 => "No organizations found".to_string(),
            1 => "1 organization".to_string(),
            n => format!("{} organizations", crate::grouped(n)),
        };
        // Text with nothing to search for is not "nothing found".
        let nothing_to_search = r.total == 0
            && s.adv.is_empty()
            && !s.q.trim().is_empty()
            && !s.q.chars().any(char::is_alphanumeric);
        if nothing_to_search {
            return view! {
                <h2 id="results-h" class="results-h" tabindex="-1" data-total=0>{heading}</h2>
                <p class="notice" role="status">{format!(
                    "“{}” has no letters or digits to search for: type a name, an acronym or an identifier. \
                     Field queries and operators go in “Advanced query”.",
                    s.q.trim()
                )}</p>
            }
            .into_any();
        }
        let items = r
            .items
            .iter()
            .map(|row| {
                let Row { id, name, status, meta, successors } = row.clone();
                let succ = (status != "active" && !successors.is_empty()).then(|| {
                    let links = successors.iter().map(|(i, l)| view! { <span>{record_link(i, l, go)}</span> }).collect_view();
                    view! { <p class="succ">"Successor: "{links}</p> }
                });
                let badge = (status != "active").then(|| view! { <span class="badge" data-status=status.clone()>{title_case(&status)}</span> });
                view! {
                    <li class="result" data-status=status.clone() data-id=bare_id(&id).to_string()>
                        <h3>{record_link(&id, &name, go)}" "{badge}</h3>
                        <p class="meta">{meta}</p>
                        <p class="rid">{id.clone()}</p>
                        {succ}
                    </li>
                }
            })
            .collect_view();
        let page_link = move |p: u32, label: String, rel: Option<&'static str>| {
            let mut t = state.get_untracked();
            t.page = p;
            let href = t.href();
            view! {
                <a href=href rel=rel on:click=move |ev: web_sys::MouseEvent| {
                    if ev.ctrl_key() || ev.meta_key() || ev.shift_key() { return; }
                    ev.prevent_default();
                    go.run(t.clone());
                }>{label}</a>
            }
        };
        // A page past the last (an old link, an edited URL): say so, with a
        // way to the last page, instead of an empty list.
        if s.page > pages && r.total > 0 {
            let all = r.total.div_ceil(PER_PAGE);
            let why = if all > MAX_PAGE {
                format!("There is no page {} to show: this search has {} pages, of which the first {MAX_PAGE} can be shown (filters narrow it).", s.page, crate::grouped(all))
            } else if pages == 1 {
                format!("There is no page {}: this search has 1 page.", s.page)
            } else {
                format!("There is no page {}: this search has {pages} pages.", s.page)
            };
            return view! {
                <h2 id="results-h" class="results-h" tabindex="-1" data-total=r.total>{heading}</h2>
                <p class="notice" role="status" data-pages=pages>{why}" "
                    {page_link(pages, if pages == 1 { "Show the results".to_string() } else { format!("Go to the last page ({pages})") }, None)}
                    {(pages > 1).then(|| view! { " · " {page_link(1, "the first page".to_string(), None)} })}
                </p>
            }
            .into_any();
        }
        // Nothing found: no list, and one next step instead (the facets
        // and their map link are hidden, see `.layout[data-results]`).
        if r.total == 0 && r.error.is_none() {
            let words = s.q.split_whitespace().count();
            let hint = if !s.filter.is_empty() {
                Some("No organization matches all of the selected filters. ")
            } else if !s.adv.is_empty() {
                Some("Nothing matches this query: check its field names and values, or ask for less.")
            } else if words > 1 {
                Some("Try fewer words, or check the spelling.")
            } else if words == 1 {
                Some("Check the spelling, or try a shorter part of the name.")
            } else {
                None
            };
            let clear_filters = (!s.filter.is_empty()).then(|| view! {
                <button type="button" class="link" on:click=move |_| clear.run(())>"Clear the filters"</button>
            });
            return view! {
                <h2 id="results-h" class="results-h" tabindex="-1" data-total=0>{heading}</h2>
                {hint.map(|h| view! { <p class="notice" role="status">{h}{clear_filters}</p> })}
            }
            .into_any();
        }
        let page = s.page;
        // List or map (crate::dots): the map shows every match, not a page.
        let toggle = (r.total > 0).then(|| view! { <crate::dots::ViewToggle state=s.clone() go=go /> });
        if s.map && r.total > 0 {
            return view! {
                <h2 id="results-h" class="results-h" tabindex="-1" data-total=r.total>{heading}</h2>
                {any_word_note(&s, go)}
                {toggle}
                <crate::dots::ResultsMap state=s />
            }
            .into_any();
        }
        view! {
            <h2 id="results-h" class="results-h" tabindex="-1" data-total=r.total>{heading}</h2>
            {any_word_note(&s, go)}
            {toggle}
            <ol class="results" aria-labelledby="results-h">{items}</ol>
            <nav class="pager" aria-label="Pages" hidden=pages <= 1>
                {(page > 1).then(|| page_link(page - 1, "← Previous".into(), Some("prev")))}
                <span class="page-no">{format!("Page {page} of {pages}")}</span>
                {(page < pages).then(|| page_link(page + 1, "Next →".into(), Some("next")))}
            </nav>
        }
        .into_any()
    })
    };

    // Only a change of page kind (results ↔ record) rebuilds the main view.
    let id_memo = Memo::new(move |_| state.with(|s| s.id.clone()));
    let ready = Memo::new(move |_| info.with(Option::is_some));
    let main_view = move || {
        match id_memo.get() {
        Some(id) if !ready.get() && load_error.with(Option::is_none) => crate::record_view::loading_view(&id),
        _ if !ready.get() && (!early || load_error.with(Option::is_some)) => view! {
            {move || load_error.get().map(|e| view! {
                <div class="load-failed" role="alert">
                    <p><strong>"The registry could not be loaded."</strong>" Check your connection, then try again."</p>
                    <p><button type="button" on:click=move |_| open_registry()>"Try again"</button></p>
                    <details><summary>"Details"</summary><p>{e}</p></details>
                </div>
            })}
        }.into_any(),
        Some(id) => view! { <RecordView id=id go=go /> }.into_any(),
        None => view! {
            <div class="layout" data-results=move || results.with(|r| match r {
                    Some(r) if r.total == 0 => "none",
                    _ => "some",
                })>
                // Keyboard users would otherwise tab through every facet
                // checkbox (about 35 stops) before the first result.
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
                <Facets groups=groups years=years selection=filter on_toggle=toggle on_clear=clear
                    results_map=results_map />
                <section class="results-col" tabindex="-1" aria-live="off"
                    data-for=move || results.with(|r| r.as_ref().map(|r| r.q.clone()))>{results_view}</section>
            </div>
        }
        .into_any(),
    }
    };

    view! {
        <header class="top">
            <a class="brand" href="./">"Organization registry"</a>
            <p class="release" id="release">{release}</p>
        </header>
        <main id="main">
            <search class="search" aria-label="Organizations">
                <Combobox id="q" label="Search organizations by name, acronym or identifier" text=text filters=no_filters
                    on_pick=on_pick on_enter=on_enter on_edit=on_edit limit=8
                    placeholder="Name, acronym or identifier" />
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
            </search>
            {main_view}
        </main>
        <footer class="foot"><a href="match.html">"Match a list"</a>" · "<a href="widget-demo.html">"Form widget demo"</a>" · "<a href="api.html">"Local API"</a></footer>
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
