//! What a build writes for E2 over pieces, besides the typeahead pieces it
//! reuses: a piece per split term, the member files of common terms and
//! the statistics (see the parent module's docs).

use std::collections::HashMap;

use super::needs::{
    FACET_RANK_CHUNKS, MAX_RANK_CHUNKS, Need, PAIR_RANK_CHUNKS, PHRASE_RANK_CHUNKS,
    TRIPLE_RANK_CHUNKS,
};
use crate::pieces::PieceBudget;
use crate::search::Engine;
use crate::shard::pieces::{PieceKind, PieceSpec};
use crate::shard::search::{
    ChunkFirst, CommonTerm, CountryEntry, FacetChunks, Group, Member, SearchStats, TermGroups,
    TermMembers,
};

/// Groups a pair of common terms may have and still be written in the
/// file of one of its terms rather than its own (unless its records are
/// more than a rank chunk holds).
const PAIR_FILE_GROUPS: usize = 16;

/// A triple of common terms held in one name has a rank chunk and a
/// group file of its own when its records pass this share of the piece
/// budget (half: at 48 KiB, ~150–200 records). Smaller triples are many
/// and help few pages: at 143,960 records a tenth wrote 30,821 triples'
/// chunks, 168 MB, more than a quarter of the site, which 7.5 % of
/// `registry bench-pieces`' requests read (and half of those reads asked
/// for a triple that had none).
const TRIPLE_BUDGET_SHARE: usize = 2;

/// The E2 files of a build, before they are written.
#[derive(Clone, Debug, Default)]
pub struct SearchPieces {
    /// One piece per split term whose records fit the budget: every record
    /// holding exactly that term ([`PieceKind::Leaf`] files keyed by the
    /// term; written as `t-<hex>.shard`).
    pub terms: Vec<PieceSpec>,
    /// One member file per common term (too many records for a piece).
    pub members: Vec<TermMembers>,
    /// The rank chunks of each common term, in order: (term, chunk number,
    /// piece of its records; written as `k-<hex>-<n>.shard`).
    pub chunks: Vec<(String, u32, PieceSpec)>,
    /// The rank chunks of each pair of common terms with a group file of
    /// its own, in order: (the terms, sorted; chunk number; piece of the
    /// records with a name holding both; written as
    /// `k-<hex>-<hex>-<n>.shard`).
    pub pair_chunks: Vec<((String, String), u32, PieceSpec)>,
    /// The rank chunks of each triple of common terms held in one name by
    /// records of more than a tenth of the budget, in order: (the terms,
    /// sorted; chunk number; piece of the records with a name holding all
    /// three, by the shortest such name; written as
    /// `k-<hex>-<hex>-<hex>-<n>.shard`), described in the triple's group
    /// file (`g-<hex>-<hex>-<hex>.shard`, chunks only: the counts of three
    /// or more common terms come from member files).
    pub triple_chunks: Vec<(Vec<String>, u32, PieceSpec)>,
    /// The first rank chunks of each common term over each country's
    /// records (version 6), in order: (term, country code, chunk number,
    /// piece; written as `kc-<hex>-<hex>-<n>.shard`).
    pub country_chunks: Vec<(String, String, u32, PieceSpec)>,
    /// The same over each type's records (version 7): (term, type, chunk
    /// number, piece; written as `kt-<hex>-<hex>-<n>.shard`).
    pub type_chunks: Vec<(String, String, u32, PieceSpec)>,
    /// One *phrase piece* per pair of common terms that a name holds one
    /// right after the other, when their records fit the budget (version
    /// 6): every such record (written as `p-<hex>-<hex>.shard`). A quoted
    /// phrase of common words reads one of its pairs' pieces.
    pub phrases: Vec<(String, String, PieceSpec)>,
    /// For each such pair whose records do not fit a piece (version 7):
    /// its first [`PHRASE_RANK_CHUNKS`] rank chunks, its records by
    /// their shortest name holding the pair (the terms in the phrase's
    /// order; chunk number; written as `pk-<hex>-<hex>-<n>.shard`) ...
    pub phrase_chunks: Vec<((String, String), u32, PieceSpec)>,
    /// ... and its group file: every such record counted by its columns,
    /// with the chunks described (written as `pg-<hex>-<hex>.shard`). A
    /// quoted phrase of those two words alone is ranked and counted by them.
    pub phrase_groups: Vec<TermGroups>,
    /// The external id pieces (version 6): for each bucket
    /// ([`crate::shard::search::external_bucket`] among
    /// [`SearchStats::external_buckets`]) that has any, the records
    /// (ascending) with an external id in it, written as whole records
    /// (`e-<bucket>.shard`).
    pub externals: Vec<(u32, Vec<u32>)>,
    /// One *extension piece* per split prefix whose extensions fit the
    /// budget: every record holding a term that starts with the prefix
    /// other than the prefix itself (written as `x-<hex>.shard`, possibly
    /// with no record). With the prefix's own records (its term piece or
    /// member file), it holds every record of the prefix read as a prefix:
    /// the search page's last word ([`crate::search::typed`]).
    pub extensions: Vec<PieceSpec>,
    /// The group files: one per common term, one per pair of common terms
    /// that share records (written as `g-<hex>[-<hex>].shard`).
    pub groups: Vec<TermGroups>,
    /// The statistics file.
    pub stats: SearchStats,
}

/// Records (ascending indexes) holding term `t` of `engine`'s index.
fn term_records(engine: &Engine, t: u32) -> Vec<u32> {
    let ix = engine.index();
    let mut out: Vec<u32> = ix.postings(t).iter().map(|&e| ix.entry_record(e)).collect();
    out.dedup(); // postings are in entry order, so a record's are adjacent
    out
}

/// The E2 files of `engine`'s registry, given its typeahead pieces
/// (`specs`, [`crate::pieces::partition`]) and the budget they were cut
/// with: the typeahead leaves already hold every record of every term
/// under their prefix; only terms that are themselves split prefixes need
/// more.
pub fn search_pieces(engine: &Engine, specs: &[PieceSpec], budget: &PieceBudget) -> SearchPieces {
    let reg = engine.registry();
    let build = Build {
        engine,
        sizes: (0..reg.len())
            .map(|r| 24 + reg.names(r).map(|n| n.value.len() + 4).sum::<usize>())
            .collect(),
        budget: budget.raw_bytes,
        and: engine.index().term_id("and"),
    };
    let mut split = build.split_terms(specs);
    split.common.sort_by(|a, b| a.term.cmp(&b.term));
    split.common_records.sort_by(|a, b| a.0.cmp(&b.0));
    let common_records = &split.common_records;
    let (phrases, phrase_chunks, phrase_groups) = build.phrase_files(common_records);
    let (mut groups, pair_chunks) =
        build.group_files(common_records, split.own_chunks, split.by_facet);
    let (triples, triple_chunks) = build.triple_files(common_records);
    groups.extend(triples);
    let mut stats = build.stats(split.common);
    mark_holds(&mut stats, &mut split.members, common_records);
    SearchPieces {
        groups,
        terms: split.terms,
        members: split.members,
        chunks: split.chunks,
        pair_chunks,
        triple_chunks,
        country_chunks: split.country_chunks,
        type_chunks: split.type_chunks,
        phrases,
        phrase_chunks,
        phrase_groups,
        externals: Vec::new(),
        extensions: split.extensions,
        stats,
    }
}

/// What [`search_pieces`] reads: the engine over every record, each
/// record's raw size in a piece, and the budget of a piece.
struct Build<'a> {
    engine: &'a Engine,
    sizes: Vec<usize>,
    /// Raw bytes a piece may hold.
    budget: usize,
    /// The term `and`, which a name's length leaves out.
    and: Option<u32>,
}

/// What the split prefixes and the oversized leaves give, term by term.
#[derive(Default)]
struct SplitTerms {
    terms: Vec<PieceSpec>,
    extensions: Vec<PieceSpec>,
    members: Vec<TermMembers>,
    chunks: Vec<(String, u32, PieceSpec)>,
    country_chunks: Vec<(String, String, u32, PieceSpec)>,
    type_chunks: Vec<(String, String, u32, PieceSpec)>,
    common: Vec<CommonTerm>,
    /// Each common term's records (ascending).
    common_records: Vec<(String, Vec<u32>)>,
    /// Each common term's rank chunks as its group file describes them.
    own_chunks: HashMap<String, (Vec<u32>, Vec<ChunkFirst>)>,
    /// Its rank chunks over each country's and each type's records, as
    /// its group file describes them.
    by_facet: HashMap<String, [Vec<FacetChunks>; 2]>,
}

/// The rank chunks of a pair of terms: (the terms, chunk number, piece).
type PairChunks = Vec<((String, String), u32, PieceSpec)>;

/// The rank chunks of triples of terms: (the terms, chunk number, piece).
type TripleChunks = Vec<(Vec<String>, u32, PieceSpec)>;

impl Build<'_> {
    /// The files of the split prefixes and of the leaves over the budget:
    /// a term piece when its records fit one, else a common term's files.
    fn split_terms(&self, specs: &[PieceSpec]) -> SplitTerms {
        let ix = self.engine.index();
        let mut out = SplitTerms::default();
        // The file names' values: a country's code, a type's name.
        let names: [Vec<String>; 2] = [
            ix.countries().iter().map(|c| c.code.clone()).collect(),
            crate::model::TYPES.iter().map(|t| t.to_string()).collect(),
        ];
        // Split prefixes, and the leaves over the budget: a term no longer
        // term extends, too common to split (`technology`, `sciences`). Its
        // leaf grows with the registry, so E2 reads such a term as common
        // (rank chunks, group and member files) and leaves the leaf to the
        // typeahead.
        let oversized = |s: &&PieceSpec| {
            s.kind == PieceKind::Leaf
                && s.records
                    .iter()
                    .map(|&r| self.sizes[r as usize])
                    .sum::<usize>()
                    > self.budget
        };
        for spec in specs
            .iter()
            .filter(|s| s.kind == PieceKind::Head || oversized(s))
        {
            if spec.kind == PieceKind::Leaf {
                // No other term starts with it: no extension piece to write.
            } else if let Some(records) =
                extension_records(self.engine, &spec.key, &self.sizes, self.budget)
            {
                out.extensions.push(PieceSpec {
                    key: spec.key.clone(),
                    kind: PieceKind::Leaf,
                    records,
                    exact_words: None,
                });
            }
            let Some(t) = ix.term_id(&spec.key) else {
                continue; // a prefix no record has as a whole term
            };
            let records = term_records(self.engine, t);
            let bytes: usize = records.iter().map(|&r| self.sizes[r as usize]).sum();
            if bytes <= self.budget {
                out.terms.push(PieceSpec {
                    key: spec.key.clone(),
                    kind: PieceKind::Leaf,
                    records,
                    exact_words: None,
                });
                continue;
            }
            self.common_term(&mut out, &spec.key, t, records, &names);
        }
        out
    }

    /// A term too common for a piece (`key`, term `t` of the index, its
    /// `records`): its rank chunks, over all its records and over each
    /// country's and each type's, its entry in the statistics and its
    /// member file.
    fn common_term(
        &self,
        out: &mut SplitTerms,
        key: &str,
        t: u32,
        records: Vec<u32>,
        names: &[Vec<String>; 2],
    ) {
        let ix = self.engine.index();
        // Records by their shortest name holding the term (words besides
        // `and`: what bounds both BM25 and the exact-name boost), cut into
        // pieces of the leaf budget.
        let mut shortest: HashMap<u32, u32> = HashMap::new();
        for &e in ix.postings(t) {
            let slot = shortest.entry(ix.entry_record(e)).or_insert(u32::MAX);
            *slot = (*slot).min(name_len(ix, self.and, e));
        }
        let (firsts, chunk_firsts, mut cut) =
            rank_chunks(self.engine, &shortest, &self.sizes, self.budget);
        // Every chunk is described (its group file bounds the records no
        // chunk read holds), but no reader loads more than
        // MAX_RANK_CHUNKS for one answer, and a term's are read in order:
        // a chunk past them is never read. At 143,960 records they were
        // most of the site's bytes.
        cut.truncate(MAX_RANK_CHUNKS as usize);
        for (n, piece) in chunk_pieces(key, cut) {
            out.chunks.push((key.to_string(), n, piece));
        }
        out.own_chunks
            .insert(key.to_string(), (firsts, chunk_firsts));
        let described = self.facet_files(out, key, &shortest, names);
        out.by_facet.insert(key.to_string(), described);
        out.common.push(CommonTerm {
            term: key.to_string(),
            df: ix.postings(t).len() as u64,
            records: records.len() as u64,
            // In its group file (version 4).
            chunks: Vec::new(),
            prefix_df: Some(self.engine.prefix_df(key) as u64),
            // Set once every common term is known (below).
            position: 0,
        });
        out.common_records.push((key.to_string(), records.clone()));
        out.members.push(TermMembers {
            term: key.to_string(),
            members: records
                .iter()
                .map(|&r| Member {
                    record: r,
                    status: ix.status(r),
                    types: ix.type_bits(r),
                    continents: ix.continent_bits(r),
                    countries: ix.record_countries(r).to_vec(),
                    holds: Vec::new(),
                })
                .collect(),
            holds: true,
        });
    }

    /// The same order over each country's records (version 6) and
    /// each type's (version 7): a page filtered by one needs its best
    /// records of the term, which the term's own chunks spread over all
    /// of them. The first few are written, and where the unwritten begin:
    /// as the term's group file describes them, countries then types.
    fn facet_files(
        &self,
        out: &mut SplitTerms,
        key: &str,
        shortest: &HashMap<u32, u32>,
        names: &[Vec<String>; 2],
    ) -> [Vec<FacetChunks>; 2] {
        let ix = self.engine.index();
        let countries = facet_chunks(self.engine, shortest, &self.sizes, self.budget, |r| {
            ix.record_countries(r).to_vec()
        });
        let types = facet_chunks(self.engine, shortest, &self.sizes, self.budget, |r| {
            let bits = ix.type_bits(r);
            (0..crate::model::TYPES.len() as u16)
                .filter(|&b| bits & (1 << b) != 0)
                .collect()
        });
        let mut described: [Vec<FacetChunks>; 2] = Default::default();
        for ((list, chunks, names), described) in [
            (countries, &mut out.country_chunks, &names[0]),
            (types, &mut out.type_chunks, &names[1]),
        ]
        .into_iter()
        .zip(&mut described)
        {
            for (d, cut) in list {
                let value = &names[d.value as usize];
                for (n, piece) in chunk_pieces(&format!("{key} {value}"), cut) {
                    chunks.push((key.to_string(), value.clone(), n, piece));
                }
                described.push(d);
            }
        }
        described
    }

    /// The phrase pieces of pairs of common terms held one right after
    /// the other (version 6), and for a pair whose records do not fit
    /// one, its first rank chunks and its group file (version 7).
    fn phrase_files(
        &self,
        common_records: &[(String, Vec<u32>)],
    ) -> (
        Vec<(String, String, PieceSpec)>,
        PairChunks,
        Vec<TermGroups>,
    ) {
        let (phrases, oversized_phrases) =
            phrase_pieces(self.engine, common_records, &self.sizes, self.budget);
        let mut phrase_chunks = Vec::new();
        let mut phrase_groups = Vec::new();
        for ((a, b), shortest) in oversized_phrases {
            let (chunks, chunk_firsts, cut) = first_rank_chunks(
                self.engine,
                &shortest,
                &self.sizes,
                self.budget,
                PHRASE_RANK_CHUNKS,
            );
            for (n, piece) in chunk_pieces(&format!("{a} {b}"), cut) {
                phrase_chunks.push(((a.clone(), b.clone()), n, piece));
            }
            let mut records: Vec<u32> = shortest.keys().copied().collect();
            records.sort_unstable();
            phrase_groups.push(TermGroups {
                terms: vec![a, b],
                groups: self.group_of(&records),
                chunks,
                chunk_firsts,
                ..TermGroups::default()
            });
        }
        (phrases, phrase_chunks, phrase_groups)
    }

    /// The group files of the common terms and of their pairs, and the
    /// pairs' rank chunks. One file per term; a pair of many groups has
    /// its own, a smaller one is written in the file of its term of fewer
    /// records (hundreds of common terms make tens of thousands of pairs:
    /// too many files).
    fn group_files(
        &self,
        common_records: &[(String, Vec<u32>)],
        mut own_chunks: HashMap<String, (Vec<u32>, Vec<ChunkFirst>)>,
        mut by_facet: HashMap<String, [Vec<FacetChunks>; 2]>,
    ) -> (Vec<TermGroups>, PairChunks) {
        let mut singles: Vec<TermGroups> = common_records
            .iter()
            .map(|(a, ra)| {
                let (chunks, chunk_firsts) = own_chunks.remove(a).unwrap_or_default();
                let [countries, types] = by_facet.remove(a).unwrap_or_default();
                TermGroups {
                    terms: vec![a.clone()],
                    groups: self.group_of(ra),
                    chunks,
                    chunk_firsts,
                    pairs: Vec::new(),
                    countries,
                    types,
                }
            })
            .collect();
        let mut groups = Vec::new();
        let mut pair_chunks = Vec::new();
        for (i, (a, ra)) in common_records.iter().enumerate() {
            for (j, (b, rb)) in common_records.iter().enumerate().skip(i + 1) {
                let both: Vec<u32> = ra
                    .iter()
                    .copied()
                    .filter(|r| rb.binary_search(r).is_ok())
                    .collect();
                if both.is_empty() {
                    continue;
                }
                let g = self.group_of(&both);
                // A file of its own when its groups are many, or its records
                // more than one rank chunk holds (they rank queries of both).
                let bytes: usize = both.iter().map(|&r| self.sizes[r as usize]).sum();
                if bytes > self.budget {
                    groups.push(self.pair_file(a, b, &both, g, &mut pair_chunks));
                } else if g.len() > PAIR_FILE_GROUPS {
                    groups.push(TermGroups {
                        terms: vec![a.clone(), b.clone()],
                        groups: g,
                        ..TermGroups::default()
                    });
                } else if ra.len() <= rb.len() {
                    singles[i].pairs.push((b.clone(), g));
                } else {
                    singles[j].pairs.push((a.clone(), g));
                }
            }
        }
        groups.extend(singles);
        (groups, pair_chunks)
    }

    /// The group file of the pair `a` < `b` (its records `both`, of groups
    /// `g`) and, into `pair_chunks`, its own rank chunks: its records are
    /// more than one chunk holds. Records by their shortest name holding
    /// both terms (version 5), which rank a query of both where each
    /// term's own chunks start with names holding only one of them. (A
    /// smaller pair's records are few enough for the terms' own chunks.)
    fn pair_file(
        &self,
        a: &str,
        b: &str,
        both: &[u32],
        g: Vec<(Group, u32)>,
        pair_chunks: &mut PairChunks,
    ) -> TermGroups {
        let ix = self.engine.index();
        let (ta, tb) = (ix.term_id(a), ix.term_id(b));
        let mut shortest: HashMap<u32, u32> = HashMap::new();
        for &r in both {
            for e in ix.record_entries(r) {
                let terms = ix.entry_terms(e);
                if terms.iter().any(|&x| Some(x) == ta) && terms.iter().any(|&x| Some(x) == tb) {
                    let slot = shortest.entry(r).or_insert(u32::MAX);
                    *slot = (*slot).min(name_len(ix, self.and, e));
                }
            }
        }
        // The first few are written (the best records of both
        // terms, what a page of them needs), and where the next
        // begins; the terms' own chunks serve beyond.
        let (firsts, chunk_firsts, cut) = first_rank_chunks(
            self.engine,
            &shortest,
            &self.sizes,
            self.budget,
            PAIR_RANK_CHUNKS,
        );
        for (n, piece) in chunk_pieces(&format!("{a} {b}"), cut) {
            pair_chunks.push(((a.to_string(), b.to_string()), n, piece));
        }
        TermGroups {
            terms: vec![a.to_string(), b.to_string()],
            groups: g,
            chunks: firsts,
            chunk_firsts,
            ..TermGroups::default()
        }
    }

    /// Triples of common terms held in one name (version 8): a query of
    /// three or more common terms ranks names holding three of them, which
    /// neither a term's own chunks (names of one, first) nor a pair's reach
    /// without reading deep into records of fewer. Their group files (chunks
    /// only) and rank chunks, for those of more than a share of the budget.
    fn triple_files(
        &self,
        common_records: &[(String, Vec<u32>)],
    ) -> (Vec<TermGroups>, TripleChunks) {
        let mut triples: Vec<([usize; 3], HashMap<u32, u32>)> = self
            .triple_names(common_records)
            .into_iter()
            .filter(|(_, shortest)| {
                shortest
                    .keys()
                    .map(|&r| self.sizes[r as usize])
                    .sum::<usize>()
                    > self.budget / TRIPLE_BUDGET_SHARE
            })
            .collect();
        triples.sort_unstable_by_key(|(t, _)| *t);
        let mut groups = Vec::new();
        let mut triple_chunks = Vec::new();
        for (set, shortest) in triples {
            let terms: Vec<String> = set.iter().map(|&i| common_records[i].0.clone()).collect();
            let (firsts, chunk_firsts, cut) = first_rank_chunks(
                self.engine,
                &shortest,
                &self.sizes,
                self.budget,
                TRIPLE_RANK_CHUNKS,
            );
            for (n, piece) in chunk_pieces(&terms.join(" "), cut) {
                triple_chunks.push((terms.clone(), n, piece));
            }
            groups.push(TermGroups {
                terms,
                chunks: firsts,
                chunk_firsts,
                ..TermGroups::default()
            });
        }
        (groups, triple_chunks)
    }

    /// Every triple of common terms (indexes into `common_records`) held
    /// in one name, with each of its records' shortest such name.
    fn triple_names(
        &self,
        common_records: &[(String, Vec<u32>)],
    ) -> HashMap<[usize; 3], HashMap<u32, u32>> {
        let ix = self.engine.index();
        let common_of: HashMap<u32, usize> = common_records
            .iter()
            .enumerate()
            .filter_map(|(i, (t, _))| Some((ix.term_id(t)?, i)))
            .collect();
        let mut triples: HashMap<[usize; 3], HashMap<u32, u32>> = HashMap::new();
        for r in 0..self.engine.registry().len() as u32 {
            for e in ix.record_entries(r) {
                let mut held: Vec<usize> = ix
                    .entry_terms(e)
                    .iter()
                    .filter_map(|x| common_of.get(x).copied())
                    .collect();
                held.sort_unstable();
                held.dedup();
                if held.len() < 3 {
                    continue;
                }
                let len = name_len(ix, self.and, e);
                for i in 0..held.len() {
                    for j in i + 1..held.len() {
                        for k in j + 1..held.len() {
                            let slot = triples
                                .entry([held[i], held[j], held[k]])
                                .or_default()
                                .entry(r)
                                .or_insert(u32::MAX);
                            *slot = (*slot).min(len);
                        }
                    }
                }
            }
        }
        triples
    }

    /// The statistics file of the registry and its `common` terms.
    fn stats(&self, common: Vec<CommonTerm>) -> SearchStats {
        let ix = self.engine.index();
        let spellings = ix.country_spellings();
        let common_count = common.len();
        SearchStats {
            records: self.engine.registry().len() as u64,
            entries: ix.entries() as u64,
            avg_len: ix.avg_len(),
            countries: ix
                .countries()
                .iter()
                .zip(spellings)
                .map(|(c, names)| CountryEntry {
                    code: c.code.clone(),
                    title: c.title.clone(),
                    names,
                })
                .collect(),
            common,
            groups: true,
            member_holds: true,
            external_buckets: 0,
            // Version 8: in statistics parts ([`SearchPieces::stats_parts`]).
            term_parts: Some(common_count as u32),
        }
    }

    /// `records` counted by their columns.
    fn group_of(&self, records: &[u32]) -> Vec<(Group, u32)> {
        let ix = self.engine.index();
        let mut counts: std::collections::BTreeMap<Group, u32> = Default::default();
        for &r in records {
            let g = Group {
                status: ix.status(r),
                types: ix.type_bits(r),
                continents: ix.continent_bits(r),
                countries: ix.record_countries(r).to_vec(),
            };
            *counts.entry(g).or_default() += 1;
        }
        counts.into_iter().collect()
    }
}

/// Each member's more common terms (version 5): a query of several
/// common terms then counts from the member files of all but its two
/// most common, and their group files. Sets each common term's place in
/// `stats` by commonness too.
fn mark_holds(
    stats: &mut SearchStats,
    members: &mut [TermMembers],
    common_records: &[(String, Vec<u32>)],
) {
    let order = stats.commonness();
    let mut position = vec![0u16; stats.common.len()];
    for (p, &i) in order.iter().enumerate() {
        position[i] = p as u16;
        stats.common[i].position = p as u32;
    }
    let mut held: HashMap<u32, Vec<u16>> = HashMap::new();
    for (i, (_, records)) in common_records.iter().enumerate() {
        for &r in records {
            held.entry(r).or_default().push(position[i]);
        }
    }
    for m in members {
        let own = position[stats
            .common
            .binary_search_by(|c| c.term.cmp(&m.term))
            .expect("a member file's term is common")];
        for member in &mut m.members {
            let mut holds: Vec<u16> = held[&member.record]
                .iter()
                .copied()
                .filter(|&p| p < own)
                .collect();
            holds.sort_unstable();
            member.holds = holds;
        }
    }
}

impl SearchPieces {
    /// The statistics parts (version 8): each first character of a common
    /// term with the section bytes of its common terms
    /// ([`crate::shard::search::encode_terms`], written as `s-<hex>.shard`).
    pub fn stats_parts(&self) -> Vec<(Need, Vec<u8>)> {
        self.stats
            .parts()
            .into_iter()
            .map(|(first, terms)| {
                (
                    Need::StatsPart(first),
                    crate::shard::search::encode_terms(&terms),
                )
            })
            .collect()
    }

    /// Every piece-like file (a subset of the records, written as a typeahead
    /// piece is) with the [`Need`] that names it: term, extension and
    /// phrase pieces, and every kind of rank chunk.
    pub fn piece_files(&self) -> impl Iterator<Item = (Need, &PieceSpec)> {
        let terms = self.terms.iter().map(|s| (Need::Term(s.key.clone()), s));
        let extensions = self
            .extensions
            .iter()
            .map(|s| (Need::Extension(s.key.clone()), s));
        let chunks = self
            .chunks
            .iter()
            .map(|(t, n, s)| (Need::Rank(t.clone(), *n), s));
        let pairs = self
            .pair_chunks
            .iter()
            .map(|((a, b), n, s)| (Need::PairRank(a.clone(), b.clone(), *n), s));
        let triples = self
            .triple_chunks
            .iter()
            .map(|(t, n, s)| (Need::SetRank(t.clone(), *n), s));
        let countries = self
            .country_chunks
            .iter()
            .map(|(t, c, n, s)| (Need::CountryRank(t.clone(), c.clone(), *n), s));
        let types = self
            .type_chunks
            .iter()
            .map(|(t, k, n, s)| (Need::TypeRank(t.clone(), k.clone(), *n), s));
        let phrases = self
            .phrases
            .iter()
            .map(|(a, b, s)| (Need::Phrase(a.clone(), b.clone()), s));
        let phrase_chunks = self
            .phrase_chunks
            .iter()
            .map(|((a, b), n, s)| (Need::PhraseRank(a.clone(), b.clone(), *n), s));
        terms
            .chain(extensions)
            .chain(chunks)
            .chain(pairs)
            .chain(triples)
            .chain(countries)
            .chain(types)
            .chain(phrases)
            .chain(phrase_chunks)
    }

    /// Every group file with the [`Need`] that names it: a term's or a
    /// pair's, and a phrase's.
    pub fn group_files(&self) -> impl Iterator<Item = (Need, &TermGroups)> {
        let phrases = self.phrase_groups.iter().map(|g| {
            let [a, b] = [&g.terms[0], &g.terms[1]].map(String::clone);
            (Need::PhraseGroups(a, b), g)
        });
        self.groups
            .iter()
            .map(|g| (Need::Groups(g.terms.clone()), g))
            .chain(phrases)
    }

    /// Adds the external id pieces (version 6) of `reg`, the registry the
    /// pieces were cut from with its records section (the external ids
    /// are in the records; a registry without them adds none).
    pub fn with_external_ids(mut self, reg: &crate::Registry) -> SearchPieces {
        let mut keyed: Vec<(String, u32)> = Vec::new();
        for r in 0..reg.len() {
            let _ = reg.for_each_external_id(r, |v| {
                keyed.push((crate::text::external_id_key(v), r as u32));
            });
        }
        if keyed.is_empty() {
            return self;
        }
        // ~32 ids a piece: a query with a digit reads a few small pieces.
        // A power of two, so that the count stays the same from release to
        // release (a count that followed the ids would move nearly every id
        // to another piece each time: no piece, hence no pack, would keep
        // its bytes; `registry site --previous`).
        let want = (keyed.len() as f64 / EXTERNAL_PIECE_IDS as f64).max(1.0);
        let buckets = 1u32 << (want.log2().round() as u32).min(24);
        let mut by_bucket: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
        for (key, r) in &keyed {
            by_bucket
                .entry(crate::shard::search::external_bucket(key, buckets))
                .or_default()
                .push(*r);
        }
        self.externals = by_bucket
            .into_iter()
            .map(|(b, mut records)| {
                records.sort_unstable();
                records.dedup();
                (b, records)
            })
            .collect();
        self.stats.external_buckets = buckets;
        self
    }
}

/// External ids an external id piece holds, on average.
const EXTERNAL_PIECE_IDS: usize = 32;

/// The phrase pieces ([`SearchPieces::phrases`]): for each pair of common
/// terms (`common`) some name holds one right after the other (as E2
/// matches a quoted phrase: adjacent words besides CJK bigrams), its
/// records, when they fit `budget` raw bytes; and the pairs whose records
/// do not, in order, with each record's shortest name holding the pair
/// (what ranks them: [`SearchPieces::phrase_chunks`]).
#[allow(clippy::type_complexity)]
fn phrase_pieces(
    engine: &Engine,
    common: &[(String, Vec<u32>)],
    sizes: &[usize],
    budget: usize,
) -> (
    Vec<(String, String, PieceSpec)>,
    Vec<((String, String), HashMap<u32, u32>)>,
) {
    let ix = engine.index();
    let and = ix.term_id("and");
    let ids: HashMap<u32, usize> = common
        .iter()
        .enumerate()
        .filter_map(|(i, (t, _))| Some((ix.term_id(t)?, i)))
        .collect();
    // Each pair's records, with their shortest name holding it.
    let mut pairs: HashMap<(usize, usize), HashMap<u32, u32>> = HashMap::new();
    for e in 0..ix.entries() as u32 {
        for w in ix.entry_terms(e).windows(2) {
            if let (Some(&a), Some(&b)) = (ids.get(&w[0]), ids.get(&w[1])) {
                let len = name_len(ix, and, e);
                let slot = pairs
                    .entry((a, b))
                    .or_default()
                    .entry(ix.entry_record(e))
                    .or_insert(u32::MAX);
                *slot = (*slot).min(len);
            }
        }
    }
    let (mut fit, mut over) = (Vec::new(), Vec::new());
    for ((a, b), shortest) in pairs {
        let (a, b) = (common[a].0.clone(), common[b].0.clone());
        let bytes: usize = shortest.keys().map(|&r| sizes[r as usize]).sum();
        if bytes <= budget {
            let mut records: Vec<u32> = shortest.into_keys().collect();
            records.sort_unstable();
            let spec = PieceSpec {
                key: format!("{a} {b}"),
                kind: PieceKind::Leaf,
                records,
                exact_words: None,
            };
            fit.push((a, b, spec));
        } else {
            over.push(((a, b), shortest));
        }
    }
    fit.sort_by(|x, y| (&x.0, &x.1).cmp(&(&y.0, &y.1)));
    over.sort_by(|x, y| x.0.cmp(&y.0));
    (fit, over)
}

/// A name's length as BM25 and the exact-name boost read it (its words
/// besides `and`, whose term id is `and`): what rank chunks order records
/// by.
fn name_len(ix: &crate::index::Index, and: Option<u32>, e: u32) -> u32 {
    ix.entry_terms(e)
        .iter()
        .filter(|&&x| Some(x) != and)
        .count()
        .max(1) as u32
}

/// Records (`shortest`: each one's shortest name holding the terms) cut
/// into rank chunks of `budget` raw bytes: ordered by that length, then
/// as E2 orders equal scores (prior descending, then id: record indexes
/// are in id order), so that a page ending in a tie is proven once the
/// chunks holding the records before it are in. Each chunk's first length
/// and first record, and each chunk's records (ascending).
#[allow(clippy::type_complexity)]
fn rank_chunks(
    engine: &Engine,
    shortest: &HashMap<u32, u32>,
    sizes: &[usize],
    budget: usize,
) -> (Vec<u32>, Vec<ChunkFirst>, Vec<Vec<u32>>) {
    let reg = engine.registry();
    let priors = reg.priors();
    let mut order: Vec<(u32, std::cmp::Reverse<u8>, u32)> = shortest
        .iter()
        .map(|(&r, &len)| (len, std::cmp::Reverse(priors[r as usize]), r))
        .collect();
    order.sort_unstable();
    let (mut firsts, mut chunk_firsts, mut out) = (Vec::new(), Vec::new(), Vec::new());
    let mut chunk: Vec<u32> = Vec::new();
    let mut bytes = 0usize;
    for (i, &(len, std::cmp::Reverse(prior), r)) in order.iter().enumerate() {
        if chunk.is_empty() {
            firsts.push(len);
            chunk_firsts.push(ChunkFirst {
                prior,
                id: reg.id(r as usize).number(),
            });
        }
        chunk.push(r);
        bytes += sizes[r as usize];
        if bytes > budget || i + 1 == order.len() {
            chunk.sort_unstable();
            out.push(std::mem::take(&mut chunk));
            bytes = 0;
        }
    }
    (firsts, chunk_firsts, out)
}

/// Rank chunks (`cut`: each one's records) as pieces keyed `key`, with
/// their numbers.
fn chunk_pieces(key: &str, cut: Vec<Vec<u32>>) -> impl Iterator<Item = (u32, PieceSpec)> + '_ {
    cut.into_iter().enumerate().map(move |(n, records)| {
        let piece = PieceSpec {
            key: key.to_string(),
            kind: PieceKind::Leaf,
            records,
            exact_words: None,
        };
        (n as u32, piece)
    })
}

/// The first `written` of [`rank_chunks`], each chunk's first length and
/// record described for one more: where the unwritten begin (all of them
/// when there are no more).
#[allow(clippy::type_complexity)]
fn first_rank_chunks(
    engine: &Engine,
    shortest: &HashMap<u32, u32>,
    sizes: &[usize],
    budget: usize,
    written: usize,
) -> (Vec<u32>, Vec<ChunkFirst>, Vec<Vec<u32>>) {
    let (mut firsts, mut chunk_firsts, mut cut) = rank_chunks(engine, shortest, sizes, budget);
    firsts.truncate(written + 1);
    chunk_firsts.truncate(written + 1);
    cut.truncate(written);
    (firsts, chunk_firsts, cut)
}

/// A common term's first [`FACET_RANK_CHUNKS`] rank chunks over
/// each value of a facet (`values`: a record's), by ascending value: its
/// description and its written chunks. A value whose records fit one chunk
/// is written and not described (its group file then says little more of
/// it than its number).
fn facet_chunks(
    engine: &Engine,
    shortest: &HashMap<u32, u32>,
    sizes: &[usize],
    budget: usize,
    values: impl Fn(u32) -> Vec<u16>,
) -> Vec<(FacetChunks, Vec<Vec<u32>>)> {
    let mut of_value: std::collections::BTreeMap<u16, HashMap<u32, u32>> = Default::default();
    for (&r, &len) in shortest {
        for v in values(r) {
            of_value.entry(v).or_default().insert(r, len);
        }
    }
    of_value
        .into_iter()
        .map(|(value, shortest)| {
            let (mut chunks, mut chunk_firsts, cut) =
                first_rank_chunks(engine, &shortest, sizes, budget, FACET_RANK_CHUNKS);
            if chunks.len() == 1 {
                chunks.clear();
                chunk_firsts.clear();
            }
            let d = FacetChunks {
                value,
                chunks,
                chunk_firsts,
            };
            (d, cut)
        })
        .collect()
}

/// The records (ascending) holding a term that starts with `prefix` other
/// than `prefix` itself, or `None` when they pass `budget` bytes.
fn extension_records(
    engine: &Engine,
    prefix: &str,
    sizes: &[usize],
    budget: usize,
) -> Option<Vec<u32>> {
    let ix = engine.index();
    let own = ix.term_id(prefix);
    let mut seen = std::collections::HashSet::new();
    let mut bytes = 0usize;
    for term in ix.prefix_range(prefix).filter(|&t| Some(t) != own) {
        for &e in ix.postings(term) {
            let r = ix.entry_record(e);
            if seen.insert(r) {
                bytes += sizes[r as usize];
                if bytes > budget {
                    return None;
                }
            }
        }
    }
    let mut records: Vec<u32> = seen.into_iter().collect();
    records.sort_unstable();
    Some(records)
}
