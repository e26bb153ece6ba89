//! Splitting an affiliation string into *parts* (between commas,
//! semicolons, brackets, slashes, spaced dashes, line breaks) and tokens,
//! and forming the *substrings* that are matched: every part alone and
//! runs of two or three adjacent parts ("University of California, San
//! Francisco" spans two parts).
//!
//! Tokens come from [`crate::text::for_each_token`] (the canonical folding):
//! words and no-space-script unigrams; bigrams are not used here. A few
//! common abbreviations are expanded (`Univ.` → `university`, `Dept` →
//! `department` …).

use std::ops::Range;

use crate::text::{self, TokenKind};

/// Longest input considered, in bytes (longer input is cut at a character
/// boundary: real affiliation strings are far shorter).
pub const MAX_BYTES: usize = 1200;
/// Most parts considered.
pub const MAX_PARTS: usize = 40;
/// Most tokens in one substring.
pub const MAX_SUB_TOKENS: usize = 40;
/// Longest run of adjacent parts combined into one substring.
pub const MAX_RUN: usize = 3;

/// One token of the input.
#[derive(Clone, Debug)]
pub struct Tok {
    /// Folded text (abbreviations expanded).
    pub text: String,
    /// Byte range in the (cut) input.
    pub start: usize,
    /// End of the byte range.
    pub end: usize,
    /// Part index.
    pub part: usize,
    /// Uppercase letters in the original token.
    pub caps: usize,
    /// The original token has no lowercase letter.
    pub all_caps: bool,
    /// Only digits.
    pub digits: bool,
    /// A word a name may omit ([`text::is_optional_word`]).
    pub optional: bool,
}

/// The parsed input.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// The input, cut to [`MAX_BYTES`].
    pub text: String,
    /// All tokens, in order.
    pub toks: Vec<Tok>,
    /// Token range of each part.
    pub parts: Vec<Range<usize>>,
    /// Byte range of each part.
    pub part_bytes: Vec<Range<usize>>,
}

/// A substring: a run of adjacent parts.
#[derive(Clone, Debug)]
pub struct Sub {
    /// Part range.
    pub parts: Range<usize>,
    /// Token range (global token indices).
    pub toks: Range<usize>,
}

const ABBREVIATIONS: &[(&str, &str)] = &[
    ("acad", "academy"),
    ("assoc", "association"),
    ("coll", "college"),
    ("ctr", "center"),
    ("dept", "department"),
    ("govt", "government"),
    ("hosp", "hospital"),
    ("inst", "institute"),
    ("intl", "international"),
    ("lab", "laboratory"),
    ("labs", "laboratories"),
    ("natl", "national"),
    ("technol", "technology"),
    ("univ", "university"),
    ("universitaet", "universitat"),
];

fn is_separator(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | '|'
            | '\n'
            | '\r'
            | '\t'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '/'
            | '\\'
            | '"'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{3001}' // ideographic comma
            | '\u{FF0C}' // full-width comma
            | '\u{FF08}'
            | '\u{FF09}'
            | '\u{FF1B}'
            | '\u{060C}' // Arabic comma
    )
}

/// Cuts `s` to at most `max` bytes at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Byte ranges of the parts of `s`.
fn part_ranges(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        // A dash with spaces around it separates ("Institute – caesar").
        let spaced_dash = matches!(c, '-' | '\u{2013}' | '\u{2014}')
            && k > 0
            && chars[k - 1].1 == ' '
            && chars.get(k + 1).is_some_and(|x| x.1 == ' ');
        if is_separator(c) || spaced_dash {
            if i > start {
                out.push(start..i);
            }
            start = i + c.len_utf8();
        }
    }
    if s.len() > start {
        out.push(start..s.len());
    }
    out
}

/// Splits and tokenises an affiliation string.
pub fn parse(input: &str) -> Parsed {
    let replaced;
    let input = if input.contains("&amp;") {
        replaced = input.replace("&amp;", "&");
        replaced.as_str()
    } else {
        input
    };
    let text = cut(input, MAX_BYTES).to_string();
    let mut p = Parsed {
        text,
        ..Parsed::default()
    };
    for range in part_ranges(&p.text) {
        if p.parts.len() >= MAX_PARTS {
            break;
        }
        let part = p.parts.len();
        let first = p.toks.len();
        let slice = &p.text[range.clone()];
        text::for_each_token(slice, |t| {
            if t.kind == TokenKind::Bigram {
                return;
            }
            let orig = &slice[t.start..t.end];
            let caps = orig.chars().filter(|c| c.is_uppercase()).count();
            let all_caps = !orig.chars().any(char::is_lowercase);
            let folded = ABBREVIATIONS
                .binary_search_by(|(a, _)| (*a).cmp(t.text))
                .map_or(t.text, |k| ABBREVIATIONS[k].1);
            p.toks.push(Tok {
                text: folded.to_string(),
                start: range.start + t.start,
                end: range.start + t.end,
                part,
                caps,
                all_caps,
                digits: t.text.bytes().all(|b| b.is_ascii_digit()),
                optional: text::is_optional_word(folded),
            });
        });
        if p.toks.len() > first {
            p.parts.push(first..p.toks.len());
            p.part_bytes.push(range);
        }
    }
    p
}

impl Parsed {
    /// The substrings to match: each part, then runs of adjacent parts.
    pub fn substrings(&self) -> Vec<Sub> {
        let mut out = Vec::new();
        for len in 1..=MAX_RUN {
            for a in 0..self.parts.len() {
                let b = a + len;
                if b > self.parts.len() {
                    break;
                }
                let toks = self.parts[a].start..self.parts[b - 1].end;
                if toks.len() > MAX_SUB_TOKENS && len > 1 {
                    continue;
                }
                // A part of digits or optional words only is matched with
                // its neighbours, not alone.
                let meaningful = self.toks[toks.clone()]
                    .iter()
                    .any(|t| !t.digits && !t.optional);
                if !meaningful {
                    continue;
                }
                out.push(Sub { parts: a..b, toks });
            }
        }
        out
    }

    /// Original text of a substring (first part start to last part end).
    pub fn sub_text(&self, s: &Sub) -> &str {
        let a = self.part_bytes[s.parts.start].start;
        let b = self.part_bytes[s.parts.end - 1].end;
        self.text[a..b].trim()
    }

    /// Original text of token `i`.
    pub fn tok_text(&self, i: usize) -> &str {
        &self.text[self.toks[i].start..self.toks[i].end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_abbreviations() {
        let p = parse("Dept. of Physics, Univ. of Oxford (UO) – Lab / X; Oxford, UK");
        let parts: Vec<String> = p
            .parts
            .iter()
            .map(|r| {
                p.toks[r.clone()]
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            parts,
            [
                "department of physics",
                "university of oxford",
                "uo",
                "laboratory",
                "x",
                "oxford",
                "uk"
            ]
        );
        assert!(p.toks.iter().find(|t| t.text == "uk").unwrap().all_caps);
    }

    #[test]
    fn hostile_input() {
        assert!(parse("").toks.is_empty());
        assert!(parse(",,,;;;  ...").parts.is_empty());
        let long = "é".repeat(10_000);
        assert!(parse(&long).text.len() <= MAX_BYTES);
        assert!(parse("12345 67890").substrings().is_empty());
    }
}
