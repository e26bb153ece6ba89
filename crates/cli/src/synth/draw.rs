//! The drawing of synthetic records, shared by the scale-up (`synth
//! --factor`) and the next release (`synth --next-release`): a seeded PRNG,
//! the real words by class, names rewritten with them, and a record copied
//! under a new id with its external ids, domains and links made unique.

use std::collections::{BTreeMap, HashMap};

use registry_core::RecordId;
use registry_core::model::{ACRONYM, Name, Record, Relationship};

/// SplitMix64: tiny, fast, and good enough to draw words and ids.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is negligible for n ≪ 2^64.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Where a word may be used: same script block, case shape, position and name kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Class {
    acronym: bool,
    first: bool,
    script: u32,
    shape: u8,
}

/// A coarse script id: the big scripts by name, others by 128-code-point block.
fn script(c: char) -> u32 {
    let u = c as u32;
    match u {
        _ if c.is_ascii_digit() => 1,
        _ if c.is_ascii_alphabetic() => 2,
        0xC0..=0x24F | 0x1E00..=0x1EFF => 2, // Latin with diacritics
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => 3, // Han
        0x3040..=0x30FF => 4,                // kana
        0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => 5, // Hangul
        0x600..=0x6FF | 0x750..=0x77F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => 6, // Arabic
        _ => 100 + (u >> 7),
    }
}

/// 0 no case (digits, CJK, Arabic…), 1 lower, 2 Capitalized, 3 UPPER (2+ letters).
fn shape(core: &str) -> u8 {
    let mut letters = core.chars().filter(|c| c.is_alphabetic());
    let Some(first) = letters.next() else {
        return 0;
    };
    if first.is_lowercase() {
        1
    } else if !first.is_uppercase() {
        0
    } else if core.chars().filter(|c| c.is_alphabetic()).count() > 1
        && letters.all(|c| !c.is_lowercase())
    {
        3
    } else {
        2
    }
}

/// Splits a space-separated piece into (leading punctuation, word, trailing
/// punctuation): "(CNRS)," → ("(", "CNRS", "),"). The word may be empty.
fn split_piece(piece: &str) -> (&str, &str, &str) {
    let start = piece
        .find(|c: char| c.is_alphanumeric())
        .unwrap_or(piece.len());
    let end = piece
        .rfind(|c: char| c.is_alphanumeric())
        .map_or(start, |i| {
            i + piece[i..].chars().next().map_or(1, char::len_utf8)
        });
    (
        &piece[..start],
        &piece[start..end.max(start)],
        &piece[end.max(start)..],
    )
}

fn class_of(word: &str, first: bool, acronym: bool) -> Class {
    Class {
        acronym,
        first,
        script: word.chars().next().map_or(0, script),
        shape: shape(word),
    }
}

fn is_acronym(n: &Name) -> bool {
    n.types.iter().any(|t| t == ACRONYM)
}

/// Words by class, in dump order, with repetitions (so draws follow the real frequencies).
pub struct Pools<'a>(BTreeMap<Class, Vec<&'a str>>);

impl<'a> Pools<'a> {
    pub fn new(records: &'a [Record]) -> Pools<'a> {
        let mut pools: BTreeMap<Class, Vec<&'a str>> = BTreeMap::new();
        for r in records {
            for n in &r.names {
                for (i, piece) in n.value.split(' ').enumerate() {
                    let (_, word, _) = split_piece(piece);
                    if !word.is_empty() {
                        pools
                            .entry(class_of(word, i == 0, is_acronym(n)))
                            .or_default()
                            .push(word);
                    }
                }
            }
        }
        Pools(pools)
    }
}

/// Initials of the capitalised words of a name, with their piece positions.
fn initials(name: &str) -> (String, Vec<usize>) {
    let mut s = String::new();
    let mut at = Vec::new();
    for (i, piece) in name.split(' ').enumerate() {
        let (_, word, _) = split_piece(piece);
        if let Some(c) = word.chars().next().filter(|c| c.is_uppercase()) {
            s.push(c);
            at.push(i);
        }
    }
    (s, at)
}

/// Rewrites one record's names with words drawn from `pools`.
pub struct NameRewriter<'p, 'a> {
    pub pools: &'p Pools<'a>,
    pub rng: Rng,
    pub chosen: HashMap<String, &'a str>, // lookups only: never iterated
}

impl<'a> NameRewriter<'_, 'a> {
    fn word(&mut self, word: &str, class: Class) -> &'a str {
        if let Some(w) = self.chosen.get(word) {
            return w;
        }
        let w = match self.pools.0.get(&class) {
            Some(pool) => pool[self.rng.below(pool.len())],
            None => return self.pools.0.values().next().map_or("", |p| p[0]),
        };
        self.chosen.insert(word.to_string(), w);
        w
    }

    pub fn name(&mut self, value: &str, acronym: bool) -> String {
        let mut out = String::with_capacity(value.len() + 8);
        for (i, piece) in value.split(' ').enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let (lead, word, trail) = split_piece(piece);
            out.push_str(lead);
            if !word.is_empty() {
                let w = self.word(word, class_of(word, i == 0, acronym));
                out.push_str(w);
            }
            out.push_str(trail);
        }
        out
    }

    pub fn names(&mut self, template: &Record) -> Vec<Name> {
        let display = template.display_name().unwrap_or("");
        let display_is_acronym = template
            .names
            .iter()
            .find(|n| n.value == display)
            .is_some_and(is_acronym);
        let (display_initials, at) = initials(display);
        // The display name first, so that an acronym can be rebuilt from it.
        let new_display = self.name(display, display_is_acronym);
        let new_pieces: Vec<&str> = new_display.split(' ').collect();
        let from_display: String = at
            .iter()
            .filter_map(|&i| new_pieces.get(i))
            .filter_map(|p| split_piece(p).1.chars().next())
            .flat_map(char::to_uppercase)
            .collect();
        template
            .names
            .iter()
            .map(|n| {
                let letters: String = n.value.chars().filter(|c| c.is_alphabetic()).collect();
                let value = if n.value == display {
                    new_display.clone()
                } else if is_acronym(n)
                    && letters.chars().count() >= 2
                    && letters == display_initials
                {
                    from_display.clone()
                } else {
                    self.name(&n.value, is_acronym(n))
                };
                Name {
                    lang: n.lang.clone(),
                    types: n.types.clone(),
                    value,
                }
            })
            .collect()
    }
}

/// `s<copy>.` in front of the host of a URL or domain.
fn prefix_host(value: &str, copy: u32) -> String {
    match value.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://s{copy}.{rest}"),
        None => format!("s{copy}.{value}"),
    }
}

/// Per-record seed: independent of every other record's draws.
pub fn record_seed(seed: u64, copy: u32, index: usize) -> u64 {
    let mut r = Rng::new(seed ^ ((copy as u64) << 40) ^ index as u64);
    r.next_u64()
}

/// One synthetic record: `template` with a new id and names; `target(id)`
/// gives the same copy's id and display name for a relationship's target.
pub fn copy_record(
    template: &Record,
    copy: u32,
    id: RecordId,
    names: &[Name],
    target: impl Fn(&str) -> Option<(String, String)>,
) -> Record {
    let mut r = template.clone();
    r.id = id.url();
    r.names = names.to_vec();
    r.relationships = template
        .relationships
        .iter()
        .filter_map(|rel| {
            let (id, label) = target(&rel.id)?;
            Some(Relationship {
                label,
                kind: rel.kind.clone(),
                id,
            })
        })
        .collect();
    let suffix = format!("-s{copy}");
    for e in &mut r.external_ids {
        e.all.iter_mut().for_each(|v| v.push_str(&suffix));
        if let Some(p) = &mut e.preferred {
            p.push_str(&suffix);
        }
    }
    r.domains = r.domains.iter().map(|d| prefix_host(d, copy)).collect();
    for l in &mut r.links {
        l.value = prefix_host(&l.value, copy);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_punctuation_from_words() {
        assert_eq!(split_piece("(CNRS),"), ("(", "CNRS", "),"));
        assert_eq!(split_piece("Université"), ("", "Université", ""));
        assert_eq!(split_piece("&"), ("&", "", ""));
        assert_eq!(split_piece("l'Institut"), ("", "l'Institut", ""));
    }

    #[test]
    fn classifies_case_and_script() {
        assert_eq!(shape("of"), 1);
        assert_eq!(shape("Harvard"), 2);
        assert_eq!(shape("MIT"), 3);
        assert_eq!(shape("東京大学"), 0);
        assert_eq!(script('é'), script('a'));
        assert_ne!(script('Ж'), script('a'));
    }

    #[test]
    fn rebuilds_initial_acronyms_from_the_new_display_name() {
        let (s, at) = initials("Massachusetts Institute of Technology");
        assert_eq!(s, "MIT");
        assert_eq!(at, [0, 1, 3]);
    }
}
