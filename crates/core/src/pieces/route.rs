//! Which piece answers a query, from the directory alone.

use crate::order::{sort, sort_by};
use crate::shard::pieces::{PieceKind, PieceSpec, first_char};
use crate::text::{self, TokenKind};

/// The directory of a piece set, as a client holds it. Complete (every
/// piece with its record count, [`Directory::of`]) or, as shipped, only the
/// split prefixes, in one part per first character
/// ([`Directory::sharded`] + [`Directory::add_split_keys`]), so that what a
/// client fetches does not grow with the registry: every other prefix on a
/// path is then a leaf whose file may not exist (no record under it).
#[derive(Clone, Debug, Default)]
pub struct Directory {
    entries: Vec<(String, PieceKind, u32)>,
    complete: bool,
    /// First characters that have split prefixes (sorted), and those whose
    /// part is loaded.
    firsts: Vec<String>,
    loaded: Vec<String>,
}

impl Directory {
    /// From (prefix, kind, record count) entries of every piece.
    pub fn new(mut entries: Vec<(String, PieceKind, u32)>) -> Directory {
        sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        Directory {
            entries,
            complete: true,
            ..Directory::default()
        }
    }

    /// From piece specs (complete).
    pub fn of(specs: &[PieceSpec]) -> Directory {
        Directory::new(
            specs
                .iter()
                .filter(|s| s.kind != PieceKind::Id)
                .map(|s| (s.key.clone(), s.kind, s.records.len() as u32))
                .collect(),
        )
    }

    /// From every split prefix at once.
    pub fn from_split_keys(keys: impl IntoIterator<Item = String>) -> Directory {
        let keys: Vec<String> = keys.into_iter().collect();
        let mut d = Directory::sharded(keys.iter().map(|k| first_char(k).to_string()));
        for f in d.firsts.clone() {
            d.add_split_keys(&f, keys.iter().filter(|k| first_char(k) == f).cloned());
        }
        d
    }

    /// A directory whose parts are loaded later: `firsts` are the first
    /// characters that have split prefixes (what the manifest lists).
    pub fn sharded(firsts: impl IntoIterator<Item = String>) -> Directory {
        let mut firsts: Vec<String> = firsts.into_iter().collect();
        sort(&mut firsts);
        firsts.dedup();
        Directory {
            firsts,
            ..Directory::default()
        }
    }

    /// Loads the part of first character `first`: its split prefixes.
    pub fn add_split_keys(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.entries
            .extend(keys.into_iter().map(|k| (k, PieceKind::Head, 0)));
        sort_by(&mut self.entries, |a, b| a.0.cmp(&b.0));
        self.entries.dedup_by(|a, b| a.0 == b.0);
        if let Err(i) = self.loaded.binary_search_by(|l| l.as_str().cmp(first)) {
            self.loaded.insert(i, first.to_string());
        }
    }

    /// The part a unit starting with `first` needs, if it is not loaded.
    pub(super) fn missing_part<'a>(&self, first: &'a str) -> Option<&'a str> {
        let listed = self
            .firsts
            .binary_search_by(|f| f.as_str().cmp(first))
            .is_ok();
        let loaded = self
            .loaded
            .binary_search_by(|f| f.as_str().cmp(first))
            .is_ok();
        (!self.complete && listed && !loaded).then_some(first)
    }

    /// The split prefixes.
    pub fn split_keys(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(|e| e.1 == PieceKind::Head)
            .map(|e| e.0.as_str())
    }

    /// A node: kind and record count (`u32::MAX` when unknown).
    pub(super) fn get(&self, key: &str) -> Option<(PieceKind, u32)> {
        match self.entries.binary_search_by(|e| e.0.as_str().cmp(key)) {
            Ok(i) => Some((self.entries[i].1, self.entries[i].2)),
            Err(_) if !self.complete => Some((PieceKind::Leaf, u32::MAX)),
            Err(_) => None,
        }
    }

    /// Number of pieces listed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none is listed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Where a query is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// Load the directory part of this first character first.
    Directory(String),
    /// This leaf holds every candidate.
    Leaf(String),
    /// This head holds the answer (unless filters leave fewer than `k`).
    Head(String),
    /// No record can match.
    Empty,
    /// Only the whole typeahead data can answer.
    Whole,
}

/// Which piece answers `text` (see the module docs).
pub fn route(dir: &Directory, text: &str) -> Route {
    if crate::RecordId::parse(text.trim()).is_ok() {
        return Route::Whole;
    }
    route_terms(dir, text)
}

/// [`route`] for text read as words, also when it is an id (of no record).
pub(super) fn route_terms(dir: &Directory, text: &str) -> Route {
    let text = text.trim();
    if text.is_empty()
        || text.chars().count() > crate::search::MAX_QUERY_CHARS
        || text::looks_like_external_id(text)
    {
        return Route::Whole;
    }
    let toks = text::tokens(text);
    let words = toks.iter().filter(|t| t.kind == TokenKind::Word).count();
    // Units that every match must contain (a subset of suggest's: optional
    // words only when the query is that one word).
    let required = toks.iter().filter(|t| match t.kind {
        TokenKind::Word => words == 1 || !text::is_optional_word(&t.text),
        TokenKind::Bigram => true,
        TokenKind::Unigram => !text::in_bigram(&toks, t),
    });
    let required: Vec<&text::Token> = required.collect();
    if let Some(first) = required
        .iter()
        .find_map(|t| dir.missing_part(first_char(&t.text)))
    {
        return Route::Directory(first.to_string());
    }
    let mut best: Option<(u32, &str)> = None;
    let mut head = None;
    for t in required {
        // The deepest node on the unit's path: through split prefixes to
        // a leaf, or to the unit's own split prefix.
        let mut node = None;
        for (i, _) in t.text.char_indices().skip(1).chain([(t.text.len(), ' ')]) {
            match dir.get(&t.text[..i]) {
                Some(n) => {
                    node = Some((&t.text[..i], n));
                    if n.0 == PieceKind::Leaf {
                        break;
                    }
                }
                None => break,
            }
        }
        match node {
            // The directory never lists id pieces ([`Directory::of`]).
            None | Some((_, (PieceKind::Id, _))) => return Route::Empty,
            Some((key, (PieceKind::Leaf, count))) => {
                // Fewest records; unknown counts: the longest prefix.
                let better = best.is_none_or(|(c, k): (u32, &str)| {
                    count < c || count == c && key.len() > k.len()
                });
                if better {
                    best = Some((count, key));
                }
            }
            Some((key, (PieceKind::Head, _))) => {
                if key.len() < t.text.len() {
                    // Split, and no term continues with the next character.
                    return Route::Empty;
                }
                if toks.len() == 1 {
                    head = Some(key);
                }
            }
        }
    }
    match (best, head) {
        (Some((_, key)), _) => Route::Leaf(key.to_string()),
        (None, Some(key)) => Route::Head(key.to_string()),
        (None, None) => Route::Whole,
    }
}
