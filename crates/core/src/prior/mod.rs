//! The record prior: how likely a record is to be the one a person picks,
//! from the record's content alone (never from a list of ids).
//!
//! People do not pick organisations uniformly: affiliations name
//! universities, hospitals and funders far more often than the many small
//! companies and facilities of the registry. The prior is a log-linear
//! model over [`features`] (types, relationship counts, links, external-id
//! kinds, names and languages, domains, age, status), fitted offline by
//! `registry fit-prior` on the gold records of an affiliation set (one
//! observation per row, so popular records weigh as often as they are
//! written) as a softmax over every record of the registry. The fitted
//! weights are [`weights`]; a new data release is re-fitted
//! with the same command.
//!
//! The score is computed when a shard is built and stored quantized
//! ([`quantize`]) as one byte per record in the summary section: a
//! typeahead ranks with it without the records section. Shards of format 1
//! have no prior; every record then gets [`NEUTRAL`] and ranking falls back
//! to the rest of the rule.

use crate::model::{ACRONYM, ALIAS, DISPLAY, LABEL, Record};

pub mod weights;

use weights::{BIAS, WEIGHTS};

/// Number of features.
pub const FEATURE_COUNT: usize = FEATURE_NAMES.len();

/// What each feature is (the order of [`features`] and of the weights).
pub const FEATURE_NAMES: [&str; 31] = [
    "type:education",
    "type:funder",
    "type:healthcare",
    "type:company",
    "type:archive",
    "type:nonprofit",
    "type:government",
    "type:facility",
    "type:other",
    "status:active",
    "ln(1+children)",
    "ln(1+related)",
    "has parent",
    "ln(1+successors+predecessors)",
    "link:encyclopedia",
    "link:website",
    "id:isni",
    "id:grid",
    "id:funder_registry",
    "id:open_kb",
    "ln(1+labels)",
    "ln(1+aliases)",
    "has acronym",
    "ln(distinct name languages+1)",
    "ln(1+domains)",
    "established known",
    "ln(1+age in years)",
    "ln(1+locations)",
    "display name words",
    "record created before 2020",
    "ln(1+external ids)",
];

/// The year ages are counted to. Fixed so that a build is reproducible.
const AGE_YEAR: i64 = 2025;

fn ln1p(n: usize) -> f32 {
    (n as f32).ln_1p()
}

/// The feature vector of a record.
pub fn features(r: &Record) -> [f32; FEATURE_COUNT] {
    let has_type = |t: &str| f32::from(u8::from(r.types.iter().any(|x| x == t)));
    let rels = |k: &str| r.relationships.iter().filter(|x| x.kind == k).count();
    let link = |k: &str| f32::from(u8::from(r.links.iter().any(|l| l.kind == k)));
    let ext = |k: &str| f32::from(u8::from(r.external_ids.iter().any(|e| e.kind == k)));
    let of_type = |k: &str| r.names_of_type(k).count();
    let mut langs: Vec<&str> = r.names.iter().filter_map(|n| n.lang.as_deref()).collect();
    langs.sort_unstable();
    langs.dedup();
    let age = r
        .established
        .map_or(0.0, |y| ln1p((AGE_YEAR - y).max(0) as usize));
    let words = r
        .display_name()
        .map_or(0, |n| n.split_whitespace().count())
        .min(12);
    let created_early = r
        .admin
        .created
        .date
        .get(..4)
        .and_then(|y| y.parse::<u32>().ok())
        .is_some_and(|y| y < 2020);
    [
        has_type("education"),
        has_type("funder"),
        has_type("healthcare"),
        has_type("company"),
        has_type("archive"),
        has_type("nonprofit"),
        has_type("government"),
        has_type("facility"),
        has_type("other"),
        f32::from(u8::from(r.status == "active")),
        ln1p(rels("child")),
        ln1p(rels("related")),
        f32::from(u8::from(rels("parent") > 0)),
        ln1p(rels("successor") + rels("predecessor")),
        link("encyclopedia"),
        link("website"),
        ext("isni"),
        ext("grid"),
        ext("funder_registry"),
        ext("open_kb"),
        ln1p(of_type(LABEL).saturating_sub(usize::from(of_type(DISPLAY) > 0))),
        ln1p(of_type(ALIAS)),
        f32::from(u8::from(of_type(ACRONYM) > 0)),
        ln1p(langs.len()),
        ln1p(r.domains.len()),
        f32::from(u8::from(r.established.is_some())),
        age,
        ln1p(r.locations.len()),
        words as f32,
        f32::from(u8::from(created_early)),
        ln1p(r.external_ids.len()),
    ]
}

/// The log-prior (natural log, up to a constant) of a feature vector under
/// the given weights.
pub fn log_prior_with(x: &[f32; FEATURE_COUNT], bias: f32, w: &[f32; FEATURE_COUNT]) -> f32 {
    bias + x.iter().zip(w).map(|(a, b)| a * b).sum::<f32>()
}

/// The log-prior of a record under the checked-in weights.
pub fn log_prior(r: &Record) -> f32 {
    log_prior_with(&features(r), BIAS, &WEIGHTS)
}

/// Quantization step: 1/8 nat per unit, so 255 units span ~32 nats (the
/// fitted model's range is narrower) and one unit is a 13 % likelihood step.
pub const UNITS_PER_NAT: f32 = 8.0;

/// The stored value of a record whose shard has no prior (format 1), and
/// the value that the checked-in bias maps to.
pub const NEUTRAL: u8 = 128;

/// Log-prior → stored byte (clamped; higher is more likely).
pub fn quantize(log_prior: f32) -> u8 {
    let v = (log_prior * UNITS_PER_NAT).round() + f32::from(NEUTRAL);
    v.clamp(0.0, 255.0) as u8
}

/// The stored prior of a record.
pub fn stored(r: &Record) -> u8 {
    quantize(log_prior(r))
}
