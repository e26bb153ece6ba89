//! The results column of the search page: asking the registry for a
//! results page and its facet counts (from the pieces' summaries when they
//! answer it, else the API), and drawing what the answer says — the list
//! with its pager, the matches on the map, or why there is nothing to list.

use leptos::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use crate::dots::{ResultsMap, ViewToggle};
use crate::facets::Group;
use crate::meta::{Entry, entries};
use crate::record::{acronyms, display_name, first_place, record_link, relations, types};
use crate::registry_client::{self, Summary, bare_id};
use crate::title_case;
use crate::url_state::{FACETS, State};
use crate::years::Counts;

/// Results per page (the API's).
const PER_PAGE: u64 = 20;
/// Deepest page the API serves.
const MAX_PAGE: u64 = 500;

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
pub struct Results {
    /// The query text these results answer (`data-for` on the results column).
    pub q: String,
    /// How many organizations match.
    pub total: u64,
    items: Vec<Row>,
    /// The facets' values and counts.
    pub groups: Vec<Group>,
    /// The registry's message about the query, or why it did not answer.
    pub error: Option<String>,
    /// The registry did not answer (not a message about the query): worth a retry.
    failed: bool,
    /// What the years facet counts for these results.
    pub years: Counts,
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
        let page: ApiPage = fetch(&url).await?;
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
struct ApiPage {
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
pub async fn load(s: &State) -> Results {
    // Past the deepest page the API serves, page 500's answer still says
    // how many pages there are (the page says so, rather than the API's
    // range error).
    let asked = s.page.min(MAX_PAGE as u32);
    let main = list(s.list_url(&s.api_filter(None), false, asked), false);
    let own: Vec<_> = FACETS
        .iter()
        .map(|&(key, _, _)| {
            let selected = s.filter.iter().any(|(k, _)| k == key);
            (selected || key == "status").then(|| {
                list(
                    s.list_url(&s.api_filter(Some(key)), key == "status", 1),
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
                years: Counts::Nothing,
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
        years: Counts::of(s),
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
pub fn early_results(s: &State) -> Option<Results> {
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
        years: Counts::of(s),
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

/// The results column: the answer on screen as [`answer_view`] draws it,
/// "Loading…" until there is one.
#[component]
pub fn ResultsColumn(
    /// The results on screen.
    results: RwSignal<Option<Results>>,
    /// The page state.
    state: RwSignal<State>,
    /// Asks again for the current page's results.
    retry: Trigger,
    /// Navigates to a state.
    go: Callback<State>,
    /// Clears the selected filters.
    clear: Callback<()>,
) -> impl IntoView {
    move || {
        results.with(|r| match r.as_ref() {
            None => view! { <p class="loading" role="status">"Loading…"</p> }.into_any(),
            Some(r) => answer_view(r, state.get_untracked(), retry, go, clear),
        })
    }
}

/// What an answer says, in the order the cases are told apart: the
/// registry did not answer; its message about the query (an advanced
/// query's is shown under its box instead); text with nothing to search
/// for; a page past the last; nothing found; else the matches.
fn answer_view(
    r: &Results,
    s: State,
    retry: Trigger,
    go: Callback<State>,
    clear: Callback<()>,
) -> AnyView {
    if r.failed {
        return failed_view(r.error.clone(), retry);
    }
    if let Some(e) = r.error.clone().filter(|_| s.adv.is_empty()) {
        return view! { <p class="error" role="alert">{e}</p> }.into_any();
    }
    let pages = r.total.div_ceil(PER_PAGE).clamp(1, MAX_PAGE) as u32;
    // Text with nothing to search for is not "nothing found".
    let nothing_to_search = r.total == 0
        && s.adv.is_empty()
        && !s.q.trim().is_empty()
        && !s.q.chars().any(char::is_alphanumeric);
    if nothing_to_search {
        return nothing_to_search_view(&s);
    }
    if s.page > pages && r.total > 0 {
        return past_last_page_view(r.total, pages, &s, go);
    }
    if r.total == 0 && r.error.is_none() {
        return nothing_found_view(&s, clear);
    }
    matches_view(r, pages, s, go)
}

/// The heading over every answer: how many organizations match.
fn heading(total: u64) -> impl IntoView {
    let text = match total {
        0 => "No organizations found".to_string(),
        1 => "1 organization".to_string(),
        n => format!("{} organizations", crate::grouped(n)),
    };
    view! { <h2 id="results-h" class="results-h" tabindex="-1" data-total=total>{text}</h2> }
}

/// The registry in the page did not answer: a retry may help, the
/// technical reason is under "Details".
fn failed_view(error: Option<String>, retry: Trigger) -> AnyView {
    view! {
        <div class="error" role="alert">
            <p>"The search could not be run: the registry in this page did not answer. "
                <button type="button" on:click=move |_| retry.notify()>"Try again"</button></p>
            <details><summary>"Details"</summary><p>{error}</p></details>
        </div>
    }
    .into_any()
}

/// Text without a letter or digit: what to type instead.
fn nothing_to_search_view(s: &State) -> AnyView {
    view! {
        {heading(0)}
        <p class="notice" role="status">{format!(
            "“{}” has no letters or digits to search for: type a name, an acronym or an identifier. \
             Field queries and operators go in “Advanced query”.",
            s.q.trim()
        )}</p>
    }
    .into_any()
}

/// A page past the last (an old link, an edited URL): says so, with a way
/// to the last page, instead of an empty list.
fn past_last_page_view(total: u64, pages: u32, s: &State, go: Callback<State>) -> AnyView {
    let all = total.div_ceil(PER_PAGE);
    let why = if all > MAX_PAGE {
        format!(
            "There is no page {} to show: this search has {} pages, of which the first {MAX_PAGE} can be shown (filters narrow it).",
            s.page,
            crate::grouped(all)
        )
    } else if pages == 1 {
        format!("There is no page {}: this search has 1 page.", s.page)
    } else {
        format!(
            "There is no page {}: this search has {pages} pages.",
            s.page
        )
    };
    let last = if pages == 1 {
        "Show the results".to_string()
    } else {
        format!("Go to the last page ({pages})")
    };
    view! {
        {heading(total)}
        <p class="notice" role="status" data-pages=pages>{why}" "
            {page_link(s, pages, last, None, go)}
            {(pages > 1).then(|| view! { " · " {page_link(s, 1, "the first page".to_string(), None, go)} })}
        </p>
    }
    .into_any()
}

/// Nothing found: no list, and one next step instead (the facets and
/// their map link are hidden, see `.layout[data-results]`).
fn nothing_found_view(s: &State, clear: Callback<()>) -> AnyView {
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
    view! {
        {heading(0)}
        {hint.map(|h| view! { <p class="notice" role="status">{h}{clear_filters}</p> })}
    }
    .into_any()
}

/// The matches: as a list with its pager, or (`view=map`) as dots on the
/// world map, which shows every match, not a page (`crate::dots`).
fn matches_view(r: &Results, pages: u32, s: State, go: Callback<State>) -> AnyView {
    let toggle = (r.total > 0).then(|| view! { <ViewToggle state=s.clone() go=go /> });
    if s.map && r.total > 0 {
        return view! {
            {heading(r.total)}
            {any_word_note(&s, go)}
            {toggle}
            <ResultsMap state=s />
        }
        .into_any();
    }
    let page = s.page;
    view! {
        {heading(r.total)}
        {any_word_note(&s, go)}
        {toggle}
        <ol class="results" aria-labelledby="results-h">{result_items(&r.items, go)}</ol>
        <nav class="pager" aria-label="Pages" hidden=pages <= 1>
            {(page > 1).then(|| page_link(&s, page - 1, "← Previous".into(), Some("prev"), go))}
            <span class="page-no">{format!("Page {page} of {pages}")}</span>
            {(page < pages).then(|| page_link(&s, page + 1, "Next →".into(), Some("next"), go))}
        </nav>
    }
    .into_any()
}

/// The rows of the list: each a link to its record, its status unless
/// active, and the successors of one that is not.
fn result_items(rows: &[Row], go: Callback<State>) -> impl IntoView + use<> {
    rows.iter()
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
        .collect_view()
}

/// A link to page `p` of the results of `s` (a new history entry; a
/// modified click is left to the browser).
fn page_link(
    s: &State,
    p: u32,
    label: String,
    rel: Option<&'static str>,
    go: Callback<State>,
) -> impl IntoView + use<> {
    let mut t = s.clone();
    t.page = p;
    let href = t.href();
    view! {
        <a href=href rel=rel on:click=move |ev: web_sys::MouseEvent| {
            if ev.ctrl_key() || ev.meta_key() || ev.shift_key() { return; }
            ev.prevent_default();
            go.run(t.clone());
        }>{label}</a>
    }
}
