//! E2 (`query`, filters, paging, exact facet counts) answered from pieces:
//! the page a shared `?q=` link needs after a few small fetches, equal to
//! the whole registry's answer — same records in the same order, same
//! `number_of_results`, same `meta` — or [`SearchAnswer::Whole`] where the
//! pieces cannot prove it.
//!
//! # Why it is exact
//!
//! E2 scores each record from its own names and four whole-registry
//! numbers: the number of names, their average length, and each query
//! term's document frequency ([`crate::search::GlobalStats`]). Filters and
//! facets read the record's own columns. So an engine over any set of
//! records that holds *every* record of a term answers, for those records,
//! what the whole registry answers. Every query term has such a source:
//!
//! * a term under a typeahead leaf's prefix: that leaf (it holds every
//!   record with a term under the prefix, [`crate::pieces`]);
//! * a term that is itself a split prefix: its own *term piece*, when its
//!   records fit the budget;
//! * otherwise a *common term* (`university`, `of`): too many records for
//!   a piece. Its *member file* ([`crate::shard::search::TermMembers`])
//!   lists its records with their filter and facet columns, and the
//!   statistics file gives its document frequency and shortest name (from
//!   pieces version 8 its *statistics part*, the common terms of its first
//!   character, asked with the statistics file for each query word: which
//!   words are common is known without a round more, and the list of every
//!   common term, which grows with the registry, is not read). A
//!   term no longer term extends whose leaf passes the budget
//!   (`technology`: the typeahead cannot split it, so its leaf grows with
//!   the registry) is a common term too; its leaf serves only when its
//!   rank chunks do not prove a page.
//!
//! Records held by a loaded piece (`U`) are scored and counted there.
//! Records matching only through common terms and held by no loaded piece
//! are counted by set arithmetic: those passing the query's conditions and
//! the filters, minus those in `U`. With at most two common terms the
//! *group files* ([`crate::shard::search::TermGroups`]: records of a term,
//! or of both terms of a pair, counted by their columns) give each set of
//! terms a record may hold exactly, by inclusion and exclusion; with more,
//! the member files of all but the two of most records list theirs, each
//! with the more common terms it holds (pieces version 5), and the group
//! files of those two count the records that hold none of the others. Their score is bounded from above
//! per set of common terms a name may hold, at the shortest length such a
//! name may have (`bound`), plus the exact-name boost when the query's
//! words are all common. A page is answered when every record on it sorts
//! before every record no loaded piece holds: a higher score than the
//! bound, or the bound's score exactly and an earlier place among equal
//! scores than the first record of the unloaded rank chunks (which order
//! equal lengths by prior, then id, as E2 orders equal scores); otherwise
//! only the whole registry can rank the rest: [`SearchAnswer::Whole`].
//! A pair of common terms whose records pass a chunk has rank chunks of
//! its own (its records by their shortest name holding both; the first
//! [`PAIR_RANK_CHUNKS`]): a name holding both is at least as long as the
//! pair's frontier, which rises far faster for a query of both than the
//! terms' own (whose first chunks hold names of one of them alone). They
//! are read once no name of a single term can outrank the page. So are,
//! for a query of three or more common terms, the *triple rank chunks* of
//! three of them held in one name (written, with a group file describing
//! them, when their records pass a tenth of the piece budget; the first
//! [`TRIPLE_RANK_CHUNKS`]): once no case of one term fails and the case
//! leaving the most room holds three or more, a triple of its rarest terms
//! (group file and first chunk in one round; at most [`MAX_TRIPLES`](proof::MAX_TRIPLES) an
//! answer) bounds every name holding all three by its frontier, where the
//! terms' own chunks (names of one first) and a pair's rise only with the
//! records of fewer. A build before them answers 404s: the bound goes on
//! without. A page
//! filtered by one country reads, for each common term, its rank chunks
//! over that country's records (version 6: the first
//! [`FACET_RANK_CHUNKS`], described in the term's group file): every
//! unloaded record passing the filter has a location there, so the
//! country's frontier bounds it as the term's own does, and rises with
//! the country's records alone. A page filtered by one type reads the
//! terms' rank chunks over that type's records likewise (version 7), and
//! one filtered by both bounds a record by the furthest of the three
//! frontiers.
//!
//! The search page's reading (`mode=typed`) lists the typeahead's matches
//! first, in its order: one leaf of a rare word holds them all; for one
//! common word that is a split prefix (`University` + Enter), its typeahead
//! head holds the first of them (the typeahead's order is record-local, so
//! under any filter the head's first matches are the whole registry's), and
//! a page within them is answered from it; filtered by a country or a type
//! whose records of the word fit one rank chunk (versions 6, 7), that chunk
//! holds every match the filter lets through (unless the word's extension
//! piece has one too), so any page of it is answered from the chunk.
//!
//! # Quirks
//!
//! * Prefix (`word*`) and fuzzy (`word~`) terms go to the whole registry.
//!   A query with a digit may be an external id, which only whole records
//!   hold: it reads the *external id pieces* (version 6: whole records by a
//!   hash of their ids' [`crate::text::external_id_key`]) of every text E2
//!   looks up as one, except in the search page's reading (whose typeahead
//!   lists an id's record first) and with an excluded one (`-grid.1.2`: the
//!   other pieces cannot tell which of their records it drops): those go
//!   to the whole registry. So does a quoted phrase made only of common terms unless
//!   one of them has a leaf or one of its pairs of adjacent words a
//!   *phrase piece* (version 6: every record with a name holding the pair,
//!   written when they fit a piece; `"institute of"` has none in a large
//!   registry), or it is two words and the whole query (version 7: the
//!   pair's *phrase rank chunks* and *phrase group file* rank and count
//!   it, [`PHRASE_RANK_CHUNKS`] of them, enough for most first pages but
//!   not a page deep in a filter), and a required one (`+"…"`) unless a
//!   leaf or it is the whole query: a record holding its words apart is no
//!   match, which the group counts cannot tell. The search page's reading
//!   of a quoted phrase of common words lists the typeahead's matches of
//!   its words first, which no piece orders: the whole registry.
//! * A page whose last record the bound cannot place goes to the whole
//!   registry, though its order may well be the same; more likely for deep
//!   pages, filters that leave few records with rare words, and queries of
//!   common words alone. Pieces of version 3 (no chunk first records) get
//!   no help from the order among equal scores.
//! * A query with three or more distinct common terms reads the member
//!   files (linear in records) of all but its two most common (of pieces
//!   older than version 5: of all of them).
//!
//! # Layout
//!
//! [`SearchClient::answer`] runs its steps in order, each able to end the
//! answer early (files to fetch, an invalid request, the whole registry):
//! `answer` reads the request and asks for the first round of files;
//! `phrase` finds the pieces of quoted phrases of common words (or answers
//! a lone one); `typeahead` reads the search page's last word by prefix
//! and finds the piece of the typeahead's matches; `held` ranks and counts
//! the records the loaded pieces hold; `outside` counts those only common
//! terms match; `proof` bounds their scores and proves the page, or names
//! the next files; `page` gives it. Below them: `reading` (the query's
//! clauses and common terms), `sources`, `chunks` and `slices` (where a
//! term's records are; its rank chunks, over all records or a country's
//! or a type's), `load` and `needs` (the files handed in, and their
//! names); `bound` (the score bound) and `build` (what a build writes).

mod answer;
mod bound;
mod build;
mod chunks;
mod held;
mod load;
mod needs;
mod outside;
mod page;
mod phrase;
mod proof;
mod reading;
mod slices;
mod sources;
mod typeahead;

pub use build::{SearchPieces, search_pieces};
pub use needs::{
    FACET_RANK_CHUNKS, MAX_RANK_CHUNKS, Need, PAIR_RANK_CHUNKS, PHRASE_RANK_CHUNKS,
    TRIPLE_RANK_CHUNKS,
};

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

use crate::index::Index;
use crate::search::facets::Meta;
use crate::search::{Engine, Version};
use crate::shard::search::{SearchStats, TermGroups, TermMembers};

use super::route::Directory;

/// A `query` request: what the router reads from the query string.
#[derive(Clone, Debug)]
pub struct ListQuery {
    /// The `query` text (URL-decoded).
    pub query: String,
    /// The `filter` value, if given.
    pub filter: Option<String>,
    /// `all_status` given.
    pub all_status: bool,
    /// Page (1–500).
    pub page: usize,
    /// API version.
    pub version: Version,
    /// `mode=typed`: the search page's reading ([`crate::search::typed`]).
    pub typed: bool,
}

/// One record of a page: its summary (what a results row shows) and its
/// E2 score, the contract's [`registry_contract::Row`].
pub use registry_contract::Row as PageHit;

/// A page of E2 results, as the whole registry would give it.
#[derive(Clone, Debug, PartialEq)]
pub struct PageAnswer {
    /// The page's records, best first.
    pub hits: Vec<PageHit>,
    /// Matches in all.
    pub number_of_results: usize,
    /// Facets over all matches.
    pub meta: Meta,
}

/// What [`SearchClient::answer`] gives.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchAnswer {
    /// Fetch these (all of them; in any order), add them, ask again.
    Need(Vec<Need>),
    /// The answer.
    Page(PageAnswer),
    /// The request is invalid: the whole registry's 400 messages.
    Invalid(Vec<String>),
    /// Only the whole registry can answer; why.
    Whole(&'static str),
}

/// A step of [`SearchClient::answer`]: `Continue` with what the next step
/// reads, or `Break` with the answer when the step decides it (files to
/// fetch, an invalid request, the whole registry, or a page).
type Step<T> = ControlFlow<SearchAnswer, T>;

/// The answer a step decided, early or at its end.
fn decided(step: Step<SearchAnswer>) -> SearchAnswer {
    match step {
        ControlFlow::Break(answer) | ControlFlow::Continue(answer) => answer,
    }
}

/// E2 over pieces: the files loaded so far. Pieces are shared with the
/// typeahead's files (leaves, id pieces, directory parts), so a host may
/// hand the same bytes to both clients.
#[derive(Default)]
pub struct SearchClient {
    stats: Option<(SearchStats, Index)>,
    dir: Directory,
    has_ids: bool,
    engines: HashMap<Need, Engine>,
    members: HashMap<String, TermMembers>,
    groups: HashMap<Vec<String>, TermGroups>,
    /// Phrase group files, by their two terms in the phrase's order.
    phrase_groups: HashMap<(String, String), TermGroups>,
    /// Split prefixes whose extension piece was not written (too big).
    no_extension: HashSet<String>,
    /// Rank chunks one answer may load ([`MAX_RANK_CHUNKS`] unless set).
    chunk_allowance: Option<u32>,
    /// The statistics parts handed in (version 8), by first character.
    parts: HashSet<String>,
    /// Those handed in before the statistics file, which checks them.
    early_parts: Vec<(String, Vec<u8>)>,
}

impl SearchClient {
    /// A client for a (sharded or complete) typeahead directory.
    pub fn new(dir: Directory) -> SearchClient {
        SearchClient {
            dir,
            ..SearchClient::default()
        }
    }

    /// Says that the build has id pieces.
    pub fn with_id_pieces(mut self) -> SearchClient {
        self.has_ids = true;
        self
    }

    /// Loads at most `n` rank chunks for one answer before leaving the
    /// page to the whole registry (default and most [`MAX_RANK_CHUNKS`]: a
    /// build writes no more of a term's chunks than one answer may load):
    /// a test of what follows the allowance sets a lower one.
    pub fn with_rank_chunk_allowance(mut self, n: u32) -> SearchClient {
        self.chunk_allowance = Some(n.min(MAX_RANK_CHUNKS));
        self
    }
}
