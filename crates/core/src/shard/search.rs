//! The file formats of E2 over pieces ([`crate::pieces::search`]): what
//! the whole registry's BM25 and facets need besides the pieces' own
//! records, as bytes. Nothing here knows about queries.
//!
//! * [`SearchStats`] (section `search_stats`, one small file a build): the
//!   number of names and their average length (BM25's whole-registry
//!   statistics), the country table (code, facet title, every spelling the
//!   data uses: what a `country.country_name` filter is checked against),
//!   and the *common terms*: terms too frequent for a piece of their own,
//!   with their document frequency, record count and rank chunks. From
//!   pieces version 8 the common terms are not in it but in *statistics
//!   parts* ([`encode_terms`], section `search_terms`, one file per first
//!   character of a common term): a query reads the parts of its words'
//!   first characters, a few hundred bytes each, instead of every common
//!   term of the registry, whose number grows with it.
//! * [`TermMembers`] (section `term_members`, one file a common term): every
//!   record with the term, by index in the whole registry, with the columns
//!   filters and facets read (status, types, continents, countries), and
//!   from pieces version 5 the common terms of more records it also holds
//!   (so that a query of several common terms reads the member files of
//!   all but the two most common, whose group files count the rest).
//! * [`TermGroups`] (section `term_groups`, one file per common term, with
//!   its rank chunks, and per pair of common terms sharing records in more
//!   than a few groups; smaller pairs are written in the file of their term
//!   of fewer records; pieces version 4): the same columns, counted per
//!   distinct set of values (a few hundred groups where a member file lists
//!   tens of thousands of records).
//!
//! # Quirks
//!
//! * Country ids in [`TermMembers`] index [`SearchStats::countries`] of the
//!   same build; a member file of another build is meaningless with it
//!   (the build id in both paths keeps them together).

use super::bytes::{Reader, Writer};
use super::{SectionKind, ShardError};
use crate::order::sort_by;

/// A country of the whole registry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CountryEntry {
    /// ISO 3166 alpha-2 code, as stored.
    pub code: String,
    /// The facet title (the data's most frequent name for the code).
    pub title: String,
    /// Every `country_name` the data gives for the code.
    pub names: Vec<String>,
}

/// A term with no piece of its own: too many records carry it. From pieces
/// version 4 its rank chunks are described in its own group file
/// ([`TermGroups`]), and `chunks` here is empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommonTerm {
    /// The folded term.
    pub term: String,
    /// Names (index entries) holding it: its document frequency.
    pub df: u64,
    /// Records holding it.
    pub records: u64,
    /// Its *rank chunks*: its records in order of their shortest name
    /// holding it (words other than `and`), cut into pieces; for each
    /// chunk, that length of its first record. A record outside the first
    /// `k` chunks has no name holding the term shorter than `chunks[k]`.
    pub chunks: Vec<u32>,
    /// Names holding a term that starts with it (itself included): the
    /// document frequency of the term read as a prefix, which equals `df`
    /// when no other term extends it. `None` in files written before it
    /// was recorded (they end after the common terms).
    pub prefix_df: Option<u64>,
    /// Its place in [`SearchStats::commonness`], which member files count
    /// in ([`Member::holds`]): written with it in a statistics part
    /// (version 8), where the other terms are not at hand; computed from
    /// the whole list when read from a statistics file before.
    pub position: u32,
}

/// The byte after the external id pieces' marker (or the member files')
/// in the statistics that says the common terms are in statistics parts
/// (pieces version 8), followed by their number.
const TERM_PARTS_MARKER: u8 = 8;

/// The byte after the prefix document frequencies that says the build
/// wrote group files (pieces version 4).
const GROUPS_MARKER: u8 = 4;

/// The byte after [`GROUPS_MARKER`] in the statistics, and after the
/// members in a member file, that says member files list the more common
/// terms each record holds (pieces version 5).
const HOLDS_MARKER: u8 = 5;

/// The byte after the pairs in a group file that says the term's rank
/// chunks by country follow (pieces version 6).
const COUNTRY_CHUNKS_MARKER: u8 = 6;

/// The byte after the countries' rank chunks (or the pairs) in a group
/// file that says the term's rank chunks by type follow (pieces version 7).
const TYPE_CHUNKS_MARKER: u8 = 7;

/// A common term's rank chunks over the records of one facet value: a
/// country ([`TermGroups::countries`], pieces version 6) or a type
/// ([`TermGroups::types`], version 7). The same order as the term's own
/// chunks, over its records with that value, so that a page filtered by it
/// is proven by its first chunks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FacetChunks {
    /// The value: an index into [`SearchStats::countries`], or a type's
    /// bit ([`crate::model::TYPES`]).
    pub value: u16,
    /// Each chunk's shortest length, the first few written and the list
    /// ending with where the unwritten begin (as a pair's
    /// [`TermGroups::chunks`]). Empty: the value's records fit one chunk,
    /// written and not described (most countries: a client filtered by one
    /// loads its chunk first, and needs no frontier once it has).
    pub chunks: Vec<u32>,
    /// Each chunk's first record ([`TermGroups::chunk_firsts`]).
    pub chunk_firsts: Vec<ChunkFirst>,
}

/// The first record of a rank chunk: what orders it among records of
/// equal score ([`TermGroups::chunk_firsts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkFirst {
    /// Its prior ([`crate::Registry::priors`]).
    pub prior: u8,
    /// Its id ([`crate::RecordId::number`]).
    pub id: u32,
}

impl ChunkFirst {
    /// Its place in E2's order among equal scores (prior descending, then
    /// id): of two records, the one of the smaller key comes first.
    pub fn order(&self) -> (std::cmp::Reverse<u8>, u32) {
        (std::cmp::Reverse(self.prior), self.id)
    }
}

/// What E2 over pieces reads of the whole registry (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Records of the whole registry.
    pub records: u64,
    /// Names (index entries) of the whole registry.
    pub entries: u64,
    /// Their average length in words (BM25's `avgdl`), bit-exact.
    pub avg_len: f32,
    /// The country table; [`TermMembers`] refer to it by position.
    pub countries: Vec<CountryEntry>,
    /// The common terms, sorted by term.
    pub common: Vec<CommonTerm>,
    /// The build wrote [`TermGroups`] files: one per common term and one
    /// per pair of common terms that share records (pieces version 4).
    pub groups: bool,
    /// Its member files say, for each record, the more common terms it
    /// holds ([`Member::holds`], pieces version 5; requires `groups`).
    pub member_holds: bool,
    /// How many *external id pieces* the build wrote (pieces version 6;
    /// requires `member_holds`; 0: none): each holds the whole records
    /// whose external ids hash to it ([`external_bucket`]), so a query
    /// with a digit, which may be an external id, reads the pieces of its
    /// possible ids instead of the whole registry.
    pub external_buckets: u32,
    /// The common terms are in *statistics parts* by first character
    /// (pieces version 8; requires `member_holds`), not in this file: how
    /// many there are. [`SearchStats::common`] then holds those of the
    /// parts a reader has added ([`SearchStats::add_terms`]), and a term
    /// is known not to be common only once its part is added (or absent).
    pub term_parts: Option<u32>,
}

/// A common term's rank chunk lengths (ascending), as the statistics and
/// their parts write them.
fn read_chunk_lengths(r: &mut Reader) -> Result<Vec<u32>, ShardError> {
    let k = r.count("rank chunks")?;
    let mut chunks: Vec<u32> = Vec::with_capacity(k.min(r.remaining()));
    for _ in 0..k {
        let c = u32::try_from(r.varint()?).map_err(|_| r.malformed("chunk length"))?;
        if chunks.last().is_some_and(|&p| p > c) {
            return Err(r.malformed("rank chunks out of order"));
        }
        chunks.push(c);
    }
    Ok(chunks)
}

/// The statistics part (pieces version 8) that lists common term `term`:
/// its first character.
pub fn term_part(term: &str) -> &str {
    super::pieces::first_char(term)
}

/// The bytes of a statistics part (section `search_terms`): `terms`, sorted
/// and distinct, with their positions ([`CommonTerm::position`]).
pub fn encode_terms(terms: &[CommonTerm]) -> Vec<u8> {
    let mut w = Writer::default();
    w.usize(terms.len());
    for t in terms {
        w.str(&t.term);
        w.varint(t.df);
        w.varint(t.records);
        w.varint(t.prefix_df.unwrap_or(t.df));
        w.varint(u64::from(t.position));
        w.usize(t.chunks.len());
        for &c in &t.chunks {
            w.varint(u64::from(c));
        }
    }
    w.buf
}

/// From [`encode_terms`]' bytes: the common terms of statistics part
/// `part`, checked against the statistics (`stats`: their number of names
/// and of common terms).
pub fn decode_terms(
    bytes: &[u8],
    part: &str,
    stats: &SearchStats,
) -> Result<Vec<CommonTerm>, ShardError> {
    let mut r = Reader::new(bytes, SectionKind::SearchTerms);
    let total = stats.term_parts.unwrap_or(0);
    let n = r.count("common terms")?;
    let mut out: Vec<CommonTerm> = Vec::with_capacity(n.min(r.remaining()));
    for _ in 0..n {
        let term = r.str()?.to_string();
        let df = r.varint()?;
        let records = r.varint()?;
        let prefix_df = r.varint()?;
        let position = u32::try_from(r.varint()?)
            .ok()
            .filter(|&p| p < total)
            .ok_or_else(|| r.malformed("a common term's position"))?;
        let chunks = read_chunk_lengths(&mut r)?;
        if term_part(&term) != part || out.last().is_some_and(|p| p.term >= term) {
            return Err(r.malformed("common terms out of order or of another part"));
        }
        if df == 0
            || df > stats.entries
            || records > df
            || prefix_df < df
            || prefix_df > stats.entries
            || chunks.first().is_some_and(|&c| c == 0)
        {
            return Err(r.malformed("common term counts"));
        }
        out.push(CommonTerm {
            term,
            df,
            records,
            chunks,
            prefix_df: Some(prefix_df),
            position,
        });
    }
    if !r.at_end() {
        return Err(r.malformed("bytes after the common terms"));
    }
    Ok(out)
}

/// The external id piece of an id, by its [`crate::text::external_id_key`]
/// (`key`), among `buckets` (FNV-1a of the key: an id as stored and any
/// spelling E2 takes for it share the key, so they share the piece).
pub fn external_bucket(key: &str, buckets: u32) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h % buckets.max(1)
}

/// The byte after [`HOLDS_MARKER`] in the statistics that says the build
/// wrote external id pieces, and how many (pieces version 6).
const EXTERNAL_MARKER: u8 = 6;

impl SearchStats {
    /// Section bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.varint(self.records);
        w.varint(self.entries);
        w.u32_le(self.avg_len.to_bits());
        w.usize(self.countries.len());
        for c in &self.countries {
            w.str(&c.code);
            w.str(&c.title);
            w.usize(c.names.len());
            for n in &c.names {
                w.str(n);
            }
        }
        // Version 8: the common terms are in statistics parts.
        let listed: &[CommonTerm] = if self.term_parts.is_some() {
            &[]
        } else {
            &self.common
        };
        w.usize(listed.len());
        for t in listed {
            w.str(&t.term);
            w.varint(t.df);
            w.varint(t.records);
            w.usize(t.chunks.len());
            for &c in &t.chunks {
                w.varint(u64::from(c));
            }
        }
        // Appended after the list, so that files without it still read.
        if listed.iter().all(|t| t.prefix_df.is_some()) {
            for t in listed {
                w.varint(t.prefix_df.unwrap_or(t.df));
            }
            // Pieces version 4: group files, which describe the rank
            // chunks (a marker after the prefix document frequencies,
            // which it requires).
            if self.groups {
                w.u8(GROUPS_MARKER);
                if self.member_holds {
                    w.u8(HOLDS_MARKER);
                    if self.external_buckets > 0 {
                        w.u8(EXTERNAL_MARKER);
                        w.varint(u64::from(self.external_buckets));
                    }
                    if let Some(n) = self.term_parts {
                        w.u8(TERM_PARTS_MARKER);
                        w.varint(u64::from(n));
                    }
                }
            }
        }
        w.buf
    }

    /// From [`SearchStats::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<SearchStats, ShardError> {
        let mut r = Reader::new(bytes, SectionKind::SearchStats);
        let records = r.varint()?;
        let entries = r.varint()?;
        let avg_len = f32::from_bits(r.u32_le()?);
        if !avg_len.is_finite() || avg_len < 1.0 {
            return Err(r.malformed("average name length"));
        }
        let n = r.count("countries")?;
        let mut countries = Vec::with_capacity(n.min(r.remaining()));
        for _ in 0..n {
            let code = r.str()?.to_string();
            let title = r.str()?.to_string();
            let k = r.count("country names")?;
            let mut names = Vec::with_capacity(k.min(r.remaining()));
            for _ in 0..k {
                names.push(r.str()?.to_string());
            }
            countries.push(CountryEntry { code, title, names });
        }
        let n = r.count("common terms")?;
        let mut common: Vec<CommonTerm> = Vec::with_capacity(n.min(r.remaining()));
        for _ in 0..n {
            let term = r.str()?.to_string();
            let df = r.varint()?;
            let records = r.varint()?;
            let chunks = read_chunk_lengths(&mut r)?;
            if common.last().is_some_and(|p| p.term >= term) {
                return Err(r.malformed("common terms out of order"));
            }
            if df == 0 || df > entries || records > df || chunks.first().is_some_and(|&c| c == 0) {
                return Err(r.malformed("common term counts"));
            }
            common.push(CommonTerm {
                term,
                df,
                records,
                chunks,
                prefix_df: None,
                position: 0,
            });
        }
        if !r.at_end() {
            for t in &mut common {
                let d = r.varint()?;
                if d < t.df || d > entries {
                    return Err(r.malformed("a common term's prefix document frequency"));
                }
                t.prefix_df = Some(d);
            }
        }
        let groups = !r.at_end();
        if groups && r.u8()? != GROUPS_MARKER {
            return Err(r.malformed("the group files' marker"));
        }
        let member_holds = !r.at_end();
        if member_holds && r.u8()? != HOLDS_MARKER {
            return Err(r.malformed("the member files' marker"));
        }
        let mut external_buckets = 0;
        let mut term_parts = None;
        let next = |r: &mut Reader| -> Result<Option<u8>, ShardError> {
            if r.at_end() {
                Ok(None)
            } else {
                r.u8().map(Some)
            }
        };
        let mut marker = next(&mut r)?;
        if marker == Some(EXTERNAL_MARKER) {
            external_buckets = u32::try_from(r.varint()?)
                .ok()
                .filter(|&b| b > 0)
                .ok_or_else(|| r.malformed("the number of external id pieces"))?;
            marker = next(&mut r)?;
        }
        if marker == Some(TERM_PARTS_MARKER) {
            if !common.is_empty() {
                return Err(r.malformed("common terms listed beside their parts"));
            }
            term_parts = Some(
                u32::try_from(r.varint()?)
                    .map_err(|_| r.malformed("the number of common terms"))?,
            );
            marker = None;
        }
        if marker.is_some() {
            return Err(r.malformed("the external id pieces' or the statistics parts' marker"));
        }
        if !r.at_end() {
            return Err(r.malformed("bytes after the common terms"));
        }
        let mut stats = SearchStats {
            records,
            entries,
            avg_len,
            countries,
            common,
            groups,
            member_holds,
            external_buckets,
            term_parts,
        };
        // Before version 8 the positions follow from the whole list.
        for (p, i) in stats.commonness().into_iter().enumerate() {
            stats.common[i].position = p as u32;
        }
        Ok(stats)
    }

    /// Adds the common terms of a statistics part ([`decode_terms`]).
    pub fn add_terms(&mut self, terms: Vec<CommonTerm>) {
        self.common.extend(terms);
        sort_by(&mut self.common, |a, b| a.term.cmp(&b.term));
        self.common.dedup_by(|a, b| a.term == b.term);
    }

    /// How many common terms the registry has (listed here or in parts).
    pub fn common_count(&self) -> usize {
        self.term_parts.map_or(self.common.len(), |n| n as usize)
    }

    /// The statistics parts of the common terms (version 8): each first
    /// character with its terms, positions set.
    pub fn parts(&self) -> Vec<(String, Vec<CommonTerm>)> {
        let mut out: Vec<(String, Vec<CommonTerm>)> = Vec::new();
        for t in &self.common {
            let part = term_part(&t.term);
            match out.last_mut() {
                Some((p, list)) if p == part => list.push(t.clone()),
                _ => out.push((part.to_string(), vec![t.clone()])),
            }
        }
        out
    }

    /// The common term `term`, if it is one.
    pub fn common(&self, term: &str) -> Option<&CommonTerm> {
        self.common
            .binary_search_by(|t| t.term.as_str().cmp(term))
            .ok()
            .map(|i| &self.common[i])
    }

    /// The common terms from the one of most records (ties by term): the
    /// order [`Member::holds`] counts in. `commonness()[p]` is the index
    /// into [`SearchStats::common`] of the term at position `p`.
    pub fn commonness(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.common.len()).collect();
        sort_by(&mut order, |&a, &b| {
            let (a, b) = (&self.common[a], &self.common[b]);
            b.records.cmp(&a.records).then_with(|| a.term.cmp(&b.term))
        });
        order
    }

    /// The position of common term `term` in [`SearchStats::commonness`].
    pub fn commonness_position(&self, term: &str) -> Option<usize> {
        self.common(term).map(|t| t.position as usize)
    }
}

/// One record holding a common term: its index in the whole registry and
/// the columns filters and facets read (as [`crate::index::Index`] has them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Member {
    /// Index in the whole registry (identifier order).
    pub record: u32,
    /// Index into [`crate::model::STATUSES`].
    pub status: u8,
    /// Type bits ([`crate::model::TYPES`]).
    pub types: u16,
    /// Continent bits ([`crate::index::CONTINENTS`]).
    pub continents: u8,
    /// Countries, in location order, as indexes into
    /// [`SearchStats::countries`].
    pub countries: Vec<u16>,
    /// The common terms of more records than the file's own that the
    /// record also holds, as ascending positions in
    /// [`SearchStats::commonness`] (pieces version 5; empty before).
    pub holds: Vec<u16>,
}

/// Every record holding one common term (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TermMembers {
    /// The folded term.
    pub term: String,
    /// Its records, by ascending index.
    pub members: Vec<Member>,
    /// The file lists each member's [`Member::holds`] (pieces version 5).
    pub holds: bool,
}

impl TermMembers {
    /// Section bytes: the term, the count, then each member: index delta,
    /// status, types, continents, country count and ids (varints; columns
    /// interleaved, which zstd handles well for these small values); then,
    /// in version 5, [`HOLDS_MARKER`] and each member's holds (count, then
    /// position deltas).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.str(&self.term);
        w.usize(self.members.len());
        let mut next = 0u32;
        for m in &self.members {
            w.varint(u64::from(m.record - next));
            next = m.record + 1;
            write_columns(&mut w, m.status, m.types, m.continents, &m.countries);
        }
        if self.holds {
            w.u8(HOLDS_MARKER);
            for m in &self.members {
                w.usize(m.holds.len());
                let mut next = 0u16;
                for &p in &m.holds {
                    w.varint(u64::from(p - next));
                    next = p + 1;
                }
            }
        }
        w.buf
    }

    /// From [`TermMembers::encode`]'s bytes; `countries` is the number of
    /// countries of the build's [`SearchStats`] (ids beyond it are damage).
    pub fn decode(bytes: &[u8], countries: usize) -> Result<TermMembers, ShardError> {
        let mut r = Reader::new(bytes, SectionKind::TermMembers);
        let term = r.str()?.to_string();
        let n = r.count("members")?;
        let mut members = Vec::with_capacity(n.min(r.remaining()));
        let mut next = 0u64;
        for _ in 0..n {
            let record = next
                .checked_add(r.varint()?)
                .filter(|&x| x < u64::from(u32::MAX))
                .ok_or_else(|| r.malformed("record index"))?;
            next = record + 1;
            let Group {
                status,
                types,
                continents,
                countries: cs,
            } = read_columns(&mut r, countries)?;
            members.push(Member {
                record: record as u32,
                status,
                types,
                continents,
                countries: cs,
                holds: Vec::new(),
            });
        }
        let holds = !r.at_end();
        if holds {
            if r.u8()? != HOLDS_MARKER {
                return Err(r.malformed("the holds' marker"));
            }
            for m in &mut members {
                let k = r.count("holds")?;
                let mut next = 0u64;
                for _ in 0..k {
                    let p = next
                        .checked_add(r.varint()?)
                        .filter(|&p| p < u64::from(u16::MAX))
                        .ok_or_else(|| r.malformed("a held term's position"))?;
                    m.holds.push(p as u16);
                    next = p + 1;
                }
            }
        }
        if !r.at_end() {
            return Err(r.malformed("bytes after the members"));
        }
        Ok(TermMembers {
            term,
            members,
            holds,
        })
    }
}

/// Records of the same filter and facet columns, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    /// Index into [`crate::model::STATUSES`].
    pub status: u8,
    /// Type bits ([`crate::model::TYPES`]).
    pub types: u16,
    /// Continent bits ([`crate::index::CONTINENTS`]).
    pub continents: u8,
    /// Countries, in location order, as indexes into
    /// [`SearchStats::countries`].
    pub countries: Vec<u16>,
}

/// The records holding every one of one or two common terms, as counts by
/// their columns: what exact counts need of them, in a size that grows
/// with the kinds of record rather than their number (a member file lists
/// each record).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TermGroups {
    /// The folded terms, sorted.
    pub terms: Vec<String>,
    /// Each set of columns and how many records have it.
    pub groups: Vec<(Group, u32)>,
    /// A single term's rank chunks ([`CommonTerm::chunks`]); for a pair
    /// (pieces version 5), its own: records by their shortest name holding
    /// both, of which the first few are written and the list ends with
    /// where the unwritten begin (empty: the pair has none).
    pub chunks: Vec<u32>,
    /// For each chunk, its first record's prior and id: the chunks order
    /// records of equal shortest length as E2 orders equal scores (prior
    /// descending, then id), so a record outside the first `k` chunks with
    /// a shortest name of exactly `chunks[k]` sorts at or after
    /// `chunk_firsts[k]` among equal scores. (Version 3's chunks, in the
    /// statistics, ordered such records by id alone and said nothing.)
    pub chunk_firsts: Vec<ChunkFirst>,
    /// A single term's pairs too small for a file of their own (each
    /// written with the term of fewer records): the other term and the
    /// groups of the records holding both.
    pub pairs: Vec<(String, Vec<(Group, u32)>)>,
    /// A single term's rank chunks by country (pieces version 6), for the
    /// countries that have records of it, by ascending country; empty
    /// before (files end after the pairs).
    pub countries: Vec<FacetChunks>,
    /// A single term's rank chunks by type (pieces version 7), for the
    /// types that have records of it, by ascending type bit; empty before.
    pub types: Vec<FacetChunks>,
}

/// Rank chunk lengths and first records, as group files write them.
fn write_chunks(w: &mut Writer, chunks: &[u32], firsts: &[ChunkFirst]) {
    w.usize(chunks.len());
    for (&len, f) in chunks.iter().zip(firsts) {
        w.varint(u64::from(len));
        w.u8(f.prior);
        w.varint(u64::from(f.id));
    }
}

/// [`write_chunks`]' bytes.
fn read_chunks(r: &mut Reader) -> Result<(Vec<u32>, Vec<ChunkFirst>), ShardError> {
    let k = r.count("rank chunks")?;
    let mut chunks: Vec<u32> = Vec::with_capacity(k.min(r.remaining()));
    let mut chunk_firsts = Vec::with_capacity(k.min(r.remaining()));
    for _ in 0..k {
        let len = u32::try_from(r.varint()?).map_err(|_| r.malformed("chunk length"))?;
        if len == 0 || chunks.last().is_some_and(|&p| p > len) {
            return Err(r.malformed("rank chunks out of order"));
        }
        chunks.push(len);
        let prior = r.u8()?;
        let id = u32::try_from(r.varint()?).map_err(|_| r.malformed("chunk id"))?;
        chunk_firsts.push(ChunkFirst { prior, id });
    }
    Ok((chunks, chunk_firsts))
}

impl TermGroups {
    /// Section bytes: the terms, then each group's count and columns.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.usize(self.terms.len());
        for t in &self.terms {
            w.str(t);
        }
        write_groups(&mut w, &self.groups);
        write_chunks(&mut w, &self.chunks, &self.chunk_firsts);
        w.usize(self.pairs.len());
        for (term, groups) in &self.pairs {
            w.str(term);
            write_groups(&mut w, groups);
        }
        for (marker, list) in [
            (COUNTRY_CHUNKS_MARKER, &self.countries),
            (TYPE_CHUNKS_MARKER, &self.types),
        ] {
            if !list.is_empty() {
                w.u8(marker);
                w.usize(list.len());
                for c in list {
                    w.varint(u64::from(c.value));
                    write_chunks(&mut w, &c.chunks, &c.chunk_firsts);
                }
            }
        }
        w.buf
    }

    /// From [`TermGroups::encode`]'s bytes; `countries` as for
    /// [`TermMembers::decode`].
    pub fn decode(bytes: &[u8], countries: usize) -> Result<TermGroups, ShardError> {
        let mut r = Reader::new(bytes, SectionKind::TermGroups);
        let k = r.count("terms")?;
        let mut terms = Vec::with_capacity(k.min(r.remaining()));
        for _ in 0..k {
            terms.push(r.str()?.to_string());
        }
        let groups = read_groups(&mut r, countries)?;
        let (chunks, chunk_firsts) = read_chunks(&mut r)?;
        let k = r.count("pairs")?;
        let mut pairs = Vec::with_capacity(k.min(r.remaining()));
        for _ in 0..k {
            let term = r.str()?.to_string();
            pairs.push((term, read_groups(&mut r, countries)?));
        }
        // Then, each when any: by country (version 6), by type (7).
        let mut by_value: [Vec<FacetChunks>; 2] = Default::default();
        let mut next = 0;
        while !r.at_end() {
            let at = match r.u8()? {
                COUNTRY_CHUNKS_MARKER if next == 0 => 0,
                TYPE_CHUNKS_MARKER if next <= 1 => 1,
                _ => return Err(r.malformed("bytes after the groups")),
            };
            next = at + 1;
            let (what, limit) = [
                ("countries' rank chunks", countries),
                ("types' rank chunks", crate::model::TYPES.len()),
            ][at];
            let k = r.count(what)?;
            let list = &mut by_value[at];
            list.reserve(k.min(r.remaining()));
            for _ in 0..k {
                let value = u16::try_from(r.varint()?)
                    .ok()
                    .filter(|&c| usize::from(c) < limit)
                    .ok_or_else(|| r.malformed("a facet value the build does not list"))?;
                if list.last().is_some_and(|p: &FacetChunks| p.value >= value) {
                    return Err(r.malformed("facet values' rank chunks out of order"));
                }
                let (chunks, chunk_firsts) = read_chunks(&mut r)?;
                list.push(FacetChunks {
                    value,
                    chunks,
                    chunk_firsts,
                });
            }
        }
        let [by_country, by_type] = by_value;
        Ok(TermGroups {
            terms,
            groups,
            chunks,
            chunk_firsts,
            pairs,
            countries: by_country,
            types: by_type,
        })
    }
}

/// Groups and their counts.
fn write_groups(w: &mut Writer, groups: &[(Group, u32)]) {
    w.usize(groups.len());
    for (g, n) in groups {
        w.varint(u64::from(*n));
        write_columns(w, g.status, g.types, g.continents, &g.countries);
    }
}

/// [`write_groups`]' bytes.
fn read_groups(r: &mut Reader, countries: usize) -> Result<Vec<(Group, u32)>, ShardError> {
    let n = r.count("groups")?;
    let mut groups = Vec::with_capacity(n.min(r.remaining()));
    for _ in 0..n {
        let count = u32::try_from(r.varint()?).map_err(|_| r.malformed("group count"))?;
        groups.push((read_columns(r, countries)?, count));
    }
    Ok(groups)
}

/// A record's filter and facet columns, as member and group files write them.
fn write_columns(w: &mut Writer, status: u8, types: u16, continents: u8, countries: &[u16]) {
    w.u8(status);
    w.varint(u64::from(types));
    w.u8(continents);
    w.usize(countries.len());
    for &c in countries {
        w.varint(u64::from(c));
    }
}

/// [`write_columns`]' bytes; `countries`: how many the build has.
fn read_columns(r: &mut Reader, countries: usize) -> Result<Group, ShardError> {
    let status = r.u8()?;
    if usize::from(status) >= crate::model::STATUSES.len() {
        return Err(r.malformed("status"));
    }
    let types = u16::try_from(r.varint()?).map_err(|_| r.malformed("types"))?;
    let continents = r.u8()?;
    let k = r.count("countries")?;
    let mut cs = Vec::with_capacity(k.min(r.remaining()));
    for _ in 0..k {
        let c = r.varint()?;
        if c >= countries as u64 {
            return Err(r.malformed("country id"));
        }
        cs.push(c as u16);
    }
    Ok(Group {
        status,
        types,
        continents,
        countries: cs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(prefix_df: Option<u64>) -> SearchStats {
        SearchStats {
            records: 10,
            entries: 30,
            avg_len: 2.5,
            countries: vec![CountryEntry {
                code: "GB".into(),
                title: "United Kingdom".into(),
                names: vec!["United Kingdom".into()],
            }],
            common: vec![CommonTerm {
                term: "university".into(),
                df: 12,
                records: 9,
                chunks: vec![1, 3],
                prefix_df,
                position: 0,
            }],
            groups: false,
            member_holds: false,
            external_buckets: 0,
            term_parts: None,
        }
    }

    /// Version 8: the common terms leave the statistics file for parts by
    /// first character, each term with its commonness position; a
    /// version-7 file still lists them, positions computed from the list.
    #[test]
    fn version_8_lists_common_terms_in_parts_and_version_7_files_still_read() {
        let term = |t: &str, records: u64, position: u32| CommonTerm {
            term: t.into(),
            df: records + 1,
            records,
            chunks: Vec::new(),
            prefix_df: Some(records + 2),
            position,
        };
        // Commonness: of (9), university (7), institute (5).
        let v7 = SearchStats {
            groups: true,
            member_holds: true,
            external_buckets: 3,
            common: vec![
                term("institute", 5, 2),
                term("of", 9, 0),
                term("university", 7, 1),
            ],
            ..stats(None)
        };
        let mut read7 = SearchStats::decode(&v7.encode()).unwrap();
        assert_eq!(read7, v7, "positions follow from the whole list");
        assert_eq!(read7.commonness_position("university"), Some(1));
        assert_eq!(read7.common_count(), 3);

        let v8 = SearchStats {
            term_parts: Some(3),
            ..v7.clone()
        };
        let head = SearchStats::decode(&v8.encode()).unwrap();
        assert!(head.common.is_empty() && head.term_parts == Some(3));
        assert_eq!((head.common_count(), head.external_buckets), (3, 3));
        assert!(v8.encode().len() < v7.encode().len());
        let parts = v8.parts();
        let firsts: Vec<&str> = parts.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(firsts, ["i", "o", "u"]);
        let mut loaded = head.clone();
        for (first, terms) in &parts {
            let bytes = encode_terms(terms);
            let read = decode_terms(&bytes, first, &head).unwrap();
            assert_eq!(&read, terms);
            // Another part's name, or a position past the count: damage.
            assert!(decode_terms(&bytes, "x", &head).is_err());
            let few = SearchStats {
                term_parts: Some(1),
                ..head.clone()
            };
            assert!(first == "o" || decode_terms(&bytes, first, &few).is_err());
            let mut cut = bytes.clone();
            cut.pop();
            assert!(decode_terms(&cut, first, &head).is_err());
            loaded.add_terms(read);
        }
        read7.term_parts = Some(3);
        assert_eq!(loaded, read7, "the parts restore the list");
        assert_eq!(loaded.commonness_position("institute"), Some(2));
        // A marker after the parts' count, or a list beside it: damage.
        let mut bad = v8.encode();
        bad.push(8);
        assert!(SearchStats::decode(&bad).is_err());
        let mut listed = v7.encode();
        listed.extend([8, 3]);
        assert!(SearchStats::decode(&listed).is_err());
    }

    #[test]
    fn version_6_counts_external_id_pieces_and_version_5_files_still_read() {
        let v5 = SearchStats {
            groups: true,
            member_holds: true,
            ..stats(Some(14))
        };
        let v6 = SearchStats {
            external_buckets: 300,
            ..v5.clone()
        };
        let bytes = v6.encode();
        assert_eq!(SearchStats::decode(&bytes).unwrap(), v6);
        assert_eq!(bytes.len(), v5.encode().len() + 3);
        assert_eq!(SearchStats::decode(&v5.encode()).unwrap(), v5);
        // Another marker, or no piece: damage, not data.
        let mut bad = bytes.clone();
        let at = v5.encode().len();
        bad[at] = 7;
        assert!(SearchStats::decode(&bad).is_err());
        let mut none = v5.encode();
        none.extend([6, 0]);
        assert!(SearchStats::decode(&none).is_err());
        // Every spelling of an id E2 takes shares its piece.
        let key = |s: &str| crate::text::external_id_key(s);
        assert_eq!(
            external_bucket(&key("0000 0001 2345 6789"), 300),
            external_bucket(&key("https://isni.org/isni/0000000123456789"), 300)
        );
        assert!(external_bucket(&key("grid.5335.0"), 300) < 300);
    }

    #[test]
    fn version_5_marks_member_holds_and_version_4_files_still_read() {
        let v4 = SearchStats {
            groups: true,
            ..stats(Some(14))
        };
        let v5 = SearchStats {
            member_holds: true,
            ..v4.clone()
        };
        let bytes = v5.encode();
        assert_eq!(SearchStats::decode(&bytes).unwrap(), v5);
        assert_eq!(bytes.len(), v4.encode().len() + 1);
        assert_eq!(SearchStats::decode(&v4.encode()).unwrap(), v4);
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() = 4;
        assert!(SearchStats::decode(&bad).is_err());

        // A member file with each record's more common terms, and one
        // written before them (version 4): both read.
        let member = |record, holds: Vec<u16>| Member {
            record,
            status: 0,
            types: 2,
            continents: 1,
            countries: vec![0],
            holds,
        };
        let with = TermMembers {
            term: "technology".into(),
            members: vec![
                member(3, vec![0, 1]),
                member(9, vec![]),
                member(12, vec![1, 300]),
            ],
            holds: true,
        };
        assert_eq!(TermMembers::decode(&with.encode(), 1).unwrap(), with);
        let without = TermMembers {
            term: "technology".into(),
            members: vec![member(3, vec![]), member(9, vec![])],
            holds: false,
        };
        assert_eq!(TermMembers::decode(&without.encode(), 1).unwrap(), without);
        // Cut short, or another byte in the marker's place: damage.
        let bytes = with.encode();
        assert!(TermMembers::decode(&bytes[..bytes.len() - 1], 1).is_err());
        let mut bad = without.encode();
        bad.push(4);
        assert!(TermMembers::decode(&bad, 1).is_err());
    }

    #[test]
    fn prefix_df_round_trips_and_files_without_it_still_read() {
        let with = stats(Some(14));
        assert_eq!(SearchStats::decode(&with.encode()).unwrap(), with);
        // A file written before the prefix document frequencies: it ends
        // after the common terms, and reads with none.
        let without = stats(None);
        let bytes = without.encode();
        assert_eq!(bytes.len() + 1, with.encode().len());
        assert_eq!(SearchStats::decode(&bytes).unwrap(), without);
        // A prefix df below the term's own df is damage, not data.
        let mut bad = stats(Some(14)).encode();
        *bad.last_mut().unwrap() = 11;
        assert!(SearchStats::decode(&bad).is_err());
    }

    #[test]
    fn version_4_marks_group_files_and_version_3_files_still_read() {
        let v3 = stats(Some(14));
        let v4 = SearchStats {
            groups: true,
            ..v3.clone()
        };
        let bytes = v4.encode();
        assert_eq!(SearchStats::decode(&bytes).unwrap(), v4);
        assert_eq!(SearchStats::decode(&v3.encode()).unwrap(), v3);
        assert_eq!(bytes.len(), v3.encode().len() + 1);
        // Another byte in the marker's place: damage, not data.
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() = 9;
        assert!(SearchStats::decode(&bad).is_err());
    }

    #[test]
    fn groups_round_trip() {
        let g = TermGroups {
            terms: vec!["of".into(), "university".into()],
            groups: vec![
                (
                    Group {
                        status: 0,
                        types: 3,
                        continents: 4,
                        countries: vec![0],
                    },
                    300,
                ),
                (Group::default(), 1),
            ],
            chunks: vec![1, 1, 4],
            chunk_firsts: vec![
                ChunkFirst { prior: 200, id: 7 },
                ChunkFirst { prior: 9, id: 8 },
                ChunkFirst {
                    prior: 3,
                    id: 1 << 29,
                },
            ],
            pairs: vec![("zoo".into(), vec![(Group::default(), 2)])],
            countries: Vec::new(),
            types: Vec::new(),
        };
        assert_eq!(TermGroups::decode(&g.encode(), 1).unwrap(), g);
        assert!(TermGroups::decode(&g.encode(), 0).is_err());
        // Version 6: the term's chunks by country follow the pairs; a
        // version 5 file (none) is the same bytes as before.
        let v6 = TermGroups {
            countries: vec![
                FacetChunks {
                    value: 0,
                    chunks: vec![2, 3],
                    chunk_firsts: vec![ChunkFirst { prior: 5, id: 9 }; 2],
                },
                FacetChunks {
                    value: 1,
                    chunks: vec![1],
                    chunk_firsts: vec![ChunkFirst { prior: 1, id: 3 }],
                },
                // One chunk, not described.
                FacetChunks {
                    value: 2,
                    ..FacetChunks::default()
                },
            ],
            ..g.clone()
        };
        let bytes = v6.encode();
        assert_eq!(TermGroups::decode(&bytes, 3).unwrap(), v6);
        assert!(bytes.starts_with(&g.encode()));
        // A country beyond the statistics' table, or another byte in the
        // marker's place: damage, not data.
        assert!(TermGroups::decode(&bytes, 2).is_err());
        let mut bad = bytes.clone();
        bad[g.encode().len()] = 9;
        assert!(TermGroups::decode(&bad, 3).is_err());
        // Version 7: by type after by country, either without the other.
        let by_type = vec![
            FacetChunks {
                value: 1,
                chunks: vec![1, 2],
                chunk_firsts: vec![ChunkFirst { prior: 4, id: 2 }; 2],
            },
            FacetChunks {
                value: 8,
                ..FacetChunks::default()
            },
        ];
        let v7 = TermGroups {
            types: by_type.clone(),
            ..v6.clone()
        };
        let bytes = v7.encode();
        assert_eq!(TermGroups::decode(&bytes, 3).unwrap(), v7);
        assert!(bytes.starts_with(&v6.encode()));
        let types_only = TermGroups {
            types: by_type,
            ..g.clone()
        };
        assert_eq!(
            TermGroups::decode(&types_only.encode(), 3).unwrap(),
            types_only
        );
        // A type beyond the table, by country after by type, or the
        // countries twice: damage.
        let beyond = TermGroups {
            types: vec![FacetChunks {
                value: crate::model::TYPES.len() as u16,
                ..FacetChunks::default()
            }],
            ..g.clone()
        };
        assert!(TermGroups::decode(&beyond.encode(), 3).is_err());
        let mut twice = v6.encode();
        twice.extend_from_slice(&v6.encode()[g.encode().len()..]);
        assert!(TermGroups::decode(&twice, 3).is_err());
        let mut swapped = types_only.encode();
        swapped.extend_from_slice(&v6.encode()[g.encode().len()..]);
        assert!(TermGroups::decode(&swapped, 3).is_err());
    }
}
