//! The forms of a record's name that people type, as the relevance
//! benchmarks derive them: its rarest word first, folded to ASCII, or a
//! name in another script. `bench-search` types them keystroke by keystroke
//! and `bench-search --page` submits them whole (`bench_page`): one
//! derivation, so both measure the same queries.

use registry_core::search::Engine;
use registry_core::text;

/// The name with its rarest word (fewest postings) moved to the front:
/// what a user who knows the distinctive word types.
pub(crate) fn rarest_first(engine: &Engine, name: &str) -> String {
    let ix = engine.index();
    let words: Vec<&str> = name.split_whitespace().collect();
    if words.len() < 2 {
        return name.to_string();
    }
    let rarest = words
        .iter()
        .enumerate()
        .min_by_key(|(_, w)| {
            text::tokens(w)
                .first()
                .and_then(|t| ix.term_id(&t.text))
                .map_or(usize::MAX, |t| ix.postings(t).len())
        })
        .map_or(0, |(k, _)| k);
    let mut reordered = vec![words[rarest]];
    reordered.extend(
        words
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != rarest)
            .map(|(_, w)| *w),
    );
    reordered.join(" ")
}

/// Whether a letter of `s` lies outside the Latin blocks (CJK, Cyrillic,
/// Arabic, Greek…): such a name is typed in its own script, not folded.
pub(crate) fn is_non_latin(s: &str) -> bool {
    s.chars()
        .filter(|c| c.is_alphabetic())
        .any(|c| !(c as u32 <= 0x024F || (0x1E00..=0x1EFF).contains(&(c as u32))))
}

/// The name with its accented Latin letters folded to ASCII
/// (`Universite de Montreal`), other characters kept.
pub(crate) fn accent_stripped(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                let f = text::fold(&c.to_string());
                if f.is_ascii() { f } else { c.to_string() }
            }
        })
        .collect()
}
