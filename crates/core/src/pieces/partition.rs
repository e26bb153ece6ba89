//! Cutting a registry into pieces: leaves and heads by term prefix, id
//! pieces by id, a head's exact words and the first-keystroke pack's
//! characters (see the parent module's docs).

use crate::search::Engine;
use crate::shard::pieces::{ExactWords, PieceKind, PieceSpec, first_char, id_key};

/// How big pieces may get.
#[derive(Clone, Copy, Debug)]
pub struct PieceBudget {
    /// Most estimated raw bytes (summary + names) of a leaf.
    pub raw_bytes: usize,
    /// Records kept in the head of a split prefix.
    pub head_records: usize,
    /// Most encoded bytes of a head's [`ExactWords`].
    pub exact_words_bytes: usize,
}

impl Default for PieceBudget {
    /// 48 KiB raw (~15–20 KB compressed, one or two round trips' worth on
    /// a slow mobile link), 40 head records (the widget shows 8–10) and
    /// 2 KiB of exact words a head (before compression; ~1 KB after, a
    /// third of a head): enough for a first character's head to list its
    /// words of up to three characters at 144k records, so the first
    /// keystroke's head proves first hits until the third (1 KiB stops
    /// at two characters for "s").
    fn default() -> Self {
        PieceBudget {
            raw_bytes: 48 * 1024,
            head_records: 40,
            exact_words_bytes: 2048,
        }
    }
}

/// The [`ExactWords`] of head `prefix` holding `head` (ascending record
/// indexes), as many lengths as fit in `budget` encoded bytes.
pub fn exact_words(engine: &Engine, prefix: &str, head: &[u32], budget: usize) -> ExactWords {
    let ix = engine.index();
    let and = ix.term_id("and");
    let mut all: Vec<&str> = Vec::new();
    for t in ix.prefix_range(prefix) {
        let term = ix.term(t);
        if term.len() == prefix.len() {
            continue;
        }
        // Exactly one content word (`and` aside), as suggest's exact
        // tiers count them.
        let outside = ix.postings(t).iter().any(|&e| {
            let mut content = ix.entry_terms(e).iter().filter(|&&x| Some(x) != and);
            head.binary_search(&ix.entry_record(e)).is_err()
                && content.next() == Some(&t)
                && content.next().is_none()
        });
        if outside {
            all.push(term);
        }
    }
    // The longest length whose words (and all shorter ones) fit.
    let mut lengths: Vec<u32> = all.iter().map(|w| w.chars().count() as u32).collect();
    lengths.sort_unstable();
    lengths.dedup();
    let mut upto = u32::MAX;
    for &len in &lengths {
        let words: Vec<String> = all
            .iter()
            .filter(|w| w.chars().count() as u32 <= len)
            .map(|w| w.to_string())
            .collect();
        let size = ExactWords { upto: len, words }.encode().len();
        if size > budget {
            upto = lengths
                .iter()
                .rev()
                .find(|&&l| l < len)
                .copied()
                .unwrap_or(prefix.chars().count() as u32);
            break;
        }
    }
    ExactWords {
        upto,
        words: all
            .into_iter()
            .filter(|w| w.chars().count() as u32 <= upto)
            .map(str::to_string)
            .collect(),
    }
}

/// Estimated raw section bytes of each record (names with their per-name
/// overhead, plus the summary row).
fn record_bytes(engine: &Engine) -> Vec<usize> {
    let reg = engine.registry();
    (0..reg.len())
        .map(|r| 24 + reg.names(r).map(|n| n.value.len() + 4).sum::<usize>())
        .collect()
}

/// Cuts the registry into pieces under `budget` (see the module docs).
pub fn partition(engine: &Engine, budget: &PieceBudget) -> Vec<PieceSpec> {
    let ix = engine.index();
    let sizes = record_bytes(engine);
    let mut mark = vec![u32::MAX; engine.registry().len()];
    let mut generation = 0u32;
    let mut out = Vec::new();
    // Depth-first from the first characters of all terms.
    let mut stack: Vec<String> = next_chars(engine, "").into_iter().rev().collect();
    while let Some(p) = stack.pop() {
        generation += 1;
        let mut records = Vec::new();
        let mut bytes = 0usize;
        for t in ix.prefix_range(&p) {
            for &e in ix.postings(t) {
                let r = ix.entry_record(e);
                if mark[r as usize] != generation {
                    mark[r as usize] = generation;
                    records.push(r);
                    bytes += sizes[r as usize];
                }
            }
        }
        let children = next_chars(engine, &p);
        if bytes <= budget.raw_bytes || children.is_empty() {
            records.sort_unstable();
            out.push(PieceSpec {
                key: p,
                kind: PieceKind::Leaf,
                records,
                exact_words: None,
            });
            continue;
        }
        let mut head: Vec<u32> = engine
            .suggest(&p, &crate::search::Filters::default(), budget.head_records)
            .into_iter()
            .map(|s| s.index as u32)
            .collect();
        head.sort_unstable();
        for c in children.into_iter().rev() {
            stack.push(c);
        }
        let exact = exact_words(engine, &p, &head, budget.exact_words_bytes);
        out.push(PieceSpec {
            key: p,
            kind: PieceKind::Head,
            records: head,
            exact_words: Some(exact),
        });
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    // Records are in id order: each id key is one run of them.
    let reg = engine.registry();
    let mut ids: Vec<PieceSpec> = Vec::new();
    for r in 0..reg.len() {
        let key = id_key(reg.id(r));
        match ids.last_mut() {
            Some(last) if last.key == key => last.records.push(r as u32),
            _ => ids.push(PieceSpec {
                key,
                kind: PieceKind::Id,
                records: vec![r as u32],
                exact_words: None,
            }),
        }
    }
    out.extend(ids);
    out
}

/// The prefixes one character longer than `p` that some term starts with.
fn next_chars(engine: &Engine, p: &str) -> Vec<String> {
    let ix = engine.index();
    let mut out: Vec<String> = Vec::new();
    for t in ix.prefix_range(p) {
        let term = ix.term(t);
        if let Some(c) = term[p.len()..].chars().next() {
            let next = &term[..p.len() + c.len_utf8()];
            if out.last().is_none_or(|l| l != next) {
                out.push(next.to_string());
            }
        }
    }
    out
}

/// The split first characters worth a place in the first-keystroke pack
/// ([`crate::shard::pieces::pack`]): those that
/// begin at least `min_share` of the display names (folded), commonest
/// first.
pub fn pack_first_characters(engine: &Engine, split_first: &[&str], min_share: f64) -> Vec<String> {
    let reg = engine.registry();
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for r in 0..reg.len() {
        let folded = crate::text::fold(reg.display_name(r));
        let first = first_char(folded.trim_start());
        if let Some(&f) = split_first.iter().find(|f| **f == first) {
            *counts.entry(f).or_default() += 1;
        }
    }
    let mut firsts: Vec<(&str, usize)> = counts
        .into_iter()
        .filter(|&(_, n)| n as f64 >= min_share * reg.len() as f64)
        .collect();
    firsts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    firsts.into_iter().map(|(f, _)| f.to_string()).collect()
}
