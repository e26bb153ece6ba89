//! The file formats of the partitioned typeahead index: what a piece file,
//! a head's `exact_words` section, an id piece's key and the
//! first-keystroke pack are, as bytes. Nothing here knows about queries:
//! how the registry is cut into pieces, which piece answers a query and the
//! client that asks them are [`crate::pieces`], above the search engine.
//!
//! * A **piece** is a complete shard file (this crate's container, format
//!   2) holding the `summary` and `names` sections of a subset of records,
//!   with their real ids, plus a head's [`ExactWords`] section
//!   ([`piece_file`]). Its [`PieceKind`] says which subset: a *leaf* (every
//!   record with a term under a prefix), a *head* (the best records of the
//!   one-word query of a split prefix) or an *id piece* (the records whose
//!   id starts with [`id_key`]).
//! * The **first-keystroke pack** ([`pack`]) is the heads and directory
//!   parts of the commonest first characters in one file.
//!
//! # Quirks
//!
//! * A build before the `exact_words` section rejects a head that has it
//!   (unknown section kind): a client of that build asks the whole data
//!   for such queries instead, which is slower, never wrong.

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
/// of the whole registry ([`crate::pieces::PieceClient::answer`]'s
/// [`crate::pieces::Answer::Partial`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExactWords {
    /// Longest word, in characters, that the list is complete for
    /// (`u32::MAX`: every length).
    pub upto: u32,
    /// The words, sorted.
    pub words: Vec<String>,
}

impl ExactWords {
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

/// Characters of the bare id that key a *record piece*: the leading `0`
/// and three digits. A record page needs one record, so its piece is small:
/// ~12 records for the 35,990 real ids (their first digits cluster), a few
/// kilobytes, where an id piece ([`ID_KEY_CHARS`]) holds ~190 summaries.
pub const RECORD_KEY_CHARS: usize = 4;

/// The key of the record piece holding record `id`.
pub fn record_key(id: crate::RecordId) -> String {
    let url = id.to_string();
    let bare = url.rsplit('/').next().unwrap_or(&url);
    bare.chars().take(RECORD_KEY_CHARS).collect()
}

/// The file of a *record piece*: a complete shard (`summary`, `names` and
/// `records`) of every record whose id starts with one [`record_key`], so
/// that the one router answers `/v2/organizations/<id>` (and v1) from it
/// exactly as from the whole registry: a record's answer depends on that
/// record alone.
pub fn record_piece_file(
    records: &[crate::Record],
    release: &str,
    build_time: u64,
    compressor: &dyn super::Compressor,
) -> Result<Vec<u8>, String> {
    use super::SectionKind;
    let kinds = [
        SectionKind::Summary,
        SectionKind::Names,
        SectionKind::Records,
    ];
    Ok(super::build_kinds(records, release, build_time, compressor, &kinds)?.file(&kinds))
}

/// The first character of a prefix (what the directory parts are keyed by).
pub fn first_char(s: &str) -> &str {
    s.chars().next().map_or("", |c| &s[..c.len_utf8()])
}

/// The *first-keystroke pack*: the heads and directory parts of the
/// commonest first characters in one file, which a client fetches once
/// the page is idle so that a first keystroke is answered without a round
/// trip. Its size is fixed by the number of characters (a head holds
/// [`crate::pieces::PieceBudget::head_records`] records at any registry size).
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
}
