//! [`SearchClient::answer`]: a page from the loaded pieces, or what to
//! fetch first.

use std::collections::{HashMap, HashSet};

use crate::RecordId;
use crate::index::Index;
use crate::order::{sort, sort_by, sort_by_key};
use crate::search::facets::FacetCounts;
use crate::search::query;
use crate::search::query::{ClauseKind, Occur};
use crate::search::{Engine, Filters, GlobalStats, PAGE_SIZE, Version, typed};
use crate::shard::pieces::{PieceKind, id_key};
use crate::shard::search::Group;
use crate::text::{self, TokenKind};

use super::chunks::read_ahead;
use super::facets::{add_group, add_record, group_passes};
use super::outside::record_has;
use super::reading::{
    Clause, common_phrase, common_units, external_needs, lone_phrase, outside_sets, phrase_needs,
    query_tokens, split_common, triples_of,
};
use super::slices::Slice;
use super::sources::Source;
use super::{
    ListQuery, MAX_RANK_CHUNKS, Need, PageAnswer, PageHit, SearchAnswer, SearchClient, bound,
};

/// Triples of common terms one answer may ask for (each a group file and
/// its first rank chunk, in one round): a query of several common words
/// has many, and each is a round trip.
const MAX_TRIPLES: usize = 3;

impl SearchClient {
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

    pub(super) fn answer_id(
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

    pub(super) fn page(
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

/// Adds `e` to `engines` unless it is there: a piece may hold the records
/// of several query words.
fn push_once<'e>(engines: &mut Vec<&'e Engine>, e: &'e Engine) {
    if !engines.iter().any(|x| std::ptr::eq(*x, e)) {
        engines.push(e);
    }
}
