//! [`SearchClient::answer`]: the request read, the files its words need
//! fetched in one round, then its records ranked and counted from the
//! loaded pieces and the page proven — each a step below, each able to
//! end the answer early.

use std::ops::ControlFlow::{Break, Continue};

use crate::RecordId;
use crate::index::Index;
use crate::order::sort;
use crate::search::facets::FacetCounts;
use crate::search::query::{self, ClauseKind, Occur, ParsedQuery};
use crate::search::{Filters, Version};
use crate::shard::pieces::id_key;
use crate::shard::search::SearchStats;

use super::held::rank_held;
use super::outside::Outside;
use super::page::{add_record, page, page_range};
use super::reading::{
    Reading, clauses_of, common_phrase, external_needs, outside_sets, phrase_needs, query_tokens,
};
use super::{ListQuery, Need, SearchAnswer, SearchClient, Step, decided};

impl SearchClient {
    /// The answer to `q`, or what to fetch first.
    pub fn answer(&self, q: &ListQuery) -> SearchAnswer {
        let Some((stats, countries)) = &self.stats else {
            return self.stats_first(q);
        };
        decided(self.answer_with(q, stats, countries))
    }

    /// Before the statistics: them, and with them the statistics parts of
    /// the query's words (version 8: a 404 before), which say which of
    /// them are common.
    fn stats_first(&self, q: &ListQuery) -> SearchAnswer {
        let mut needs = vec![Need::Stats];
        if RecordId::parse(&q.query).is_err() {
            needs.extend(self.missing_parts(query_tokens(&q.query).iter().map(String::as_str)));
        }
        SearchAnswer::Need(needs)
    }

    /// The answer to `q` with the statistics (`stats`, their `countries`).
    fn answer_with(
        &self,
        q: &ListQuery,
        stats: &SearchStats,
        countries: &Index,
    ) -> Step<SearchAnswer> {
        let filters = filters_of(q, countries)?;
        let parsed = self.parse_query(q, &filters, countries)?;
        let external = external_ids(q, stats, &parsed)?;
        check_terms(&parsed)?;
        let clauses = clauses_of(&parsed, q.typed);
        let r = Reading::new(q, stats, countries, filters, &parsed, &clauses, external);
        self.parts_known(&r)?;
        self.first_round(&r)?;
        let phrase_pieces = self.phrase_pieces(&r)?;
        let last = self.last_word(&r)?;
        let first = self.typeahead_first(&r, last.extension)?;
        let held = self.held_pieces(&r, last, &first, phrase_pieces)?;
        let mut records = rank_held(&r, &held, first.piece)?;
        let outside = match outside_sets(stats, &clauses) {
            Some(sets) => self.count_outside(&r, &sets, &held.engines)?,
            None => Outside::default(),
        };
        let total = records.first.len() as i64 + records.scored.len() as i64 + outside.count;
        let Ok(total) = usize::try_from(total) else {
            return Break(SearchAnswer::Whole(
                "the member files disagree with the pieces",
            ));
        };
        let (from, to) = page_range(q.page, total);
        if first.from_head && to > records.first.len() {
            // The typeahead's other matches follow the head's, in its order.
            return Break(SearchAnswer::Whole(
                "the page passes the typeahead's head of its word",
            ));
        }
        if outside.count > 0 && to > records.first.len() {
            self.prove_page(&r, &held.global, &records, &outside, to)?;
        }
        records.facets.merge(&outside.facets, 1);
        let rows = records
            .first
            .iter()
            .copied()
            .chain(records.scored.iter().map(|&(_, s, _, _, e, r)| (s, e, r)));
        let hits = rows.skip(from).take(to - from).collect();
        Continue(page(q, countries, hits, total, records.facets))
    }

    /// `q`'s query parsed, but first the requests that need no parse: an
    /// empty query, one too long, a record's id (its id piece).
    fn parse_query(
        &self,
        q: &ListQuery,
        filters: &Filters,
        countries: &Index,
    ) -> Step<ParsedQuery> {
        let query = q.query.as_str();
        if query.trim().is_empty() {
            return Break(page(q, countries, Vec::new(), 0, FacetCounts::default()));
        }
        let n_chars = query.chars().count();
        if n_chars > crate::search::MAX_QUERY_CHARS {
            return Break(SearchAnswer::Invalid(vec![format!(
                "query is too long ({n_chars} characters); the maximum is {}",
                crate::search::MAX_QUERY_CHARS
            )]));
        }
        match RecordId::parse(query) {
            Err(e @ crate::IdError::BadChecksum { .. }) if query.contains(crate::id::ID_HOST) => {
                return Break(SearchAnswer::Invalid(vec![e.to_string()]));
            }
            Ok(id) => return Break(self.answer_id(q, id, filters, countries)),
            Err(_) => {}
        }
        match query::parse(query) {
            Ok(p) => Continue(p),
            Err(e) => Break(SearchAnswer::Invalid(vec![e])),
        }
    }

    /// Version 8: which words are common is known once their
    /// statistics parts are in (asked with the statistics file).
    fn parts_known(&self, r: &Reading) -> Step<()> {
        let parts = self.missing_parts(r.tokens().map(|t| t.text.as_str()));
        if !parts.is_empty() {
            return Break(SearchAnswer::Need(parts));
        }
        Continue(())
    }

    /// Every token's source; what is missing is fetched first, all at
    /// once, with rank chunk 0 of the rarest common word
    /// ([`SearchClient::first_chunk_ahead`]).
    fn first_round(&self, r: &Reading) -> Step<()> {
        let stats = r.stats;
        let mut needs: Vec<Need> = Vec::new();
        for t in r.tokens() {
            if let Err(n) = self.source(stats, &t.text) {
                needs.push(n);
            }
        }
        if let Some(t) = r.last_token()
            && let Err(n) = self.extension(stats, &t.text)
        {
            needs.push(n);
        }
        needs.extend(self.outside_needs(stats, r.clauses));
        needs.extend(r.external.iter().filter(|n| !self.has(n)).cloned());
        // The phrase pieces of quoted phrases of common words, with the
        // first files (a 404 when the build wrote none).
        for (occur, exact_phrase, toks) in r.clauses {
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
        if let Some((a, b)) = r.lone_phrase() {
            needs.extend(
                [
                    Need::PhraseGroups(a.to_string(), b.to_string()),
                    Need::PhraseRank(a.to_string(), b.to_string(), 0),
                ]
                .into_iter()
                .filter(|n| !self.has(n)),
            );
        }
        if needs.is_empty() {
            return Continue(());
        }
        needs.extend(self.first_chunk_ahead(stats, r.clauses, &r.slices));
        sort(&mut needs);
        needs.dedup();
        Break(SearchAnswer::Need(needs))
    }

    /// A query that is a record's id: its id piece holds the record.
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
        let (from, to) = page_range(q.page, total);
        let page_hits = (from..to)
            .map(|i| (hits.scores[i], e, hits.records[i]))
            .collect();
        page(q, countries, page_hits, total, facets)
    }
}

/// The request's filters (its `filter` value, and `all_status`); a bad
/// `filter` gets the whole registry's 400 messages.
fn filters_of(q: &ListQuery, countries: &Index) -> Step<Filters> {
    let mut filters = match &q.filter {
        Some(f) => match Filters::parse(f, q.version, countries) {
            Ok(f) => f,
            Err(e) => return Break(SearchAnswer::Invalid(e)),
        },
        None => Filters {
            first_location_only: q.version == Version::V1,
            ..Filters::default()
        },
    };
    filters.all_status = q.all_status;
    Continue(filters)
}

/// A digit: the text may be an external id, which only the whole
/// records hold: the external id pieces of every id E2 may look up
/// (version 6; not for the search page's reading, whose typeahead
/// lists an id's record first, nor for an excluded one).
fn external_ids(q: &ListQuery, stats: &SearchStats, parsed: &ParsedQuery) -> Step<Vec<Need>> {
    let query = q.query.as_str();
    if !query.bytes().any(|b| b.is_ascii_digit()) {
        return Continue(Vec::new());
    }
    let excluded_digit = parsed.clauses.iter().any(|c| {
        c.occur == Occur::MustNot
            && match &c.kind {
                ClauseKind::Term { text, .. } | ClauseKind::Phrase { text, .. } => {
                    text.bytes().any(|b| b.is_ascii_digit())
                }
            }
    });
    if q.typed || stats.external_buckets == 0 || excluded_digit {
        return Break(SearchAnswer::Whole(
            "a word with a digit may be an external id",
        ));
    }
    Continue(external_needs(query, parsed, stats.external_buckets))
}

/// Prefix and fuzzy terms, which only the whole dictionary can expand;
/// too many terms, the whole registry's 400.
fn check_terms(parsed: &ParsedQuery) -> Step<()> {
    if parsed
        .clauses
        .iter()
        .any(|c| matches!(c.kind, ClauseKind::Term { prefix, fuzzy, .. } if prefix || fuzzy))
    {
        return Break(SearchAnswer::Whole(
            "prefix and fuzzy terms need the whole dictionary",
        ));
    }
    if parsed.clauses.len() > crate::search::MAX_QUERY_TERMS {
        return Break(SearchAnswer::Invalid(vec![format!(
            "query has too many terms (more than {}); quote a long name as a phrase",
            crate::search::MAX_QUERY_TERMS
        )]));
    }
    Continue(())
}
