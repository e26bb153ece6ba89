//! Typeahead: [`Engine::suggest`], separate from E2's spec semantics.
//!
//! * **Matching**: every query word matches any word of one name *by
//!   prefix*, in any order ("utrecht univ" finds "Universiteit Utrecht" and
//!   "Utrecht University"); optional words (`of`, `the`, `de`, `and`/`&` …,
//!   see [`crate::text::OPTIONAL_WORDS`]) need not match unless they are the
//!   last word being typed; no-space scripts match by character bigrams.
//!   Case, accents and apostrophes are folded as everywhere else.
//! * **Identifiers**: text that is a record id in any form returns that
//!   record; an external id in any usual form (ISNI with or without spaces or
//!   as a URL, GRID, Wikidata Q-id or URL, FundRef number or DOI) returns its
//!   records.
//! * **Ranking** (documented rule, best first):
//!   1. band: a record picked before ([`SuggestContext::remembered`]) >
//!      exact display name > exact other name (label or alias) >
//!      exact acronym > a partial match (so among records named exactly
//!      like the query, those whose display name it is come before those
//!      where it is a label or an alias: "Institute of Philosophy");
//!   2. active before inactive before withdrawn;
//!   3. score, higher first: the record prior ([`crate::prior`], how likely
//!      people are to pick the record, 1/8 nat a unit) plus a bonus for how
//!      the name matched — [`DISPLAY_PREFIX_BONUS`] when the query is a
//!      prefix of the display name (words in order),
//!      [`NAME_PREFIX_BONUS`] when it is a prefix of another name, none
//!      when the words match in any order. Priors below [`PRIOR_FLOOR`]
//!      count as the floor, so only records picked far more often than
//!      most are lifted; the rest keep the name keys below. A record people pick far more
//!      often may so rank above a closer match of a rarely picked one
//!      ("cambridge": the University of Cambridge above Cambridge IVF);
//!      within the exact bands the score is the prior alone; context from
//!      the form adds its boosts ([`super::context`]);
//!   4. fewer words in the matched name;
//!   5. shorter display name;
//!   6. record id.
//!
//!   The prior depends only on the record and the bonus only on the tier
//!   of its match, and typing one more character can only shrink the
//!   candidate set, so the best result stays in the top results while it
//!   still matches at the same or a better tier (prefix stability, tested
//!   keystroke by keystroke); it can only be overtaken by a record that
//!   reaches a better tier (e.g. an exact name).
//! * Inactive and withdrawn records are shown (ranked after active ones)
//!   unless a `status` filter says otherwise: a typeahead should not hide
//!   them silently.
//! * **Cost**: one pass over the entries of the rarest query unit's
//!   postings (a union for a prefix), keeping each record's best name and
//!   only the best `k` records in a bounded heap: no sort of all candidates
//!   and no allocation per candidate, so one- and two-character queries
//!   (tens of thousands of candidates) stay well under a millisecond.
//!   External ids are consulted only for text that looks like one
//!   ([`crate::text::looks_like_external_id`]).

use std::collections::BinaryHeap;

use serde::Serialize;

use crate::id::RecordId;
use crate::index::name_flags;
use crate::registry::RecordSummary;
use crate::search::context::Resolved;
use crate::search::{Engine, Filters, SuggestContext};
use crate::text::{self, TokenKind};

/// Most query words considered.
const MAX_WORDS: usize = 16;

/// Ranking key (smaller is better): band, status, inverted score, words in
/// the matched name, display-name length, record.
pub(crate) type Key = (u8, u8, u16, u16, u32, u32);

/// Whether a typeahead lists record `r` under `filters`: only an explicit
/// `status` filter hides a status (a typeahead should not hide inactive
/// records silently), and every field filter applies.
fn visible(filters: &Filters, ix: &crate::index::Index, r: u32) -> bool {
    filters
        .statuses
        .is_none_or(|s| s & (1 << ix.status(r)) != 0)
        && filters.matches_fields(ix, r)
}

/// A ranked match: its key, the entry (name) that matched best, its tier.
pub(crate) type Ranked = (Key, u32, u8);

/// Score bonus of a match where the query is a prefix of the display name,
/// in prior units (1/8 nat): 24 = 3 nats, a 20× likelihood ratio.
pub const DISPLAY_PREFIX_BONUS: u16 = 24;
/// Score bonus of a match where the query is a prefix of another name.
pub const NAME_PREFIX_BONUS: u16 = 16;
/// Priors below this count as this: 6 nats above the median record (the
/// fitted bias puts the median at [`crate::prior::NEUTRAL`]), so the prior
/// reorders only among the few records people pick far more often than the
/// rest; among the others the name keys decide, as they do best for a
/// record nobody in particular picks (measured by `registry bench-search`:
/// the uniform target set then costs 2 % more keystrokes, not 13 %).
pub const PRIOR_FLOOR: u8 = 176;

/// The key of a match of `tier` (see [`tier`]) on a record with the given
/// prior, context boost ([`Resolved::boost`]) and the rest of the key
/// (status, words, display length, record).
#[inline]
fn key(tier: u8, prior: u8, boost: (bool, u16), rest: (u8, u16, u32, u32)) -> Key {
    let bonus = match tier {
        3 => DISPLAY_PREFIX_BONUS,
        4 => NAME_PREFIX_BONUS,
        _ => 0,
    };
    let score = u16::from(prior.max(PRIOR_FLOOR)) + bonus + boost.1;
    let band = if boost.0 { 0 } else { tier.min(3) + 1 };
    (band, rest.0, u16::MAX - score, rest.1, rest.2, rest.3)
}

/// Which name matched: the contract's [`registry_contract::Matched`].
pub use registry_contract::Matched as MatchedName;

/// One typeahead hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// Record index in the registry.
    pub index: usize,
    /// What to show.
    pub summary: RecordSummary,
    /// The name that matched.
    pub matched: MatchedName,
    /// Byte ranges of `matched.value` to highlight (sorted, disjoint).
    pub ranges: Vec<(usize, usize)>,
    /// Why it matched: `id`, `external_id`, `exact`, `acronym`,
    /// `display_prefix`, `name_prefix`, `words`, or for offers made before
    /// anything is typed `email_domain` or `remembered`.
    pub reason: &'static str,
    /// The record's label in the context's language, when it has one that
    /// differs from the display name ([`SuggestContext::lang`]).
    pub localized: Option<String>,
    /// Whether the record was picked before in this browser
    /// ([`SuggestContext::remembered`]).
    pub remembered: bool,
}

/// The hit as the contract carries it to JS and the UI: the same fields,
/// plus the ranges in UTF-16 code units (what JS strings index).
impl From<Suggestion> for registry_contract::Hit {
    fn from(s: Suggestion) -> registry_contract::Hit {
        registry_contract::Hit {
            ranges16: registry_contract::utf16_ranges(&s.matched.value, &s.ranges),
            index: s.index,
            summary: s.summary,
            matched: s.matched,
            ranges: s.ranges,
            reason: s.reason.to_string(),
            localized: s.localized,
            remembered: s.remembered,
        }
    }
}

/// Reason of each tier (the two exact-name tiers share one).
const REASONS: [&str; 6] = [
    "exact",
    "exact",
    "acronym",
    "display_prefix",
    "name_prefix",
    "words",
];

/// A required query unit.
pub(crate) struct Unit {
    /// Term-id range it may match (prefix range, or exact bigram).
    range: std::ops::Range<u32>,
    /// For bigrams: the two unigram term ids.
    pair: Option<(u32, u32)>,
    /// Folded text (for highlighting).
    text: String,
}

/// Candidate entries in ascending order: one postings list, or a bitset.
enum Cands<'a> {
    List(std::slice::Iter<'a, u32>),
    Bits {
        words: &'a [u64],
        /// Index of the next word to load.
        at: usize,
        /// Bits of the current word not yet returned (its index is at - 1).
        bits: u64,
    },
}

impl Iterator for Cands<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Cands::List(it) => it.next().copied(),
            Cands::Bits { words, at, bits } => {
                while *bits == 0 {
                    *bits = *words.get(*at)?;
                    *at += 1;
                }
                let e = (*at as u32 - 1) * 64 + bits.trailing_zeros();
                *bits &= *bits - 1;
                Some(e)
            }
        }
    }
}

/// The ranking tier of a matched name (lower is better): exact display
/// name, exact other name, exact acronym, prefix of the display name, prefix
/// of another name, words in any order.
#[inline]
fn tier(exact: bool, prefix: bool, display: bool, acronym: bool) -> u8 {
    match (exact, prefix) {
        (true, _) if !acronym && display => 0,
        (true, _) if !acronym => 1,
        (true, _) => 2,
        (false, true) if display => 3,
        (false, true) => 4,
        (false, false) => 5,
    }
}

/// The query units of the tokens `toks` (at most [`MAX_WORDS`]): each
/// word by prefix (an optional word only when it is the last one typed or
/// the only word), a one-character run by itself, a bigram as its term and
/// its pair of characters. `typing_last`: the text ends in its last word.
fn query_units(ix: &crate::index::Index, toks: &[text::Token], typing_last: bool) -> Vec<Unit> {
    let words: Vec<&text::Token> = toks.iter().filter(|t| t.kind == TokenKind::Word).collect();
    let mut units: Vec<Unit> = Vec::new();
    for t in toks {
        if units.len() >= MAX_WORDS {
            break;
        }
        match t.kind {
            TokenKind::Word => {
                let is_last = words.last().is_some_and(|w| w.start == t.start) && typing_last;
                if text::is_optional_word(&t.text) && !is_last && words.len() > 1 {
                    continue;
                }
                units.push(Unit {
                    range: ix.prefix_range(&t.text),
                    pair: None,
                    text: t.text.clone(),
                });
            }
            TokenKind::Unigram => {
                // A one-character run: the unigram itself (longer runs
                // are matched by their bigrams).
                if !text::in_bigram(toks, t) {
                    units.push(Unit {
                        range: ix.prefix_range(&t.text),
                        pair: None,
                        text: t.text.clone(),
                    });
                }
            }
            TokenKind::Bigram => {
                let mut cs = t.text.chars();
                let (a, b) = (cs.next(), cs.next());
                let ids = a.zip(b).and_then(|(a, b)| {
                    Some((ix.term_id(&a.to_string())?, ix.term_id(&b.to_string())?))
                });
                let range = ix.term_id(&t.text).map_or(0..0, |i| i..i + 1);
                units.push(Unit {
                    range,
                    pair: ids,
                    text: t.text.clone(),
                });
            }
        }
    }
    units
}

/// The query's phrase sequence (bigrams aside, without `and`), as a name's
/// tiers read it: its exact term ids, and the ranges its words match in
/// order (the last by prefix while it is typed).
struct PhraseShape {
    /// Exact ids; `None` when a query word is not a term at all (then no
    /// name matches exactly).
    exact: Option<Vec<u32>>,
    can_be_exact: bool,
    prefix: Vec<std::ops::Range<u32>>,
    and_id: Option<u32>,
}

impl PhraseShape {
    fn of(ix: &crate::index::Index, toks: &[text::Token], typing_last: bool) -> PhraseShape {
        let phrase: Vec<&text::Token> = toks
            .iter()
            .filter(|t| t.kind != TokenKind::Bigram && t.text != "and")
            .collect();
        let exact: Option<Vec<u32>> = phrase.iter().map(|t| ix.term_id(&t.text)).collect();
        let prefix = phrase
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i + 1 == phrase.len() && typing_last {
                    ix.prefix_range(&t.text)
                } else {
                    ix.term_id(&t.text).map_or(0..0, |i| i..i + 1)
                }
            })
            .collect();
        PhraseShape {
            can_be_exact: exact.is_some(),
            exact,
            prefix,
            and_id: ix.term_id("and"),
        }
    }

    fn exact_ids(&self) -> &[u32] {
        self.exact.as_deref().unwrap_or(&[])
    }

    /// One pass over a name's content words (without `and`): whether they
    /// equal the query's words (exact), and whether they start with them in
    /// order, the last by prefix while it is being typed (prefix).
    fn read(&self, terms: &[u32]) -> (bool, bool) {
        let exact_ids = self.exact_ids();
        let mut exact = self.can_be_exact;
        let mut prefix = !self.prefix.is_empty();
        let mut n = 0usize;
        for &t in terms {
            if Some(t) == self.and_id {
                continue;
            }
            if exact {
                exact = exact_ids.get(n) == Some(&t);
            }
            if prefix && n < self.prefix.len() {
                prefix = self.prefix[n].contains(&t);
            }
            n += 1;
            if !exact && (!prefix || n >= self.prefix.len()) {
                break;
            }
        }
        (
            exact && n == exact_ids.len(),
            prefix && n >= self.prefix.len(),
        )
    }
}

/// The best (key, entry, tier) of each record (entries come grouped by
/// record), offered to a bounded max-heap of the best `k` records. Keys
/// end with the record, so they are distinct and the result is exactly
/// the first `k` of a full sort.
struct TopK {
    heap: BinaryHeap<(Key, u32, u8)>,
    k: usize,
    /// The worst key in a full heap: anything not better is rejected.
    bar: Option<Key>,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            heap: BinaryHeap::with_capacity(k.min(1024) + 1),
            k,
            bar: None,
        }
    }

    fn offer(&mut self, (key, e, tier): (Key, u32, u8)) {
        if self.heap.len() < self.k {
            self.heap.push((key, e, tier));
        } else if self.heap.peek().is_some_and(|w| key < w.0) {
            self.heap.pop();
            self.heap.push((key, e, tier));
        }
        if self.heap.len() == self.k {
            self.bar = self.heap.peek().map(|w| w.0);
        }
    }
}

impl Engine {
    /// Typeahead suggestions for `text` under `filters`, at most `k`.
    pub fn suggest(&self, text: &str, filters: &Filters, k: usize) -> Vec<Suggestion> {
        self.suggest_in(text, filters, k, &SuggestContext::default())
    }

    /// [`Engine::suggest`] in the context of a form
    /// ([`super::context`]): preferences and the e-mail domain boost,
    /// remembered records come first, `lang` picks the label to show; with
    /// empty text, the records of the e-mail domain, then the remembered
    /// ones, are offered.
    pub fn suggest_in(
        &self,
        text: &str,
        filters: &Filters,
        k: usize,
        ctx: &SuggestContext,
    ) -> Vec<Suggestion> {
        self.suggest_keyed(text, filters, k, ctx)
            .into_iter()
            .map(|(_, h)| h)
            .collect()
    }

    /// [`Engine::suggest_in`] with each hit's ranking key (`None` for the
    /// offers of empty text and id look-ups, which are not ranked by it):
    /// what lets a typeahead piece prove that its hits come first in the
    /// whole registry ([`crate::pieces`]).
    pub(crate) fn suggest_keyed(
        &self,
        text: &str,
        filters: &Filters,
        k: usize,
        ctx: &SuggestContext,
    ) -> Vec<(Option<Key>, Suggestion)> {
        let resolved = Resolved::new(self, ctx);
        let mut hits = self.suggest_resolved(text, filters, k, &resolved);
        for (_, h) in &mut hits {
            h.remembered = resolved.remembered.contains(&(h.index as u32));
            if let Some(lang) = ctx.lang.as_deref() {
                h.localized = self
                    .registry()
                    .names(h.index)
                    .find(|n| n.is_label() && n.lang == Some(lang))
                    .map(|n| n.value.to_string())
                    .filter(|v| *v != h.summary.name);
            }
        }
        hits
    }

    fn suggest_resolved(
        &self,
        text: &str,
        filters: &Filters,
        k: usize,
        ctx: &Resolved,
    ) -> Vec<(Option<Key>, Suggestion)> {
        let unranked = |hits: Vec<Suggestion>| hits.into_iter().map(|h| (None, h)).collect();
        let text = text.trim();
        if k == 0 || text.chars().count() > super::MAX_QUERY_CHARS {
            return Vec::new();
        }
        let ix = self.index();
        let visible = |r: u32| visible(filters, ix, r);
        if text.is_empty() {
            // Offers before anything is typed: the e-mail domain's records
            // (in the order `Resolved` keeps them), then the remembered ones
            // (most recent first).
            let mut out: Vec<Suggestion> = Vec::new();
            for (reason, r) in ctx
                .domain
                .iter()
                .map(|&r| ("email_domain", r))
                .chain(ctx.remembered.iter().map(|&r| ("remembered", r)))
            {
                if out.len() < k && visible(r) && !out.iter().any(|h| h.index == r as usize) {
                    out.push(self.whole(r as usize, reason));
                }
            }
            return unranked(out);
        }
        // Identifiers first.
        if let Ok(id) = RecordId::parse(text)
            && let Some(r) = self.registry().index_of(id)
        {
            return unranked(vec![self.whole(r, "id")]);
        }
        let ext = self.external_any_form(text);
        if !ext.is_empty() {
            return unranked(
                ext.iter()
                    .filter(|&&r| visible(r))
                    .take(k)
                    .map(|&r| self.whole(r as usize, "external_id"))
                    .collect(),
            );
        }

        let Some((units, ranked)) = self.ranked_matches(text, filters, k, ctx) else {
            return Vec::new();
        };
        ranked
            .into_iter()
            .map(|(key, e, tier)| (Some(key), self.hit(e, &units, REASONS[tier as usize])))
            .collect()
    }

    /// Records with the external id `text` in any usual form (ISNI with or
    /// without spaces or as a URL, GRID, Wikidata, FundRef); the id maps are
    /// consulted (and built) only for text that looks like one.
    pub(crate) fn external_any_form(&self, text: &str) -> Vec<u32> {
        if !text::looks_like_external_id(text) {
            return Vec::new();
        }
        self.index()
            .external(self.registry())
            .by_key(&text::external_id_key(text))
    }

    /// The best `k` matches of `text` read as typeahead words (every word by
    /// prefix in one name, in any order; no id look-ups), best first: each
    /// with its ranking key, the entry (name) that matched best and its
    /// tier, plus the query units (for highlighting). `None` when some word
    /// matches no term. `k` may exceed the number of matches: the search
    /// page ranks all of them this way ([`super::typed`]).
    pub(crate) fn ranked_matches(
        &self,
        text: &str,
        filters: &Filters,
        k: usize,
        ctx: &Resolved,
    ) -> Option<(Vec<Unit>, Vec<Ranked>)> {
        let ix = self.index();
        let visible = |r: u32| visible(filters, ix, r);
        let toks = text::tokens(text);
        let typing_last = toks.iter().map(|t| t.end).max().unwrap_or(0) == text.len();
        let units = query_units(ix, &toks, typing_last);
        if units.is_empty() || units.iter().any(|u| u.range.is_empty()) {
            return None;
        }
        let shape = PhraseShape::of(ix, &toks, typing_last);

        // Driver: the unit with the fewest postings.
        let driver = (0..units.len())
            .min_by_key(|&u| ix.range_postings(&units[u].range))
            .unwrap_or(0);
        let drive = &units[driver].range;
        let mut seen: Vec<u64>;
        let cands = if drive.len() == 1 {
            Cands::List(ix.postings(drive.start).iter())
        } else {
            // Union of several postings lists, in entry order, via a bitset.
            seen = vec![0u64; ix.entries().div_ceil(64)];
            for term in drive.clone() {
                for &e in ix.postings(term) {
                    seen[e as usize / 64] |= 1 << (e % 64);
                }
            }
            Cands::Bits {
                words: &seen,
                at: 0,
                bits: 0,
            }
        };
        // Units other than the driver that must be checked per entry.
        let checks: Vec<&Unit> = units
            .iter()
            .enumerate()
            .filter(|&(u, unit)| u != driver || unit.pair.is_some())
            .map(|(_, unit)| unit)
            .collect();
        let unfiltered = filters.statuses.is_none()
            && filters.types.is_none()
            && filters.country_codes.is_none()
            && filters.country_names.is_none()
            && filters.continent_codes.is_none()
            && filters.continent_names.is_none();
        let mut top = TopK::new(k);
        // The best tier entry `e` can reach, from its flags and length
        // alone (its content words are at most its words, exactly them
        // without `and`): reading its words is skipped when even that
        // cannot beat the bar.
        // Entries holding the rarest exact word: only they can be exact.
        let exact_ids = shape.exact_ids();
        let rarest = exact_ids
            .iter()
            .copied()
            .min_by_key(|&t| ix.postings(t).len());
        let mut exact_bits = Vec::new();
        if let Some(t) = rarest.filter(|_| shape.can_be_exact) {
            exact_bits = vec![0u64; ix.entries().div_ceil(64)];
            for &e in ix.postings(t) {
                exact_bits[e as usize / 64] |= 1 << (e % 64);
            }
        }
        let may_be_exact =
            |e: u32| rarest.is_none() || exact_bits[e as usize / 64] & (1 << (e % 64)) != 0;
        let best_tier = |e: u32, flags: u8, words: usize| {
            let display = flags & name_flags::DISPLAY != 0;
            let acronym = flags & name_flags::ACRONYM != 0;
            let n = exact_ids.len();
            let exact = shape.can_be_exact
                && (words == n || words > n && ix.entry_has_and(e))
                && may_be_exact(e);
            let prefix = !shape.prefix.is_empty() && words >= shape.prefix.len();
            tier(exact, prefix, display, acronym)
        };
        let priors = self.registry().priors();
        let mut cur: Option<(Key, u32, u8)> = None;
        let mut last_rec = u32::MAX;
        let mut rec_ok = false;
        // Per-record parts of the key, set when a record's entries begin.
        let (mut prior, mut boost) = (0u8, (false, 0u16));
        for e in cands {
            let r = ix.entry_record(e);
            if r != last_rec {
                if let Some(c) = cur.take() {
                    top.offer(c);
                }
                last_rec = r;
                rec_ok = unfiltered || visible(r);
                prior = priors[r as usize];
                boost = ctx.boost(self, r);
            }
            if !rec_ok {
                continue;
            }
            let flags = ix.entry_flags(e);
            let len = ix.entry_len(e);
            let rest = (
                ix.status(r),
                len.min(u16::MAX as usize) as u16,
                ix.display_len(r),
                r,
            );
            if let Some(b) = top.bar
                && key(best_tier(e, flags, len), prior, boost, rest) >= b
            {
                continue;
            }
            let terms = ix.entry_terms(e);
            let all = checks.iter().all(|unit| match unit.pair {
                Some((a, b)) => terms.windows(2).any(|w| w[0] == a && w[1] == b),
                None => terms.iter().any(|t| unit.range.contains(t)),
            });
            if !all {
                continue;
            }
            let (exact, prefix) = shape.read(terms);
            let display = flags & name_flags::DISPLAY != 0;
            let acronym = flags & name_flags::ACRONYM != 0;
            let tier = tier(exact, prefix, display, acronym);
            let key = key(tier, prior, boost, rest);
            match &mut cur {
                Some((bk, be, bt)) => {
                    if key < *bk {
                        *bk = key;
                        *be = e;
                        *bt = tier;
                    }
                }
                None => cur = Some((key, e, tier)),
            }
        }
        if let Some(c) = cur {
            top.offer(c);
        }
        Some((units, top.heap.into_sorted_vec()))
    }

    fn matched_name(&self, r: usize, pos: usize) -> MatchedName {
        let name = self.registry().names(r).nth(pos);
        let mut types = Vec::new();
        if let Some(n) = &name {
            for (on, t) in [
                (n.is_display(), crate::model::DISPLAY),
                (n.is_label(), crate::model::LABEL),
                (n.is_alias(), crate::model::ALIAS),
                (n.is_acronym(), crate::model::ACRONYM),
            ] {
                if on {
                    types.push(t.to_string());
                }
            }
        }
        MatchedName {
            value: name.map(|n| n.value.to_string()).unwrap_or_default(),
            types,
            lang: name.and_then(|n| n.lang.map(str::to_string)),
        }
    }

    /// A hit on the record itself (id look-ups): the display name, unhighlighted.
    fn whole(&self, r: usize, reason: &'static str) -> Suggestion {
        let pos = self
            .registry()
            .names(r)
            .position(|n| n.is_display())
            .unwrap_or(0);
        Suggestion {
            index: r,
            summary: self.registry().summary(r),
            matched: self.matched_name(r, pos),
            ranges: Vec::new(),
            reason,
            localized: None,
            remembered: false,
        }
    }

    fn hit(&self, e: u32, units: &[Unit], reason: &'static str) -> Suggestion {
        let ix = self.index();
        let r = ix.entry_record(e) as usize;
        let matched = self.matched_name(r, ix.entry_position(e));
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for t in text::tokens(&matched.value) {
            for u in units {
                if u.pair.is_some() {
                    if t.kind == TokenKind::Bigram && t.text == u.text {
                        ranges.push((t.start, t.end));
                    }
                } else if t.kind != TokenKind::Bigram && t.text.starts_with(&u.text) {
                    let orig = &matched.value[t.start..t.end];
                    let end = t.start + text::original_prefix_end(orig, u.text.len());
                    ranges.push((t.start, end));
                }
            }
        }
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (s, e) in ranges {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Suggestion {
            index: r,
            summary: self.registry().summary(r),
            matched,
            ranges: merged,
            reason,
            localized: None,
            remembered: false,
        }
    }
}
