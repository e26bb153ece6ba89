//! The whole registry (feature `full`): the router and every API method,
//! over a full shard or summary + names, and the main-thread builder.

use registry_core::router::encode_component;
use registry_core::search::filters::Version;
use registry_core::search::{Engine, EngineBuilder};
use registry_core::{RecordId, RecordV1};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::params::ListParams;
use crate::{hits_to_js, js_err, options_from_js, to_js};

/// A loaded, indexed registry.
#[wasm_bindgen]
pub struct Registry {
    engine: Engine,
}

/// `performance.now()` of the current global (window or worker).
fn now_ms() -> f64 {
    let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
    perf.and_then(|p| {
        let now = js_sys::Reflect::get(&p, &"now".into()).ok()?;
        js_sys::Function::from(now).call0(&p).ok()?.as_f64()
    })
    .unwrap_or_else(js_sys::Date::now)
}

/// What `info` returns (members in the order `serde_json::Map` keeps them).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info<'a> {
    build_id: String,
    build_time: u64,
    format_version: u16,
    has_records: bool,
    record_count: u32,
    release: &'a str,
}

impl Registry {
    fn from_core(registry: registry_core::Registry) -> Registry {
        Registry::from_engine(Engine::new(registry))
    }

    fn from_engine(mut engine: Engine) -> Registry {
        engine.set_clock(now_ms);
        Registry { engine }
    }

    fn list(&self, key: &str, value: &str, p: &ListParams) -> Result<JsValue, JsError> {
        let version = p.version.unwrap_or(2);
        let mut url = format!(
            "/v{version}/organizations?{key}={}",
            encode_component(value)
        );
        if let Some(f) = p.filter.as_deref().filter(|f| !f.is_empty()) {
            url.push_str(&format!("&filter={}", encode_component(f)));
        }
        if p.all_status {
            url.push_str("&all_status");
        }
        if let Some(page) = p.page {
            url.push_str(&format!("&page={page}"));
        }
        let r = self.engine.handle(&url);
        let body = js_sys::JSON::parse(&r.json)
            .map_err(|_| JsError::new("the router returned invalid JSON"))?;
        if r.status >= 400 {
            let errors =
                js_sys::Reflect::get(&body, &"errors".into()).unwrap_or(JsValue::UNDEFINED);
            let message = js_sys::Array::from(&errors).join("; ");
            return Err(JsError::new(&String::from(message)));
        }
        Ok(body)
    }
}

#[wasm_bindgen]
impl Registry {
    /// Loads a full shard (or one holding at least the summary and names sections).
    #[wasm_bindgen(constructor)]
    pub fn new(shard: &[u8]) -> Result<Registry, JsError> {
        let registry = registry_core::Registry::from_bytes(shard).map_err(js_err)?;
        Ok(Registry::from_core(registry))
    }

    /// Loads several files of one build (the per-section files of a manifest).
    #[wasm_bindgen(js_name = fromFiles)]
    pub fn from_files(files: Vec<js_sys::Uint8Array>) -> Result<Registry, JsError> {
        let owned: Vec<Vec<u8>> = files.iter().map(js_sys::Uint8Array::to_vec).collect();
        let slices: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let registry = registry_core::Registry::from_files(&slices).map_err(js_err)?;
        Ok(Registry::from_core(registry))
    }

    /// Adds the domains section (its file, same build) to a registry loaded
    /// without it, for `emailDomain` offers.
    #[wasm_bindgen(js_name = addDomains)]
    pub fn add_domains(&mut self, file: &[u8]) -> Result<(), JsError> {
        self.engine.add_domains_file(file).map_err(js_err)
    }

    /// Whether record domains are known (domains or records loaded).
    #[wasm_bindgen(js_name = hasDomains)]
    pub fn has_domains(&self) -> bool {
        self.engine.registry().has_domains()
    }

    /// Adds the records section (lazy, typeahead-first mode). The name
    /// index is kept: only what needs full records is rebuilt, on first use.
    #[wasm_bindgen(js_name = addRecords)]
    pub fn add_records(&mut self, file: &[u8]) -> Result<(), JsError> {
        if self.engine.registry().has_records() {
            return Err(JsError::new("the records section is already loaded"));
        }
        self.engine.add_records_file(file).map_err(js_err)
    }

    /// `{release, recordCount, formatVersion, buildTime, buildId, hasRecords}`.
    pub fn info(&self) -> Result<JsValue, JsError> {
        let r = self.engine.registry();
        let i = r.info();
        to_js(&Info {
            build_id: format!("{:016x}", i.build_id),
            build_time: i.build_time,
            format_version: i.format_version,
            has_records: r.has_records(),
            record_count: i.record_count,
            release: &i.release,
        })
    }

    /// The API router: a spec URL path and query (`/v2/organizations?query=…`)
    /// → `{status, body}` with the JSON body as text, exactly what the HTTP
    /// server and the service worker send.
    pub fn request(&self, path_and_query: &str) -> Result<JsValue, JsError> {
        let r = self.engine.handle(path_and_query);
        let answer = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&answer, &k.into(), &v);
        set("status", r.status.into())
            .and(set("body", r.json.into()))
            .map_err(|_| JsError::new("cannot build the answer"))?;
        Ok(answer.into())
    }

    /// One record by id in any accepted form, as a v2 (default) or v1 object.
    /// Throws for a malformed id, a bad checksum or an unknown id.
    pub fn get(&self, id: &str, version: Option<u8>) -> Result<JsValue, JsError> {
        let registry = self.engine.registry();
        let rid = RecordId::parse(id).map_err(js_err)?;
        let i = registry
            .index_of(rid)
            .ok_or_else(|| JsError::new(&format!("registry ID '{}' does not exist", rid.url())))?;
        let record = registry.record(i).map_err(js_err)?;
        match version.unwrap_or(2) {
            1 => to_js(&RecordV1::from_v2(&record)),
            2 => to_js(&record),
            v => Err(JsError::new(&format!("version must be 1 or 2, not {v}"))),
        }
    }

    /// E2 keyword search: `{query, filter, allStatus, page, version}` → the
    /// result envelope. Throws with the API's error messages.
    pub fn search(&self, params: JsValue) -> Result<JsValue, JsError> {
        let p = ListParams::from_js(&params)?;
        match p.query.as_deref() {
            Some(q) => self.list("query", q, &p),
            None => self.list(
                "filter",
                p.filter.as_deref().unwrap_or(""),
                &ListParams { filter: None, ..p },
            ),
        }
    }

    /// E3 advanced search: `{expression, filter, allStatus, page}` → envelope.
    pub fn advanced(&self, params: JsValue) -> Result<JsValue, JsError> {
        let p = ListParams::from_js(&params)?;
        let e = p.expression.clone().unwrap_or_default();
        self.list("query.advanced", &e, &p)
    }

    /// E4 affiliation matching: `{text, filter, allStatus, version}` → result.
    pub fn affiliation(&self, params: JsValue) -> Result<JsValue, JsError> {
        let p = ListParams::from_js(&params)?;
        let t = p.text.clone().unwrap_or_default();
        self.list("affiliation", &t, &p)
    }

    /// Typeahead: `suggest(text, {filters: ["types:education", …], limit,
    /// preferCountries, preferTypes, emailDomain, remembered: [ids], lang})` →
    /// hits best first (empty text: the e-mail domain's and the remembered
    /// records), each with the record summary, the matched name,
    /// `ranges` (UTF-8 byte offsets) and `ranges16` (UTF-16 offsets for JS).
    pub fn suggest(&self, text: &str, options: JsValue) -> Result<JsValue, JsError> {
        let o = options_from_js(&options)?;
        let filters = self
            .engine
            .parse_filters(&o.filters.join(","), Version::V2)
            .map_err(|errors| JsError::new(&errors.join("; ")))?;
        let hits =
            self.engine
                .suggest_in(text, &filters, o.limit.unwrap_or(10).min(100), &o.context);
        hits_to_js(hits)
    }

    /// Builds the external-id tables now (full mode: call it shortly after
    /// loading, e.g. from a `setTimeout`, so that no request pays for it).
    /// Without the records section there is nothing to build.
    pub fn warm(&self) {
        if self.engine.registry().has_records() {
            self.engine.index().warm(self.engine.registry());
        }
    }

    /// True when `suggest(text)` needs the records section first: it is
    /// missing (typeahead mode) and `text` looks like an external id (ISNI,
    /// GRID, Wikidata, FundRef), which only the records hold.
    #[wasm_bindgen(js_name = suggestNeedsRecords)]
    pub fn suggest_needs_records(&self, text: &str) -> bool {
        !self.engine.registry().has_records() && registry_core::text::looks_like_external_id(text)
    }

    /// Facet counts (`meta`) for `{query, filter, allStatus, version}`.
    pub fn facets(&self, params: JsValue) -> Result<JsValue, JsError> {
        let body = self.search(params)?;
        js_sys::Reflect::get(&body, &"meta".into())
            .map_err(|_| JsError::new("no meta in the answer"))
    }
}

/// A registry loaded and indexed a slice at a time, for a page's main
/// thread, where doing it all in one task would hold up a keystroke:
/// `new RegistryBuilder(files)` only reads the headers, each `step(ms)`
/// works for about that long (at least one piece: decompressing 256 KiB,
/// decoding the sections, indexing ~200 records, or one of the final index
/// passes) and tells whether only `finish()` is left; `finish()` returns
/// the `Registry`.
#[wasm_bindgen]
pub struct RegistryBuilder {
    state: Option<Building>,
}

enum Building {
    Loading(registry_core::registry::RegistryLoader),
    Decoding(registry_core::registry::RegistryLoader),
    Indexing(EngineBuilder),
    Done(EngineBuilder),
}

#[wasm_bindgen]
impl RegistryBuilder {
    /// Takes the files of one build (at least summary and names).
    #[wasm_bindgen(constructor)]
    pub fn new(files: Vec<js_sys::Uint8Array>) -> Result<RegistryBuilder, JsError> {
        let owned: Vec<Vec<u8>> = files.iter().map(js_sys::Uint8Array::to_vec).collect();
        let loader = registry_core::registry::RegistryLoader::new(owned).map_err(js_err)?;
        Ok(RegistryBuilder {
            state: Some(Building::Loading(loader)),
        })
    }

    /// Works for about `budget_ms` milliseconds; true when only `finish` is
    /// left. An error (a damaged file) ends the builder.
    pub fn step(&mut self, budget_ms: f64) -> Result<bool, JsError> {
        let start = now_ms();
        loop {
            let state = self
                .state
                .take()
                .ok_or_else(|| JsError::new("the builder is finished"))?;
            let next = match state {
                // 256 KiB of decompressed bytes: a millisecond or two.
                Building::Loading(mut loader) => {
                    if loader.step(256 << 10).map_err(js_err)? {
                        Building::Decoding(loader)
                    } else {
                        Building::Loading(loader)
                    }
                }
                Building::Decoding(loader) => {
                    Building::Indexing(EngineBuilder::new(loader.finish().map_err(js_err)?))
                }
                // ~200 records: well under a millisecond.
                Building::Indexing(mut b) => {
                    if b.step(200) {
                        Building::Done(b)
                    } else {
                        Building::Indexing(b)
                    }
                }
                done @ Building::Done(_) => done,
            };
            let done = matches!(next, Building::Done(_));
            self.state = Some(next);
            if done {
                return Ok(true);
            }
            if now_ms() - start >= budget_ms {
                return Ok(false);
            }
        }
    }

    /// Does whatever `step` has not done yet and returns the registry.
    pub fn finish(&mut self) -> Result<Registry, JsError> {
        while !self.step(f64::INFINITY)? {}
        match self.state.take() {
            Some(Building::Done(b)) => Ok(Registry::from_engine(b.finish())),
            _ => Err(JsError::new("the builder is finished")),
        }
    }
}
