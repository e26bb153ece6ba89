//! Stores the pieces folder in packs read by range (pieces version 9,
//! [`registry_contract::Packed`]; the slot layout is
//! [`registry_core::shard::packed`]). Version 8 wrote every piece, rank
//! chunk, group file and hash table as a file of its own: 306,616 files at
//! 143,960 records, which no Cloudflare or GitLab Pages plan takes. Here the
//! same files, byte for byte, are concatenated into content-hashed packs of
//! at most 24 MiB, and their locations and hashes go into fixed-size slots
//! that a reader finds by arithmetic: a few dozen files in all.
//!
//! Files keep their names (computed from keys by every reader); only where
//! their bytes are fetched from changes. The first-keystroke pack stays a
//! file of its own, checked by the manifest's hash, so a first keystroke
//! still needs one plain request.

use registry_core::shard::packed::{self, FILE_LIMIT, HASH_BYTES, Location};
use sha2::{Digest, Sha256};

use crate::base::{Base, Kept};
use crate::out_file::OutFile;

/// Folder of the packs, relative to the data folder. Pack and table names
/// hold their content's hash, so the folder is shared by every build: what
/// a release does not change keeps its URL.
pub const FOLDER: &str = "packs/";

/// Files a slot lists, about (as the tree tables of version 8: a request
/// checks ~6 files, each with its own slot, ~1 KB each).
const FILES_PER_SLOT: usize = 8;

/// The packed folder: packs, slot tables and the first-keystroke pack as
/// files to write, and what the manifest says of them.
pub struct PackedFolder {
    pub files: Vec<OutFile>,
    pub packed: registry_contract::Packed,
    /// The first-keystroke pack's name, relative to [`FOLDER`].
    pub first_pack: String,
}

/// The number of slots for `files` files: the power of two nearest (in
/// ratio) to `files / FILES_PER_SLOT`, at least 1.
pub fn slot_count(files: usize) -> u32 {
    let want = (files as f64 / FILES_PER_SLOT as f64).max(1.0);
    1 << (want.log2().round() as u32).min(30)
}

/// Slots and the bytes of each for the files `names` (what `bench-pieces`
/// counts a request's checks with): as many slots as [`slot_count`], each
/// as large as the fullest needs.
pub fn slot_layout<'a>(names: impl Iterator<Item = &'a str>) -> (u32, usize) {
    let names: Vec<(&str, bool)> = names.map(|n| (n, false)).collect();
    slot_layout_with_deltas(&names)
}

/// [`slot_layout`] of files some of which (`true`) have a delta, a second
/// entry in their slot. The slot count follows the files alone: a release
/// with deltas keeps the last one's slot count (and so its slot tables'
/// size) where counting the deltas would double it past a power of two.
fn slot_layout_with_deltas(files: &[(&str, bool)]) -> (u32, usize) {
    let buckets = slot_count(files.len());
    let mut fill = vec![0usize; buckets as usize];
    for (n, delta) in files {
        fill[registry_contract::slot(n, buckets) as usize] += 1 + usize::from(*delta);
    }
    let fullest = fill.into_iter().max().unwrap_or(0);
    (
        buckets,
        packed::slot_bytes(fullest, buckets.trailing_zeros() as usize),
    )
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file named by the hash of its bytes: `<stem>.<16 hex>.pack`.
fn hashed(stem: &str, bytes: Vec<u8>) -> OutFile {
    OutFile {
        name: format!("{FOLDER}{stem}.{}.pack", &hex(&sha256(&bytes))[..16]),
        sections: Vec::new(),
        bytes,
    }
}

/// Packs the files of the pieces folder `folder` (`files`, named under
/// it), in memory, in their order. `first_pack`: the name, under
/// `folder`, of the first-keystroke pack, which stays a file.
#[cfg(test)]
pub fn pack(folder: &str, files: Vec<OutFile>, first_pack: &str) -> Result<PackedFolder, String> {
    let mut w = PackWriter::new(folder, first_pack, None, None);
    for f in files {
        w.add(f)?;
    }
    w.finish()
}

/// Fills packs with the files of the pieces folder as a build makes them
/// (so a term's chunks, a record's neighbours by id, lie side by side,
/// which a CDN's and a browser's caches of one pack then share), each
/// written out as soon as it is full: a build holds one pack, not the
/// folder (550 MB at 143,960 records).
pub struct PackWriter {
    folder: String,
    first_pack: String,
    /// The data folder packs are written into as they fill; `None`: kept
    /// in [`PackedFolder::files`].
    out: Option<std::path::PathBuf>,
    current: Vec<u8>,
    /// Files in `current`, as indexes into `locations`: the file's own
    /// bytes (`false`), or its delta (`true`).
    open: Vec<(usize, bool)>,
    /// Each file's location (its base's, when it has a delta) and its
    /// delta's; `pack` is a kept pack's index in the last release, or
    /// [`OWN`] plus the index of a pack this build wrote, until
    /// [`PackWriter::finish`] knows which kept packs are still read.
    locations: Vec<(String, Location, Option<Location>)>,
    /// The packs this build wrote.
    packs: Vec<String>,
    files: Vec<OutFile>,
    first: Option<String>,
    /// The last release's packs, those still read come first.
    base: Option<Base>,
    /// Bytes of the files kept as the base holds them, with a delta, and
    /// written whole.
    pub tally: Tally,
}

/// Marks, while a build runs, a location in a pack it writes (not one
/// kept from the last release).
const OWN: u16 = 1 << 15;

/// What became of the files given a base, for the progress line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Files the last release holds as they are, and their bytes.
    pub same: [u64; 2],
    /// Files written as a delta: count, the delta's bytes, the file's.
    pub delta: [u64; 3],
    /// Files written whole, and their bytes.
    pub whole: [u64; 2],
}

impl PackWriter {
    /// A writer for the files named under `folder`; packs go into `out`
    /// (a data folder) as they fill, or stay in memory.
    /// `base`: the last release's packs to keep ([`crate::base`]).
    pub fn new(
        folder: &str,
        first_pack: &str,
        out: Option<&std::path::Path>,
        base: Option<Base>,
    ) -> PackWriter {
        PackWriter {
            folder: folder.to_string(),
            first_pack: first_pack.to_string(),
            out: out.map(std::path::Path::to_path_buf),
            current: Vec::new(),
            open: Vec::new(),
            locations: Vec::new(),
            packs: Vec::new(),
            files: Vec::new(),
            first: None,
            base,
            tally: Tally::default(),
        }
    }

    /// Adds one file of the folder.
    pub fn add(&mut self, f: OutFile) -> Result<(), String> {
        let name = f
            .name
            .strip_prefix(&self.folder)
            .ok_or_else(|| format!("{}: not in the pieces folder {}", f.name, self.folder))?
            .to_string();
        if name == self.first_pack {
            let first = hashed("first", f.bytes);
            self.first = Some(first.name[FOLDER.len()..].to_string());
            self.files.push(first);
            return Ok(());
        }
        // Served as stored: JSON compressed here, as a host would have (3–4×).
        let bytes = if name.ends_with(".json") {
            crate::gzip::compress(&f.bytes)
        } else {
            f.bytes
        };
        let kept = match &self.base {
            Some(base) => base.keep(&name, &bytes)?,
            None => Kept::No,
        };
        let size = bytes.len() as u64;
        match kept {
            Kept::Same(at, delta) => {
                self.tally.same = [self.tally.same[0] + 1, self.tally.same[1] + size];
                self.locations.push((name, at, delta));
                Ok(())
            }
            Kept::Delta(at, delta) => {
                let t = &mut self.tally.delta;
                *t = [t[0] + 1, t[1] + delta.len() as u64, t[2] + size];
                self.locations.push((name.clone(), at, None));
                self.write(&name, delta, true)
            }
            Kept::No => {
                self.tally.whole = [self.tally.whole[0] + 1, self.tally.whole[1] + size];
                self.locations
                    .push((name.clone(), Location::default(), None));
                self.write(&name, bytes, false)
            }
        }
    }

    /// Appends `bytes` to the pack being filled, as the last location's
    /// own bytes or its delta.
    fn write(&mut self, name: &str, bytes: Vec<u8>, delta: bool) -> Result<(), String> {
        if bytes.len() > FILE_LIMIT {
            return Err(format!(
                "{name}: {} bytes, more than a pack holds ({FILE_LIMIT})",
                bytes.len()
            ));
        }
        if self.current.len() + bytes.len() > FILE_LIMIT {
            self.close()?;
        }
        let hash = sha256(&bytes);
        let at = Location {
            key: registry_contract::name_key(name),
            hash: hash[..HASH_BYTES].try_into().unwrap_or_default(),
            pack: 0,
            offset: self.current.len() as u32,
            length: bytes.len() as u32,
        };
        let i = self.locations.len() - 1;
        match delta {
            true => self.locations[i].2 = Some(at),
            false => self.locations[i].1 = at,
        }
        self.open.push((i, delta));
        self.current.extend(bytes);
        Ok(())
    }

    /// Ends the pack being filled: its files get its index; it is written
    /// out, or kept.
    fn close(&mut self) -> Result<(), String> {
        let index = u16::try_from(self.packs.len())
            .ok()
            .filter(|&i| i < OWN)
            .map(|i| i | OWN)
            .ok_or("more than 32,767 packs")?;
        for &(i, delta) in &self.open {
            match (delta, &mut self.locations[i]) {
                (true, (_, _, Some(d))) => d.pack = index,
                (_, (_, at, _)) => at.pack = index,
            }
        }
        self.open.clear();
        let pack = hashed("pieces", std::mem::take(&mut self.current));
        self.packs.push(pack.name[FOLDER.len()..].to_string());
        match &self.out {
            Some(dir) => pack.write_under(dir)?,
            None => self.files.push(pack),
        }
        Ok(())
    }

    /// The last pack closed and the slot tables made: what is left to
    /// write (the first-keystroke pack, the tables, and the packs when
    /// kept in memory) and what the manifest says.
    pub fn finish(mut self) -> Result<PackedFolder, String> {
        if !self.current.is_empty() || self.packs.is_empty() {
            self.close()?;
        }
        let first_pack = self
            .first
            .take()
            .ok_or_else(|| format!("no first-keystroke pack {} to keep", self.first_pack))?;
        let base = self.base.take();
        let kept = self.final_packs(base.as_ref().map_or(&[], |b| &b.packs))?;
        let packs = kept
            .iter()
            .cloned()
            .chain(std::mem::take(&mut self.packs))
            .collect();
        let (tables, mut packed) = slot_tables(&self.locations, packs)?;
        if let Some(b) = &base {
            packed.base = kept.len() as u32;
            packed.base_release = Some(b.release.clone());
            if let Some(out) = &self.out {
                b.place(&out.join(FOLDER), &kept)?;
            }
        }
        self.files.extend(tables);
        Ok(PackedFolder {
            files: self.files,
            packed,
            first_pack,
        })
    }

    /// The last release's packs the files still read, in their order, and
    /// every location's final pack index: those first, then the packs this
    /// build wrote. A kept pack nothing reads is dropped.
    fn final_packs(&mut self, last: &[String]) -> Result<Vec<String>, String> {
        let mut read = vec![false; last.len()];
        for (_, at, delta) in &self.locations {
            for l in std::iter::once(at)
                .chain(delta)
                .filter(|l| l.pack & OWN == 0)
            {
                read[l.pack as usize] = true;
            }
        }
        let mut index = vec![0u16; last.len()];
        let mut kept = Vec::new();
        for (i, name) in last.iter().enumerate().filter(|(i, _)| read[*i]) {
            index[i] = kept.len() as u16;
            kept.push(name.clone());
        }
        if kept.len() + self.packs.len() >= usize::from(OWN) {
            return Err("more than 32,767 packs".into());
        }
        let own_start = kept.len() as u16;
        for (_, at, delta) in &mut self.locations {
            for l in std::iter::once(at).chain(delta) {
                l.pack = match l.pack & OWN {
                    0 => index[l.pack as usize],
                    _ => own_start + (l.pack & !OWN),
                };
            }
        }
        Ok(kept)
    }
}

/// The slots of `locations`, as table files, with the tree over them.
fn slot_tables(
    locations: &[(String, Location, Option<Location>)],
    packs: Vec<String>,
) -> Result<(Vec<OutFile>, registry_contract::Packed), String> {
    let files: Vec<(&str, bool)> = locations
        .iter()
        .map(|(n, _, d)| (n.as_str(), d.is_some()))
        .collect();
    let (buckets, slot_bytes) = slot_layout_with_deltas(&files);
    let levels = buckets.trailing_zeros() as usize;
    let mut slots: Vec<Vec<Location>> = vec![Vec::new(); buckets as usize];
    for (name, l, delta) in locations {
        let slot = &mut slots[registry_contract::slot(name, buckets) as usize];
        if slot.iter().any(|o| o.key == l.key) {
            return Err(format!(
                "{name}: its name key is another name's in the same slot; rename a piece kind"
            ));
        }
        slot.push(*l);
        slot.extend(delta);
    }
    let bodies: Vec<Vec<u8>> = slots
        .iter()
        .map(|s| packed::encode_body(s, slot_bytes, levels).ok_or("a slot overflows its size"))
        .collect::<Result<_, _>>()?;
    // The tree, bottom up: a leaf hashes its slot's body, a node its two
    // children's first bytes side by side.
    let mut tree: Vec<Vec<[u8; 32]>> = vec![bodies.iter().map(|b| sha256(b)).collect()];
    while tree[tree.len() - 1].len() > 1 {
        let up = tree[tree.len() - 1]
            .chunks(2)
            .map(|pair| sha256(&[&pair[0][..HASH_BYTES], &pair[1][..HASH_BYTES]].concat()))
            .collect();
        tree.push(up);
    }
    let root = hex(&tree[tree.len() - 1][0]);
    let slots_per_file = (FILE_LIMIT / slot_bytes).max(1);
    let mut tables = Vec::new();
    let mut table = Vec::with_capacity(slots_per_file.min(bodies.len()) * slot_bytes);
    for (i, body) in bodies.into_iter().enumerate() {
        table.extend(body);
        // The proof: the siblings on the way up, leaf level first.
        for (l, level) in tree[..levels].iter().enumerate() {
            table.extend(&level[(i >> l) ^ 1][..HASH_BYTES]);
        }
        if (i + 1) % slots_per_file == 0 {
            tables.push(hashed("tables", std::mem::take(&mut table)));
        }
    }
    if !table.is_empty() {
        tables.push(hashed("tables", table));
    }
    let packed = registry_contract::Packed {
        packs,
        tables: tables
            .iter()
            .map(|t| t.name[FOLDER.len()..].to_string())
            .collect(),
        buckets,
        slot_bytes: slot_bytes as u32,
        slots_per_file: slots_per_file as u32,
        root,
        json_gzip: true,
        kinds: kinds(locations),
        base: 0,
        base_release: None,
    };
    Ok((tables, packed))
}

/// The kind of a file of the pieces folder, by its name (as
/// `registry_core::pieces::search::Need::file_name` and
/// [`crate::pieces`] name them).
pub fn kind_of(name: &str) -> &'static str {
    let stem = name.split('.').next().unwrap_or("");
    let dashes = stem.matches('-').count();
    match stem.split('-').next().unwrap_or("") {
        "r" if name.ends_with(".json") => "record cards",
        "r" => "record pieces",
        "i" => "id pieces",
        "d" => "directory parts",
        "s" | "search" => "statistics",
        "t" | "x" => "term and extension pieces",
        "c" => "member files",
        "g" if dashes >= 3 => "triples' group files",
        "g" => "group files",
        "k" if dashes == 2 => "rank chunks",
        "k" if dashes == 3 => "pairs' rank chunks",
        "k" => "triples' rank chunks",
        "kc" => "rank chunks by country",
        "kt" => "rank chunks by type",
        "p" => "phrase pieces",
        "pk" | "pg" => "phrase rank chunks and group files",
        "e" => "external id pieces",
        _ if name.ends_with(".h.shard") => "heads",
        _ if stem.bytes().all(|b| b.is_ascii_hexdigit()) => "leaves",
        _ => "other",
    }
}

/// `[files, bytes]` by [`kind_of`].
fn kinds(
    locations: &[(String, Location, Option<Location>)],
) -> std::collections::BTreeMap<String, [u64; 2]> {
    let mut out = std::collections::BTreeMap::<String, [u64; 2]>::new();
    for (name, l, _) in locations {
        let k = out.entry(kind_of(name).to_string()).or_default();
        k[0] += 1;
        k[1] += u64::from(l.length);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, bytes: &[u8]) -> OutFile {
        OutFile {
            name: format!("pieces/0123456789abcdef/{name}"),
            sections: Vec::new(),
            bytes: bytes.to_vec(),
        }
    }

    /// What a reader does: the slot by arithmetic, the entry by key, the
    /// bytes by range, each checked; the slot by its proof up to the root.
    fn read(p: &PackedFolder, name: &str) -> Option<Vec<u8>> {
        let m = &p.packed;
        let i = registry_contract::slot(name, m.buckets) as usize;
        let per = m.slots_per_file as usize;
        let table = p
            .files
            .iter()
            .find(|f| f.name == format!("{FOLDER}{}", m.tables[i / per]))?;
        let size = m.slot_bytes as usize;
        let bytes = &table.bytes[(i % per) * size..(i % per + 1) * size];
        let levels = m.buckets.trailing_zeros() as usize;
        let slot = packed::decode_slot(bytes, size, levels).ok()?;
        let mut node = sha256(slot.body);
        for (l, sibling) in slot.proof.iter().enumerate() {
            node = if (i >> l) & 1 == 1 {
                sha256(&[&sibling[..], &node[..HASH_BYTES]].concat())
            } else {
                sha256(&[&node[..HASH_BYTES], &sibling[..]].concat())
            };
        }
        assert_eq!(hex(&node), m.root, "slot {i} proves the root");
        let at = slot.find(registry_contract::name_key(name))?;
        let pack = p
            .files
            .iter()
            .find(|f| f.name == format!("{FOLDER}{}", m.packs[at.pack as usize]))?;
        let body = pack.bytes[at.offset as usize..(at.offset + at.length) as usize].to_vec();
        assert_eq!(sha256(&body)[..HASH_BYTES], at.hash);
        if name.ends_with(".json") {
            return registry_core::container::gunzip(&body).ok();
        }
        Some(body)
    }

    #[test]
    fn every_file_is_found_by_its_name_and_checked_and_a_name_not_packed_is_absent() {
        let mut files: Vec<OutFile> = (0..300)
            .map(|i| {
                file(
                    &format!("k-{i:x}-0.shard"),
                    format!("bytes of {i}").repeat(i % 7 + 1).as_bytes(),
                )
            })
            .collect();
        files.push(file("d-61.json", b"[\"ab\",\"ac\"]"));
        files.push(file("first.pack", b"first"));
        let want: Vec<(String, Vec<u8>)> = files
            .iter()
            .filter(|f| !f.name.ends_with("first.pack"))
            .map(|f| (f.name[24..].to_string(), f.bytes.clone()))
            .collect();
        let p = pack("pieces/0123456789abcdef/", files, "first.pack").unwrap();
        assert!(p.first_pack.starts_with("first.") && p.first_pack.ends_with(".pack"));
        assert!(p.packed.buckets.is_power_of_two() && p.packed.buckets >= 16);
        for (name, bytes) in &want {
            assert_eq!(read(&p, name).as_ref(), Some(bytes), "{name}");
        }
        assert_eq!(read(&p, "k-ffff-0.shard"), None);
        // Content-hashed names: the same files give the same packs.
        assert!(p.files.iter().all(|f| f.name.starts_with(FOLDER)));
    }

    #[test]
    fn files_are_told_apart_by_kind() {
        for (name, kind) in [
            ("6165.shard", "leaves"),
            ("61.h.shard", "heads"),
            ("i-041.shard", "id pieces"),
            ("r-041q.shard", "record pieces"),
            ("r-041q.json", "record cards"),
            ("d-61.json", "directory parts"),
            ("search.stats", "statistics"),
            ("s-61.shard", "statistics"),
            ("k-6f66-3.shard", "rank chunks"),
            ("k-6f66-756e69-0.shard", "pairs' rank chunks"),
            ("k-61-62-63-0.shard", "triples' rank chunks"),
            ("g-61-62-63.shard", "triples' group files"),
            ("g-61-62.shard", "group files"),
            ("kc-6f66-6e67-0.shard", "rank chunks by country"),
            ("kt-6f66-6564-0.shard", "rank chunks by type"),
            ("e-12.shard", "external id pieces"),
            ("p-61-62.shard", "phrase pieces"),
            ("pk-61-62-0.shard", "phrase rank chunks and group files"),
        ] {
            assert_eq!(kind_of(name), kind, "{name}");
        }
    }

    #[test]
    fn packs_split_below_the_file_limit() {
        let big = vec![7u8; FILE_LIMIT / 3 + 1];
        let files = vec![
            file("a", &big),
            file("b", &big),
            file("c", &big),
            file("first.pack", b"f"),
        ];
        let p = pack("pieces/0123456789abcdef/", files, "first.pack").unwrap();
        assert_eq!(p.packed.packs.len(), 2);
        assert!(p.files.iter().all(|f| f.bytes.len() <= FILE_LIMIT));
        for n in ["a", "b", "c"] {
            assert_eq!(read(&p, n).map(|b| b.len()), Some(big.len()));
        }
    }
}
