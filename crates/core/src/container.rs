//! Unwrapping a dump from its container: plain JSON, gzip, or a registry
//! release `.zip` (which holds several files; the v2 JSON is picked).

use std::borrow::Cow;
use std::fmt;

use miniz_oxide::inflate::decompress_to_vec_with_limit;

use crate::crc32::crc32;

/// Largest decompressed dump accepted (guards against decompression bombs).
pub const MAX_DUMP_BYTES: usize = u32::MAX as usize;

/// Why a container could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContainerError {
    /// gzip data is damaged or truncated.
    BadGzip(String),
    /// zip data is damaged, truncated or uses an unsupported feature.
    BadZip(String),
    /// The zip holds no JSON file, or several and none is clearly the v2 dump.
    NoDumpInZip {
        /// The file names in the archive.
        names: Vec<String>,
    },
}

impl fmt::Display for ContainerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContainerError::BadGzip(m) => write!(f, "the gzip file is damaged: {m}"),
            ContainerError::BadZip(m) => write!(f, "the zip file is damaged or unsupported: {m}"),
            ContainerError::NoDumpInZip { names } => write!(
                f,
                "the zip holds no single v2 JSON dump (files: {}); unzip it and pass the JSON file",
                names.join(", ")
            ),
        }
    }
}

impl std::error::Error for ContainerError {}

/// Returns the JSON bytes inside `bytes`, decompressing when needed.
pub fn unwrap_dump(bytes: &[u8]) -> Result<Cow<'_, [u8]>, ContainerError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        gunzip(bytes).map(Cow::Owned)
    } else if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        unzip_dump(bytes).map(Cow::Owned)
    } else {
        Ok(Cow::Borrowed(bytes))
    }
}

/// Decompresses a (single-member) gzip file and checks its CRC and length.
pub fn gunzip(b: &[u8]) -> Result<Vec<u8>, ContainerError> {
    let bad = |m: &str| ContainerError::BadGzip(m.to_string());
    if b.len() < 18 || b[0] != 0x1f || b[1] != 0x8b {
        return Err(bad("too short or not gzip"));
    }
    if b[2] != 8 {
        return Err(bad("unknown compression method"));
    }
    let flags = b[3];
    let mut pos = 10;
    let need = |pos: usize| {
        if pos > b.len() - 8 {
            Err(bad("truncated header"))
        } else {
            Ok(pos)
        }
    };
    if flags & 4 != 0 {
        let xlen = u16::from_le_bytes([b[pos], b[pos + 1]]) as usize;
        pos = need(pos + 2 + xlen)?;
    }
    for flag in [8u8, 16] {
        if flags & flag != 0 {
            let end = b[pos..]
                .iter()
                .position(|&c| c == 0)
                .ok_or_else(|| bad("unterminated header field"))?;
            pos = need(pos + end + 1)?;
        }
    }
    if flags & 2 != 0 {
        pos = need(pos + 2)?;
    }
    let trailer = &b[b.len() - 8..];
    let want_crc = u32::from_le_bytes(trailer[0..4].try_into().unwrap_or_default());
    let want_len = u32::from_le_bytes(trailer[4..8].try_into().unwrap_or_default());
    // The trailer states the size (mod 2^32, so at most MAX_DUMP_BYTES):
    // more output is damage, so it is the limit, and the buffer grows only
    // as output arrives.
    let out =
        decompress_to_vec_with_limit(&b[pos..b.len() - 8], want_len as usize).map_err(|e| {
            ContainerError::BadGzip(format!("{:?} (truncated or corrupted data)", e.status))
        })?;
    if out.len() as u32 != want_len || crc32(&out) != want_crc {
        return Err(bad("checksum mismatch (truncated or corrupted data)"));
    }
    Ok(out)
}

struct ZipEntry {
    name: String,
    method: u16,
    compressed: usize,
    size: usize,
    crc: u32,
    local_offset: usize,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn zip_entries(b: &[u8]) -> Option<Vec<ZipEntry>> {
    let lowest = b.len().saturating_sub(22 + 65535);
    let eocd = (lowest..=b.len().checked_sub(22)?)
        .rev()
        .find(|&i| u32_at(b, i) == Some(0x0605_4b50))?;
    let count = u16_at(b, eocd + 10)? as usize;
    let mut at = u32_at(b, eocd + 16)? as usize;
    // A central-directory entry takes at least 46 bytes.
    let mut entries = Vec::with_capacity(count.min(b.len() / 46));
    for _ in 0..count {
        if u32_at(b, at)? != 0x0201_4b50 {
            return None;
        }
        let name_len = u16_at(b, at + 28)? as usize;
        let extra_len = u16_at(b, at + 30)? as usize;
        let comment_len = u16_at(b, at + 32)? as usize;
        entries.push(ZipEntry {
            method: u16_at(b, at + 10)?,
            crc: u32_at(b, at + 16)?,
            compressed: u32_at(b, at + 20)? as usize,
            size: u32_at(b, at + 24)? as usize,
            local_offset: u32_at(b, at + 42)? as usize,
            name: String::from_utf8_lossy(b.get(at + 46..at + 46 + name_len)?).into_owned(),
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    Some(entries)
}

/// Extracts the v2 JSON dump from a release zip.
pub fn unzip_dump(b: &[u8]) -> Result<Vec<u8>, ContainerError> {
    let bad = |m: &str| ContainerError::BadZip(m.to_string());
    let entries =
        zip_entries(b).ok_or_else(|| bad("no readable central directory (truncated?)"))?;
    let json: Vec<&ZipEntry> = entries
        .iter()
        .filter(|e| {
            e.name.to_ascii_lowercase().ends_with(".json") && !e.name.starts_with("__MACOSX")
        })
        .collect();
    let v2: Vec<&ZipEntry> = json
        .iter()
        .copied()
        .filter(|e| e.name.contains("v2"))
        .collect();
    let pick = match (v2.as_slice(), json.as_slice()) {
        ([one], _) | ([], [one]) => *one,
        _ => {
            return Err(ContainerError::NoDumpInZip {
                names: entries.iter().map(|e| e.name.clone()).collect(),
            });
        }
    };
    if pick.size == u32::MAX as usize || pick.compressed == u32::MAX as usize {
        return Err(bad(
            "zip64 archives are not supported; unzip it and pass the JSON file",
        ));
    }
    let lo = pick.local_offset;
    if u32_at(b, lo) != Some(0x0403_4b50) {
        return Err(bad("entry header not found"));
    }
    let start = lo
        + 30
        + u16_at(b, lo + 26).unwrap_or(0) as usize
        + u16_at(b, lo + 28).unwrap_or(0) as usize;
    let data = start
        .checked_add(pick.compressed)
        .and_then(|end| b.get(start..end))
        .ok_or_else(|| bad("entry data truncated"))?;
    let out = match pick.method {
        0 => data.to_vec(),
        8 => decompress_to_vec_with_limit(data, pick.size).map_err(|e| {
            ContainerError::BadZip(format!("{:?} while inflating {}", e.status, pick.name))
        })?,
        m => {
            return Err(ContainerError::BadZip(format!(
                "compression method {m} of {} is not supported",
                pick.name
            )));
        }
    };
    if out.len() != pick.size || crc32(&out) != pick.crc {
        return Err(bad("checksum mismatch (truncated or corrupted data)"));
    }
    Ok(out)
}
