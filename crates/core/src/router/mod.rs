//! The API router: one [`Engine::handle`] that every front end calls (wasm,
//! service worker, `registry serve`, tests). Input: the request's path and
//! query string as sent (`/v2/organizations?query=…`); output: a status
//! code and a JSON body.
//!
//! Routes (`<ver>` = `v1` or `v2`; no prefix = v2, as upstream since 2025):
//!
//! | path | answer |
//! |---|---|
//! | `/`, `/<ver>` | 200, the routes |
//! | `/heartbeat`, `/<ver>/heartbeat` | 200 `{"status":"OK"}` |
//! | `/<ver>/organizations` | list/search (E2), filters, facets, paging |
//! | `/<ver>/organizations/<id>` | one record (E1), any id form, any status |
//! | anything else | 404 JSON |
//!
//! Parameters (list): `query` (`query.name`/`query.names` are aliases;
//! upstream redirects them), `filter`, `page` (1–500, 20 items per page),
//! `all_status` (no value, `true` or `false`), `query.advanced` (E3, v2)
//! and `affiliation` (E4; v1 as specified, v2 with v2 records as an extension),
//! `format=json`. A repeated parameter: the last value counts (upstream).
//!
//! Extension (not in the spec; listed with its version under `extensions`
//! in the root answer): `mode=typed` with `query` reads the query as text a
//! person typed into a search box and submitted — the last word also by
//! prefix, the typeahead's matches first in its order
//! ([`crate::search::typed`]). The app's search page asks this way; without
//! `mode` E2 keeps the spec's reading. `meta` and `number_of_results` count
//! the same matches the list ranks. `facet_size=all` lists every entry of
//! each facet (every country with a match, for the app's world map) instead
//! of the ten largest. `established=<range>` keeps the matches whose
//! established year is in the range, written as in E3
//! (`established=[1900 TO 1950]`), and `histogram=established` adds
//! `meta.established`, every year's count over all matches
//! ([`crate::search::years`]); both apply to E2, `mode=typed` and E3 lists
//! with any `filter`. `places=all` adds `meta.places`, every located place
//! of every match with its record's id and name, for the results map
//! ([`crate::search::places`]).
//! `explain=1` (or `true`, or no value)
//! with `affiliation` adds to each item an `explanation`: which words of the
//! string matched which name of the record, which evidence counted
//! (country, city, acronym, parent or unit named too), the model's score and
//! the decision ([`crate::affiliation::explain`]); without it E4 keeps the
//! spec's shape.
//!
//! Errors are `{"errors": [...]}` with upstream's wording, but with HTTP 400
//! (upstream answers validation errors with 200 and syntax errors with an
//! HTML 500 page) and 404 for unknown ids and routes.

use serde::Serialize;

mod escapes;

use crate::id::{IdError, RecordId, percent_decode};
use crate::model::Record;
use crate::search::facets::{self, Meta};
use crate::search::places;
use crate::search::years::{self, YearRange};
use crate::search::{Engine, Filters, Hits, Version};
use crate::v1::RecordV1;

pub use crate::search::PAGE_SIZE;
/// Deepest page.
pub const MAX_PAGE: usize = 500;

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// The JSON body.
    pub json: String,
}

impl Response {
    fn errors(status: u16, errors: &[String]) -> Response {
        #[derive(Serialize)]
        struct Errors<'a> {
            errors: &'a [String],
        }
        Response {
            status,
            json: serde_json::to_string(&Errors { errors }).unwrap_or_default(),
        }
    }

    fn error(status: u16, message: impl Into<String>) -> Response {
        Response::errors(status, &[message.into()])
    }

    fn fixed(json: &str) -> Response {
        Response {
            status: 200,
            json: json.to_string(),
        }
    }

    fn ok<T: Serialize>(value: &T) -> Response {
        match serde_json::to_string(value) {
            Ok(json) => Response { status: 200, json },
            // Unreachable for our types (string keys, no custom errors);
            // not formatting serde_json's error keeps its messages out of
            // the wasm.
            Err(_) => Response::error(500, "cannot serialise the response"),
        }
    }
}

#[derive(Serialize)]
struct Envelope<T> {
    items: Vec<T>,
    meta: Meta,
    number_of_results: usize,
    time_taken: u64,
}

/// The body of a results page (E2/E3) made elsewhere — from pieces
/// ([`crate::pieces::search`]) and records fetched by id — in the one shape
/// [`Engine::handle`] writes; `items` are the records' own API answers
/// (v1 or v2, as the page's version).
pub fn list_body(
    items: Vec<serde_json::Value>,
    meta: Meta,
    number_of_results: usize,
    time_taken: u64,
) -> Response {
    Response::ok(&Envelope {
        items,
        meta,
        number_of_results,
        time_taken,
    })
}

/// Percent-encodes a query-string component (everything but ASCII
/// alphanumerics and `-_.~`), the inverse of [`form_decode`]: front ends use
/// it to build router URLs from user text.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `application/x-www-form-urlencoded` text (`+` = space).
pub fn form_decode(s: &str) -> String {
    if !s.contains(['%', '+']) {
        return s.to_string();
    }
    percent_decode(&s.replace('+', " "))
}

/// Splits a query string into decoded `(key, value)` pairs, in order;
/// `None` for a key without `=`.
pub fn parse_query_string(qs: &str) -> Vec<(String, Option<String>)> {
    qs.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (form_decode(k), Some(form_decode(v))),
            None => (form_decode(p), None),
        })
        .collect()
}

const ALLOWED: [&str; 15] = [
    "query",
    "page",
    "filter",
    "query.advanced",
    "all_status",
    "affiliation",
    "format",
    "query.name",
    "query.names",
    "mode",
    "facet_size",
    "explain",
    "established",
    "histogram",
    "places",
];

/// The one value of the `mode` extension.
const TYPED: &str = "typed";

/// The last value of each parameter (upstream keeps only the last one).
struct Params(Vec<(String, Option<String>)>);

impl Params {
    fn get(&self, key: &str) -> Option<Option<&str>> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_deref())
    }
    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    fn value(&self, key: &str) -> Option<&str> {
        self.get(key).map(|v| v.unwrap_or(""))
    }
}

/// Parses `page` like upstream (surrounding whitespace and a leading `+`
/// allowed) and checks the range.
fn parse_page(raw: &str) -> Result<usize, String> {
    let t = raw.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let well_formed = !body.is_empty()
        && body.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        && !body.starts_with('_')
        && !body.ends_with('_')
        && !body.contains("__");
    if !well_formed {
        return Err(format!("page '{raw}' is not an integer"));
    }
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    let magnitude = match clean.trim_start_matches('0') {
        "" => "0",
        m => m,
    };
    if !neg
        && let Ok(p) = magnitude.parse::<usize>()
        && (1..=MAX_PAGE).contains(&p)
    {
        return Ok(p);
    }
    let shown = if neg && magnitude != "0" {
        format!("-{magnitude}")
    } else {
        magnitude.to_string()
    };
    Err(format!("page '{shown}' outside of range 1-{MAX_PAGE}"))
}

impl Engine {
    /// Answers one GET request: `path_and_query` is the request target
    /// (`/v2/organizations?query=x`), as sent (percent-encoded).
    pub fn handle(&self, path_and_query: &str) -> Response {
        let started = self.now_ms();
        // Every front end (serve, the Worker, the service worker) gets the
        // same 400 for a target whose escapes do not decode.
        let malformed = escapes::malformed(path_and_query);
        if !malformed.is_empty() {
            return Response::errors(400, &malformed);
        }
        let target = path_and_query.split('#').next().unwrap_or("");
        let (path, qs) = target.split_once('?').unwrap_or((target, ""));
        let trimmed = path.trim_start_matches('/');
        let (version, rest) = match trimmed.split_once('/') {
            Some(("v1", r)) => (Some(Version::V1), r),
            Some(("v2", r)) => (Some(Version::V2), r),
            None if trimmed == "v1" => (Some(Version::V1), ""),
            None if trimmed == "v2" => (Some(Version::V2), ""),
            _ => (None, trimmed),
        };
        let explicit = version.is_some();
        let version = version.unwrap_or(Version::V2);
        if rest.is_empty() {
            // What `serde_json::json!` wrote (its maps sort their keys).
            return Response {
                status: 200,
                json: format!(
                    concat!(
                        r#"{{"extensions":{{"established=<range>":1,"explain=1":{},"facet_size=all":1,"#,
                        r#""histogram=established":{},"mode=typed":{},"places=all":{}}},"#,
                        r#""organizations":{{"unversioned":"/organizations (v2)","#,
                        r#""v1":"/v1/organizations","v2":"/v2/organizations"}},"#,
                        r#""record":"/v2/organizations/<id>"}}"#
                    ),
                    crate::affiliation::explain::VERSION,
                    crate::search::years::VERSION,
                    crate::search::typed::VERSION,
                    crate::search::places::VERSION
                ),
            };
        }
        if rest == "heartbeat" {
            return Response::fixed(r#"{"status":"OK"}"#);
        }
        match rest.split_once('/') {
            None | Some(("organizations", "")) if rest.trim_end_matches('/') == "organizations" => {
                self.list_route(version, qs, started)
            }
            Some(("organizations", id)) => self.retrieve(version, id),
            _ => {
                let first = rest.split('/').next().unwrap_or("");
                let msg = if !explicit
                    && first.len() > 1
                    && first.starts_with('v')
                    && first[1..].bytes().all(|b| b.is_ascii_digit())
                {
                    format!("unknown API version '{first}'; use v1 or v2")
                } else {
                    format!(
                        "no such route '{}'; the API serves /v1/organizations and /v2/organizations",
                        percent_decode(path)
                    )
                };
                Response::error(404, msg)
            }
        }
    }

    fn retrieve(&self, version: Version, raw_id: &str) -> Response {
        let decoded = percent_decode(raw_id);
        let id = match RecordId::parse(&decoded) {
            Ok(id) => id,
            Err(IdError::Malformed { .. }) => {
                return Response::error(404, format!("'{decoded}' is not a valid registry ID"));
            }
            Err(e @ IdError::BadChecksum { .. }) => return Response::error(404, e.to_string()),
        };
        let Some(i) = self.registry().index_of(id) else {
            return Response::error(404, format!("registry ID '{}' does not exist", id.url()));
        };
        match self.registry().record(i) {
            Ok(rec) => match version {
                Version::V2 => Response::ok(&rec),
                Version::V1 => Response::ok(&RecordV1::from_v2(&rec)),
            },
            Err(e) => Response::error(503, format!("full records are not loaded: {e}")),
        }
    }

    fn list_route(&self, version: Version, qs: &str, started: f64) -> Response {
        let params = Params(parse_query_string(qs));
        let query = params
            .value("query")
            .or(params.value("query.names"))
            .or(params.value("query.name"));
        let (filters, page, years) = match self.list_request(&params, query, version) {
            Ok(r) => r,
            Err(errors) => return Response::errors(400, &errors),
        };
        if params.has("affiliation") {
            // E4 (affiliation/): scored candidates, at most one chosen; v2 answers with v2 records.
            let text = params.value("affiliation").unwrap_or("");
            let explain = params
                .value("explain")
                .is_some_and(|v| matches!(v, "" | "1" | "true"));
            return match self.affiliation_with(text, &filters, version, explain) {
                Ok(result) => Response::ok(&result),
                Err(e) => Response::error(503, format!("full records are not loaded: {e}")),
            };
        }
        let mut hits = match self.list_hits(&params, query, version, &filters) {
            Ok(hits) => hits,
            Err(response) => return response,
        };
        let unloaded = |e: crate::shard::ShardError| {
            Response::error(503, format!("full records are not loaded: {e}"))
        };
        if let Some(range) = &years
            && let Err(e) =
                years::keep_in_range(self.registry(), range, &mut hits.records, &mut hits.scores)
        {
            return unloaded(e);
        }
        let meta = match self.list_meta(&params, &hits, version) {
            Ok(meta) => meta,
            Err(e) => return unloaded(e),
        };
        self.list_page(&hits, page, meta, version, started)
    }

    /// A list request's filters, page and established range, or every
    /// error in it, in the order the API reports them: parameters it does
    /// not know (alone, when there are any), values and combinations it
    /// refuses, then the filter, page, query length and range.
    fn list_request(
        &self,
        params: &Params,
        query: Option<&str>,
        version: Version,
    ) -> Result<(Filters, usize, Option<YearRange>), Vec<String>> {
        let mut errors = illegal_parameters(params);
        if errors.is_empty() {
            errors = refused_values(params, query);
        }
        let mut filters = Filters {
            first_location_only: version == Version::V1,
            ..Filters::default()
        };
        if let Some(f) = params.value("filter") {
            match self.parse_filters(f, version) {
                Ok(parsed) => filters = parsed,
                Err(e) => errors.extend(e),
            }
        }
        filters.all_status = params
            .value("all_status")
            .is_some_and(|v| v.is_empty() || v.eq_ignore_ascii_case("true"));
        let mut page = 1;
        if let Some(p) = params.value("page") {
            match parse_page(p) {
                Ok(p) => page = p,
                Err(e) => errors.push(e),
            }
        }
        if let Some(q) = query {
            let n = q.chars().count();
            if n > crate::search::MAX_QUERY_CHARS {
                errors.push(format!(
                    "query is too long ({n} characters); the maximum is {}",
                    crate::search::MAX_QUERY_CHARS
                ));
            }
        }
        let years = match params.value("established") {
            Some(v) => match YearRange::parse(v) {
                Ok(r) => Some(r),
                Err(e) => {
                    errors.push(e);
                    None
                }
            },
            None => None,
        };
        if errors.is_empty() {
            Ok((filters, page, years))
        } else {
            Err(errors)
        }
    }

    /// The matches of a list request: E3's (`query.advanced`: id order,
    /// status rule, v2 only), E2's (`query`, read as typed with
    /// `mode=typed`), or every record the filters keep; a refused query is
    /// the response.
    fn list_hits(
        &self,
        params: &Params,
        query: Option<&str>,
        version: Version,
        filters: &Filters,
    ) -> Result<Hits, Response> {
        let advanced = match params.value("query.advanced") {
            Some(expr) => match self.advanced_route(version, expr, filters) {
                Ok(hits) => Some(hits),
                Err((status, message)) => return Err(Response::error(status, message)),
            },
            None => None,
        };
        Ok(match (advanced, query) {
            (Some(hits), _) => hits,
            (None, None) => self.list(filters),
            (None, Some(q)) if q.trim().is_empty() => Hits::default(),
            (None, Some(q)) => {
                let answer = if params.value("mode") == Some(TYPED) {
                    self.search_typed(q, filters)
                } else {
                    self.search(q, filters)
                };
                answer.map_err(|e| Response::error(400, e))?
            }
        })
    }

    /// The facet counts of the matches (every entry with `facet_size`),
    /// with their established years (`histogram`) and located places
    /// (`places`) when asked.
    fn list_meta(
        &self,
        params: &Params,
        hits: &Hits,
        version: Version,
    ) -> Result<Meta, crate::shard::ShardError> {
        let size = if params.has("facet_size") {
            usize::MAX
        } else {
            facets::FACET_SIZE
        };
        let mut meta = facets::compute_sized(self.index(), &hits.records, version, size);
        if params.has("histogram") {
            meta.established = Some(years::histogram(self.registry(), &hits.records)?);
        }
        if params.has("places") {
            meta.places = Some(places::places(self.registry(), &hits.records)?);
        }
        Ok(meta)
    }

    /// Page `page` of the matches, their records in `version`, in the API's envelope.
    fn list_page(
        &self,
        hits: &Hits,
        page: usize,
        meta: Meta,
        version: Version,
        started: f64,
    ) -> Response {
        let from = ((page - 1) * crate::router::PAGE_SIZE).min(hits.records.len());
        let to = (from + PAGE_SIZE).min(hits.records.len());
        let mut records: Vec<Record> = Vec::with_capacity(to - from);
        for &r in &hits.records[from..to] {
            match self.registry().record(r as usize) {
                Ok(rec) => records.push(rec),
                Err(e) => return Response::error(503, format!("full records are not loaded: {e}")),
            }
        }
        let time_taken = (self.now_ms() - started).max(0.0).round() as u64;
        let number_of_results = hits.records.len();
        match version {
            Version::V2 => Response::ok(&Envelope {
                items: records,
                meta,
                number_of_results,
                time_taken,
            }),
            Version::V1 => Response::ok(&Envelope {
                items: records.iter().map(RecordV1::from_v2).collect(),
                meta,
                number_of_results,
                time_taken,
            }),
        }
    }
}

/// The parameters of a list request that the API does not know, each once.
fn illegal_parameters(params: &Params) -> Vec<String> {
    let mut errors: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in &params.0 {
        if !ALLOWED.contains(&k.as_str()) && !seen.contains(&k.as_str()) {
            errors.push(format!("query parameter '{k}' is illegal"));
            seen.push(k);
        }
    }
    errors
}

/// The values and combinations of known parameters that the API refuses,
/// each said with what it takes instead.
fn refused_values(params: &Params, query: Option<&str>) -> Vec<String> {
    let mut errors: Vec<String> = Vec::new();
    if let Some(v) = params.value("all_status")
        && !(v.is_empty() || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false"))
    {
        errors.push(
            "allowed values for all_status parameter are empty (no value), true or false"
                .to_string(),
        );
    }
    if query.is_some() && params.has("query.advanced") {
        errors.push("query and query.advanced parameters cannot be combined. please use either query OR query.advanced".to_string());
    }
    if let Some(f) = params.value("format")
        && !f.eq_ignore_ascii_case("json")
    {
        errors.push(format!(
            "format '{f}' is not supported; the only format is json"
        ));
    }
    if let Some(v) = params.value("facet_size")
        && v != "all"
    {
        errors.push(format!(
            "facet_size '{v}' is not supported; the only value is all (every entry of each facet instead of the {} largest)",
            facets::FACET_SIZE
        ));
    }
    if let Some(x) = params.value("explain") {
        if !["", "1", "0", "true", "false"].contains(&x) {
            errors.push(format!(
                "explain '{x}' is not supported; use explain=1 (or true) to add why each item matched"
            ));
        } else if !params.has("affiliation") {
            errors.push("explain applies to affiliation only (why each item matched)".to_string());
        }
    }
    if let Some(h) = params.value("histogram")
        && h != "established"
    {
        errors.push(format!(
            "histogram '{h}' is not supported; the only value is established (the matches by established year)"
        ));
    }
    if let Some(p) = params.value("places")
        && p != "all"
    {
        errors.push(format!(
            "places '{p}' is not supported; the only value is all (every located place of every match)"
        ));
    }
    if params.has("affiliation") {
        for p in ["established", "histogram", "places"] {
            if params.has(p) {
                errors.push(format!(
                    "{p} applies to query and query.advanced lists, not to affiliation"
                ));
            }
        }
    }
    if let Some(m) = params.value("mode") {
        if m != TYPED {
            errors.push(format!(
                "mode '{m}' is not supported; the only mode is {TYPED} (the search page's reading of query)"
            ));
        } else if params.has("query.advanced") || params.has("affiliation") {
            errors.push(
                "mode=typed applies to query only; query.advanced and affiliation are read as written"
                    .to_string(),
            );
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_parse_like_upstream() {
        assert_eq!(parse_page("5"), Ok(5));
        assert_eq!(parse_page(" +7 "), Ok(7));
        assert_eq!(parse_page("5_0"), Ok(50));
        assert_eq!(
            parse_page("0"),
            Err("page '0' outside of range 1-500".into())
        );
        assert_eq!(
            parse_page("-5"),
            Err("page '-5' outside of range 1-500".into())
        );
        assert_eq!(
            parse_page("501"),
            Err("page '501' outside of range 1-500".into())
        );
        assert_eq!(
            parse_page("99999999999999999999999"),
            Err("page '99999999999999999999999' outside of range 1-500".into())
        );
        for bad in ["", "third", "1.5", "1e2", "_5", "5__0"] {
            assert_eq!(
                parse_page(bad),
                Err(format!("page '{bad}' is not an integer"))
            );
        }
    }

    #[test]
    fn query_strings_decode() {
        assert_eq!(
            parse_query_string("query=a+b%20c&all_status&filter=x%3Ay"),
            vec![
                ("query".into(), Some("a b c".into())),
                ("all_status".into(), None),
                ("filter".into(), Some("x:y".into()))
            ]
        );
    }
}
