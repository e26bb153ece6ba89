//! [`FieldIndex`]: every field of every record in columns, so that a
//! [`Query`] is answered for a whole registry as set operations instead of
//! record by record.
//!
//! For each field:
//!
//! * string fields (keyword, text, letters): a sorted dictionary of the
//!   field's keys — whole values for keyword fields, analysed words
//!   ([`super::text_tokens`], [`super::letter_tokens`]) for text and letter
//!   fields — with, for each key, the ascending list of records having it.
//!   Text and letter fields also keep each value's word sequence (dictionary
//!   ids) to check phrases;
//! * number fields: (value, record) pairs sorted by value;
//! * date fields: (`yyyymmdd`, record) pairs sorted by date, for the values
//!   that are full dates;
//! * every field: the set of records with a value (`_exists_`).
//!
//! Every predicate is then answered exactly from the columns: a term is a
//! dictionary look-up (text: the intersection of its words' lists), a
//! phrase intersects its words' lists and checks the candidates' word
//! sequences, a wildcard filters the dictionary (narrowed by its literal
//! prefix and pre-checked by its literal runs), a range is a slice of a
//! sorted column. `AND`/`OR`/`NOT` combine [`RecordSet`]s. The index is
//! built from the same value accessors and analysers as [`Query::matches`],
//! so both give the same answers (checked on the real data in the tests).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Bound;

use super::analysis::{Glob, each_letter_token, each_text_token};
use super::eval::record_date;
use super::fields::{Field, FieldKind, any_num, any_str};
use super::{Clause, Node, Pattern, Predicate, Query, RangeBounds, Target, Term};
use crate::model::Record;
use crate::order::sort_by;

/// FxHash-style word hashing with a final avalanche: keys such as
/// identifier URLs differ only in a few bytes, and plain FxHash leaves the
/// low bits (the bucket index) badly mixed for them.
#[derive(Clone, Copy, Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut v = [0u8; 8];
            v[..rest.len()].copy_from_slice(rest);
            self.0 =
                (self.0.rotate_left(5) ^ u64::from_le_bytes(v)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }

    fn finish(&self) -> u64 {
        // murmur3's fmix64.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// A set of records (by index), one bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSet {
    words: Vec<u64>,
    n: usize,
}

impl RecordSet {
    /// No record of `n`.
    pub fn empty(n: usize) -> RecordSet {
        RecordSet {
            words: vec![0; n.div_ceil(64)],
            n,
        }
    }

    /// Every record of `n`.
    pub fn full(n: usize) -> RecordSet {
        let mut s = RecordSet {
            words: vec![!0; n.div_ceil(64)],
            n,
        };
        s.trim();
        s
    }

    fn trim(&mut self) {
        if !self.n.is_multiple_of(64)
            && let Some(last) = self.words.last_mut()
        {
            *last &= (1u64 << (self.n % 64)) - 1;
        }
    }

    /// Adds record `r`.
    pub fn insert(&mut self, r: u32) {
        self.words[r as usize / 64] |= 1 << (r % 64);
    }

    /// Whether record `r` is in the set.
    pub fn contains(&self, r: u32) -> bool {
        self.words
            .get(r as usize / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }

    /// Keeps the records also in `other`.
    pub fn intersect(&mut self, other: &RecordSet) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a &= b);
    }

    /// Adds the records of `other`.
    pub fn union(&mut self, other: &RecordSet) {
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(a, b)| *a |= b);
    }

    /// Replaces the set by its complement.
    pub fn complement(&mut self) {
        self.words.iter_mut().for_each(|w| *w = !*w);
        self.trim();
    }

    /// Number of records in the set.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True when the set has no record.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// The records, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    i as u32 * 64 + b
                })
            })
        })
    }

    fn extend(&mut self, records: &[u32]) {
        for &r in records {
            self.insert(r);
        }
    }
}

/// Sorted distinct strings in one arena.
#[derive(Debug, Default)]
struct Dict {
    arena: String,
    start: Vec<u32>,
}

impl Dict {
    fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    fn get(&self, i: usize) -> &str {
        &self.arena[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// First key not below `s` (`strict`: first key above `s`).
    fn bound(&self, s: &str, strict: bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let k = self.get(mid);
            if k < s || (strict && k == s) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn find(&self, s: &str) -> Option<usize> {
        let i = self.bound(s, false);
        (i < self.len() && self.get(i) == s).then_some(i)
    }

    fn prefix_range(&self, p: &str) -> std::ops::Range<usize> {
        let lo = self.bound(p, false);
        let mut hi = lo;
        // Keys with the prefix are contiguous; gallop then bisect.
        let mut step = 1;
        while hi + step <= self.len() && self.get(hi + step - 1).starts_with(p) {
            hi += step;
            step *= 2;
        }
        let mut end = (hi + step).min(self.len());
        while hi < end {
            let mid = (hi + end) / 2;
            if self.get(mid).starts_with(p) {
                hi = mid + 1;
            } else {
                end = mid;
            }
        }
        lo..hi
    }

    fn heap_bytes(&self) -> usize {
        self.arena.capacity() + self.start.capacity() * 4
    }
}

/// Each value's word sequence (text and letter fields), for phrases.
#[derive(Debug, Default)]
struct Forward {
    /// Per record: its first value (`n + 1` entries).
    rec_start: Vec<u32>,
    /// Per value: its first word (`values + 1` entries).
    val_start: Vec<u32>,
    /// Dictionary ids.
    words: Vec<u32>,
}

/// A string field's dictionary and record lists.
#[derive(Debug, Default)]
struct StrColumn {
    dict: Dict,
    post_start: Vec<u32>,
    postings: Vec<u32>,
    fwd: Option<Forward>,
}

impl StrColumn {
    fn postings(&self, key: usize) -> &[u32] {
        &self.postings[self.post_start[key] as usize..self.post_start[key + 1] as usize]
    }

    fn add_key(&self, key: &str, out: &mut RecordSet) {
        if let Some(k) = self.dict.find(key) {
            out.extend(self.postings(k));
        }
    }

    fn add_range(&self, keys: std::ops::Range<usize>, out: &mut RecordSet) {
        if keys.start < keys.end {
            let (a, b) = (self.post_start[keys.start], self.post_start[keys.end]);
            out.extend(&self.postings[a as usize..b as usize]);
        }
    }

    /// Records having every key somewhere (ascending), `None` when a key is
    /// unknown (no record).
    fn all_keys(&self, keys: &[String]) -> Option<(Vec<u32>, Vec<usize>)> {
        let ids: Option<Vec<usize>> = keys.iter().map(|k| self.dict.find(k)).collect();
        let ids = ids?;
        let mut lists: Vec<&[u32]> = ids.iter().map(|&k| self.postings(k)).collect();
        sort_by(&mut lists, |a, b| a.len().cmp(&b.len()));
        let mut cand: Vec<u32> = lists.first()?.to_vec();
        for l in &lists[1..] {
            cand.retain(|r| l.binary_search(r).is_ok());
        }
        Some((cand, ids))
    }

    fn heap_bytes(&self) -> usize {
        self.dict.heap_bytes()
            + (self.post_start.capacity() + self.postings.capacity()) * 4
            + self.fwd.as_ref().map_or(0, |f| {
                (f.rec_start.capacity() + f.val_start.capacity() + f.words.capacity()) * 4
            })
    }
}

/// A sorted (value, record) column.
#[derive(Debug, Default)]
struct Sorted<T> {
    vals: Vec<T>,
    recs: Vec<u32>,
}

impl<T: PartialOrd + Copy> Sorted<T> {
    fn from_pairs(mut pairs: Vec<(T, u32)>) -> Sorted<T> {
        sort_by(&mut pairs, |a, b| {
            a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal)
        });
        Sorted {
            vals: pairs.iter().map(|p| p.0).collect(),
            recs: pairs.iter().map(|p| p.1).collect(),
        }
    }

    fn add_range(&self, lo: &Bound<T>, hi: &Bound<T>, out: &mut RecordSet) {
        let a = match lo {
            Bound::Included(b) => self.vals.partition_point(|v| v < b),
            Bound::Excluded(b) => self.vals.partition_point(|v| v <= b),
            Bound::Unbounded => 0,
        };
        let z = match hi {
            Bound::Included(b) => self.vals.partition_point(|v| v <= b),
            Bound::Excluded(b) => self.vals.partition_point(|v| v < b),
            Bound::Unbounded => self.vals.len(),
        };
        if a < z {
            out.extend(&self.recs[a..z]);
        }
    }

    fn heap_bytes(&self) -> usize {
        self.vals.capacity() * std::mem::size_of::<T>() + self.recs.capacity() * 4
    }
}

#[derive(Debug)]
enum Column {
    Str(StrColumn),
    Num(Sorted<f64>),
    Date(Sorted<u32>),
}

#[derive(Debug)]
struct FieldColumn {
    exists: RecordSet,
    col: Column,
}

/// Every field of every record, in columns (see the module docs).
#[derive(Debug)]
pub struct FieldIndex {
    n: usize,
    fields: Vec<FieldColumn>,
}

/// Builds one string column.
struct StrBuilder {
    ids: FxMap<Box<str>, u32>,
    /// Per key: the last record added (to drop repeats).
    last: Vec<u32>,
    /// (key, record) pairs in record order.
    pairs: Vec<(u32, u32)>,
    fwd: Option<Forward>,
}

impl StrBuilder {
    fn new(kind: FieldKind) -> StrBuilder {
        StrBuilder {
            ids: FxMap::default(),
            last: Vec::new(),
            pairs: Vec::new(),
            fwd: (kind != FieldKind::Keyword).then(|| Forward {
                rec_start: Vec::new(),
                val_start: vec![0],
                words: Vec::new(),
            }),
        }
    }

    fn add(&mut self, key: &str, r: u32) -> u32 {
        let id = match self.ids.get(key) {
            Some(&id) => id,
            None => {
                let id = self.last.len() as u32;
                self.ids.insert(key.into(), id);
                self.last.push(u32::MAX);
                id
            }
        };
        if self.last[id as usize] != r {
            self.last[id as usize] = r;
            self.pairs.push((id, r));
        }
        id
    }

    fn finish(self, n: usize) -> StrColumn {
        let StrBuilder {
            ids,
            last,
            pairs,
            fwd,
        } = self;
        drop(last);
        let mut keys: Vec<(Box<str>, u32)> = ids.into_iter().collect();
        sort_by(&mut keys, |a, b| a.0.cmp(&b.0));
        let mut remap = vec![0u32; keys.len()];
        let mut col = StrColumn::default();
        col.dict.arena.reserve(keys.iter().map(|k| k.0.len()).sum());
        col.dict.start.reserve(keys.len() + 1);
        for (new, (key, old)) in keys.iter().enumerate() {
            remap[*old as usize] = new as u32;
            col.dict.start.push(col.dict.arena.len() as u32);
            col.dict.arena.push_str(key);
        }
        col.dict.start.push(col.dict.arena.len() as u32);
        drop(keys);
        // Postings by counting sort: pairs are in record order, so every
        // list comes out ascending.
        let mut start = vec![0u32; remap.len() + 1];
        for &(k, _) in &pairs {
            start[remap[k as usize] as usize + 1] += 1;
        }
        for i in 0..remap.len() {
            start[i + 1] += start[i];
        }
        col.post_start = start.clone();
        col.postings = vec![0; pairs.len()];
        for &(k, r) in &pairs {
            let slot = &mut start[remap[k as usize] as usize];
            col.postings[*slot as usize] = r;
            *slot += 1;
        }
        drop(pairs);
        col.fwd = fwd.map(|mut f| {
            f.words.iter_mut().for_each(|w| *w = remap[*w as usize]);
            while f.rec_start.len() < n {
                f.rec_start.push((f.val_start.len() - 1) as u32);
            }
            f.rec_start.push((f.val_start.len() - 1) as u32);
            f.rec_start.shrink_to_fit();
            f.val_start.shrink_to_fit();
            f.words.shrink_to_fit();
            f
        });
        col
    }
}

enum Builder {
    Str(StrBuilder),
    Num(Vec<(f64, u32)>),
    Date(Vec<(u32, u32)>),
}

impl FieldIndex {
    /// Builds the columns of `n` records; `record(i)` gives record `i`
    /// (`None`: skip it, as if it had no values).
    pub fn build(n: usize, mut record: impl FnMut(usize) -> Option<Record>) -> FieldIndex {
        let mut builders: Vec<Builder> = Field::ALL
            .iter()
            .map(|f| match f.kind() {
                FieldKind::Integer | FieldKind::Float => Builder::Num(Vec::new()),
                FieldKind::Date => Builder::Date(Vec::new()),
                kind => Builder::Str(StrBuilder::new(kind)),
            })
            .collect();
        let mut exists: Vec<RecordSet> = Field::ALL.iter().map(|_| RecordSet::empty(n)).collect();
        let mut buf = String::new();
        for i in 0..n {
            let r = i as u32;
            let rec = record(i);
            for ((f, b), ex) in Field::ALL.iter().zip(&mut builders).zip(&mut exists) {
                let Some(rec) = &rec else {
                    if let Builder::Str(StrBuilder { fwd: Some(fw), .. }) = b {
                        fw.rec_start.push((fw.val_start.len() - 1) as u32);
                    }
                    continue;
                };
                let mut has = false;
                match b {
                    Builder::Num(pairs) => {
                        any_num(rec, *f, &mut |v| {
                            has = true;
                            if !v.is_nan() {
                                pairs.push((v, r));
                            }
                            false
                        });
                    }
                    Builder::Date(pairs) => {
                        any_str(rec, *f, &mut |v| {
                            has = true;
                            if let Some(d) = record_date(v) {
                                pairs.push((d, r));
                            }
                            false
                        });
                    }
                    Builder::Str(sb) => {
                        let kind = f.kind();
                        if let Some(fw) = &mut sb.fwd {
                            fw.rec_start.push((fw.val_start.len() - 1) as u32);
                        }
                        any_str(rec, *f, &mut |v| {
                            has = true;
                            if kind == FieldKind::Keyword {
                                sb.add(v, r);
                                return false;
                            }
                            let mut words =
                                std::mem::take(&mut sb.fwd.as_mut().expect("text field").words);
                            let mut push = |tok: &str| {
                                words.push(sb.add(tok, r));
                                false
                            };
                            if kind == FieldKind::Text {
                                each_text_token(v, &mut buf, &mut push);
                            } else {
                                each_letter_token(v, &mut buf, &mut push);
                            }
                            let fw = sb.fwd.as_mut().expect("text field");
                            fw.words = words;
                            fw.val_start.push(fw.words.len() as u32);
                            false
                        });
                    }
                }
                if has {
                    ex.insert(r);
                }
            }
        }
        let fields = builders
            .into_iter()
            .zip(exists)
            .map(|(b, exists)| FieldColumn {
                exists,
                col: match b {
                    Builder::Str(sb) => Column::Str(sb.finish(n)),
                    Builder::Num(p) => Column::Num(Sorted::from_pairs(p)),
                    Builder::Date(p) => Column::Date(Sorted::from_pairs(p)),
                },
            })
            .collect();
        FieldIndex { n, fields }
    }

    /// Number of records.
    pub fn records(&self) -> usize {
        self.n
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.field_heap_bytes().iter().map(|f| f.1).sum::<usize>()
            + self.fields.capacity() * std::mem::size_of::<FieldColumn>()
    }

    /// Approximate heap bytes per field.
    pub fn field_heap_bytes(&self) -> Vec<(Field, usize)> {
        Field::ALL
            .iter()
            .zip(&self.fields)
            .map(|(f, c)| {
                let col = match &c.col {
                    Column::Str(c) => c.heap_bytes(),
                    Column::Num(c) => c.heap_bytes(),
                    Column::Date(c) => c.heap_bytes(),
                };
                (*f, c.exists.words.capacity() * 8 + col)
            })
            .collect()
    }

    /// The records `query` matches (the same as [`Query::matches`] on each
    /// record). The empty query matches nothing.
    pub fn matches(&self, query: &Query) -> RecordSet {
        match query.root() {
            None => RecordSet::empty(self.n),
            Some(root) => self.node(root),
        }
    }

    fn node(&self, node: &Node) -> RecordSet {
        match node {
            Node::All => RecordSet::full(self.n),
            Node::And(items) => {
                // Clauses first: they are usually the most selective and
                // cheapest; stop as soon as nothing is left.
                let mut acc: Option<RecordSet> = None;
                for item in items {
                    let s = self.node(item);
                    match &mut acc {
                        None => acc = Some(s),
                        Some(a) => a.intersect(&s),
                    }
                    if acc.as_ref().is_some_and(RecordSet::is_empty) {
                        break;
                    }
                }
                acc.unwrap_or_else(|| RecordSet::full(self.n))
            }
            Node::Or(items) => {
                let mut acc = RecordSet::empty(self.n);
                for item in items {
                    acc.union(&self.node(item));
                }
                acc
            }
            Node::Not(inner) => {
                let mut s = self.node(inner);
                s.complement();
                s
            }
            Node::Clause(c) => self.clause(c),
        }
    }

    fn clause(&self, c: &Clause) -> RecordSet {
        let mut out = RecordSet::empty(self.n);
        match &c.target {
            Target::Field(f) => self.field(*f, &c.predicate, &mut out),
            Target::AllFields => Field::ALL
                .iter()
                .for_each(|f| self.field(*f, &c.predicate, &mut out)),
            Target::Fields(fs) => fs
                .iter()
                .for_each(|f| self.field(*f, &c.predicate, &mut out)),
        }
        out
    }

    /// Adds the records where field `f` satisfies `p` to `out`.
    fn field(&self, f: Field, p: &Predicate, out: &mut RecordSet) {
        let fc = &self.fields[f as usize];
        let kind = f.kind();
        match (p, &fc.col) {
            (Predicate::Exists, _) => out.union(&fc.exists),
            (Predicate::Term(t) | Predicate::Phrase(t), Column::Str(col)) => match kind {
                FieldKind::Keyword => keyword_equals(f, t, col, out),
                _ => {
                    let words = if kind == FieldKind::Text {
                        &t.words
                    } else {
                        &t.letters
                    };
                    if words.is_empty() {
                        return;
                    }
                    let Some((cand, ids)) = col.all_keys(words) else {
                        return;
                    };
                    if matches!(p, Predicate::Term(_)) {
                        out.extend(&cand);
                        return;
                    }
                    let fwd = col.fwd.as_ref().expect("text column");
                    let ids: Vec<u32> = ids.iter().map(|&i| i as u32).collect();
                    for r in cand {
                        let vals = fwd.rec_start[r as usize] as usize
                            ..fwd.rec_start[r as usize + 1] as usize;
                        let hit = vals.into_iter().any(|v| {
                            let ws = &fwd.words
                                [fwd.val_start[v] as usize..fwd.val_start[v + 1] as usize];
                            ws.windows(ids.len()).any(|w| w == ids)
                        });
                        if hit {
                            out.insert(r);
                        }
                    }
                }
            },
            (Predicate::Term(t) | Predicate::Phrase(t), Column::Num(col)) => {
                if let Some(n) = t.number {
                    col.add_range(&Bound::Included(n), &Bound::Included(n), out);
                }
            }
            (Predicate::Term(t) | Predicate::Phrase(t), Column::Date(col)) => {
                if let Some((a, b)) = t.date {
                    col.add_range(&Bound::Included(a), &Bound::Included(b), out);
                }
            }
            (Predicate::Wildcard(pat), Column::Str(col)) => wildcard(kind, pat, col, out),
            (Predicate::Wildcard(_), _) => {}
            (Predicate::Range(range), col) => match (&range.bounds, col) {
                (RangeBounds::Number(lo, hi), Column::Num(c)) => c.add_range(lo, hi, out),
                (RangeBounds::Date(lo, hi), Column::Date(c)) => c.add_range(lo, hi, out),
                (RangeBounds::Text(lo, hi), Column::Str(c)) => {
                    let a = match lo {
                        Bound::Included(s) => c.dict.bound(s, false),
                        Bound::Excluded(s) => c.dict.bound(s, true),
                        Bound::Unbounded => 0,
                    };
                    let z = match hi {
                        Bound::Included(s) => c.dict.bound(s, true),
                        Bound::Excluded(s) => c.dict.bound(s, false),
                        Bound::Unbounded => c.dict.len(),
                    };
                    c.add_range(a..z, out);
                }
                // The parser converts bounds for the field's kind; other
                // combinations match nothing (as in `Query::matches`, where a
                // field has no values of the other kind).
                _ => {}
            },
        }
    }
}

fn keyword_equals(f: Field, t: &Term, col: &StrColumn, out: &mut RecordSet) {
    col.add_key(&t.text, out);
    if let Some((_, alias)) = t.aliases.iter().find(|(g, _)| *g == f) {
        col.add_key(alias, out);
    }
    if matches!(f, Field::Id | Field::RelationshipsId)
        && let Some(id) = &t.id_url
    {
        col.add_key(id, out);
    }
}

fn wildcard(kind: FieldKind, pat: &Pattern, col: &StrColumn, out: &mut RecordSet) {
    let glob: &Glob = match kind {
        FieldKind::Keyword => &pat.exact,
        FieldKind::Text => &pat.folded,
        FieldKind::Letters => &pat.lower,
        _ => return,
    };
    let (prefix, whole) = glob.literal_prefix();
    if whole {
        col.add_key(&prefix, out);
        return;
    }
    let keys = col.dict.prefix_range(&prefix);
    let runs = glob.required_runs();
    let mut chars = Vec::new();
    // Keys with the prefix and every literal run are tested in full.
    let mut start: Option<usize> = None;
    for k in keys.clone() {
        let key = col.dict.get(k);
        let hit = runs.iter().all(|r| key.contains(r.as_str())) && glob.matches(key, &mut chars);
        match (hit, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                col.add_range(s..k, out);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        col.add_range(s..keys.end, out);
    }
}
