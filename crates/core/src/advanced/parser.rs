//! Recursive-descent parser: tokens → [`Node`] tree, with every value
//! checked against its field.
//!
//! Precedence, loosest first: `OR` (`||`); `AND` (`&&`, or nothing between
//! two clauses); `NOT` (`!`, `-`) and `+`; then a clause, a `field:value`, or
//! a parenthesised group.

use std::ops::Bound;

use super::analysis::{self, Glob, GlobTok};
use super::fields::{self, Field, FieldKind};
use super::lexer::{self, Cmp, RangeEnd, Tok, Token};
use super::{
    AdvancedError, Clause, MAX_CLAUSES, MAX_DEPTH, Node, Pattern, Predicate, Range, RangeBounds,
    Target, Term,
};
use crate::id::RecordId;

pub(crate) struct Parser<'a> {
    toks: &'a [Token],
    i: usize,
    /// Position reported for "ended too early" errors.
    end: usize,
    clauses: usize,
}

fn starts_clause(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Word(_)
            | Tok::Phrase(_)
            | Tok::LParen
            | Tok::Not
            | Tok::Minus
            | Tok::Plus
            | Tok::Range { .. }
            | Tok::Cmp(_)
    )
}

fn op_name(t: &Tok) -> &'static str {
    match t {
        Tok::And => "AND",
        Tok::Or => "OR",
        Tok::Not => "NOT",
        Tok::Minus => "-",
        Tok::Plus => "+",
        _ => "operator",
    }
}

impl<'a> Parser<'a> {
    pub(crate) fn new(toks: &'a [Token], end: usize) -> Self {
        Parser {
            toks,
            i: 0,
            end,
            clauses: 0,
        }
    }

    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn peek_at(&self, ahead: usize) -> Option<&'a Tok> {
        self.toks.get(self.i + ahead).map(|t| &t.tok)
    }

    fn pos(&self) -> usize {
        self.toks.get(self.i).map_or(self.end, |t| t.pos)
    }

    /// The whole expression (the token list must not be empty).
    pub(crate) fn parse(mut self) -> Result<Node, AdvancedError> {
        let node = self.or(None, 0)?;
        match self.toks.get(self.i) {
            None => Ok(node),
            Some(Token {
                tok: Tok::RParen,
                pos,
            }) => Err(AdvancedError::syntax(
                *pos,
                "unbalanced parenthesis: this ')' has no matching '('",
                None,
            )),
            Some(t) => Err(AdvancedError::syntax(t.pos, "unexpected token", None)),
        }
    }

    fn dangling(&self, op_pos: usize, op: &Tok) -> AdvancedError {
        AdvancedError::syntax(
            op_pos,
            format!("operator {} has nothing after it", op_name(op)),
            None,
        )
    }

    fn or(&mut self, ctx: Option<&Target>, depth: usize) -> Result<Node, AdvancedError> {
        let mut alts = vec![self.and(ctx, depth)?];
        while let Some(op @ Tok::Or) = self.peek() {
            let op_pos = self.pos();
            self.i += 1;
            if !self.peek().is_some_and(starts_clause) {
                return Err(self.dangling(op_pos, op));
            }
            alts.push(self.and(ctx, depth)?);
        }
        Ok(Node::or(alts))
    }

    fn and(&mut self, ctx: Option<&Target>, depth: usize) -> Result<Node, AdvancedError> {
        let mut items = vec![self.unary(ctx, depth)?];
        loop {
            match self.peek() {
                Some(op @ Tok::And) => {
                    let op_pos = self.pos();
                    self.i += 1;
                    if !self.peek().is_some_and(starts_clause) {
                        return Err(self.dangling(op_pos, op));
                    }
                }
                Some(t) if starts_clause(t) => {}
                _ => break,
            }
            items.push(self.unary(ctx, depth)?);
        }
        Ok(Node::and(items))
    }

    fn unary(&mut self, ctx: Option<&Target>, depth: usize) -> Result<Node, AdvancedError> {
        if depth >= MAX_DEPTH {
            return Err(AdvancedError::too_complex(
                self.pos(),
                format!("the expression nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        match self.peek() {
            Some(op @ (Tok::Not | Tok::Minus | Tok::Plus)) => {
                let op_pos = self.pos();
                self.i += 1;
                if !self.peek().is_some_and(starts_clause) {
                    return Err(self.dangling(op_pos, op));
                }
                let inner = self.unary(ctx, depth + 1)?;
                Ok(if *op == Tok::Plus {
                    inner
                } else {
                    Node::Not(Box::new(inner))
                })
            }
            _ => self.primary(ctx, depth),
        }
    }

    fn skip_boost(&mut self) {
        if self.peek() == Some(&Tok::Boost) {
            self.i += 1;
        }
    }

    fn group(&mut self, ctx: Option<&Target>, depth: usize) -> Result<Node, AdvancedError> {
        let open = self.pos();
        self.i += 1; // (
        if depth + 1 >= MAX_DEPTH {
            return Err(AdvancedError::too_complex(
                open,
                format!("the expression nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        if self.peek() == Some(&Tok::RParen) {
            return Err(AdvancedError::syntax(open, "empty parentheses", None));
        }
        if self.peek().is_none() {
            return Err(unclosed(open));
        }
        let node = self.or(ctx, depth + 1)?;
        if self.peek() != Some(&Tok::RParen) {
            return Err(unclosed(open));
        }
        self.i += 1;
        self.skip_boost();
        Ok(node)
    }

    fn primary(&mut self, ctx: Option<&Target>, depth: usize) -> Result<Node, AdvancedError> {
        let pos = self.pos();
        let Some(tok) = self.peek() else {
            return Err(AdvancedError::syntax(
                pos,
                "the expression ends too early",
                None,
            ));
        };
        match tok {
            Tok::LParen => self.group(ctx, depth),
            Tok::RParen => Err(AdvancedError::syntax(
                pos,
                "unbalanced parenthesis: this ')' has no matching '('",
                None,
            )),
            Tok::And | Tok::Or => Err(AdvancedError::syntax(
                pos,
                format!("operator {} has nothing before it", op_name(tok)),
                None,
            )),
            Tok::Not | Tok::Minus | Tok::Plus => self.unary(ctx, depth),
            Tok::Colon => Err(AdvancedError::syntax(
                pos,
                "':' has no field name before it",
                Some("write \\: for a colon"),
            )),
            Tok::Boost => Err(AdvancedError::syntax(
                pos,
                "a boost (^) must follow a term",
                Some("write \\^ for a caret"),
            )),
            Tok::Range { .. } | Tok::Cmp(_) => match ctx {
                Some(target) => self.value(target.clone(), pos, depth),
                None => Err(AdvancedError::syntax(
                    pos,
                    "a range or comparison needs a field",
                    Some("write e.g. established:[1900 TO 1950] or established:>1900"),
                )),
            },
            Tok::Phrase(p) => {
                self.i += 1;
                self.skip_boost();
                let target = ctx.cloned().unwrap_or(Target::AllFields);
                let term = self.term(&target, p, pos)?;
                self.clause(target, Predicate::Phrase(term), pos)
            }
            Tok::Word(w) => {
                if self.peek_at(1) == Some(&Tok::Colon) {
                    return self.field_clause(w, pos, depth);
                }
                let target = ctx.cloned().unwrap_or(Target::AllFields);
                if let Some(text) = lexer::literal(w) {
                    // A run of plain words is one chunk: every word must
                    // match within one field (upstream's best_fields + AND).
                    let mut text = text;
                    self.i += 1;
                    while let Some(Tok::Word(next)) = self.peek()
                        && let Some(more) = lexer::literal(next)
                        && !matches!(
                            self.peek_at(1),
                            Some(Tok::Colon | Tok::And | Tok::Or | Tok::Boost)
                        )
                    {
                        text.push(' ');
                        text.push_str(&more);
                        self.i += 1;
                    }
                    self.skip_boost();
                    let term = self.term(&target, &text, pos)?;
                    self.clause(target, Predicate::Term(term), pos)
                } else {
                    self.i += 1;
                    self.skip_boost();
                    if w == &[GlobTok::Many] {
                        return match ctx {
                            None => Ok(Node::All),
                            Some(t) => self.clause(t.clone(), Predicate::Exists, pos),
                        };
                    }
                    let pattern = self.pattern(&target, w, pos)?;
                    self.clause(target, Predicate::Wildcard(pattern), pos)
                }
            }
        }
    }

    /// `name:` followed by a value; the current token is the name.
    fn field_clause(
        &mut self,
        name: &[GlobTok],
        pos: usize,
        depth: usize,
    ) -> Result<Node, AdvancedError> {
        self.i += 2; // name, colon
        if lexer::literal(name).as_deref() == Some("_exists_") {
            let vpos = self.pos();
            let Some(Tok::Word(w)) = self.peek() else {
                return Err(AdvancedError::syntax(
                    pos,
                    "_exists_ needs a field name",
                    Some("write e.g. _exists_:established"),
                ));
            };
            self.i += 1;
            self.skip_boost();
            let target = resolve(w, vpos, true)?;
            return self.clause(target, Predicate::Exists, vpos);
        }
        let target = resolve(name, pos, false)?;
        self.value(target, pos, depth)
    }

    /// The value after `field:` (or a range/comparison inside `field:(…)`).
    fn value(&mut self, target: Target, pos: usize, depth: usize) -> Result<Node, AdvancedError> {
        let vpos = self.pos();
        let no_value = || {
            AdvancedError::syntax(
                pos,
                format!("field '{}' has no value", target_name(&target)),
                Some("write field:value, field:\"a phrase\" or field:(a OR b)"),
            )
        };
        let Some(tok) = self.peek() else {
            return Err(no_value());
        };
        match tok {
            Tok::LParen => self.group(Some(&target), depth),
            Tok::Phrase(p) => {
                self.i += 1;
                self.skip_boost();
                let term = self.term(&target, p, vpos)?;
                self.clause(target, Predicate::Phrase(term), vpos)
            }
            Tok::Word(w) => {
                self.i += 1;
                self.skip_boost();
                match lexer::literal(w) {
                    Some(text) => {
                        let term = self.term(&target, &text, vpos)?;
                        self.clause(target, Predicate::Term(term), vpos)
                    }
                    None if w == &[GlobTok::Many] => self.clause(target, Predicate::Exists, vpos),
                    None => {
                        let pattern = self.pattern(&target, w, vpos)?;
                        self.clause(target, Predicate::Wildcard(pattern), vpos)
                    }
                }
            }
            Tok::Range {
                lower,
                upper,
                lower_inclusive,
                upper_inclusive,
            } => {
                self.i += 1;
                self.skip_boost();
                let lo = end_bound(lower, *lower_inclusive);
                let hi = end_bound(upper, *upper_inclusive);
                let range = self.range(&target, lo, hi, vpos)?;
                self.clause(target, Predicate::Range(range), vpos)
            }
            Tok::Cmp(op) => {
                self.i += 1;
                let bpos = self.pos();
                let text = match self.peek() {
                    Some(Tok::Word(w)) => match lexer::literal(w) {
                        Some(t) => t,
                        None => {
                            return Err(AdvancedError::bad_value(
                                bpos,
                                "a comparison takes a value, not a wildcard",
                                None,
                            ));
                        }
                    },
                    Some(Tok::Phrase(p)) => p.clone(),
                    _ => {
                        return Err(AdvancedError::syntax(
                            vpos,
                            "a comparison needs a value after it",
                            Some("write e.g. established:>=1900"),
                        ));
                    }
                };
                self.i += 1;
                self.skip_boost();
                let end = RangeEnd {
                    value: Some(text),
                    pos: bpos,
                };
                let (lo, hi) = match op {
                    Cmp::Gt => (Bound::Excluded(end), Bound::Unbounded),
                    Cmp::Ge => (Bound::Included(end), Bound::Unbounded),
                    Cmp::Lt => (Bound::Unbounded, Bound::Excluded(end)),
                    Cmp::Le => (Bound::Unbounded, Bound::Included(end)),
                };
                let range = self.range(&target, lo, hi, vpos)?;
                self.clause(target, Predicate::Range(range), vpos)
            }
            _ => Err(no_value()),
        }
    }

    fn clause(
        &mut self,
        target: Target,
        predicate: Predicate,
        pos: usize,
    ) -> Result<Node, AdvancedError> {
        self.clauses += 1;
        if self.clauses > MAX_CLAUSES {
            return Err(AdvancedError::too_complex(
                pos,
                format!("the expression has more than {MAX_CLAUSES} clauses"),
            ));
        }
        Ok(Node::Clause(Clause { target, predicate }))
    }

    /// A word, chunk or phrase, analysed for every kind of field; checked
    /// strictly when the target is one number or date field.
    fn term(&self, target: &Target, text: &str, pos: usize) -> Result<Term, AdvancedError> {
        let number = parse_number(text);
        let full_date = parse_date(text).filter(|(s, e)| s == e);
        let mut term = Term {
            text: text.to_string(),
            words: analysis::text_tokens(text),
            letters: analysis::letter_tokens(text),
            number,
            date: full_date,
            id_url: RecordId::parse(text).ok().map(RecordId::url),
            aliases: Field::value_aliases(text),
        };
        if let Target::Field(f) = target {
            match f.kind() {
                FieldKind::Integer | FieldKind::Float if number.is_none() => {
                    return Err(AdvancedError::bad_value(
                        pos,
                        format!("'{text}' is not a number ({} holds numbers)", f.name()),
                        None,
                    ));
                }
                FieldKind::Date => {
                    term.date = parse_date(text);
                    if term.date.is_none() {
                        return Err(bad_date(text, pos));
                    }
                }
                _ => {}
            }
        }
        Ok(term)
    }

    fn pattern(
        &self,
        target: &Target,
        word: &[GlobTok],
        pos: usize,
    ) -> Result<Pattern, AdvancedError> {
        if let Target::Field(f) = target
            && f.kind().is_ordered()
        {
            return Err(AdvancedError::bad_value(
                pos,
                format!(
                    "wildcards do not apply to the {} field {}",
                    f.kind().name(),
                    f.name()
                ),
                Some("use a range such as [2020 TO 2021] instead"),
            ));
        }
        Ok(Pattern {
            text: lexer::display(word),
            exact: Glob::new(word, &analysis::map_keep),
            folded: Glob::new(word, &analysis::fold_char),
            lower: Glob::new(word, &analysis::map_lower),
        })
    }

    fn range(
        &self,
        target: &Target,
        lower: Bound<RangeEnd>,
        upper: Bound<RangeEnd>,
        pos: usize,
    ) -> Result<Range, AdvancedError> {
        let Target::Field(f) = target else {
            return Err(AdvancedError::syntax(
                pos,
                "a range or comparison needs a single field",
                Some("write e.g. established:[1900 TO 1950]"),
            ));
        };
        let written = (
            lower.as_ref().map(|e| e.value.clone().unwrap_or_default()),
            upper.as_ref().map(|e| e.value.clone().unwrap_or_default()),
        );
        // An open end (`*`) is unbounded whatever its bracket.
        let open = |b: Bound<RangeEnd>| match b {
            Bound::Included(RangeEnd { value: None, .. })
            | Bound::Excluded(RangeEnd { value: None, .. }) => Bound::Unbounded,
            b => b,
        };
        let (lower, upper) = (open(lower), open(upper));
        let written = (
            if lower == Bound::Unbounded {
                Bound::Unbounded
            } else {
                written.0
            },
            if upper == Bound::Unbounded {
                Bound::Unbounded
            } else {
                written.1
            },
        );
        let bounds = match f.kind() {
            FieldKind::Integer | FieldKind::Float => {
                let num = |b: Bound<RangeEnd>| -> Result<Bound<f64>, AdvancedError> {
                    map_bound(b, |e| {
                        let v = e.value.unwrap_or_default();
                        parse_number(&v).ok_or_else(|| {
                            AdvancedError::bad_value(
                                e.pos,
                                format!("'{v}' is not a number ({} holds numbers)", f.name()),
                                None,
                            )
                        })
                    })
                };
                RangeBounds::Number(num(lower)?, num(upper)?)
            }
            FieldKind::Date => {
                // A partial date covers a period: `[2024 TO` starts on its
                // first day, `{2024 TO` after its last, `TO 2024]` ends on its
                // last day, `TO 2024}` before its first.
                let date =
                    |b: Bound<RangeEnd>, is_lower: bool| -> Result<Bound<u32>, AdvancedError> {
                        let period = |e: RangeEnd| {
                            let v = e.value.unwrap_or_default();
                            parse_date(&v).ok_or_else(|| bad_date(&v, e.pos))
                        };
                        Ok(match b {
                            Bound::Unbounded => Bound::Unbounded,
                            Bound::Included(e) => {
                                let (s, t) = period(e)?;
                                Bound::Included(if is_lower { s } else { t })
                            }
                            Bound::Excluded(e) => {
                                let (s, t) = period(e)?;
                                Bound::Excluded(if is_lower { t } else { s })
                            }
                        })
                    };
                RangeBounds::Date(date(lower, true)?, date(upper, false)?)
            }
            kind => {
                let norm = |b: Bound<RangeEnd>| {
                    map_bound(b, |e| -> Result<String, AdvancedError> {
                        let v = e.value.unwrap_or_default();
                        Ok(match kind {
                            FieldKind::Text => analysis::fold(&v),
                            FieldKind::Letters => crate::text::lower(&v),
                            _ => v,
                        })
                    })
                };
                RangeBounds::Text(norm(lower)?, norm(upper)?)
            }
        };
        Ok(Range { written, bounds })
    }
}

fn map_bound<T, U, E>(b: Bound<T>, f: impl FnOnce(T) -> Result<U, E>) -> Result<Bound<U>, E> {
    Ok(match b {
        Bound::Included(x) => Bound::Included(f(x)?),
        Bound::Excluded(x) => Bound::Excluded(f(x)?),
        Bound::Unbounded => Bound::Unbounded,
    })
}

fn end_bound(e: &RangeEnd, inclusive: bool) -> Bound<RangeEnd> {
    if inclusive {
        Bound::Included(e.clone())
    } else {
        Bound::Excluded(e.clone())
    }
}

fn unclosed(open: usize) -> AdvancedError {
    AdvancedError::syntax(
        open,
        "unbalanced parenthesis: this '(' is never closed",
        None,
    )
}

fn bad_date(text: &str, pos: usize) -> AdvancedError {
    AdvancedError::bad_value(
        pos,
        format!("'{text}' is not a date"),
        Some("dates are written YYYY-MM-DD, YYYY-MM or YYYY"),
    )
}

fn target_name(t: &Target) -> String {
    match t {
        Target::Field(f) => f.name().to_string(),
        Target::AllFields => "*".to_string(),
        Target::Fields(fs) => fs
            .first()
            .map_or_else(String::new, |f| f.name().to_string()),
    }
}

/// Resolves a field name: a full dotted path (or its upstream spelling),
/// `*` (every field), or `prefix.*` (every field under `prefix`). With
/// `parents`, a parent object alone (`locations`) means its fields, as
/// `_exists_` allows.
fn resolve(name: &[GlobTok], pos: usize, parents: bool) -> Result<Target, AdvancedError> {
    if name == [GlobTok::Many] {
        return Ok(Target::AllFields);
    }
    // `prefix.*` and `prefix.\*`.
    if let Some((last, head)) = name.split_last()
        && matches!(last, GlobTok::Many | GlobTok::Lit('*'))
        && let Some(prefix) = lexer::literal(head)
        && let Some(prefix) = prefix.strip_suffix('.')
    {
        let under = Field::under(prefix);
        if !under.is_empty() {
            return Ok(Target::Fields(under));
        }
    }
    let Some(text) = lexer::literal(name) else {
        return Err(AdvancedError::unknown_field(
            pos,
            &lexer::display(name),
            Some("wildcards in field names are only allowed at the end, as in locations.*".into()),
        ));
    };
    if let Some(f) = Field::from_name(&text) {
        return Ok(Target::Field(f));
    }
    if parents {
        let under = Field::under(&text);
        if !under.is_empty() {
            return Ok(Target::Fields(under));
        }
    }
    let hint = fields::suggest(&text).map(|s| format!("did you mean {s}?"));
    Err(AdvancedError::unknown_field(pos, &text, hint))
}

/// A decimal number (`12`, `-33.9`, `1.5e3`); not `inf`, `nan`, hex….
pub(crate) fn parse_number(s: &str) -> Option<f64> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
    if !ok {
        return None;
    }
    // Within ±1e38 and 19 significant digits (see `decimal`): far beyond
    // any coordinate, year or count.
    crate::decimal::parse(s)
}

/// `YYYY-MM-DD`, `YYYY-MM` or `YYYY` → the first and last day of the period,
/// as `yyyymmdd` numbers.
pub(crate) fn parse_date(s: &str) -> Option<(u32, u32)> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let year = num(0..4)?;
    let days = |m: u32| match m {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    match b.len() {
        4 => Some((year * 10000 + 101, year * 10000 + 1231)),
        7 if b[4] == b'-' => {
            let m = num(5..7).filter(|m| (1..=12).contains(m))?;
            Some((year * 10000 + m * 100 + 1, year * 10000 + m * 100 + days(m)))
        }
        10 if b[4] == b'-' && b[7] == b'-' => {
            let m = num(5..7).filter(|m| (1..=12).contains(m))?;
            let d = num(8..10).filter(|d| (1..=days(m)).contains(d))?;
            let v = year * 10000 + m * 100 + d;
            Some((v, v))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_numbers() {
        assert_eq!(parse_date("2024"), Some((20240101, 20241231)));
        assert_eq!(parse_date("2024-02"), Some((20240201, 20240229)));
        assert_eq!(parse_date("2023-02"), Some((20230201, 20230228)));
        assert_eq!(parse_date("2024-12-27"), Some((20241227, 20241227)));
        for bad in [
            "2024-13",
            "2024-02-30",
            "24",
            "2024-1-01",
            "2024/01/01",
            "२०२४",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
        assert_eq!(parse_number("-33.9"), Some(-33.9));
        assert_eq!(parse_number("1e3"), Some(1000.0));
        for bad in ["inf", "NaN", "1e999", "x1", "", "-", "1.2.3"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
