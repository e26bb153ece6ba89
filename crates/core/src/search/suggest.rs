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
//!   1. tier: exact name (display, label or alias) > exact acronym >
//!      the query is a prefix of the display name (words in order) > the
//!      query is a prefix of another name > the words match in any order;
//!   2. active before inactive before withdrawn;
//!   3. fewer words in the matched name;
//!   4. shorter display name;
//!   5. record id.
//!
//!   Every key but the tier depends only on the record, and typing one more
//!   character can only shrink the candidate set, so the best result stays
//!   in the top results while it still matches at the same or a better tier
//!   (prefix stability, tested keystroke by keystroke); it can only be
//!   overtaken by a record that reaches a better tier (e.g. an exact name).
//! * Inactive and withdrawn records are shown (ranked after active ones)
//!   unless a `status` filter says otherwise: a typeahead should not hide
//!   them silently.

use serde::Serialize;

use crate::id::RecordId;
use crate::index::name_flags;
use crate::registry::RecordSummary;
use crate::search::{Engine, Filters};
use crate::text::{self, TokenKind};

/// Most query words considered.
const MAX_WORDS: usize = 16;

/// Which name matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchedName {
    /// The name as stored.
    pub value: String,
    /// Its types (`registry_display`, `label`, `alias`, `acronym`).
    pub types: Vec<&'static str>,
    /// Its language.
    pub lang: Option<String>,
}

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
    /// `display_prefix`, `name_prefix` or `words`.
    pub reason: &'static str,
}

const REASONS: [&str; 5] = ["exact", "acronym", "display_prefix", "name_prefix", "words"];

/// A required query unit.
struct Unit {
    /// Term-id range it may match (prefix range, or exact bigram).
    range: std::ops::Range<u32>,
    /// For bigrams: the two unigram term ids.
    pair: Option<(u32, u32)>,
    /// Folded text (for highlighting).
    text: String,
}

impl Engine {
    /// Typeahead suggestions for `text` under `filters`, at most `k`.
    pub fn suggest(&self, text: &str, filters: &Filters, k: usize) -> Vec<Suggestion> {
        let text = text.trim();
        if text.is_empty() || k == 0 || text.chars().count() > super::MAX_QUERY_CHARS {
            return Vec::new();
        }
        let ix = self.index();
        let visible = |r: u32| {
            filters
                .statuses
                .is_none_or(|s| s & (1 << ix.status(r)) != 0)
                && filters.matches_fields(ix, r)
        };
        // Identifiers first.
        if let Ok(id) = RecordId::parse(text)
            && let Some(r) = self.registry().index_of(id)
        {
            return vec![self.whole(r, "id")];
        }
        let key = text::external_id_key(text);
        let ext = if key.bytes().any(|b| b.is_ascii_digit()) {
            ix.external(self.registry()).by_key(&key)
        } else {
            Vec::new()
        };
        if !ext.is_empty() {
            return ext
                .iter()
                .filter(|&&r| visible(r))
                .take(k)
                .map(|&r| self.whole(r as usize, "external_id"))
                .collect();
        }

        // Query units.
        let toks = text::tokens(text);
        let words: Vec<&text::Token> = toks.iter().filter(|t| t.kind == TokenKind::Word).collect();
        let last_word_end = toks.iter().map(|t| t.end).max().unwrap_or(0);
        let typing_last = last_word_end == text.len();
        let mut units: Vec<Unit> = Vec::new();
        // Phrase sequence of the query, exact ids (for tiers).
        let phrase: Vec<&text::Token> = toks
            .iter()
            .filter(|t| t.kind != TokenKind::Bigram)
            .collect();
        for t in &toks {
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
                    let in_pair = toks.iter().any(|x| {
                        x.kind == TokenKind::Bigram && (x.start == t.start || x.end == t.end)
                    });
                    if !in_pair {
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
        if units.is_empty() || units.iter().any(|u| u.range.is_empty()) {
            return Vec::new();
        }
        let exact_ids: Option<Vec<u32>> = phrase
            .iter()
            .filter(|t| t.text != "and")
            .map(|t| ix.term_id(&t.text))
            .collect();
        let phrase_prefix: Vec<std::ops::Range<u32>> = phrase
            .iter()
            .filter(|t| t.text != "and")
            .enumerate()
            .map(|(i, t)| {
                if i + 1 == phrase.iter().filter(|t| t.text != "and").count() && typing_last {
                    ix.prefix_range(&t.text)
                } else {
                    ix.term_id(&t.text).map_or(0..0, |i| i..i + 1)
                }
            })
            .collect();
        let and_id = ix.term_id("and");

        // Driver: the unit with the fewest postings.
        let driver = (0..units.len())
            .min_by_key(|&u| ix.range_postings(&units[u].range))
            .unwrap_or(0);
        let drive = &units[driver].range;
        let cands: Vec<u32> = if drive.len() == 1 {
            ix.postings(drive.start).to_vec()
        } else {
            // Union of several postings lists, in entry order, via a bitset.
            let mut seen = vec![0u64; ix.entries().div_ceil(64)];
            for term in drive.clone() {
                for &e in ix.postings(term) {
                    seen[e as usize / 64] |= 1 << (e % 64);
                }
            }
            let mut v = Vec::with_capacity(ix.range_postings(drive));
            for (w, &bits) in seen.iter().enumerate() {
                let mut b = bits;
                while b != 0 {
                    v.push((w * 64) as u32 + b.trailing_zeros());
                    b &= b - 1;
                }
            }
            v
        };
        // Best (key, entry) per record.
        type Key = (u8, u8, u16, u32, u32);
        let mut best: Vec<(Key, u32)> = Vec::new();
        let mut last_rec = u32::MAX;
        let mut rec_ok = false;
        for &e in &cands {
            let r = ix.entry_record(e);
            if r != last_rec {
                last_rec = r;
                rec_ok = visible(r);
            }
            if !rec_ok {
                continue;
            }
            let terms = ix.entry_terms(e);
            let all = units.iter().enumerate().all(|(u, unit)| {
                u == driver && unit.pair.is_none()
                    || match unit.pair {
                        Some((a, b)) => terms.windows(2).any(|w| w[0] == a && w[1] == b),
                        None => terms.iter().any(|t| unit.range.contains(t)),
                    }
            });
            if !all {
                continue;
            }
            let flags = ix.entry_flags(e);
            let content = || terms.iter().copied().filter(|&t| Some(t) != and_id);
            let exact = exact_ids
                .as_ref()
                .is_some_and(|ids| content().eq(ids.iter().copied()));
            let prefix = !phrase_prefix.is_empty()
                && content().count() >= phrase_prefix.len()
                && content()
                    .zip(phrase_prefix.iter())
                    .all(|(t, r)| r.contains(&t));
            let tier = if exact && flags & name_flags::ACRONYM == 0 {
                0
            } else if exact {
                1
            } else if prefix && flags & name_flags::DISPLAY != 0 {
                2
            } else if prefix {
                3
            } else {
                4
            };
            let display_len = ix.display_len(r);
            let key: Key = (
                tier,
                ix.status(r),
                terms.len().min(u16::MAX as usize) as u16,
                display_len,
                r,
            );
            match best.last_mut() {
                Some((bk, be)) if bk.4 == r => {
                    if key < *bk {
                        *bk = key;
                        *be = e;
                    }
                }
                _ => best.push((key, e)),
            }
        }
        if best.len() > k {
            best.select_nth_unstable_by(k - 1, |a, b| a.0.cmp(&b.0));
            best.truncate(k);
        }
        best.sort_unstable_by_key(|a| a.0);
        best.into_iter()
            .map(|(key, e)| self.hit(e, &units, REASONS[key.0 as usize]))
            .collect()
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
                    types.push(t);
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
        }
    }
}
