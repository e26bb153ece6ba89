//! The files an answer asks for, their names in the pieces folder, and
//! how many rank chunks of each kind a build writes (what a reader may ask
//! for).

/// Most rank chunks one answer loads before it leaves the page to the
/// whole registry (each is a leaf's size: ~15–20 KB compressed; twelve,
/// ~250 KB, against the whole registry's 3 MB at 36,000 records and 10 MB
/// at 144,000: `registry bench-pieces` answered 95.5 % / 91.4 % of its
/// requests with twelve, 94.4 % / 89.5 % with six).
pub const MAX_RANK_CHUNKS: u32 = 12;

/// Rank chunks written for a pair of common terms (with its own group
/// file): its group file describes one more, where the unwritten begin.
pub const PAIR_RANK_CHUNKS: usize = 2;

/// Rank chunks written for a triple of common terms held in one name: its
/// group file describes one more, where the unwritten begin. (One: at
/// 144,000 records, of 432 triples' chunks `registry bench-pieces` read,
/// 4 were a second.)
pub const TRIPLE_RANK_CHUNKS: usize = 1;

/// Rank chunks written for a common term over one country's records
/// (version 6: two) or one type's (version 7: six, and six of each
/// country's; since packs, three): its group file describes one more,
/// where the unwritten begin. (A group file read with this count may say
/// more chunks than a reader reads: it reads the first three, and the
/// country's frontier then yields to the term's own; a version-6 one says
/// one more than was written: not listed, so answered as missing without
/// a request.) Three: at 143,960 records the fourth to sixth were 4 % of
/// the reads of such chunks in `registry bench-pieces`, and about a third
/// of their 113 MB.
pub const FACET_RANK_CHUNKS: usize = 3;

/// Rank chunks written for a pair of common terms held one right after
/// the other whose records do not fit a phrase piece (version 7): its
/// group file describes one more, where the unwritten begin.
pub const PHRASE_RANK_CHUNKS: usize = 4;

/// A file the answer needs; the host fetches it and hands it to
/// [`SearchClient::add`](super::SearchClient::add).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Need {
    /// The statistics file (manifest `pieces.search.stats`).
    Stats,
    /// A statistics part (version 8): the common terms of one first
    /// character (a 404: none, or an older build, whose statistics file
    /// lists them all).
    StatsPart(String),
    /// The typeahead directory part of a first character.
    Directory(String),
    /// A typeahead leaf, by prefix.
    Leaf(String),
    /// A typeahead head, by prefix: the search page's reading of one
    /// common word reads its first page there.
    Head(String),
    /// The piece of a split term.
    Term(String),
    /// The member file of a common term.
    Members(String),
    /// The group file of one or two common terms (sorted).
    Groups(Vec<String>),
    /// Rank chunk `n` of a common term.
    Rank(String, u32),
    /// Rank chunk `n` of a pair of common terms (sorted; version 5).
    PairRank(String, String, u32),
    /// Rank chunk `n` of a triple of common terms held in one name (sorted;
    /// a 404: the build wrote none, the triple's records are few or none).
    SetRank(Vec<String>, u32),
    /// Rank chunk `n` of a common term over the records of a country (its
    /// code; version 6).
    CountryRank(String, String, u32),
    /// Rank chunk `n` of a common term over the records of a type (its
    /// name, `education`; version 7).
    TypeRank(String, String, u32),
    /// Rank chunk `n` of the records with a name holding one common term
    /// right before another (version 7; written when they do not fit a
    /// phrase piece).
    PhraseRank(String, String, u32),
    /// The group file of those records (version 7): their counts by
    /// columns and their rank chunks (a 404: a phrase piece holds them,
    /// or an older build).
    PhraseGroups(String, String),
    /// The *phrase piece* of two common terms (version 6): every record
    /// with a name holding the first right before the second, when they
    /// fit a piece (a 404 otherwise).
    Phrase(String, String),
    /// An external id piece, by bucket
    /// ([`crate::shard::search::external_bucket`]; version 6): the whole
    /// records with an external id there (a 404: none).
    External(u32),
    /// A typeahead id piece, by key.
    Id(String),
    /// The extension piece of a split prefix: the records of every other
    /// term that starts with it (a 404: too many to fetch).
    Extension(String),
}

impl Need {
    /// The file's name in the pieces folder (`pieces.path` of the
    /// manifest): what the host fetches. Prefixes and terms are written in
    /// hex (any script, no escaping); a 404 means the file has no records.
    pub fn file_name(&self) -> String {
        let hex = |s: &str| -> String { s.bytes().map(|b| format!("{b:02x}")).collect() };
        match self {
            Need::Stats => "search.stats".to_string(),
            Need::StatsPart(first) => format!("s-{}.shard", hex(first)),
            Need::Directory(first) => format!("d-{}.json", hex(first)),
            Need::Leaf(prefix) => format!("{}.shard", hex(prefix)),
            Need::Head(prefix) => format!("{}.h.shard", hex(prefix)),
            Need::Term(term) => format!("t-{}.shard", hex(term)),
            Need::Members(term) => format!("c-{}.shard", hex(term)),
            Need::Groups(terms) => {
                let terms: Vec<String> = terms.iter().map(|t| hex(t)).collect();
                format!("g-{}.shard", terms.join("-"))
            }
            Need::Rank(term, n) => format!("k-{}-{n}.shard", hex(term)),
            Need::PairRank(a, b, n) => format!("k-{}-{}-{n}.shard", hex(a), hex(b)),
            Need::SetRank(terms, n) => {
                let terms: Vec<String> = terms.iter().map(|t| hex(t)).collect();
                format!("k-{}-{n}.shard", terms.join("-"))
            }
            Need::CountryRank(t, code, n) => format!("kc-{}-{}-{n}.shard", hex(t), hex(code)),
            Need::TypeRank(t, kind, n) => format!("kt-{}-{}-{n}.shard", hex(t), hex(kind)),
            Need::PhraseRank(a, b, n) => format!("pk-{}-{}-{n}.shard", hex(a), hex(b)),
            Need::PhraseGroups(a, b) => format!("pg-{}-{}.shard", hex(a), hex(b)),
            Need::Phrase(a, b) => format!("p-{}-{}.shard", hex(a), hex(b)),
            Need::External(bucket) => format!("e-{bucket:x}.shard"),
            Need::Id(key) => format!("i-{key}.shard"),
            Need::Extension(prefix) => format!("x-{}.shard", hex(prefix)),
        }
    }
}
