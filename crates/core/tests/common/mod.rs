//! Helpers shared by the integration tests: locating data, building shards.
#![allow(dead_code)]

use std::path::PathBuf;

use registry_core::import::{ImportOptions, import_dump};
use registry_core::shard::{self, Compressor};
use registry_core::{Record, Registry};

/// `../shared` next to the repository, where CI provides the real data.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        println!("skipped: ../shared not found ({} is absent)", p.display());
        None
    }
}

/// The project's own demo dump.
pub fn demo_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/demo/registry-demo.json")
}

/// zstd, as the CLI builds shards.
pub struct Zstd;

impl Compressor for Zstd {
    fn codec(&self) -> shard::Codec {
        shard::Codec::Zstd
    }
    fn compress(&self, raw: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(raw, 3).unwrap()
    }
}

/// Imports a dump file strictly.
pub fn import_file(path: &std::path::Path) -> Vec<Record> {
    let bytes = std::fs::read(path).unwrap();
    import_dump(&bytes, ImportOptions::default(), &mut |_, _| {})
        .unwrap()
        .records
}

/// Builds a full zstd shard file from records.
pub fn shard_bytes(records: &[Record]) -> Vec<u8> {
    shard::build(records, "test", 1_700_000_000, &Zstd)
        .unwrap()
        .full_file()
}

/// Loads a registry from records.
pub fn registry(records: &[Record]) -> Registry {
    Registry::from_bytes(&shard_bytes(records)).unwrap()
}

/// CRC-32 (IEEE), bitwise: an implementation independent of the crate's
/// table-driven one, for building containers and re-checksummed sections.
pub fn crc32_reference(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A deterministic xorshift generator for fuzz-style tests.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// One of `xs`.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}
