//! Deltas: the bytes that turn one release's file into the next one's.
//!
//! A returning user holds the last release's offline copy (the summary,
//! names and records files, ~10 MB at the real size). A release changes ~3 %
//! of the records, and the sections are columns of per-record values, so
//! the next release's file is mostly the old one's bytes, moved. A delta
//! lists those moves and the few new bytes: ~0.5–1 MB instead of the files.
//!
//! # What a delta is applied to: the stored image
//!
//! The files on the host are zstd-compressed, and zstd's output cannot be
//! reproduced in the browser (the build uses the C library at level 16–19;
//! the browser has a decoder only), while one changed record changes every
//! compressed byte after it. So a delta goes from one *stored image* to the
//! next: the same file with every section stored uncompressed
//! ([`stored_image`]; a valid shard file, which loads as the compressed one
//! does, and faster). The manifest names each file's image by its SHA-256,
//! so the result of a delta is checked against the new release byte for
//! byte, as a download is.
//!
//! # Layout (delta format version 1)
//!
//! ```text
//! magic            8 bytes   89 'O' 'R' 'G' 'D' 'E' 'L' 0A
//! version          u16 LE
//! header length    u32 LE    (n)
//! header           n bytes   source length, source CRC-32, target length,
//!                            target CRC-32, ops codec, ops raw and stored lengths
//! header CRC-32    u32 LE    over every byte before it
//! ops              stored bytes (zstd or stored)
//! ```
//!
//! The ops are a sequence of steps, each: a literal length and that many
//! new bytes, then a copy length and, when it is not zero, where the copy
//! starts in the source, as the signed distance from where the last copy
//! ended (most copies continue the last one, so most distances are 0).
//!
//! # Quirks
//!
//! * The diff finds moved runs of at least [`BLOCK`] bytes (Bentley and
//!   McIlroy's block fingerprints); a change inside a run of repeated
//!   blocks may pick an equivalent earlier copy. The result is still exact:
//!   only its size depends on the choice.
//! * The source is checked by length and CRC-32 before anything is copied,
//!   the target by length and CRC-32 after: a delta for another file is
//!   refused, never applied. The caller checks the SHA-256 it trusts.

use std::collections::HashMap;
use std::fmt;

use super::bytes::Writer;
use super::{Codec, Compressor, ShardError, read_file};
use crate::crc32::crc32;

/// First eight bytes of every delta file.
pub const DELTA_MAGIC: [u8; 8] = [0x89, b'O', b'R', b'G', b'D', b'E', b'L', b'\n'];
/// The delta format version this build writes and reads.
pub const DELTA_VERSION: u16 = 1;
/// Shortest run of bytes the diff looks for in the source.
pub const BLOCK: usize = 16;
/// Largest ratio of op bytes to stored bytes a zstd delta may claim (as
/// for shard sections: refused before anything is allocated).
const MAX_OPS_RATIO: u64 = 256;
/// Largest target a delta may build whatever the caller allows.
pub const MAX_TARGET_BYTES: u64 = 1 << 31;

/// Why a delta cannot be applied. Every variant says what to do about it:
/// the remedy is always the full file, which a delta only saves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeltaError {
    /// The bytes are not a delta (another file, an error page).
    NotADelta,
    /// A delta format this build does not read.
    UnsupportedVersion {
        /// Version in the file.
        found: u16,
    },
    /// The delta ends early or its header is damaged.
    Damaged {
        /// What is wrong.
        what: String,
    },
    /// The delta was made from another file than the one given.
    WrongSource {
        /// Length and CRC-32 the delta was made from.
        expected: (u64, u32),
        /// Length and CRC-32 of the file given.
        found: (u64, u32),
    },
    /// The delta claims a larger result than the caller allows.
    TooLarge {
        /// Bytes claimed.
        claimed: u64,
        /// Bytes allowed.
        limit: u64,
    },
    /// The result does not have the length and CRC-32 the delta promises.
    WrongTarget,
}

impl fmt::Display for DeltaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const FULL: &str = "download the full file instead";
        match self {
            DeltaError::NotADelta => write!(f, "not a registry delta; {FULL}"),
            DeltaError::UnsupportedVersion { found } => write!(
                f,
                "delta format version {found}, this build reads {DELTA_VERSION}; {FULL}"
            ),
            DeltaError::Damaged { what } => write!(f, "the delta is damaged ({what}); {FULL}"),
            DeltaError::WrongSource { expected, found } => write!(
                f,
                "the delta was made from a file of {} bytes (CRC-32 {:08x}), not this one of {} bytes (CRC-32 {:08x}); {FULL}",
                expected.0, expected.1, found.0, found.1
            ),
            DeltaError::TooLarge { claimed, limit } => write!(
                f,
                "the delta claims a {claimed}-byte result, more than the {limit} bytes expected; {FULL}"
            ),
            DeltaError::WrongTarget => write!(
                f,
                "the delta's result does not match the length and checksum it promises; {FULL}"
            ),
        }
    }
}

impl std::error::Error for DeltaError {}

/// The same shard file with every section stored uncompressed: what
/// deltas go from and to. An image's image is itself.
pub fn stored_image(file: &[u8]) -> Result<Vec<u8>, ShardError> {
    let parsed = read_file(file)?;
    let sections = parsed
        .sections
        .iter()
        .map(|(kind, raw)| super::BuiltSection::compress(*kind, raw, &super::Stored))
        .collect();
    let kinds: Vec<_> = parsed.sections.iter().map(|(k, _)| *k).collect();
    let built = super::BuiltShard {
        info: parsed.info,
        sections,
    };
    Ok(built.file(&kinds))
}

/// The delta file that turns `source` into `target`, its ops compressed by
/// `compressor`.
pub fn write(source: &[u8], target: &[u8], compressor: &dyn Compressor) -> Vec<u8> {
    let ops = diff(source, target);
    let stored = compressor.compress(&ops);
    let mut w = Writer::default();
    w.varint(source.len() as u64);
    w.u32_le(crc32(source));
    w.varint(target.len() as u64);
    w.u32_le(crc32(target));
    w.u8(compressor.codec().code());
    w.varint(ops.len() as u64);
    w.varint(stored.len() as u64);
    let h = w.buf;
    let mut out = Vec::with_capacity(18 + h.len() + stored.len());
    out.extend_from_slice(&DELTA_MAGIC);
    out.extend_from_slice(&DELTA_VERSION.to_le_bytes());
    out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(&crc32(&out).to_le_bytes());
    out.extend_from_slice(&stored);
    out
}

/// What a delta's header states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeltaHeader {
    /// Length of the file it was made from.
    pub source_len: u64,
    /// CRC-32 of that file.
    pub source_crc: u32,
    /// Length of the file it makes.
    pub target_len: u64,
    /// CRC-32 of that file.
    pub target_crc: u32,
    codec: Codec,
    ops_len: u64,
    /// Where the ops start in the delta.
    ops_at: usize,
}

/// Reads and checks a delta's header.
pub fn read_header(delta: &[u8]) -> Result<DeltaHeader, DeltaError> {
    if delta.len() < 8 || delta[..8] != DELTA_MAGIC {
        return Err(DeltaError::NotADelta);
    }
    let damaged = |what: &str| DeltaError::Damaged { what: what.into() };
    let fixed = delta
        .get(8..14)
        .ok_or_else(|| damaged("truncated header"))?;
    let version = u16::from_le_bytes([fixed[0], fixed[1]]);
    if version != DELTA_VERSION {
        return Err(DeltaError::UnsupportedVersion { found: version });
    }
    let n = u32::from_le_bytes([fixed[2], fixed[3], fixed[4], fixed[5]]) as usize;
    let end = 14usize.checked_add(n).filter(|e| e + 4 <= delta.len());
    let end = end.ok_or_else(|| damaged("truncated header"))?;
    let stated = u32::from_le_bytes(delta[end..end + 4].try_into().unwrap_or_default());
    if crc32(&delta[..end]) != stated {
        return Err(damaged("header checksum mismatch"));
    }
    let mut r = Ops::new(&delta[14..end]);
    let source_len = r.varint()?;
    let source_crc = r.u32_le()?;
    let target_len = r.varint()?;
    let target_crc = r.u32_le()?;
    let codec = Codec::from_code(r.byte()?).ok_or_else(|| damaged("unknown ops codec"))?;
    let ops_len = r.varint()?;
    let stored_len = r.varint()?;
    let ops_at = end + 4;
    if (delta.len() - ops_at) as u64 != stored_len {
        return Err(damaged("ops length differs from the header's"));
    }
    let ops_limit = match codec {
        Codec::Stored => stored_len,
        Codec::Zstd => stored_len.saturating_mul(MAX_OPS_RATIO).max(64 << 10),
    };
    if ops_len > ops_limit {
        return Err(damaged(
            "ops claim more bytes than their stored size allows",
        ));
    }
    Ok(DeltaHeader {
        source_len,
        source_crc,
        target_len,
        target_crc,
        codec,
        ops_len,
        ops_at,
    })
}

/// Applies `delta` to `source`; the result may be at most `limit` bytes.
/// The source and the result are checked by the header's lengths and
/// CRC-32s.
pub fn apply(source: &[u8], delta: &[u8], limit: u64) -> Result<Vec<u8>, DeltaError> {
    let h = read_header(delta)?;
    let limit = limit.min(MAX_TARGET_BYTES);
    if h.target_len > limit {
        return Err(DeltaError::TooLarge {
            claimed: h.target_len,
            limit,
        });
    }
    let found = (source.len() as u64, crc32(source));
    if found != (h.source_len, h.source_crc) {
        return Err(DeltaError::WrongSource {
            expected: (h.source_len, h.source_crc),
            found,
        });
    }
    let ops = ops_bytes(&delta[h.ops_at..], &h)?;
    let out = replay(source, &ops, h.target_len as usize)?;
    if crc32(&out) != h.target_crc {
        return Err(DeltaError::WrongTarget);
    }
    Ok(out)
}

/// The ops, decompressed.
fn ops_bytes(stored: &[u8], h: &DeltaHeader) -> Result<Vec<u8>, DeltaError> {
    match h.codec {
        Codec::Stored => Ok(stored.to_vec()),
        Codec::Zstd => {
            // ruzstd's errors are not formatted: their message tables
            // would cost the wasm ~10 KB, and the remedy is the same.
            let damaged = || DeltaError::Damaged {
                what: "the ops are not a valid zstd stream".into(),
            };
            // The frame decoder the shard's sections use, block by block,
            // not ruzstd's StreamingDecoder: its `io::Read` machinery cost
            // every wasm build 11.5 KB brotli (the widget's typeahead-only
            // one applies deltas to pieces since pieces version 10). The
            // window is bounded as a section's is, and decoding stops once
            // more than the header's length has come out.
            let mut decoder = super::zstd_decoder(h.ops_len);
            let mut input = stored;
            decoder.init(&mut input).map_err(|_| damaged())?;
            let mut out = Vec::with_capacity(h.ops_len as usize);
            loop {
                let step = ruzstd::decoding::BlockDecodingStrategy::UptoBytes(1 << 20);
                let done = decoder
                    .decode_blocks(&mut input, step)
                    .map_err(|_| damaged())?;
                decoder.collect_to_writer(&mut out).map_err(|_| damaged())?;
                if done || out.len() as u64 > h.ops_len {
                    break;
                }
            }
            if out.len() as u64 != h.ops_len {
                return Err(DeltaError::Damaged {
                    what: "the ops' length differs from the header's".into(),
                });
            }
            Ok(out)
        }
    }
}

/// Replays the ops over `source` into a file of `target_len` bytes.
fn replay(source: &[u8], ops: &[u8], target_len: usize) -> Result<Vec<u8>, DeltaError> {
    let damaged = |what: &str| DeltaError::Damaged { what: what.into() };
    let mut out = Vec::with_capacity(target_len);
    let mut r = Ops::new(ops);
    let mut copied_to = 0i64;
    while !r.at_end() {
        let literal = r.varint()? as usize;
        if literal > target_len - out.len() {
            return Err(damaged("a literal runs past the result's length"));
        }
        out.extend_from_slice(r.bytes(literal)?);
        let copy = r.varint()? as usize;
        if copy == 0 {
            continue;
        }
        let from = copied_to.saturating_add(r.zigzag()?);
        let range = usize::try_from(from)
            .ok()
            .and_then(|f| Some(f..f.checked_add(copy)?))
            .filter(|range| range.end <= source.len());
        let range = range.ok_or_else(|| damaged("a copy reaches outside the source"))?;
        if copy > target_len - out.len() {
            return Err(damaged("a copy runs past the result's length"));
        }
        copied_to = range.end as i64;
        out.extend_from_slice(&source[range]);
    }
    if out.len() != target_len {
        return Err(DeltaError::WrongTarget);
    }
    Ok(out)
}

/// The ops that turn `source` into `target`: Bentley–McIlroy. The source's
/// blocks at multiples of [`BLOCK`] are fingerprinted; the target is
/// scanned with a rolling fingerprint, and a block found is grown both
/// ways into the longest common run. Before looking a block up, the two
/// places an edit usually resumes at are tried: where the last copy ended
/// (bytes were inserted) and as far past it as the literal is long (bytes
/// were replaced).
pub fn diff(source: &[u8], target: &[u8]) -> Vec<u8> {
    let blocks = fingerprint_blocks(source);
    let mut ops = Writer::default();
    let (mut at, mut literal_from, mut copied_to) = (0usize, 0usize, 0usize);
    let mut rolling = Rolling::at(target, 0);
    while at + BLOCK <= target.len() {
        let window = &target[at..at + BLOCK];
        let found = [copied_to, copied_to + (at - literal_from)]
            .into_iter()
            .find(|&q| source.get(q..q + BLOCK) == Some(window))
            .or_else(|| {
                let q = *blocks.get(&rolling.value)? as usize;
                (source[q..q + BLOCK] == *window).then_some(q)
            });
        let Some(q) = found else {
            rolling.step(target, at);
            at += 1;
            continue;
        };
        let back = common_suffix(&target[literal_from..at], &source[..q]);
        let (start, from) = (at - back, q - back);
        let len = back + common_prefix(&target[at..], &source[q..]);
        push_step(&mut ops, &target[literal_from..start], len, from, copied_to);
        copied_to = from + len;
        at = start + len;
        literal_from = at;
        rolling = Rolling::at(target, at);
    }
    if literal_from < target.len() {
        push_step(&mut ops, &target[literal_from..], 0, 0, copied_to);
    }
    ops.buf
}

fn push_step(ops: &mut Writer, literal: &[u8], copy: usize, from: usize, copied_to: usize) {
    ops.varint(literal.len() as u64);
    ops.buf.extend_from_slice(literal);
    ops.varint(copy as u64);
    if copy > 0 {
        ops.zigzag(from as i64 - copied_to as i64);
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The first offset of each distinct block fingerprint of `source`.
fn fingerprint_blocks(source: &[u8]) -> HashMap<u64, u32> {
    let mut blocks = HashMap::with_capacity(source.len() / BLOCK);
    for (i, block) in source.chunks_exact(BLOCK).enumerate() {
        blocks
            .entry(fingerprint(block))
            .or_insert((i * BLOCK) as u32);
    }
    blocks
}

const BASE: u64 = 0x100_0000_01b3;

fn fingerprint(block: &[u8]) -> u64 {
    block.iter().fold(0u64, |h, &b| {
        h.wrapping_mul(BASE).wrapping_add(b as u64 + 1)
    })
}

/// The fingerprint of `target[at..at + BLOCK]`, moved one byte at a time.
struct Rolling {
    value: u64,
    /// `BASE^(BLOCK-1)`: the weight of the byte that leaves the window.
    top: u64,
}

impl Rolling {
    /// The fingerprint of the window at `at` (0 past the end).
    fn at(target: &[u8], at: usize) -> Rolling {
        Rolling {
            value: target.get(at..at + BLOCK).map(fingerprint).unwrap_or(0),
            top: (1..BLOCK).fold(1u64, |p, _| p.wrapping_mul(BASE)),
        }
    }
    /// From the window at `at` to the one at `at + 1`.
    fn step(&mut self, target: &[u8], at: usize) {
        let Some(&next) = target.get(at + BLOCK) else {
            return;
        };
        let leaving = (target[at] as u64 + 1).wrapping_mul(self.top);
        self.value = self
            .value
            .wrapping_sub(leaving)
            .wrapping_mul(BASE)
            .wrapping_add(next as u64 + 1);
    }
}

/// A cursor over a delta's header or ops.
struct Ops<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Ops<'a> {
    fn new(data: &'a [u8]) -> Ops<'a> {
        Ops { data, pos: 0 }
    }
    fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }
    fn truncated() -> DeltaError {
        DeltaError::Damaged {
            what: "it ends early".into(),
        }
    }
    fn byte(&mut self) -> Result<u8, DeltaError> {
        let b = *self.data.get(self.pos).ok_or_else(Self::truncated)?;
        self.pos += 1;
        Ok(b)
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], DeltaError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let out = &self.data[self.pos..end.ok_or_else(Self::truncated)?];
        self.pos += n;
        Ok(out)
    }
    fn u32_le(&mut self) -> Result<u32, DeltaError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn varint(&mut self) -> Result<u64, DeltaError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(DeltaError::Damaged {
            what: "a number longer than 64 bits".into(),
        })
    }
    fn zigzag(&mut self) -> Result<i64, DeltaError> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
}
