//! The slot tables of a packed pieces folder (pieces version 9,
//! `registry_contract::Packed`): where each file of the folder lies in the
//! packs, and the hash it must have. Bytes in, typed values out; the tree
//! over the slots is hashed by whoever builds or checks it (the CLI with
//! SHA-256, the browser with WebCrypto: `registry-pieces.js` reads this
//! layout on its own, and `crates/cli/tests/cli.rs` holds both to it).
//!
//! A slot is `slot_bytes` long:
//!
//! ```text
//! u16 count (little-endian)
//! count × entry: u64 name key | 12 bytes of SHA-256 | u16 pack | u32 offset | u32 length
//! zero bytes up to slot_bytes − 12 × levels
//! levels × 12 bytes: the proof, sibling hashes from the leaf level up
//! ```
//!
//! Entries are sorted by name key, all integers little-endian. A key may
//! be listed twice, one entry after the other (pieces version 10): the
//! first is the file's *base*, bytes kept from an earlier release in one
//! of its packs (same URL, so caches keep them), the second its *delta*
//! ([`super::delta`], from the stored image of the base to the file's
//! stored image), written by this release. Each entry's hash is of its own
//! bytes; the file is the delta applied to the base. Every slot
//! has the same size so that slot `i` is found by arithmetic alone: a
//! reader fetches it with one range request, as soon as it knows a name,
//! with nothing fetched first (PMTiles keeps a directory at the start of its
//! archive; here the "directory" is spread over the slots and needs no
//! read of its own).
//!
//! # Quirks
//!
//! * Fixed slots cost padding: a slot is as large as the fullest bucket
//!   needs (~3× the mean at ~8 files a bucket). At 143,960 records that is
//!   a few MB of the site; what it buys is no directory round trip.

use std::fmt;

/// Bytes of a name key.
pub const KEY_BYTES: usize = 8;
/// Bytes of a file's hash kept in its entry, and of each proof hash.
pub const HASH_BYTES: usize = 12;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = KEY_BYTES + HASH_BYTES + 2 + 4 + 4;
/// The most bytes a build puts in one pack or table file: under the 25 MiB
/// a file that Cloudflare Pages (and hosts like it) take.
pub const FILE_LIMIT: usize = 24 << 20;

/// Where one file of the folder lies, and what its bytes hash to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// `registry_contract::name_key` of its name.
    pub key: u64,
    /// The first [`HASH_BYTES`] of the SHA-256 of its bytes.
    pub hash: [u8; HASH_BYTES],
    /// Index of its pack.
    pub pack: u16,
    /// Offset in the pack.
    pub offset: u32,
    /// Length in bytes.
    pub length: u32,
}

/// A slot whose bytes do not have the layout (damaged, or not a slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotError {
    /// The slot is not `slot_bytes` long, or too short for its proof.
    Size {
        /// Bytes present.
        found: usize,
        /// Bytes a slot has.
        expected: usize,
    },
    /// The count says more entries than the slot holds.
    Count {
        /// Entries the slot says it has.
        count: usize,
        /// Entries that fit before its proof.
        room: usize,
    },
    /// Entries are not in ascending key order, or a key is listed more
    /// than twice (a file and its delta).
    Order,
}

impl fmt::Display for SlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlotError::Size { found, expected } => write!(
                f,
                "a slot is {expected} bytes, this one {found}: damaged, or the manifest is of another build"
            ),
            SlotError::Count { count, room } => {
                write!(f, "the slot lists {count} files, room for {room}: damaged")
            }
            SlotError::Order => write!(f, "the slot's files are not in key order: damaged"),
        }
    }
}

impl std::error::Error for SlotError {}

/// Bytes of a slot with room for `entries` entries and a proof of
/// `levels` hashes.
pub fn slot_bytes(entries: usize, levels: usize) -> usize {
    2 + entries * ENTRY_BYTES + levels * HASH_BYTES
}

/// The bytes of a slot before its proof (what its tree leaf hashes):
/// `entries`, sorted by key here (a file's base before its delta, as
/// given), padded to `slot_bytes − 12 × levels`.
/// `None` when they do not fit.
pub fn encode_body(entries: &[Location], slot_bytes: usize, levels: usize) -> Option<Vec<u8>> {
    let body = slot_bytes.checked_sub(levels * HASH_BYTES)?;
    if 2 + entries.len() * ENTRY_BYTES > body || entries.len() > usize::from(u16::MAX) {
        return None;
    }
    let mut sorted = entries.to_vec();
    // Stable: a base stays before its delta.
    sorted.sort_by_key(|e| e.key);
    let mut out = Vec::with_capacity(slot_bytes);
    out.extend((sorted.len() as u16).to_le_bytes());
    for e in &sorted {
        out.extend(e.key.to_le_bytes());
        out.extend(e.hash);
        out.extend(e.pack.to_le_bytes());
        out.extend(e.offset.to_le_bytes());
        out.extend(e.length.to_le_bytes());
    }
    out.resize(body, 0);
    Some(out)
}

/// A decoded slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot<'a> {
    /// Its files, by key.
    pub entries: Vec<Location>,
    /// The bytes its tree leaf hashes (all before the proof).
    pub body: &'a [u8],
    /// Sibling hashes from the leaf level up.
    pub proof: Vec<[u8; HASH_BYTES]>,
}

impl Slot<'_> {
    /// The entry of `key` (a file's bytes, or its base when it has a
    /// delta), if the slot lists it.
    pub fn find(&self, key: u64) -> Option<&Location> {
        self.file(key).map(|(at, _)| at)
    }

    /// The entries of `key`: where its bytes (or its base) lie, and its
    /// delta when it has one.
    pub fn file(&self, key: u64) -> Option<(&Location, Option<&Location>)> {
        let first = self.entries.partition_point(|e| e.key < key);
        let at = self.entries.get(first).filter(|e| e.key == key)?;
        Some((at, self.entries.get(first + 1).filter(|e| e.key == key)))
    }

    /// Every file the slot lists, once each, in key order: where its bytes
    /// (or its base) lie, and its delta when it has one.
    pub fn files(&self) -> impl Iterator<Item = (&Location, Option<&Location>)> {
        self.entries
            .chunk_by(|a, b| a.key == b.key)
            .map(|same| (&same[0], same.get(1)))
    }
}

fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// Reads a slot of `slot_bytes` whose proof has `levels` hashes. Nothing
/// here is trusted: sizes and the count are checked before anything is
/// read (the hash of `body` is the caller's check).
pub fn decode_slot(bytes: &[u8], slot_bytes: usize, levels: usize) -> Result<Slot<'_>, SlotError> {
    let size = SlotError::Size {
        found: bytes.len(),
        expected: slot_bytes,
    };
    let body_len = slot_bytes
        .checked_sub(levels * HASH_BYTES)
        .ok_or(size.clone())?;
    if bytes.len() != slot_bytes || body_len < 2 {
        return Err(size);
    }
    let (body, proof) = bytes.split_at(body_len);
    let count = usize::from(u16::from_le_bytes([body[0], body[1]]));
    let room = (body_len - 2) / ENTRY_BYTES;
    if count > room {
        return Err(SlotError::Count { count, room });
    }
    let entries: Vec<Location> = body[2..2 + count * ENTRY_BYTES]
        .chunks_exact(ENTRY_BYTES)
        .map(|e| Location {
            key: u64::from_le_bytes(array(e)),
            hash: array(&e[8..]),
            pack: u16::from_le_bytes(array(&e[20..])),
            offset: u32::from_le_bytes(array(&e[22..])),
            length: u32::from_le_bytes(array(&e[26..])),
        })
        .collect();
    let thrice = entries.windows(3).any(|w| w[0].key == w[2].key);
    if thrice || entries.windows(2).any(|w| w[0].key > w[1].key) {
        return Err(SlotError::Order);
    }
    Ok(Slot {
        entries,
        body,
        proof: proof.chunks_exact(HASH_BYTES).map(array).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(key: u64) -> Location {
        Location {
            key,
            hash: [key as u8; HASH_BYTES],
            pack: 1,
            offset: 1000 + key as u32,
            length: 7,
        }
    }

    #[test]
    fn a_slot_round_trips_sorted_and_padded_with_its_proof() {
        let size = slot_bytes(4, 3);
        let mut bytes = encode_body(&[loc(9), loc(2), loc(5)], size, 3).unwrap();
        assert_eq!(bytes.len(), size - 3 * HASH_BYTES);
        bytes.extend([7u8; 3 * HASH_BYTES]);
        let slot = decode_slot(&bytes, size, 3).unwrap();
        assert_eq!(slot.entries, vec![loc(2), loc(5), loc(9)]);
        assert_eq!(slot.find(5), Some(&loc(5)));
        assert_eq!(slot.find(6), None);
        assert_eq!(slot.proof, vec![[7u8; HASH_BYTES]; 3]);
        assert_eq!(slot.body.len(), size - 3 * HASH_BYTES);
    }

    #[test]
    fn a_file_with_a_delta_is_listed_twice_base_first() {
        let size = slot_bytes(4, 0);
        let delta = Location { pack: 9, ..loc(5) };
        let body = encode_body(&[loc(9), loc(5), delta, loc(2)], size, 0).unwrap();
        let slot = decode_slot(&body, size, 0).unwrap();
        assert_eq!(slot.file(5), Some((&loc(5), Some(&delta))));
        assert_eq!(slot.find(5), Some(&loc(5)));
        assert_eq!(slot.file(2), Some((&loc(2), None)));
        assert_eq!(slot.file(9), Some((&loc(9), None)));
        assert_eq!(slot.file(3), None);
        let files: Vec<_> = slot.files().collect();
        assert_eq!(
            files,
            vec![(&loc(2), None), (&loc(5), Some(&delta)), (&loc(9), None)]
        );
        let thrice = encode_body(&[loc(5), delta, delta], size, 0).unwrap();
        assert_eq!(decode_slot(&thrice, size, 0), Err(SlotError::Order));
    }

    #[test]
    fn too_many_entries_do_not_encode() {
        assert!(encode_body(&[loc(1), loc(2)], slot_bytes(1, 2), 2).is_none());
    }

    #[test]
    fn damaged_slots_are_errors_never_panics() {
        let size = slot_bytes(2, 1);
        let mut good = encode_body(&[loc(1), loc(2)], size, 1).unwrap();
        good.extend([0u8; HASH_BYTES]);
        assert!(matches!(
            decode_slot(&good[1..], size, 1),
            Err(SlotError::Size { .. })
        ));
        assert!(matches!(
            decode_slot(&good, size, 99),
            Err(SlotError::Size { .. })
        ));
        let mut count = good.clone();
        count[0] = 3;
        assert_eq!(
            decode_slot(&count, size, 1),
            Err(SlotError::Count { count: 3, room: 2 })
        );
        let mut order = good.clone();
        order[2..10].copy_from_slice(&5u64.to_le_bytes());
        assert_eq!(decode_slot(&order, size, 1), Err(SlotError::Order));
        for cut in 0..good.len() {
            let _ = decode_slot(&good[..cut], size, 1);
        }
    }
}
