//! The Match page's reading of a list (feature `full`): the core's one rule
//! for its layout and the column to match, so the page and `registry match`
//! read a file the same way.

use registry_core::list_layout::{self, Layout};
use wasm_bindgen::prelude::*;

/// The delimiter of a list called `name` whose text starts with `head` (at
/// least its first line that is not blank): `","`, `";"` or `"\t"`, or
/// `undefined` when it is one string a line.
#[wasm_bindgen(js_name = listLayout)]
pub fn list_layout(name: &str, head: &str) -> Option<String> {
    match list_layout::layout(name, head.as_bytes()) {
        Layout::Lines => None,
        Layout::Delimited(d) => Some(char::from(d).to_string()),
    }
}

/// The column of `header` to match; `filled[k]` is nonzero when column `k`
/// holds text in some row that could be read.
#[wasm_bindgen(js_name = guessColumn)]
pub fn guess_column(header: Vec<String>, filled: Vec<u8>) -> usize {
    list_layout::guess_column(&header, |k| filled.get(k).is_some_and(|&f| f != 0))
}
