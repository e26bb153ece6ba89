//! Search: the [`Engine`] (registry + index), E2 keyword search, filters,
//! facets and the typeahead [`Engine::suggest`].
//!
//! # E2 ranking
//!
//! Each name of a record is scored on its own with BM25 (k1 = 1.2,
//! b = 0.75; IDF over all names of all records; length = words in the name)
//! summed over the query's words; a record's score is its best name's
//! (upstream's nested `score_mode: max`). On top of that:
//!
//! * a name whose normalised text equals the query's (case, accents,
//!   punctuation and `&`/`and` ignored) gets +1000 (display name or label),
//!   +900 (alias) or +800 (acronym), so a full-name query ranks its record
//!   first;
//! * an external id equal to the query (or to one of its whitespace-separated
//!   pieces), exactly as stored, scores 2000.
//!
//! Results are ordered by score, then by the record prior (records with
//! equal scores — named alike — the one people pick more often first), then
//! by record id: a total order, so pages never overlap or skip. Listing
//! without a query is in id order. A query that is a record id (any form) returns
//! that record whatever its status (filters still apply), also when its
//! reserved characters are escaped; an identifier with wrong check digits
//! (a URL, or the bare form when it is no external id) is a 400 that says so.
//! A query that is one external id in any usual form (resolver URL, DOI,
//! ISNI without spaces) ranks that id's records first.

pub mod advanced_exec;
pub mod context;
pub mod facets;
pub mod filters;
pub mod places;
pub mod query;
pub mod suggest;
pub mod typed;
pub mod years;

use crate::id::{IdError, RecordId};
use crate::index::{Index, name_flags};
use crate::registry::Registry;
use crate::text::{self, TokenKind};

pub use context::SuggestContext;
pub use facets::{FacetEntry, Meta};
pub use filters::{Filters, Version};
pub use query::{Clause, ClauseKind, Occur, ParsedQuery};
pub use suggest::{MatchedName, Suggestion};

/// Items per page of a result list.
pub const PAGE_SIZE: usize = 20;
/// Score of an external-id match.
pub const EXTERNAL_ID_SCORE: f32 = 2000.0;
/// Boost of an exact display-name or label match.
pub const EXACT_NAME_BOOST: f32 = 1000.0;
/// Longest accepted `query`, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most terms and phrases a query may have.
pub const MAX_QUERY_TERMS: usize = 64;
/// Most fuzzy (`~`) terms a query may have (each scans the dictionary).
pub const MAX_FUZZY_TERMS: usize = 8;

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// A registry with its search index: what every front end searches.
pub struct Engine {
    registry: Registry,
    index: Index,
    clock: fn() -> f64,
    /// Columns for `query.advanced`, built on first use (advanced_exec).
    advanced: std::sync::OnceLock<crate::advanced::FieldIndex>,
    /// Records by domain, built on first use (an e-mail domain in a
    /// [`SuggestContext`]).
    domains: std::sync::OnceLock<context::DomainIndex>,
}

/// An [`Engine`] whose index is built a slice of records at a time
/// ([`crate::index::IndexBuilder`]), for hosts that must not block for the
/// whole build (a page's main thread).
pub struct EngineBuilder {
    registry: Registry,
    index: crate::index::IndexBuilder,
}

impl EngineBuilder {
    /// Starts indexing `registry`.
    pub fn new(registry: Registry) -> EngineBuilder {
        let index = crate::index::IndexBuilder::new(&registry);
        EngineBuilder { registry, index }
    }

    /// The next piece of indexing: up to `records` more records, or one of
    /// the final passes ([`crate::index::IndexBuilder::step`]); true when
    /// only [`EngineBuilder::finish`] is left.
    pub fn step(&mut self, records: usize) -> bool {
        self.index.step(&self.registry, records)
    }

    /// Completes the index (whatever `step` has not done yet).
    pub fn finish(self) -> Engine {
        let index = self.index.finish(&self.registry);
        Engine {
            registry: self.registry,
            index,
            clock: default_clock,
            advanced: std::sync::OnceLock::new(),
            domains: std::sync::OnceLock::new(),
        }
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("records", &self.registry.len())
            .field("terms", &self.index.term_count())
            .finish()
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn default_clock() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[cfg(target_arch = "wasm32")]
fn default_clock() -> f64 {
    0.0
}

/// The statistics E2's BM25 reads from the whole registry, for an engine
/// over a part of it (a piece, [`crate::pieces`]): with them its scores
/// are the whole registry's for every record it holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GlobalStats {
    /// Names (index entries) of the whole registry.
    pub entries: usize,
    /// Their average length in words.
    pub avg_len: f32,
    /// Entries holding each folded term, for the terms a query needs.
    pub df: std::collections::HashMap<String, usize>,
    /// Entries holding any term that starts with the token, for a token
    /// read as a prefix (the last word of the search page's reading,
    /// [`typed`]): an engine over a part holds only some of its terms.
    pub prefix_df: std::collections::HashMap<String, usize>,
}

/// Ranked E2 matches, before paging.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hits {
    /// Matching records, best first (score, then id).
    pub records: Vec<u32>,
    /// Their scores (same order; 0 for listings).
    pub scores: Vec<f32>,
}

impl Engine {
    /// Builds the index of `registry` (tens of milliseconds for 36k records).
    pub fn new(registry: Registry) -> Engine {
        EngineBuilder::new(registry).finish()
    }

    /// Adds the records section (a file of the same build) to an engine
    /// loaded from the summary and names alone, without rebuilding the name
    /// index: only what was derived from full records (the external-id maps
    /// and the advanced-query columns, both built on first use) is dropped,
    /// so that it is rebuilt with them.
    pub fn add_records_file(&mut self, bytes: &[u8]) -> Result<(), crate::ShardError> {
        self.registry.add_records_file(bytes)?;
        self.index.forget_external();
        self.advanced = std::sync::OnceLock::new();
        Ok(())
    }

    /// Adds the domains section (a file of the same build) to an engine
    /// loaded without it; the e-mail domain lookup is rebuilt on next use.
    pub fn add_domains_file(&mut self, bytes: &[u8]) -> Result<(), crate::ShardError> {
        self.registry.add_domains_file(bytes)?;
        self.domains = std::sync::OnceLock::new();
        Ok(())
    }

    /// Sets the millisecond clock used for `time_taken` (the default is
    /// `std::time::Instant` natively and a constant 0 on wasm, where the
    /// host should pass e.g. `performance.now`).
    pub fn set_clock(&mut self, clock: fn() -> f64) {
        self.clock = clock;
    }

    pub(crate) fn now_ms(&self) -> f64 {
        (self.clock)()
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The index.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Records by domain (built on first use).
    pub(crate) fn domains(&self) -> &context::DomainIndex {
        self.domains
            .get_or_init(|| context::DomainIndex::build(self))
    }

    /// Parses a `filter` value against this engine's data.
    pub fn parse_filters(&self, raw: &str, version: Version) -> Result<Filters, Vec<String>> {
        Filters::parse(raw, version, &self.index)
    }

    /// Every record passing `filters`, in id order (listing without query).
    pub fn list(&self, filters: &Filters) -> Hits {
        let records: Vec<u32> = (0..self.index.records() as u32)
            .filter(|&r| filters.matches(&self.index, r, false))
            .collect();
        let scores = vec![0.0; records.len()];
        Hits { records, scores }
    }

    /// E2: runs `query` (raw text, URL-decoded) under `filters`. `Err` is a
    /// 400 message (syntax, length).
    pub fn search(&self, query: &str, filters: &Filters) -> Result<Hits, String> {
        self.search_with(query, filters, None)
    }

    /// [`Engine::search`], scored with the whole registry's statistics when
    /// this engine holds only part of it (`stats`; a query term missing
    /// from `stats.df` is counted here).
    pub fn search_with(
        &self,
        query: &str,
        filters: &Filters,
        stats: Option<&GlobalStats>,
    ) -> Result<Hits, String> {
        check_length(query)?;
        if let Some(hits) = self.id_query(query, filters)? {
            return Ok(hits);
        }
        let parsed = query::parse(query)?;
        let mut scored = self.score(query, &parsed, None, stats)?.hits;
        self.add_external_key_hits(query, &mut scored);
        scored.retain(|&(_, r, _)| filters.matches(&self.index, r, false));
        // Equal scores (records named alike): the one people pick more
        // often first, then id order, so the order stays total.
        let prior = self.registry.priors();
        scored.sort_unstable_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(prior[b.1 as usize].cmp(&prior[a.1 as usize]))
                .then(a.1.cmp(&b.1))
        });
        Ok(Hits {
            records: scored.iter().map(|s| s.1).collect(),
            scores: scored.iter().map(|s| s.0).collect(),
        })
    }

    /// A query that is a record id (any form): that record whatever its
    /// status (filters still apply); `Err` for text that names the id host
    /// but has wrong check digits (clearly meant as an identifier: say why
    /// it is not one rather than searching for its text); `None` for any
    /// other text.
    fn id_query(&self, query: &str, filters: &Filters) -> Result<Option<Hits>, String> {
        // A client that escapes free text as the spec asks sends an id URL
        // as `https\:\/\/ror.org\/…`: it is still that id.
        let unescaped = query::unescape(query);
        let parsed_id = RecordId::parse(&unescaped);
        if let Err(e @ IdError::BadChecksum { .. }) = &parsed_id
            && (unescaped.contains(crate::id::ID_HOST)
                || self.external_exact(&unescaped).is_empty())
        {
            // Clearly meant as an identifier (it names the host, or has the
            // shape of one and is no external id): say why it is not one
            // rather than searching for its text.
            return Err(e.to_string());
        }
        let Ok(id) = parsed_id else {
            return Ok(None);
        };
        let records: Vec<u32> = self
            .registry
            .index_of(id)
            .map(|i| i as u32)
            .filter(|&r| filters.matches(&self.index, r, true))
            .into_iter()
            .collect();
        let scores = vec![EXTERNAL_ID_SCORE; records.len()];
        Ok(Some(Hits { records, scores }))
    }

    /// The whole text as an external id in any usual form (an ISNI or
    /// Wikidata URL, a FundRef DOI, an ISNI without its spaces): those
    /// records first, as for an id exactly as stored.
    fn add_external_key_hits(&self, query: &str, scored: &mut Vec<(f32, u32, u16)>) {
        let unescaped = query::unescape(query);
        if !text::looks_like_external_id(&unescaped) {
            return;
        }
        for r in self
            .index
            .external(&self.registry)
            .by_key(&text::external_id_key(&unescaped))
        {
            match scored.iter_mut().find(|s| s.1 == r) {
                Some(s) => s.0 = s.0.max(EXTERNAL_ID_SCORE),
                None => scored.push((EXTERNAL_ID_SCORE, r, 0)),
            }
        }
    }

    /// Records with the external id `id` as stored. Every external id kind
    /// (GRID, ISNI, FundRef, Wikidata) contains a digit, so text without one
    /// never needs (nor triggers the lazy build of) the id maps.
    fn external_exact(&self, id: &str) -> Vec<u32> {
        if !id.bytes().any(|b| b.is_ascii_digit()) {
            return Vec::new();
        }
        self.index.external(&self.registry).exact(id)
    }

    fn bm25_norm(&self, e: u32, stats: Option<&GlobalStats>) -> f32 {
        let len = self.index.entry_terms(e).len();
        bm25_norm(len, stats.map_or(self.index.avg_len(), |s| s.avg_len))
    }

    fn idf(&self, df: usize, stats: Option<&GlobalStats>) -> f32 {
        idf(stats.map_or(self.index.entries(), |s| s.entries), df)
    }

    /// Entries holding a term that starts with `token`, as E2 counts a
    /// prefix token's document frequency ([`GlobalStats::prefix_df`]): the
    /// whole registry's when this engine holds every record of the prefix.
    pub(crate) fn prefix_df(&self, token: &str) -> usize {
        let r = self.index.prefix_range(token);
        match r.len() {
            0 => 0,
            1 => self.index.postings(r.start).len(),
            _ => self.index.range_postings(&r),
        }
    }

    /// Term ids a query token stands for.
    fn token_terms(&self, token: &str, prefix: bool, fuzzy: bool) -> Vec<std::ops::Range<u32>> {
        if prefix {
            return vec![self.index.prefix_range(token)];
        }
        let mut out: Vec<std::ops::Range<u32>> = self
            .index
            .term_id(token)
            .map(|t| t..t + 1)
            .into_iter()
            .collect();
        if fuzzy {
            let len = token.chars().count();
            let max = if len <= 2 {
                0
            } else if len <= 5 {
                1
            } else {
                2
            };
            if max > 0 {
                let q: Vec<char> = token.chars().collect();
                for t in 0..self.index.term_count() as u32 {
                    if out.len() >= 50 {
                        break;
                    }
                    let term = self.index.term(t);
                    let tl = term.chars().count();
                    if tl.abs_diff(len) > max || term == token {
                        continue;
                    }
                    if within_distance(&q, term, max) {
                        out.push(t..t + 1);
                    }
                }
            }
        }
        out
    }

    /// Scores every record the parsed query matches (unfiltered). With
    /// `typed_last` (the search page's reading, [`typed`]), that clause's
    /// last token also matches by prefix (it still counts as typed for the
    /// exact-name boost), and each hit carries how many query units its
    /// best-covered name matches.
    fn score(
        &self,
        raw: &str,
        q: &ParsedQuery,
        typed_last: Option<usize>,
        stats: Option<&GlobalStats>,
    ) -> Result<Scored, String> {
        let fuzzy_terms = q
            .clauses
            .iter()
            .filter(|c| matches!(c.kind, ClauseKind::Term { fuzzy: true, .. }))
            .count();
        if fuzzy_terms > MAX_FUZZY_TERMS {
            return Err(format!(
                "query has too many fuzzy terms ({fuzzy_terms}; at most {MAX_FUZZY_TERMS} may end with ~)"
            ));
        }
        let mut acc = Accumulated::new(&self.index, typed_last.is_some());
        // Query phrase sequence for the exact-name boost.
        let mut exact_seq: Vec<String> = Vec::new();
        for (ci, clause) in q.clauses.iter().enumerate() {
            if ci + 1 > MAX_QUERY_TERMS {
                return Err(format!(
                    "query has too many terms (more than {MAX_QUERY_TERMS}); quote a long name as a phrase"
                ));
            }
            let (text, prefix, fuzzy) = match &clause.kind {
                ClauseKind::Term {
                    text,
                    prefix,
                    fuzzy,
                } => (text.as_str(), *prefix, *fuzzy),
                ClauseKind::Phrase { text, .. } => (text.as_str(), false, false),
            };
            // External ids, exactly as stored.
            let ext = self.external_exact(text.trim());
            let toks = text::tokens(text);
            if clause.occur != Occur::MustNot && !prefix && !fuzzy {
                exact_seq.extend(
                    toks.iter()
                        .filter(|t| t.kind != TokenKind::Bigram && t.text != "and")
                        .map(|t| t.text.clone()),
                );
            }
            let (units, unit_scores) =
                self.clause_units(clause, &toks, typed_last == Some(ci), stats, &mut acc);
            match clause.occur {
                Occur::MustNot => acc.exclude(&self.index, &units, &ext),
                occur => {
                    acc.add(self, &unit_scores, &ext, stats);
                    if occur == Occur::Must {
                        acc.require(&self.index, &units, &ext)?;
                    }
                }
            }
        }
        // The whole raw query as an external id (an unquoted ISNI with spaces).
        acc.ext_hits.extend(self.external_exact(raw.trim()));
        let (rec_score, rec_cov, rec_touched) = self.record_scores(&acc, &exact_seq);
        let full_mask: u64 = if acc.must_count >= 64 {
            u64::MAX
        } else {
            (1u64 << acc.must_count) - 1
        };
        let mut scored = Scored {
            hits: Vec::new(),
            must_bits: acc.must_bits,
            full_mask,
            excluded: acc.excluded,
        };
        scored.hits = rec_touched
            .into_iter()
            .filter(|&r| scored.allows(r))
            .map(|r| {
                let cov = rec_cov.get(r as usize).copied().unwrap_or(0);
                (rec_score[r as usize], r, cov)
            })
            .collect();
        Ok(scored)
    }

    /// A term's document frequency: the whole registry's when known.
    fn df_of(&self, t: u32, stats: Option<&GlobalStats>) -> usize {
        stats
            .and_then(|s| s.df.get(self.index.term(t)))
            .copied()
            .unwrap_or_else(|| self.index.postings(t).len())
    }

    /// The units of a clause that must match, each with the entries it
    /// matches: one per token for terms (and for sloppy phrases), one for a
    /// whole exact phrase; and the scored ones as (entries matched, idf,
    /// whether it counts as a word covered: not a word a typeahead query
    /// may omit, `of`, `the`, …). `typed_last`: the clause's last token
    /// also matches by prefix.
    fn clause_units(
        &self,
        clause: &Clause,
        toks: &[text::Token],
        typed_last: bool,
        stats: Option<&GlobalStats>,
        acc: &mut Accumulated,
    ) -> (Vec<Vec<u32>>, Vec<UnitScore>) {
        let ix = &self.index;
        let mut units: Vec<Vec<u32>> = Vec::new();
        let mut unit_scores: Vec<UnitScore> = Vec::new();
        let (prefix, fuzzy) = match &clause.kind {
            ClauseKind::Phrase { sloppy: false, .. } => {
                let seq: Vec<&str> = toks
                    .iter()
                    .filter(|t| t.kind != TokenKind::Bigram)
                    .map(|t| t.text.as_str())
                    .collect();
                let ids: Option<Vec<u32>> = seq.iter().map(|t| ix.term_id(t)).collect();
                let mut matched = Vec::new();
                if let Some(ids) = ids.filter(|v| !v.is_empty()) {
                    let rarest = *ids
                        .iter()
                        .min_by_key(|&&t| ix.postings(t).len())
                        .unwrap_or(&ids[0]);
                    let idf_sum: f32 = ids
                        .iter()
                        .map(|&t| self.idf(self.df_of(t, stats), stats))
                        .sum();
                    for &e in ix.postings(rarest) {
                        if contains_seq(ix.entry_terms(e), &ids) {
                            matched.push(e);
                        }
                    }
                    unit_scores.push((matched.clone(), idf_sum, true));
                }
                units.push(matched);
                return (units, unit_scores);
            }
            ClauseKind::Phrase { .. } => (false, false),
            ClauseKind::Term { prefix, fuzzy, .. } => (*prefix, *fuzzy),
        };
        let last = toks.len().saturating_sub(1);
        let last_prefix = prefix || typed_last;
        for (k, t) in toks.iter().enumerate() {
            let as_prefix = last_prefix && k == last;
            let ranges = self.token_terms(&t.text, as_prefix, fuzzy);
            let whole_prefix_df = stats
                .filter(|_| as_prefix)
                .and_then(|s| s.prefix_df.get(&t.text).copied());
            let df: usize = whole_prefix_df.unwrap_or_else(|| {
                ranges
                    .iter()
                    .map(|r| {
                        if r.len() == 1 {
                            self.df_of(r.start, stats)
                        } else {
                            ix.range_postings(r)
                        }
                    })
                    .sum()
            });
            let idf = self.idf(df, stats);
            let matched = acc.entries_of(ix, ranges);
            unit_scores.push((matched.clone(), idf, !text::is_optional_word(&t.text)));
            units.push(matched);
        }
        if toks.is_empty() {
            units.push(Vec::new());
        }
        (units, unit_scores)
    }

    /// Each matched record's best name score, with the exact-name boost
    /// (a name whose words are the query's, `and` aside, up to 4 more:
    /// most for a display name or label, less for an alias, least for an
    /// acronym) and its coverage; records found by an external id at least
    /// [`EXTERNAL_ID_SCORE`]. Returns (score, coverage per record, the
    /// records touched).
    fn record_scores(
        &self,
        acc: &Accumulated,
        exact_seq: &[String],
    ) -> (Vec<f32>, Vec<u16>, Vec<u32>) {
        let ix = &self.index;
        let n_records = ix.records();
        let exact_ids: Option<Vec<u32>> = if exact_seq.is_empty() {
            None
        } else {
            exact_seq.iter().map(|t| ix.term_id(t)).collect()
        };
        let and_id = ix.term_id("and");
        let mut rec_score = vec![0f32; n_records];
        let mut rec_cov: Vec<u16> = vec![
            0;
            if acc.entry_cov.is_empty() {
                0
            } else {
                n_records
            }
        ];
        let mut rec_touched: Vec<u32> = Vec::new();
        for &e in &acc.touched {
            let mut s = acc.entry_score[e as usize];
            if let Some(ids) = &exact_ids {
                let terms = ix.entry_terms(e);
                if terms.len() >= ids.len()
                    && terms.len() <= ids.len() + 4
                    && terms.iter().filter(|&&t| Some(t) != and_id).eq(ids.iter())
                {
                    let f = ix.entry_flags(e);
                    s += if f & (name_flags::DISPLAY | name_flags::LABEL) != 0 {
                        EXACT_NAME_BOOST
                    } else if f & name_flags::ALIAS != 0 {
                        EXACT_NAME_BOOST - 100.0
                    } else {
                        EXACT_NAME_BOOST - 200.0
                    };
                }
            }
            let r = ix.entry_record(e) as usize;
            if rec_score[r] == 0.0 {
                rec_touched.push(r as u32);
            }
            if s > rec_score[r] {
                rec_score[r] = s;
            }
            if let Some(c) = rec_cov.get_mut(r) {
                *c = (*c).max(acc.entry_cov[e as usize]);
            }
        }
        for &r in &acc.ext_hits {
            if rec_score[r as usize] == 0.0 {
                rec_touched.push(r);
            }
            rec_score[r as usize] = rec_score[r as usize].max(EXTERNAL_ID_SCORE);
        }
        (rec_score, rec_cov, rec_touched)
    }
}

/// A unit of a clause as it scores: (entries matched, idf, whether it
/// counts as a word covered).
type UnitScore = (Vec<u32>, f32, bool);

/// What [`Engine::score`] gathers clause by clause: each name's score and
/// coverage, the records required units and excluded clauses mark, and the
/// records found by an external id.
struct Accumulated {
    /// Per name entry, the sum of its matched units' scores.
    entry_score: Vec<f32>,
    /// The entries with a score, in the order they got one.
    touched: Vec<u32>,
    /// Per entry, the query units it matches (typed reading only, else empty).
    entry_cov: Vec<u16>,
    /// Per entry, the unit that last listed it (each unit's entries once).
    stamp: Vec<u32>,
    stamp_no: u32,
    /// Per record, a bit per required unit it matches (empty: none required).
    must_bits: Vec<u64>,
    must_count: u32,
    /// Per record, matched by an excluded clause (empty: none).
    excluded: Vec<bool>,
    ext_hits: Vec<u32>,
}

impl Accumulated {
    fn new(ix: &Index, coverage: bool) -> Accumulated {
        let n_entries = ix.entries();
        Accumulated {
            entry_score: vec![0f32; n_entries],
            touched: Vec::new(),
            entry_cov: if coverage {
                vec![0; n_entries]
            } else {
                Vec::new()
            },
            stamp: vec![u32::MAX; n_entries],
            stamp_no: 0,
            must_bits: Vec::new(),
            must_count: 0,
            excluded: Vec::new(),
            ext_hits: Vec::new(),
        }
    }

    /// The entries of the terms in `ranges`, each once.
    fn entries_of(&mut self, ix: &Index, ranges: Vec<std::ops::Range<u32>>) -> Vec<u32> {
        let mut matched = Vec::new();
        self.stamp_no += 1;
        for r in ranges {
            for term in r {
                for &e in ix.postings(term) {
                    if self.stamp[e as usize] != self.stamp_no {
                        self.stamp[e as usize] = self.stamp_no;
                        matched.push(e);
                    }
                }
            }
        }
        matched
    }

    /// An excluded clause: every record its units or external ids match.
    fn exclude(&mut self, ix: &Index, units: &[Vec<u32>], ext: &[u32]) {
        if self.excluded.is_empty() {
            self.excluded.resize(ix.records(), false);
        }
        for unit in units {
            for &e in unit {
                self.excluded[ix.entry_record(e) as usize] = true;
            }
        }
        for &r in ext {
            self.excluded[r as usize] = true;
        }
    }

    /// A scoring clause: each matched entry gains its unit's idf, length
    /// normalised (and a unit of coverage for a word that counts).
    fn add(
        &mut self,
        engine: &Engine,
        unit_scores: &[UnitScore],
        ext: &[u32],
        stats: Option<&GlobalStats>,
    ) {
        for (matched, idf, covers) in unit_scores {
            for &e in matched {
                if self.entry_score[e as usize] == 0.0 {
                    self.touched.push(e);
                }
                self.entry_score[e as usize] += idf * engine.bm25_norm(e, stats) + 1e-6;
                if *covers && let Some(c) = self.entry_cov.get_mut(e as usize) {
                    *c += 1;
                }
            }
        }
        self.ext_hits.extend_from_slice(ext);
    }

    /// A required clause: a bit per unit on every record that matches it
    /// (an external-id hit satisfies the whole clause); at most 64 units.
    fn require(&mut self, ix: &Index, units: &[Vec<u32>], ext: &[u32]) -> Result<(), String> {
        if self.must_bits.is_empty() {
            self.must_bits.resize(ix.records(), 0);
        }
        let must_count = self.must_count;
        let unit_count = if ext.is_empty() { units.len() } else { 1 };
        for (k, unit) in units.iter().enumerate().take(unit_count) {
            let bit = must_count + k as u32;
            if bit >= 64 {
                return Err("query has too many required words (more than 64)".to_string());
            }
            for &e in unit {
                self.must_bits[ix.entry_record(e) as usize] |= 1 << bit;
            }
            if k == 0 {
                for &r in ext {
                    for b in 0..units.len() as u32 {
                        if must_count + b < 64 {
                            self.must_bits[r as usize] |= 1 << (must_count + b);
                        }
                    }
                }
            }
        }
        self.must_count += units.len() as u32;
        Ok(())
    }
}

/// What [`Engine::score`] found: the matches, and the query's required and
/// excluded clauses (for records found another way, [`typed`]).
struct Scored {
    /// (score, record, query units its best-covered name matches — typed
    /// reading only, else 0) of every match, unfiltered, in no order.
    hits: Vec<(f32, u32, u16)>,
    /// Per record, a bit per required unit it matches (empty: none required).
    must_bits: Vec<u64>,
    full_mask: u64,
    /// Per record, matched by an excluded clause (empty: none).
    excluded: Vec<bool>,
}

impl Scored {
    /// Whether record `r` has every required unit and no excluded one.
    fn allows(&self, r: u32) -> bool {
        self.must_bits
            .get(r as usize)
            .is_none_or(|b| b & self.full_mask == self.full_mask)
            && !self.excluded.get(r as usize).copied().unwrap_or(false)
    }
}

/// The 400 message for a query longer than [`MAX_QUERY_CHARS`].
fn check_length(query: &str) -> Result<(), String> {
    let n_chars = query.chars().count();
    if n_chars > MAX_QUERY_CHARS {
        return Err(format!(
            "query is too long ({n_chars} characters); the maximum is {MAX_QUERY_CHARS}"
        ));
    }
    Ok(())
}

/// BM25's length normalisation of a name of `len` words (at least one).
pub fn bm25_norm(len: usize, avg_len: f32) -> f32 {
    let len = len.max(1) as f32;
    (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * len / avg_len))
}

/// BM25's inverse document frequency of a term in `df` of `n` names.
pub fn idf(n: usize, df: usize) -> f32 {
    let n = n as f32;
    let df = (df as f32).min(n);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// True when `hay` contains `needle` contiguously.
fn contains_seq(hay: &[u32], needle: &[u32]) -> bool {
    needle.len() <= hay.len() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Levenshtein distance between `a` and `b` is at most `max`.
fn within_distance(a: &[char], b: &str, max: usize) -> bool {
    crate::text::bounded_distance(a, b, max) <= max
}
