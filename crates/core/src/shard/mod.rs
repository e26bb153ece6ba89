//! The shard: a versioned, checksummed binary container of registry data.
//!
//! # Layout (format versions 1 and 2)
//!
//! ```text
//! magic            8 bytes   89 'O' 'R' 'G' 'R' 'E' 'G' 0A
//! format version   u16 LE
//! header length    u32 LE    (n)
//! header           n bytes   release, build time, record count, build id, section table
//! header CRC-32    u32 LE    over every byte before it
//! sections         stored bytes of each section, in table order
//! ```
//!
//! Each section-table entry holds the section kind, codec (stored or zstd),
//! raw and stored lengths and the CRC-32 of both, so a damaged section is
//! detected before it is decompressed and again after.
//!
//! Sections (see [`SectionKind`]) are independent: a typeahead client needs
//! only [`SectionKind::Summary`] and [`SectionKind::Names`]; full records come
//! from [`SectionKind::Records`] on demand. `registry build` writes one file
//! holding every section and also one file per section (each a complete
//! container with a single section); files of one build share a build id, and
//! loading refuses to mix builds.
//!
//! Format 2 added the record prior at the end of the summary section (one
//! byte per record, [`crate::prior`]), so a typeahead ranks by
//! likelihood, and the [`SectionKind::Domains`] section (the records'
//! domains once more, ~150 KB for 36k records: a typeahead that offers the
//! organisation of an e-mail address loads it instead of the records).
//! Format-1 files still load: every record gets the neutral prior and the
//! domains come from the records section.
//!
//! The magic's first byte is non-ASCII and its last is a newline, so text-mode
//! transfers and "this is actually HTML/JSON" mistakes are caught at once.

mod bytes;
pub mod delta;
pub mod packed;
pub mod pieces;
pub mod search;
pub(crate) mod sections;

pub use sections::TableOrders;

use std::fmt;

use crate::crc32::crc32;
use crate::model::Record;
use bytes::{Reader, Writer};

/// First eight bytes of every shard file.
pub const MAGIC: [u8; 8] = [0x89, b'O', b'R', b'G', b'R', b'E', b'G', b'\n'];
/// The format version this build writes.
pub const FORMAT_VERSION: u16 = 2;
/// The oldest format version this build reads.
pub const OLDEST_READABLE_VERSION: u16 = 1;
/// Largest decompressed section accepted (guards against decompression bombs).
pub const MAX_SECTION_BYTES: u64 = 1 << 31;
/// Largest ratio of decompressed to stored bytes a zstd section may claim.
/// The sections `registry build` writes stay far below it (see
/// [`section_limit`]); a claim above it is refused before anything is
/// allocated, so a few stored bytes cannot make a reader reserve gigabytes.
pub const MAX_ZSTD_RATIO: u64 = 256;
/// A zstd section may claim this many bytes whatever its stored size
/// (tiny, very repetitive sections: a piece's column of equal bytes).
pub const SMALL_SECTION_BYTES: u64 = 64 << 10;
/// Largest zstd window accepted whatever the section's size. Our writer
/// (one-shot compression of a known size) never uses a window larger than
/// the section; the floor covers streaming encoders at any level up to 19.
const MIN_WINDOW_LIMIT: u64 = 8 << 20;

/// The most decompressed bytes a section of `stored_len` stored bytes may
/// claim: its own size when stored, `MAX_ZSTD_RATIO` times it (at least
/// [`SMALL_SECTION_BYTES`], at most [`MAX_SECTION_BYTES`]) when compressed.
pub fn section_limit(codec: Codec, stored_len: u64) -> u64 {
    match codec {
        Codec::Stored => stored_len.min(MAX_SECTION_BYTES),
        Codec::Zstd => stored_len
            .saturating_mul(MAX_ZSTD_RATIO)
            .clamp(SMALL_SECTION_BYTES, MAX_SECTION_BYTES),
    }
}

/// The kinds of section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SectionKind {
    /// Ids, statuses, types, places and successors: what lists, filters,
    /// facets and typeahead rows need besides names.
    Summary,
    /// Every name of every record (the search text).
    Names,
    /// Everything else of the full records.
    Records,
    /// Every record's internet domains again (format 2 on), apart from the
    /// records: what a typeahead needs to offer the organisation of an
    /// e-mail address without downloading the records.
    Domains,
    /// Only in a typeahead *head* piece: the one-word names under its
    /// prefix that records outside the head carry
    /// ([`pieces::ExactWords`]), so a client can prove a longer query's
    /// answer from the head. Not derived from records, not in
    /// [`SectionKind::ALL`]; a build before it rejects such a piece (a
    /// client then asks the whole data).
    ExactWords,
    /// Only in E2's statistics file ([`search::SearchStats`]): the whole
    /// registry's BM25 statistics, country table and common terms.
    SearchStats,
    /// Only in a common term's member file ([`search::TermMembers`]).
    TermMembers,
    /// Only in a group file of one or two common terms
    /// ([`search::TermGroups`], pieces version 4).
    TermGroups,
    /// Only in a statistics part: the common terms of one first character
    /// ([`search::encode_terms`], pieces version 8).
    SearchTerms,
}

impl SectionKind {
    /// All kinds of record data, in file order.
    pub const ALL: [SectionKind; 4] = [
        SectionKind::Summary,
        SectionKind::Names,
        SectionKind::Records,
        SectionKind::Domains,
    ];

    fn code(self) -> u8 {
        match self {
            SectionKind::Summary => 1,
            SectionKind::Names => 2,
            SectionKind::Records => 3,
            SectionKind::Domains => 4,
            SectionKind::ExactWords => 5,
            SectionKind::SearchStats => 6,
            SectionKind::TermMembers => 7,
            SectionKind::TermGroups => 8,
            SectionKind::SearchTerms => 9,
        }
    }

    fn from_code(c: u8) -> Option<SectionKind> {
        SectionKind::ALL
            .into_iter()
            .chain([
                SectionKind::ExactWords,
                SectionKind::SearchStats,
                SectionKind::TermMembers,
                SectionKind::TermGroups,
                SectionKind::SearchTerms,
            ])
            .find(|k| k.code() == c)
    }

    /// Lowercase name, used in file names and messages.
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::Summary => "summary",
            SectionKind::Names => "names",
            SectionKind::Records => "records",
            SectionKind::Domains => "domains",
            SectionKind::ExactWords => "exact_words",
            SectionKind::SearchStats => "search_stats",
            SectionKind::TermMembers => "term_members",
            SectionKind::TermGroups => "term_groups",
            SectionKind::SearchTerms => "search_terms",
        }
    }
}

impl fmt::Display for SectionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a section's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Not compressed.
    Stored,
    /// Zstandard.
    Zstd,
}

impl Codec {
    fn code(self) -> u8 {
        match self {
            Codec::Stored => 0,
            Codec::Zstd => 1,
        }
    }

    fn from_code(c: u8) -> Option<Codec> {
        [Codec::Stored, Codec::Zstd]
            .into_iter()
            .find(|k| k.code() == c)
    }
}

/// Compresses section bytes when a shard is built. The core decodes every
/// codec but encodes none (encoders are native code; see the CLI).
pub trait Compressor {
    /// The codec this compressor produces.
    fn codec(&self) -> Codec;
    /// Compresses one section.
    fn compress(&self, raw: &[u8]) -> Vec<u8>;
}

/// No compression.
pub struct Stored;

impl Compressor for Stored {
    fn codec(&self) -> Codec {
        Codec::Stored
    }
    fn compress(&self, raw: &[u8]) -> Vec<u8> {
        raw.to_vec()
    }
}

/// Why shard bytes cannot be used. Every variant says what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// The bytes do not start with the shard magic.
    NotAShard {
        /// What the file looks like instead, when recognisable.
        looks_like: Option<&'static str>,
    },
    /// The format version is not one this build reads.
    UnsupportedVersion {
        /// Version in the file.
        found: u16,
        /// Oldest version this build reads.
        oldest: u16,
        /// Newest version this build reads.
        newest: u16,
    },
    /// The file ends early.
    Truncated {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// Extra bytes after the last section.
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The header checksum does not match.
    HeaderChecksum {
        /// Stored CRC-32.
        expected: u32,
        /// Computed CRC-32.
        found: u32,
    },
    /// A section's checksum does not match.
    SectionChecksum {
        /// The damaged section.
        section: SectionKind,
        /// Stored CRC-32.
        expected: u32,
        /// Computed CRC-32.
        found: u32,
    },
    /// A section cannot be decompressed.
    Decompress {
        /// The section.
        section: SectionKind,
        /// The decoder's message.
        reason: String,
    },
    /// Structurally invalid content (a bug in the writer, or crafted input).
    Malformed {
        /// The section.
        section: SectionKind,
        /// Byte offset inside the decompressed section.
        offset: usize,
        /// What was wrong there.
        what: String,
    },
    /// Files from different builds were combined.
    MixedBuilds {
        /// Build id and release of the first file.
        first: String,
        /// Build id and release of the other file.
        other: String,
    },
    /// A section needed for the operation is not loaded.
    MissingSection {
        /// The section.
        section: SectionKind,
    },
    /// The same section was given twice.
    DuplicateSection {
        /// The section.
        section: SectionKind,
    },
    /// The header itself is inconsistent.
    BadHeader {
        /// What was wrong.
        what: String,
    },
    /// A section claims more decompressed bytes than its stored bytes can
    /// hold ([`section_limit`]): crafted or corrupted, refused before
    /// anything is allocated for it.
    Oversized {
        /// The section.
        section: SectionKind,
        /// Decompressed bytes the header claims.
        claimed: u64,
        /// Stored bytes.
        stored: u64,
        /// The most this section may claim.
        limit: u64,
    },
}

const REBUILD: &str = "rebuild it with `registry build`, or download it again";

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::NotAShard { looks_like } => {
                write!(f, "not a registry shard (wrong magic bytes")?;
                if let Some(kind) = looks_like {
                    write!(f, "; it looks like {kind}")?;
                }
                write!(
                    f,
                    "): build a shard from a dump with `registry build <dump> -o <dir>`"
                )
            }
            ShardError::UnsupportedVersion {
                found,
                oldest,
                newest,
            } if found > newest => write!(
                f,
                "shard format version {found} is newer than this build reads ({oldest}–{newest}): update the app or the `registry` tool, or build the shard with this version"
            ),
            ShardError::UnsupportedVersion {
                found,
                oldest,
                newest,
            } => write!(
                f,
                "shard format version {found} is older than this build reads ({oldest}–{newest}): rebuild the shard from the dump with this version's `registry build`"
            ),
            ShardError::Truncated { expected, found } => {
                write!(
                    f,
                    "shard is truncated: {found} of {expected} bytes present; {REBUILD}"
                )
            }
            ShardError::TrailingBytes { extra } => {
                write!(
                    f,
                    "shard has {extra} unexpected bytes after its last section; {REBUILD}"
                )
            }
            ShardError::HeaderChecksum { expected, found } => write!(
                f,
                "shard header is corrupted (CRC-32 {found:08x}, expected {expected:08x}); {REBUILD}"
            ),
            ShardError::SectionChecksum {
                section,
                expected,
                found,
            } => write!(
                f,
                "shard section '{section}' is corrupted (CRC-32 {found:08x}, expected {expected:08x}); {REBUILD}"
            ),
            ShardError::Decompress { section, reason } => {
                write!(
                    f,
                    "shard section '{section}' cannot be decompressed ({reason}); {REBUILD}"
                )
            }
            ShardError::Malformed {
                section,
                offset,
                what,
            } => write!(
                f,
                "shard section '{section}' is malformed at byte {offset}: {what}; {REBUILD}"
            ),
            ShardError::MixedBuilds { first, other } => write!(
                f,
                "shard files come from different builds ({first} vs {other}): use the files listed in one manifest.json"
            ),
            ShardError::MissingSection { section } => write!(
                f,
                "the '{section}' section is not loaded: load the full shard or the '{section}' file from the manifest"
            ),
            ShardError::DuplicateSection { section } => {
                write!(f, "the '{section}' section was given twice")
            }
            ShardError::BadHeader { what } => {
                write!(f, "shard header is invalid: {what}; {REBUILD}")
            }
            ShardError::Oversized {
                section,
                claimed,
                stored,
                limit,
            } => write!(
                f,
                "shard section '{section}' claims {claimed} bytes from {stored} stored bytes (at most {limit} are possible): the file is damaged or crafted; {REBUILD}"
            ),
        }
    }
}

impl std::error::Error for ShardError {}

/// Facts stored in every shard header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    /// Format version of the file.
    pub format_version: u16,
    /// Name of the data release (e.g. `v1.58-2025-01-01` or `demo`).
    pub release: String,
    /// Build time, seconds since the Unix epoch.
    pub build_time: u64,
    /// Number of records.
    pub record_count: u32,
    /// Identifies one build; every file of it carries the same value.
    pub build_id: u64,
}

/// One section's entry in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionEntry {
    /// Kind.
    pub kind: SectionKind,
    /// Codec.
    pub codec: Codec,
    /// Decompressed length.
    pub raw_len: u64,
    /// Stored (compressed) length.
    pub stored_len: u64,
    /// CRC-32 of the stored bytes.
    pub stored_crc: u32,
    /// CRC-32 of the decompressed bytes.
    pub raw_crc: u32,
}

/// A built section: raw and stored bytes.
#[derive(Clone, Debug)]
pub struct BuiltSection {
    /// Header entry.
    pub entry: SectionEntry,
    /// Stored bytes.
    pub stored: Vec<u8>,
}

impl BuiltSection {
    /// Section `kind` of `raw` bytes, compressed, with its header entry.
    fn compress(kind: SectionKind, raw: &[u8], compressor: &dyn Compressor) -> BuiltSection {
        let stored = compressor.compress(raw);
        let entry = SectionEntry {
            kind,
            codec: compressor.codec(),
            raw_len: raw.len() as u64,
            stored_len: stored.len() as u64,
            stored_crc: crc32(&stored),
            raw_crc: crc32(raw),
        };
        BuiltSection { entry, stored }
    }
}

/// The product of [`build`]: header facts and every section.
#[derive(Clone, Debug)]
pub struct BuiltShard {
    /// Header facts.
    pub info: ShardInfo,
    /// Sections in file order.
    pub sections: Vec<BuiltSection>,
}

impl BuiltShard {
    /// One file holding the given sections (all of them for the full shard).
    pub fn file(&self, kinds: &[SectionKind]) -> Vec<u8> {
        let chosen: Vec<&BuiltSection> = self
            .sections
            .iter()
            .filter(|s| kinds.contains(&s.entry.kind))
            .collect();
        let mut h = Writer::default();
        h.str(&self.info.release);
        h.varint(self.info.build_time);
        h.varint(self.info.record_count as u64);
        h.buf.extend_from_slice(&self.info.build_id.to_le_bytes());
        h.usize(chosen.len());
        for s in &chosen {
            let e = &s.entry;
            h.u8(e.kind.code());
            h.u8(e.codec.code());
            h.varint(e.raw_len);
            h.varint(e.stored_len);
            h.u32_le(e.stored_crc);
            h.u32_le(e.raw_crc);
        }
        let mut out = Vec::with_capacity(
            h.buf.len() + chosen.iter().map(|s| s.stored.len()).sum::<usize>() + 18,
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.info.format_version.to_le_bytes());
        out.extend_from_slice(&(h.buf.len() as u32).to_le_bytes());
        out.extend_from_slice(&h.buf);
        out.extend_from_slice(&crc32(&out).to_le_bytes());
        for s in chosen {
            out.extend_from_slice(&s.stored);
        }
        out
    }

    /// Adds a section of bytes made by other means than from records (a
    /// head piece's [`SectionKind::ExactWords`]), after the others.
    pub fn push_section(&mut self, kind: SectionKind, raw: &[u8], compressor: &dyn Compressor) {
        self.sections.retain(|s| s.entry.kind != kind);
        self.sections
            .push(BuiltSection::compress(kind, raw, compressor));
    }

    /// The file with every section.
    pub fn full_file(&self) -> Vec<u8> {
        self.file(&SectionKind::ALL)
    }
}

/// Builds a shard from imported records (any order; the shard sorts by id).
pub fn build(
    records: &[Record],
    release: &str,
    build_time: u64,
    compressor: &dyn Compressor,
) -> Result<BuiltShard, String> {
    build_kinds(records, release, build_time, compressor, &SectionKind::ALL)
}

/// [`build`] with only the sections of the given kinds.
pub fn build_kinds(
    records: &[Record],
    release: &str,
    build_time: u64,
    compressor: &dyn Compressor,
    kinds: &[SectionKind],
) -> Result<BuiltShard, String> {
    let orders = TableOrders::default();
    build_after(records, release, build_time, compressor, kinds, &orders)
}

/// [`build_kinds`] keeping the string tables' order of the last release
/// ([`TableOrders`]), so a delta from it to this one is small.
pub fn build_after(
    records: &[Record],
    release: &str,
    build_time: u64,
    compressor: &dyn Compressor,
    kinds: &[SectionKind],
    orders: &TableOrders,
) -> Result<BuiltShard, String> {
    let raw = sections::encode_kinds(records, kinds, orders)?;
    let mut build_id_input = Vec::new();
    let mut built = Vec::new();
    for (kind, bytes) in raw {
        let section = BuiltSection::compress(kind, &bytes, compressor);
        build_id_input.extend_from_slice(&section.entry.raw_crc.to_le_bytes());
        built.push(section);
    }
    build_id_input.extend_from_slice(release.as_bytes());
    build_id_input.extend_from_slice(&build_time.to_le_bytes());
    let build_id = (crc32(&build_id_input) as u64) << 32 | crc32(&build_id_input[4..]) as u64;
    let info = ShardInfo {
        format_version: FORMAT_VERSION,
        release: release.to_string(),
        build_time,
        record_count: records.len() as u32,
        build_id,
    };
    Ok(BuiltShard {
        info,
        sections: built,
    })
}

/// Re-reads a verified file as a [`BuiltShard`], keeping the stored
/// (compressed) bytes, so its sections can be written as separate files
/// without recompressing.
pub fn reopen(bytes: &[u8]) -> Result<BuiltShard, ShardError> {
    read_file(bytes)?;
    let (info, entries, mut pos) = read_header(bytes)?;
    let mut sections = Vec::with_capacity(entries.len());
    for entry in entries {
        let stored = bytes[pos..pos + entry.stored_len as usize].to_vec();
        pos += entry.stored_len as usize;
        sections.push(BuiltSection { entry, stored });
    }
    Ok(BuiltShard { info, sections })
}

/// A parsed, verified file: header facts and decompressed sections.
#[derive(Debug)]
pub struct ShardFile {
    /// Header facts.
    pub info: ShardInfo,
    /// Section table.
    pub entries: Vec<SectionEntry>,
    /// Decompressed sections in table order.
    pub sections: Vec<(SectionKind, Vec<u8>)>,
}

fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let text = bytes
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .copied()
        .next();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        Some("a gzip file (a dump?)")
    } else if bytes.starts_with(b"PK") {
        Some("a zip file (a release archive?)")
    } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some("a bare zstd stream")
    } else if text == Some(b'<') {
        Some("HTML or XML (an error page from the server?)")
    } else if matches!(text, Some(b'[') | Some(b'{')) {
        Some("JSON (a dump or manifest?)")
    } else {
        None
    }
}

/// Reads only the header: cheap, for `info`-style questions.
pub fn read_header(bytes: &[u8]) -> Result<(ShardInfo, Vec<SectionEntry>, usize), ShardError> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        if bytes.len() < 8 && MAGIC.starts_with(bytes) && !bytes.is_empty() {
            return Err(ShardError::Truncated {
                expected: 18,
                found: bytes.len() as u64,
            });
        }
        return Err(ShardError::NotAShard {
            looks_like: sniff(bytes),
        });
    }
    if bytes.len() < 14 {
        return Err(ShardError::Truncated {
            expected: 18,
            found: bytes.len() as u64,
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(ShardError::UnsupportedVersion {
            found: version,
            oldest: OLDEST_READABLE_VERSION,
            newest: FORMAT_VERSION,
        });
    }
    let header_len = u32::from_le_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]) as u64;
    let header_end = 14 + header_len;
    if (bytes.len() as u64) < header_end + 4 {
        return Err(ShardError::Truncated {
            expected: header_end + 4,
            found: bytes.len() as u64,
        });
    }
    let header_end = header_end as usize;
    let expected = u32::from_le_bytes(
        bytes[header_end..header_end + 4]
            .try_into()
            .unwrap_or_default(),
    );
    let found = crc32(&bytes[..header_end]);
    if expected != found {
        return Err(ShardError::HeaderChecksum { expected, found });
    }
    let bad = |e: ShardError| ShardError::BadHeader {
        what: e.to_string(),
    };
    let mut r = Reader::new(&bytes[14..header_end], SectionKind::Summary);
    let release = r.str().map_err(bad)?.to_string();
    let build_time = r.varint().map_err(bad)?;
    let record_count = r
        .usize_max(u32::MAX as usize, "record count")
        .map_err(bad)? as u32;
    let build_id = u64::from_le_bytes(r.bytes(8).map_err(bad)?.try_into().unwrap_or_default());
    let n = r.count("section count").map_err(bad)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let kind_code = r.u8().map_err(bad)?;
        let code = r.u8().map_err(bad)?;
        let codec = Codec::from_code(code).ok_or_else(|| ShardError::BadHeader {
            what: format!("unknown codec {code}"),
        })?;
        let raw_len = r.varint().map_err(bad)?;
        let stored_len = r.varint().map_err(bad)?;
        let stored_crc = r.u32_le().map_err(bad)?;
        let raw_crc = r.u32_le().map_err(bad)?;
        // A kind this build does not know means a newer writer: say so.
        let kind = SectionKind::from_code(kind_code).ok_or_else(|| ShardError::BadHeader {
            what: format!(
                "unknown section kind {kind_code} (written by a newer build? update the app)"
            ),
        })?;
        if entries.iter().any(|e: &SectionEntry| e.kind == kind) {
            return Err(ShardError::DuplicateSection { section: kind });
        }
        // No section is longer than the file: this keeps every sum and
        // offset below in range (a claim of 2^64 bytes would wrap).
        if stored_len > bytes.len() as u64 {
            return Err(ShardError::Truncated {
                expected: (header_end as u64 + 4).saturating_add(stored_len),
                found: bytes.len() as u64,
            });
        }
        if codec == Codec::Stored && raw_len != stored_len {
            return Err(ShardError::BadHeader {
                what: format!(
                    "uncompressed section '{kind}' of {stored_len} bytes says it holds {raw_len}"
                ),
            });
        }
        let limit = section_limit(codec, stored_len);
        if raw_len > limit {
            return Err(ShardError::Oversized {
                section: kind,
                claimed: raw_len,
                stored: stored_len,
                limit,
            });
        }
        entries.push(SectionEntry {
            kind,
            codec,
            raw_len,
            stored_len,
            stored_crc,
            raw_crc,
        });
    }
    if !r.at_end() {
        return Err(ShardError::BadHeader {
            what: "unexpected bytes after the section table".into(),
        });
    }
    let info = ShardInfo {
        format_version: version,
        release,
        build_time,
        record_count,
        build_id,
    };
    Ok((info, entries, header_end + 4))
}

/// Parses and verifies a file: header, checksums, decompression.
pub fn read_file(bytes: &[u8]) -> Result<ShardFile, ShardError> {
    FileReader::new(bytes)?.finish()
}

/// The file holds exactly the header and the sections its table lists.
fn check_length(
    bytes: &[u8],
    entries: &[SectionEntry],
    header_end: usize,
) -> Result<(), ShardError> {
    // Each length is at most the file's (read_header), so this cannot wrap.
    let total: u64 = header_end as u64 + entries.iter().map(|e| e.stored_len).sum::<u64>();
    if (bytes.len() as u64) < total {
        return Err(ShardError::Truncated {
            expected: total,
            found: bytes.len() as u64,
        });
    }
    if bytes.len() as u64 > total {
        return Err(ShardError::TrailingBytes {
            extra: bytes.len() as u64 - total,
        });
    }
    Ok(())
}

fn check_crc(e: &SectionEntry, data: &[u8], expected: u32) -> Result<(), ShardError> {
    let found = crc32(data);
    if found != expected {
        return Err(ShardError::SectionChecksum {
            section: e.kind,
            expected,
            found,
        });
    }
    Ok(())
}

fn check_stored(e: &SectionEntry, stored: &[u8]) -> Result<(), ShardError> {
    check_crc(e, stored, e.stored_crc)
}

fn check_raw(e: &SectionEntry, raw: &[u8]) -> Result<(), ShardError> {
    check_crc(e, raw, e.raw_crc)
}

/// [`read_file`] a piece at a time, for hosts that spread the work out (a
/// page's main thread): each [`FileReader::step`] decompresses about a
/// given number of bytes. [`read_file`] is this reader run to the end, so
/// the two cannot disagree.
pub struct FileReader<B = Vec<u8>> {
    bytes: B,
    info: ShardInfo,
    entries: Vec<SectionEntry>,
    /// The section being read, and where its stored bytes start.
    at: usize,
    pos: usize,
    /// A zstd section under way: decoder, bytes of input used, output.
    zstd: Option<(ruzstd::decoding::FrameDecoder, usize, Vec<u8>)>,
    sections: Vec<(SectionKind, Vec<u8>)>,
}

/// Most bytes one [`FileReader::step`] decompresses before it checks them
/// against the section's stated size: a stream that lies about its size
/// holds at most this much more before it is refused.
const STEP_BYTES: usize = 1 << 20;

impl<B: AsRef<[u8]>> FileReader<B> {
    /// Reads and checks the header and the file's length.
    pub fn new(bytes: B) -> Result<FileReader<B>, ShardError> {
        let (info, entries, pos) = read_header(bytes.as_ref())?;
        check_length(bytes.as_ref(), &entries, pos)?;
        Ok(FileReader {
            bytes,
            info,
            entries,
            at: 0,
            pos,
            zstd: None,
            sections: Vec::new(),
        })
    }

    /// Reads on, about `budget` decompressed bytes (at least one zstd
    /// block, at most about a MiB, or one whole stored section); true when
    /// every section is read.
    pub fn step(&mut self, budget: usize) -> Result<bool, ShardError> {
        let Some(e) = self.entries.get(self.at).copied() else {
            return Ok(true);
        };
        let stored = &self.bytes.as_ref()[self.pos..self.pos + e.stored_len as usize];
        let fail = |reason: &str| ShardError::Decompress {
            section: e.kind,
            reason: reason.into(),
        };
        let state = match self.zstd.take() {
            Some(state) => state,
            None => {
                check_stored(&e, stored)?;
                match e.codec {
                    Codec::Stored => return self.section_done(e, stored.to_vec()),
                    Codec::Zstd => {
                        // ruzstd's errors are not formatted: the section's
                        // CRC matched, so only a faulty writer gets here,
                        // and their message tables cost the wasm ~10 KB.
                        let mut input = stored;
                        let mut decoder = zstd_decoder(e.raw_len);
                        decoder
                            .init(&mut input)
                            .map_err(|_| fail("not a valid zstd frame"))?;
                        let used = stored.len() - input.len();
                        // At most `section_limit` of the stored bytes.
                        (decoder, used, Vec::with_capacity(e.raw_len as usize))
                    }
                }
            }
        };
        let (mut decoder, used, mut out) = state;
        let mut input = &stored[used..];
        let finished = decoder
            .decode_blocks(
                &mut input,
                ruzstd::decoding::BlockDecodingStrategy::UptoBytes(budget.clamp(1, STEP_BYTES)),
            )
            .map_err(|_| fail("not a valid zstd stream"))?;
        let used = stored.len() - input.len();
        decoder
            .collect_to_writer(&mut out)
            .map_err(|_| fail("not a valid zstd stream"))?;
        if out.len() as u64 > e.raw_len {
            return Err(fail("more bytes than the header says"));
        }
        if !finished {
            self.zstd = Some((decoder, used, out));
            return Ok(false);
        }
        if used != stored.len() {
            return Err(fail("bytes after the zstd frame"));
        }
        if out.len() as u64 != e.raw_len {
            return Err(fail("fewer bytes than the header says"));
        }
        self.section_done(e, out)
    }

    fn section_done(&mut self, e: SectionEntry, raw: Vec<u8>) -> Result<bool, ShardError> {
        check_raw(&e, &raw)?;
        self.sections.push((e.kind, raw));
        self.pos += e.stored_len as usize;
        self.at += 1;
        Ok(self.at == self.entries.len())
    }

    /// Reads what is left.
    pub fn finish(mut self) -> Result<ShardFile, ShardError> {
        while !self.step(STEP_BYTES)? {}
        Ok(ShardFile {
            info: self.info,
            entries: self.entries,
            sections: self.sections,
        })
    }
}

/// A zstd decoder for a stream of `raw_len` bytes (a section, a delta's
/// ops). A frame header names its window size and the decoder reserves that
/// much at once, so the window may be no larger than the stream needs (a
/// 20-byte frame could otherwise reserve 128 MiB).
pub(crate) fn zstd_decoder(raw_len: u64) -> ruzstd::decoding::FrameDecoder {
    let mut decoder = ruzstd::decoding::FrameDecoder::new();
    decoder.set_max_window_size(raw_len.next_power_of_two().max(MIN_WINDOW_LIMIT));
    decoder
}
