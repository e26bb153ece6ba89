//! Affiliation matching (E4): free text such as "Dept. of Physics, Univ. of
//! Oxford, Oxford, UK" → scored candidate records, at most one of them
//! `chosen` (a confident match).
//!
//! # Algorithm
//!
//! 1. **Split** ([`split`]) the text into parts (commas, semicolons,
//!    brackets, slashes, spaced dashes) and tokens (the canonical folding of
//!    [`crate::text`]); substrings are every part and every run of two or
//!    three adjacent parts.
//! 2. **Countries** ([`countries`]): country names (from the data), common
//!    variants, US states and upper-case state / province codes, each with
//!    its token range.
//! 3. **Candidates** from the inverted index: for each part, the postings of
//!    its rarer terms (IDF-weighted, capped), best [`PART_CANDIDATES`] name
//!    entries kept. A run of parts considers the entries found by at least
//!    two of its parts.
//! 4. **Similarity** ([`score`]) of each substring with each candidate name
//!    (weighted token overlap, near-misses, acronyms); a record keeps its best
//!    (substring, name). An acronym *name* of a record only matches a
//!    substring that is exactly that acronym, for [`ACRONYM_SCORE`].
//! 5. **Evidence** outside the tokens the name matched: a mentioned country
//!    of the record (+[`COUNTRY_BONUS`]), its city (+[`CITY_BONUS`]), one of
//!    its acronyms (+[`ACRONYM_BONUS`]); countries mentioned but none of the
//!    record's (−[`COUNTRY_PENALTY`]).
//!    A record the filters hide passes its match to its visible successors
//!    and leaves the ranking.
//! 6. **Features** ([`features`]) of the leading [`features::TOP`]
//!    candidates: how the name matched, where in the string, address
//!    agreement, name type, organization type, the lead over the nearest
//!    unrelated competitor and whether the nearest one is a parent, child or
//!    successor, generic-name and unit-part flags, the record prior's lead
//!    over that competitor's, whether it is named first after a department
//!    chain.
//! 7. **Choice** ([`model`]): boosted trees fitted offline by `registry
//!    fit-affiliation` (weights: [`model_weights`], generated) score each
//!    leading visible candidate; the best is `chosen` when its score reaches
//!    the fitted threshold (set for precision 0.96 on the dev set). Never
//!    chosen, whatever the trees say: a score below [`model::MIN_SCORE`]; a
//!    tie with an unrelated record (exact, or within
//!    [`features::NEAR_TIE`] when both names stand whole, apart:
//!    "Ministry of Health" without a country, "University of Michigan and
//!    Brown University") unless the string prefers one — its record prior
//!    leads by 2 nats ("Northwestern University": the one in Evanston, not
//!    in the Philippines; never for acronyms); naming it first, after a
//!    department chain, is no reason (measured no better than choosing
//!    none); or one of two organizations the text places in different
//!    countries ("Department of Physics, Newcastle University, UK; ETH,
//!    Zurich, Switzerland" → none, as with "," or "and").
//! 8. **Order**: the chosen item first, then the others by score, best
//!    first (upstream's `single_search` also puts its chosen item first).
//!    The chosen one may score below an item after it: `score` is how well
//!    one of a record's names matches words of the string, `chosen` which
//!    organization the string is about. A unit named whole before its host
//!    ("Institute of Marine Biology, Northfield University", "Central
//!    Institute of Mental Health, Heidelberg University") scores 1.00 on the
//!    run of both parts, and the host is chosen: the gold labels mostly name
//!    the host there. Choosing only among the best-scored items measured
//!    worse (eval-affiliation, 2026-11-27: even → odd P 0.9609 / R 0.8752
//!    against 0.9623 / 0.8804; springer → crossref R 0.8406 against 0.8502
//!    at equal P).
//!
//! Filters narrow the candidates *before* the choice, except status:
//! records the filters hide stay in the ranking as competitors (an inactive
//! exact match keeps an unrelated active near-miss from being chosen), and
//! each passes its match on to its visible successors ("Université de
//! Nantes" → "Nantes Université"); the choice is among visible records.
//!
//! `score` in the output is the evidence-adjusted score clamped to 0–1,
//! rounded to two decimals. `matching_type`: `EXACT` (the substring is the
//! name), `PHRASE` (the name stands whole inside the substring), `ACRONYM`
//! (an acronym decided it), `FUZZY` (near-miss spellings), `HEURISTICS` (a
//! run of several parts, partly matched), `COMMON TERMS` (partial word
//! overlap).
//!
//! Versions: [`Engine::affiliation`] gives v1 records under `/v1` (the
//! spec's E4) and v2 records under `/v2` — an extension: the spec shows the
//! `affiliation` parameter for v1 only; the item shape is the same.
//!
//! Hostile input: at most [`split::MAX_BYTES`] bytes and
//! [`split::MAX_PARTS`] parts are read; text without words gives an empty
//! result. Nothing here panics on any input.

pub mod countries;
pub mod explain;
pub mod features;
pub mod model;
pub mod model_weights;
pub mod score;
pub mod split;

use std::collections::HashMap;

use serde::Serialize;

use crate::index::{Index, name_flags};
use crate::model::Record;
use crate::order::sort_by;
use crate::search::{Engine, Filters, Version};
use crate::shard::ShardError;
use crate::text;
use crate::v1::RecordV1;

pub use explain::Explanation;
pub use model::Model;
use score::{STok, Sim};
use split::Parsed;

/// Name entries kept per part after candidate generation.
pub const PART_CANDIDATES: usize = 150;
/// Most postings walked per part.
pub const POSTINGS_BUDGET: usize = 30_000;
/// Score of a substring that is exactly one of a record's acronyms.
pub const ACRONYM_SCORE: f32 = 0.85;
/// Bonus: the text mentions a country of the record (outside its name).
pub const COUNTRY_BONUS: f32 = 0.06;
/// Penalty: the text mentions countries, none of them the record's.
pub const COUNTRY_PENALTY: f32 = 0.3;
/// Bonus: the text mentions the record's city (outside its name).
pub const CITY_BONUS: f32 = 0.06;
/// Factor of a name similarity when the name matched only a place.
pub const PLACE_ONLY_FACTOR: f32 = 0.7;
/// Bonus: the text has one of the record's acronyms (outside its name).
pub const ACRONYM_BONUS: f32 = 0.05;
/// Factor of a similarity with an alias (not a display name or label):
/// "University of Malaya" is the display name of one record and an old
/// alias of another.
pub const ALIAS_FACTOR: f32 = 0.95;
/// Factor of a similarity with a generic name (see
/// [`score::GENERIC_SHARE`]): "Department of Biological Sciences" in a string
/// is far more often a department than that organization.
pub const GENERIC_FACTOR: f32 = 0.85;
/// Most evidence a record can gain.
const MAX_BONUS: f32 = COUNTRY_BONUS + CITY_BONUS + ACRONYM_BONUS;
/// Least similarity of a name matched whole (exact or phrase) whose places
/// are not address evidence for the other records of its substring.
pub const NAMED_SCORE: f32 = 0.85;
/// Least score of a returned item.
pub const MIN_RETURN: f32 = 0.5;
/// Most items returned.
pub const MAX_ITEMS: usize = 20;

/// How an item matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum MatchingType {
    /// The substring equals a name.
    #[serde(rename = "EXACT")]
    Exact,
    /// A name stands whole, in order, inside the substring.
    #[serde(rename = "PHRASE")]
    Phrase,
    /// Partial word overlap.
    #[serde(rename = "COMMON TERMS")]
    CommonTerms,
    /// Near-miss spellings were paired.
    #[serde(rename = "FUZZY")]
    Fuzzy,
    /// A run of several parts, partly matched.
    #[serde(rename = "HEURISTICS")]
    Heuristics,
    /// An acronym of the record decided the match.
    #[serde(rename = "ACRONYM")]
    Acronym,
}

/// One scored candidate, without the record.
#[derive(Clone, Debug, PartialEq)]
pub struct AffiliationMatch {
    /// Record index.
    pub record: u32,
    /// Score 0–1 (two decimals).
    pub score: f32,
    /// Score before clamping and rounding (evidence included; may exceed 1).
    pub raw_score: f32,
    /// The confident match.
    pub chosen: bool,
    /// How it matched.
    pub matching_type: MatchingType,
    /// The part(s) of the text that matched.
    pub substring: String,
}

/// The organization of an item, in the version's shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Organization {
    /// v1 record.
    V1(Box<RecordV1>),
    /// v2 record.
    V2(Box<Record>),
}

/// One item of the affiliation result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AffiliationItem {
    /// The confident match (at most one item).
    pub chosen: bool,
    /// How it matched.
    pub matching_type: MatchingType,
    /// The record.
    pub organization: Organization,
    /// Score 0–1.
    pub score: f64,
    /// The part(s) of the text that matched.
    pub substring: String,
    /// Why it matched: only when asked for (`explain`, an extension; the
    /// spec's shape has no such field).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
}

/// The affiliation result (spec "Affiliation result").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AffiliationResult {
    /// Items, best first.
    pub items: Vec<AffiliationItem>,
    /// Number of items.
    pub number_of_results: usize,
}

/// A record's best (substring, name) so far.
#[derive(Clone, Debug)]
struct Best {
    sim: Sim,
    sub: usize,
    kind: MatchingType,
    flags: u8,
    /// The name entry that matched.
    entry: u32,
}

/// A record with its evidence-adjusted score and matched tokens.
#[derive(Clone)]
struct Scored {
    score: f32,
    record: u32,
    best: Best,
    bits: Vec<u64>,
    count: u32,
    ev: Evidence,
    /// The record prior ([`Engine::org_prior`]), set after inheritance.
    prior: u8,
}

/// Evidence about a record outside the tokens its name matched.
#[derive(Clone, Copy, Debug, Default)]
struct Evidence {
    /// Added to the score.
    bonus: f32,
    /// Factor of the name similarity.
    factor: f32,
    /// +1 the record's country is mentioned, −1 only other countries, 0 none.
    country: i8,
    /// The record's city is mentioned.
    city: bool,
    /// One of its acronyms is.
    acronym: bool,
}

/// `a` ⊂ `b` strictly (bitsets of equal length).
fn strict_subset(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0) && a != b
}

impl Engine {
    /// E4: matches free text against the names, scores candidates and
    /// marks at most one `chosen`. `Err` only when full records are not
    /// loaded. See the [module docs](crate::affiliation).
    pub fn affiliation(
        &self,
        text: &str,
        filters: &Filters,
        version: Version,
    ) -> Result<AffiliationResult, ShardError> {
        self.affiliation_with(text, filters, version, false)
    }

    /// [`Engine::affiliation`], each item with its [`Explanation`] when
    /// `explain`.
    pub fn affiliation_with(
        &self,
        text: &str,
        filters: &Filters,
        version: Version,
        explain: bool,
    ) -> Result<AffiliationResult, ShardError> {
        let matches = self.match_explained(text, filters, &model_weights::MODEL, explain);
        let mut items = Vec::with_capacity(matches.len());
        for (m, explanation) in matches {
            let rec = self.registry().record(m.record as usize)?;
            let organization = match version {
                Version::V1 => Organization::V1(Box::new(RecordV1::from_v2(&rec))),
                Version::V2 => Organization::V2(Box::new(rec)),
            };
            items.push(AffiliationItem {
                chosen: m.chosen,
                matching_type: m.matching_type,
                organization,
                score: (m.score as f64 * 100.0).round() / 100.0,
                substring: m.substring,
                explanation,
            });
        }
        Ok(AffiliationResult {
            number_of_results: items.len(),
            items,
        })
    }

    /// The matcher without record decoding: scored record indices, best
    /// first, the chosen one (if any) first.
    pub fn match_affiliation(&self, text: &str, filters: &Filters) -> Vec<AffiliationMatch> {
        self.match_affiliation_with(text, filters, &model_weights::MODEL)
    }

    /// [`Engine::match_affiliation`] with another `chosen` model (fitting
    /// and evaluation).
    pub fn match_affiliation_with(
        &self,
        text: &str,
        filters: &Filters,
        model: &Model,
    ) -> Vec<AffiliationMatch> {
        self.match_explained(text, filters, model, false)
            .into_iter()
            .map(|(m, _)| m)
            .collect()
    }

    /// [`Engine::match_affiliation`] with why each item matched
    /// ([`explain`]): which words matched which name, which evidence
    /// counted, what the decision was.
    pub fn match_affiliation_explained(
        &self,
        text: &str,
        filters: &Filters,
    ) -> Vec<(AffiliationMatch, Explanation)> {
        self.match_explained(text, filters, &model_weights::MODEL, true)
            .into_iter()
            .filter_map(|(m, x)| Some((m, x?)))
            .collect()
    }

    /// The matcher; explanations only when `explain` (they cost a name
    /// look-up per item).
    fn match_explained(
        &self,
        text: &str,
        filters: &Filters,
        model: &Model,
        explain: bool,
    ) -> Vec<(AffiliationMatch, Option<Explanation>)> {
        let Some(r) = self.rank_affiliation(text, filters) else {
            return Vec::new();
        };
        let ix = self.index();
        let visible = filters.visible_statuses(false);
        // The choice is among the records the filters let through; the
        // others still count as competitors in the features.
        let shown: Vec<usize> = (0..r.features.len())
            .filter(|&i| visible & (1 << ix.status(r.scored[i].record)) != 0)
            .collect();
        let feats: Vec<[f32; features::COUNT]> = shown.iter().map(|&i| r.features[i]).collect();
        let chosen = model.choose(&feats).map(|k| r.scored[shown[k]].record);
        let mut out: Vec<(AffiliationMatch, Option<Explanation>)> = r
            .scored
            .iter()
            .enumerate()
            .filter(|(_, x)| x.score >= MIN_RETURN && visible & (1 << ix.status(x.record)) != 0)
            .take(MAX_ITEMS)
            .map(|(k, x)| {
                let m = AffiliationMatch {
                    record: x.record,
                    score: (x.score.clamp(0.0, 1.0) * 100.0).round() / 100.0,
                    raw_score: x.score,
                    chosen: chosen == Some(x.record),
                    matching_type: x.best.kind,
                    substring: r.p.sub_text(&r.subs[x.best.sub]).to_string(),
                };
                let why = explain.then(|| {
                    let seen = explain::Seen {
                        p: &r.p,
                        sub: &r.subs[x.best.sub],
                        matched: x.best.sim.matched,
                        entry: x.best.entry,
                        similarity: x.best.sim.score * x.ev.factor,
                        country: x.ev.country,
                        city: x.ev.city,
                        acronym: x.ev.acronym,
                        features: r.features.get(k),
                    };
                    explain::explain(self, &seen, model, m.chosen, chosen.is_some())
                });
                (m, why)
            })
            .collect();
        // The chosen item leads (it may be ranked below a better-scored one).
        if let Some(k) = out.iter().position(|m| m.0.chosen) {
            out[..=k].rotate_right(1);
        }
        out
    }

    /// The leading candidates with their model features, best score first
    /// (what `registry fit-affiliation` fits on). Empty for text without
    /// words.
    pub fn affiliation_candidates(&self, text: &str, filters: &Filters) -> Vec<Candidate> {
        let Some(r) = self.rank_affiliation(text, filters) else {
            return Vec::new();
        };
        let visible = filters.visible_statuses(false);
        r.features
            .iter()
            .zip(&r.scored)
            .map(|(f, x)| Candidate {
                record: x.record,
                visible: visible & (1 << self.index().status(x.record)) != 0,
                features: *f,
            })
            .collect()
    }

    /// Steps 1–5 and the features: every scored record, best first.
    fn rank_affiliation(&self, text: &str, filters: &Filters) -> Option<Ranked> {
        let ix = self.index();
        let mut p = split::parse(text);
        if p.toks.is_empty() {
            return None;
        }
        transliterate(ix, &mut p);
        let mentions = countries::detect(ix, &p);
        let stoks = scorer_tokens(ix, &p, &mentions);
        let subs = p.substrings();
        if subs.is_empty() {
            return None;
        }
        let mut acronym_cache: HashMap<u32, Vec<String>> = HashMap::new();
        let best = self.best_names(&p, &subs, &stoks, filters, &mut acronym_cache);
        let place_tok = self.address_tokens(&p, &mentions, &best);
        let named = named_tokens(&p, &subs, &best, &place_tok);
        // Evidence outside the matched tokens.
        let cx = Context {
            p: &p,
            stoks: &stoks,
            mentions: &mentions,
            place_tok: &place_tok,
            named: &named,
        };
        let mut scored = self.with_evidence(best, &subs, &cx, &mut acronym_cache);
        self.inherit(&mut scored, filters);
        // Among equal scores, the record people pick more often (the
        // record prior) leads: "MIT" alone names two institutes equally,
        // and the one in Cambridge, Massachusetts is the one meant far more
        // often. It orders the list only; a tie still chooses none.
        for x in &mut scored {
            x.prior = self.org_prior(x.record);
        }
        sort_by(&mut scored, |a, b| {
            b.score
                .total_cmp(&a.score)
                .then(b.count.cmp(&a.count))
                .then(b.prior.cmp(&a.prior))
                .then(a.record.cmp(&b.record))
        });
        let features = self.features(&p, &subs, &place_tok, !mentions.is_empty(), &scored);
        Some(Ranked {
            p,
            subs,
            scored,
            features,
        })
    }

    /// Each record's best (substring, name) among the names that the
    /// filters keep: a substring of one part looks among that part's
    /// candidates, one of several parts among the records at least two of
    /// its parts name.
    fn best_names(
        &self,
        p: &Parsed,
        subs: &[split::Sub],
        stoks: &[STok<'_>],
        filters: &Filters,
        acronym_cache: &mut HashMap<u32, Vec<String>>,
    ) -> HashMap<u32, Best> {
        let ix = self.index();
        let part_cands: Vec<Vec<u32>> = p
            .parts
            .iter()
            .map(|r| part_candidates(ix, &stoks[r.clone()]))
            .collect();
        let mut best: HashMap<u32, Best> = HashMap::new();
        let mut combo: Vec<u32> = Vec::new();
        for (k, sub) in subs.iter().enumerate() {
            let cands: &[u32] = if sub.parts.len() == 1 {
                &part_cands[sub.parts.start]
            } else {
                shared_candidates(&part_cands[sub.parts.clone()], &mut combo);
                &combo
            };
            let s = &stoks[sub.toks.clone()];
            for &e in cands {
                let r = ix.entry_record(e);
                if !filters.matches_fields(ix, r) {
                    continue;
                }
                let Some((sim, kind)) = self.name_match(s, e, r, sub, acronym_cache) else {
                    continue;
                };
                let better = best.get(&r).is_none_or(|b| sim.score > b.sim.score);
                if better {
                    let flags = ix.entry_flags(e);
                    best.insert(
                        r,
                        Best {
                            sim,
                            sub: k,
                            kind,
                            flags,
                            entry: e,
                        },
                    );
                }
            }
        }
        best
    }

    /// How substring `s` (of `sub`) matches name entry `e` of record `r`:
    /// an acronym name only when `s` is exactly it; another name by its
    /// similarity, lowered for an alias and for a generic name. None when
    /// it does not match.
    fn name_match(
        &self,
        s: &[STok<'_>],
        e: u32,
        r: u32,
        sub: &split::Sub,
        acronym_cache: &mut HashMap<u32, Vec<String>>,
    ) -> Option<(Sim, MatchingType)> {
        let ix = self.index();
        let flags = ix.entry_flags(e);
        if flags & !name_flags::ACRONYM == 0 {
            // An acronym name: only a substring that is exactly it.
            let terms = ix.entry_terms(e);
            let t = &s[0];
            if s.len() != 1
                || terms.len() != 1
                || t.term != Some(terms[0])
                || !t.acronym_like
                || t.country
            {
                return None;
            }
            let sim = Sim {
                score: ACRONYM_SCORE,
                c_n: 1.0,
                c_s: 1.0,
                matched: 1,
                acronym: true,
                ..Sim::default()
            };
            return Some((sim, MatchingType::Acronym));
        }
        let acr = acronym_cache
            .entry(r)
            .or_insert_with(|| record_acronyms(self, r));
        let mut sim = score::similarity(ix, s, ix.entry_terms(e), acr);
        if sim.score <= 0.0 {
            return None;
        }
        if flags & (name_flags::DISPLAY | name_flags::LABEL) == 0 {
            sim.score *= ALIAS_FACTOR;
        }
        if sim.specificity < score::GENERIC_SHARE {
            sim.score *= GENERIC_FACTOR;
        }
        let kind = if sim.exact {
            MatchingType::Exact
        } else if sim.phrase {
            MatchingType::Phrase
        } else if sim.acronym {
            MatchingType::Acronym
        } else if sim.fuzzy {
            MatchingType::Fuzzy
        } else if sub.parts.len() > 1 {
            MatchingType::Heuristics
        } else {
            MatchingType::CommonTerms
        };
        Some((sim, kind))
    }

    /// Address tokens: country mentions and the cities of the candidates
    /// that may be returned ("New Haven" is Yale's city, not the University
    /// of New Haven).
    fn address_tokens(
        &self,
        p: &Parsed,
        mentions: &[countries::Mention],
        best: &HashMap<u32, Best>,
    ) -> Vec<bool> {
        let mut place_tok = vec![false; p.toks.len()];
        for m in mentions {
            for i in m.toks.clone() {
                place_tok[i] = true;
            }
        }
        let mut seen_cities: Vec<&str> = Vec::new();
        for (&r, b) in best {
            if b.sim.score + MAX_BONUS < MIN_RETURN {
                continue;
            }
            for place in self.registry().places(r as usize) {
                if seen_cities.contains(&place.city) {
                    continue;
                }
                seen_cities.push(place.city);
                mark_city(p, place.city, &mut place_tok);
            }
        }
        place_tok
    }

    /// The candidates that may be returned, each scored with the evidence
    /// outside its matched tokens (`cx`), with those tokens as bits.
    fn with_evidence(
        &self,
        best: HashMap<u32, Best>,
        subs: &[split::Sub],
        cx: &Context<'_>,
        acronym_cache: &mut HashMap<u32, Vec<String>>,
    ) -> Vec<Scored> {
        let n = cx.p.toks.len();
        let words = n.div_ceil(64);
        best.into_iter()
            .filter(|(_, b)| b.sim.score + MAX_BONUS >= MIN_RETURN)
            .map(|(r, b)| {
                let sub = &subs[b.sub];
                let mut matched = vec![false; n];
                let mut bits = vec![0u64; words];
                for i in 0..sub.toks.len().min(64) {
                    if b.sim.matched & (1 << i) != 0 {
                        let g = sub.toks.start + i;
                        matched[g] = true;
                        bits[g / 64] |= 1 << (g % 64);
                    }
                }
                let acr = acronym_cache
                    .entry(r)
                    .or_insert_with(|| record_acronyms(self, r));
                let ev = evidence(self, r, cx, &matched, sub.toks.clone(), acr);
                Scored {
                    score: b.sim.score * ev.factor + ev.bonus,
                    record: r,
                    best: b,
                    count: bits.iter().map(|w| w.count_ones()).sum(),
                    bits,
                    ev,
                    prior: 0,
                }
            })
            .collect()
    }

    /// A record the filters hide (inactive, withdrawn) speaks for its
    /// visible successors: "Université de Nantes" names the organization
    /// now called "Nantes Université". Each successor takes its
    /// predecessor's match when that is better than its own, and the
    /// predecessor leaves the ranking (it is the same organization, not a
    /// competitor).
    fn inherit(&self, scored: &mut Vec<Scored>, filters: &Filters) {
        let ix = self.index();
        let reg = self.registry();
        let visible = filters.visible_statuses(false);
        let hidden: Vec<usize> = (0..scored.len())
            .filter(|&k| visible & (1 << ix.status(scored[k].record)) == 0)
            .collect();
        let mut passed: Vec<u32> = Vec::new();
        for k in hidden {
            let from = scored[k].clone();
            let succ: Vec<u32> = reg
                .successors(from.record as usize)
                .filter_map(|id| reg.index_of(id))
                .map(|i| i as u32)
                .filter(|&i| visible & (1 << ix.status(i)) != 0 && filters.matches_fields(ix, i))
                .collect();
            if !succ.is_empty() {
                passed.push(from.record);
            }
            for s in succ {
                match scored.iter_mut().find(|x| x.record == s) {
                    Some(x) if x.score >= from.score => {}
                    Some(x) => {
                        *x = Scored {
                            record: s,
                            ..from.clone()
                        }
                    }
                    None => scored.push(Scored {
                        record: s,
                        ..from.clone()
                    }),
                }
            }
        }
        scored.retain(|x| !passed.contains(&x.record));
    }

    /// Features of the leading candidates (score at least [`MIN_RETURN`],
    /// at most [`features::TOP`]).
    fn features(
        &self,
        p: &Parsed,
        subs: &[split::Sub],
        place_tok: &[bool],
        has_country: bool,
        scored: &[Scored],
    ) -> Vec<[f32; features::COUNT]> {
        let ix = self.index();
        let n = scored
            .iter()
            .take(features::TOP)
            .take_while(|x| x.score >= MIN_RETURN)
            .count();
        let lead = &scored[..n];
        let views: Vec<features::View> = lead
            .iter()
            .map(|x| {
                let sub = &subs[x.best.sub];
                let sim = &x.best.sim;
                features::View {
                    score: x.score,
                    sim: sim.score,
                    c_n: sim.c_n,
                    c_s: sim.c_s,
                    exact: sim.exact,
                    phrase: sim.phrase,
                    fuzzy: sim.fuzzy,
                    acronym: sim.acronym,
                    specificity: sim.specificity,
                    name_flags: x.best.flags,
                    parts: sub.parts.clone(),
                    toks: sub.toks.clone(),
                    matched: (0..p.toks.len())
                        .filter(|&g| x.bits[g / 64] & (1 << (g % 64)) != 0)
                        .collect(),
                    country: x.ev.country,
                    city: x.ev.city,
                    acronym_elsewhere: x.ev.acronym,
                    place_only: x.ev.factor < 1.0,
                    types: ix.type_bits(x.record),
                    inactive: ix.status(x.record) != 0,
                    // By region: Hong Kong is not elsewhere than China.
                    countries: ix
                        .record_countries(x.record)
                        .iter()
                        .map(|&c| {
                            let Some(country) = ix.countries().get(usize::from(c)) else {
                                return c;
                            };
                            let code = country.code.to_ascii_uppercase();
                            let region = countries::region(&code);
                            if region == code {
                                c
                            } else {
                                ix.country_by_code(region).unwrap_or(c)
                            }
                        })
                        .collect(),
                    prior: x.prior,
                }
            })
            .collect();
        let others: Vec<(f32, u8)> = scored[n..]
            .iter()
            .take(20)
            .map(|x| (x.score, self.org_prior(x.record)))
            .collect();
        let rel = Links::new(self, lead);
        features::extract(p, place_tok, has_country, &views, &others, &rel)
    }
}

impl Engine {
    /// The record prior of the organization record `r` stands for: its own,
    /// or for an inactive record the best of its successors' when higher
    /// (the prior counts being active; the organization lives on in them).
    fn org_prior(&self, r: u32) -> u8 {
        let reg = self.registry();
        let own = reg.prior(r as usize);
        if self.index().status(r) == 0 {
            return own;
        }
        reg.successors(r as usize)
            .filter_map(|id| reg.index_of(id))
            .map(|i| reg.prior(i))
            .fold(own, u8::max)
    }
}

/// Output of the ranking steps.
struct Ranked {
    p: Parsed,
    subs: Vec<split::Sub>,
    scored: Vec<Scored>,
    features: Vec<[f32; features::COUNT]>,
}

/// A leading candidate with its model features.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Record index.
    pub record: u32,
    /// Passes the status filter (only visible records are answered).
    pub visible: bool,
    /// Features, in [`features::NAMES`] order.
    pub features: [f32; features::COUNT],
}

/// Relations among the leading candidates: successors from the summary,
/// parents from the full records (none without them).
struct Links<'a> {
    lead: &'a [Scored],
    ids: Vec<String>,
    parents: Vec<Vec<String>>,
    successors: Vec<Vec<String>>,
}

impl<'a> Links<'a> {
    fn new(engine: &Engine, lead: &'a [Scored]) -> Links<'a> {
        let reg = engine.registry();
        let ids = lead
            .iter()
            .map(|x| reg.id(x.record as usize).url())
            .collect();
        let successors = lead
            .iter()
            .map(|x| {
                reg.successors(x.record as usize)
                    .map(|id| id.url())
                    .collect()
            })
            .collect();
        // Parents only matter when another leading candidate could be one.
        let parents = lead
            .iter()
            .map(|x| {
                if lead.len() < 2 || !reg.has_records() {
                    return Vec::new();
                }
                reg.record(x.record as usize).map_or_else(
                    |_| Vec::new(),
                    |rec| {
                        rec.relationships
                            .iter()
                            .filter(|rel| rel.kind == "parent")
                            .map(|rel| rel.id.clone())
                            .collect()
                    },
                )
            })
            .collect();
        Links {
            lead,
            ids,
            parents,
            successors,
        }
    }
}

impl features::Relations for Links<'_> {
    fn related(&self, a: usize, b: usize) -> bool {
        self.successors[a].contains(&self.ids[b])
            || self.successors[b].contains(&self.ids[a])
            || self.parent_of(a, b)
            || self.parent_of(b, a)
    }

    fn parent_of(&self, a: usize, b: usize) -> bool {
        self.parents[b].contains(&self.ids[a])
    }

    fn explained_by(&self, a: usize, b: usize) -> bool {
        strict_subset(&self.lead[a].bits, &self.lead[b].bits)
    }
}

/// What the evidence step reads about the text.
#[derive(Clone, Copy)]
struct Context<'a> {
    p: &'a Parsed,
    stoks: &'a [STok<'a>],
    mentions: &'a [countries::Mention],
    place_tok: &'a [bool],
    /// Tokens of a name some candidate matched whole (exact or phrase).
    named: &'a [bool],
}

/// German spellings without umlauts ("Wuerzburg", "Goettingen"): a word
/// becomes its umlaut folding ("wurzburg") when the index knows that one
/// and the word itself in fewer names: one alias spelled "Wuerzburg" must
/// not keep the names spelled "Würzburg" from matching, while "Michael"
/// (more names than "Michal") stays as written.
fn transliterate(ix: &Index, p: &mut Parsed) {
    for t in &mut p.toks {
        if t.text.len() < 5 {
            continue;
        }
        let folded = t
            .text
            .replace("ae", "a")
            .replace("oe", "o")
            .replace("ue", "u");
        if folded == t.text {
            continue;
        }
        let Some(f) = ix.term_id(&folded) else {
            continue;
        };
        let rarer = ix
            .term_id(&t.text)
            .is_none_or(|own| ix.postings(own).len() < ix.postings(f).len());
        if rarer {
            t.text = folded;
        }
    }
}

/// The records that at least two of `parts` name (each list sorted, a
/// record once in each), into `combo` (a buffer kept across substrings).
fn shared_candidates(parts: &[Vec<u32>], combo: &mut Vec<u32>) {
    combo.clear();
    for pc in parts {
        combo.extend_from_slice(pc);
    }
    combo.sort_unstable();
    let mut shared = Vec::new();
    let mut i = 0;
    while i < combo.len() {
        let mut j = i;
        while j < combo.len() && combo[j] == combo[i] {
            j += 1;
        }
        if j - i >= 2 {
            shared.push(combo[i]);
        }
        i = j;
    }
    *combo = shared;
}

/// Tokens of names matched whole (exact or as a phrase, and scoring at
/// least NAMED_SCORE) that are not all address tokens: "Michigan" in
/// "University of Michigan and Brown University" is not Brown's address.
fn named_tokens(
    p: &Parsed,
    subs: &[split::Sub],
    best: &HashMap<u32, Best>,
    place_tok: &[bool],
) -> Vec<bool> {
    let mut named = vec![false; p.toks.len()];
    for b in best.values() {
        if !(b.sim.exact || b.sim.phrase) || b.sim.score < NAMED_SCORE {
            continue;
        }
        let sub = &subs[b.sub];
        let toks: Vec<usize> = (0..sub.toks.len().min(64))
            .filter(|&i| b.sim.matched & (1 << i) != 0)
            .map(|i| sub.toks.start + i)
            .collect();
        if toks.iter().any(|&g| !place_tok[g]) {
            for g in toks {
                named[g] = true;
            }
        }
    }
    named
}

/// Marks the tokens of every occurrence of `city` in the text.
fn mark_city(p: &Parsed, city: &str, out: &mut [bool]) {
    let seq = text::phrase_tokens(city);
    if seq.is_empty() || seq.iter().all(|w| text::is_optional_word(w)) {
        return;
    }
    for start in 0..(p.toks.len() + 1).saturating_sub(seq.len()) {
        if (0..seq.len()).all(|k| p.toks[start + k].text == seq[k]) {
            out[start..start + seq.len()]
                .iter_mut()
                .for_each(|x| *x = true);
        }
    }
}

/// The record's single-word acronyms, folded.
fn record_acronyms(engine: &Engine, r: u32) -> Vec<String> {
    engine
        .registry()
        .names(r as usize)
        .filter(|n| n.is_acronym())
        .map(|n| text::normalize(n.value))
        .filter(|a| !a.is_empty() && !a.contains(' '))
        .collect()
}

/// Scorer view of every token.
fn scorer_tokens<'a>(ix: &Index, p: &'a Parsed, mentions: &[countries::Mention]) -> Vec<STok<'a>> {
    let mut country = vec![false; p.toks.len()];
    for m in mentions {
        for i in m.toks.clone() {
            country[i] = true;
        }
    }
    p.toks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let term = ix.term_id(&t.text);
            let w = match term {
                Some(id) => score::term_weight(ix, id, t.optional),
                None if t.optional => score::unknown_weight(ix) * score::OPTIONAL_FACTOR,
                None => score::unknown_weight(ix),
            };
            STok {
                text: &t.text,
                term,
                w,
                digits: t.digits,
                acronym_like: !t.digits
                    && t.text.chars().count() >= 2
                    && (t.caps >= 2 || (t.all_caps && t.caps >= 1)),
                country: country[i],
            }
        })
        .collect()
}

/// Candidate name entries of one part: postings of its rarer terms,
/// weighted, the best [`PART_CANDIDATES`] kept (shorter names first among
/// equals).
fn part_candidates(ix: &Index, toks: &[STok<'_>]) -> Vec<u32> {
    let mut terms: Vec<(usize, u32, f32)> = Vec::new();
    for t in toks {
        if t.digits && t.text.len() > 3 {
            continue;
        }
        if let Some(id) = t.term
            && !terms.iter().any(|x| x.1 == id)
            && !text::is_optional_word(t.text)
        {
            terms.push((ix.postings(id).len(), id, t.w));
        }
    }
    sort_by(&mut terms, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let mut acc: Vec<(u32, f32)> = Vec::new();
    let mut walked = 0;
    for (k, &(df, id, w)) in terms.iter().enumerate() {
        if k > 0 && walked + df > POSTINGS_BUDGET {
            break;
        }
        walked += df;
        acc.extend(ix.postings(id).iter().map(|&e| (e, w)));
    }
    acc.sort_unstable_by_key(|x| x.0);
    let mut merged: Vec<(f32, u32)> = Vec::new();
    for (e, w) in acc {
        match merged.last_mut() {
            Some(last) if last.1 == e => last.0 += w,
            _ => merged.push((w, e)),
        }
    }
    for m in &mut merged {
        m.0 -= 0.5 * ix.entry_terms(m.1).len() as f32;
    }
    if merged.len() > PART_CANDIDATES {
        merged.select_nth_unstable_by(PART_CANDIDATES, |a, b| b.0.total_cmp(&a.0));
        merged.truncate(PART_CANDIDATES);
    }
    let mut out: Vec<u32> = merged.into_iter().map(|m| m.1).collect();
    out.sort_unstable();
    out
}

/// Country, city and acronym evidence for record `r` outside the tokens its
/// name matched. The factor of the name similarity is
/// [`PLACE_ONLY_FACTOR`] when the name matched only the record's own city or
/// a country ("Ningbo" is an address, not "Ningbo University").
fn evidence(
    engine: &Engine,
    r: u32,
    cx: &Context<'_>,
    matched: &[bool],
    own: std::ops::Range<usize>,
    acronyms: &[String],
) -> Evidence {
    let Context {
        p,
        stoks,
        mentions,
        place_tok,
        named,
    } = *cx;
    let ix = engine.index();
    let mut ev = Evidence {
        factor: 1.0,
        ..Evidence::default()
    };
    // A place inside another organization's name in the record's own
    // substring is that name, not the record's address.
    let outside: Vec<&countries::Mention> = mentions
        .iter()
        .filter(|m| {
            m.toks
                .clone()
                .all(|i| !matched[i] && (!named[i] || !own.contains(&i)))
        })
        .collect();
    if !outside.is_empty() {
        let regions: Vec<&str> = ix
            .record_countries(r)
            .iter()
            .map(|&c| countries::region(&ix.countries()[c as usize].code))
            .collect();
        let agrees =
            |m: &&countries::Mention| m.regions.iter().any(|x| regions.contains(&x.as_str()));
        if outside.iter().any(agrees) {
            ev.bonus += COUNTRY_BONUS;
            ev.country = 1;
        } else if !mentions.iter().any(|m| agrees(&m)) {
            // No mention of the record's country anywhere (its own name
            // may say it: "Korea Agency for Marine Data").
            ev.bonus -= COUNTRY_PENALTY;
            ev.country = -1;
        }
    }
    // City.
    let mut cities: Vec<&str> = Vec::new();
    for place in engine.registry().places(r as usize) {
        if !cities.contains(&place.city) {
            cities.push(place.city);
        }
    }
    let mut city_outside = false;
    for city in cities {
        let seq = text::phrase_tokens(city);
        if seq.is_empty() || seq.iter().all(|w| text::is_optional_word(w)) {
            continue;
        }
        for start in 0..(p.toks.len() + 1).saturating_sub(seq.len()) {
            if (0..seq.len()).all(|k| p.toks[start + k].text == seq[k])
                && (0..seq.len()).all(|k| !matched[start + k])
            {
                city_outside = true;
            }
        }
    }
    if city_outside {
        ev.bonus += CITY_BONUS;
        ev.city = true;
    }
    let place_only = matched.iter().zip(place_tok).all(|(&m, &pl)| !m || pl);
    if place_only {
        ev.factor = PLACE_ONLY_FACTOR;
    }
    // Acronym elsewhere in the text.
    if !acronyms.is_empty()
        && stoks.iter().enumerate().any(|(i, t)| {
            !matched[i] && t.acronym_like && !t.country && acronyms.iter().any(|a| a == t.text)
        })
    {
        ev.bonus += ACRONYM_BONUS;
        ev.acronym = true;
    }
    ev
}
