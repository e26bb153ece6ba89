//! Cuts an expression into tokens. Positions are character (not byte)
//! offsets into the expression.

use super::AdvancedError;
use super::analysis::GlobTok;

/// A comparison operator (`field:>x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
}

/// One end of a range as written; `None` is an open end (`*`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RangeEnd {
    pub value: Option<String>,
    pub pos: usize,
}

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A word, escapes resolved; unescaped `*`/`?` are wildcards.
    Word(Vec<GlobTok>),
    /// A quoted phrase, escapes resolved.
    Phrase(String),
    LParen,
    RParen,
    Colon,
    And,
    Or,
    Not,
    Plus,
    Minus,
    Range {
        lower: RangeEnd,
        upper: RangeEnd,
        lower_inclusive: bool,
        upper_inclusive: bool,
    },
    Cmp(Cmp),
    /// `^2`: a relevance boost, accepted and ignored (results are not scored).
    Boost,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub pos: usize,
}

/// The literal text of a word, or `None` when it has wildcards.
pub(crate) fn literal(word: &[GlobTok]) -> Option<String> {
    word.iter()
        .map(|t| match t {
            GlobTok::Lit(c) => Some(*c),
            _ => None,
        })
        .collect()
}

/// The word as written (wildcards as `*`/`?`), for messages.
pub(crate) fn display(word: &[GlobTok]) -> String {
    word.iter()
        .map(|t| match t {
            GlobTok::Lit(c) => *c,
            GlobTok::One => '?',
            GlobTok::Many => '*',
        })
        .collect()
}

fn ends_word(c: char, value_mode: bool) -> bool {
    c.is_whitespace()
        || matches!(c, '(' | ')' | '"' | '[' | ']' | '{' | '}' | '^' | '~')
        || (c == ':' && !value_mode)
}

struct Lexer<'a> {
    s: &'a [char],
    i: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.s.get(self.i + ahead).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek(0).is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    /// Reads a word; returns it and whether it was written without any
    /// escape.
    fn word(&mut self, value_mode: bool) -> Result<(Vec<GlobTok>, bool), AdvancedError> {
        let mut out = Vec::new();
        let mut plain = true;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => {
                    let Some(next) = self.peek(1) else {
                        return Err(AdvancedError::syntax(
                            self.i,
                            "the expression ends with a lone backslash",
                            Some("write \\\\ for a backslash"),
                        ));
                    };
                    out.push(GlobTok::Lit(next));
                    plain = false;
                    self.i += 2;
                    continue;
                }
                c if ends_word(c, value_mode) => break,
                '*' => out.push(GlobTok::Many),
                '?' => out.push(GlobTok::One),
                c => out.push(GlobTok::Lit(c)),
            }
            self.i += 1;
        }
        Ok((out, plain))
    }

    /// Reads a quoted string starting at the opening quote.
    fn quoted(&mut self) -> Result<String, AdvancedError> {
        let start = self.i;
        self.i += 1;
        let mut out = String::new();
        loop {
            match self.peek(0) {
                None => {
                    return Err(AdvancedError::syntax(
                        start,
                        "unbalanced quote: this '\"' is never closed",
                        Some("write \\\" for a quotation mark"),
                    ));
                }
                Some('"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some('\\') if self.peek(1).is_some() => {
                    out.push(self.peek(1).unwrap_or('\\'));
                    self.i += 2;
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn range_end(&mut self, open: usize) -> Result<RangeEnd, AdvancedError> {
        self.skip_ws();
        let pos = self.i;
        match self.peek(0) {
            None => Err(unclosed_range(open)),
            Some('"') => Ok(RangeEnd {
                value: Some(self.quoted()?),
                pos,
            }),
            Some(']' | '}') => Err(AdvancedError::syntax(
                pos,
                "a range bound is missing",
                Some("write * for an open end"),
            )),
            Some(_) => {
                let mut out = String::new();
                let mut plain = true;
                while let Some(c) = self.peek(0) {
                    if c.is_whitespace() || c == ']' || c == '}' {
                        break;
                    }
                    if c == '\\' {
                        let Some(next) = self.peek(1) else {
                            return Err(unclosed_range(open));
                        };
                        out.push(next);
                        plain = false;
                        self.i += 2;
                    } else {
                        out.push(c);
                        self.i += 1;
                    }
                }
                let open_end = plain && out == "*";
                Ok(RangeEnd {
                    value: (!open_end).then_some(out),
                    pos,
                })
            }
        }
    }

    fn range(&mut self) -> Result<Tok, AdvancedError> {
        let open = self.i;
        let lower_inclusive = self.peek(0) == Some('[');
        self.i += 1;
        let lower = self.range_end(open)?;
        self.skip_ws();
        let to_at = self.i;
        if self.peek(0) == Some('T')
            && self.peek(1) == Some('O')
            && self.peek(2).is_some_and(char::is_whitespace)
        {
            self.i += 2;
        } else if self.peek(0).is_none()
            || (self.peek(0) == Some('T') && self.peek(1) == Some('O') && self.peek(2).is_none())
        {
            return Err(unclosed_range(open));
        } else {
            return Err(AdvancedError::syntax(
                to_at,
                "expected TO in the range",
                Some("a range is written [from TO to] or {from TO to}"),
            ));
        }
        let upper = self.range_end(open)?;
        self.skip_ws();
        let upper_inclusive = match self.peek(0) {
            Some(']') => true,
            Some('}') => false,
            None => return Err(unclosed_range(open)),
            Some(_) => {
                return Err(AdvancedError::syntax(
                    self.i,
                    "expected ] or } to close the range",
                    None,
                ));
            }
        };
        self.i += 1;
        Ok(Tok::Range {
            lower,
            upper,
            lower_inclusive,
            upper_inclusive,
        })
    }
}

fn unclosed_range(open: usize) -> AdvancedError {
    AdvancedError::syntax(
        open,
        "unbalanced range: this bracket is never closed",
        Some("a range is written [from TO to] or {from TO to}"),
    )
}

/// Tokenises `s`.
pub(crate) fn lex(s: &[char]) -> Result<Vec<Token>, AdvancedError> {
    let mut lx = Lexer { s, i: 0 };
    let mut out: Vec<Token> = Vec::new();
    // After `field:` (and `field:>`) a value follows, in which `:` and a
    // leading `+ - !` are ordinary characters.
    let mut value_mode = false;
    loop {
        lx.skip_ws();
        let pos = lx.i;
        let Some(c) = lx.peek(0) else { break };
        let mut next_value_mode = false;
        let tok = match c {
            '(' => {
                lx.i += 1;
                Tok::LParen
            }
            ')' => {
                lx.i += 1;
                Tok::RParen
            }
            ':' if !value_mode => {
                lx.i += 1;
                next_value_mode = true;
                Tok::Colon
            }
            '"' => Tok::Phrase(lx.quoted()?),
            '[' | '{' => lx.range()?,
            ']' | '}' => {
                return Err(AdvancedError::syntax(
                    pos,
                    format!("unexpected '{c}'"),
                    Some(
                        "a range is written [from TO to] or {from TO to}; write \\] for a bracket",
                    ),
                ));
            }
            '^' => {
                lx.i += 1;
                let digits = lx.i;
                while lx.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '.') {
                    lx.i += 1;
                }
                if lx.i == digits {
                    return Err(AdvancedError::syntax(
                        pos,
                        "'^' must be followed by a boost number",
                        Some("write \\^ for a caret"),
                    ));
                }
                Tok::Boost
            }
            '~' => {
                return Err(AdvancedError::syntax(
                    pos,
                    "fuzzy and proximity searches (~) are not supported",
                    Some("write \\~ for a tilde"),
                ));
            }
            '+' if !value_mode => {
                lx.i += 1;
                Tok::Plus
            }
            '-' if !value_mode => {
                lx.i += 1;
                Tok::Minus
            }
            '!' if !value_mode => {
                lx.i += 1;
                Tok::Not
            }
            '&' if !value_mode && lx.peek(1) == Some('&') => {
                lx.i += 2;
                Tok::And
            }
            '|' if !value_mode && lx.peek(1) == Some('|') => {
                lx.i += 2;
                Tok::Or
            }
            '>' | '<' => {
                let eq = lx.peek(1) == Some('=');
                lx.i += 1 + usize::from(eq);
                next_value_mode = true;
                Tok::Cmp(match (c, eq) {
                    ('>', false) => Cmp::Gt,
                    ('>', true) => Cmp::Ge,
                    ('<', false) => Cmp::Lt,
                    _ => Cmp::Le,
                })
            }
            _ => {
                let (word, plain) = lx.word(value_mode)?;
                if word.is_empty() {
                    // Only reachable for characters that end words; all of
                    // those are handled above, but never loop forever.
                    return Err(AdvancedError::syntax(
                        pos,
                        format!("unexpected '{c}'"),
                        None,
                    ));
                }
                let text = display(&word);
                if word.len() >= 2
                    && word.first() == Some(&GlobTok::Lit('/'))
                    && word.last() == Some(&GlobTok::Lit('/'))
                    && s[pos] == '/'
                {
                    return Err(AdvancedError::syntax(
                        pos,
                        "regular expressions (/.../) are not supported",
                        Some("write \\/ for a slash"),
                    ));
                }
                match (plain, text.as_str()) {
                    (true, "AND") => Tok::And,
                    (true, "OR") => Tok::Or,
                    (true, "NOT") => Tok::Not,
                    _ => Tok::Word(word),
                }
            }
        };
        value_mode = next_value_mode;
        out.push(Token { tok, pos });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let chars: Vec<char> = s.chars().collect();
        lex(&chars).unwrap().into_iter().map(|t| t.tok).collect()
    }

    fn lit(s: &str) -> Tok {
        Tok::Word(s.chars().map(GlobTok::Lit).collect())
    }

    #[test]
    fn words_operators_and_values() {
        assert_eq!(
            toks("a AND b && c || -d !e +f"),
            [
                lit("a"),
                Tok::And,
                lit("b"),
                Tok::And,
                lit("c"),
                Tok::Or,
                Tok::Minus,
                lit("d"),
                Tok::Not,
                lit("e"),
                Tok::Plus,
                lit("f")
            ]
        );
        assert_eq!(
            toks("links.value:https://x.org/a-b"),
            [lit("links.value"), Tok::Colon, lit("https://x.org/a-b")]
        );
        assert_eq!(
            toks(r"links.value:https\://x.org"),
            [lit("links.value"), Tok::Colon, lit("https://x.org")]
        );
        assert_eq!(toks("lat:-33.5"), [lit("lat"), Tok::Colon, lit("-33.5")]);
        assert_eq!(toks(r"\AND"), [lit("AND")]);
        assert_eq!(
            toks("a*b?"),
            [Tok::Word(vec![
                GlobTok::Lit('a'),
                GlobTok::Many,
                GlobTok::Lit('b'),
                GlobTok::One
            ])]
        );
        assert_eq!(
            toks(r"a\*"),
            [Tok::Word(vec![GlobTok::Lit('a'), GlobTok::Lit('*')])]
        );
        assert_eq!(toks(r#""a \"b\" c""#), [Tok::Phrase("a \"b\" c".into())]);
        assert_eq!(toks("x^2"), [lit("x"), Tok::Boost]);
    }

    #[test]
    fn ranges() {
        assert_eq!(
            toks("d:[2024-12-27 TO *}"),
            [
                lit("d"),
                Tok::Colon,
                Tok::Range {
                    lower: RangeEnd {
                        value: Some("2024-12-27".into()),
                        pos: 3
                    },
                    upper: RangeEnd {
                        value: None,
                        pos: 17
                    },
                    lower_inclusive: true,
                    upper_inclusive: false
                }
            ]
        );
        for bad in ["[a TO b", "[a b]", "[a TO ]", "a]", "[ TO b]", "[a TO", "["] {
            let chars: Vec<char> = bad.chars().collect();
            assert!(lex(&chars).is_err(), "{bad}");
        }
    }
}
