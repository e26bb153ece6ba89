//! The search page's reading (`mode=typed`): its last word also by prefix,
//! and the typeahead's matches first, from the piece that holds them.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow::{Break, Continue};

use crate::search::query::{ClauseKind, Occur};
use crate::search::{Engine, typed};
use crate::shard::pieces::PieceKind;
use crate::text::{self, TokenKind};

use super::reading::Reading;
use super::{Need, SearchAnswer, SearchClient, Step};

/// The last word of the search page's reading, read by prefix.
#[derive(Default)]
pub(super) struct LastWord<'a> {
    /// Its whole-registry document frequency as a prefix, by its term.
    pub prefix_df: HashMap<String, usize>,
    /// Its extension piece, when it needs one: the records of the other
    /// terms it begins.
    pub extension: Option<&'a Engine>,
}

/// The piece that holds the typeahead's matches, which the search page's
/// reading lists first.
#[derive(Default)]
pub(super) struct First<'a> {
    pub piece: Option<&'a Engine>,
    /// The piece is the typeahead head of the query's one word: it holds
    /// only the first of the typeahead's matches.
    pub from_head: bool,
}

impl SearchClient {
    /// The last word's prefix: its own records and its extensions' (a
    /// leaf holds both; else its term piece or member file, and its
    /// extension piece), and its whole-registry document frequency.
    pub(super) fn last_word<'a>(&'a self, r: &Reading) -> Step<LastWord<'a>> {
        let Some(t) = r.last_token() else {
            return Continue(LastWord::default());
        };
        let t = t.text.as_str();
        let extension = match self.extension(r.stats, t) {
            Ok(Some(Some(e))) => Some(e),
            Ok(Some(None)) => {
                return Break(SearchAnswer::Whole(
                    "the word typed last begins too many other words",
                ));
            }
            Ok(None) => None,
            Err(n) => return Break(SearchAnswer::Need(vec![n])),
        };
        let df = match (r.stats.common(t), self.piece_of(t)) {
            (Some(c), _) => c.prefix_df.unwrap_or(c.df) as usize,
            (None, Ok(Some(n @ Need::Leaf(_)))) => match self.engines.get(&n) {
                Some(e) => e.prefix_df(t),
                None => return Break(SearchAnswer::Need(vec![n])),
            },
            (None, Ok(None)) => 0,
            (None, Ok(Some(n))) => {
                let (Some(own), Some(x)) = (self.engines.get(&n), extension) else {
                    return Break(SearchAnswer::Need(vec![n]));
                };
                split_prefix_df(own, x, t)
            }
            (None, Err(n)) => return Break(SearchAnswer::Need(vec![n])),
        };
        let mut prefix_df = HashMap::new();
        prefix_df.insert(t.to_string(), df);
        Continue(LastWord {
            prefix_df,
            extension,
        })
    }

    /// The piece that holds the typeahead's matches (the search page's
    /// reading; none otherwise, and none when a word no name starts with
    /// means there are none).
    pub(super) fn typeahead_first<'a>(
        &'a self,
        r: &Reading,
        extension: Option<&Engine>,
    ) -> Step<First<'a>> {
        if !r.q.typed {
            return Continue(First::default());
        }
        let words = text::tokens(&typed::typed_words(r.parsed));
        if words.len() > crate::search::MAX_QUERY_TERMS {
            return Break(SearchAnswer::Whole(
                "too many words for the typeahead's reading",
            ));
        }
        // Every typeahead match has a term under each of its words'
        // prefixes: one leaf of a word holds them all; a word no name
        // starts with means there are none.
        let mut none = false;
        let mut piece: Option<&Engine> = None;
        for t in words
            .iter()
            .filter(|t| required(t) && !r.is_common(&t.text))
        {
            match self.piece_of(&t.text) {
                Ok(None) => none = true,
                Ok(Some(n @ Need::Leaf(_))) if piece.is_none() => match self.engines.get(&n) {
                    Some(e) => piece = Some(e),
                    None => return Break(SearchAnswer::Need(vec![n])),
                },
                Ok(_) => {}
                Err(n) => return Break(SearchAnswer::Need(vec![n])),
            }
        }
        // Else a common word that still has a leaf of its own (a term
        // too common to split: E2 reads it as common, the typeahead by
        // its leaf).
        for t in words.iter().filter(|t| required(t) && r.is_common(&t.text)) {
            if none || piece.is_some() {
                break;
            }
            match self.piece_of(&t.text) {
                Ok(Some(n @ Need::Leaf(_))) => match self.engines.get(&n) {
                    Some(e) => piece = Some(e),
                    None => return Break(SearchAnswer::Need(vec![n])),
                },
                Ok(_) => {}
                Err(n) => return Break(SearchAnswer::Need(vec![n])),
            }
        }
        if none {
            return Continue(First::default());
        }
        match piece {
            Some(e) => Continue(First {
                piece: Some(e),
                from_head: false,
            }),
            None => self.first_of_common_word(r, &words, extension),
        }
    }

    /// One common word, a split prefix: its typeahead head holds the first
    /// of the typeahead's matches, in its order (the order is
    /// record-local: the head's first matches under any filter are the
    /// whole registry's); the page must lie within them.
    fn first_of_common_word<'a>(
        &'a self,
        r: &Reading,
        words: &[text::Token],
        extension: Option<&Engine>,
    ) -> Step<First<'a>> {
        let [w] = words else {
            return Break(SearchAnswer::Whole(
                "no word of the query lies in one piece",
            ));
        };
        let single = matches!(
            r.parsed.clauses.as_slice(),
            [c] if c.occur == Occur::Should
                && matches!(c.kind, ClauseKind::Term { prefix: false, fuzzy: false, .. })
        );
        if !single || !required(&w) || self.dir.get(&w.text).map(|d| d.0) != Some(PieceKind::Head) {
            return Break(SearchAnswer::Whole(
                "no word of the query lies in one piece",
            ));
        }
        // A filter by a country or a type whose records of the word
        // fit one rank chunk (versions 6, 7): that chunk holds every
        // record of the word the filter lets through, so, when no
        // record of the extension piece passes it (whatever its
        // status: the typeahead lists some inactive ones), every
        // match there is, in the typeahead's order from it alone.
        // (The extension piece is scanned only when such a chunk
        // may serve.)
        let extension_passes = || {
            extension.is_some_and(|x| {
                let local = r.filters.relocate(r.countries, x.index());
                (0..x.registry().len() as u32).any(|rec| local.matches(x.index(), rec, true))
            })
        };
        let whole_slice = r.slices.iter().copied().find(
            |&s| matches!(self.slice_described(&w.text, s), Some(Some(d)) if d.chunks.is_empty()),
        );
        if let Some(slice) = whole_slice.filter(|_| !extension_passes()) {
            let need = slice.rank_chunk(r.stats, &w.text, 0);
            match self.engines.get(&need) {
                Some(e) if !e.registry().is_empty() => {
                    return Continue(First {
                        piece: Some(e),
                        from_head: false,
                    });
                }
                Some(_) => {} // not written (a broken deploy): the head
                None => return Break(SearchAnswer::Need(vec![need])),
            }
        }
        let need = Need::Head(w.text.clone());
        match self.engines.get(&need) {
            Some(e) => Continue(First {
                piece: Some(e),
                from_head: true,
            }),
            None => Break(SearchAnswer::Need(vec![need])),
        }
    }
}

/// Whether the typeahead requires word `t` of a match (a word, not one of
/// the optional ones).
fn required(t: &&text::Token) -> bool {
    t.kind == TokenKind::Word && !text::is_optional_word(&t.text)
}

/// The document frequency of split term `t` as a prefix, from its own
/// term piece (`own`) and its extension piece (`x`): the extensions'
/// names, and the names holding the word itself of records the extension
/// piece does not hold.
fn split_prefix_df(own: &Engine, x: &Engine, t: &str) -> usize {
    let xreg = x.registry();
    let in_x: HashSet<u32> = (0..xreg.len()).map(|r| xreg.id(r).number()).collect();
    let (ix, reg) = (own.index(), own.registry());
    let alone = ix.term_id(t).map_or(0, |id| {
        ix.postings(id)
            .iter()
            .filter(|&&e| !in_x.contains(&reg.id(ix.entry_record(e) as usize).number()))
            .count()
    });
    x.prefix_df(t) + alone
}
