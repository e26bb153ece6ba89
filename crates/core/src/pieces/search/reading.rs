//! The query as the pieces read it: its clauses, and the common terms
//! among them that decide whether, and how high, a record no loaded piece
//! holds matches.

use crate::index::Index;
use crate::order::{sort, sort_by_key};
use crate::search::query::{self, ClauseKind, Occur, ParsedQuery};
use crate::search::{Filters, typed};
use crate::shard::search::SearchStats;
use crate::text::{self, TokenKind};

use super::slices::{Slice, slices_of};
use super::{ListQuery, Need};

/// Phrase pieces one quoted phrase of common words may ask for (its
/// pairs of adjacent words of the rarest words).
const PHRASE_PAIRS: usize = 3;

/// A query clause as the pieces read it: occurrence, whether it is an
/// exact phrase, its tokens.
pub(super) type Clause = (Occur, bool, Vec<text::Token>);

/// A request as [`SearchClient::answer`](super::SearchClient::answer)
/// reads it once its query parses: what each step after that reads.
pub(super) struct Reading<'r> {
    pub q: &'r ListQuery,
    pub stats: &'r SearchStats,
    /// The statistics' country table, which the filters name.
    pub countries: &'r Index,
    pub filters: Filters,
    pub parsed: &'r ParsedQuery,
    pub clauses: &'r [Clause],
    /// The search page's reading: the clause of its last bare word, which
    /// it also reads by prefix.
    pub typed_last: Option<usize>,
    /// The slices every record the filters let through is in.
    pub slices: Vec<Slice>,
    /// The external id pieces a query with a digit reads.
    pub external: Vec<Need>,
    /// The query's distinct common terms that score, sorted: the fine
    /// bound's terms, whose pairs and triples have rank chunks.
    pub common_terms: Vec<&'r str>,
    /// Every triple of them.
    pub triples: Vec<Vec<String>>,
}

impl<'r> Reading<'r> {
    /// The reading of `q` over `stats` (`clauses`: `parsed`'s, by
    /// [`clauses_of`]).
    pub fn new(
        q: &'r ListQuery,
        stats: &'r SearchStats,
        countries: &'r Index,
        filters: Filters,
        parsed: &'r ParsedQuery,
        clauses: &'r [Clause],
        external: Vec<Need>,
    ) -> Reading<'r> {
        let typed_last = if q.typed {
            typed::last_bare_word(parsed)
        } else {
            None
        };
        let slices = slices_of(&filters, stats);
        let mut common_terms: Vec<&str> = common_units(stats, clauses);
        sort(&mut common_terms);
        common_terms.dedup();
        let triples = triples_of(&common_terms);
        Reading {
            q,
            stats,
            countries,
            filters,
            parsed,
            clauses,
            typed_last,
            slices,
            external,
            common_terms,
            triples,
        }
    }

    /// Every token of every clause, in the query's order.
    pub fn tokens(&self) -> impl Iterator<Item = &'r text::Token> + use<'r> {
        self.clauses.iter().flat_map(|(_, _, toks)| toks)
    }

    /// The search page's reading: its last bare word's last token, read
    /// also by prefix.
    pub fn last_token(&self) -> Option<&'r text::Token> {
        self.typed_last.and_then(|ci| self.clauses[ci].2.last())
    }

    /// Whether `t` is a common term.
    pub fn is_common(&self, t: &str) -> bool {
        self.stats.common(t).is_some()
    }

    /// The two words of a lone quoted phrase of two common words
    /// ([`lone_phrase`]), except in the search page's reading.
    pub fn lone_phrase(&self) -> Option<(&'r str, &'r str)> {
        lone_phrase(self.stats, self.clauses).filter(|_| !self.q.typed)
    }

    /// The common terms of the set `mask` of [`Reading::common_terms`].
    pub fn set_terms(&self, mask: u32) -> Vec<String> {
        (0..self.common_terms.len())
            .filter(|&i| mask & (1 << i) != 0)
            .map(|i| self.common_terms[i].to_string())
            .collect()
    }
}

/// The clauses of `parsed` as the pieces read them (`typed`: in the
/// search page's reading).
pub(super) fn clauses_of(parsed: &ParsedQuery, typed: bool) -> Vec<Clause> {
    parsed
        .clauses
        .iter()
        .map(|c| {
            let (text, exact_phrase) = match &c.kind {
                ClauseKind::Term { text, .. } => (text, false),
                ClauseKind::Phrase { text, sloppy } => (text, !sloppy),
            };
            let toks = text::tokens(text);
            // A quoted single word (`"institute"`) E2 matches and scores as
            // the bare word: read as one (not in the search page's reading,
            // which types a bare word as a prefix and counts it otherwise).
            let one_word = matches!(toks.as_slice(), [t] if t.kind == TokenKind::Word);
            (c.occur, exact_phrase && (typed || !one_word), toks)
        })
        .collect()
}

/// The words a name must be, all of them, for E2's exact-name boost:
/// those of every clause not excluded, besides CJK bigrams and `and`.
pub(super) fn exact_words(clauses: &[Clause]) -> Vec<&str> {
    clauses
        .iter()
        .filter(|(o, _, _)| *o != Occur::MustNot)
        .flat_map(|(_, _, toks)| toks.iter())
        .filter(|t| t.kind != TokenKind::Bigram && t.text != "and")
        .map(|t| t.text.as_str())
        .collect()
}

/// Most common terms a query may have for the group files alone to count
/// its records no loaded piece holds (one file per non-empty set of them);
/// with more, the member files of the others count theirs.
pub(super) const GROUP_TERMS: usize = 2;

/// The query's distinct common terms (of its [`outside_sets`]) split into
/// those whose group files count their records and those whose member
/// files list them (each sorted): all in group files when there are at
/// most [`GROUP_TERMS`]; else the two of most records there and the others
/// in member files that say which of those two each record holds (version
/// 5); else (older pieces) all in member files.
pub(super) fn split_common<'t>(
    stats: &SearchStats,
    sets: &[Vec<&'t str>; 3],
) -> (Vec<&'t str>, Vec<&'t str>) {
    let mut terms: Vec<&str> = sets.iter().flatten().copied().collect();
    sort(&mut terms);
    terms.dedup();
    if !stats.groups {
        return (Vec::new(), terms.to_vec());
    }
    if terms.len() <= GROUP_TERMS {
        return (terms.to_vec(), Vec::new());
    }
    if !stats.member_holds {
        return (Vec::new(), terms.to_vec());
    }
    let mut by: Vec<&str> = terms.to_vec();
    sort_by_key(&mut by, |t| {
        stats.commonness_position(t).unwrap_or(usize::MAX)
    });
    let mut listed = by.split_off(GROUP_TERMS);
    sort(&mut by);
    sort(&mut listed);
    (by, listed)
}

/// The query's common terms that decide whether a record no loaded piece
/// holds matches (scoring, required, excluded; each sorted, distinct), or
/// `None` when a required rare word means there is none.
pub(super) fn outside_sets<'c>(
    stats: &SearchStats,
    clauses: &'c [Clause],
) -> Option<[Vec<&'c str>; 3]> {
    let is_common = |t: &str| stats.common(t).is_some();
    let rare_must = clauses
        .iter()
        .any(|(occur, _, toks)| *occur == Occur::Must && toks.iter().any(|t| !is_common(&t.text)));
    if rare_must {
        return None;
    }
    let tokens = |occurs: &[Occur], skip_phrases: bool| -> Vec<&'c str> {
        let mut v: Vec<&str> = clauses
            .iter()
            .filter(|(o, p, _)| occurs.contains(o) && !(skip_phrases && *p))
            .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
            .filter(|t| is_common(t))
            .collect();
        sort(&mut v);
        v.dedup();
        v
    };
    // A quoted phrase with a rare word excludes only records that hold
    // that word, all in loaded pieces.
    Some([
        tokens(&[Occur::Should, Occur::Must], true),
        tokens(&[Occur::Must], false),
        tokens(&[Occur::MustNot], true),
    ])
}

/// Whether a phrase's words (`toks`, besides CJK bigrams) are all common
/// terms, and some: no piece of a rare word holds its matches.
pub(super) fn common_phrase(stats: &SearchStats, toks: &[text::Token]) -> bool {
    let mut seq = toks
        .iter()
        .filter(|t| t.kind != TokenKind::Bigram)
        .peekable();
    seq.peek().is_some() && seq.all(|t| stats.common(&t.text).is_some())
}

/// The two words of the query when it is one quoted phrase of two common
/// words and nothing else (read from its phrase piece, or else its phrase
/// rank chunks and group file: [`SearchClient::answer_phrase`](super::SearchClient::answer_phrase)).
pub(super) fn lone_phrase<'c>(
    stats: &SearchStats,
    clauses: &'c [Clause],
) -> Option<(&'c str, &'c str)> {
    let [(occur, true, toks)] = clauses else {
        return None;
    };
    match toks.as_slice() {
        [x, y]
            if *occur != Occur::MustNot
                && x.kind == TokenKind::Word
                && y.kind == TokenKind::Word
                && common_phrase(stats, toks) =>
        {
            Some((x.text.as_str(), y.text.as_str()))
        }
        _ => None,
    }
}

/// Every triple (sorted) of `terms` (sorted).
pub(super) fn triples_of(terms: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for i in 0..terms.len() {
        for j in i + 1..terms.len() {
            for k in j + 1..terms.len() {
                out.push(vec![
                    terms[i].to_string(),
                    terms[j].to_string(),
                    terms[k].to_string(),
                ]);
            }
        }
    }
    out
}

/// The external id pieces a query with a digit reads: of every text E2
/// looks up as an external id (each clause's, the whole query's as typed
/// and unescaped), by [`crate::text::external_id_key`].
pub(super) fn external_needs(query: &str, parsed: &query::ParsedQuery, buckets: u32) -> Vec<Need> {
    let unescaped = query::unescape(query);
    let mut texts: Vec<&str> = vec![query.trim(), unescaped.trim()];
    for c in &parsed.clauses {
        match &c.kind {
            ClauseKind::Term { text, .. } | ClauseKind::Phrase { text, .. } => {
                texts.push(text.trim());
            }
        }
    }
    let mut out: Vec<Need> = texts
        .into_iter()
        .filter(|t| t.bytes().any(|b| b.is_ascii_digit()))
        .map(|t| {
            Need::External(crate::shard::search::external_bucket(
                &text::external_id_key(t),
                buckets,
            ))
        })
        .collect();
    sort(&mut out);
    out.dedup();
    out
}

/// The phrase pieces that may hold every match of an exact phrase of
/// common words (`toks`): one per pair of adjacent words, since a name
/// holding the phrase holds each pair; at most [`PHRASE_PAIRS`], those of
/// the rarest words first (the likeliest to fit a piece). None for a
/// required phrase (`+"…"`: a record holding its words apart is no match,
/// and the counts of records no piece holds cannot tell) or a phrase of
/// one word.
pub(super) fn phrase_needs(stats: &SearchStats, occur: Occur, toks: &[text::Token]) -> Vec<Need> {
    if occur == Occur::Must {
        return Vec::new();
    }
    let seq: Vec<&str> = toks
        .iter()
        .filter(|t| t.kind != TokenKind::Bigram)
        .map(|t| t.text.as_str())
        .collect();
    let df = |t: &str| stats.common(t).map_or(0, |c| c.df);
    let mut pairs: Vec<(&str, &str)> = seq.windows(2).map(|w| (w[0], w[1])).collect();
    sort_by_key(&mut pairs, |&(a, b)| (df(a).max(df(b)), a, b));
    pairs.dedup();
    pairs
        .into_iter()
        .take(PHRASE_PAIRS)
        .map(|(a, b)| Need::Phrase(a.to_string(), b.to_string()))
        .collect()
}

/// The tokens of a query's words and phrases as
/// [`SearchClient::answer`](super::SearchClient::answer)
/// reads them (none when it does not parse).
pub(super) fn query_tokens(query: &str) -> Vec<String> {
    let Ok(parsed) = query::parse(query) else {
        return Vec::new();
    };
    parsed
        .clauses
        .iter()
        .flat_map(|c| match &c.kind {
            ClauseKind::Term { text, .. } | ClauseKind::Phrase { text, .. } => text::tokens(text),
        })
        .map(|t| t.text)
        .collect()
}

/// The query's common terms that score (E2's units: a word twice counts
/// twice), outside excluded clauses and exact phrases: what bounds a record
/// no loaded piece holds, and whose rank chunks are read.
pub(super) fn common_units<'c>(stats: &SearchStats, clauses: &'c [Clause]) -> Vec<&'c str> {
    clauses
        .iter()
        .filter(|(o, p, _)| *o != Occur::MustNot && !p)
        .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
        .filter(|t| stats.common(t).is_some())
        .collect()
}

/// The non-empty subsets of `terms` (sorted as `terms` is).
pub(super) fn subsets<'t>(terms: &[&'t str]) -> Vec<Vec<&'t str>> {
    (1u32..(1 << terms.len()))
        .map(|m| {
            (0..terms.len())
                .filter(|&i| m & (1 << i) != 0)
                .map(|i| terms[i])
                .collect()
        })
        .collect()
}
