//! Analysers (how values and query words are cut into tokens) and the
//! wildcard matcher.
//!
//! TODO(text.rs): use crate::text — the search engineer's canonical `fold` and
//! tokeniser should replace [`fold_char`] and [`each_text_token`] once it
//! lands, so that keyword search and advanced search agree on what a word is.

/// Latin-1 Supplement + Latin Extended-A/B (U+00C0..=U+024F): the base
/// letter of each precomposed letter, `.` when there is none.
const LATIN_FOLD: &[u8; 400] =
    b"aaaaaa.ceeeeiiiidnooooo.ouuuuy..aaaaaa.ceeeeiiiidnooooo.ouuuuy.yaaaaaaccccccccdd\
ddeeeeeeeeeegggggggghhhhiiiiiiiiii..jjkk.llllllllllnnnnnn...oooooo..rrrrrrssssss\
ssttttttuuuuuuuuuuuuwwyyyzzzzzzsb......................i..l.....oo.............u\
u....zz......................aaiioouuuuuuuuuu.aaaa....ggkkoooo..j...gg..nnaa..oo\
aaaaeeeeiiiioooorrrruuuusstt..hh......aaeeooooooooyy......a...........ee........";

/// Latin Extended Additional (U+1E00..=U+1EFF, Vietnamese and others).
const LATIN_ADDITIONAL_FOLD: &[u8; 256] =
    b"aabbbbbbccddddddddddeeeeeeeeeeffgghhhhhhhhhhiiiikkkkkkllllllllmm\
mmmmnnnnnnnnoooooooopppprrrrrrrrssssssssssttttttttuuuuuuuuuuvvvv\
wwwwwwwwwwxxxxyyzzzzzzhtwy......aaaaaaaaaaaaaaaaaaaaaaaaeeeeeeee\
eeeeeeeeiiiioooooooooooooooooooooooouuuuuuuuuuuuuuyyyyyyyy......";

/// Combining marks that folding drops (decomposed accents).
fn is_combining_accent(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

// TODO(text.rs): use crate::text (its canonical `fold`) once it is settled.
/// Pushes the case- and accent-folded form of `c` (lower case, common Latin
/// and Greek diacritics removed, `ß` → `ss`, `æ` → `ae`, …).
pub(crate) fn fold_char(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    for l in c.to_lowercase() {
        if is_combining_accent(l) {
            continue;
        }
        let cp = l as u32;
        let table = match cp {
            0xC0..=0x24F => Some(LATIN_FOLD[(cp - 0xC0) as usize]),
            0x1E00..=0x1EFF => Some(LATIN_ADDITIONAL_FOLD[(cp - 0x1E00) as usize]),
            _ => None,
        };
        match (l, table) {
            ('ß', _) => out.push_str("ss"),
            ('æ' | 'ǽ' | 'ǣ', _) => out.push_str("ae"),
            ('œ', _) => out.push_str("oe"),
            ('þ', _) => out.push_str("th"),
            ('ĳ', _) => out.push_str("ij"),
            (_, Some(b)) if b != b'.' => out.push(b as char),
            ('ά', _) => out.push('α'),
            ('έ', _) => out.push('ε'),
            ('ή', _) => out.push('η'),
            ('ί' | 'ϊ' | 'ΐ', _) => out.push('ι'),
            ('ό', _) => out.push('ο'),
            ('ύ' | 'ϋ' | 'ΰ', _) => out.push('υ'),
            ('ώ', _) => out.push('ω'),
            ('ς', _) => out.push('σ'),
            _ => out.push(l),
        }
    }
}

/// Folds a whole string (see [`fold_char`]).
pub(crate) fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char(c, &mut out);
    }
    out
}

/// Whether `c` belongs to a word for the text analyser. Letters, digits and
/// the combining marks of scripts written with them are word characters;
/// whitespace and punctuation are not.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    if c.is_alphanumeric() || is_combining_accent(c) {
        return true;
    }
    match c {
        // Hebrew points, Arabic marks.
        '\u{0591}'..='\u{05BD}'
        | '\u{05BF}'
        | '\u{05C1}'..='\u{05C2}'
        | '\u{05C4}'..='\u{05C7}' => true,
        '\u{0610}'..='\u{061A}'
        | '\u{064B}'..='\u{065F}'
        | '\u{0670}'
        | '\u{06D6}'..='\u{06ED}' => true,
        // Indic scripts: everything but the dandas is part of a word.
        '\u{0900}'..='\u{0DFF}' => !matches!(c, '\u{0964}' | '\u{0965}'),
        // Thai, Lao, Myanmar, Khmer.
        '\u{0E00}'..='\u{0EFF}' => !matches!(c, '\u{0E3F}' | '\u{0E4F}' | '\u{0E5A}' | '\u{0E5B}'),
        '\u{1000}'..='\u{109F}' | '\u{1780}'..='\u{17FF}' => true,
        // Kana voicing marks.
        '\u{3099}'..='\u{309A}' => true,
        _ => false,
    }
}

/// Han ideographs and Hiragana are one token per character (as Lucene's
/// standard tokenizer does).
fn is_single_char_word(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{309F}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{3FFFF}')
}

// TODO(text.rs): use crate::text (its canonical tokeniser) once it is settled.
/// Calls `k` with each folded word of `s` (text analyser); stops and returns
/// `true` as soon as `k` does. `buf` is scratch space.
pub(crate) fn each_text_token(s: &str, buf: &mut String, k: &mut impl FnMut(&str) -> bool) -> bool {
    buf.clear();
    for c in s.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                buf.push(c.to_ascii_lowercase());
            } else if !buf.is_empty() {
                if k(buf) {
                    return true;
                }
                buf.clear();
            }
        } else if is_single_char_word(c) {
            if !buf.is_empty() && k(buf) {
                return true;
            }
            buf.clear();
            fold_char(c, buf);
            if k(buf) {
                return true;
            }
            buf.clear();
        } else if is_word_char(c) {
            fold_char(c, buf);
        } else if !buf.is_empty() {
            if k(buf) {
                return true;
            }
            buf.clear();
        }
    }
    !buf.is_empty() && k(buf)
}

/// Calls `k` with each lower-cased run of letters of `s` (the `simple`
/// analyser used for `domains` and `links.value`: digits and punctuation
/// separate words and are dropped).
pub(crate) fn each_letter_token(
    s: &str,
    buf: &mut String,
    k: &mut impl FnMut(&str) -> bool,
) -> bool {
    buf.clear();
    for c in s.chars() {
        if c.is_alphabetic() {
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        } else if !buf.is_empty() {
            if k(buf) {
                return true;
            }
            buf.clear();
        }
    }
    !buf.is_empty() && k(buf)
}

/// The words the text analyser (`names.value`, `relationships.label`, and
/// bare terms against those fields) finds in `s`: split on whitespace and
/// punctuation, lower-cased, common Latin and Greek diacritics removed; Han
/// ideographs and Hiragana are one word per character.
///
/// ```
/// use registry_core::advanced::text_tokens;
/// assert_eq!(text_tokens("Université Côte d'Azur"), ["universite", "cote", "d", "azur"]);
/// ```
pub fn text_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_text_token(s, &mut String::new(), &mut |t| {
        out.push(t.to_string());
        false
    });
    out
}

/// The words the `simple` analyser (`domains`, `links.value`) finds in `s`:
/// runs of letters, lower-cased; digits and punctuation separate words and
/// are dropped. Accents are kept.
///
/// ```
/// use registry_core::advanced::letter_tokens;
/// assert_eq!(letter_tokens("https://www.Uni-Bonn2.de"), ["https", "www", "uni", "bonn", "de"]);
/// ```
pub fn letter_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_letter_token(s, &mut String::new(), &mut |t| {
        out.push(t.to_string());
        false
    });
    out
}

/// One element of a wildcard pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GlobTok {
    /// A literal character.
    Lit(char),
    /// `?`: exactly one character.
    One,
    /// `*`: any run of characters, possibly empty.
    Many,
}

/// A compiled wildcard pattern. Matching is `O(len(value) × len(pattern))`
/// in the worst case (greedy leftmost placement of the `*`-separated
/// segments, which is exact for `*`/`?` patterns), never exponential.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Glob {
    /// Segments between `*`s; `None` is `?`.
    segs: Vec<Vec<Option<char>>>,
    /// Whether the pattern contains a `*` at all.
    has_star: bool,
    /// Characters a value needs at least.
    min_len: usize,
}

impl Glob {
    /// Compiles a pattern; `map` transforms each literal character (folding
    /// for the text analyser, lower-casing for the simple one).
    pub(crate) fn new(pattern: &[GlobTok], map: &dyn Fn(char, &mut String)) -> Glob {
        let mut segs = vec![Vec::new()];
        let mut buf = String::new();
        let mut prev_many = false;
        for t in pattern {
            match *t {
                // `**` is the same as `*`.
                GlobTok::Many if prev_many => {}
                GlobTok::Many => segs.push(Vec::new()),
                GlobTok::One => segs.last_mut().unwrap().push(None),
                GlobTok::Lit(c) => {
                    buf.clear();
                    map(c, &mut buf);
                    segs.last_mut().unwrap().extend(buf.chars().map(Some));
                }
            }
            prev_many = *t == GlobTok::Many;
        }
        let has_star = segs.len() > 1;
        let min_len = segs.iter().map(Vec::len).sum();
        Glob {
            segs,
            has_star,
            min_len,
        }
    }

    /// The literal characters every match starts with (up to the first
    /// `*` or `?`), and whether that is the whole pattern (no wildcard).
    pub(crate) fn literal_prefix(&self) -> (String, bool) {
        let first = &self.segs[0];
        let prefix: String = first.iter().map_while(|c| *c).collect();
        let whole = !self.has_star && prefix.chars().count() == first.len();
        (prefix, whole)
    }

    /// Literal runs (between `*` and `?`) that every matching value
    /// contains as substrings: a cheap pre-check before [`Glob::matches`].
    pub(crate) fn required_runs(&self) -> Vec<String> {
        let mut out = Vec::new();
        for seg in &self.segs {
            let mut run = String::new();
            for c in seg {
                match c {
                    Some(c) => run.push(*c),
                    None if !run.is_empty() => out.push(std::mem::take(&mut run)),
                    None => {}
                }
            }
            if !run.is_empty() {
                out.push(run);
            }
        }
        out
    }

    /// Whether the whole of `s` matches. `chars` is scratch space.
    pub(crate) fn matches(&self, s: &str, chars: &mut Vec<char>) -> bool {
        chars.clear();
        chars.extend(s.chars());
        let s = &chars[..];
        if s.len() < self.min_len {
            return false;
        }
        let seg_at = |seg: &[Option<char>], at: usize| {
            seg.iter()
                .zip(&s[at..at + seg.len()])
                .all(|(p, c)| p.is_none_or(|p| p == *c))
        };
        if !self.has_star {
            return s.len() == self.segs[0].len() && seg_at(&self.segs[0], 0);
        }
        let first = &self.segs[0];
        let last = &self.segs[self.segs.len() - 1];
        if !seg_at(first, 0) {
            return false;
        }
        let mut pos = first.len();
        let end = s.len() - last.len();
        if end < pos || !seg_at(last, end) {
            return false;
        }
        for seg in &self.segs[1..self.segs.len() - 1] {
            if pos + seg.len() > end {
                return false;
            }
            let Some(found) = (pos..=end - seg.len()).find(|&i| seg_at(seg, i)) else {
                return false;
            };
            pos = found + seg.len();
        }
        true
    }
}

/// Identity mapping for case-sensitive (keyword) patterns.
pub(crate) fn map_keep(c: char, out: &mut String) {
    out.push(c);
}

/// Lower-casing for the simple analyser.
pub(crate) fn map_lower(c: char, out: &mut String) {
    out.extend(c.to_lowercase());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(p: &str) -> Glob {
        let toks: Vec<GlobTok> = p
            .chars()
            .map(|c| match c {
                '*' => GlobTok::Many,
                '?' => GlobTok::One,
                c => GlobTok::Lit(c),
            })
            .collect();
        Glob::new(&toks, &map_keep)
    }

    /// Reference matcher (exponential, only for tiny inputs).
    fn slow(p: &[char], s: &[char]) -> bool {
        match p.first() {
            None => s.is_empty(),
            Some('*') => (0..=s.len()).any(|i| slow(&p[1..], &s[i..])),
            Some('?') => !s.is_empty() && slow(&p[1..], &s[1..]),
            Some(c) => s.first() == Some(c) && slow(&p[1..], &s[1..]),
        }
    }

    #[test]
    fn glob_agrees_with_reference() {
        let alphabet = ['a', 'b', '*', '?'];
        let mut x: u64 = 0x9E3779B97F4A7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut scratch = Vec::new();
        for _ in 0..20_000 {
            let pl = (next() % 7) as usize;
            let sl = (next() % 8) as usize;
            let p: String = (0..pl).map(|_| alphabet[(next() % 4) as usize]).collect();
            let s: String = (0..sl).map(|_| alphabet[(next() % 2) as usize]).collect();
            let pc: Vec<char> = p.chars().collect();
            let sc: Vec<char> = s.chars().collect();
            assert_eq!(
                glob(&p).matches(&s, &mut scratch),
                slow(&pc, &sc),
                "{p:?} vs {s:?}"
            );
        }
    }

    #[test]
    fn glob_basics() {
        let mut b = Vec::new();
        assert!(glob("*").matches("", &mut b));
        assert!(glob("**").matches("abc", &mut b));
        assert!(glob("a*c").matches("abbc", &mut b));
        assert!(!glob("a*c").matches("abbcd", &mut b));
        assert!(glob("?é*").matches("xé", &mut b));
        assert!(!glob("aa*aa").matches("aaa", &mut b));
        assert!(glob("*a*a*").matches("xaxa", &mut b));
    }

    #[test]
    fn folding() {
        assert_eq!(fold("Université Côte d'Azur"), "universite cote d'azur");
        assert_eq!(fold("Đại học Quốc gia Hà Nội"), "dai hoc quoc gia ha noi");
        assert_eq!(
            fold("Straße Łódź Øresund Æbeltoft"),
            "strasse lodz oresund aebeltoft"
        );
        assert_eq!(fold("ΠΑΝΕΠΙΣΤΉΜΙΟ Αθηνών"), "πανεπιστημιο αθηνων");
        assert_eq!(fold("İstanbul Üniversitesi"), "istanbul universitesi");
        assert_eq!(fold("e\u{301}cole"), "ecole");
    }

    #[test]
    fn tokenising() {
        assert_eq!(text_tokens("東京大学"), ["東", "京", "大", "学"]);
        assert_eq!(
            text_tokens("O'Brien & Daughters"),
            ["o", "brien", "daughters"]
        );
        assert_eq!(text_tokens("हिन्दी विश्वविद्यालय"), ["हिन्दी", "विश्वविद्यालय"]);
        assert_eq!(text_tokens("grid.4991.5"), ["grid", "4991", "5"]);
        assert_eq!(letter_tokens("covid19.example"), ["covid", "example"]);
        assert!(text_tokens(" -- ").is_empty());
    }
}
