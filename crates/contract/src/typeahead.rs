//! The typeahead's shapes: what a page asks ([`SuggestOptions`], whose
//! form part is [`SuggestContext`]) and what it gets back ([`Hit`], with
//! its record's [`Summary`] and [`Matched`] name), and the [`Row`]s of a
//! results page answered from the pieces. One definition for
//! every part they cross: the core ranks into them (its `RecordSummary`
//! is [`Summary`], its `MatchedName` is [`Matched`], its `PageHit` is
//! [`Row`], and its `Suggestion` becomes a [`Hit`]), the wasm serialises them to JS, the UI wasm reads
//! them back, and the npm package's `index.d.ts` declares them (checked by
//! `tests/dts.rs`).
//!
//! The JSON is the one the browser runtime and the npm package have always
//! seen: a hit's and a summary's fields are all present (`null` for an
//! absent city, language or label); the options leave out what is empty.
//! Reading is lenient (`#[serde(default)]`): a field a reader does not get
//! is its default, so an older runtime's answer still reads.

use serde::{Deserialize, Serialize};

/// What the page knows about the person typing (a form's context): boosts,
/// offers before anything is typed, and the language of the labels to
/// show. The default changes nothing. Ids that do not parse in
/// `remembered` are skipped by the core, not refused: remembering is a
/// convenience, never an error for the form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SuggestContext {
    /// ISO 3166 country codes to prefer (any case): a boost, not a filter.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prefer_countries: Vec<String>,
    /// Organization types to prefer (`education`, `funder`, …): a boost,
    /// not a filter.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prefer_types: Vec<String>,
    /// An e-mail address or its domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_domain: Option<String>,
    /// Ids (URL or bare) picked before in this browser, most recent first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remembered: Vec<String>,
    /// Language code whose labels to show (`de`, `fr`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// The options of `suggest(text, options)` (registry.js, registry-pieces.js
/// and the wasm's `Registry` and `Pieces`): filters, how many, and the
/// form's context, all in one flat object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SuggestOptions {
    /// API filters (`types:education`, `country.country_code:DE`), which
    /// all must hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<String>,
    /// How many hits at most (the wasm's default is 10, its cap 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The form's context, its fields at the options' top level.
    #[serde(flatten)]
    pub context: SuggestContext,
}

/// What a suggestion (or a results row) shows about its record, without
/// the full record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Identifier URL.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Acronyms.
    pub acronyms: Vec<String>,
    /// City of the first location.
    pub city: Option<String>,
    /// Country code of the first location.
    pub country_code: Option<String>,
    /// Country name of the first location.
    pub country_name: Option<String>,
    /// Types.
    pub types: Vec<String>,
    /// `active`, `inactive` or `withdrawn`.
    pub status: String,
    /// Identifier URLs of successor records.
    pub successors: Vec<String>,
}

/// The name of a record that matched the text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Matched {
    /// The name as stored.
    pub value: String,
    /// Its types (`registry_display`, `label`, `alias`, `acronym`).
    pub types: Vec<String>,
    /// Its language.
    pub lang: Option<String>,
}

/// One suggestion, as `suggest` answers it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hit {
    /// Record index in the registry that answered (not stable across
    /// releases: use `summary.id`).
    pub index: usize,
    /// The record.
    pub summary: Summary,
    /// The name that matched.
    pub matched: Matched,
    /// UTF-8 byte ranges of `matched.value` to highlight (sorted,
    /// disjoint): what Rust strings index.
    pub ranges: Vec<(usize, usize)>,
    /// Why it matched: `id`, `external_id`, `exact`, `acronym`,
    /// `display_prefix`, `name_prefix`, `words`, or for offers made before
    /// anything is typed `email_domain` or `remembered`.
    pub reason: String,
    /// The same ranges in UTF-16 code units: what JS strings index.
    pub ranges16: Vec<(usize, usize)>,
    /// The record's label in the context's language, when it has one that
    /// differs from the display name ([`SuggestContext::lang`]).
    pub localized: Option<String>,
    /// Whether the record was picked before in this browser
    /// ([`SuggestContext::remembered`]).
    pub remembered: bool,
}

/// One row of a results page answered from the pieces (the wasm's
/// `PiecesSearch` answer's `hits`; the core's `PageHit`): what the list
/// shows of the record, and its score.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Row {
    /// The record's summary.
    pub summary: Summary,
    /// Its E2 score, as the whole registry's answer gives it.
    pub score: f32,
}

/// Byte ranges of `s` as UTF-16 code-unit ranges (for [`Hit::ranges16`]);
/// an offset past the end or inside a character counts as 0.
pub fn utf16_ranges(s: &str, ranges: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let at = |byte: usize| s.get(..byte).map_or(0, |p| p.encode_utf16().count());
    ranges.iter().map(|&(a, b)| (at(a), at(b))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_leave_out_what_is_empty_and_keep_the_context_flat() {
        assert_eq!(
            serde_json::to_string(&SuggestOptions::default()).unwrap(),
            "{}"
        );
        let o = SuggestOptions {
            filters: vec!["types:education".into()],
            limit: Some(3),
            context: SuggestContext {
                prefer_countries: vec!["DE".into()],
                email_domain: Some("x.de".into()),
                ..SuggestContext::default()
            },
        };
        let json = serde_json::to_string(&o).unwrap();
        assert_eq!(
            json,
            r#"{"filters":["types:education"],"limit":3,"preferCountries":["DE"],"emailDomain":"x.de"}"#
        );
        assert_eq!(serde_json::from_str::<SuggestOptions>(&json).unwrap(), o);
    }

    #[test]
    fn a_hit_writes_every_field_and_reads_a_partial_one() {
        let json = serde_json::to_string(&Hit::default()).unwrap();
        assert_eq!(
            json,
            r#"{"index":0,"summary":{"id":"","name":"","acronyms":[],"city":null,"country_code":null,"country_name":null,"types":[],"status":"","successors":[]},"matched":{"value":"","types":[],"lang":null},"ranges":[],"reason":"","ranges16":[],"localized":null,"remembered":false}"#
        );
        let h: Hit = serde_json::from_str(r#"{"summary":{"id":"x"},"reason":"exact"}"#).unwrap();
        assert_eq!((h.summary.id.as_str(), h.reason.as_str()), ("x", "exact"));
    }

    #[test]
    fn utf16_ranges_count_code_units() {
        assert_eq!(utf16_ranges("東雲 x", &[(0, 6), (7, 8)]), [(0, 2), (3, 4)]);
        assert_eq!(utf16_ranges("a😀b", &[(1, 5)]), [(1, 3)]);
        assert_eq!(utf16_ranges("ab", &[(0, 9)]), [(0, 0)]);
    }
}
