//! The native encoders of a build: zstd (the C library; the core only
//! decodes, with pure-Rust `ruzstd`) and SHA-256 for content-hashed names
//! and the manifest's checksums. Below the data build, the pieces and the
//! packs, which all compress and name what they write.

use registry_core::shard::{Codec, Compressor};
use sha2::{Digest, Sha256};

/// zstd at a given level (native C library; the core only decodes).
pub struct Zstd(pub i32);

impl Compressor for Zstd {
    fn codec(&self) -> Codec {
        Codec::Zstd
    }
    fn compress(&self, raw: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(raw, self.0).expect("zstd compression of an in-memory buffer")
    }
}

/// Hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
