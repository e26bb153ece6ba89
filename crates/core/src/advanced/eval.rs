//! Evaluation of a parsed query against one record.

use std::ops::Bound;

use super::analysis::{each_letter_token, each_text_token};
use super::fields::{Field, FieldKind, any_num, any_str};
use super::parser::parse_date;
use super::{Clause, Node, Pattern, Predicate, Range, RangeBounds, Target, Term};
use crate::model::Record;

/// Reusable buffers, so evaluation allocates little.
#[derive(Default)]
pub(crate) struct Scratch {
    buf: String,
    chars: Vec<char>,
    tokens: Vec<String>,
    found: Vec<bool>,
}

#[derive(Clone, Copy)]
enum Analyser {
    Text,
    Letters,
}

fn each_token(a: Analyser, s: &str, buf: &mut String, k: &mut impl FnMut(&str) -> bool) -> bool {
    match a {
        Analyser::Text => each_text_token(s, buf, k),
        Analyser::Letters => each_letter_token(s, buf, k),
    }
}

impl Node {
    pub(crate) fn eval(&self, r: &Record, s: &mut Scratch) -> bool {
        match self {
            Node::All => true,
            Node::And(items) => items.iter().all(|n| n.eval(r, s)),
            Node::Or(items) => items.iter().any(|n| n.eval(r, s)),
            Node::Not(inner) => !inner.eval(r, s),
            Node::Clause(c) => c.eval(r, s),
        }
    }
}

impl Clause {
    pub(crate) fn eval(&self, r: &Record, s: &mut Scratch) -> bool {
        match &self.target {
            Target::Field(f) => field_matches(*f, &self.predicate, r, s),
            Target::AllFields => Field::ALL
                .iter()
                .any(|f| field_matches(*f, &self.predicate, r, s)),
            Target::Fields(fs) => fs.iter().any(|f| field_matches(*f, &self.predicate, r, s)),
        }
    }
}

fn in_bounds<T: PartialOrd>(v: &T, lo: &Bound<T>, hi: &Bound<T>) -> bool {
    (match lo {
        Bound::Included(b) => v >= b,
        Bound::Excluded(b) => v > b,
        Bound::Unbounded => true,
    }) && (match hi {
        Bound::Included(b) => v <= b,
        Bound::Excluded(b) => v < b,
        Bound::Unbounded => true,
    })
}

/// A record's date as `yyyymmdd` (only full dates count).
pub(crate) fn record_date(v: &str) -> Option<u32> {
    parse_date(v).filter(|(a, b)| a == b).map(|(a, _)| a)
}

fn field_matches(f: Field, p: &Predicate, r: &Record, s: &mut Scratch) -> bool {
    let kind = f.kind();
    match p {
        Predicate::Exists => any_str(r, f, &mut |_| true) || any_num(r, f, &mut |_| true),
        Predicate::Term(t) | Predicate::Phrase(t) => match kind {
            FieldKind::Keyword => keyword_equals(f, t, r),
            FieldKind::Text | FieldKind::Letters => {
                let (a, words) = if kind == FieldKind::Text {
                    (Analyser::Text, &t.words)
                } else {
                    (Analyser::Letters, &t.letters)
                };
                if matches!(p, Predicate::Phrase(_)) {
                    phrase(f, a, words, r, s)
                } else {
                    all_words(f, a, words, r, s)
                }
            }
            FieldKind::Integer | FieldKind::Float => {
                t.number.is_some_and(|n| any_num(r, f, &mut |v| v == n))
            }
            FieldKind::Date => t.date.is_some_and(|(a, b)| {
                any_str(r, f, &mut |v| {
                    record_date(v).is_some_and(|d| a <= d && d <= b)
                })
            }),
        },
        Predicate::Wildcard(pat) => wildcard(f, pat, r, s),
        Predicate::Range(range) => in_range(f, range, r, s),
    }
}

fn keyword_equals(f: Field, t: &Term, r: &Record) -> bool {
    let alias = t.aliases.iter().find(|(g, _)| *g == f).map(|(_, a)| *a);
    let id = match f {
        Field::Id | Field::RelationshipsId => t.id_url.as_deref(),
        _ => None,
    };
    any_str(r, f, &mut |v| {
        v == t.text || alias.is_some_and(|a| a == v) || id.is_some_and(|i| i == v)
    })
}

/// Every word occurs somewhere in the field (any of its values).
fn all_words(f: Field, a: Analyser, words: &[String], r: &Record, s: &mut Scratch) -> bool {
    if words.is_empty() {
        return false;
    }
    let Scratch { buf, found, .. } = s;
    found.clear();
    found.resize(words.len(), false);
    let mut missing = words.len();
    any_str(r, f, &mut |v| {
        each_token(a, v, buf, &mut |tok| {
            for (w, seen) in words.iter().zip(found.iter_mut()) {
                if !*seen && w == tok {
                    *seen = true;
                    missing -= 1;
                }
            }
            missing == 0
        })
    })
}

/// The words occur consecutively in one value.
fn phrase(f: Field, a: Analyser, words: &[String], r: &Record, s: &mut Scratch) -> bool {
    if words.is_empty() {
        return false;
    }
    let Scratch { buf, tokens, .. } = s;
    any_str(r, f, &mut |v| {
        let mut n = 0;
        each_token(a, v, buf, &mut |tok| {
            if n < tokens.len() {
                tokens[n].clear();
                tokens[n].push_str(tok);
            } else {
                tokens.push(tok.to_string());
            }
            n += 1;
            false
        });
        tokens[..n].windows(words.len()).any(|w| w == words)
    })
}

fn wildcard(f: Field, pat: &Pattern, r: &Record, s: &mut Scratch) -> bool {
    let Scratch { buf, chars, .. } = s;
    match f.kind() {
        FieldKind::Keyword => any_str(r, f, &mut |v| pat.exact.matches(v, chars)),
        FieldKind::Text => any_str(r, f, &mut |v| {
            each_text_token(v, buf, &mut |tok| pat.folded.matches(tok, chars))
        }),
        FieldKind::Letters => any_str(r, f, &mut |v| {
            each_letter_token(v, buf, &mut |tok| pat.lower.matches(tok, chars))
        }),
        FieldKind::Integer | FieldKind::Float | FieldKind::Date => false,
    }
}

fn in_range(f: Field, range: &Range, r: &Record, s: &mut Scratch) -> bool {
    match &range.bounds {
        RangeBounds::Number(lo, hi) => any_num(r, f, &mut |v| in_bounds(&v, lo, hi)),
        RangeBounds::Date(lo, hi) => any_str(r, f, &mut |v| {
            record_date(v).is_some_and(|d| in_bounds(&d, lo, hi))
        }),
        RangeBounds::Text(lo, hi) => {
            let lo = lo.as_ref().map(String::as_str);
            let hi = hi.as_ref().map(String::as_str);
            let buf = &mut s.buf;
            match f.kind() {
                FieldKind::Text => any_str(r, f, &mut |v| {
                    each_text_token(v, buf, &mut |tok| in_bounds(&tok, &lo, &hi))
                }),
                FieldKind::Letters => any_str(r, f, &mut |v| {
                    each_letter_token(v, buf, &mut |tok| in_bounds(&tok, &lo, &hi))
                }),
                _ => any_str(r, f, &mut |v| in_bounds(&v, &lo, &hi)),
            }
        }
    }
}
