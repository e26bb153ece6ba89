//! Similarity of a substring and one name.
//!
//! Token-based and order-insensitive: each token weighs `BASE + idf` (IDF
//! over all names in the index; optional words like "of", "de" weigh
//! little), so the distinctive words dominate but the kind of organization
//! ("university", "hospital") still counts. Name tokens are paired with
//! substring tokens: equal terms first, then near-misses (one edit for words
//! of 5+ characters, two for 8+: "Universitat"/"University",
//! "Sciences"/"Science"), then an acronym in the substring that is one of the
//! record's acronyms, which also covers the name words whose initials spell
//! it ("CHU Rennes" ~ "Centre Hospitalier Universitaire de Rennes").
//!
//! With `c_n` the matched share of the name's weight and `c_s` the matched
//! share of the substring's weight, the similarity is their harmonic mean;
//! a name contained whole and in order in the substring (a *phrase*) scores
//! at least `0.7 + 0.25·c_s`; a name equal to the substring scores 1.

use crate::index::Index;

/// Constant part of every token's weight.
pub const BASE: f32 = 3.0;
/// Weight factor of optional words.
pub const OPTIONAL_FACTOR: f32 = 0.1;
/// Least score of a name contained whole in the substring.
pub const PHRASE_FLOOR: f32 = 0.8;
/// A name whose words all have an IDF below this share of the highest
/// possible IDF (a word in one name) is *generic*: it is not credited with
/// [`PHRASE_FLOOR`] and scores less (see the module `affiliation`). On the
/// 36k-record data the limit is an IDF of about 6 (a word in ~250 names).
pub const GENERIC_SHARE: f32 = 0.54;
/// Credit of a near-miss pairing (one edit).
pub const FUZZY1: f32 = 0.85;
/// Credit of a near-miss pairing (two edits).
pub const FUZZY2: f32 = 0.7;

/// A substring token as the scorer sees it.
#[derive(Clone, Debug)]
pub struct STok<'a> {
    /// Folded text.
    pub text: &'a str,
    /// Term id, when the index knows the term.
    pub term: Option<u32>,
    /// Weight.
    pub w: f32,
    /// Only digits.
    pub digits: bool,
    /// Looks like an acronym in the original (two capitals or all caps).
    pub acronym_like: bool,
    /// Part of a country / state mention: excluded from acronym use and,
    /// unpaired, from the substring's weight.
    pub country: bool,
}

/// How a substring and a name compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sim {
    /// Similarity 0–1.
    pub score: f32,
    /// Matched share of the name's weight.
    pub c_n: f32,
    /// Matched share of the substring's weight.
    pub c_s: f32,
    /// Substring tokens paired with the name (bit i = token i).
    pub matched: u64,
    /// The name equals the substring (up to optional words and digits).
    pub exact: bool,
    /// The name is contained whole and in order.
    pub phrase: bool,
    /// A near-miss pairing was used.
    pub fuzzy: bool,
    /// An acronym pairing was used.
    pub acronym: bool,
    /// Highest IDF among the name's words, as a share of the highest
    /// possible IDF: low for generic names ("Department of Biological
    /// Sciences", "Institute of Physics").
    pub specificity: f32,
}

/// IDF of a document frequency over `n` entries.
pub fn idf(n: usize, df: usize) -> f32 {
    let n = n as f32;
    let df = (df as f32).min(n);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// Weight of a term of the index.
pub fn term_weight(ix: &Index, t: u32, optional: bool) -> f32 {
    let w = BASE + idf(ix.entries(), ix.postings(t).len());
    if optional { w * OPTIONAL_FACTOR } else { w }
}

/// Weight of a token the index does not know (a typo, a street, a person).
pub fn unknown_weight(ix: &Index) -> f32 {
    BASE + idf(ix.entries(), 1)
}

/// Levenshtein distance, giving up (returning `max + 1`) beyond `max`.
pub fn bounded_distance(a: &str, b: &str, max: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    crate::text::bounded_distance(&a, b, max)
}

fn is_optional(t: &STok<'_>) -> bool {
    crate::text::is_optional_word(t.text)
}

/// Credit of pairing two different words by spelling (0 = none).
fn fuzzy_credit(a: &str, b: &str) -> f32 {
    // French / Italian elision folded into the word: "daix" ~ "aix".
    for (x, y) in [(a, b), (b, a)] {
        if x.len() >= 5 && (x.starts_with('d') || x.starts_with('l')) && &x[1..] == y {
            return 1.0;
        }
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let short = la.min(lb);
    if short < 5 || a.chars().next() != b.chars().next() {
        return 0.0;
    }
    let max = if short >= 8 { 2 } else { 1 };
    match bounded_distance(a, b, max) {
        d if d > max => 0.0,
        1 => FUZZY1,
        2 => FUZZY2,
        _ => 0.0,
    }
}

/// Where the name's words stand in order in `s`, only optional words
/// between them (a name's optional words may be missing): the substring
/// token of each name word, `None` for a missing optional word. The first
/// such place; `None` when there is none.
fn phrase_at(s: &[STok<'_>], name: &[u32], name_text: &[&str]) -> Option<Vec<Option<usize>>> {
    let first = (0..name.len()).find(|&j| !crate::text::is_optional_word(name_text[j]))?;
    'start: for start in 0..s.len() {
        if s[start].term != Some(name[first]) {
            continue;
        }
        let mut at = vec![None; name.len()];
        at[first] = Some(start);
        let mut i = start + 1;
        for j in first + 1..name.len() {
            let opt = crate::text::is_optional_word(name_text[j]);
            // Skip optional words of the text that the name does not have here.
            while i < s.len() && s[i].term != Some(name[j]) && is_optional(&s[i]) {
                i += 1;
            }
            if i < s.len() && s[i].term == Some(name[j]) {
                at[j] = Some(i);
                i += 1;
            } else if !opt {
                continue 'start;
            }
        }
        return Some(at);
    }
    None
}

/// Compares substring tokens `s` with a name's phrase sequence `name`
/// (term ids). `acronyms`: the record's acronyms, folded.
pub fn similarity(ix: &Index, s: &[STok<'_>], name: &[u32], acronyms: &[String]) -> Sim {
    let ns = s.len().min(64);
    let s = &s[..ns];
    let mut sim = Sim::default();
    if ns == 0 || name.is_empty() {
        return sim;
    }
    let name_text: Vec<&str> = name.iter().map(|&t| ix.term(t)).collect();
    let name_w: Vec<f32> = name
        .iter()
        .zip(&name_text)
        .map(|(&t, txt)| term_weight(ix, t, crate::text::is_optional_word(txt)))
        .collect();
    let mut p = Pairing::new(name.len(), ns);
    p.pair_exact(s, name, &name_text);
    sim.fuzzy = p.pair_fuzzy(s, &name_text);
    sim.acronym = p.pair_acronyms(s, &name_text, acronyms);
    sim.specificity = name
        .iter()
        .zip(&name_text)
        .filter(|(_, txt)| !crate::text::is_optional_word(txt))
        .map(|(&t, _)| idf(ix.entries(), ix.postings(t).len()))
        .fold(0.0, f32::max)
        / idf(ix.entries(), 1).max(1e-6);
    let wn: f32 = name_w.iter().sum();
    let mn: f32 = name_w.iter().zip(&p.credit).map(|(w, c)| w * c).sum();
    let (ws, ms) = p.substring_weights(s);
    sim.matched = p.used;
    sim.c_n = if wn > 0.0 { mn / wn } else { 0.0 };
    sim.c_s = if ws > 0.0 { ms / ws } else { 0.0 };
    let f = if sim.c_n + sim.c_s > 0.0 {
        2.0 * sim.c_n * sim.c_s / (sim.c_n + sim.c_s)
    } else {
        0.0
    };
    let phrase = !sim.acronym && p.is_phrase(s, &name_text);
    sim.phrase = phrase;
    sim.exact = phrase && sim.c_s >= 0.999;
    sim.score = if sim.exact {
        1.0
    } else if phrase && sim.specificity >= GENERIC_SHARE {
        f.max(PHRASE_FLOOR + (1.0 - PHRASE_FLOOR) * sim.c_s)
    } else {
        f
    };
    sim
}

/// How a name's tokens and a substring's tokens pair up, step by step:
/// exactly (where the name stands whole first), then fuzzily, then the
/// record's acronyms.
struct Pairing {
    /// Credit per name token.
    credit: Vec<f32>,
    /// The substring token each name token paired with.
    pair: Vec<Option<usize>>,
    /// Credit per substring token.
    s_credit: Vec<f32>,
    /// The substring tokens paired, as bits.
    used: u64,
}

impl Pairing {
    fn new(name_len: usize, ns: usize) -> Pairing {
        Pairing {
            credit: vec![0f32; name_len],
            pair: vec![None; name_len],
            s_credit: vec![0f32; ns],
            used: 0,
        }
    }

    /// Pairs name token `j` with substring token `i` at `credit`.
    fn take(&mut self, j: usize, i: usize, credit: f32) {
        self.used |= 1 << i;
        self.credit[j] = credit;
        self.s_credit[i] = credit;
        self.pair[j] = Some(i);
    }

    /// Exact pairs. A word repeated in the text ("Shanghai … Affiliated to
    /// Shanghai Jiao Tong University") pairs where the name stands whole,
    /// if it does; the other name words with their first unpaired equal.
    fn pair_exact(&mut self, s: &[STok<'_>], name: &[u32], name_text: &[&str]) {
        if let Some(at) = phrase_at(s, name, name_text) {
            for (j, i) in at.into_iter().enumerate() {
                if let Some(i) = i {
                    self.take(j, i, 1.0);
                }
            }
        }
        for (j, &t) in name.iter().enumerate() {
            if self.pair[j].is_some() {
                continue;
            }
            if let Some(i) =
                (0..s.len()).find(|&i| self.used & (1 << i) == 0 && s[i].term == Some(t))
            {
                self.take(j, i, 1.0);
            }
        }
    }

    /// Each unpaired, non-optional name word with the unpaired substring
    /// word closest in spelling (digits aside); whether any paired so.
    fn pair_fuzzy(&mut self, s: &[STok<'_>], name_text: &[&str]) -> bool {
        let mut fuzzy = false;
        for (j, &text) in name_text.iter().enumerate() {
            if self.credit[j] > 0.0 || crate::text::is_optional_word(text) {
                continue;
            }
            let mut best = (0.0, 0);
            for (i, t) in s.iter().enumerate() {
                if self.used & (1 << i) != 0 || t.digits {
                    continue;
                }
                let c = fuzzy_credit(t.text, text);
                if c > best.0 {
                    best = (c, i);
                }
            }
            if best.0 > 0.0 {
                self.take(j, best.1, best.0);
                fuzzy = true;
            }
        }
        fuzzy
    }

    /// Acronyms of the record standing in the substring, each crediting
    /// the open name words whose initials spell it; whether any stood.
    fn pair_acronyms(&mut self, s: &[STok<'_>], name_text: &[&str], acronyms: &[String]) -> bool {
        let mut found = false;
        if acronyms.is_empty() {
            return found;
        }
        for (i, t) in s.iter().enumerate() {
            if self.used & (1 << i) != 0 || !t.acronym_like || t.country {
                continue;
            }
            if !acronyms.iter().any(|a| a == t.text) {
                continue;
            }
            self.used |= 1 << i;
            self.s_credit[i] = 1.0;
            found = true;
            // Name words whose initials spell the acronym.
            let open: Vec<usize> = (0..name_text.len())
                .filter(|&j| self.credit[j] == 0.0 && !crate::text::is_optional_word(name_text[j]))
                .collect();
            let initials: String = open
                .iter()
                .filter_map(|&j| name_text[j].chars().next())
                .collect();
            if !open.is_empty() && initials == t.text {
                for &j in &open {
                    self.credit[j] = 1.0;
                }
            }
        }
        found
    }

    /// The substring's weight and its credited weight. Unpaired digits
    /// (postcodes, footnote marks) and country names do not count against;
    /// a state or country between the paired words does ("University of
    /// California San Francisco" is not "University of San Francisco").
    fn substring_weights(&self, s: &[STok<'_>]) -> (f32, f32) {
        let ns = s.len();
        let (mut ws, mut ms) = (0f32, 0f32);
        let first = (0..ns).find(|&i| self.used & (1 << i) != 0).unwrap_or(ns);
        let last = (0..ns)
            .rev()
            .find(|&i| self.used & (1 << i) != 0)
            .unwrap_or(0);
        for (i, t) in s.iter().enumerate() {
            let inside = first < i && i < last;
            if (t.digits || (t.country && !inside)) && self.s_credit[i] == 0.0 {
                continue;
            }
            ws += t.w;
            ms += t.w * self.s_credit[i];
        }
        (ws, ms)
    }

    /// Phrase: every non-optional name word paired exactly, in order, with
    /// only optional words between (and at least one paired).
    fn is_phrase(&self, s: &[STok<'_>], name_text: &[&str]) -> bool {
        let mut last: Option<usize> = None;
        let mut count = 0;
        for (j, &text) in name_text.iter().enumerate() {
            let opt = crate::text::is_optional_word(text);
            match self.pair[j] {
                Some(i) if self.credit[j] >= 1.0 => {
                    if let Some(l) = last
                        && (i <= l || (l + 1..i).any(|k| !is_optional(&s[k])))
                    {
                        return false;
                    }
                    last = Some(i);
                    count += 1;
                }
                _ if opt => {}
                _ => return false,
            }
        }
        count > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(bounded_distance("salerno", "salento", 2), 2);
        assert_eq!(bounded_distance("science", "sciences", 1), 1);
        assert_eq!(bounded_distance("abc", "xyzuvw", 1), 2);
        assert_eq!(fuzzy_credit("universitat", "university"), FUZZY2);
        assert_eq!(fuzzy_credit("salerno", "salento"), 0.0);
        assert_eq!(fuzzy_credit("erevan", "yerevan"), 0.0);
    }
}
