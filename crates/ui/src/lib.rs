//! The registry's browser UI (Leptos, client-side rendering).
//!
//! * [`search_page::App`]: search page with typeahead, results, live facets,
//!   advanced query and record pages; all state lives in the URL
//!   ([`url_state`]), so links are shareable and back/forward work, also
//!   when the site is served under a sub-path.
//! * [`widget`]: the `<registry-picker>` form widget's mount function (the
//!   custom element itself is defined by `web/registry-picker.js`).
//! * [`combobox::Combobox`]: the WAI-ARIA 1.2 combobox both use.
//!
//! The app's modules stand in floors, each importing only those below it:
//! [`search_page`] (the app, `startApp`) over [`results`], [`record_view`]
//! and [`facets`]; these over [`family`], [`map`], [`dots`] and [`years`];
//! these over what several pages read — [`record`] (a v2 record's fields,
//! the link to a record), [`meta`] (an answer's facet counts) and
//! [`url_state`] (the page state, and the API request for it) — and,
//! at the ground, this file's helpers and [`registry_client`].
//!
//! The registry runs in a Web Worker behind `registry.js`
//! ([`registry_client`]); once the page is idle, typeahead suggestions are
//! also computed by a suggest-only instance on the main thread, synchronously
//! in the input handler. Record text is only ever rendered as text nodes.
#![deny(missing_docs)]

pub mod combobox;
#[cfg(feature = "app")]
pub mod dots;
#[cfg(feature = "app")]
pub mod facets;
#[cfg(feature = "app")]
pub mod family;
#[cfg(feature = "app")]
pub mod map;
#[cfg(feature = "app")]
pub mod meta;
#[cfg(feature = "app")]
pub mod record;
#[cfg(feature = "app")]
pub mod record_view;
pub mod registry_client;
#[cfg(feature = "app")]
pub mod results;
#[cfg(feature = "app")]
pub mod search_page;
#[cfg(feature = "app")]
pub mod url_state;
pub mod widget;
#[cfg(feature = "app")]
pub mod years;

use leptos::prelude::*;
use serde::Deserialize;

pub use registry_client::{Hit, Summary};

/// Every user-visible string of the combobox and widget; any can be
/// overridden (the widget takes a JSON object of camelCase keys).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Strings {
    /// Shown when nothing matches.
    pub no_results: String,
    /// Live-region message; `{n}` is the number of suggestions.
    pub results: String,
    /// Live-region message for one suggestion.
    pub one_result: String,
    /// Label of the successor option.
    pub use_successor: String,
    /// Status names.
    pub active: String,
    /// Status names.
    pub inactive: String,
    /// Status names.
    pub withdrawn: String,
    /// Announced after a pick; `{name}` is the picked name.
    pub selected: String,
    /// Note under the widget when the text is free text.
    pub free_text: String,
    /// Note under the widget when a record is picked.
    pub picked: String,
    /// Clear button label.
    pub clear: String,
    /// "Also known as" prefix for a matched alias/label.
    pub matched_name: String,
    /// Prefix for a matched acronym.
    pub matched_acronym: String,
    /// Shown while the registry loads.
    pub loading: String,
    /// Shown under the input when the registry cannot be loaded (the
    /// technical reason goes to the console).
    pub load_error: String,
    /// Marks a suggestion this browser picked before (`remember`).
    pub picked_before: String,
    /// Marks a suggestion offered for the e-mail address's domain.
    pub from_your_email: String,
    /// The button that forgets the picks remembered in this browser.
    pub forget: String,
    /// Announced once they are forgotten.
    pub forgotten: String,
    /// `multiple`: the remove button of a picked organization; `{name}` is its name.
    pub remove: String,
    /// `multiple`: announced after a removal; `{name}` is the removed name.
    pub removed: String,
    /// `multiple`: the accessible name of the list of picked organizations.
    pub picked_list: String,
    /// `multiple`: marks an entry kept as typed (not from the registry).
    pub free_text_item: String,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            no_results: "No matching organization".into(),
            results: "{n} organizations available, use up and down arrows to choose".into(),
            one_result: "1 organization available, use up and down arrows to choose".into(),
            use_successor: "Use its successor:".into(),
            active: "Active".into(),
            inactive: "Inactive".into(),
            withdrawn: "Withdrawn".into(),
            selected: "{name} selected".into(),
            free_text: "Not picked from the registry: the text will be sent as typed (free text)."
                .into(),
            picked: "Picked from the registry.".into(),
            clear: "Clear".into(),
            matched_name: "Also known as".into(),
            matched_acronym: "Acronym".into(),
            loading: "Loading the registry…".into(),
            load_error: "Suggestions are unavailable: the registry could not be loaded.".into(),
            picked_before: "Picked before".into(),
            from_your_email: "From your e-mail domain".into(),
            forget: "Forget my past picks".into(),
            forgotten: "Your past picks are forgotten.".into(),
            remove: "Remove {name}".into(),
            removed: "{name} removed".into(),
            picked_list: "Picked organizations".into(),
            free_text_item: "as typed".into(),
        }
    }
}

impl Strings {
    /// The label of a status value.
    pub fn status(&self, status: &str) -> String {
        match status {
            "active" => self.active.clone(),
            "inactive" => self.inactive.clone(),
            "withdrawn" => self.withdrawn.clone(),
            other => other.to_string(),
        }
    }
}

/// What a pick hands to the page or form.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pick {
    /// Identifier URL.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Country code.
    pub country: Option<String>,
    /// Country name.
    pub country_name: Option<String>,
    /// Status.
    pub status: String,
}

impl From<&Summary> for Pick {
    fn from(s: &Summary) -> Pick {
        Pick {
            id: s.id.clone(),
            name: s.name.clone(),
            country: s.country_code.clone(),
            country_name: s.country_name.clone(),
            status: s.status.clone(),
        }
    }
}

/// `text` with the byte `ranges` wrapped in `<mark>`, as text nodes only.
pub fn highlight(text: &str, ranges: &[(usize, usize)]) -> AnyView {
    let mut parts: Vec<AnyView> = Vec::new();
    let mut pos = 0;
    for &(a, b) in ranges {
        if a < pos
            || a >= b
            || b > text.len()
            || !text.is_char_boundary(a)
            || !text.is_char_boundary(b)
        {
            continue;
        }
        if a > pos {
            parts.push(text[pos..a].to_string().into_any());
        }
        parts.push(view! { <mark>{text[a..b].to_string()}</mark> }.into_any());
        pos = b;
    }
    if pos < text.len() {
        parts.push(text[pos..].to_string().into_any());
    }
    parts.into_any()
}

/// "education" → "Education".
pub fn title_case(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// A count with its thousands grouped, as the years facet and the maps write
/// them (`toLocaleString("en")`): 35990 → "35,990".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "City, Country" from the parts that exist.
pub fn place(city: Option<&str>, country: Option<&str>) -> String {
    [city, country]
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}
