//! The `query` parameter's syntax (E2): a safe subset of the Lucene query
//! string upstream passes to Elasticsearch unchecked.
//!
//! Supported:
//!
//! * bare words, OR-ed (`a b` matches either, best matches first);
//! * `"…"`: an exact phrase (optionally followed by `~N`, which relaxes it
//!   to "all words in one name");
//! * `\x`: the character `x` literally (for every reserved character
//!   `+ - = && || > < ! ( ) { } [ ] ^ " ~ * ? : \ /`);
//! * `+word` / `-word` / `!word`: required / excluded; `AND`, `OR`, `NOT`,
//!   `&&`, `||` between terms;
//! * `word*`: prefix; `word~` (or `~1`, `~2`): fuzzy (edit distance 1 for
//!   3–5 characters, 2 above, like Elasticsearch's `AUTO`).
//!
//! A `-` inside a word is a word separator, as in upstream (`Julius-Maximilians`).
//! Every other unescaped reserved character (`( ) { } [ ] ^ : / = < > ?`,
//! a `*` or `~` not at the end of a word, an unterminated quote, a trailing
//! backslash, a dangling operator) is a 400 error that names it and its
//! position — upstream answers these with an HTML 500 page.

/// How a clause contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occur {
    /// Optional; adds to the score.
    Should,
    /// Required.
    Must,
    /// Excludes the record.
    MustNot,
}

/// One clause of a parsed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClauseKind {
    /// A bare word (may tokenise to several tokens, e.g. `a-b`).
    Term {
        /// The text with escapes resolved.
        text: String,
        /// Ends with `*`.
        prefix: bool,
        /// Ends with `~`.
        fuzzy: bool,
    },
    /// A quoted phrase.
    Phrase {
        /// The text inside the quotes with escapes resolved.
        text: String,
        /// Followed by `~N`: all words in one name, any order.
        sloppy: bool,
    },
}

/// A clause with its occurrence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// Should, must or must not.
    pub occur: Occur,
    /// What to match.
    pub kind: ClauseKind,
}

/// A parsed `query`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    /// The clauses, in query order.
    pub clauses: Vec<Clause>,
}

enum Item {
    Clause(Clause),
    And,
    Or,
    Not,
}

const ILLEGAL: &[char] = &[
    '(', ')', '{', '}', '[', ']', '^', ':', '/', '=', '<', '>', '?',
];

fn reserved_error(q: &str, c: char, pos: usize) -> String {
    format!(
        "query '{q}' contains the reserved character '{c}' at position {}; escape it with a backslash (\\{c}) to search for it literally",
        pos + 1
    )
}

/// Escapes every reserved character with a backslash, as clients should
/// before sending free text as `query`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if "+-=&|><!(){}[]^\"~*?:\\/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The text with every backslash escape resolved (`\\x` → `x`): what a
/// client meant before it escaped its free text.
pub fn unescape(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    let mut chars = q.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// Parses a query. `Err` is the 400 message.
pub fn parse(q: &str) -> Result<ParsedQuery, String> {
    let items = lex(q)?;
    Ok(ParsedQuery {
        clauses: resolve(q, items)?,
    })
}

/// The query's items in order: clauses (each with the occurrence its
/// `+`/`-`/`!` gave) and the operators `&&`, `||`, `AND`, `OR`, `NOT`.
fn lex(q: &str) -> Result<Vec<Item>, String> {
    let chars: Vec<char> = q.chars().collect();
    let mut items: Vec<Item> = Vec::new();
    let mut i = 0;
    let mut pending: Option<Occur> = None;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // Operators at the start of a clause.
        if c == '+' || c == '-' || c == '!' {
            let next = chars.get(i + 1).copied();
            if next.is_none_or(char::is_whitespace) {
                // A lone `+`/`-`/`!`: punctuation, not an operator.
                i += 1;
                continue;
            }
            pending = Some(if c == '+' {
                Occur::Must
            } else {
                Occur::MustNot
            });
            i += 1;
            continue;
        }
        if (c == '&' || c == '|') && chars.get(i + 1) == Some(&c) {
            items.push(if c == '&' { Item::And } else { Item::Or });
            i += 2;
            continue;
        }
        let occur = pending.take().unwrap_or(Occur::Should);
        if c == '"' {
            let (text, sloppy, end) = phrase_at(q, &chars, i)?;
            items.push(Item::Clause(Clause {
                occur,
                kind: ClauseKind::Phrase { text, sloppy },
            }));
            i = end;
            continue;
        }
        let start = i;
        let w = word_at(q, &chars, i)?;
        i = w.end;
        if !w.escaped_any && !w.prefix && !w.fuzzy && occur == Occur::Should {
            let word: String = chars[start..i].iter().collect();
            let op = match word.as_str() {
                "AND" => Some(Item::And),
                "OR" => Some(Item::Or),
                "NOT" => Some(Item::Not),
                _ => None,
            };
            if let Some(op) = op {
                items.push(op);
                continue;
            }
        }
        if w.text.is_empty() {
            continue;
        }
        items.push(Item::Clause(Clause {
            occur,
            kind: ClauseKind::Term {
                text: w.text,
                prefix: w.prefix,
                fuzzy: w.fuzzy,
            },
        }));
    }
    if pending.is_some() {
        return Err(format!(
            "query '{q}' ends with an operator; put a term after it"
        ));
    }
    Ok(items)
}

/// The quoted phrase opening at `chars[i]`: its text (escapes resolved),
/// whether it is sloppy (`"…"~n`), and where the query goes on. The phrase
/// must be closed and followed by a space or the end.
fn phrase_at(q: &str, chars: &[char], i: usize) -> Result<(String, bool, usize), String> {
    let mut text = String::new();
    let mut j = i + 1;
    let mut closed = false;
    while j < chars.len() {
        match chars[j] {
            '\\' => {
                let Some(&n) = chars.get(j + 1) else {
                    return Err(format!(
                        "query '{q}' ends with a backslash; escape it as \\\\ to search for it"
                    ));
                };
                text.push(n);
                j += 2;
            }
            '"' => {
                closed = true;
                j += 1;
                break;
            }
            other => {
                text.push(other);
                j += 1;
            }
        }
    }
    if !closed {
        return Err(format!(
            "query '{q}' has an unterminated quotation mark at position {}; close the phrase with \" or escape the quote as \\\"",
            i + 1
        ));
    }
    let mut sloppy = false;
    if chars.get(j) == Some(&'~') {
        sloppy = true;
        j += 1;
        while chars.get(j).is_some_and(char::is_ascii_digit) {
            j += 1;
        }
    }
    if let Some(&n) = chars.get(j)
        && !n.is_whitespace()
    {
        return Err(format!(
            "query '{q}' has a character right after a closing quotation mark at position {}; put a space after the phrase",
            j + 1
        ));
    }
    Ok((text, sloppy, j))
}

/// A bare word as read: its text (escapes resolved), its trailing `*` or
/// `~`, and where it ends.
struct Word {
    text: String,
    prefix: bool,
    fuzzy: bool,
    /// A character was escaped (so `AND` written `\AND` is a word).
    escaped_any: bool,
    end: usize,
}

/// The bare word at `chars[i]`: up to whitespace or a quote. A `*` only at
/// its end, a `~` (with digits) only at its end, and no reserved character
/// unescaped.
fn word_at(q: &str, chars: &[char], mut i: usize) -> Result<Word, String> {
    let mut w = Word {
        text: String::new(),
        prefix: false,
        fuzzy: false,
        escaped_any: false,
        end: i,
    };
    while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' {
        let c = chars[i];
        let at_end = |k: usize| chars.get(k).is_none_or(|n| n.is_whitespace());
        match c {
            '\\' => {
                let Some(&n) = chars.get(i + 1) else {
                    return Err(format!(
                        "query '{q}' ends with a backslash; escape it as \\\\ to search for it"
                    ));
                };
                w.text.push(n);
                w.escaped_any = true;
                i += 2;
                continue;
            }
            '*' if at_end(i + 1) && !w.text.is_empty() => {
                w.prefix = true;
            }
            '*' => {
                return Err(format!(
                    "query '{q}' has a '*' at position {} that is not at the end of a word; only trailing wildcards (word*) are supported, or escape it as \\*",
                    i + 1
                ));
            }
            '~' => {
                let mut k = i + 1;
                while chars.get(k).is_some_and(char::is_ascii_digit) {
                    k += 1;
                }
                if w.text.is_empty() || !at_end(k) {
                    return Err(reserved_error(q, c, i));
                }
                w.fuzzy = true;
                i = k;
                continue;
            }
            '&' | '|' if chars.get(i + 1) == Some(&c) => {
                return Err(reserved_error(q, c, i));
            }
            c if ILLEGAL.contains(&c) => return Err(reserved_error(q, c, i)),
            _ => w.text.push(c),
        }
        i += 1;
    }
    w.end = i;
    Ok(w)
}

/// The clauses with AND / OR / NOT resolved: `a AND b` makes both
/// required, `NOT a` excludes it; an operator without a term on either
/// side is an error.
fn resolve(q: &str, items: Vec<Item>) -> Result<Vec<Clause>, String> {
    let mut clauses: Vec<Clause> = Vec::new();
    let mut and_next = false;
    let mut not_next = false;
    let mut last_was_op: Option<&str> = None;
    for item in items {
        match item {
            Item::Clause(mut c) => {
                if not_next {
                    c.occur = Occur::MustNot;
                } else if and_next && c.occur == Occur::Should {
                    c.occur = Occur::Must;
                }
                and_next = false;
                not_next = false;
                last_was_op = None;
                clauses.push(c);
            }
            Item::And | Item::Or => {
                let name = if matches!(item, Item::And) {
                    "AND"
                } else {
                    "OR"
                };
                if clauses.is_empty() || last_was_op.is_some() {
                    return Err(format!(
                        "query '{q}' has the operator {name} without a term before it; escape it or quote it to search for the word"
                    ));
                }
                if matches!(item, Item::And) {
                    if let Some(prev) = clauses.last_mut()
                        && prev.occur == Occur::Should
                    {
                        prev.occur = Occur::Must;
                    }
                    and_next = true;
                }
                last_was_op = Some(name);
            }
            Item::Not => {
                not_next = true;
                last_was_op = Some("NOT");
            }
        }
    }
    if let Some(op) = last_was_op {
        return Err(format!(
            "query '{q}' ends with the operator {op}; put a term after it"
        ));
    }
    Ok(clauses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(occur: Occur, text: &str) -> Clause {
        Clause {
            occur,
            kind: ClauseKind::Term {
                text: text.into(),
                prefix: false,
                fuzzy: false,
            },
        }
    }

    #[test]
    fn words_phrases_operators() {
        let p = parse(r#"a "b c" +d -e NOT f g AND h"#).unwrap();
        assert_eq!(p.clauses[0], term(Occur::Should, "a"));
        assert_eq!(
            p.clauses[1].kind,
            ClauseKind::Phrase {
                text: "b c".into(),
                sloppy: false
            }
        );
        assert_eq!(p.clauses[2], term(Occur::Must, "d"));
        assert_eq!(p.clauses[3], term(Occur::MustNot, "e"));
        assert_eq!(p.clauses[4], term(Occur::MustNot, "f"));
        assert_eq!(p.clauses[5], term(Occur::Must, "g"));
        assert_eq!(p.clauses[6], term(Occur::Must, "h"));
    }

    #[test]
    fn escapes_and_errors() {
        let p = parse(r"\(Singapore\) a\:b \\").unwrap();
        assert_eq!(p.clauses[0], term(Occur::Should, "(Singapore)"));
        assert_eq!(p.clauses[1], term(Occur::Should, "a:b"));
        assert_eq!(p.clauses[2], term(Occur::Should, "\\"));
        for bad in [
            "(a", "a)", "a:b", "x/y", "\"open", "a\\", "a AND", "OR a", "*a", "a*b", "a^2", "?",
            "a && ", "foo~bar",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(
            parse(&escape(
                r#"Tallowmere Biologics, Ltd. (Singapore) a+b "q" \ / ~ * ? : ^"#
            ))
            .is_ok()
        );
        assert_eq!(parse("Julius-Maximilians").unwrap().clauses.len(), 1);
        assert!(matches!(
            parse("univ* wurzburg~").unwrap().clauses[..],
            [
                Clause {
                    kind: ClauseKind::Term { prefix: true, .. },
                    ..
                },
                Clause {
                    kind: ClauseKind::Term { fuzzy: true, .. },
                    ..
                }
            ]
        ));
    }
}
