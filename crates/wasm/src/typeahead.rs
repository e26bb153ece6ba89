//! The partitioned typeahead (feature `typeahead`): `Pieces`, and the
//! suggestion options and hits the full registry's `suggest` shares.

use registry_contract::{Hit, SuggestOptions};
use wasm_bindgen::prelude::*;

use crate::{js_err, params, to_js};

/// `suggest`'s options (the contract's [`SuggestOptions`]) read from a JS
/// object; `undefined` is the defaults. Read field by field rather than by
/// a serde deserialiser: the widget's wasm then carries no generic
/// deserialiser, and a wrong type names the field the way every other
/// method's options do.
pub(crate) fn options_from_js(v: &JsValue) -> Result<SuggestOptions, JsError> {
    let mut s = SuggestOptions::default();
    if v.is_undefined() {
        return Ok(s);
    }
    let o = params::object(v, "struct SuggestOptions")?;
    if let Some(x) = o.field("filters") {
        s.filters = params::strings(&x)?;
    }
    if let Some(x) = o.field("limit") {
        s.limit = params::opt_uint(&x, usize::MAX as u64, "usize")?.map(|n| n as usize);
    }
    let c = &mut s.context;
    if let Some(x) = o.field("preferCountries") {
        c.prefer_countries = params::strings(&x)?;
    }
    if let Some(x) = o.field("preferTypes") {
        c.prefer_types = params::strings(&x)?;
    }
    if let Some(x) = o.field("emailDomain") {
        c.email_domain = params::opt_string(&x)?;
    }
    if let Some(x) = o.field("lang") {
        c.lang = params::opt_string(&x)?;
    }
    if let Some(x) = o.field("remembered") {
        // Ids that do not parse are the core's to skip.
        c.remembered = params::strings(&x)?;
    }
    Ok(s)
}

/// Suggestions as JS values: the contract's [`Hit`]s.
pub(crate) fn hits_to_js(hits: Vec<registry_core::search::Suggestion>) -> Result<JsValue, JsError> {
    to_js(&hits.into_iter().map(Hit::from).collect::<Vec<_>>())
}

/// The partitioned typeahead index ([`registry_core::pieces`]): the
/// host fetches the directory and the pieces `suggest` asks for; answers
/// are those of the whole registry.
#[wasm_bindgen]
pub struct Pieces {
    client: registry_core::pieces::PieceClient,
}

#[wasm_bindgen]
impl Pieces {
    /// From the manifest's `pieces.split_first` (the first characters that
    /// have a directory part) and `pieces.id_chars` (absent in builds
    /// without id pieces: ids are then answered by the whole data).
    #[wasm_bindgen(constructor)]
    pub fn new(split_first: JsValue, id_chars: Option<u32>) -> Result<Pieces, JsError> {
        use registry_core::pieces::{Directory, ID_KEY_CHARS, PieceClient};
        let firsts = params::strings(&split_first)?;
        let client = PieceClient::new(Directory::sharded(firsts));
        Ok(Pieces {
            client: if id_chars == Some(ID_KEY_CHARS as u32) {
                client.with_id_pieces()
            } else {
                client
            },
        })
    }

    /// Loads the id piece `key`.
    #[wasm_bindgen(js_name = addId)]
    pub fn add_id(&mut self, key: &str, bytes: &[u8]) -> Result<(), JsError> {
        self.client.add_id(key, bytes).map_err(js_err)
    }

    /// Records that the id piece `key` has no file (HTTP 404).
    #[wasm_bindgen(js_name = addMissingId)]
    pub fn add_missing_id(&mut self, key: &str) {
        self.client.add_missing_id(key);
    }

    /// Loads the directory part of first character `first` (its split
    /// prefixes, the part file's JSON array).
    #[wasm_bindgen(js_name = addDirectory)]
    pub fn add_directory(&mut self, first: &str, keys: JsValue) -> Result<(), JsError> {
        let keys = params::strings(&keys)?;
        self.client.add_directory(first, keys);
        Ok(())
    }

    /// Loads the piece of prefix `key`.
    pub fn add(&mut self, key: &str, bytes: &[u8]) -> Result<(), JsError> {
        self.client.add(key, bytes).map_err(js_err)
    }

    /// Records that the piece of prefix `key` has no file (HTTP 404): no
    /// record is under that prefix.
    #[wasm_bindgen(js_name = addMissing)]
    pub fn add_missing(&mut self, key: &str) {
        self.client.add_missing(key);
    }

    /// `suggest(text, {filters, limit})` → `{hits}` (exactly the whole
    /// registry's), `{hits, partial: true, need, kind}` (the whole
    /// registry's first hits, fewer than asked for: show them, fetch that
    /// piece, ask again), `{needDirectory: first}` (fetch that directory part),
    /// `{need: key, kind: "l" | "h" | "i"}` (fetch that leaf, head or id piece; then ask again) or
    /// `{whole: true}` (only the whole typeahead data answers).
    pub fn suggest(&self, text: &str, options: JsValue) -> Result<JsValue, JsError> {
        use registry_core::pieces::Answer;
        let o = options_from_js(&options)?;
        let answer = self
            .client
            .answer(
                text,
                &o.filters.join(","),
                o.limit.unwrap_or(10).min(100),
                &o.context,
            )
            .map_err(|errors| JsError::new(&errors.join("; ")))?;
        let out = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&out, &k.into(), &v).map(|_| ());
        let done = match answer {
            Answer::Hits(h) => set("hits", hits_to_js(h)?),
            Answer::Whole => set("whole", JsValue::TRUE),
            Answer::NeedDirectory(first) => set("needDirectory", first.into()),
            Answer::Need(key, kind) => {
                set("need", key.into()).and_then(|_| set("kind", kind.code().into()))
            }
            Answer::Partial(h, key, kind) => set("hits", hits_to_js(h)?)
                .and_then(|_| set("partial", JsValue::TRUE))
                .and_then(|_| set("need", key.into()))
                .and_then(|_| set("kind", kind.code().into())),
        };
        done.map_err(|_| JsError::new("cannot build the answer object"))?;
        Ok(out.into())
    }
}
