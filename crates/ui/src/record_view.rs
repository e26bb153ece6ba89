//! The record page: every field of the v2 record, readable by a person.
//! Record text is only rendered as text; links from the data become `<a>`
//! only when they are http(s) URLs.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::map::RecordMap;
use crate::record::{
    arr, display_name, ext_link, geo, has_type, is_display, record_link, relations, s, types,
};
use crate::registry_client::{self, bare_id};
use crate::title_case;
use crate::url_state::State;

/// The page of an external id at its kind's resolver.
type Resolver = fn(&str) -> String;

/// An external id kind by the name people know it by, and the page of one
/// of its ids at the kind's resolver, when it has one (GRID's was retired
/// in 2021: its ids are shown as text).
fn external_kind(kind: &str) -> (String, Option<Resolver>) {
    fn isni(v: &str) -> String {
        format!("https://isni.org/isni/{}", v.replace(' ', ""))
    }
    fn wikidata(v: &str) -> String {
        format!("https://www.wikidata.org/wiki/{v}")
    }
    fn funder(v: &str) -> String {
        format!("https://doi.org/10.13039/{v}")
    }
    match kind.to_ascii_lowercase().as_str() {
        "isni" => ("ISNI".into(), Some(isni)),
        "wikidata" | "open_kb" => ("Wikidata".into(), Some(wikidata)),
        "fundref" | "funder_registry" => ("Crossref Funder ID (FundRef)".into(), Some(funder)),
        "grid" => ("GRID".into(), None),
        other => (title_case(&other.replace('_', " ")), None),
    }
}

/// Values of one external id kind shown before "Show all".
const IDS_SHOWN: usize = 5;

fn name_type_title(t: &str) -> &'static str {
    match t {
        "ror_display" | "registry_display" => "Display name",
        "label" => "Labels (names in other languages)",
        "alias" => "Aliases",
        "acronym" => "Acronyms",
        _ => "Other names",
    }
}

fn copy_text(text: &str) {
    // navigator.clipboard.writeText, without extra web-sys features.
    let nav = window().navigator();
    if let Ok(cb) = js_sys::Reflect::get(&nav, &"clipboard".into())
        && let Ok(f) = js_sys::Reflect::get(&cb, &"writeText".into())
    {
        let f: js_sys::Function = wasm_bindgen::JsCast::unchecked_into(f);
        let _ = f.call1(&cb, &text.into());
    }
}

/// The name `index.html` painted for `id` from its record card before any
/// wasm had arrived (`window.registryEarlyRecord`), kept on screen until
/// the full record is in.
pub fn early_name(id: &str) -> Option<String> {
    let card = js_sys::Reflect::get(&window(), &"registryEarlyRecord".into()).ok()?;
    let get = |k: &str| js_sys::Reflect::get(&card, &k.into()).ok()?.as_string();
    let wanted = bare_id(id.trim().trim_end_matches('/'));
    bare_id(&get("id")?)
        .eq_ignore_ascii_case(wanted)
        .then(|| get("name"))
        .flatten()
}

/// What a record page shows while its record loads: the early name, if any.
pub fn loading_view(id: &str) -> AnyView {
    match early_name(id) {
        Some(name) => view! {
            <section class="record">
                <h1 id="record-title" tabindex="-1">{name}</h1>
                <p class="loading" role="status">"Loading the record…"</p>
            </section>
        }
        .into_any(),
        None => view! { <p class="loading" role="status">"Loading the record…"</p> }.into_any(),
    }
}

/// The record page for `id`.
#[component]
pub fn RecordView(
    /// Bare or full id.
    id: String,
    /// Navigates to another page state.
    go: Callback<State>,
) -> impl IntoView {
    let record = RwSignal::new(None::<Result<Value, String>>);
    let raw = RwSignal::new(None::<(u8, String)>);
    let copied = RwSignal::new(false);
    load_record(&id, record);
    move || match record.get() {
        None => loading_view(&id),
        Some(Err(e)) => view! {
            <section class="record">
                <h1 id="record-title" tabindex="-1">"Record not found"</h1>
                <p class="error" role="alert">{e}</p>
            </section>
        }
        .into_any(),
        Some(Ok(r)) => record_page(&r, go, raw, copied),
    }
}

/// Asks for record `id` into `record` (the record, or what to tell the
/// reader); once it is painted, the title names it, its heading takes the
/// focus and the whole data may follow.
fn load_record(id: &str, record: RwSignal<Option<Result<Value, String>>>) {
    let path = format!("/v2/organizations/{}", crate::url_state::encode(id));
    spawn_local(async move {
        let r = match registry_client::request(&path).await {
            Ok((200, body)) => serde_json::from_str::<Value>(&body).map_err(|e| e.to_string()),
            Ok((_, body)) => Err(serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| {
                    v.get("errors").and_then(Value::as_array).map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                })
                .unwrap_or_else(|| "This record could not be loaded.".into())),
            Err(e) => Err(format!(
                "The registry in this page did not answer ({e}); reload the page to try again."
            )),
        };
        if let Ok(v) = &r {
            document().set_title(&format!("{} – Organization registry", display_name(v)));
        }
        record.set(Some(r));
        // After this frame's paint: the whole data may follow now.
        request_animation_frame(|| {
            set_timeout(registry_client::answered, std::time::Duration::ZERO)
        });
        request_animation_frame(|| {
            if let Some(h) = document().get_element_by_id("record-title") {
                let h: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(h);
                let _ = h.focus();
            }
        });
    });
}

/// Shows the record's raw JSON in API `version` under the page, or hides it
/// when that version is shown.
fn toggle_raw(raw: RwSignal<Option<(u8, String)>>, version: u8, id: String) {
    if raw.with_untracked(|r| r.as_ref().is_some_and(|(v, _)| *v == version)) {
        raw.set(None);
        return;
    }
    spawn_local(async move {
        let path = format!("/v{version}/organizations/{}", bare_id(&id));
        if let Ok((_, body)) = registry_client::request(&path).await {
            let pretty = serde_json::from_str::<Value>(&body)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or(body);
            raw.set(Some((version, pretty)));
        }
    });
}

/// The page of record `r`. One rule for the whole page: a section or fact
/// with nothing in it is left out, as the name groups, the successor
/// callout and the family section always were (a heading over nothing
/// reads as "failed to load"). "—" stays only inside a table row, where a
/// cell must hold its column.
fn record_page(
    r: &Value,
    go: Callback<State>,
    raw: RwSignal<Option<(u8, String)>>,
    copied: RwSignal<bool>,
) -> AnyView {
    let id = s(r, "id").unwrap_or_default().to_string();
    let status = s(r, "status").unwrap_or("active").to_string();
    let name = display_name(r);
    let tombstone =
        (status != "active").then(|| tombstone_view(&status, &relations(r, "successor"), go));
    let types = types(r);
    let established = r
        .get("established")
        .and_then(Value::as_i64)
        .map(|y| y.to_string());
    let domains = arr(r, "domains")
        .iter()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let id_copy = id.clone();
    let badge_status = status.clone();
    view! {
        <article class="record" data-status=status.clone()>
            <p><button type="button" class="link back" on:click=move |_| {
                // The browser's back restores the results and their
                // scroll, but from a shared link it would leave the app.
                if crate::url_state::came_from_app() {
                    let _ = window().history().map(|h| h.back());
                } else {
                    go.run(State::parse(""));
                }
            }>"← Back"</button></p>
            <h1 id="record-title" tabindex="-1">{name}" "<span class="badge" data-status=badge_status.clone()>{title_case(&badge_status)}</span></h1>
            {tombstone}
            <p class="record-id">"ID: "<code id="record-id">{id.clone()}</code>" "
                <button type="button" on:click=move |_| { copy_text(&id_copy); copied.set(true); }>"Copy ID"</button>
                <span role="status" class="copied">{move || copied.get().then_some(" Copied")}</span>
            </p>
            <dl class="facts">
                {(!types.is_empty()).then(|| view! { <dt>"Types"</dt><dd>{types}</dd> })}
                {established.map(|y| view! { <dt>"Established"</dt><dd>{y}</dd> })}
                {(!domains.is_empty()).then(|| view! { <dt>"Domains"</dt><dd>{domains}</dd> })}
            </dl>
            <section aria-labelledby="h-names"><h2 id="h-names">"Names"</h2>{names_view(r)}</section>
            {locations_view(r)}
            {crate::family::family_view(r, go)}
            {links_view(r)}
            {external_ids_view(r)}
            {history_view(r)}
            {raw_view(id, raw)}
        </article>
    }
    .into_any()
}

/// The callout of a record that is not active: its successors, or that
/// none is recorded.
fn tombstone_view(
    status: &str,
    successors: &[(String, String)],
    go: Callback<State>,
) -> impl IntoView + use<> {
    let links = successors
        .iter()
        .map(|(i, l)| view! { <li>{record_link(i, l, go)}</li> })
        .collect_view();
    let has = !successors.is_empty();
    view! {
        <div class="callout" data-status=status.to_string()>
            <p><strong>{format!("This organization is {status}.")}</strong>
            {if has { " It has been succeeded by:" } else { " No successor is recorded." }}</p>
            <ul class="successors">{links}</ul>
        </div>
    }
}

/// The names grouped by type, then language.
fn names_view(r: &Value) -> impl IntoView + use<> {
    let names = arr(r, "names");
    ["ror_display", "label", "alias", "acronym"].into_iter().filter_map(|t| {
        let mut ns: Vec<(String, String)> = names
            .iter()
            .filter(|n| if t == "ror_display" { is_display(n) } else { has_type(n, t) })
            .map(|n| (s(n, "lang").unwrap_or("").to_string(), s(n, "value").unwrap_or_default().to_string()))
            .collect();
        if ns.is_empty() {
            return None;
        }
        ns.sort();
        let items = ns.into_iter().map(|(lang, value)| {
            let lang_attr = (!lang.is_empty()).then(|| lang.clone());
            let tag = if lang.is_empty() { "no language".to_string() } else { lang.clone() };
            view! { <li><span lang=lang_attr class="name-value">{value}</span>" "<span class="lang">{format!("({tag})")}</span></li> }
        }).collect_view();
        Some(view! { <div class="names-group" data-name-type=t><h3>{name_type_title(t)}</h3><ul>{items}</ul></div> })
    }).collect_view()
}

/// The locations as a table (city, subdivision, country, continent,
/// coordinates) over their map.
fn locations_view(r: &Value) -> Option<impl IntoView + use<>> {
    let locations = arr(r, "locations");
    if locations.is_empty() {
        return None;
    }
    let places = crate::map::places(locations);
    let rows = locations.iter().map(location_row).collect_view();
    Some(
        view! { <section aria-labelledby="h-loc"><h2 id="h-loc">"Locations"</h2>
            <table class="locations"><thead><tr><th scope="col">"City"</th><th scope="col">"Subdivision"</th><th scope="col">"Country"</th><th scope="col">"Continent"</th><th scope="col">"Coordinates"</th></tr></thead>
            <tbody>{rows}</tbody></table>
            <RecordMap places=places />
        </section> },
    )
}

/// One location's row; the city links to its GeoNames page.
fn location_row(l: &Value) -> impl IntoView + use<> {
    let g = geo(l);
    let geo_id = l
        .get("geonames_id")
        .or_else(|| l.get("geo_id"))
        .and_then(Value::as_u64);
    let city = s(g, "name").unwrap_or("").to_string();
    let sub = match (
        s(g, "country_subdivision_name"),
        s(g, "country_subdivision_code"),
    ) {
        (Some(n), Some(c)) => format!("{n} ({c})"),
        (Some(n), None) => n.to_string(),
        _ => "—".to_string(),
    };
    let country = format!(
        "{} ({})",
        s(g, "country_name").unwrap_or(""),
        s(g, "country_code").unwrap_or("")
    );
    let continent = match (s(g, "continent_name"), s(g, "continent_code")) {
        (Some(n), Some(c)) => format!("{n} ({c})"),
        // A place without one (schema 2.0) is in its country's
        // continent, as the facets, filters and query.advanced count it.
        (_, code) => registry_core::continent::of_place(code, s(g, "country_code").unwrap_or(""))
            .map(|i| registry_core::continent::CONTINENTS[i])
            .map_or_else(|| "—".to_string(), |(c, n)| format!("{n} ({c})")),
    };
    let coords = match (
        g.get("lat").and_then(Value::as_f64),
        g.get("lng").and_then(Value::as_f64),
    ) {
        (Some(a), Some(b)) => format!("{a}, {b}"),
        _ => "—".into(),
    };
    let city_cell = match geo_id {
        Some(gid) => ext_link(&format!("https://www.geonames.org/{gid}"), &city),
        None => city.into_any(),
    };
    view! { <tr><td>{city_cell}</td><td>{sub}</td><td>{country}</td><td>{continent}</td><td>{coords}</td></tr> }
}

/// The external identifiers, a row per kind: the preferred id first, each
/// linked to its kind's resolver, a long list behind "Show all".
fn external_ids_view(r: &Value) -> Option<impl IntoView + use<>> {
    let ids = arr(r, "external_ids");
    if ids.is_empty() {
        return None;
    }
    let rows = ids.iter().map(|e| {
        let kind = s(e, "type").unwrap_or("").to_string();
        let (title, url) = external_kind(&kind);
        let preferred = s(e, "preferred").map(String::from);
        // The preferred id first, then the data's order.
        let mut all: Vec<&str> = arr(e, "all").iter().filter_map(Value::as_str).collect();
        all.sort_by_key(|v| preferred.as_deref() != Some(*v));
        let n = all.len();
        // Hiding one id behind a button would save nothing.
        let many = n > IDS_SHOWN + 1;
        let expanded = RwSignal::new(false);
        let values = all.into_iter().enumerate().map(|(i, v)| {
            let is_pref = preferred.as_deref() == Some(v);
            let shown = match url { Some(u) => ext_link(&u(v), v), None => v.to_string().into_any() };
            let later = many && i >= IDS_SHOWN;
            view! { <li hidden=move || later && !expanded.get()>{shown}{is_pref.then_some(" (preferred)")}</li> }
        }).collect_view();
        let more = many.then(|| view! {
            <button type="button" class="link show-all" aria-expanded=move || expanded.get().to_string()
                on:click=move |_| expanded.update(|x| *x = !*x)>
                {move || if expanded.get() { format!("Show the first {IDS_SHOWN}") } else { format!("Show all {n}") }}
            </button>
        });
        view! { <tr data-kind=kind.clone()><th scope="row">{title}</th><td><ul class="plain ids" class:many=many>{values}</ul>{more}</td></tr> }
    }).collect_view();
    Some(
        view! { <section aria-labelledby="h-ext"><h2 id="h-ext">"External identifiers"</h2><table class="ext"><tbody>{rows}</tbody></table></section> },
    )
}

/// The record's links (website, Wikipedia), each an `<a>` when http(s).
fn links_view(r: &Value) -> Option<impl IntoView + use<>> {
    let links = arr(r, "links");
    if links.is_empty() {
        return None;
    }
    let items = links
        .iter()
        .map(|l| {
            let kind = title_case(s(l, "type").unwrap_or("link"));
            let url = s(l, "value").unwrap_or("").to_string();
            view! { <li>{kind}": "{ext_link(&url, &url)}</li> }
        })
        .collect_view();
    Some(
        view! { <section aria-labelledby="h-links"><h2 id="h-links">"Links"</h2><ul class="links">{items}</ul></section> },
    )
}

/// When the record was created and last modified, with the schema of each.
fn history_view(r: &Value) -> impl IntoView + use<> {
    let admin = r.get("admin").cloned().unwrap_or(Value::Null);
    let adm = |k: &str| {
        let a = admin.get(k).cloned().unwrap_or(Value::Null);
        format!(
            "{} (schema {})",
            s(&a, "date").unwrap_or("—"),
            s(&a, "schema_version").unwrap_or("—")
        )
    };
    let (created, modified) = (adm("created"), adm("last_modified"));
    view! {
        <section aria-labelledby="h-admin"><h2 id="h-admin">"Record history"</h2>
            <dl class="facts"><dt>"Created"</dt><dd>{created}</dd><dt>"Last modified"</dt><dd>{modified}</dd></dl>
        </section>
    }
}

/// The record's raw JSON, v2 or v1, on demand.
fn raw_view(id: String, raw: RwSignal<Option<(u8, String)>>) -> impl IntoView {
    let id_v1 = id.clone();
    view! {
        <section aria-labelledby="h-raw"><h2 id="h-raw">"Raw data"</h2>
            <p><button type="button" on:click=move |_| toggle_raw(raw, 2, id.clone())>"View v2 JSON"</button>" "
            <button type="button" on:click=move |_| toggle_raw(raw, 1, id_v1.clone())>"View v1 JSON"</button></p>
            {move || raw.get().map(|(v, text)| view! { <pre class="raw" data-version=v tabindex="0" aria-label=format!("v{v} JSON")>{text}</pre> })}
        </section>
    }
}
