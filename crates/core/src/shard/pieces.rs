//! The partitioned typeahead index: the registry cut into small *pieces*
//! keyed by folded term prefix, so a typeahead client fetches only the
//! piece its query needs instead of the whole `summary` + `names`.
//!
//! # Pieces
//!
//! A piece is a complete shard file (this module's container, format 2)
//! holding the `summary` and `names` sections of a subset of records, with
//! their real ids. A client loads it as a [`crate::Registry`] and asks the
//! one [`crate::search::Engine`] — there is no second suggest engine. Two
//! kinds:
//!
//! * **leaf** `p`: every record with a term (a folded word, or a character
//!   or bigram of a no-space script) starting with `p`. Any query with a
//!   required unit (a word not in [`crate::text::OPTIONAL_WORDS`], a
//!   bigram, a lone character) whose text starts with `p` has all its
//!   candidates in the leaf, and every ranking key of `suggest` depends
//!   only on the record and the query (match tier, status, prior, name
//!   length, id order), so the leaf answers *exactly* as the whole registry
//!   does, filters included.
//! * **head** `p`: a prefix whose leaf would exceed the byte budget is
//!   split into one node per next character; its head holds the best
//!   [`PieceBudget::head_records`] records of the one-word query `p` as the
//!   whole registry ranks them. A head answers that query exactly without
//!   filters, and with filters whenever at least `k` of its records pass
//!   (filtering keeps the order); otherwise the client needs the whole
//!   typeahead data.
//!
//! * **a head proves first hits** of a longer one-word query while its
//!   piece is on its way ([`ExactWords`], [`Answer::Partial`]): the hits
//!   ranking above the head's last record for its own prefix come first in
//!   the whole registry, unless a record outside the head is named exactly
//!   as typed, which its `exact_words` section rules out.
//!
//! [`route`] decides, from the [`Directory`] alone, which piece answers a
//! query: the smallest leaf covering one of its required units; else the
//! head of a one-word query; else [`Route::Whole`] (several common short
//! words, ids, empty text), where the client uses the full `summary` +
//! `names`. A required unit under no node matches no record:
//! [`Route::Empty`].
//!
//! # Context
//!
//! [`PieceClient::answer`] takes the form's [`SuggestContext`] and answers
//! with [`Engine::suggest_in`]. In a leaf the context is exact: preferred
//! countries and types are boosts by the record's own columns (a value is
//! accepted or ignored by its form — a known type, two letters — never by
//! the data, so a piece applies the same ones), a remembered record moves
//! only when it matches the text (one outside the leaf does not, so the
//! whole registry does not show it either), and `lang` picks one of the
//! record's own labels. A head holds the best records *without*
//! context, so a preference or a remembered pick may lift a record it does
//! not hold: a head answers only when the context has nothing but `lang`.
//! An e-mail domain (one [`domain_of`] accepts) needs the `domains`
//! section, which pieces do not carry: [`Answer::Whole`], for any text.
//!
//! # Quirks
//!
//! * A prefix that cannot be extended (a very common term that no longer
//!   term continues) stays one leaf even over the budget.
//! * The budget is on raw (uncompressed) section bytes, estimated per
//!   record, so piece files vary around it after compression.
//! * A head proves first hits only for one-word queries, without
//!   preferences or remembered picks, and only up to the word length its
//!   exact words cover (three characters for a common first letter at
//!   144k records): a longer word waits for a deeper head or its leaf.
//! * A build before the `exact_words` section rejects a head that has it
//!   (unknown section kind): a client of that build asks the whole data
//!   for such queries instead, which is slower, never wrong.

use crate::search::context::domain_of;
use crate::search::{Engine, SuggestContext};
use crate::text::{self, TokenKind};

/// How big pieces may get.
#[derive(Clone, Copy, Debug)]
pub struct PieceBudget {
    /// Most estimated raw bytes (summary + names) of a leaf.
    pub raw_bytes: usize,
    /// Records kept in the head of a split prefix.
    pub head_records: usize,
    /// Most encoded bytes of a head's [`ExactWords`].
    pub exact_words_bytes: usize,
}

impl Default for PieceBudget {
    /// 48 KiB raw (~15–20 KB compressed, one or two round trips' worth on
    /// a slow mobile link), 40 head records (the widget shows 8–10) and
    /// 2 KiB of exact words a head (before compression; ~1 KB after, a
    /// third of a head): enough for a first character's head to list its
    /// words of up to three characters at 144k records, so the first
    /// keystroke's head proves first hits until the third (1 KiB stops
    /// at two characters for "s").
    fn default() -> Self {
        PieceBudget {
            raw_bytes: 48 * 1024,
            head_records: 40,
            exact_words_bytes: 2048,
        }
    }
}

/// Leaf or head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceKind {
    /// Every record with a term under the prefix.
    Leaf,
    /// The best records of the one-word query of a split prefix.
    Head,
    /// The records whose id starts with the key ([`id_key`]): what a
    /// pasted id or a successor's summary needs.
    Id,
}

impl PieceKind {
    /// One-letter code used in the directory.
    pub fn code(self) -> &'static str {
        match self {
            PieceKind::Leaf => "l",
            PieceKind::Head => "h",
            PieceKind::Id => "i",
        }
    }

    /// From [`PieceKind::code`].
    pub fn from_code(c: &str) -> Option<PieceKind> {
        match c {
            "l" => Some(PieceKind::Leaf),
            "h" => Some(PieceKind::Head),
            "i" => Some(PieceKind::Id),
            _ => None,
        }
    }
}

/// One piece to write: its prefix, kind and records (indexes into the
/// whole registry, ascending).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceSpec {
    /// Folded term prefix.
    pub key: String,
    /// Leaf or head.
    pub kind: PieceKind,
    /// Record indexes, ascending.
    pub records: Vec<u32>,
    /// A head's [`ExactWords`] (`None` for leaves and id pieces).
    pub exact_words: Option<ExactWords>,
}

impl PieceSpec {
    /// The sections of its file ([`piece_file`]).
    pub fn sections(&self) -> Vec<super::SectionKind> {
        use super::SectionKind;
        let mut kinds = vec![SectionKind::Summary, SectionKind::Names];
        if self.exact_words.is_some() {
            kinds.push(SectionKind::ExactWords);
        }
        kinds
    }
}

/// What a head knows of the records it does not hold: the one-word names
/// under its prefix that they carry (folded, longer than the prefix), up to
/// a length. A query of one word `q` extending the head's prefix `p` ranks
/// every record at least as low as `p` does — its matches are a subset of
/// `p`'s, and a name's tier can only get worse — except where `q` is the
/// whole name (the exact bands). So when `q` is no such word, the head's
/// hits for `q` that rank above its last record for `p` are the first hits
/// of the whole registry ([`PieceClient::answer`]'s [`Answer::Partial`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExactWords {
    /// Longest word, in characters, that the list is complete for
    /// (`u32::MAX`: every length).
    pub upto: u32,
    /// The words, sorted.
    pub words: Vec<String>,
}

impl ExactWords {
    /// The words of head `prefix` holding `head` (ascending record
    /// indexes), as many lengths as fit in `budget` encoded bytes.
    pub fn of(engine: &Engine, prefix: &str, head: &[u32], budget: usize) -> ExactWords {
        let ix = engine.index();
        let and = ix.term_id("and");
        let mut all: Vec<&str> = Vec::new();
        for t in ix.prefix_range(prefix) {
            let term = ix.term(t);
            if term.len() == prefix.len() {
                continue;
            }
            // Exactly one content word (`and` aside), as suggest's exact
            // tiers count them.
            let outside = ix.postings(t).iter().any(|&e| {
                let mut content = ix.entry_terms(e).iter().filter(|&&x| Some(x) != and);
                head.binary_search(&ix.entry_record(e)).is_err()
                    && content.next() == Some(&t)
                    && content.next().is_none()
            });
            if outside {
                all.push(term);
            }
        }
        // The longest length whose words (and all shorter ones) fit.
        let mut lengths: Vec<u32> = all.iter().map(|w| w.chars().count() as u32).collect();
        lengths.sort_unstable();
        lengths.dedup();
        let mut upto = u32::MAX;
        for &len in &lengths {
            let words: Vec<String> = all
                .iter()
                .filter(|w| w.chars().count() as u32 <= len)
                .map(|w| w.to_string())
                .collect();
            let size = ExactWords { upto: len, words }.encode().len();
            if size > budget {
                upto = lengths
                    .iter()
                    .rev()
                    .find(|&&l| l < len)
                    .copied()
                    .unwrap_or(prefix.chars().count() as u32);
                break;
            }
        }
        ExactWords {
            upto,
            words: all
                .into_iter()
                .filter(|w| w.chars().count() as u32 <= upto)
                .map(str::to_string)
                .collect(),
        }
    }

    /// Whether no record outside the head has the one-word name `word`
    /// (folded): known when the list covers its length.
    pub fn rules_out(&self, word: &str) -> bool {
        word.chars().count() as u64 <= u64::from(self.upto)
            && self
                .words
                .binary_search_by(|w| w.as_str().cmp(word))
                .is_err()
    }

    /// Section bytes: `upto`, the count, then each word front-coded (bytes
    /// shared with the previous word, then the rest), varints.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = super::bytes::Writer::default();
        w.varint(u64::from(self.upto));
        w.usize(self.words.len());
        let mut prev = "";
        for word in &self.words {
            let shared = prev
                .bytes()
                .zip(word.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            // Never split a character: back up to a boundary.
            let shared = (0..=shared)
                .rev()
                .find(|&i| word.is_char_boundary(i))
                .unwrap_or(0);
            w.usize(shared);
            w.str(&word[shared..]);
            prev = word;
        }
        w.buf
    }

    /// From [`ExactWords::encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<ExactWords, super::ShardError> {
        let mut r = super::bytes::Reader::new(bytes, super::SectionKind::ExactWords);
        let upto = u32::try_from(r.varint()?).map_err(|_| r.malformed("word length"))?;
        let n = r.count("words")?;
        let mut words: Vec<String> = Vec::with_capacity(n.min(bytes.len()));
        // Front coding lets each entry of a few bytes repeat the previous
        // word whole: without a cap, n entries could spell n long words.
        let mut budget = bytes.len().saturating_mul(64).saturating_add(4096);
        for _ in 0..n {
            let shared = r.varint()? as usize;
            let rest = r.str()?;
            let prev = words.last().map_or("", String::as_str);
            let Some(head) = prev.get(..shared) else {
                return Err(r.malformed("shared prefix longer than the previous word"));
            };
            budget = budget
                .checked_sub(head.len() + rest.len())
                .ok_or_else(|| r.malformed("words longer than 64 times their encoding"))?;
            let word = format!("{head}{rest}");
            if prev >= word.as_str() && !words.is_empty() {
                return Err(r.malformed("words out of order"));
            }
            words.push(word);
        }
        if !r.at_end() {
            return Err(r.malformed("bytes after the words"));
        }
        Ok(ExactWords { upto, words })
    }
}

/// The file of piece `spec`, from its records (`records`, any order): the
/// `summary` and `names` sections, and a head's [`ExactWords`].
pub fn piece_file(
    spec: &PieceSpec,
    records: &[crate::Record],
    release: &str,
    build_time: u64,
    compressor: &dyn super::Compressor,
) -> Result<Vec<u8>, String> {
    use super::SectionKind;
    let data = [SectionKind::Summary, SectionKind::Names];
    let mut built = super::build_kinds(records, release, build_time, compressor, &data)?;
    if let Some(words) = &spec.exact_words {
        built.push_section(SectionKind::ExactWords, &words.encode(), compressor);
    }
    Ok(built.file(&spec.sections()))
}

/// Estimated raw section bytes of each record (names with their per-name
/// overhead, plus the summary row).
fn record_bytes(engine: &Engine) -> Vec<usize> {
    let reg = engine.registry();
    (0..reg.len())
        .map(|r| 24 + reg.names(r).map(|n| n.value.len() + 4).sum::<usize>())
        .collect()
}

/// Cuts the registry into pieces under `budget` (see the module docs).
pub fn partition(engine: &Engine, budget: &PieceBudget) -> Vec<PieceSpec> {
    let ix = engine.index();
    let sizes = record_bytes(engine);
    let mut mark = vec![u32::MAX; engine.registry().len()];
    let mut generation = 0u32;
    let mut out = Vec::new();
    // Depth-first from the first characters of all terms.
    let mut stack: Vec<String> = next_chars(engine, "").into_iter().rev().collect();
    while let Some(p) = stack.pop() {
        generation += 1;
        let mut records = Vec::new();
        let mut bytes = 0usize;
        for t in ix.prefix_range(&p) {
            for &e in ix.postings(t) {
                let r = ix.entry_record(e);
                if mark[r as usize] != generation {
                    mark[r as usize] = generation;
                    records.push(r);
                    bytes += sizes[r as usize];
                }
            }
        }
        let children = next_chars(engine, &p);
        if bytes <= budget.raw_bytes || children.is_empty() {
            records.sort_unstable();
            out.push(PieceSpec {
                key: p,
                kind: PieceKind::Leaf,
                records,
                exact_words: None,
            });
            continue;
        }
        let mut head: Vec<u32> = engine
            .suggest(&p, &crate::search::Filters::default(), budget.head_records)
            .into_iter()
            .map(|s| s.index as u32)
            .collect();
        head.sort_unstable();
        for c in children.into_iter().rev() {
            stack.push(c);
        }
        let exact = ExactWords::of(engine, &p, &head, budget.exact_words_bytes);
        out.push(PieceSpec {
            key: p,
            kind: PieceKind::Head,
            records: head,
            exact_words: Some(exact),
        });
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    // Records are in id order: each id key is one run of them.
    let reg = engine.registry();
    let mut ids: Vec<PieceSpec> = Vec::new();
    for r in 0..reg.len() {
        let key = id_key(reg.id(r));
        match ids.last_mut() {
            Some(last) if last.key == key => last.records.push(r as u32),
            _ => ids.push(PieceSpec {
                key,
                kind: PieceKind::Id,
                records: vec![r as u32],
                exact_words: None,
            }),
        }
    }
    out.extend(ids);
    out
}

/// Characters of the bare id (`0` + base-32 digits) that key an id piece:
/// the leading `0` and two digits, at most 1,024 pieces (real ids cluster:
/// 191 pieces of ~190 records for the 35,990 real records, ≤ 20 KB each).
pub const ID_KEY_CHARS: usize = 3;

/// The key of the id piece holding record `id`.
pub fn id_key(id: crate::RecordId) -> String {
    let url = id.to_string();
    let bare = url.rsplit('/').next().unwrap_or(&url);
    bare.chars().take(ID_KEY_CHARS).collect()
}

/// The prefixes one character longer than `p` that some term starts with.
fn next_chars(engine: &Engine, p: &str) -> Vec<String> {
    let ix = engine.index();
    let mut out: Vec<String> = Vec::new();
    for t in ix.prefix_range(p) {
        let term = ix.term(t);
        if let Some(c) = term[p.len()..].chars().next() {
            let next = &term[..p.len() + c.len_utf8()];
            if out.last().is_none_or(|l| l != next) {
                out.push(next.to_string());
            }
        }
    }
    out
}

/// The directory of a piece set, as a client holds it. Complete (every
/// piece with its record count, [`Directory::of`]) or, as shipped, only the
/// split prefixes, in one part per first character
/// ([`Directory::sharded`] + [`Directory::add_split_keys`]), so that what a
/// client fetches does not grow with the registry: every other prefix on a
/// path is then a leaf whose file may not exist (no record under it).
#[derive(Clone, Debug, Default)]
pub struct Directory {
    entries: Vec<(String, PieceKind, u32)>,
    complete: bool,
    /// First characters that have split prefixes (sorted), and those whose
    /// part is loaded.
    firsts: Vec<String>,
    loaded: Vec<String>,
}

impl Directory {
    /// From (prefix, kind, record count) entries of every piece.
    pub fn new(mut entries: Vec<(String, PieceKind, u32)>) -> Directory {
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries.dedup_by(|a, b| a.0 == b.0);
        Directory {
            entries,
            complete: true,
            ..Directory::default()
        }
    }

    /// From piece specs (complete).
    pub fn of(specs: &[PieceSpec]) -> Directory {
        Directory::new(
            specs
                .iter()
                .filter(|s| s.kind != PieceKind::Id)
                .map(|s| (s.key.clone(), s.kind, s.records.len() as u32))
                .collect(),
        )
    }

    /// From every split prefix at once.
    pub fn from_split_keys(keys: impl IntoIterator<Item = String>) -> Directory {
        let keys: Vec<String> = keys.into_iter().collect();
        let mut d = Directory::sharded(keys.iter().map(|k| first_char(k).to_string()));
        for f in d.firsts.clone() {
            d.add_split_keys(&f, keys.iter().filter(|k| first_char(k) == f).cloned());
        }
        d
    }

    /// A directory whose parts are loaded later: `firsts` are the first
    /// characters that have split prefixes (what the manifest lists).
    pub fn sharded(firsts: impl IntoIterator<Item = String>) -> Directory {
        let mut firsts: Vec<String> = firsts.into_iter().collect();
        firsts.sort();
        firsts.dedup();
        Directory {
            firsts,
            ..Directory::default()
        }
    }

    /// Loads the part of first character `first`: its split prefixes.
    pub fn add_split_keys(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.entries
            .extend(keys.into_iter().map(|k| (k, PieceKind::Head, 0)));
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        self.entries.dedup_by(|a, b| a.0 == b.0);
        if let Err(i) = self.loaded.binary_search_by(|l| l.as_str().cmp(first)) {
            self.loaded.insert(i, first.to_string());
        }
    }

    /// The part a unit starting with `first` needs, if it is not loaded.
    fn missing_part<'a>(&self, first: &'a str) -> Option<&'a str> {
        let listed = self
            .firsts
            .binary_search_by(|f| f.as_str().cmp(first))
            .is_ok();
        let loaded = self
            .loaded
            .binary_search_by(|f| f.as_str().cmp(first))
            .is_ok();
        (!self.complete && listed && !loaded).then_some(first)
    }

    /// The split prefixes.
    pub fn split_keys(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(|e| e.1 == PieceKind::Head)
            .map(|e| e.0.as_str())
    }

    /// A node: kind and record count (`u32::MAX` when unknown).
    fn get(&self, key: &str) -> Option<(PieceKind, u32)> {
        match self.entries.binary_search_by(|e| e.0.as_str().cmp(key)) {
            Ok(i) => Some((self.entries[i].1, self.entries[i].2)),
            Err(_) if !self.complete => Some((PieceKind::Leaf, u32::MAX)),
            Err(_) => None,
        }
    }

    /// Number of pieces listed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when none is listed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The first character of a prefix (what the directory parts are keyed by).
pub fn first_char(s: &str) -> &str {
    s.chars().next().map_or("", |c| &s[..c.len_utf8()])
}

/// Where a query is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// Load the directory part of this first character first.
    Directory(String),
    /// This leaf holds every candidate.
    Leaf(String),
    /// This head holds the answer (unless filters leave fewer than `k`).
    Head(String),
    /// No record can match.
    Empty,
    /// Only the whole typeahead data can answer.
    Whole,
}

/// Which piece answers `text` (see the module docs).
pub fn route(dir: &Directory, text: &str) -> Route {
    if crate::RecordId::parse(text.trim()).is_ok() {
        return Route::Whole;
    }
    route_terms(dir, text)
}

/// [`route`] for text read as words, also when it is an id (of no record).
fn route_terms(dir: &Directory, text: &str) -> Route {
    let text = text.trim();
    if text.is_empty()
        || text.chars().count() > crate::search::MAX_QUERY_CHARS
        || text::looks_like_external_id(text)
    {
        return Route::Whole;
    }
    let toks = text::tokens(text);
    let words = toks.iter().filter(|t| t.kind == TokenKind::Word).count();
    // Units that every match must contain (a subset of suggest's: optional
    // words only when the query is that one word).
    let required = toks.iter().filter(|t| match t.kind {
        TokenKind::Word => words == 1 || !text::is_optional_word(&t.text),
        TokenKind::Bigram => true,
        TokenKind::Unigram => !text::in_bigram(&toks, t),
    });
    let required: Vec<&text::Token> = required.collect();
    if let Some(first) = required
        .iter()
        .find_map(|t| dir.missing_part(first_char(&t.text)))
    {
        return Route::Directory(first.to_string());
    }
    let mut best: Option<(u32, &str)> = None;
    let mut head = None;
    for t in required {
        // The deepest node on the unit's path: through split prefixes to
        // a leaf, or to the unit's own split prefix.
        let mut node = None;
        for (i, _) in t.text.char_indices().skip(1).chain([(t.text.len(), ' ')]) {
            match dir.get(&t.text[..i]) {
                Some(n) => {
                    node = Some((&t.text[..i], n));
                    if n.0 == PieceKind::Leaf {
                        break;
                    }
                }
                None => break,
            }
        }
        match node {
            // The directory never lists id pieces ([`Directory::of`]).
            None | Some((_, (PieceKind::Id, _))) => return Route::Empty,
            Some((key, (PieceKind::Leaf, count))) => {
                // Fewest records; unknown counts: the longest prefix.
                let better = best.is_none_or(|(c, k): (u32, &str)| {
                    count < c || count == c && key.len() > k.len()
                });
                if better {
                    best = Some((count, key));
                }
            }
            Some((key, (PieceKind::Head, _))) => {
                if key.len() < t.text.len() {
                    // Split, and no term continues with the next character.
                    return Route::Empty;
                }
                if toks.len() == 1 {
                    head = Some(key);
                }
            }
        }
    }
    match (best, head) {
        (Some((_, key)), _) => Route::Leaf(key.to_string()),
        (None, Some(key)) => Route::Head(key.to_string()),
        (None, None) => Route::Whole,
    }
}

/// What [`PieceClient::answer`] gives.
#[derive(Debug)]
pub enum Answer {
    /// The suggestions, exactly as the whole registry gives them (their
    /// `index` is the record's index in its piece; use `summary.id`).
    Hits(Vec<crate::search::Suggestion>),
    /// Load this piece (prefix, leaf or head: its file name depends on
    /// it) first ([`PieceClient::add`]), then ask again.
    Need(String, PieceKind),
    /// The first suggestions of the whole registry's answer, proven from a
    /// loaded head of a shorter prefix ([`ExactWords`]), but fewer than
    /// asked for: show them, load this piece, then ask again for the rest.
    Partial(Vec<crate::search::Suggestion>, String, PieceKind),
    /// Load the directory part of this first character first
    /// ([`PieceClient::add_directory`]), then ask again.
    NeedDirectory(String),
    /// Only the whole typeahead data can answer this.
    Whole,
}

/// A typeahead over pieces: the directory and the pieces loaded so far.
/// The host fetches what [`PieceClient::answer`] asks for.
#[derive(Default)]
pub struct PieceClient {
    dir: Directory,
    loaded: std::collections::HashMap<String, Engine>,
    /// For each loaded head with exact words, by prefix: those words and
    /// the ranking key of its last record for its own prefix (what a
    /// longer query's hits must rank above to be proven).
    bounds: std::collections::HashMap<String, (ExactWords, crate::search::suggest::Key)>,
    /// Id pieces by key (their keys could equal a term prefix).
    ids: std::collections::HashMap<String, Engine>,
    /// Whether the build has id pieces (manifest `id_chars`).
    has_ids: bool,
}

impl PieceClient {
    /// A client for a directory, no piece loaded.
    pub fn new(dir: Directory) -> PieceClient {
        PieceClient {
            dir,
            ..PieceClient::default()
        }
    }

    /// Says that the build has id pieces ([`id_key`]); without them, ids
    /// are answered by the whole data.
    pub fn with_id_pieces(mut self) -> PieceClient {
        self.has_ids = true;
        self
    }

    /// Loads the id piece of key `key` from its file bytes.
    pub fn add_id(&mut self, key: &str, bytes: &[u8]) -> Result<(), super::ShardError> {
        let registry = crate::Registry::from_bytes(bytes)?;
        self.ids.insert(key.to_string(), Engine::new(registry));
        Ok(())
    }

    /// Records that the id piece `key` does not exist (no record's id
    /// starts so).
    pub fn add_missing_id(&mut self, key: &str) {
        self.ids
            .insert(key.to_string(), Engine::new(crate::Registry::empty()));
    }

    /// Loads the piece of prefix `key` from its file bytes.
    pub fn add(&mut self, key: &str, bytes: &[u8]) -> Result<(), super::ShardError> {
        let mut file = super::read_file(bytes)?;
        let words = match file
            .sections
            .iter()
            .position(|(k, _)| *k == super::SectionKind::ExactWords)
        {
            Some(i) => Some(ExactWords::decode(&file.sections.swap_remove(i).1)?),
            None => None,
        };
        let engine = Engine::new(crate::Registry::from_read_file(file)?);
        if let Some(words) = words {
            let own = engine.suggest_keyed(
                key,
                &crate::search::Filters::default(),
                engine.registry().len(),
                &SuggestContext::default(),
            );
            if let Some(bound) = own.last().and_then(|(k, _)| *k) {
                self.bounds.insert(key.to_string(), (words, bound));
            }
        }
        self.loaded.insert(key.to_string(), engine);
        Ok(())
    }

    /// Loads the directory part of first character `first` (its split
    /// prefixes).
    pub fn add_directory(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.dir.add_split_keys(first, keys);
    }

    /// Records that the piece of prefix `key` does not exist (its file
    /// was not found: no record has a term under that prefix).
    pub fn add_missing(&mut self, key: &str) {
        let empty = crate::Registry::empty();
        self.loaded.insert(key.to_string(), Engine::new(empty));
    }

    /// Whether the piece of prefix `key` is loaded.
    pub fn has(&self, key: &str) -> bool {
        self.loaded.contains_key(key)
    }

    /// The route of `text` ([`route`]).
    pub fn route(&self, text: &str) -> Route {
        route(&self.dir, text)
    }

    /// Suggestions for `text` under the filter value `filter` (the API's
    /// syntax, v2 keys), at most `k`, in the context `ctx` of the form
    /// ([`Engine::suggest_in`]; what a piece can answer under it: the
    /// module docs).
    pub fn answer(
        &self,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Answer, Vec<String>> {
        // The records of an e-mail domain are found by the `domains`
        // section, which no piece has (decided before any download).
        if ctx.email_domain.as_deref().and_then(domain_of).is_some() {
            return Ok(Answer::Whole);
        }
        // An id: its record is in one id piece (and the whole registry
        // answers it alone, filters aside). An id of no record is text
        // like any other for the whole registry: routed as such below.
        if let Ok(id) = crate::RecordId::parse(text.trim())
            && self.has_ids
        {
            let key = id_key(id);
            let Some(engine) = self.ids.get(&key) else {
                return Ok(Answer::Need(key, PieceKind::Id));
            };
            if engine.registry().index_of(id).is_some() {
                let filters = crate::search::Filters::parse_in_part(
                    filter,
                    crate::search::Version::V2,
                    engine.index(),
                )?;
                return Ok(Answer::Hits(engine.suggest_in(text, &filters, k, ctx)));
            }
            return self.answer_terms(route_terms(&self.dir, text), text, filter, k, ctx);
        }
        self.answer_terms(self.route(text), text, filter, k, ctx)
    }

    fn answer_terms(
        &self,
        route: Route,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Answer, Vec<String>> {
        let (key, head) = match route {
            Route::Empty => return Ok(Answer::Hits(Vec::new())),
            Route::Whole => return Ok(Answer::Whole),
            Route::Directory(first) => return Ok(Answer::NeedDirectory(first)),
            Route::Leaf(key) => (key, false),
            Route::Head(_) if lifts(ctx) => return Ok(Answer::Whole),
            Route::Head(key) => (key, true),
        };
        let Some(engine) = self.loaded.get(&key) else {
            let kind = if head {
                PieceKind::Head
            } else {
                PieceKind::Leaf
            };
            return Ok(match self.proven_by_shorter_head(text, filter, k, ctx)? {
                Some(hits) if hits.len() >= k => Answer::Hits(hits),
                Some(hits) => Answer::Partial(hits, key, kind),
                None => Answer::Need(key, kind),
            });
        };
        let filters = crate::search::Filters::parse_in_part(
            filter,
            crate::search::Version::V2,
            engine.index(),
        )?;
        let hits = engine.suggest_in(text, &filters, k, ctx);
        // A head holds the best records of the unfiltered query: filtered,
        // it is complete only when k of them remain.
        if head && hits.len() < k && filters != crate::search::Filters::default() {
            return Ok(Answer::Whole);
        }
        Ok(Answer::Hits(hits))
    }
}

impl PieceClient {
    /// The first hits of one-word `text` that a loaded head of a shorter
    /// prefix proves ([`ExactWords`]): those ranking above the head's last
    /// record for its own prefix. `None` when no head proves any.
    fn proven_by_shorter_head(
        &self,
        text: &str,
        filter: &str,
        k: usize,
        ctx: &SuggestContext,
    ) -> Result<Option<Vec<crate::search::Suggestion>>, Vec<String>> {
        if lifts(ctx) {
            return Ok(None);
        }
        let toks = text::tokens(text);
        let [tok] = toks.as_slice() else {
            return Ok(None);
        };
        if tok.kind != TokenKind::Word {
            return Ok(None);
        }
        let q = tok.text.as_str();
        // The deepest loaded head first: it bounds the most records.
        for (i, _) in q
            .char_indices()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let p = &q[..i];
            let (Some(engine), Some((words, bound))) = (self.loaded.get(p), self.bounds.get(p))
            else {
                continue;
            };
            if !words.rules_out(q) {
                continue;
            }
            let filters = crate::search::Filters::parse_in_part(
                filter,
                crate::search::Version::V2,
                engine.index(),
            )?;
            let hits: Vec<crate::search::Suggestion> = engine
                .suggest_keyed(text, &filters, k, ctx)
                .into_iter()
                .take_while(|(key, _)| key.is_some_and(|key| key < *bound))
                .map(|(_, h)| h)
                .collect();
            if !hits.is_empty() {
                return Ok(Some(hits));
            }
        }
        Ok(None)
    }
}

/// Whether `ctx` may rank a record above others for something besides the
/// text (a preference, a remembered pick): then a head, which holds the
/// best records of its query without context, may lack one that the whole
/// registry would show. (Blank values prefer nothing; any other value
/// counts, even one the whole registry ignores: a needless `Whole` is
/// slower, never wrong.)
fn lifts(ctx: &SuggestContext) -> bool {
    let any = |v: &[String]| v.iter().any(|s| !s.trim().is_empty());
    any(&ctx.prefer_countries) || any(&ctx.prefer_types) || !ctx.remembered.is_empty()
}

/// The *first-keystroke pack*: the heads and directory parts of the
/// commonest first characters in one file, which a client fetches once
/// the page is idle so that a first keystroke is answered without a round
/// trip. Its size is fixed by the number of characters (a head holds
/// [`PieceBudget::head_records`] records at any registry size).
///
/// Layout (little-endian): `RPK1`, entry count `u32`, then per entry: kind
/// byte (`h` head, `d` directory part), key length `u16`, key (UTF-8),
/// body length `u32`, body (a piece file, or a part's JSON array).
pub mod pack {
    /// A pack's first four bytes.
    pub const MAGIC: &[u8; 4] = b"RPK1";

    /// One file in a pack.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Entry {
        /// `b'h'` (a head piece) or `b'd'` (a directory part).
        pub kind: u8,
        /// The head's prefix or the part's first character.
        pub key: String,
        /// The file's bytes.
        pub body: Vec<u8>,
    }

    /// The pack of `entries`.
    pub fn encode(entries: &[Entry]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend((entries.len() as u32).to_le_bytes());
        for e in entries {
            out.push(e.kind);
            out.extend((e.key.len() as u16).to_le_bytes());
            out.extend(e.key.as_bytes());
            out.extend((e.body.len() as u32).to_le_bytes());
            out.extend(&e.body);
        }
        out
    }

    /// The entries of a pack; `None` when the bytes are not one.
    pub fn decode(bytes: &[u8]) -> Option<Vec<Entry>> {
        let mut rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let mut take = |n: usize| -> Option<&[u8]> {
            let (a, b) = rest.split_at_checked(n)?;
            rest = b;
            Some(a)
        };
        let count = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let mut out = Vec::new();
        for _ in 0..count {
            let kind = take(1)?[0];
            let klen = u16::from_le_bytes(take(2)?.try_into().ok()?) as usize;
            let key = std::str::from_utf8(take(klen)?).ok()?.to_string();
            let blen = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            let body = take(blen)?.to_vec();
            out.push(Entry { kind, key, body });
        }
        rest.is_empty().then_some(out)
    }

    /// The split first characters worth a place in the pack: those that
    /// begin at least `min_share` of the display names (folded), commonest
    /// first.
    pub fn first_characters(
        engine: &crate::search::Engine,
        split_first: &[&str],
        min_share: f64,
    ) -> Vec<String> {
        let reg = engine.registry();
        let mut counts: std::collections::HashMap<&str, usize> = Default::default();
        for r in 0..reg.len() {
            let folded = crate::text::fold(reg.display_name(r));
            let first = super::first_char(folded.trim_start());
            if let Some(&f) = split_first.iter().find(|f| **f == first) {
                *counts.entry(f).or_default() += 1;
            }
        }
        let mut firsts: Vec<(&str, usize)> = counts
            .into_iter()
            .filter(|&(_, n)| n as f64 >= min_share * reg.len() as f64)
            .collect();
        firsts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        firsts.into_iter().map(|(f, _)| f.to_string()).collect()
    }
}
