//! The typeahead over pieces: the directory and the pieces loaded so far;
//! the host fetches what [`PieceClient::answer`] asks for.

use super::route::{Directory, Route, route, route_terms};
use crate::search::context::domain_of;
use crate::search::{Engine, SuggestContext};
use crate::shard::pieces::{ExactWords, PieceKind, id_key};
use crate::text::{self, TokenKind};

/// What [`PieceClient::answer`] gives.
#[derive(Debug)]
pub enum Answer {
    /// The suggestions, exactly as the whole registry gives them (their
    /// `index` is the record's index in its piece; use `summary.id`).
    Hits(Vec<crate::search::Suggestion>),
    /// Load this piece (prefix, leaf or head: its file name depends on
    /// it) first ([`PieceClient::add`]), then ask again.
    Need(String, PieceKind),
    /// The first suggestions of the whole registry's answer, proven from a
    /// loaded head of a shorter prefix ([`ExactWords`]), but fewer than
    /// asked for: show them, load this piece, then ask again for the rest.
    Partial(Vec<crate::search::Suggestion>, String, PieceKind),
    /// Load the directory part of this first character first
    /// ([`PieceClient::add_directory`]), then ask again.
    NeedDirectory(String),
    /// Only the whole typeahead data can answer this.
    Whole,
}

/// A typeahead over pieces: the directory and the pieces loaded so far.
/// The host fetches what [`PieceClient::answer`] asks for.
#[derive(Default)]
pub struct PieceClient {
    dir: Directory,
    loaded: std::collections::HashMap<String, Engine>,
    /// For each loaded head with exact words, by prefix: those words and
    /// the ranking key of its last record for its own prefix (what a
    /// longer query's hits must rank above to be proven).
    bounds: std::collections::HashMap<String, (ExactWords, crate::search::suggest::Key)>,
    /// Id pieces by key (their keys could equal a term prefix).
    ids: std::collections::HashMap<String, Engine>,
    /// Whether the build has id pieces (manifest `id_chars`).
    has_ids: bool,
}

impl PieceClient {
    /// A client for a directory, no piece loaded.
    pub fn new(dir: Directory) -> PieceClient {
        PieceClient {
            dir,
            ..PieceClient::default()
        }
    }

    /// Says that the build has id pieces ([`id_key`]); without them, ids
    /// are answered by the whole data.
    pub fn with_id_pieces(mut self) -> PieceClient {
        self.has_ids = true;
        self
    }

    /// Loads the id piece of key `key` from its file bytes.
    pub fn add_id(&mut self, key: &str, bytes: &[u8]) -> Result<(), crate::ShardError> {
        let registry = crate::Registry::from_bytes(bytes)?;
        self.ids.insert(key.to_string(), Engine::new(registry));
        Ok(())
    }

    /// Records that the id piece `key` does not exist (no record's id
    /// starts so).
    pub fn add_missing_id(&mut self, key: &str) {
        self.ids
            .insert(key.to_string(), Engine::new(crate::Registry::empty()));
    }

    /// Loads the piece of prefix `key` from its file bytes.
    pub fn add(&mut self, key: &str, bytes: &[u8]) -> Result<(), crate::ShardError> {
        let mut file = crate::shard::read_file(bytes)?;
        let words = match file
            .sections
            .iter()
            .position(|(k, _)| *k == crate::shard::SectionKind::ExactWords)
        {
            Some(i) => Some(ExactWords::decode(&file.sections.swap_remove(i).1)?),
            None => None,
        };
        let engine = Engine::new(crate::Registry::from_read_file(file)?);
        if let Some(words) = words {
            let own = engine.suggest_keyed(
                key,
                &crate::search::Filters::default(),
                engine.registry().len(),
                &SuggestContext::default(),
            );
            if let Some(bound) = own.last().and_then(|(k, _)| *k) {
                self.bounds.insert(key.to_string(), (words, bound));
            }
        }
        self.loaded.insert(key.to_string(), engine);
        Ok(())
    }

    /// Loads the directory part of first character `first` (its split
    /// prefixes).
    pub fn add_directory(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.dir.add_split_keys(first, keys);
    }

    /// Records that the piece of prefix `key` does not exist (its file
    /// was not found: no record has a term under that prefix).
    pub fn add_missing(&mut self, key: &str) {
        let empty = crate::Registry::empty();
        self.loaded.insert(key.to_string(), Engine::new(empty));
    }

    /// Whether the piece of prefix `key` is loaded.
    pub fn has(&self, key: &str) -> bool {
        self.loaded.contains_key(key)
    }

    /// The route of `text` ([`route`]).
    pub fn route(&self, text: &str) -> Route {
        route(&self.dir, text)
    }

    /// Suggestions for `text` under the filter value `filter` (the API's
    /// syntax, v2 keys), at most `k`, in the context `ctx` of the form
    /// ([`Engine::suggest_in`]; what a piece can answer under it: the
    /// module docs).
    pub fn answer(
        &self,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Answer, Vec<String>> {
        // The records of an e-mail domain are found by the `domains`
        // section, which no piece has (decided before any download).
        if ctx.email_domain.as_deref().and_then(domain_of).is_some() {
            return Ok(Answer::Whole);
        }
        // An id: its record is in one id piece (and the whole registry
        // answers it alone, filters aside). An id of no record is text
        // like any other for the whole registry: routed as such below.
        if let Ok(id) = crate::RecordId::parse(text.trim())
            && self.has_ids
        {
            let key = id_key(id);
            let Some(engine) = self.ids.get(&key) else {
                return Ok(Answer::Need(key, PieceKind::Id));
            };
            if engine.registry().index_of(id).is_some() {
                let filters = crate::search::Filters::parse_in_part(
                    filter,
                    crate::search::Version::V2,
                    engine.index(),
                )?;
                return Ok(Answer::Hits(engine.suggest_in(text, &filters, k, ctx)));
            }
            return self.answer_terms(route_terms(&self.dir, text), text, filter, k, ctx);
        }
        self.answer_terms(self.route(text), text, filter, k, ctx)
    }

    fn answer_terms(
        &self,
        route: Route,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Answer, Vec<String>> {
        let (key, head) = match route {
            Route::Empty => return Ok(Answer::Hits(Vec::new())),
            Route::Whole => return Ok(Answer::Whole),
            Route::Directory(first) => return Ok(Answer::NeedDirectory(first)),
            Route::Leaf(key) => (key, false),
            Route::Head(_) if lifts(ctx) => return Ok(Answer::Whole),
            Route::Head(key) => (key, true),
        };
        let Some(engine) = self.loaded.get(&key) else {
            let kind = if head {
                PieceKind::Head
            } else {
                PieceKind::Leaf
            };
            return Ok(match self.proven_by_shorter_head(text, filter, k, ctx)? {
                Some(hits) if hits.len() >= k => Answer::Hits(hits),
                Some(hits) => Answer::Partial(hits, key, kind),
                None => Answer::Need(key, kind),
            });
        };
        let filters = crate::search::Filters::parse_in_part(
            filter,
            crate::search::Version::V2,
            engine.index(),
        )?;
        let hits = engine.suggest_in(text, &filters, k, ctx);
        // A head holds the best records of the unfiltered query: filtered,
        // it is complete only when k of them remain.
        if head && hits.len() < k && filters != crate::search::Filters::default() {
            return Ok(Answer::Whole);
        }
        Ok(Answer::Hits(hits))
    }
}

impl PieceClient {
    /// The first hits of one-word `text` that a loaded head of a shorter
    /// prefix proves ([`ExactWords`]): those ranking above the head's last
    /// record for its own prefix. `None` when no head proves any.
    fn proven_by_shorter_head(
        &self,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Option<Vec<crate::search::Suggestion>>, Vec<String>> {
        if lifts(ctx) {
            return Ok(None);
        }
        let toks = text::tokens(text);
        let [tok] = toks.as_slice() else {
            return Ok(None);
        };
        if tok.kind != TokenKind::Word {
            return Ok(None);
        }
        let q = tok.text.as_str();
        // The deepest loaded head first: it bounds the most records.
        for (i, _) in q
            .char_indices()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let p = &q[..i];
            let (Some(engine), Some((words, bound))) = (self.loaded.get(p), self.bounds.get(p))
            else {
                continue;
            };
            if !words.rules_out(q) {
                continue;
            }
            let filters = crate::search::Filters::parse_in_part(
                filter,
                crate::search::Version::V2,
                engine.index(),
            )?;
            let hits: Vec<crate::search::Suggestion> = engine
                .suggest_keyed(text, &filters, k, ctx)
                .into_iter()
                .take_while(|(key, _)| key.is_some_and(|key| key < *bound))
                .map(|(_, h)| h)
                .collect();
            if !hits.is_empty() {
                return Ok(Some(hits));
            }
        }
        Ok(None)
    }
}

/// Whether `ctx` may rank a record above others for something besides the
/// text (a preference, a remembered pick): then a head, which holds the
/// best records of its query without context, may lack one that the whole
/// registry would show. (Blank values prefer nothing; any other value
/// counts, even one the whole registry ignores: a needless `Whole` is
/// slower, never wrong.)
fn lifts(ctx: &SuggestContext) -> bool {
    let any = |v: &[String]| v.iter().any(|s| !s.trim().is_empty());
    any(&ctx.prefer_countries) || any(&ctx.prefer_types) || !ctx.remembered.is_empty()
}
