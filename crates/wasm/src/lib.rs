//! WebAssembly bindings of `registry-core`.
//!
//! Thin by design: shard bytes come in (JS fetches and verifies them), JS
//! values or JSON text go out, errors become JS exceptions carrying the
//! core's message. No network or storage access happens here, and no raw
//! pointers cross the boundary (wasm-bindgen owns the handle). Every search
//! method goes through the core's router, so the answers are the API's.
#![deny(missing_docs)]

use serde::Serialize;
use wasm_bindgen::prelude::*;

#[cfg(feature = "full")]
mod full;
#[cfg(feature = "full")]
pub use full::{Registry, RegistryBuilder};
#[cfg(feature = "search")]
mod search_pieces;
#[cfg(feature = "search")]
pub use search_pieces::PiecesSearch;
#[cfg(feature = "full")]
mod list_layout;
#[cfg(feature = "full")]
pub use list_layout::{guess_column, list_layout};
mod params;
#[cfg(feature = "typeahead")]
mod typeahead;
#[cfg(feature = "typeahead")]
pub use typeahead::Pieces;
#[cfg(feature = "typeahead")]
#[cfg(feature = "full")]
pub(crate) use typeahead::{hits_to_js, options_from_js};
#[cfg(all(test, feature = "full"))]
mod tests;

/// A value as a plain JS value: its JSON text, parsed by the engine's
/// `JSON.parse` (one generic serialiser, the router's, instead of a second
/// one writing JS objects field by field).
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    // Our values always serialise (string keys, no custom errors); not
    // formatting serde_json's error keeps its message table out of the wasm.
    let json =
        serde_json::to_string(value).map_err(|_| JsError::new("cannot serialise the value"))?;
    js_sys::JSON::parse(&json).map_err(|_| JsError::new("invalid JSON"))
}

pub(crate) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The next release's file from the one held and a delta
/// (`registry_core::shard::delta`): `held` is the earlier release's file or
/// its stored image, the result is the new file's stored image (its sections
/// uncompressed; it loads as the file does), at most `expected_bytes` long.
/// The caller checks it by the SHA-256 it trusts (the manifest's for the
/// offline copy, the slot's hash of the delta and of the base for a piece).
/// Throws, saying why, when the delta does not fit what is held: the caller
/// then downloads the file whole, or asks the whole registry.
///
/// In every build, not only the full one: a pieces folder built with
/// `--previous` keeps the last release's pieces and lists deltas beside
/// them (pieces version 10), and the widget's typeahead-only wasm reads
/// those pieces too.
#[wasm_bindgen(js_name = applyDelta)]
pub fn apply_delta(held: &[u8], delta: &[u8], expected_bytes: f64) -> Result<Vec<u8>, JsError> {
    use registry_core::shard::delta;
    let image = delta::stored_image(held).map_err(js_err)?;
    delta::apply(&image, delta, expected_bytes as u64).map_err(js_err)
}
