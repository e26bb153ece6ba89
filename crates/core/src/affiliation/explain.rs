//! Why an affiliation item matched (the `explain` extension of E4): which
//! words of the string matched which name of the record, which evidence
//! outside those words counted (country, city, an acronym, a parent or unit
//! named too), and what decided `chosen`. A person accepts or corrects a
//! match only when they can see what in the string led to it.
//!
//! Built from what the matcher already computed; asking for it changes
//! nothing in the ranking or the choice.

use serde::Serialize;

use super::features::{COUNT, NAMES};
use super::model::{Ineligible, Model, ineligible};
use super::split::{Parsed, Sub};
use crate::search::Engine;

/// Version of the explanation's shape, listed in the root answer's
/// `extensions` (a change of fields bumps it).
pub const VERSION: u32 = 1;

/// Why one item matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    /// The record's name that matched best.
    pub name: String,
    /// Its type, spelled as in the records this API returns (the spec's
    /// names, not upstream's `ror_display`): `registry_display`, `label`,
    /// `alias` or `acronym`.
    pub name_type: &'static str,
    /// The words of the string that matched the name, as written.
    pub matched_words: Vec<String>,
    /// Similarity of the name with the substring (0–1, after the factors
    /// for aliases, generic names and names that are only a place).
    pub name_similarity: f64,
    /// Evidence outside the matched words.
    pub evidence: Evidence,
    /// The `chosen` model's score of the item (log-odds); `null` for items
    /// after the leading ones, which the model does not score.
    pub model_score: Option<f64>,
    /// The score the chosen item must reach.
    pub threshold: f64,
    /// What was decided: `chosen`; `another item was chosen`; `below the
    /// threshold`; `tied with an unrelated organization named as well`;
    /// `another organization is placed in another country`; `name score
    /// too low`; `not among the leading candidates`.
    pub decision: &'static str,
}

/// Evidence outside the words the name matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// `agrees` (the record's country is mentioned), `disagrees` (only
    /// other countries are) or `none` (no country mentioned).
    pub country: &'static str,
    /// The record's city is mentioned.
    pub city: bool,
    /// One of the record's acronyms is.
    pub acronym: bool,
    /// The record's parent organization is named as well (a unit inside
    /// it: the string is about both).
    pub parent_named: bool,
    /// A unit of the record (a child) is named as well.
    pub unit_named: bool,
}

/// What the matcher saw of one item.
pub(super) struct Seen<'a> {
    pub p: &'a Parsed,
    pub sub: &'a Sub,
    /// Bits of the substring's tokens the name matched.
    pub matched: u64,
    pub entry: u32,
    pub similarity: f32,
    pub country: i8,
    pub city: bool,
    pub acronym: bool,
    /// The model's features (leading candidates only).
    pub features: Option<&'a [f32; COUNT]>,
}

fn feature(name: &str) -> usize {
    NAMES.iter().position(|n| *n == name).unwrap_or(0)
}

fn round(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

/// The explanation of one item; `chosen`: this item is the chosen one,
/// `any_chosen`: some item is.
pub(super) fn explain(
    engine: &Engine,
    s: &Seen<'_>,
    model: &Model,
    chosen: bool,
    any_chosen: bool,
) -> Explanation {
    let ix = engine.index();
    let r = ix.entry_record(s.entry) as usize;
    let name = engine
        .registry()
        .names(r)
        .nth(ix.entry_position(s.entry))
        .map(|n| {
            let kind = if n.is_display() {
                "registry_display"
            } else if n.is_label() {
                "label"
            } else if n.is_alias() {
                "alias"
            } else {
                "acronym"
            };
            (n.value.to_string(), kind)
        });
    let (name, name_type) = name.unwrap_or_default();
    let matched_words = (0..s.sub.toks.len().min(64))
        .filter(|&i| s.matched & (1 << i) != 0)
        .map(|i| s.p.tok_text(s.sub.toks.start + i).to_string())
        .collect();
    let flag = |name: &str| s.features.is_some_and(|f| f[feature(name)] > 0.0);
    let model_score = s.features.map(|f| model.score(f));
    let decision = match (s.features, model_score) {
        _ if chosen => "chosen",
        (Some(f), Some(score)) => match ineligible(f) {
            Some(Ineligible::LowScore) => "name score too low",
            Some(Ineligible::Tied) => "tied with an unrelated organization named as well",
            Some(Ineligible::RivalElsewhere) => "another organization is placed in another country",
            None if any_chosen => "another item was chosen",
            None if score < model.threshold => "below the threshold",
            None => "another item scored higher",
        },
        _ if any_chosen => "another item was chosen",
        _ => "not among the leading candidates",
    };
    Explanation {
        name,
        name_type,
        matched_words,
        name_similarity: round(s.similarity),
        evidence: Evidence {
            country: match s.country {
                1.. => "agrees",
                ..=-1 => "disagrees",
                0 => "none",
            },
            city: s.city,
            acronym: s.acronym,
            parent_named: flag("child_of_candidate"),
            unit_named: flag("parent_of_candidate"),
        },
        model_score: model_score.map(round),
        threshold: round(model.threshold),
        decision,
    }
}
