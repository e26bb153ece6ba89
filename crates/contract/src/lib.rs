//! The shapes that cross between the registry's parts, as one set of serde
//! types: what `registry build` writes and every reader reads. Today that
//! is the data folder's `manifest.json` ([`Manifest`]), written by the CLI
//! and read by the CLI (`registry query <dir>`, `registry site <dir>`), by
//! the browser runtime (`registry-pieces.js` `fetchManifest`, which checks
//! [`PIECES_VERSION`] the same way) and by the compat fixture test; and
//! the typeahead's options and hits ([`typeahead`]: [`SuggestOptions`],
//! [`SuggestContext`], [`Hit`], [`Summary`], [`Matched`], and a results
//! page's [`Row`]), which the core
//! ranks into, the wasm serialises, the UI wasm reads and the npm
//! package's `index.d.ts` declares.
//!
//! Versioning: `format_version` is the shard container's
//! (`registry_core::shard::FORMAT_VERSION`); [`Pieces::version`] says what
//! a reader of the pieces must understand ([`PIECES_VERSION`]). A reader
//! that knows an older pieces version does not use the pieces (it asks the
//! whole registry, which is slower and never wrong).
#![deny(missing_docs)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub mod typeahead;
pub use typeahead::{Hit, Matched, Row, SuggestContext, SuggestOptions, Summary, utf16_ranges};

/// `format` of every manifest.
pub const MANIFEST_FORMAT: &str = "registry-shard";

/// The pieces version this build writes and reads:
/// * 1: leaves, heads and id pieces (summary + names), directory parts by
///   first character, the first-keystroke pack;
/// * 2: a head may carry an `exact_words` section (a reader of version 1
///   rejects such a head: unknown section kind), record pieces
///   (`r-<key>.shard`: summary, names, records) and record cards
///   (`r-<key>.json`);
/// * 3: every file of the pieces folder is listed with its hash
///   ([`PieceHashes`]) and the first-keystroke pack's hash is in the
///   manifest ([`FirstPack::sha256`]); a reader of version 3 uses no piece
///   it cannot check, so it asks the whole registry of older data;
/// * 4: group files (`g-<hex>[-<hex>].shard`: a common term's, or a pair
///   of common terms', records counted by their columns, and a term's rank
///   chunks with each chunk's first record), the search statistics end
///   with a marker and leave the rank chunks to the group files, and the
///   chunks order records of equal shortest length by prior, then id (a
///   reader of version 3 rejects the statistics; a reader of version 4
///   reads version-3 ones with member files and the plain bound);
/// * 5: member files list, for each record, the common terms of more
///   records it also holds, and the statistics end with a second marker
///   that says so: a query of three or more common terms reads the member
///   files of all but its two most common (a reader of version 4 rejects
///   the member files and the statistics; a reader of version 5 reads
///   version-4 ones as before);
/// * 6: a common term's group file ends with its rank chunks over each
///   country's records (`kc-<hex>-<hex>-<n>.shard`, the first two
///   written): a page filtered by a country is ranked by them (a reader of
///   version 5 rejects such group files; a reader of version 6 reads
///   version-5 ones with the terms' own chunks alone); and *phrase pieces*
///   (`p-<hex>-<hex>.shard`: the records of a name holding one common term
///   right after another) answer quoted phrases of common words (a 404 in
///   version 5: the whole registry answers them, as before), and *external
///   id pieces* (`e-<bucket>.shard`, counted in the statistics after a third
///   marker) queries with a digit;
/// * 7: a common term's group file ends, after its chunks by country, with
///   its rank chunks over each type's records (`kt-<hex>-<hex>-<n>.shard`;
///   of these and of the countries' the first six written): a page
///   filtered by a type is ranked by them (a
///   reader of version 6 rejects such group files; a reader of version 7
///   reads version-6 ones with the terms' own and countries' chunks); and a
///   pair of common words one right after the other whose records do not
///   fit a phrase piece has *phrase rank chunks* (`pk-<hex>-<hex>-<n>.shard`,
///   the first four) and a *phrase group file* (`pg-<hex>-<hex>.shard`),
///   which answer that quoted pair alone (404s in version 6: the whole
///   registry answers it, as before). Builds since 2026-11-26 also write,
///   for a triple of common terms held in one name by records of more
///   than a tenth of the piece budget, a group file
///   (`g-<hex>-<hex>-<hex>.shard`: its rank chunks described) and its first
///   rank chunk (`k-<hex>-<hex>-<hex>-<n>.shard`): files no earlier reader
///   asks for, so the version stays 7 (a reader of 7 that asks for them in
///   an earlier build gets 404s and ranks as before).
/// * 8: the statistics file (`search.stats`) no longer lists the common
///   terms; *statistics parts* (`s-<hex first character>.shard`) do, one
///   per first character, each term with its place in the commonness order
///   member files count in. A query reads the parts of its words' first
///   characters, asked with the statistics file (a few hundred bytes each,
///   where the list of every common term grows with the registry: 4.5 KB
///   at 35,990 records, 9.6 KB at ×4). A reader of version 7 rejects such
///   a statistics file (a marker it does not know); a reader of 8 reads
///   version-7 statistics with their list and asks no part of them (a 404
///   if asked before the statistics file arrives).
///   Builds since 2026-11-27 also write the hashes as one tree
///   ([`Pieces::tree`]: tables `ht-<i>.json`, each with its proof up to
///   the root the manifest holds, no root table). A request checks ~6
///   files, each in a table of its own: the two-level tables cost it the
///   root (12.9 KB at ×4 records) and ~6 tables of ~270 files (5.6 KB
///   each); tree tables of ~8 files with their proofs ~0.5 KB each. A
///   member and files no earlier reader asks for, so the version stays 8:
///   a reader that knows the tree uses it, an earlier one the two-level
///   tables, which builds keep writing (a widget pinned to an older
///   release keeps its pieces when the data is rebuilt).
/// * 9: the files of the pieces folder are stored in a few content-hashed
///   *packs* read by HTTP range ([`Pieces::packed`], [`Packed`]): a file is
///   found by its name in the fixed-size *slot* of its bucket (slot tables
///   `tables.<hash>.pack`, slot `i` at `i × slot_bytes`, so no directory
///   is fetched first), which gives its pack, offset, length and hash, and
///   carries its proof up to the root the manifest holds. At 143,960
///   records the folder of version 8 was ~306,000 files (no common static
///   host's file cap takes it); packs are a few dozen files of ≤ 24 MiB.
///   A reader of version 8 drops these pieces (the whole registry
///   answers); a reader of 9 reads version-8 folders as before.
/// * 10: a build given the last release (`--previous`) keeps its packs as
///   the new release's *base* (same names and bytes: caches and hosts keep
///   them) and writes a changed file as a *delta* from its base
///   (`registry_core::shard::delta`), listed in the file's slot after the
///   base entry ([`Packed::base`]). A reader of 9 would read the base
///   alone, the last release's bytes, so the version says it: such a
///   reader drops these pieces (the whole registry answers); a reader of
///   10 reads version-9 folders as before.
pub const PIECES_VERSION: u32 = 10;

/// `manifest.json` of a data folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// The shard container's format version.
    pub format_version: u16,
    /// Data release name.
    pub release: String,
    /// Record schema (`v2`).
    pub schema: String,
    /// Records per schema version of their last modification.
    pub schema_versions: BTreeMap<String, usize>,
    /// Number of records.
    pub record_count: u64,
    /// Build time, Unix seconds.
    pub build_time: u64,
    /// Build id, 16 hex digits (also in every piece path).
    pub build_id: String,
    /// Examples of the data (`examples.email_domain`), when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Examples>,
    /// The shard files (content-hashed names).
    pub files: Vec<FileEntry>,
    /// The pieces (absent in data built without them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<Pieces>,
}

/// One shard file of a manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File name, relative to the data folder.
    pub name: String,
    /// Section names it holds (`summary`, `names`, `records`, `domains`).
    pub sections: Vec<String>,
    /// Size in bytes.
    pub bytes: u64,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
    /// The same file with its sections stored uncompressed: what a delta
    /// makes (`registry_core::shard::delta`). A reader holding this image
    /// instead of the file checks it by these; absent before deltas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<StoredImage>,
    /// Deltas to this file's stored image from earlier releases' files of
    /// the same sections: a returning reader downloads the one from the file
    /// it holds instead of this file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deltas: Vec<DeltaEntry>,
}

/// A file's stored image ([`FileEntry::stored`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredImage {
    /// Size in bytes.
    pub bytes: u64,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
}

/// A delta from an earlier release's file ([`FileEntry::deltas`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeltaEntry {
    /// The SHA-256 of the earlier release's file (its manifest's
    /// [`FileEntry::sha256`]): the file, or its stored image, it applies to.
    pub from: String,
    /// Its release name, for messages.
    pub from_release: String,
    /// File name, relative to the data folder (`<section>.<hash>.delta`).
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// Hex SHA-256 of its bytes.
    pub sha256: String,
}

fn version_1() -> u32 {
    1
}

/// The pieces of a data folder (`registry_core::pieces`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pieces {
    /// What a reader must understand to use them ([`PIECES_VERSION`]);
    /// manifests written before the field are version 1.
    #[serde(default = "version_1")]
    pub version: u32,
    /// Folder of the piece files, relative to the data folder
    /// (`pieces/<build id>/`).
    pub path: String,
    /// First characters that have a directory part (split prefixes).
    pub split_first: Vec<String>,
    /// Records in a head.
    pub head_records: usize,
    /// Id characters that key an id piece.
    pub id_chars: usize,
    /// Id characters that key a record piece (version 2; absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_chars: Option<usize>,
    /// Record pieces written.
    #[serde(default)]
    pub record_pieces: usize,
    /// Whether each record piece has its record card.
    #[serde(default)]
    pub record_cards: bool,
    /// The first-keystroke pack.
    pub first_pack: FirstPack,
    /// E2 over pieces: the statistics file and what else a build wrote
    /// for it (absent: this data answers `query` from the whole registry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchFiles>,
    /// The hashes of every file in the pieces folder, in two-level
    /// tables (version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hashes: Option<PieceHashes>,
    /// The same hashes as one tree ([`PieceHashes::proofs`]; builds since
    /// 2026-11-27): what a reader that knows it checks files with, being
    /// ~7× fewer bytes a request at ×4 records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<PieceHashes>,
    /// The folder's files stored in packs read by range, with their
    /// locations and hashes in slot tables (version 9). When present,
    /// `hashes` and `tree` are absent and [`Pieces::path`] is the folder
    /// of the packs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed: Option<Packed>,
    /// Typeahead pieces written (leaves, heads, id pieces).
    pub pieces: usize,
    /// Their bytes in all.
    pub piece_bytes: usize,
}

/// The files of E2 over pieces (term pieces, rank chunks, member files,
/// statistics; `registry_core::pieces::search`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchFiles {
    /// The statistics file, relative to the pieces folder.
    pub stats: String,
    /// Its size in bytes.
    pub stats_bytes: usize,
    /// Common terms (a member file and rank chunks each).
    pub common_terms: usize,
    /// Files written for E2 in all.
    pub files: usize,
    /// Their bytes in all.
    pub bytes: usize,
}

/// The trust chain of the pieces folder, from the manifest down. A file
/// is listed with the hash of its bytes in the *table* of its bucket (the
/// bucket is [`bucket`] of its name among `buckets`); a reader needs that
/// one table (and, with two levels, the root table) to check any file,
/// fetches it beside the file (its name needs only the file's), and reads
/// a name the table does not list as not part of the build (a 404,
/// whatever the server answers). Two layouts:
/// * `proofs` ([`Pieces::tree`], builds since 2026-11-27): table `i` is
///   `ht-<i>.json`, the JSON array `[proof, files]`, `files` a JSON object
///   from file name (relative to the pieces folder) to hash, `proof` an
///   array of hashes, one a level of a binary tree over the tables. Leaf
///   `i` is the SHA-256 of the bytes of table `i`'s `files` (as they stand
///   in the file); a node the SHA-256 of its two children's hashes, each
///   cut to `digits`, written side by side in ASCII, left child first;
///   `proof[l]` is the sibling at level `l` (bit `l` of `i` says whether
///   it is left); the top node, in full, is `root`. (A hash holds no `]`:
///   the first `]` closes the proof.)
/// * two levels ([`Pieces::hashes`], version 3 on): table `i` is
///   `h-<i>.json`, the `files` object alone, and `root` is the SHA-256 of
///   the root table `hashes.json`, a JSON array whose entry `i` is the
///   hash of table `i`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PieceHashes {
    /// Hex SHA-256, in full: of the tree's top node (`proofs`) or of
    /// `hashes.json`.
    pub root: String,
    /// Number of tables (a power of two).
    pub buckets: u32,
    /// Leading hex digits of SHA-256 the tables keep per file and the
    /// proofs or root per table (24: 96 bits, beyond any second-preimage
    /// search).
    pub digits: usize,
    /// The tree layout: each table (`ht-<i>.json`) carries its proof, and
    /// there is no root table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub proofs: bool,
}

/// The bucket table of file `name` among `buckets`: FNV-1a (32 bits) of
/// the UTF-8 of its [`bucket_key`], modulo the count (registry-pieces.js
/// computes the same).
pub fn bucket(name: &str, buckets: u32) -> u32 {
    fnv1a32(bucket_key(name)) % buckets.max(1)
}

/// The slot of file `name` among `buckets` in a packed folder
/// ([`Packed`]): FNV-1a (32 bits) of its [`slot_key`], modulo the count.
pub fn slot(name: &str, buckets: u32) -> u32 {
    fnv1a32(slot_key(name)) % buckets.max(1)
}

/// What file `name` is slotted by: the common term or pair of common
/// terms an E2 file belongs to (`g-<t>`, `c-<t>`, `t-<t>`, `x-<t>` and
/// `k-<t>-<n>` by `<t>`; `g-<a>-<b>` and `k-<a>-<b>-<n>` by `<a>-<b>`),
/// a record's card and piece (`r-<key>.json`, `r-<key>.shard`) by
/// `r-<key>`, else the name itself. A reader reads a file after its slot, so the
/// files one term's later rounds ask for (its rank chunks after its group
/// file) are then located already: one round trip each, not two. (A
/// term's chunks by country or type are many and stay in slots of their
/// own: a slot is as large as the fullest.)
pub fn slot_key(name: &str) -> &str {
    // A record's card and piece (`r-<key>.json`, `r-<key>.shard`): the
    // page that paints the card reads the piece next.
    if let Some(key) = name
        .strip_suffix(".json")
        .or_else(|| name.strip_suffix(".shard"))
        .filter(|s| s.starts_with("r-"))
    {
        return key;
    }
    let Some(stem) = name.strip_suffix(".shard") else {
        return name;
    };
    let Some((kind, rest)) = stem.split_once('-') else {
        return name;
    };
    let parts = rest.split('-').count();
    match kind {
        "g" | "c" | "t" | "x" if parts <= 2 => rest,
        "k" if parts == 2 || parts == 3 => rest.rsplit_once('-').map_or(name, |(t, _)| t),
        _ => name,
    }
}

fn fnv1a32(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The name file `name` is bucketed by: its own, but for a statistics part
/// (`s-<hex>.shard`, pieces version 8), which goes in the statistics file's
/// table (`search.stats`). Every E2 reader loads that table to check the
/// statistics file, and reads a few parts beside it: in tables of their
/// own, each ~100-byte part would cost a table and a request of its own
/// (with two-level tables, ~4 KB each; with the tree's, that table holds
/// every part's hash, 3.7 KB at ×4 records, against ~0.5 KB a table: two
/// requests fewer for a typical query for ~2 KB more, measured).
pub fn bucket_key(name: &str) -> &str {
    if name.starts_with("s-") && name.ends_with(".shard") {
        "search.stats"
    } else {
        name
    }
}

/// The pieces folder stored in packs (pieces version 9): every file but
/// the first-keystroke pack (a file of its own, checked by
/// [`FirstPack::sha256`]) lies in one of `packs` at an offset, and is found
/// through the *slot tables*, whose layout
/// `registry_core::shard::packed` gives:
/// * the file's bucket is [`slot`] of its name among `buckets` (a power
///   of two): FNV-1a of its [`slot_key`] (a term's E2 files share one),
///   not [`bucket_key`]'s grouping of every statistics part, as a slot has
///   a fixed size, so no bucket may hold many files;
/// * bucket `i`'s slot is bytes `[s × slot_bytes, (s + 1) × slot_bytes)` of
///   table file `tables[i / slots_per_file]`, `s = i % slots_per_file`:
///   found without fetching anything first, read with one range request;
/// * the slot lists each of its files by [`name_key`] with its pack (an
///   index into `packs`), offset, length and the first 12 bytes of the
///   SHA-256 of its bytes, and ends with its proof: the sibling hashes on
///   its way up a binary tree over the slots (as in [`PieceHashes`], in
///   binary: a leaf is the SHA-256 of the slot's bytes before the proof,
///   a node the SHA-256 of its two children's first 12 bytes, left first),
///   whose top, in full hex, is `root`.
///
/// Every name is computed from keys as before, so no reader needs a
/// directory of names; a name its slot lacks is not part of the build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Packed {
    /// The pack files (content-hashed names, relative to
    /// [`Pieces::path`]), by index.
    pub packs: Vec<String>,
    /// The slot table files (content-hashed names, relative to
    /// [`Pieces::path`]), in slot order.
    pub tables: Vec<String>,
    /// Number of buckets, one slot each (a power of two).
    pub buckets: u32,
    /// Bytes of every slot.
    pub slot_bytes: u32,
    /// Slots in each table file (the last may hold fewer).
    pub slots_per_file: u32,
    /// Hex SHA-256 of the top of the slots' tree, in full.
    pub root: String,
    /// Whether `.json` files (record cards, directory parts) are stored
    /// gzip-compressed: a range is served as it is stored, never
    /// compressed on the way as a whole JSON file would be. Their hash is
    /// of the stored bytes; a reader decompresses after checking.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub json_gzip: bool,
    /// What the packs hold, by kind of file (`leaves`, `rank chunks`, …):
    /// `[files, bytes]` each, for `registry bench-site` and deployers;
    /// readers do not need it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kinds: BTreeMap<String, [u64; 2]>,
    /// How many of the first `packs` were kept from earlier releases, as
    /// they were (`registry site --previous`): each holds files of this
    /// release as they are, or the bases of their deltas. The rest were
    /// written by this build. Readers do not need it; deployers and
    /// `registry bench-release` do.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub base: u32,
    /// The release whose build wrote the oldest kept pack (the last build
    /// that started afresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_release: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The key a slot lists file `name` by: FNV-1a (64 bits) of its UTF-8
/// (registry-pieces.js computes the same). Names are told apart within
/// their bucket only; a build whose bucket would hold two names with one
/// key fails (never seen: ~8 names a bucket).
pub fn name_key(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Examples of the data, for pages that demonstrate it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Examples {
    /// An e-mail domain of an active record (the widget demo's e-mail).
    #[serde(default)]
    pub email_domain: Option<String>,
}

/// The first-keystroke pack of a data folder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstPack {
    /// File name, relative to the pieces folder.
    pub name: String,
    /// Size in bytes.
    pub bytes: usize,
    /// The first characters it holds, commonest first.
    pub first: Vec<String>,
    /// Hex SHA-256 of its bytes (version 3): the one piece a first
    /// keystroke needs is checked without any table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl Manifest {
    /// Whether this is a registry manifest this build can read: the
    /// right `format`; pieces of a newer version are dropped (with the
    /// reason), so that a reader asks the whole registry instead.
    pub fn checked(mut self) -> Result<(Manifest, Option<String>), String> {
        if self.format != MANIFEST_FORMAT {
            return Err(format!(
                "not a registry manifest (format '{}', expected '{MANIFEST_FORMAT}')",
                self.format
            ));
        }
        let dropped = match &self.pieces {
            Some(p) if p.version > PIECES_VERSION => Some(format!(
                "its pieces are version {}, newer than this build reads ({PIECES_VERSION}): upgrade to use them",
                p.version
            )),
            _ => None,
        };
        if dropped.is_some() {
            self.pieces = None;
        }
        Ok((self, dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terms_e2_files_share_a_slot_and_other_files_keep_their_own() {
        for (name, key) in [
            ("g-756e6976.shard", "756e6976"),
            ("c-756e6976.shard", "756e6976"),
            ("t-756e6976.shard", "756e6976"),
            ("k-756e6976-0.shard", "756e6976"),
            ("k-756e6976-11.shard", "756e6976"),
            ("g-6f66-756e6976.shard", "6f66-756e6976"),
            ("k-6f66-756e6976-1.shard", "6f66-756e6976"),
            ("g-61-62-63.shard", "g-61-62-63.shard"),
            ("k-61-62-63-0.shard", "k-61-62-63-0.shard"),
            ("kc-756e6976-6e67-0.shard", "kc-756e6976-6e67-0.shard"),
            ("s-75.shard", "s-75.shard"),
            ("search.stats", "search.stats"),
            ("r-041q.json", "r-041q"),
            ("r-041q.shard", "r-041q"),
            ("6165.shard", "6165.shard"),
            ("61.h.shard", "61.h.shard"),
        ] {
            assert_eq!(slot_key(name), key, "{name}");
        }
        assert_eq!(
            slot("k-756e6976-3.shard", 4096),
            slot("g-756e6976.shard", 4096)
        );
    }

    #[test]
    fn a_manifest_without_the_pieces_version_is_version_1() {
        let m: Manifest = serde_json::from_str(
            r#"{"format":"registry-shard","format_version":2,"release":"r","schema":"v2",
            "schema_versions":{},"record_count":0,"build_time":0,"build_id":"00","files":[],
            "pieces":{"path":"pieces/00/","split_first":[],"head_records":40,"id_chars":3,
            "first_pack":{"name":"first.pack","bytes":8,"first":[]},"pieces":0,"piece_bytes":0}}"#,
        )
        .unwrap();
        let p = m.pieces.as_ref().unwrap();
        assert_eq!(
            (p.version, p.record_chars, p.record_cards),
            (1, None, false)
        );
        assert!(m.checked().unwrap().1.is_none());
    }

    #[test]
    fn newer_pieces_are_dropped_with_the_reason_and_a_wrong_format_is_an_error() {
        let mut m: Manifest = serde_json::from_str(
            r#"{"format":"registry-shard","format_version":2,"release":"r","schema":"v2",
            "schema_versions":{},"record_count":0,"build_time":0,"build_id":"00","files":[],
            "pieces":{"version":99,"path":"p/","split_first":[],"head_records":40,"id_chars":3,
            "first_pack":{"name":"first.pack","bytes":8,"first":[]},"pieces":0,"piece_bytes":0}}"#,
        )
        .unwrap();
        let (checked, why) = m.clone().checked().unwrap();
        assert!(checked.pieces.is_none());
        assert!(why.unwrap().contains("version 99"));
        m.format = "other".into();
        assert!(m.checked().unwrap_err().contains("not a registry manifest"));
    }
}
