//! The registry, as seen from the UI: wasm-bindgen bindings to the promise
//! API of `registry.js` (which runs the registry in a Web Worker). The
//! typeahead's options and hits are the contract's shapes
//! ([`registry_contract`]: [`SuggestContext`], [`Hit`], [`Summary`]), the
//! ones the registry's wasm writes; the UI wasm never contains the
//! registry core.
//!
//! Typeahead is the exception to "everything in the Worker": `registry.js`
//! answers it on the main thread from the data's typeahead pieces (data
//! without them: a suggest-only instance built once the page is idle), and
//! [`suggest_now`] answers synchronously inside the input handler, so
//! suggestions paint in the frame after the keystroke instead of one frame
//! later (a Worker round trip). The app's pieces answer from its first
//! keystroke, while the Worker still loads the whole data ([`open`]).

use std::cell::RefCell;
use std::future::Future;

pub use registry_contract::{Hit, SuggestContext, SuggestOptions, Summary};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(raw_module = "../registry.js")]
extern "C" {
    #[cfg(feature = "app")]
    /// `openRegistryEarly({dataUrl, mode, deferWhole})` → `Promise<{typeahead,
    /// whole, info}>`: a client over the pieces at once, the promise of the
    /// whole registry's, the promise of the manifest's release facts.
    #[wasm_bindgen(js_name = openRegistryEarly)]
    fn open_registry_early(options: &JsValue) -> js_sys::Promise;

    #[cfg(feature = "app")]
    /// `answered()`: the page shows its answer; the whole data may follow.
    #[wasm_bindgen(js_name = answered)]
    fn js_answered();

    /// The client object of `registry.js`.
    pub type RegistryClient;

    #[wasm_bindgen(method)]
    fn suggest(this: &RegistryClient, text: &str, options: &JsValue) -> js_sys::Promise;

    /// Synchronous main-thread suggestions, or `null` when not available.
    #[wasm_bindgen(method, catch, js_name = suggestNow)]
    fn suggest_now(
        this: &RegistryClient,
        text: &str,
        options: &JsValue,
    ) -> Result<JsValue, JsValue>;

    /// The first hits of an answer still on its way, or `null`.
    #[wasm_bindgen(method, catch, js_name = suggestPartialNow)]
    fn suggest_partial_now(
        this: &RegistryClient,
        text: &str,
        options: &JsValue,
    ) -> Result<JsValue, JsValue>;

    #[cfg(feature = "app")]
    #[wasm_bindgen(method)]
    fn request(this: &RegistryClient, path_and_query: &str) -> js_sys::Promise;

    #[wasm_bindgen(method)]
    fn call(this: &RegistryClient, method: &str, args: &js_sys::Array) -> js_sys::Promise;

    #[cfg(feature = "app")]
    /// `rows(pathAndQuery)` → `Promise<{status, body} | null>`: a results
    /// page's summaries, total and facets from the pieces (registry-pieces.js
    /// TypeaheadClient), or null. Clients without it: `undefined`.
    #[wasm_bindgen(method, getter = rows)]
    fn rows_method(this: &RegistryClient) -> JsValue;

}

thread_local! {
    static CLIENT: RefCell<Option<RegistryClient>> = const { RefCell::new(None) };
    /// Resolvers of the suggestions asked for before any client was set.
    static WAITING: RefCell<Vec<js_sys::Function>> = const { RefCell::new(Vec::new()) };
}

/// Why a call produced nothing to show.
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    /// Superseded by a newer call: ignore silently.
    Stale,
    /// A real error, with the registry's message.
    Failed(String),
}

/// The registry's own message (what a person may be shown as a detail).
impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Stale => f.write_str("superseded by a newer request"),
            CallError::Failed(m) => f.write_str(m),
        }
    }
}

fn error_of(e: JsValue) -> CallError {
    let get = |k: &str| {
        js_sys::Reflect::get(&e, &k.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    if get("name").as_deref() == Some("AbortError") {
        return CallError::Stale;
    }
    CallError::Failed(
        get("message")
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "unknown error".into()),
    )
}

fn with_client<T>(f: impl FnOnce(&RegistryClient) -> T) -> Result<T, CallError> {
    CLIENT
        .with(|c| c.borrow().as_ref().map(f))
        .ok_or_else(|| CallError::Failed("the registry is not open".into()))
}

/// The client object, for the JS modules that ask the registry themselves
/// (the results map, the years facet): their answers need not cross the wasm.
#[cfg(feature = "app")]
pub fn client() -> Option<JsValue> {
    CLIENT.with(|c| {
        c.borrow()
            .as_ref()
            .map(|c| AsRef::<JsValue>::as_ref(c).clone())
    })
}

/// Uses an already opened client (the widget script opens it itself).
pub fn set_client(client: JsValue) {
    CLIENT.with(|c| *c.borrow_mut() = Some(client.unchecked_into()));
    for resolve in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        let _ = resolve.call0(&JsValue::NULL);
    }
}

/// Resolves once a client is set (at once if one is).
fn client_set() -> js_sys::Promise {
    if CLIENT.with(|c| c.borrow().is_some()) {
        return js_sys::Promise::resolve(&JsValue::NULL);
    }
    js_sys::Promise::new(&mut |resolve, _| WAITING.with(|w| w.borrow_mut().push(resolve)))
}

#[cfg(feature = "app")]
/// Opens the registry at `data_url` (`mode` "full" or "typeahead"), with
/// main-thread suggestions, and resolves to the release facts as soon as
/// the manifest is in. Suggestions and record pages come from the data's
/// pieces; the whole data (what everything else needs) is downloaded when
/// something asks for it, or once the page has shown its answer
/// ([`answered`]) and is idle, and then answers in their place.
pub async fn open(data_url: &str, mode: &str) -> Result<Info, CallError> {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"dataUrl".into(), &data_url.into());
    let _ = js_sys::Reflect::set(&options, &"mode".into(), &mode.into());
    let _ = js_sys::Reflect::set(&options, &"deferWhole".into(), &JsValue::TRUE);
    let early = JsFuture::from(open_registry_early(&options))
        .await
        .map_err(error_of)?;
    let field = |k: &str| js_sys::Reflect::get(&early, &k.into()).map_err(error_of);
    set_client(field("typeahead")?);
    let whole = js_sys::Promise::from(field("whole")?);
    leptos::task::spawn_local(async move {
        // A whole registry that cannot load is reported by the requests
        // that need it; the pieces go on answering the rest.
        if let Ok(client) = JsFuture::from(whole).await {
            set_client(client);
        }
    });
    let info = JsFuture::from(js_sys::Promise::from(field("info")?))
        .await
        .map_err(error_of)?;
    from_js(&info)
}

#[cfg(feature = "app")]
/// Calls `f` with the facts of the data folder's new release when the page
/// finds one (a deploy while it is open: registry-pieces.js's window event
/// `registry-release`, whose `detail.manifest` is the new manifest), from
/// which its answers then come.
pub fn on_new_release(f: impl Fn(Info) + 'static) {
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).unwrap_or(JsValue::NULL);
    let listener = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
        let manifest = get(&get(&e, "detail"), "manifest");
        f(Info {
            release: get(&manifest, "release").as_string().unwrap_or_default(),
            record_count: get(&manifest, "record_count").as_f64().unwrap_or(0.0) as u64,
        });
    });
    if let Some(w) = web_sys::window() {
        let _ = w.add_event_listener_with_callback(
            "registry-release",
            listener.as_ref().unchecked_ref(),
        );
    }
    // The page's whole life: the app is mounted once.
    listener.forget();
}

#[cfg(feature = "app")]
/// Says that the page shows its answer (a record, results, an error): the
/// whole data and the offline copy start once the browser is idle.
pub fn answered() {
    js_answered();
}

/// A JS value read straight into a typed shape (no JSON text in between:
/// this runs once per keystroke).
fn from_js<T: for<'de> Deserialize<'de>>(v: &JsValue) -> Result<T, CallError> {
    serde_wasm_bindgen::from_value(v.clone()).map_err(|e| CallError::Failed(e.to_string()))
}

/// Whether empty text has something to offer for `ctx` (the e-mail
/// domain's or the remembered records), so that focusing the input is
/// worth a query.
pub fn offers_on_focus(ctx: &SuggestContext) -> bool {
    ctx.email_domain.as_deref().is_some_and(|d| d.contains('.')) || !ctx.remembered.is_empty()
}

/// A value of `suggest`'s options object.
#[derive(Debug, PartialEq)]
enum OptionValue<'a> {
    List(&'a [String]),
    Text(&'a str),
    Number(usize),
}

/// The fields of `o` as its JSON has them (the contract's serde names,
/// empty ones left out), written out by hand: a serialiser would add
/// kilobytes to the widget's wasm for seven fields. The test below holds
/// them to the contract's serialisation.
fn option_fields(o: &SuggestOptions) -> Vec<(&'static str, OptionValue<'_>)> {
    let c = &o.context;
    let lists = [
        ("filters", &o.filters),
        ("preferCountries", &c.prefer_countries),
        ("preferTypes", &c.prefer_types),
        ("remembered", &c.remembered),
    ];
    let texts = [("emailDomain", &c.email_domain), ("lang", &c.lang)];
    let mut out: Vec<_> = lists
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| (k, OptionValue::List(v)))
        .collect();
    out.extend(
        texts
            .into_iter()
            .filter_map(|(k, v)| Some((k, OptionValue::Text(v.as_deref()?)))),
    );
    out.extend(o.limit.map(|n| ("limit", OptionValue::Number(n))));
    out
}

/// `suggest`'s options object: the contract's [`SuggestOptions`].
fn suggest_options(filters: &[String], limit: usize, ctx: &SuggestContext) -> JsValue {
    let options = SuggestOptions {
        filters: filters.to_vec(),
        limit: Some(limit),
        context: ctx.clone(),
    };
    let object = js_sys::Object::new();
    for (key, value) in option_fields(&options) {
        let value: JsValue = match value {
            OptionValue::List(v) => v
                .iter()
                .map(|s| JsValue::from_str(s))
                .collect::<js_sys::Array>()
                .into(),
            OptionValue::Text(t) => t.into(),
            OptionValue::Number(n) => (n as f64).into(),
        };
        let _ = js_sys::Reflect::set(&object, &key.into(), &value);
    }
    object.into()
}

/// Typeahead hits; a newer call makes this one fail with [`CallError::Stale`].
///
/// The message is posted to the Worker at once (not when the future is
/// first polled), so a keystroke's query is on its way before the page does
/// anything else with the keystroke. Typed before the page has a client
/// (its first moments), the query is asked as soon as it has one.
pub fn suggest(
    text: &str,
    filters: &[String],
    limit: usize,
    ctx: &SuggestContext,
) -> impl Future<Output = Result<Vec<Hit>, CallError>> + use<> {
    let options = suggest_options(filters, limit, ctx);
    let asked = with_client(|c| c.suggest(text, &options));
    let text = text.to_string();
    async move {
        let p = match asked {
            Ok(p) => p,
            Err(_) => {
                JsFuture::from(client_set()).await.map_err(error_of)?;
                with_client(|c| c.suggest(&text, &options))?
            }
        };
        from_js(&JsFuture::from(p).await.map_err(error_of)?)
    }
}

/// Typeahead hits computed now, on the main thread; `None` while that
/// instance is not ready or when the text needs the Worker (external ids):
/// then use [`suggest`].
pub fn suggest_now(
    text: &str,
    filters: &[String],
    limit: usize,
    ctx: &SuggestContext,
) -> Option<Result<Vec<Hit>, CallError>> {
    let v = with_client(|c| c.suggest_now(text, &suggest_options(filters, limit, ctx))).ok()?;
    match v {
        Ok(v) if v.is_null() || v.is_undefined() => None,
        Ok(v) => Some(from_js(&v)),
        Err(e) => Some(Err(error_of(e))),
    }
}

/// The first hits of the answer [`suggest`] is getting, when the pieces at
/// hand prove them (fewer than `limit`): shown until the answer comes.
pub fn suggest_partial_now(
    text: &str,
    filters: &[String],
    limit: usize,
    ctx: &SuggestContext,
) -> Option<Vec<Hit>> {
    let v = with_client(|c| c.suggest_partial_now(text, &suggest_options(filters, limit, ctx)))
        .ok()?
        .ok()?;
    if v.is_null() || v.is_undefined() {
        return None;
    }
    from_js(&v).ok()
}

/// One record summary by id, now, when [`suggest_now`] can answer.
pub fn summary_now(id: &str) -> Option<Summary> {
    match suggest_now(id, &[], 1, &SuggestContext::default())? {
        Ok(hits) => hits.into_iter().next().map(|h| h.summary),
        Err(_) => None,
    }
}

/// One record summary by id, outside the typeahead's stale channel.
pub async fn summary(id: &str) -> Result<Option<Summary>, CallError> {
    let args = js_sys::Array::of2(
        &id.into(),
        &suggest_options(&[], 1, &SuggestContext::default()),
    );
    let p = with_client(|c| c.call("suggest", &args))?;
    let hits: Vec<Hit> = from_js(&JsFuture::from(p).await.map_err(error_of)?)?;
    Ok(hits.into_iter().next().map(|h| h.summary))
}

#[cfg(feature = "app")]
/// The API router: `/v2/organizations?…` → `(status, JSON text)`. Posted
/// at once, like [`suggest`], so several requests can be in flight.
pub fn request(
    path_and_query: &str,
) -> impl Future<Output = Result<(u16, String), CallError>> + use<> {
    let p = with_client(|c| c.request(path_and_query));
    async move { response(JsFuture::from(p?).await.map_err(error_of)?) }
}

/// A results page's rows, total and facets without the records (JSON of
/// `{number_of_results, meta, hits: [summary]}`), when the client's pieces
/// answer it; `None`: ask [`request`] for the API's answer.
#[cfg(feature = "app")]
pub fn rows(
    path_and_query: &str,
) -> impl Future<Output = Result<Option<(u16, String)>, CallError>> + use<> {
    let p = with_client(|c| {
        let f = c.rows_method();
        f.dyn_ref::<js_sys::Function>()
            .map(|f| f.call1(c, &path_and_query.into()))
    });
    async move {
        let Some(p) = p? else { return Ok(None) };
        let v = JsFuture::from(js_sys::Promise::resolve(&p.map_err(error_of)?))
            .await
            .map_err(error_of)?;
        if v.is_null() || v.is_undefined() {
            return Ok(None);
        }
        response(v).map(Some)
    }
}

#[cfg(feature = "app")]
fn response(v: JsValue) -> Result<(u16, String), CallError> {
    let status = js_sys::Reflect::get(&v, &"status".into())
        .ok()
        .and_then(|s| s.as_f64())
        .unwrap_or(0.0) as u16;
    let body = js_sys::Reflect::get(&v, &"body".into())
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// `client.info`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Info {
    /// Release name.
    pub release: String,
    /// Number of records.
    pub record_count: u64,
}

/// The bare id (`0abcdef12`) of an id URL.
pub fn bare_id(id: &str) -> &str {
    id.rsplit('/').next().unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn as_json(o: &SuggestOptions) -> Value {
        option_fields(o)
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    OptionValue::List(l) => json!(l),
                    OptionValue::Text(t) => json!(t),
                    OptionValue::Number(n) => json!(n),
                };
                (k.to_string(), v)
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    }

    /// The hand-written options are the contract's JSON, full and empty.
    #[test]
    fn options_are_written_as_the_contract_serialises_them() {
        let full = SuggestOptions {
            filters: vec!["types:education".into()],
            limit: Some(8),
            context: SuggestContext {
                prefer_countries: vec!["DE".into()],
                prefer_types: vec!["funder".into()],
                email_domain: Some("x.de".into()),
                remembered: vec!["03ncywt35".into()],
                lang: Some("de".into()),
            },
        };
        for o in [full, SuggestOptions::default()] {
            assert_eq!(as_json(&o), serde_json::to_value(&o).unwrap());
        }
    }
}
