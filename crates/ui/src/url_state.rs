//! All page state lives in the query string of the page's own URL
//! (`?q=…&filter=…&page=…&adv=…`, or `?id=<id>` for a record), so links are
//! shareable, back/forward work, and nothing assumes the site root: every
//! URL is relative to the document, which works under any sub-path.

use wasm_bindgen::JsValue;

/// Facets: (URL key, API filter field, `meta` key).
pub const FACETS: [(&str, &str, &str); 4] = [
    ("country", "country.country_code", "countries"),
    ("type", "types", "types"),
    ("status", "status", "statuses"),
    (
        "continent",
        "locations.geo_details.continent_code",
        "continents",
    ),
];

/// The URL filter key of the established-years range (one value at most;
/// the facet is `years.rs`). A URL key, not an API filter field: it goes to
/// the router as `established=`.
pub const ESTABLISHED: &str = "established";

/// The page state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Keyword query.
    pub q: String,
    /// Advanced (E3) query expression.
    pub adv: String,
    /// Selected facet values: (URL facet key, value), in selection order.
    pub filter: Vec<(String, String)>,
    /// Results page (1-based).
    pub page: u32,
    /// Record shown (bare or full id), instead of the results.
    pub id: Option<String>,
    /// The results as dots on a world map (`view=map`) instead of a list.
    pub map: bool,
}

/// Percent-encodes a URL component (everything but unreserved characters).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes a query-string component (`+` is a space).
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(
                    std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("zz"),
                    16,
                ) {
                    Ok(v) => {
                        out.push(v);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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

impl State {
    /// Parses a query string (with or without the leading `?`).
    pub fn parse(search: &str) -> State {
        let mut s = State {
            page: 1,
            ..State::default()
        };
        for pair in search
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode(v);
            match k {
                "q" => s.q = v,
                "adv" => s.adv = v,
                "page" => s.page = v.parse().unwrap_or(1).max(1),
                "id" if !v.is_empty() => s.id = Some(v),
                "view" => s.map = v == "map",
                "filter" => {
                    for piece in v.split(',') {
                        if let Some((fk, fv)) = piece.split_once(':')
                            && (FACETS.iter().any(|f| f.0 == fk) || fk == ESTABLISHED)
                            && !fv.is_empty()
                            && !s.has(fk, fv)
                        {
                            s.filter.push((fk.to_string(), fv.to_string()));
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    /// The query string (`?…`, or empty for the default state).
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        if let Some(id) = &self.id {
            parts.push(format!("id={}", encode(id)));
        } else {
            if !self.q.is_empty() {
                parts.push(format!("q={}", encode(&self.q)));
            }
            if !self.adv.is_empty() {
                parts.push(format!("adv={}", encode(&self.adv)));
            }
            if !self.filter.is_empty() {
                let f: Vec<String> = self
                    .filter
                    .iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect();
                parts.push(format!("filter={}", encode(&f.join(","))));
            }
            if self.map {
                parts.push("view=map".into());
            }
            if self.page > 1 {
                parts.push(format!("page={}", self.page));
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }

    /// The established-years range selected (E3's range syntax), if any.
    pub fn established(&self) -> Option<&str> {
        self.filter
            .iter()
            .find(|(k, _)| k == ESTABLISHED)
            .map(|(_, v)| v.as_str())
    }

    /// Whether a facet value is selected.
    pub fn has(&self, key: &str, value: &str) -> bool {
        self.filter.iter().any(|(k, v)| k == key && v == value)
    }

    /// The API `filter` value, leaving out facet `except`.
    pub fn api_filter(&self, except: Option<&str>) -> String {
        let mut out = Vec::new();
        for (k, v) in &self.filter {
            if Some(k.as_str()) == except {
                continue;
            }
            if let Some(f) = FACETS.iter().find(|f| f.0 == k) {
                let v = if k == "country" || k == "continent" {
                    v.to_uppercase()
                } else {
                    v.clone()
                };
                out.push(format!("{}:{v}", f.1));
            }
        }
        out.join(",")
    }

    /// The API request (`/v2/organizations?…`) for this state's query and
    /// range with `filter` (the API's, see [`State::api_filter`]), every
    /// status when `all_status`, at `page`: the results list, each facet's
    /// own count and the maps all ask it, so they count the same matches.
    pub fn list_url(&self, filter: &str, all_status: bool, page: u32) -> String {
        let mut parts = Vec::new();
        if !self.adv.trim().is_empty() {
            parts.push(format!("query.advanced={}", encode(&self.adv)));
        } else if !self.q.trim().is_empty() {
            // The router's reading of text typed into a search box: the last
            // word by prefix, the typeahead's matches first (core search::typed).
            parts.push(format!(
                "query={}&mode=typed",
                encode(&escape_query(self.q.trim()))
            ));
        }
        if !filter.is_empty() {
            parts.push(format!("filter={}", encode(filter)));
        }
        if let Some(range) = self.established() {
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

    /// A link to this state, relative to the current document.
    pub fn href(&self) -> String {
        let q = self.to_query();
        if q.is_empty() { pathname() } else { q }
    }

    /// The state of a record page.
    pub fn record(id: &str) -> State {
        State {
            id: Some(crate::registry_client::bare_id(id).to_string()),
            page: 1,
            ..State::default()
        }
    }
}

fn pathname() -> String {
    leptos::prelude::window()
        .location()
        .pathname()
        .unwrap_or_else(|_| "./".into())
}

/// The state in the address bar.
pub fn current() -> State {
    State::parse(
        &leptos::prelude::window()
            .location()
            .search()
            .unwrap_or_default(),
    )
}

/// The `history.state` of every entry the app pushes (web/registry-dots.js
/// pushes it too): an entry that has it has a page of this app before it,
/// so "Back" can be the browser's back; one without it was opened from
/// outside (a shared link, a new tab), where the browser's back leaves.
pub const PUSHED: &str = "registry-app";

/// Whether the address bar shows `state`.
pub fn shows(state: &State) -> bool {
    leptos::prelude::window()
        .location()
        .search()
        .unwrap_or_default()
        == state.to_query()
}

/// Writes `state` to the address bar (a new history entry when `push`,
/// unless the address bar already shows it: an entry that repeats the one
/// before it would make Back do nothing).
pub fn write(state: &State, push: bool) {
    let url = state.href();
    let push = push && !shows(state);
    if let Ok(h) = leptos::prelude::window().history() {
        let _ = if push {
            h.push_state_with_url(&JsValue::from_str(PUSHED), "", Some(&url))
        } else {
            // The entry keeps its mark: a replaced URL is the same visit.
            let kept = h.state().unwrap_or(JsValue::NULL);
            h.replace_state_with_url(&kept, "", Some(&url))
        };
    }
}

/// Whether the current history entry was pushed by the app (see [`PUSHED`]).
pub fn came_from_app() -> bool {
    leptos::prelude::window()
        .history()
        .and_then(|h| h.state())
        .ok()
        .and_then(|v| v.as_string())
        .is_some_and(|v| v == PUSHED)
}

/// Replaces the address bar's entry with `state` unless it already shows it.
pub fn sync(state: &State) {
    if !shows(state) {
        write(state, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let s = State {
            q: "université & co/x".into(),
            adv: "names.value:Foo*".into(),
            filter: vec![
                ("country".into(), "gb".into()),
                ("type".into(), "education".into()),
                ("established".into(), "[1900 TO 1950]".into()),
            ],
            page: 3,
            id: None,
            map: true,
        };
        assert_eq!(State::parse(&s.to_query()), s);
        assert_eq!(s.established(), Some("[1900 TO 1950]"));
        // The range is not one of the API's filter fields: it goes as `established=`.
        assert_eq!(
            s.api_filter(None),
            "country.country_code:GB,types:education"
        );
        assert_eq!(s.api_filter(Some("type")), "country.country_code:GB");
        assert_eq!(State::parse("?id=0abc&q=x").id.as_deref(), Some("0abc"));
        assert_eq!(State::parse("").to_query(), "");
        assert!(State::parse("?q=x&view=map").map);
        assert!(!State::parse("?q=x&view=list").map);
        assert_eq!(decode("a+b%2Cc%"), "a b,c%");
    }
}
