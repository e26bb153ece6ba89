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
pub use full::{Registry, RegistryBuilder, apply_delta};
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
