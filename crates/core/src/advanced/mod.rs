//! The `query.advanced` language (E3): a field-aware query-string syntax,
//! parsed into a [`Query`] that is evaluated against full v2 [`Record`]s.
//!
//! ```
//! use registry_core::advanced;
//! let q = advanced::parse("locations.geo_details.country_code:CZ AND established:[1990 TO *]").unwrap();
//! assert!(!q.constrains_status());
//! let err = advanced::parse("locations:Brno").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "query.advanced: unknown field 'locations' at position 0 (did you mean locations.geo_details.name?)"
//! );
//! ```
//!
//! # Syntax
//!
//! * `field:value` — `field` is the full dotted path of a record field (table
//!   below). Upstream spellings `locations.geonames_details.*` and
//!   `locations.geonames_id` are accepted too. A parent alone (`locations`)
//!   is an error, except in `_exists_:`. `prefix.*:value` (or `prefix.\*`)
//!   searches every field under `prefix`, leniently like a bare term.
//!   `field:value` binds only the next word: `field:New York` is
//!   `field:New AND York`; write `field:"New York"` or `field:(New York)`.
//! * `field:(a OR b -c)` applies the field to everything in the group.
//! * Bare words and `"quoted phrases"` search every field leniently (a
//!   number field ignores a word that is not a number). Several bare words in
//!   a row (`harvard medical`) form one chunk that must match entirely within
//!   one field (any of its values); keyword fields see the chunk as one exact
//!   value (`New York` matches the place `New York`).
//! * `AND` / `&&`, `OR` / `||`, `NOT` / `!`, prefix `+` (required, the
//!   default) and `-` (excluded), parentheses. Clauses without an operator
//!   are ANDed. Operators are upper case; `and` is a word.
//! * Wildcards `*` (any run) and `?` (one character) in a word. On keyword
//!   fields the pattern matches the whole value, case-sensitively; on text
//!   and letter fields it matches one word, after the same folding as the
//!   field. `field:*` means "has a value"; a bare `*` matches every record.
//! * Ranges on numbers, dates, and (lexicographically) on keyword/text
//!   fields: inclusive `[a TO b]`, exclusive `{a TO b}`, mixed `[a TO b}`,
//!   open ends `*`; also `field:>x`, `>=x`, `<x`, `<=x`.
//! * Dates: `YYYY-MM-DD`; `YYYY` and `YYYY-MM` stand for the whole year or
//!   month, both as range bounds (`[2024 TO 2024-06]` = 2024-01-01 to
//!   2024-06-30; `{2024 TO *]` starts in 2025) and as field values
//!   (`admin.created.date:2024-05`). `established` holds a year number.
//! * `_exists_:field` — the field has a (non-null) value. A parent name
//!   (`_exists_:relationships`) means any field under it.
//! * `\` escapes the next character (`\:`, `\(`, `\*`, `\ `). Inside quotes
//!   only `\"` and `\\` need escaping. `^2` boosts are accepted and ignored.
//! * The empty (or all-blank) expression matches nothing.
//!
//! # Evaluation
//!
//! [`Query::matches`] tests one full record; [`Query::matcher`] gives a
//! [`Matcher`] that reuses its buffers over many records. Evaluation is a
//! straightforward scan of the record's values (no index). For a whole
//! registry, [`FieldIndex`] holds every field in columns and answers a query
//! with set operations ([`FieldIndex::matches`] → [`RecordSet`]), with the
//! same results; the API engine builds one on first use
//! (`crate::search::advanced_exec`). The active-only
//! default is the caller's business: apply it unless
//! [`Query::constrains_status`]. To accelerate, inspect [`Query::root`] /
//! [`Query::clauses`]: every [`Clause`] names its [`Target`] field(s) and a
//! [`Predicate`] whose values are already analysed ([`Term::words`],
//! [`Term::letters`], [`Term::number`], [`Range::bounds`]).
//!
//! # Fields
//!
//! | field | kind | case-sensitive |
//! |---|---|---|
//! | `names.value` | text | no (accents ignored too) |
//! | `names.types` | keyword | yes |
//! | `names.lang` | keyword | yes |
//! | `locations.geo_details.name` | keyword | yes |
//! | `locations.geo_details.country_code` | keyword | yes |
//! | `locations.geo_details.country_name` | keyword | yes |
//! | `locations.geo_details.continent_code` | keyword | yes |
//! | `locations.geo_details.continent_name` | keyword | yes |
//! | `locations.geo_details.country_subdivision_code` | keyword | yes |
//! | `locations.geo_details.country_subdivision_name` | keyword | yes |
//! | `locations.geo_details.lat` | float | — |
//! | `locations.geo_details.lng` | float | — |
//! | `locations.geo_id` | integer | — |
//! | `links.value` | letters | no |
//! | `links.type` | keyword | yes |
//! | `domains` | letters | no |
//! | `external_ids.all` | keyword | yes |
//! | `external_ids.type` | keyword | yes |
//! | `external_ids.preferred` | keyword | yes |
//! | `relationships.id` | keyword | yes |
//! | `relationships.type` | keyword | yes |
//! | `relationships.label` | text | no (accents ignored too) |
//! | `status` | keyword | yes |
//! | `types` | keyword | yes |
//! | `established` | integer (a year) | — |
//! | `id` | keyword | yes |
//! | `admin.created.date` | date | — |
//! | `admin.created.schema_version` | keyword | yes |
//! | `admin.last_modified.date` | date | — |
//! | `admin.last_modified.schema_version` | keyword | yes |
//!
//! Kinds ([`FieldKind`]): **text** values are cut into words at whitespace
//! and punctuation, lower-cased and stripped of common Latin/Greek accents
//! ([`text_tokens`]); an unquoted value needs all its words somewhere in the
//! field, a quoted one needs them consecutively in one value. **letters**
//! values (upstream's `simple` analyser) are cut into runs of letters and
//! lower-cased ([`letter_tokens`]): `domains:example.org` needs the words
//! `example` and `org`; quote it to need them in that order. **keyword**
//! values match whole and exactly. **integer**/**float**/**date** compare by
//! value. The same list is available at run time from [`Field::ALL`],
//! [`Field::kind`] and [`Field::case_sensitive`].
//!
//! # Differences from upstream
//!
//! Upstream hands the expression to Elasticsearch's `query_string`. Where
//! that crashes (HTTP 500) or silently does something odd, we differ:
//!
//! * Syntax errors, unknown fields (checked exactly, not by upstream's
//!   suffix test, so `foonames.value:x` and `names.value.keyword:x` are
//!   errors), bad numbers and dates, and wildcards on number/date fields are
//!   [`AdvancedError`]s naming the position, never a 500.
//! * Colons need no escaping in a value: `links.value:https://x.org` and
//!   `admin.created.date:2024-01-01` work (upstream needs `https\://`). A
//!   leading `-`, `+` or `!` in a value is literal (`lat:-33.9`).
//! * Boolean precedence is the usual one (`a OR b c` = `a OR (b AND c)`),
//!   not Lucene's clause flags (where `a OR b c` means `c`). As upstream,
//!   `NOT x` alone matches every record but those matching `x`.
//! * Text fields also ignore accents (upstream's standard analyser only
//!   lower-cases), and their words split at apostrophes and dots.
//! * `YYYY` and `YYYY-MM` as field values mean the whole period, and a bare
//!   word is compared with date fields only when it is a full date.
//! * Upstream value spellings are accepted for the renamed vocabulary:
//!   `names.types:ror_display`, `external_ids.type:fundref`/`wikidata`,
//!   `links.type:wikipedia`.
//! * `id` and `relationships.id` also accept the other identifier forms
//!   (`id:02mhbdp94`, `id:ror.org/02mhbdp94`).
//! * A value with no words for its analyser (`domains:123`) matches nothing
//!   instead of being dropped from the query.
//! * Not supported: fuzzy and proximity `~` and regular expressions `/…/`
//!   (errors); boosts are ignored (there is no scoring here).
//! * [`Query::constrains_status`] is true when any clause names the
//!   `status` field (upstream: any field name ending in `status`).
//! * Limits: at most [`MAX_CHARS`] characters, [`MAX_DEPTH`] levels of
//!   nesting and [`MAX_CLAUSES`] clauses; wildcard matching is
//!   `O(value × pattern)`, never exponential.

mod analysis;
mod columns;
mod eval;
mod fields;
mod lexer;
mod parser;

use std::fmt;
use std::ops::Bound;

pub use analysis::{letter_tokens, text_tokens};
pub use columns::{FieldIndex, RecordSet};
pub use fields::{Field, FieldKind};

use crate::model::Record;

/// Longest accepted expression, in characters.
pub const MAX_CHARS: usize = 2000;
/// Deepest accepted nesting of parentheses and `NOT`s.
pub const MAX_DEPTH: usize = 32;
/// Most clauses (field or bare terms) in one expression.
pub const MAX_CLAUSES: usize = 128;

/// What kind of problem an [`AdvancedError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Malformed syntax: unbalanced parentheses, quotes or brackets, a
    /// dangling operator, a lone backslash….
    Syntax,
    /// A field name that is not one of [`Field::ALL`].
    UnknownField,
    /// A value that does not suit its field: a bad number or date, a
    /// wildcard on a number field.
    BadValue,
    /// Over one of the limits ([`MAX_CHARS`], [`MAX_DEPTH`], [`MAX_CLAUSES`]).
    TooComplex,
}

/// Why an expression was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdvancedError {
    /// Character (not byte) offset in the expression, from 0.
    pub position: usize,
    /// The kind of problem.
    pub kind: ErrorKind,
    /// What is wrong, without the position (`unknown field 'locations'`).
    pub message: String,
    /// A suggestion, if there is one (`did you mean names.value?`).
    pub hint: Option<String>,
}

impl AdvancedError {
    fn new(
        position: usize,
        kind: ErrorKind,
        message: impl Into<String>,
        hint: Option<String>,
    ) -> Self {
        AdvancedError {
            position,
            kind,
            message: message.into(),
            hint,
        }
    }

    pub(crate) fn syntax(position: usize, message: impl Into<String>, hint: Option<&str>) -> Self {
        Self::new(position, ErrorKind::Syntax, message, hint.map(String::from))
    }

    pub(crate) fn bad_value(
        position: usize,
        message: impl Into<String>,
        hint: Option<&str>,
    ) -> Self {
        Self::new(
            position,
            ErrorKind::BadValue,
            message,
            hint.map(String::from),
        )
    }

    pub(crate) fn too_complex(position: usize, message: impl Into<String>) -> Self {
        Self::new(position, ErrorKind::TooComplex, message, None)
    }

    pub(crate) fn unknown_field(position: usize, name: &str, hint: Option<String>) -> Self {
        Self::new(
            position,
            ErrorKind::UnknownField,
            format!("unknown field '{name}'"),
            hint,
        )
    }
}

impl fmt::Display for AdvancedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "query.advanced: {} at position {}",
            self.message, self.position
        )?;
        if let Some(hint) = &self.hint {
            write!(f, " ({hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for AdvancedError {}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    root: Option<Node>,
}

/// A node of the parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Every record (`*`, `*:*`).
    All,
    /// All children match.
    And(Vec<Node>),
    /// At least one child matches.
    Or(Vec<Node>),
    /// The child does not match.
    Not(Box<Node>),
    /// A field (or all-field) test.
    Clause(Clause),
}

impl Node {
    fn and(mut items: Vec<Node>) -> Node {
        if items.len() == 1 {
            return items.pop().unwrap_or(Node::All);
        }
        let mut flat = Vec::with_capacity(items.len());
        for n in items {
            match n {
                Node::And(inner) => flat.extend(inner),
                n => flat.push(n),
            }
        }
        Node::And(flat)
    }

    fn or(mut items: Vec<Node>) -> Node {
        if items.len() == 1 {
            return items.pop().unwrap_or(Node::All);
        }
        let mut flat = Vec::with_capacity(items.len());
        for n in items {
            match n {
                Node::Or(inner) => flat.extend(inner),
                n => flat.push(n),
            }
        }
        Node::Or(flat)
    }

    /// Calls `f` with every clause under this node, depth first.
    pub fn for_each_clause<'a>(&'a self, f: &mut impl FnMut(&'a Clause)) {
        match self {
            Node::All => {}
            Node::And(items) | Node::Or(items) => {
                items.iter().for_each(|n| n.for_each_clause(f));
            }
            Node::Not(inner) => inner.for_each_clause(f),
            Node::Clause(c) => f(c),
        }
    }
}

/// One test: a predicate on a field (or on every field).
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    /// Which field(s) the predicate looks at.
    pub target: Target,
    /// What the values must satisfy.
    pub predicate: Predicate,
}

/// The fields a clause looks at.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// One field (`field:value`).
    Field(Field),
    /// Every field, leniently (a bare term, `*:value`).
    AllFields,
    /// Several fields, leniently (`locations.*:value`, `_exists_:locations`).
    Fields(Vec<Field>),
}

impl Target {
    /// Whether `field` is (among) the target's fields.
    pub fn includes(&self, field: Field) -> bool {
        match self {
            Target::Field(f) => *f == field,
            Target::AllFields => true,
            Target::Fields(fs) => fs.contains(&field),
        }
    }
}

/// What a clause requires of a field's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// Unquoted word(s): keyword fields need the whole value, text and
    /// letter fields need every word somewhere in the field.
    Term(Term),
    /// A quoted phrase: keyword fields need the whole value, text and letter
    /// fields need the words consecutively in one value.
    Phrase(Term),
    /// A pattern with `*`/`?`.
    Wildcard(Pattern),
    /// A range or comparison.
    Range(Range),
    /// The field has a value.
    Exists,
}

/// A query value, analysed for every kind of field.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    text: String,
    words: Vec<String>,
    letters: Vec<String>,
    number: Option<f64>,
    /// Period of a date value (first and last day as `yyyymmdd`).
    date: Option<(u32, u32)>,
    /// The full identifier URL, when the value is a record identifier.
    id_url: Option<String>,
    /// Spec spellings of the value for fields whose vocabulary was renamed.
    aliases: Vec<(Field, &'static str)>,
}

impl Term {
    /// The value as written, escapes resolved (words of a chunk joined by
    /// one space). Keyword fields compare with this.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value's words for text fields ([`text_tokens`]).
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The value's words for letter fields ([`letter_tokens`]).
    pub fn letters(&self) -> &[String] {
        &self.letters
    }

    /// The value as a number, if it is one.
    pub fn number(&self) -> Option<f64> {
        self.number
    }
}

/// A wildcard pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    text: String,
    exact: analysis::Glob,
    folded: analysis::Glob,
    lower: analysis::Glob,
}

impl Pattern {
    /// The pattern as written (escaped `*`/`?` shown bare).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Range bounds, converted for the range's field.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeBounds {
    /// Number fields.
    Number(Bound<f64>, Bound<f64>),
    /// Date fields, as `yyyymmdd` numbers (partial dates already widened).
    Date(Bound<u32>, Bound<u32>),
    /// Keyword fields (exact strings) and text/letter fields (folded words).
    Text(Bound<String>, Bound<String>),
}

/// A range or comparison on one field.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    written: (Bound<String>, Bound<String>),
    bounds: RangeBounds,
}

impl Range {
    /// The bounds as written (`*` ends are unbounded).
    pub fn written(&self) -> (&Bound<String>, &Bound<String>) {
        (&self.written.0, &self.written.1)
    }

    /// The bounds converted for the field.
    pub fn bounds(&self) -> &RangeBounds {
        &self.bounds
    }
}

/// Parses an expression. The empty (or blank) expression is valid and
/// matches nothing.
pub fn parse(expr: &str) -> Result<Query, AdvancedError> {
    // Cheap bound before counting characters of a huge input.
    if expr.len() > MAX_CHARS * 4 || expr.chars().count() > MAX_CHARS {
        return Err(AdvancedError::too_complex(
            MAX_CHARS,
            format!("the expression is longer than {MAX_CHARS} characters"),
        ));
    }
    let chars: Vec<char> = expr.chars().collect();
    let tokens = lexer::lex(&chars)?;
    if tokens.is_empty() {
        return Ok(Query { root: None });
    }
    let root = parser::Parser::new(&tokens, chars.len()).parse()?;
    Ok(Query { root: Some(root) })
}

impl Query {
    /// Whether `record` matches. The active-only default is not applied here
    /// (see [`Query::constrains_status`]).
    pub fn matches(&self, record: &Record) -> bool {
        match &self.root {
            None => false,
            Some(root) => root.eval(record, &mut eval::Scratch::default()),
        }
    }

    /// A matcher that reuses its scratch buffers across records (faster
    /// than [`Query::matches`] when scanning many records).
    pub fn matcher(&self) -> Matcher<'_> {
        Matcher {
            query: self,
            scratch: eval::Scratch::default(),
        }
    }

    /// Whether any clause names the `status` field; the caller then does not
    /// restrict results to active records.
    pub fn constrains_status(&self) -> bool {
        self.clauses()
            .iter()
            .any(|c| !matches!(c.target, Target::AllFields) && c.target.includes(Field::Status))
    }

    /// True for the empty expression, which matches nothing.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// The expression tree (`None` for the empty expression).
    pub fn root(&self) -> Option<&Node> {
        self.root.as_ref()
    }

    /// Every clause, in expression order.
    pub fn clauses(&self) -> Vec<&Clause> {
        let mut out = Vec::new();
        if let Some(root) = &self.root {
            root.for_each_clause(&mut |c| out.push(c));
        }
        out
    }
}

/// Evaluates one [`Query`] against many records, reusing buffers.
pub struct Matcher<'q> {
    query: &'q Query,
    scratch: eval::Scratch,
}

impl Matcher<'_> {
    /// Whether `record` matches (same as [`Query::matches`]).
    pub fn matches(&mut self, record: &Record) -> bool {
        match &self.query.root {
            None => false,
            Some(root) => root.eval(record, &mut self.scratch),
        }
    }
}

#[cfg(test)]
mod tests;
