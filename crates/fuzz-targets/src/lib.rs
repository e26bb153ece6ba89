//! The bodies of the fuzz targets, in one place for the two runners that
//! use them: the cargo-fuzz binaries in `fuzz/fuzz_targets/` (libFuzzer,
//! `scripts/fuzz.sh`) and this crate's stable test (`tests/replay.rs`),
//! which runs every input checked in under `fuzz/corpus/<target>/` and
//! `fuzz/regressions/<target>/` on every `cargo test`.
//!
//! A body takes any bytes and panics only when the code under test breaks
//! a promise: a panic, a status or JSON shape outside the API's, two
//! readers disagreeing, a record that does not survive its round trip.
//! Bad input itself is fine as long as it is refused with an error.
//!
//! The data is the demo registry (`data/demo/registry-demo.json`, built
//! into the binary), loaded once per process.

mod api;
mod data;
mod files;
mod import;
mod pieces;
mod search;

pub use api::{advanced, affiliation, router};
pub use data::{BUDGET, Demo, demo};
pub use files::{sections, shard};
pub use import::import;
pub use pieces::pieces;
pub use search::search;

/// A fuzz target's body.
pub type Body = fn(&[u8]);

/// Every target by name: the name of its `fuzz/fuzz_targets/<name>.rs`
/// binary and of its corpus and regression folders.
pub const TARGETS: &[(&str, Body)] = &[
    ("router", router),
    ("advanced", advanced),
    ("affiliation", affiliation),
    ("shard", shard),
    ("sections", sections),
    ("import", import),
    ("pieces", pieces),
    ("search", search),
];

/// The body of target `name`.
pub fn target(name: &str) -> Option<Body> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|&(_, b)| b)
}

/// The section kinds the `sections` target picks from with an input's
/// first byte (its low three bits, modulo five; bit 3 picks format version
/// 1 instead of 2); the rest of the input is the section's payload.
pub const SECTION_KINDS: [registry_core::shard::SectionKind; 5] = [
    registry_core::shard::SectionKind::Summary,
    registry_core::shard::SectionKind::Names,
    registry_core::shard::SectionKind::Records,
    registry_core::shard::SectionKind::Domains,
    registry_core::shard::SectionKind::ExactWords,
];

/// What an input of the `pieces` target holds after its first byte (the
/// byte modulo the count of kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceInput {
    /// A leaf or head piece file; the second byte picks the prefix.
    Piece,
    /// An id piece file; the second byte picks the key.
    IdPiece,
    /// A first-keystroke pack.
    Pack,
    /// A directory part (JSON array of split prefixes); the second byte
    /// picks the first character.
    Part,
    /// An `exact_words` section.
    ExactWords,
}

impl PieceInput {
    /// In the order of the first byte's value.
    pub const ALL: [PieceInput; 5] = [
        PieceInput::Piece,
        PieceInput::IdPiece,
        PieceInput::Pack,
        PieceInput::Part,
        PieceInput::ExactWords,
    ];

    /// The byte that selects this kind.
    pub fn byte(self) -> u8 {
        PieceInput::ALL.iter().position(|&k| k == self).unwrap_or(0) as u8
    }
}
