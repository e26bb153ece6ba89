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
//! (group file and first chunk in one round; at most [`MAX_TRIPLES`] an
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

mod bound;
mod build;

pub use build::{SearchPieces, search_pieces};

use crate::order::{sort, sort_by, sort_by_key};
use std::collections::{HashMap, HashSet};

use crate::index::Index;
use crate::registry::RecordSummary;
use crate::search::facets::{FacetCounts, Meta};
use crate::search::query::{self, ClauseKind, Occur};
use crate::search::{Engine, Filters, GlobalStats, PAGE_SIZE, Version, typed};
use crate::shard::pieces::{PieceKind, first_char, id_key};
use crate::shard::search::{
    ChunkFirst, FacetChunks, Group, SearchStats, TermGroups, TermMembers, decode_terms, term_part,
};
use crate::shard::{SectionKind, ShardError, read_file};
use crate::text::{self, TokenKind};
use crate::{RecordId, Registry};

use super::route::Directory;

/// Most rank chunks one answer loads before it leaves the page to the
/// whole registry (each is a leaf's size: ~15–20 KB compressed; twelve,
/// ~250 KB, against the whole registry's 3 MB at 36,000 records and 10 MB
/// at 144,000: `registry bench-pieces` answered 95.5 % / 91.4 % of its
/// requests with twelve, 94.4 % / 89.5 % with six).
pub const MAX_RANK_CHUNKS: u32 = 12;

/// Phrase pieces one quoted phrase of common words may ask for (its
/// pairs of adjacent words of the rarest words).
const PHRASE_PAIRS: usize = 3;

/// Rank chunks written for a pair of common terms (with its own group
/// file): its group file describes one more, where the unwritten begin.
pub const PAIR_RANK_CHUNKS: usize = 2;

/// Rank chunks written for a triple of common terms held in one name: its
/// group file describes one more, where the unwritten begin. (One: at
/// 144,000 records, of 432 triples' chunks `registry bench-pieces` read,
/// 4 were a second.)
pub const TRIPLE_RANK_CHUNKS: usize = 1;

/// Triples of common terms one answer may ask for (each a group file and
/// its first rank chunk, in one round): a query of several common words
/// has many, and each is a round trip.
const MAX_TRIPLES: usize = 3;

/// Rank chunks written for a common term over one country's records
/// (version 6: two) or one type's (version 7: six, and six of each
/// country's; since packs, three): its group file describes one more,
/// where the unwritten begin. (A group file read with this count may say
/// more chunks than a reader reads: it reads the first three, and the
/// country's frontier then yields to the term's own; a version-6 one says
/// one more than was written: not listed, so answered as missing without
/// a request.) Three: at 143,960 records the fourth to sixth were 4 % of
/// the reads of such chunks in `registry bench-pieces`, and about a third
/// of their 113 MB.
pub const FACET_RANK_CHUNKS: usize = 3;

/// Rank chunks written for a pair of common terms held one right after
/// the other whose records do not fit a phrase piece (version 7): its
/// group file describes one more, where the unwritten begin.
pub const PHRASE_RANK_CHUNKS: usize = 4;

/// The records of one filter value over which common terms have rank
/// chunks of their own: the one country, or the one type, every record a
/// filter lets through has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slice {
    /// An index into [`SearchStats::countries`].
    Country(u16),
    /// A type's bit ([`crate::model::TYPES`]).
    Type(u16),
}

impl Slice {
    /// The file of rank chunk `n` of common term `t` over this slice.
    fn rank_chunk(self, stats: &SearchStats, t: &str, n: u32) -> Need {
        match self {
            Slice::Country(c) => {
                Need::CountryRank(t.to_string(), stats.countries[c as usize].code.clone(), n)
            }
            Slice::Type(b) => Need::TypeRank(
                t.to_string(),
                crate::model::TYPES[b as usize].to_string(),
                n,
            ),
        }
    }
}

/// A file the answer needs; the host fetches it and hands it to
/// [`SearchClient::add`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Need {
    /// The statistics file (manifest `pieces.search.stats`).
    Stats,
    /// A statistics part (version 8): the common terms of one first
    /// character (a 404: none, or an older build, whose statistics file
    /// lists them all).
    StatsPart(String),
    /// The typeahead directory part of a first character.
    Directory(String),
    /// A typeahead leaf, by prefix.
    Leaf(String),
    /// A typeahead head, by prefix: the search page's reading of one
    /// common word reads its first page there.
    Head(String),
    /// The piece of a split term.
    Term(String),
    /// The member file of a common term.
    Members(String),
    /// The group file of one or two common terms (sorted).
    Groups(Vec<String>),
    /// Rank chunk `n` of a common term.
    Rank(String, u32),
    /// Rank chunk `n` of a pair of common terms (sorted; version 5).
    PairRank(String, String, u32),
    /// Rank chunk `n` of a triple of common terms held in one name (sorted;
    /// a 404: the build wrote none, the triple's records are few or none).
    SetRank(Vec<String>, u32),
    /// Rank chunk `n` of a common term over the records of a country (its
    /// code; version 6).
    CountryRank(String, String, u32),
    /// Rank chunk `n` of a common term over the records of a type (its
    /// name, `education`; version 7).
    TypeRank(String, String, u32),
    /// Rank chunk `n` of the records with a name holding one common term
    /// right before another (version 7; written when they do not fit a
    /// phrase piece).
    PhraseRank(String, String, u32),
    /// The group file of those records (version 7): their counts by
    /// columns and their rank chunks (a 404: a phrase piece holds them,
    /// or an older build).
    PhraseGroups(String, String),
    /// The *phrase piece* of two common terms (version 6): every record
    /// with a name holding the first right before the second, when they
    /// fit a piece (a 404 otherwise).
    Phrase(String, String),
    /// An external id piece, by bucket
    /// ([`crate::shard::search::external_bucket`]; version 6): the whole
    /// records with an external id there (a 404: none).
    External(u32),
    /// A typeahead id piece, by key.
    Id(String),
    /// The extension piece of a split prefix: the records of every other
    /// term that starts with it (a 404: too many to fetch).
    Extension(String),
}

impl Need {
    /// The file's name in the pieces folder (`pieces.path` of the
    /// manifest): what the host fetches. Prefixes and terms are written in
    /// hex (any script, no escaping); a 404 means the file has no records.
    pub fn file_name(&self) -> String {
        let hex = |s: &str| -> String { s.bytes().map(|b| format!("{b:02x}")).collect() };
        match self {
            Need::Stats => "search.stats".to_string(),
            Need::StatsPart(first) => format!("s-{}.shard", hex(first)),
            Need::Directory(first) => format!("d-{}.json", hex(first)),
            Need::Leaf(prefix) => format!("{}.shard", hex(prefix)),
            Need::Head(prefix) => format!("{}.h.shard", hex(prefix)),
            Need::Term(term) => format!("t-{}.shard", hex(term)),
            Need::Members(term) => format!("c-{}.shard", hex(term)),
            Need::Groups(terms) => {
                let terms: Vec<String> = terms.iter().map(|t| hex(t)).collect();
                format!("g-{}.shard", terms.join("-"))
            }
            Need::Rank(term, n) => format!("k-{}-{n}.shard", hex(term)),
            Need::PairRank(a, b, n) => format!("k-{}-{}-{n}.shard", hex(a), hex(b)),
            Need::SetRank(terms, n) => {
                let terms: Vec<String> = terms.iter().map(|t| hex(t)).collect();
                format!("k-{}-{n}.shard", terms.join("-"))
            }
            Need::CountryRank(t, code, n) => format!("kc-{}-{}-{n}.shard", hex(t), hex(code)),
            Need::TypeRank(t, kind, n) => format!("kt-{}-{}-{n}.shard", hex(t), hex(kind)),
            Need::PhraseRank(a, b, n) => format!("pk-{}-{}-{n}.shard", hex(a), hex(b)),
            Need::PhraseGroups(a, b) => format!("pg-{}-{}.shard", hex(a), hex(b)),
            Need::Phrase(a, b) => format!("p-{}-{}.shard", hex(a), hex(b)),
            Need::External(bucket) => format!("e-{bucket:x}.shard"),
            Need::Id(key) => format!("i-{key}.shard"),
            Need::Extension(prefix) => format!("x-{}.shard", hex(prefix)),
        }
    }
}

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

/// One record of a page.
#[derive(Clone, Debug, PartialEq)]
pub struct PageHit {
    /// The record's summary (what a results row shows).
    pub summary: RecordSummary,
    /// Its E2 score.
    pub score: f32,
}

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

/// Where a query token's records are.
enum Source<'a> {
    Engine(&'a Engine),
    Common(&'a crate::shard::search::CommonTerm),
    Nothing,
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

    /// Loads the statistics file.
    pub fn add_stats(&mut self, bytes: &[u8]) -> Result<(), ShardError> {
        let stats = SearchStats::decode(&section(bytes, SectionKind::SearchStats)?)?;
        let countries = Index::country_table(
            stats
                .countries
                .iter()
                .map(|c| (c.code.as_str(), c.title.as_str(), c.names.as_slice())),
        );
        self.stats = Some((stats, countries));
        for (first, bytes) in std::mem::take(&mut self.early_parts) {
            self.add_terms(&first, &bytes)?;
        }
        Ok(())
    }

    /// Loads statistics part `first` (version 8) into the statistics.
    fn add_terms(&mut self, first: &str, bytes: &[u8]) -> Result<(), ShardError> {
        let Some((stats, _)) = &mut self.stats else {
            self.early_parts.push((first.to_string(), bytes.to_vec()));
            return Ok(());
        };
        // An older build's statistics list every common term.
        if stats.term_parts.is_some() {
            let terms = decode_terms(&section(bytes, SectionKind::SearchTerms)?, first, stats)?;
            stats.add_terms(terms);
        }
        Ok(())
    }

    /// The statistics parts the common terms of `tokens` are in that are
    /// not loaded (version 8; none before).
    fn missing_parts<'t>(&self, tokens: impl IntoIterator<Item = &'t str>) -> Vec<Need> {
        if self
            .stats
            .as_ref()
            .is_some_and(|s| s.0.term_parts.is_none())
        {
            return Vec::new();
        }
        let mut out: Vec<Need> = tokens
            .into_iter()
            .map(|t| term_part(t).to_string())
            .filter(|p| !p.is_empty() && !self.parts.contains(p))
            .map(Need::StatsPart)
            .collect();
        sort(&mut out);
        out.dedup();
        out
    }

    /// Loads the directory part of first character `first`.
    pub fn add_directory(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.dir.add_split_keys(first, keys);
    }

    /// Loads a file asked for by [`Need`]; `None`: it does not exist (HTTP
    /// 404: no record under that prefix or id key).
    pub fn add(&mut self, need: &Need, bytes: Option<&[u8]>) -> Result<(), ShardError> {
        match need {
            Need::Stats => match bytes {
                Some(b) => self.add_stats(b),
                None => Err(ShardError::Malformed {
                    section: SectionKind::SearchStats,
                    offset: 0,
                    what: "the statistics file is missing".into(),
                }),
            },
            Need::StatsPart(first) => {
                if let Some(b) = bytes {
                    self.add_terms(first, b)?;
                }
                self.parts.insert(first.clone());
                Ok(())
            }
            Need::Directory(first) => {
                // A directory part is JSON, handed in by `add_directory`.
                self.dir.add_split_keys(first, Vec::new());
                Ok(())
            }
            Need::Members(term) => {
                let countries = self.stats.as_ref().map_or(0, |s| s.0.countries.len());
                let m = match bytes {
                    Some(b) => {
                        let m =
                            TermMembers::decode(&section(b, SectionKind::TermMembers)?, countries)?;
                        // Positions into the statistics' common terms, which
                        // say whether the file must have them.
                        let (holds, common) = self
                            .stats
                            .as_ref()
                            .map_or((false, 0), |s| (s.0.member_holds, s.0.common_count()));
                        let beyond = m
                            .members
                            .iter()
                            .flat_map(|x| &x.holds)
                            .any(|&p| usize::from(p) >= common);
                        if m.holds != holds || beyond {
                            return Err(ShardError::Malformed {
                                section: SectionKind::TermMembers,
                                offset: 0,
                                what: format!(
                                    "the member file of {term:?} does not match the statistics' common terms"
                                ),
                            });
                        }
                        m
                    }
                    None => TermMembers {
                        term: term.clone(),
                        members: Vec::new(),
                        holds: true,
                    },
                };
                self.members.insert(term.clone(), m);
                Ok(())
            }
            Need::Groups(terms) => {
                let g = self.decode_groups(bytes)?.unwrap_or_else(|| TermGroups {
                    terms: terms.clone(),
                    ..TermGroups::default()
                });
                self.groups.insert(terms.clone(), g);
                Ok(())
            }
            Need::PhraseGroups(a, b) => {
                let g = self.decode_groups(bytes)?.unwrap_or_default();
                self.phrase_groups.insert((a.clone(), b.clone()), g);
                Ok(())
            }
            Need::Extension(prefix) if bytes.is_none() => {
                self.no_extension.insert(prefix.clone());
                Ok(())
            }
            Need::Leaf(_)
            | Need::Head(_)
            | Need::Term(_)
            | Need::Id(_)
            | Need::Rank(..)
            | Need::PairRank(..)
            | Need::SetRank(..)
            | Need::CountryRank(..)
            | Need::TypeRank(..)
            | Need::PhraseRank(..)
            | Need::Phrase(..)
            | Need::External(_)
            | Need::Extension(_) => {
                let registry = match bytes {
                    Some(b) => Registry::from_bytes(b)?,
                    None => Registry::empty(),
                };
                self.engines.insert(need.clone(), Engine::new(registry));
                Ok(())
            }
        }
    }

    /// A group file's bytes, decoded against the statistics' countries
    /// (`None`: it does not exist).
    fn decode_groups(&self, bytes: Option<&[u8]>) -> Result<Option<TermGroups>, ShardError> {
        let countries = self.stats.as_ref().map_or(0, |s| s.0.countries.len());
        bytes
            .map(|b| TermGroups::decode(&section(b, SectionKind::TermGroups)?, countries))
            .transpose()
    }

    /// Whether `need` is loaded.
    pub fn has(&self, need: &Need) -> bool {
        match need {
            Need::Stats => self.stats.is_some(),
            Need::StatsPart(first) => self.parts.contains(first),
            Need::Directory(first) => self.dir.missing_part(first).is_none(),
            Need::Members(t) => self.members.contains_key(t),
            Need::Groups(t) => self.groups.contains_key(t),
            Need::PhraseGroups(a, b) => self.phrase_groups.contains_key(&(a.clone(), b.clone())),
            Need::Extension(p) if self.no_extension.contains(p) => true,
            _ => self.engines.contains_key(need),
        }
    }

    /// The loaded chunks `chunk(0)`, `chunk(1)`, …, from the first.
    fn loaded_run(&self, chunk: impl Fn(u32) -> Need) -> impl Iterator<Item = &Engine> {
        (0..).map_while(move |n| self.engines.get(&chunk(n)))
    }

    /// How many of common term `t`'s rank chunks are loaded (from the first).
    fn rank_chunks(&self, t: &str) -> u32 {
        self.loaded_run(|n| Need::Rank(t.to_string(), n)).count() as u32
    }

    /// How many rank chunks of the pair of common terms `a` < `b` are
    /// loaded (from the first).
    fn pair_chunks(&self, a: &str, b: &str) -> u32 {
        self.loaded_run(|n| Need::PairRank(a.to_string(), b.to_string(), n))
            .count() as u32
    }

    /// How many rank chunks of the pair `a` < `b` the build wrote (0 when
    /// its group file is not loaded).
    fn pair_written(&self, a: &str, b: &str) -> usize {
        self.groups
            .get(&vec![a.to_string(), b.to_string()])
            .map_or(0, |g| g.chunks.len().min(PAIR_RANK_CHUNKS))
    }

    /// Whether the next rank chunk of the pair `a` < `b` was written.
    fn pair_has_next(&self, a: &str, b: &str) -> bool {
        (self.pair_chunks(a, b) as usize) < self.pair_written(a, b)
    }

    /// Where the unloaded rank chunks of the pair of common terms `a` < `b`
    /// begin: `None` when the pair has none (or its group file is not
    /// loaded), `Some(None)` when all are loaded (its group file describes
    /// at most [`PAIR_RANK_CHUNKS`] + 1 chunks: all of them when fewer).
    fn pair_frontier(&self, a: &str, b: &str) -> Option<Option<bound::Frontier>> {
        let g = self.groups.get(&vec![a.to_string(), b.to_string()])?;
        if g.chunks.is_empty() {
            return None;
        }
        let k = self.pair_chunks(a, b) as usize;
        Some(g.chunks.get(k).map(|&len| bound::Frontier {
            len,
            first: g.chunk_firsts.get(k).copied(),
        }))
    }

    /// How many rank chunks of the triple `terms` (sorted) are loaded.
    fn triple_chunks(&self, terms: &[String]) -> u32 {
        self.loaded_run(|n| Need::SetRank(terms.to_vec(), n))
            .count() as u32
    }

    /// Where the unloaded rank chunks of the triple `terms` (sorted) begin,
    /// as [`SearchClient::pair_frontier`] says of a pair.
    fn triple_frontier(&self, terms: &[String]) -> Option<Option<bound::Frontier>> {
        let g = self.groups.get(terms)?;
        if g.chunks.is_empty() {
            return None;
        }
        let k = self.triple_chunks(terms) as usize;
        if k == 0 {
            // Its first chunk is asked with its group file: not yet in.
            return None;
        }
        Some(g.chunks.get(k).map(|&len| bound::Frontier {
            len,
            first: g.chunk_firsts.get(k).copied(),
        }))
    }

    /// Whether the next rank chunk of the triple `terms` was written.
    fn triple_has_next(&self, terms: &[String]) -> bool {
        let k = self.triple_chunks(terms) as usize;
        self.groups
            .get(terms)
            .is_some_and(|g| k > 0 && k < g.chunks.len().min(TRIPLE_RANK_CHUNKS))
    }

    /// The leaf of common term `t` when it has one (a term too common to
    /// split, whose leaf holds its records alone): E2 reads it by rank
    /// chunks, and by this leaf when they do not serve. `Err`: the
    /// directory part to fetch first.
    fn common_leaf(&self, t: &str) -> Result<Option<Need>, Need> {
        Ok(self.piece_of(t)?.filter(|n| matches!(n, Need::Leaf(_))))
    }

    /// The loaded leaf of common term `t` ([`SearchClient::common_leaf`]):
    /// every record of `t` is loaded.
    fn loaded_common_leaf(&self, t: &str) -> Option<&Engine> {
        self.engines.get(&self.common_leaf(t).ok()??)
    }

    /// The piece that holds every record of term `t` (a leaf of one of its
    /// prefixes, else its own term piece); `None`: no record has a term
    /// under its prefix. `Err`: the directory part to fetch first.
    fn piece_of(&self, t: &str) -> Result<Option<Need>, Need> {
        if let Some(first) = self.dir.missing_part(first_char(t)) {
            return Err(Need::Directory(first.to_string()));
        }
        for (i, _) in t.char_indices().skip(1).chain([(t.len(), ' ')]) {
            match self.dir.get(&t[..i]) {
                Some((PieceKind::Head, _)) => continue,
                Some(_) => return Ok(Some(Need::Leaf(t[..i].to_string()))),
                None => return Ok(None),
            }
        }
        Ok(Some(Need::Term(t.to_string())))
    }

    /// The extension piece of `t` when the prefix `t` needs one (a common
    /// term or a split term that other terms extend): `Ok(None)` when it
    /// needs none, `Err` when it is to be fetched; `Ok(Some(None))` when it
    /// was too big to write.
    fn extension(&self, stats: &SearchStats, t: &str) -> Result<Option<Option<&Engine>>, Need> {
        let needed = match stats.common(t) {
            Some(c) => c.prefix_df != Some(c.df),
            None => matches!(self.piece_of(t)?, Some(Need::Term(_))),
        };
        if !needed {
            return Ok(None);
        }
        if self.no_extension.contains(t) {
            return Ok(Some(None));
        }
        let need = Need::Extension(t.to_string());
        match self.engines.get(&need) {
            Some(e) => Ok(Some(Some(e))),
            None => Err(need),
        }
    }

    /// Where the records of query token `t` are (a [`Need`] when not loaded).
    fn source<'a>(&'a self, stats: &'a SearchStats, t: &str) -> Result<Source<'a>, Need> {
        if let Some(c) = stats.common(t) {
            // Its member or group files are asked for with the query's
            // other common terms ([`SearchClient::outside_needs`]).
            return Ok(Source::Common(c));
        }
        let Some(need) = self.piece_of(t)? else {
            return Ok(Source::Nothing);
        };
        match self.engines.get(&need) {
            Some(e) => Ok(Source::Engine(e)),
            None => Err(need),
        }
    }

    /// The answer to `q`, or what to fetch first.
    pub fn answer(&self, q: &ListQuery) -> SearchAnswer {
        let Some((stats, countries)) = &self.stats else {
            // With it, the statistics parts of the query's words (version
            // 8: a 404 before), which say which of them are common.
            let mut needs = vec![Need::Stats];
            if RecordId::parse(&q.query).is_err() {
                needs.extend(self.missing_parts(query_tokens(&q.query).iter().map(String::as_str)));
            }
            return SearchAnswer::Need(needs);
        };
        let mut filters = match &q.filter {
            Some(f) => match Filters::parse(f, q.version, countries) {
                Ok(f) => f,
                Err(e) => return SearchAnswer::Invalid(e),
            },
            None => Filters {
                first_location_only: q.version == Version::V1,
                ..Filters::default()
            },
        };
        filters.all_status = q.all_status;
        let query = q.query.as_str();
        if query.trim().is_empty() {
            return self.page(q, countries, Vec::new(), 0, FacetCounts::default());
        }
        let n_chars = query.chars().count();
        if n_chars > crate::search::MAX_QUERY_CHARS {
            return SearchAnswer::Invalid(vec![format!(
                "query is too long ({n_chars} characters); the maximum is {}",
                crate::search::MAX_QUERY_CHARS
            )]);
        }
        match RecordId::parse(query) {
            Err(e @ crate::IdError::BadChecksum { .. }) if query.contains(crate::id::ID_HOST) => {
                return SearchAnswer::Invalid(vec![e.to_string()]);
            }
            Ok(id) => return self.answer_id(q, id, &filters, countries),
            Err(_) => {}
        }
        let parsed = match query::parse(query) {
            Ok(p) => p,
            Err(e) => return SearchAnswer::Invalid(vec![e]),
        };
        // A digit: the text may be an external id, which only the whole
        // records hold: the external id pieces of every id E2 may look up
        // (version 6; not for the search page's reading, whose typeahead
        // lists an id's record first, nor for an excluded one).
        let mut external: Vec<Need> = Vec::new();
        if query.bytes().any(|b| b.is_ascii_digit()) {
            let excluded_digit = parsed.clauses.iter().any(|c| {
                c.occur == Occur::MustNot
                    && match &c.kind {
                        ClauseKind::Term { text, .. } | ClauseKind::Phrase { text, .. } => {
                            text.bytes().any(|b| b.is_ascii_digit())
                        }
                    }
            });
            if q.typed || stats.external_buckets == 0 || excluded_digit {
                return SearchAnswer::Whole("a word with a digit may be an external id");
            }
            external = external_needs(query, &parsed, stats.external_buckets);
        }
        if parsed
            .clauses
            .iter()
            .any(|c| matches!(c.kind, ClauseKind::Term { prefix, fuzzy, .. } if prefix || fuzzy))
        {
            return SearchAnswer::Whole("prefix and fuzzy terms need the whole dictionary");
        }
        if parsed.clauses.len() > crate::search::MAX_QUERY_TERMS {
            return SearchAnswer::Invalid(vec![format!(
                "query has too many terms (more than {}); quote a long name as a phrase",
                crate::search::MAX_QUERY_TERMS
            )]);
        }

        // Every token's source; what is missing is fetched first, all at once.
        let mut clauses: Vec<Clause> = Vec::new();
        for c in &parsed.clauses {
            let (text, exact_phrase) = match &c.kind {
                ClauseKind::Term { text, .. } => (text, false),
                ClauseKind::Phrase { text, sloppy } => (text, !sloppy),
            };
            let toks = text::tokens(text);
            // A quoted single word (`"institute"`) E2 matches and scores as
            // the bare word: read as one (not in the search page's reading,
            // which types a bare word as a prefix and counts it otherwise).
            let one_word = matches!(toks.as_slice(), [t] if t.kind == TokenKind::Word);
            clauses.push((c.occur, exact_phrase && (q.typed || !one_word), toks));
        }
        // Version 8: which words are common is known once their
        // statistics parts are in (asked with the statistics file).
        let parts = self.missing_parts(
            clauses
                .iter()
                .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str())),
        );
        if !parts.is_empty() {
            return SearchAnswer::Need(parts);
        }
        // The search page's reading: its last bare word also by prefix.
        let typed_last = if q.typed {
            typed::last_bare_word(&parsed)
        } else {
            None
        };
        let last_token = typed_last.and_then(|ci| clauses[ci].2.last());
        let mut needs: Vec<Need> = Vec::new();
        for (_, _, toks) in &clauses {
            for t in toks {
                if let Err(n) = self.source(stats, &t.text) {
                    needs.push(n);
                }
            }
        }
        if let Some(t) = last_token
            && let Err(n) = self.extension(stats, &t.text)
        {
            needs.push(n);
        }
        needs.extend(self.outside_needs(stats, &clauses));
        needs.extend(external.iter().filter(|n| !self.has(n)).cloned());
        // The phrase pieces of quoted phrases of common words, with the
        // first files (a 404 when the build wrote none).
        for (occur, exact_phrase, toks) in &clauses {
            if *exact_phrase && common_phrase(stats, toks) {
                needs.extend(
                    phrase_needs(stats, *occur, toks)
                        .into_iter()
                        .filter(|n| !self.has(n)),
                );
            }
        }
        // A lone phrase of two common words: its group file and first
        // rank chunk too (the build wrote them or its phrase piece).
        let lone = lone_phrase(stats, &clauses).filter(|_| !q.typed);
        if let Some((a, b)) = lone {
            needs.extend(
                [
                    Need::PhraseGroups(a.to_string(), b.to_string()),
                    Need::PhraseRank(a.to_string(), b.to_string(), 0),
                ]
                .into_iter()
                .filter(|n| !self.has(n)),
            );
        }
        // The one country, and the one type, every record the filters let
        // through has: common terms' rank chunks over their records
        // (versions 6, 7) rank the filtered page.
        let country = filters
            .country_codes
            .as_deref()
            .or(filters.country_names.as_deref())
            .and_then(|c| match c {
                [one] => Some(*one),
                _ => None,
            })
            .filter(|&c| usize::from(c) < stats.countries.len());
        let kind = filters
            .types
            .filter(|b| b.count_ones() == 1)
            .map(|b| b.trailing_zeros() as u16);
        let slices: Vec<Slice> = country
            .map(Slice::Country)
            .into_iter()
            .chain(kind.map(Slice::Type))
            .collect();
        if !needs.is_empty() {
            needs.extend(self.first_chunk_ahead(stats, &clauses, &slices));
            sort(&mut needs);
            needs.dedup();
            return SearchAnswer::Need(needs);
        }
        let is_common = |t: &str| stats.common(t).is_some();
        // A quoted phrase of common words alone may match records no piece
        // holds: unless one of them has a leaf, or (version 6) one of its
        // pairs of adjacent words a phrase piece; either holds every match.
        let mut phrase_pieces: Vec<&Engine> = Vec::new();
        for (occur, exact_phrase, toks) in &clauses {
            if *exact_phrase && common_phrase(stats, toks) {
                let mut leaf = None;
                for t in toks.iter().filter(|t| t.kind != TokenKind::Bigram) {
                    match self.common_leaf(&t.text) {
                        Ok(Some(n)) => {
                            leaf = Some(n);
                            break;
                        }
                        Ok(None) => {}
                        Err(n) => return SearchAnswer::Need(vec![n]),
                    }
                }
                match leaf {
                    None => {
                        let pairs = phrase_needs(stats, *occur, toks);
                        let missing: Vec<Need> =
                            pairs.iter().filter(|n| !self.has(n)).cloned().collect();
                        if !missing.is_empty() {
                            return SearchAnswer::Need(missing);
                        }
                        match pairs
                            .iter()
                            .filter_map(|n| self.engines.get(n))
                            .find(|e| !e.registry().is_empty())
                        {
                            Some(e) => phrase_pieces.push(e),
                            None => {
                                return match lone {
                                    Some((a, b)) => {
                                        self.answer_phrase(q, stats, countries, &filters, a, b)
                                    }
                                    None => {
                                        SearchAnswer::Whole("a quoted phrase of common words only")
                                    }
                                };
                            }
                        }
                    }
                    Some(n) if !self.has(&n) => return SearchAnswer::Need(vec![n]),
                    Some(_) => {}
                }
            }
        }

        // The last word's prefix: its own records and its extensions' (a
        // leaf holds both; else its term piece or member file, and its
        // extension piece), and its whole-registry document frequency.
        let mut prefix_df = HashMap::new();
        let mut extension_piece: Option<&Engine> = None;
        if let Some(t) = last_token {
            let t = t.text.as_str();
            let extension = match self.extension(stats, t) {
                Ok(Some(Some(e))) => Some(e),
                Ok(Some(None)) => {
                    return SearchAnswer::Whole("the word typed last begins too many other words");
                }
                Ok(None) => None,
                Err(n) => return SearchAnswer::Need(vec![n]),
            };
            let df = match (stats.common(t), self.piece_of(t)) {
                (Some(c), _) => c.prefix_df.unwrap_or(c.df) as usize,
                (None, Ok(Some(n @ Need::Leaf(_)))) => match self.engines.get(&n) {
                    Some(e) => e.prefix_df(t),
                    None => return SearchAnswer::Need(vec![n]),
                },
                (None, Ok(None)) => 0,
                (None, Ok(Some(n))) => {
                    let (Some(own), Some(x)) = (self.engines.get(&n), extension) else {
                        return SearchAnswer::Need(vec![n]);
                    };
                    // The extensions' names, and the names holding the word
                    // itself of records the extension piece does not hold.
                    let xreg = x.registry();
                    let in_x: HashSet<u32> = (0..xreg.len()).map(|r| xreg.id(r).number()).collect();
                    let (ix, reg) = (own.index(), own.registry());
                    let alone = ix.term_id(t).map_or(0, |id| {
                        ix.postings(id)
                            .iter()
                            .filter(|&&e| {
                                !in_x.contains(&reg.id(ix.entry_record(e) as usize).number())
                            })
                            .count()
                    });
                    x.prefix_df(t) + alone
                }
                (None, Err(n)) => return SearchAnswer::Need(vec![n]),
            };
            prefix_df.insert(t.to_string(), df);
            extension_piece = extension;
        }
        let mut first_piece: Option<&Engine> = None;
        let mut first_from_head = false;
        if q.typed {
            let words = text::tokens(&typed::typed_words(&parsed));
            if words.len() > crate::search::MAX_QUERY_TERMS {
                return SearchAnswer::Whole("too many words for the typeahead's reading");
            }
            // Every typeahead match has a term under each of its words'
            // prefixes: one leaf of a word holds them all; a word no name
            // starts with means there are none.
            let mut none = false;
            let required =
                |t: &&text::Token| t.kind == TokenKind::Word && !text::is_optional_word(&t.text);
            for t in words.iter().filter(|t| required(t) && !is_common(&t.text)) {
                match self.piece_of(&t.text) {
                    Ok(None) => none = true,
                    Ok(Some(n @ Need::Leaf(_))) if first_piece.is_none() => {
                        match self.engines.get(&n) {
                            Some(e) => first_piece = Some(e),
                            None => return SearchAnswer::Need(vec![n]),
                        }
                    }
                    Ok(_) => {}
                    Err(n) => return SearchAnswer::Need(vec![n]),
                }
            }
            // Else a common word that still has a leaf of its own (a term
            // too common to split: E2 reads it as common, the typeahead by
            // its leaf).
            for t in words.iter().filter(|t| required(t) && is_common(&t.text)) {
                if none || first_piece.is_some() {
                    break;
                }
                match self.piece_of(&t.text) {
                    Ok(Some(n @ Need::Leaf(_))) => match self.engines.get(&n) {
                        Some(e) => first_piece = Some(e),
                        None => return SearchAnswer::Need(vec![n]),
                    },
                    Ok(_) => {}
                    Err(n) => return SearchAnswer::Need(vec![n]),
                }
            }
            if none {
                first_piece = None;
            } else if first_piece.is_none() {
                // One common word, a split prefix: its typeahead head holds
                // the first of the typeahead's matches, in its order (the
                // order is record-local: the head's first matches under any
                // filter are the whole registry's); the page must lie
                // within them.
                let [w] = words.as_slice() else {
                    return SearchAnswer::Whole("no word of the query lies in one piece");
                };
                let single = matches!(
                    parsed.clauses.as_slice(),
                    [c] if c.occur == Occur::Should
                        && matches!(c.kind, ClauseKind::Term { prefix: false, fuzzy: false, .. })
                );
                if !single
                    || !required(&w)
                    || self.dir.get(&w.text).map(|d| d.0) != Some(PieceKind::Head)
                {
                    return SearchAnswer::Whole("no word of the query lies in one piece");
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
                    extension_piece.is_some_and(|x| {
                        let local = filters.relocate(countries, x.index());
                        (0..x.registry().len() as u32).any(|r| local.matches(x.index(), r, true))
                    })
                };
                let whole_slice = slices.iter().copied().find(|&s| {
                    matches!(self.slice_described(&w.text, s), Some(Some(d)) if d.chunks.is_empty())
                });
                if let Some(slice) = whole_slice.filter(|_| !extension_passes()) {
                    let need = slice.rank_chunk(stats, &w.text, 0);
                    match self.engines.get(&need) {
                        Some(e) if !e.registry().is_empty() => first_piece = Some(e),
                        Some(_) => {} // not written (a broken deploy): the head
                        None => return SearchAnswer::Need(vec![need]),
                    }
                }
                if first_piece.is_none() {
                    let need = Need::Head(w.text.clone());
                    match self.engines.get(&need) {
                        Some(e) => {
                            first_piece = Some(e);
                            first_from_head = true;
                        }
                        None => return SearchAnswer::Need(vec![need]),
                    }
                }
            }
        }

        // The whole registry's statistics for these tokens.
        let mut global = GlobalStats {
            entries: stats.entries as usize,
            avg_len: stats.avg_len,
            df: HashMap::new(),
            prefix_df,
        };
        // The external id pieces first: a record there is scored with its
        // external ids, which the other pieces do not hold.
        let mut engines: Vec<&Engine> = external
            .iter()
            .filter_map(|n| self.engines.get(n))
            .collect();
        // (Every piece holds ~32 ids: one that came empty is missing, and
        // the records it would hold may match.)
        if engines.iter().any(|e| e.registry().is_empty()) {
            return SearchAnswer::Whole("an external id piece is missing");
        }
        for (_, _, toks) in &clauses {
            for t in toks {
                match self.source(stats, &t.text) {
                    Ok(Source::Engine(e)) => {
                        let ix = e.index();
                        let df = ix.term_id(&t.text).map_or(0, |id| ix.postings(id).len());
                        global.df.insert(t.text.clone(), df);
                        push_once(&mut engines, e);
                    }
                    Ok(Source::Common(c)) => {
                        global.df.insert(t.text.clone(), c.df as usize);
                        if let Some(e) = self.loaded_common_leaf(&c.term) {
                            push_once(&mut engines, e);
                        }
                        for e in self.loaded_run(|n| Need::Rank(c.term.clone(), n)) {
                            push_once(&mut engines, e);
                        }
                        for &slice in &slices {
                            for e in self.slice_run(stats, &c.term, slice) {
                                push_once(&mut engines, e);
                            }
                        }
                    }
                    Ok(Source::Nothing) => {
                        global.df.insert(t.text.clone(), 0);
                    }
                    Err(n) => return SearchAnswer::Need(vec![n]),
                }
            }
        }

        // The loaded rank chunks of pairs of the query's common terms (the
        // scoring ones, sorted: also the fine bound's terms).
        let mut common_terms: Vec<&str> = common_units(stats, &clauses);
        sort(&mut common_terms);
        common_terms.dedup();
        for (i, a) in common_terms.iter().enumerate() {
            for b in &common_terms[i + 1..] {
                for e in self.loaded_run(|n| Need::PairRank(a.to_string(), b.to_string(), n)) {
                    push_once(&mut engines, e);
                }
            }
        }
        let triples = triples_of(&common_terms);
        for t in &triples {
            for e in self.loaded_run(|n| Need::SetRank(t.clone(), n)) {
                push_once(&mut engines, e);
            }
        }
        for e in [first_piece, extension_piece]
            .into_iter()
            .flatten()
            .chain(phrase_pieces)
        {
            push_once(&mut engines, e);
        }
        // Records held by the loaded pieces: scored and counted there. The
        // typed reading lists the typeahead's matches first, then the rest
        // by query units covered (E2's are all 0), score, prior and id.
        let mut seen: HashSet<u32> = HashSet::new();
        let mut first: Vec<(f32, &Engine, u32)> = Vec::new();
        // The first piece's other matches, from the same call (its engine
        // is among `engines`: not scored twice).
        let mut first_rest: Option<Vec<(f32, u32, u16)>> = None;
        if let Some(e) = first_piece {
            let local = filters.relocate(countries, e.index());
            match e.typed_parts(query, &parsed, &local, Some(&global), true) {
                Ok(parts) => {
                    for (r, s) in parts.first {
                        if seen.insert(e.registry().id(r as usize).number()) {
                            first.push((s, e, r));
                        }
                    }
                    first_rest = Some(parts.rest);
                }
                Err(msg) => return SearchAnswer::Invalid(vec![msg]),
            }
        }
        let mut scored: Vec<(u16, f32, u8, u32, &Engine, u32)> = Vec::new();
        for &e in &engines {
            let local = filters.relocate(countries, e.index());
            let rows: Vec<(f32, u32, u16)> = if first_piece.is_some_and(|f| std::ptr::eq(f, e))
                && let Some(rest) = first_rest.take()
            {
                rest
            } else if q.typed {
                match e.typed_parts(query, &parsed, &local, Some(&global), false) {
                    Ok(parts) => parts.rest,
                    Err(msg) => return SearchAnswer::Invalid(vec![msg]),
                }
            } else {
                match e.search_with(query, &local, Some(&global)) {
                    Ok(h) => h
                        .records
                        .iter()
                        .zip(&h.scores)
                        .map(|(&r, &s)| (s, r, 0))
                        .collect(),
                    Err(msg) => return SearchAnswer::Invalid(vec![msg]),
                }
            };
            let reg = e.registry();
            for (s, r, cov) in rows {
                let id = reg.id(r as usize).number();
                if seen.insert(id) {
                    scored.push((cov, s, reg.priors()[r as usize], id, e, r));
                }
            }
        }
        sort_by(&mut scored, |a, b| {
            b.0.cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(b.2.cmp(&a.2))
                .then(a.3.cmp(&b.3))
        });
        let mut facets = FacetCounts::default();
        for &(_, e, r) in &first {
            add_record(&mut facets, e.index(), r, q.version, 1);
        }
        for &(_, _, _, _, e, r) in &scored {
            add_record(&mut facets, e.index(), r, q.version, 1);
        }

        // Records matching through common terms only, held by no loaded piece.
        let sets = outside_sets(stats, &clauses);
        let (mut outside, mut outside_facets) = (0i64, FacetCounts::default());
        let mut bound = 0f32;
        let mut fine: Option<bound::OutsideBound> = None;
        let mut next_chunk = None;
        let mut next_leaf = None;
        let mut loaded_chunks = 0u32;
        // The most query units a record no loaded piece holds may cover.
        let mut outside_cover = 0u16;
        if let Some(sets) = sets {
            let [scoring, required, excluded] = &sets;
            let outside_match = |has: &dyn Fn(&str) -> bool| {
                scoring.iter().any(|t| has(t))
                    && required.iter().all(|t| has(t))
                    && !excluded.iter().any(|t| has(t))
            };
            let (grouped, listed) = split_common(stats, &sets);
            // Records holding exactly each set of the grouped terms (and
            // whatever listed ones), by columns; a record of a listed term
            // is counted from its member files instead, with every query
            // term it holds, and taken out of its grouped set's count.
            let Some(groups) = self.exact_groups(&grouped) else {
                return SearchAnswer::Whole("the group files are not loaded");
            };
            let grouped_at: Vec<(&str, Option<u16>)> = grouped
                .iter()
                .map(|&t| (t, stats.commonness_position(t).map(|p| p as u16)))
                .collect();
            let lookup: Vec<HashMap<u32, &crate::shard::search::Member>> = listed
                .iter()
                .map(|t| {
                    self.members[*t]
                        .members
                        .iter()
                        .map(|m| (m.record, m))
                        .collect()
                })
                .collect();
            let mut all: Vec<u32> = lookup.iter().flat_map(|l| l.keys().copied()).collect();
            sort(&mut all);
            all.dedup();
            // Query units a record no loaded piece holds may cover (typed
            // reading): each unit of a common word it has. Counted per
            // value like `outside`: members, minus those the pieces hold.
            let cover_terms: Vec<&str> = clauses
                .iter()
                .filter(|(o, p, _)| *o != Occur::MustNot && !p)
                .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
                .filter(|t| is_common(t) && !text::is_optional_word(t))
                .collect();
            let mut covers = vec![0i64; cover_terms.len() + 1];
            // Counts `n` records of columns `g` holding exactly the query's
            // common terms `has` says, when they match.
            let mut count = |has: &dyn Fn(&str) -> bool, g: &Group, n: i64| {
                if n == 0 || !outside_match(has) || !group_passes(&filters, g) {
                    return;
                }
                covers[cover_terms.iter().filter(|t| has(t)).count()] += n;
                outside += n;
                add_group(&mut outside_facets, stats, g, q.version, n);
            };
            for (set, counts) in &groups {
                for (g, &n) in counts {
                    if n < 0 {
                        return SearchAnswer::Whole("the group files disagree");
                    }
                    count(&|t: &str| set.contains(&t), g, n);
                }
            }
            for r in all {
                let mut member = None;
                let mut held: Vec<&str> = Vec::new();
                for (t, l) in listed.iter().zip(&lookup) {
                    if let Some(m) = l.get(&r) {
                        held.push(t);
                        member = Some(*m);
                    }
                }
                let Some(m) = member else { continue };
                let in_groups: Vec<&str> = grouped_at
                    .iter()
                    .filter(|(_, p)| p.is_some_and(|p| m.holds.binary_search(&p).is_ok()))
                    .map(|(t, _)| *t)
                    .collect();
                let g = Group {
                    status: m.status,
                    types: m.types,
                    continents: m.continents,
                    countries: m.countries.clone(),
                };
                count(
                    &|t: &str| held.contains(&t) || in_groups.contains(&t),
                    &g,
                    1,
                );
                if !in_groups.is_empty() {
                    count(&|t: &str| in_groups.contains(&t), &g, -1);
                }
            }
            // Minus those a loaded piece holds (counted above if they match).
            let mut counted: HashSet<u32> = HashSet::new();
            for &e in &engines {
                let ix = e.index();
                let local = filters.relocate(countries, ix);
                let reg = e.registry();
                for r in 0..reg.len() as u32 {
                    if !counted.insert(reg.id(r as usize).number()) {
                        continue;
                    }
                    let has = |t: &str| record_has(ix, r, t);
                    if outside_match(&has) && local.matches(ix, r, false) {
                        covers[cover_terms.iter().filter(|t| has(t)).count()] -= 1;
                        outside -= 1;
                        add_record(&mut outside_facets, ix, r, q.version, -1);
                    }
                }
            }
            if q.typed {
                outside_cover = covers.iter().rposition(|&n| n > 0).unwrap_or(0) as u16;
            }
            // What a record no loaded piece holds can score at most: per
            // unit, as E2 adds them (a word twice counts twice), its term's
            // IDF at the shortest name of its first unloaded rank chunk.
            let units: usize = clauses.iter().map(|(_, _, t)| t.len()).sum();
            let unit_terms = common_units(stats, &clauses);
            let frontier = |t: &str| self.frontier_in(stats, t, &slices).map(|f| f.len);
            let bound_of = |t: &str| {
                let c = stats.common(t).expect("a common term");
                frontier(t).map_or(0.0, |len| {
                    crate::search::idf(global.entries, c.df as usize)
                        * crate::search::bm25_norm(len as usize, global.avg_len)
                })
            };
            bound = unit_terms.iter().map(|t| bound_of(t)).sum::<f32>() + 1e-6 * units as f32;
            // The exact-name boost, when the query's words are all common
            // and each may still be a whole name of an unloaded record.
            let exact: Vec<&str> = clauses
                .iter()
                .filter(|(o, _, _)| *o != Occur::MustNot)
                .flat_map(|(_, _, toks)| toks.iter())
                .filter(|t| t.kind != TokenKind::Bigram && t.text != "and")
                .map(|t| t.text.as_str())
                .collect();
            let boosted = !exact.is_empty()
                && exact.iter().all(|t| {
                    is_common(t) && frontier(t).is_some_and(|l| l as usize <= exact.len())
                });
            if boosted {
                bound += crate::search::EXACT_NAME_BOOST;
            }
            {
                // The finer bound, case by case and with the chunks' order
                // among equal scores; a name of exactly the query's words
                // (all common) also gets the exact-name boost.
                let terms = &common_terms;
                let mut units = Vec::new();
                for (ci, (occur, exact_phrase, toks)) in clauses.iter().enumerate() {
                    if *occur == Occur::MustNot || *exact_phrase {
                        continue;
                    }
                    for (k, t) in toks.iter().enumerate() {
                        let Some(c) = stats.common(&t.text) else {
                            units.push((None, 0));
                            continue;
                        };
                        let as_prefix = typed_last == Some(ci) && k + 1 == toks.len();
                        let df = match global.prefix_df.get(&t.text) {
                            Some(&d) if as_prefix => d,
                            _ => c.df as usize,
                        };
                        units.push((terms.iter().position(|x| *x == t.text), df));
                    }
                }
                let frontiers: Vec<Option<bound::Frontier>> = terms
                    .iter()
                    .map(|t| self.frontier_in(stats, t, &slices))
                    .collect();
                let mut pairs = Vec::new();
                for (i, a) in terms.iter().enumerate() {
                    for (j, b) in terms.iter().enumerate().skip(i + 1) {
                        if let Some(f) = self.pair_frontier(a, b) {
                            pairs.push(((1u32 << i) | (1 << j), f));
                        }
                    }
                }
                for t in &triples {
                    if let Some(f) = self.triple_frontier(t) {
                        let mask = t
                            .iter()
                            .filter_map(|x| terms.iter().position(|y| y == x))
                            .fold(0u32, |m, i| m | (1 << i));
                        pairs.push((mask, f));
                    }
                }
                let exact_set = exact
                    .iter()
                    .map(|t| terms.iter().position(|x| x == t))
                    .try_fold(0u32, |m, i| Some(m | 1u32.checked_shl(i? as u32)?));
                let boost = if boosted {
                    // (Boosted, every exact word is a common query term.)
                    exact_set.map(|m| (exact.len() as u32, m))
                } else {
                    None
                };
                fine = if boosted && boost.is_none() {
                    None
                } else {
                    bound::OutsideBound::new(
                        &units,
                        &frontiers,
                        &pairs,
                        boost,
                        global.entries,
                        global.avg_len,
                    )
                };
            }
            // The next chunk to load: the term that leaves the most room.
            next_chunk = unit_terms
                .iter()
                .filter(|t| frontier(t).is_some())
                .max_by(|a, b| bound_of(a).total_cmp(&bound_of(b)))
                .map(|t| self.next_rank_chunk(stats, t, &slices));
            // The allowance [`MAX_RANK_CHUNKS`] (a term whose leaf is
            // loaded no longer spends it; a country's or a type's do).
            loaded_chunks = unit_terms
                .iter()
                .filter(|t| self.loaded_common_leaf(t).is_none())
                .map(|t| {
                    self.rank_chunks(t)
                        + slices
                            .iter()
                            .map(|&s| self.slice_chunks(stats, t, s))
                            .sum::<u32>()
                })
                .sum::<u32>();
            // (A pair's chunks, at most [`PAIR_RANK_CHUNKS`] of the one
            // pair whose group file is loaded, do not spend it either.)
            // When the chunks do not serve: the leaf of a term too common
            // to split, the one that leaves the most room. Common words are
            // otherwise read without their directory parts: those first,
            // all at once.
            let open: Vec<&&str> = unit_terms
                .iter()
                .filter(|t| frontier(t).is_some())
                .collect();
            let mut parts: Vec<Need> = open
                .iter()
                .filter_map(|t| self.common_leaf(t).err())
                .collect();
            sort(&mut parts);
            parts.dedup();
            next_leaf = if parts.is_empty() {
                open.iter()
                    .filter_map(|t| Some((t, self.common_leaf(t).ok()??)))
                    .max_by(|a, b| bound_of(a.0).total_cmp(&bound_of(b.0)))
                    .map(|(_, n)| vec![n])
            } else {
                Some(parts)
            };
        }
        let total = first.len() as i64 + scored.len() as i64 + outside;
        let Ok(total) = usize::try_from(total) else {
            return SearchAnswer::Whole("the member files disagree with the pieces");
        };
        let from = (q.page.saturating_sub(1) * PAGE_SIZE).min(total);
        let to = (from + PAGE_SIZE).min(total);
        if first_from_head && to > first.len() {
            // The typeahead's other matches follow the head's, in its order.
            return SearchAnswer::Whole("the page passes the typeahead's head of its word");
        }
        if outside > 0 && to > first.len() {
            // The page must lie within the pieces' records and rank above
            // every record they do not hold: more units covered, or as many
            // and a score above the bound (E2: no units, the score alone).
            let last = (to - first.len() <= scored.len()).then(|| scored[to - first.len() - 1]);
            let proven = last.is_some_and(|(cover, score, prior, id, ..)| {
                cover > outside_cover
                    || (cover == outside_cover
                        && (score > bound * (1.0 + 1e-4) + 1e-4
                            || fine.as_ref().is_some_and(|b| b.proves(score, prior, id))))
            });
            if !proven {
                // A pair's chunks when a name holding both sets the length
                // of the case that leaves the most room.
                // (A page the loaded records do not fill: below them all.)
                let (score, prior, id) =
                    last.map_or((f32::NEG_INFINITY, 0, u32::MAX), |l| (l.1, l.2, l.3));
                let set_terms = |mask: u32| -> Vec<String> {
                    (0..common_terms.len())
                        .filter(|&i| mask & (1 << i) != 0)
                        .map(|i| common_terms[i].to_string())
                        .collect()
                };
                // A case of three or more terms that no single term's
                // leaves room for: a triple of its rarest terms.
                let triple_ask = fine.as_ref().and_then(|b| {
                    let set = b.worst_set(score, prior, id)?;
                    if set.count_ones() < 3 {
                        return None;
                    }
                    let asked = triples
                        .iter()
                        .filter(|t| self.groups.contains_key(*t))
                        .count();
                    if asked >= MAX_TRIPLES {
                        return None;
                    }
                    let mut members: Vec<&str> = (0..common_terms.len())
                        .filter(|&i| set & (1 << i) != 0)
                        .map(|i| common_terms[i])
                        .collect();
                    sort_by_key(&mut members, |t| (stats.common(t).map_or(0, |c| c.df), *t));
                    for x in 0..members.len() {
                        for y in x + 1..members.len() {
                            for z in y + 1..members.len() {
                                let mut t = vec![
                                    members[x].to_string(),
                                    members[y].to_string(),
                                    members[z].to_string(),
                                ];
                                sort(&mut t);
                                if !self.groups.contains_key(&t) {
                                    return Some(t);
                                }
                            }
                        }
                    }
                    None
                });
                if let Some(t) = triple_ask {
                    return SearchAnswer::Need(vec![Need::Groups(t.clone()), Need::SetRank(t, 0)]);
                }
                if let Some(b) = &fine
                    && let Some(bound::Chunked::Set(mask)) = b.to_raise(score, prior, id)
                    && mask.count_ones() == 2
                    && let [a, b] = set_terms(mask).as_slice()
                    && self.pair_has_next(a, b)
                {
                    next_chunk = Some(Need::PairRank(
                        a.to_string(),
                        b.to_string(),
                        self.pair_chunks(a, b),
                    ));
                } else if let Some(b) = &fine
                    && let Some(bound::Chunked::Set(mask)) = b.to_raise(score, prior, id)
                    && mask.count_ones() == 3
                    && self.triple_has_next(&set_terms(mask))
                {
                    let t = set_terms(mask);
                    let n = self.triple_chunks(&t);
                    next_chunk = Some(Need::SetRank(t, n));
                } else if let Some(b) = &fine
                    && let Some(bound::Chunked::Term(i)) = b.to_raise(score, prior, id)
                    && self.frontier_in(stats, common_terms[i], &slices).is_some()
                {
                    // The term whose frontier sets the length of the case
                    // that leaves the most room: raising another term's
                    // (the highest IDF × length norm, above) leaves that
                    // case where it is.
                    next_chunk = Some(self.next_rank_chunk(stats, common_terms[i], &slices));
                }
                let allowance = self.chunk_allowance.unwrap_or(MAX_RANK_CHUNKS);
                return match next_chunk {
                    // (Also when the page's last record covers fewer query
                    // units than one no piece holds, in the search page's
                    // reading: the records a chunk loads leave fewer
                    // unloaded, so the page may be placed after all.)
                    Some(n) if loaded_chunks < allowance => {
                        // Read ahead ([`read_ahead`]), within the allowance.
                        let ahead = match &n {
                            Need::Rank(t, k) => read_ahead(*k, self.chunk_count(stats, t), || {
                                Need::Rank(t.clone(), k + 1)
                            }),
                            Need::PairRank(a, b, k) => {
                                read_ahead(*k, self.pair_written(a, b), || {
                                    Need::PairRank(a.clone(), b.clone(), k + 1)
                                })
                            }
                            _ => self.slice_of(stats, &n, &slices).and_then(|(t, slice, k)| {
                                read_ahead(k, self.slice_written(t, slice), || {
                                    slice.rank_chunk(stats, t, k + 1)
                                })
                            }),
                        };
                        let mut needs = vec![n];
                        needs.extend(ahead.filter(|_| loaded_chunks + 1 < allowance));
                        SearchAnswer::Need(needs)
                    }
                    _ => match next_leaf {
                        Some(needs) => SearchAnswer::Need(needs),
                        None => SearchAnswer::Whole("common words rank records no piece holds"),
                    },
                };
            }
        }
        facets.merge(&outside_facets, 1);
        let rows = first
            .iter()
            .copied()
            .chain(scored.iter().map(|&(_, s, _, _, e, r)| (s, e, r)));
        let hits: Vec<(f32, &Engine, u32)> = rows.skip(from).take(to - from).collect();
        self.page(q, countries, hits, total, facets)
    }

    /// The files the count of records no loaded piece holds needs: the
    /// group files of every set of the query's common terms when it has
    /// at most [`GROUP_TERMS`] of them and the build wrote them, else
    /// their member files; nothing when a rare word is required.
    fn outside_needs(&self, stats: &SearchStats, clauses: &[Clause]) -> Vec<Need> {
        let Some(sets) = outside_sets(stats, clauses) else {
            return Vec::new();
        };
        let (grouped, listed) = split_common(stats, &sets);
        let mut needs: Vec<Need> = subsets(&grouped)
            .into_iter()
            .map(|s| Need::Groups(s.into_iter().map(str::to_string).collect()))
            .chain(listed.iter().map(|t| Need::Members(t.to_string())))
            .collect();
        if stats.groups {
            // Every common word's own group file: its rank chunks' frontiers.
            let mut all: Vec<&str> = clauses
                .iter()
                .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
                .filter(|t| stats.common(t).is_some())
                .collect();
            sort(&mut all);
            all.dedup();
            needs.extend(all.into_iter().map(|t| Need::Groups(vec![t.to_string()])));
        }
        sort(&mut needs);
        needs.dedup();
        needs.into_iter().filter(|n| !self.has(n)).collect()
    }

    /// Rank chunk 0 of the query's rarest common word, asked for with the
    /// files of a round that is made anyway: a page that ranks records
    /// against words this common mostly needs it (a record holding only
    /// them may outscore the rare words' records), and asking for it once
    /// the group files are in costs a round trip (150 ms on a mobile link)
    /// where the chunk costs ~15 KB. The rarest word is the one whose
    /// chunks the bound asks for first when their shortest names are alike
    /// (`next_chunk`: the highest IDF × length norm); a wrong guess costs
    /// the chunk, never a wrong answer.
    fn first_chunk_ahead(
        &self,
        stats: &SearchStats,
        clauses: &[Clause],
        slices: &[Slice],
    ) -> Option<Need> {
        outside_sets(stats, clauses)?;
        let terms = common_units(stats, clauses);
        if terms.iter().any(|t| {
            self.rank_chunks(t) > 0 || slices.iter().any(|&s| self.slice_chunks(stats, t, s) > 0)
        }) {
            return None;
        }
        let rarest = terms
            .into_iter()
            .filter_map(|t| stats.common(t))
            .min_by_key(|c| (c.df, c.term.as_str()))?;
        // With a country or a type filter, its first chunk (a 404 when the
        // build has none: no record of the term there, or an older build).
        let need = match slices.first() {
            Some(&s) => s.rank_chunk(stats, &rarest.term, 0),
            None => Need::Rank(rarest.term.clone(), 0),
        };
        (!self.has(&need)).then_some(need)
    }

    /// The records holding exactly each set of `grouped` (common terms of
    /// the query, at most [`GROUP_TERMS`]; and none of the others of
    /// `grouped`), counted by columns: from the group files by inclusion
    /// and exclusion. `None`: a group file is not loaded.
    #[allow(clippy::type_complexity)]
    fn exact_groups<'t>(
        &self,
        grouped: &[&'t str],
    ) -> Option<Vec<(Vec<&'t str>, HashMap<&Group, i64>)>> {
        let all = subsets(grouped);
        let mut out = Vec::new();
        for set in &all {
            let mut counts: HashMap<&Group, i64> = HashMap::new();
            for sup in all.iter().filter(|f| set.iter().all(|t| f.contains(t))) {
                let key: Vec<String> = sup.iter().map(|t| t.to_string()).collect();
                let sign = if (sup.len() - set.len()) % 2 == 0 {
                    1
                } else {
                    -1
                };
                for (g, n) in self.groups_of(&key)? {
                    *counts.entry(g).or_default() += sign * i64::from(*n);
                }
            }
            out.push((set.clone(), counts));
        }
        Some(out)
    }

    /// Common term `t`'s rank chunks (each one's shortest length, and in
    /// version 4 its first record), from where they are described: the
    /// term's group file (version 4) or the statistics (version 3). `None`:
    /// the group file is not loaded, or `t` is not common.
    fn chunks_of<'s>(
        &'s self,
        stats: &'s SearchStats,
        t: &str,
    ) -> Option<(&'s [u32], Option<&'s [ChunkFirst]>)> {
        if stats.groups {
            let g = self.groups.get(&vec![t.to_string()])?;
            Some((g.chunks.as_slice(), Some(g.chunk_firsts.as_slice())))
        } else {
            Some((stats.common(t)?.chunks.as_slice(), None))
        }
    }

    /// How many rank chunks common term `t` has (0 when its group file is
    /// not loaded).
    fn chunk_count(&self, stats: &SearchStats, t: &str) -> usize {
        self.chunks_of(stats, t).map_or(0, |(c, _)| c.len())
    }

    /// Where common term `t`'s unloaded rank chunks begin; `None` when all
    /// are loaded, or its leaf is. A group file not loaded (never, as
    /// [`SearchClient::outside_needs`] asks for it) reads as the loosest
    /// frontier.
    fn frontier(&self, stats: &SearchStats, t: &str) -> Option<bound::Frontier> {
        if self.loaded_common_leaf(t).is_some() {
            return None;
        }
        let k = self.rank_chunks(t) as usize;
        let Some((chunks, firsts)) = self.chunks_of(stats, t) else {
            return stats.groups.then_some(bound::Frontier {
                len: 1,
                first: None,
            });
        };
        Some(bound::Frontier {
            len: *chunks.get(k)?,
            first: firsts.and_then(|f| f.get(k).copied()),
        })
    }

    /// Common term `t`'s rank chunks over `slice` (versions 6, 7): `None`
    /// when its group file is not loaded or describes none over such
    /// slices (an older build); `Some(None)` when no record of `t` is in
    /// `slice`.
    fn slice_described(&self, t: &str, slice: Slice) -> Option<Option<&FacetChunks>> {
        let g = self.groups.get(std::slice::from_ref(&t.to_string()))?;
        let (list, value) = match slice {
            Slice::Country(c) => (&g.countries, c),
            Slice::Type(b) => (&g.types, b),
        };
        if list.is_empty() {
            return None;
        }
        Some(
            list.binary_search_by_key(&value, |x| x.value)
                .ok()
                .map(|i| &list[i]),
        )
    }

    /// The term, slice and number of `need` when it is a rank chunk over
    /// one of `slices`.
    fn slice_of<'n>(
        &self,
        stats: &SearchStats,
        need: &'n Need,
        slices: &[Slice],
    ) -> Option<(&'n str, Slice, u32)> {
        let (Need::CountryRank(t, _, k) | Need::TypeRank(t, _, k)) = need else {
            return None;
        };
        let slice = slices
            .iter()
            .copied()
            .find(|&s| s.rank_chunk(stats, t, *k) == *need)?;
        Some((t.as_str(), slice, *k))
    }

    /// How many of common term `t`'s rank chunks over `slice` are loaded
    /// (from the first). A written chunk holds records: one that came
    /// empty (a 404: none written, or a broken deploy) ends the count
    /// ([`SearchClient::slice_missing`]).
    fn slice_chunks(&self, stats: &SearchStats, t: &str, slice: Slice) -> u32 {
        self.slice_run(stats, t, slice).count() as u32
    }

    /// The loaded rank chunks of `t` over `slice`
    /// ([`SearchClient::slice_chunks`]).
    fn slice_run<'a>(
        &'a self,
        stats: &'a SearchStats,
        t: &'a str,
        slice: Slice,
    ) -> impl Iterator<Item = &'a Engine> {
        self.loaded_run(move |n| slice.rank_chunk(stats, t, n))
            .take_while(|e| !e.registry().is_empty())
    }

    /// Whether the next rank chunk of `t` over `slice` came empty: the
    /// slice's chunks are then not read (the term's own serve, as in
    /// version 5).
    fn slice_missing(&self, stats: &SearchStats, t: &str, slice: Slice) -> bool {
        let n = self.slice_chunks(stats, t, slice);
        self.engines.contains_key(&slice.rank_chunk(stats, t, n))
    }

    /// How many rank chunks of common term `t` over `slice` the build
    /// wrote.
    fn slice_written(&self, t: &str, slice: Slice) -> usize {
        match self.slice_described(t, slice) {
            Some(Some(d)) if d.chunks.is_empty() => 1,
            Some(Some(d)) => d.chunks.len().min(FACET_RANK_CHUNKS),
            _ => 0,
        }
    }

    /// Where common term `t`'s unloaded records in every one of `slices`
    /// begin: its own frontier ([`SearchClient::frontier`]) or its
    /// frontier over a slice's records, whichever is furthest (each holds
    /// for every such record); `None` when all of them are loaded.
    fn frontier_in(
        &self,
        stats: &SearchStats,
        t: &str,
        slices: &[Slice],
    ) -> Option<bound::Frontier> {
        let mut at = self.frontier(stats, t)?;
        for &slice in slices {
            let d = match self.slice_described(t, slice) {
                None => continue,
                Some(None) => return None, // no record of `t` there
                Some(Some(d)) => d,
            };
            let k = self.slice_chunks(stats, t, slice) as usize;
            if k < self.slice_written(t, slice) && self.slice_missing(stats, t, slice) {
                continue;
            }
            let by_slice = if d.chunks.is_empty() {
                // One chunk, not described: nothing left once it is loaded.
                if k > 0 {
                    return None;
                }
                bound::Frontier {
                    len: 1,
                    first: None,
                }
            } else {
                bound::Frontier {
                    len: *d.chunks.get(k)?,
                    first: d.chunk_firsts.get(k).copied(),
                }
            };
            // The later of the two in E2's order among equal scores.
            let later = |a: &bound::Frontier, b: &bound::Frontier| match (a.first, b.first) {
                (Some(x), Some(y)) => x.order() > y.order(),
                (Some(_), None) => true,
                _ => false,
            };
            if by_slice.len > at.len || (by_slice.len == at.len && later(&by_slice, &at)) {
                at = by_slice;
            }
        }
        Some(at)
    }

    /// The next rank chunk of common term `t` to load: over the first of
    /// `slices` the build wrote more of, else its own.
    fn next_rank_chunk(&self, stats: &SearchStats, t: &str, slices: &[Slice]) -> Need {
        for &slice in slices {
            let k = self.slice_chunks(stats, t, slice);
            if (k as usize) < self.slice_written(t, slice) && !self.slice_missing(stats, t, slice) {
                return slice.rank_chunk(stats, t, k);
            }
        }
        Need::Rank(t.to_string(), self.rank_chunks(t))
    }

    /// The groups of the records holding every term of `terms` (one or
    /// two, sorted): their file, or for a pair without one (a 404), the
    /// pairs written in its terms' own files; `None`: not loaded.
    fn groups_of(&self, terms: &[String]) -> Option<&[(Group, u32)]> {
        let file = self.groups.get(terms)?;
        if terms.len() != 2 || !file.groups.is_empty() {
            return Some(&file.groups);
        }
        for (own, other) in [(&terms[0], &terms[1]), (&terms[1], &terms[0])] {
            let own = self.groups.get(std::slice::from_ref(own))?;
            if let Some((_, g)) = own.pairs.iter().find(|(t, _)| t == other) {
                return Some(g);
            }
        }
        Some(&[])
    }

    fn answer_id(
        &self,
        q: &ListQuery,
        id: RecordId,
        filters: &Filters,
        countries: &Index,
    ) -> SearchAnswer {
        if !self.has_ids {
            return SearchAnswer::Whole("this build has no id pieces");
        }
        let need = Need::Id(id_key(id));
        let Some(e) = self.engines.get(&need) else {
            return SearchAnswer::Need(vec![need]);
        };
        let local = filters.relocate(countries, e.index());
        let hits = match e.search(&q.query, &local) {
            Ok(h) => h,
            Err(msg) => return SearchAnswer::Invalid(vec![msg]),
        };
        let mut facets = FacetCounts::default();
        for &r in &hits.records {
            add_record(&mut facets, e.index(), r, q.version, 1);
        }
        let total = hits.records.len();
        let from = (q.page.saturating_sub(1) * PAGE_SIZE).min(total);
        let to = (from + PAGE_SIZE).min(total);
        let page = (from..to)
            .map(|i| (hits.scores[i], e, hits.records[i]))
            .collect();
        self.page(q, countries, page, total, facets)
    }

    /// A quoted phrase of two common words alone (`"university of"`) whose
    /// records do not fit a phrase piece (version 7): every match holds the
    /// pair, so its group file counts them all by columns (the count and
    /// the facets), and its rank chunks order them by their shortest name
    /// holding it; E2 scores such a name by the two words' IDFs at that
    /// length, so a page is proven once its last record scores above what
    /// the first unloaded chunk's shortest name may (or as much, sorting
    /// before that chunk's first record).
    fn answer_phrase(
        &self,
        q: &ListQuery,
        stats: &SearchStats,
        countries: &Index,
        filters: &Filters,
        a: &str,
        b: &str,
    ) -> SearchAnswer {
        let whole = SearchAnswer::Whole("a quoted phrase of common words only");
        let Some(g) = self.phrase_groups.get(&(a.to_string(), b.to_string())) else {
            return SearchAnswer::Need(vec![Need::PhraseGroups(a.to_string(), b.to_string())]);
        };
        let (Some(ca), Some(cb)) = (stats.common(a), stats.common(b)) else {
            return whole;
        };
        if g.groups.is_empty() || g.chunks.is_empty() {
            return whole; // none written (an older build)
        }
        let mut facets = FacetCounts::default();
        let mut total = 0usize;
        for (grp, n) in &g.groups {
            if group_passes(filters, grp) {
                total += *n as usize;
                add_group(&mut facets, stats, grp, q.version, i64::from(*n));
            }
        }
        let global = GlobalStats {
            entries: stats.entries as usize,
            avg_len: stats.avg_len,
            df: HashMap::from([
                (a.to_string(), ca.df as usize),
                (b.to_string(), cb.df as usize),
            ]),
            prefix_df: HashMap::new(),
        };
        let run = |n| Need::PhraseRank(a.to_string(), b.to_string(), n);
        let loaded: Vec<&Engine> = self
            .loaded_run(run)
            .take_while(|e| !e.registry().is_empty())
            .collect();
        let mut rows: Vec<(f32, u8, u32, &Engine, u32)> = Vec::new();
        for &e in &loaded {
            let local = filters.relocate(countries, e.index());
            let hits = match e.search_with(&q.query, &local, Some(&global)) {
                Ok(h) => h,
                Err(msg) => return SearchAnswer::Invalid(vec![msg]),
            };
            let reg = e.registry();
            for (&r, &score) in hits.records.iter().zip(&hits.scores) {
                rows.push((
                    score,
                    reg.priors()[r as usize],
                    reg.id(r as usize).number(),
                    e,
                    r,
                ));
            }
        }
        sort_by(&mut rows, |x, y| {
            y.0.total_cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2))
        });
        let k = loaded.len();
        let from = (q.page.saturating_sub(1) * PAGE_SIZE).min(total);
        let to = (from + PAGE_SIZE).min(total);
        let written = g.chunks.len().min(PHRASE_RANK_CHUNKS);
        let proven = match g.chunks.get(k) {
            // Every chunk loaded: the rows are every match.
            None if k == g.chunks.len() => {
                if rows.len() != total {
                    return SearchAnswer::Whole("the group files disagree");
                }
                true
            }
            None => false, // a chunk came empty (a broken deploy)
            Some(&len) if to > 0 => rows.get(to - 1).is_some_and(|&(score, prior, id, ..)| {
                let frontier = bound::Frontier {
                    len,
                    first: g.chunk_firsts.get(k).copied(),
                };
                bound::OutsideBound::phrase(
                    [(a, ca.df as usize), (b, cb.df as usize)],
                    &frontier,
                    global.entries,
                    global.avg_len,
                )
                .proves(score, prior, id)
            }),
            Some(_) => true, // an empty page
        };
        if !proven {
            return if k < written && !self.has(&run(k as u32)) {
                let mut needs = vec![run(k as u32)];
                needs.extend(read_ahead(k as u32, written, || run(k as u32 + 1)));
                SearchAnswer::Need(needs)
            } else {
                SearchAnswer::Whole("a quoted phrase of common words ranks records no piece holds")
            };
        }
        let hits = rows[from..to]
            .iter()
            .map(|&(s, _, _, e, r)| (s, e, r))
            .collect();
        self.page(q, countries, hits, total, facets)
    }

    fn page(
        &self,
        q: &ListQuery,
        countries: &Index,
        hits: Vec<(f32, &Engine, u32)>,
        total: usize,
        facets: FacetCounts,
    ) -> SearchAnswer {
        let title = |code: &str| crate::search::facets::country_title(countries, code);
        SearchAnswer::Page(PageAnswer {
            hits: hits
                .into_iter()
                .map(|(score, e, r)| PageHit {
                    summary: e.registry().summary(r as usize),
                    score,
                })
                .collect(),
            number_of_results: total,
            meta: facets.meta(q.version, title),
        })
    }
}

/// A query clause as the pieces read it: occurrence, whether it is an
/// exact phrase, its tokens.
type Clause = (Occur, bool, Vec<text::Token>);

/// Most common terms a query may have for the group files alone to count
/// its records no loaded piece holds (one file per non-empty set of them);
/// with more, the member files of the others count theirs.
const GROUP_TERMS: usize = 2;

/// The query's distinct common terms (of its [`outside_sets`]) split into
/// those whose group files count their records and those whose member
/// files list them (each sorted): all in group files when there are at
/// most [`GROUP_TERMS`]; else the two of most records there and the others
/// in member files that say which of those two each record holds (version
/// 5); else (older pieces) all in member files.
fn split_common<'t>(stats: &SearchStats, sets: &[Vec<&'t str>; 3]) -> (Vec<&'t str>, Vec<&'t str>) {
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
fn outside_sets<'c>(stats: &SearchStats, clauses: &'c [Clause]) -> Option<[Vec<&'c str>; 3]> {
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
fn common_phrase(stats: &SearchStats, toks: &[text::Token]) -> bool {
    let mut seq = toks
        .iter()
        .filter(|t| t.kind != TokenKind::Bigram)
        .peekable();
    seq.peek().is_some() && seq.all(|t| stats.common(&t.text).is_some())
}

/// The two words of the query when it is one quoted phrase of two common
/// words and nothing else (read from its phrase piece, or else its phrase
/// rank chunks and group file: [`SearchClient::answer_phrase`]).
fn lone_phrase<'c>(stats: &SearchStats, clauses: &'c [Clause]) -> Option<(&'c str, &'c str)> {
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

/// Whether records of columns `g` pass `filters` (status and columns).
fn group_passes(filters: &Filters, g: &Group) -> bool {
    filters.visible_statuses(false) & (1 << g.status) != 0
        && filters.matches_columns(g.types, g.continents, &g.countries)
}

/// Adds `n` records of columns `g` to `facets`.
fn add_group(facets: &mut FacetCounts, stats: &SearchStats, g: &Group, version: Version, n: i64) {
    let codes = g
        .countries
        .iter()
        .map(|&c| stats.countries[c as usize].code.as_str());
    facets.add(g.status, g.types, g.continents, codes, version, n);
}

/// The rank chunk after chunk `k` of a run of `written` (`next`), asked
/// with it when `k` is past the first: a page that needed a second chunk
/// usually needs the one after too, and a round trip costs more than a
/// chunk (~20 KB).
fn read_ahead(k: u32, written: usize, next: impl FnOnce() -> Need) -> Option<Need> {
    (k >= 1 && written > k as usize + 1).then(next)
}

/// Adds `e` to `engines` unless it is there: a piece may hold the records
/// of several query words.
/// Every triple (sorted) of `terms` (sorted).
fn triples_of(terms: &[&str]) -> Vec<Vec<String>> {
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

fn push_once<'e>(engines: &mut Vec<&'e Engine>, e: &'e Engine) {
    if !engines.iter().any(|x| std::ptr::eq(*x, e)) {
        engines.push(e);
    }
}

/// The external id pieces a query with a digit reads: of every text E2
/// looks up as an external id (each clause's, the whole query's as typed
/// and unescaped), by [`crate::text::external_id_key`].
fn external_needs(query: &str, parsed: &query::ParsedQuery, buckets: u32) -> Vec<Need> {
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
fn phrase_needs(stats: &SearchStats, occur: Occur, toks: &[text::Token]) -> Vec<Need> {
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

/// The tokens of a query's words and phrases as [`SearchClient::answer`]
/// reads them (none when it does not parse).
fn query_tokens(query: &str) -> Vec<String> {
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
fn common_units<'c>(stats: &SearchStats, clauses: &'c [Clause]) -> Vec<&'c str> {
    clauses
        .iter()
        .filter(|(o, p, _)| *o != Occur::MustNot && !p)
        .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
        .filter(|t| stats.common(t).is_some())
        .collect()
}

/// The non-empty subsets of `terms` (sorted as `terms` is).
fn subsets<'t>(terms: &[&'t str]) -> Vec<Vec<&'t str>> {
    (1u32..(1 << terms.len()))
        .map(|m| {
            (0..terms.len())
                .filter(|&i| m & (1 << i) != 0)
                .map(|i| terms[i])
                .collect()
        })
        .collect()
}

/// The one section of a single-section file.
fn section(bytes: &[u8], kind: SectionKind) -> Result<Vec<u8>, ShardError> {
    let file = read_file(bytes)?;
    file.sections
        .into_iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, b)| b)
        .ok_or(ShardError::Malformed {
            section: kind,
            offset: 0,
            what: format!("the file has no {kind} section"),
        })
}

/// Counts record `r` of `ix` into `f`.
fn add_record(f: &mut FacetCounts, ix: &Index, r: u32, version: Version, sign: i64) {
    let codes = ix
        .record_countries(r)
        .iter()
        .map(|&c| ix.countries()[c as usize].code.as_str());
    f.add(
        ix.status(r),
        ix.type_bits(r),
        ix.continent_bits(r),
        codes,
        version,
        sign,
    );
}

/// Whether a name of record `r` holds term `t`.
fn record_has(ix: &Index, r: u32, t: &str) -> bool {
    let Some(id) = ix.term_id(t) else {
        return false;
    };
    let entries = ix.record_entries(r);
    let postings = ix.postings(id);
    let i = postings.partition_point(|&e| e < entries.start);
    postings.get(i).is_some_and(|&e| e < entries.end)
}
