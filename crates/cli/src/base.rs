//! The packs a build keeps from the last release (`--previous`; pieces
//! version 10): files that outlive a release.
//!
//! Every pack is 24 MiB of pieces, and a release that changes 3 % of the
//! records changes most pieces (a leaf of ~170 records, a rank chunk, an
//! external-id bucket each hold a changed record), so a pack rebuilt from
//! the new release never keeps its bytes or its URL. Instead, the new
//! build keeps the last release's packs as they are, and for each of its
//! files:
//!
//! * the last release's file of that name has the same content (its bytes,
//!   or what its delta makes of its base): the slot lists the same entries,
//!   in the kept packs (nothing written);
//! * a shard file whose content changed: a *delta* from the file's base
//!   (its first entry, wherever it lies: `registry_core::shard::delta`, from
//!   its stored image to the new file's), written into a new pack and listed
//!   after the base entry, when it is at most [`DELTA_SHARE`] of the new
//!   file;
//! * otherwise the file, whole, into a new pack.
//!
//! So a file is always one delta from its base, never a chain, and what a
//! release wrote (whole files, deltas) is kept by the next as long as it
//! still holds what the files are: a deployer uploads what changed since
//! the last release only. A kept pack no file reads any more is dropped;
//! the bytes of kept packs no file reads (a delta replaced by a newer one, a
//! file written whole again) are *dead*. Once they pass [`COMPACT_SHARE`] of
//! the last site's packs, the build starts afresh (a new base: the deployer
//! uploads everything once).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use registry_contract::{Manifest, Packed};
use registry_core::shard::delta;
use registry_core::shard::packed::{self, HASH_BYTES, Location};
use sha2::{Digest, Sha256};

use crate::encoders::Zstd;

/// The largest delta written, as a share of the new file's bytes: a first
/// visit reads base and delta where a fresh build's file would be one read,
/// so a delta near the file's size buys a returning user little and costs
/// a newcomer nearly double.
pub const DELTA_SHARE: f64 = 0.25;

/// The build starts afresh once the bytes of the last site's packs that
/// none of its files reads pass this share of its packs: every release
/// since the base leaves some (replaced deltas, files written whole
/// again), which the host stores and a deployer uploaded for nothing.
/// Measured at ×4 records (`synth --next-release`): 5 % unread after the
/// first release, 17 % after the second (the site 575 → 646 → 752 MB), so
/// the fourth starts afresh, and the site stays well inside the 1 GB of
/// GitHub and GitLab Pages.
pub const COMPACT_SHARE: f64 = 0.25;

/// The compression level of a piece's delta ops: hundreds of thousands of
/// small deltas at ×4, where level 19 takes several times as long for a
/// few per cent.
const DELTA_LEVEL: i32 = 12;

/// The packs of the last release: where each of its files lies, and the
/// pack files to read it from.
pub struct Base {
    /// The folder the pack files are read from.
    dir: PathBuf,
    /// Their names, relative to the packs folder; a location's `pack` indexes it.
    pub packs: Vec<String>,
    /// The release whose build wrote the oldest of them (the last new base).
    pub release: String,
    /// Each file's entries: where its bytes (or its base) lie, and its delta.
    files: HashMap<u64, (Location, Option<Location>)>,
}

/// What the new build does with one of its files, given the last release's.
pub enum Kept {
    /// The last release's file has the same content: its entries.
    Same(Location, Option<Location>),
    /// It holds an earlier version: the base's location, and the delta.
    Delta(Location, Vec<u8>),
    /// Written whole.
    No,
}

/// The bytes of each of `packs` in `dir`.
fn sizes_of(dir: &Path, packs: &[String]) -> Result<Vec<u64>, String> {
    packs
        .iter()
        .map(|n| {
            std::fs::metadata(dir.join(n))
                .map(|m| m.len())
                .map_err(|e| format!("--previous: cannot read {}: {e}", dir.join(n).display()))
        })
        .collect()
}

impl Base {
    /// The packs the last release's data folder `data` (its manifest
    /// `manifest`) hands on. `Ok(None)`, saying why on stderr unless
    /// `quiet`, when there are none to keep: no packs, or time to start
    /// afresh.
    pub fn open(data: &Path, manifest: &Manifest, quiet: bool) -> Result<Option<Base>, String> {
        let Some((pieces, packed)) = manifest
            .pieces
            .as_ref()
            .and_then(|p| Some((p, p.packed.as_ref()?)))
        else {
            return Ok(None);
        };
        let dir = data.join(&pieces.path);
        let files = last_files(&dir, packed)?;
        let sizes = sizes_of(&dir, &packed.packs)?;
        let total: u64 = sizes.iter().sum();
        let read: u64 = files
            .values()
            .flat_map(|(at, delta)| std::iter::once(at).chain(delta))
            .map(|l| u64::from(l.length))
            .sum();
        let dead = total.saturating_sub(read);
        if dead as f64 > COMPACT_SHARE * total as f64 {
            if !quiet {
                eprintln!(
                    "--previous: {dead} of the {total} bytes of its packs are no longer read (more than {:.0} %): a new base is built (upload the whole folder once)",
                    COMPACT_SHARE * 100.0
                );
            }
            return Ok(None);
        }
        for name in &packed.packs {
            check_pack(&dir, name)?;
        }
        Ok(Some(Base {
            dir,
            packs: packed.packs.clone(),
            release: packed
                .base_release
                .clone()
                .unwrap_or_else(|| manifest.release.clone()),
            files,
        }))
    }

    /// Moves the base pack files out of `clearing` (a folder the build is
    /// about to remove, which holds them when the output is the last
    /// release's folder) into `aside`.
    pub fn move_out_of(&mut self, clearing: &Path, aside: &Path) -> Result<(), String> {
        let inside = |p: &Path| {
            let (Ok(p), Ok(c)) = (std::fs::canonicalize(p), std::fs::canonicalize(clearing)) else {
                return false;
            };
            p.starts_with(c)
        };
        if !inside(&self.dir) {
            return Ok(());
        }
        std::fs::create_dir_all(aside)
            .map_err(|e| format!("cannot create {}: {e}", aside.display()))?;
        for name in &self.packs {
            std::fs::rename(self.dir.join(name), aside.join(name))
                .map_err(|e| format!("cannot move {name} aside: {e}"))?;
        }
        self.dir = aside.to_path_buf();
        Ok(())
    }

    /// Puts the kept pack files `names` into the packs folder `to` (a hard
    /// link, or a copy across file systems), unless they are there already.
    pub fn place(&self, to: &Path, names: &[String]) -> Result<(), String> {
        std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
        for name in names {
            let (from, dest) = (self.dir.join(name), to.join(name));
            if dest.exists()
                && std::fs::canonicalize(&dest).ok() == std::fs::canonicalize(&from).ok()
            {
                continue;
            }
            let _ = std::fs::remove_file(&dest);
            if std::fs::hard_link(&from, &dest).is_err() {
                copy_as_it_was(&from, &dest)?;
            }
        }
        Ok(())
    }

    /// What to do with the new build's file `name` of stored bytes `bytes`.
    pub fn keep(&self, name: &str, bytes: &[u8]) -> Result<Kept, String> {
        let Some(&(at, last_delta)) = self.files.get(&registry_contract::name_key(name)) else {
            return Ok(Kept::No);
        };
        if last_delta.is_none() && Sha256::digest(bytes)[..HASH_BYTES] == at.hash {
            return Ok(Kept::Same(at, None));
        }
        if !name.ends_with(".shard") {
            return Ok(Kept::No);
        }
        // A file that is not a shard has no stored image: written whole.
        let (Ok(source), Ok(target)) = (
            delta::stored_image(&self.read(name, &at)?),
            delta::stored_image(bytes),
        ) else {
            return Ok(Kept::No);
        };
        if let Some(d) = last_delta {
            let last = delta::apply(&source, &self.read(name, &d)?, target.len() as u64);
            if last.is_ok_and(|last| last == target) {
                return Ok(Kept::Same(at, Some(d)));
            }
        }
        let made = delta::write(&source, &target, &Zstd(DELTA_LEVEL));
        Ok(if made.len() as f64 <= DELTA_SHARE * bytes.len() as f64 {
            Kept::Delta(at, made)
        } else {
            Kept::No
        })
    }

    /// The bytes at `at` (file `name`, or its delta), checked by their hash.
    fn read(&self, name: &str, at: &Location) -> Result<Vec<u8>, String> {
        use std::io::{Read, Seek, SeekFrom};
        let path = self.dir.join(&self.packs[at.pack as usize]);
        let mut bytes = vec![0; at.length as usize];
        std::fs::File::open(&path)
            .and_then(|mut f| {
                f.seek(SeekFrom::Start(u64::from(at.offset)))?;
                f.read_exact(&mut bytes)
            })
            .map_err(|e| format!("--previous: cannot read {name} in {}: {e}", path.display()))?;
        if Sha256::digest(&bytes)[..HASH_BYTES] != at.hash {
            return Err(format!(
                "--previous: {name} in {} does not match its slot's hash (damaged, or altered): rebuild without --previous",
                path.display()
            ));
        }
        Ok(bytes)
    }
}

/// Copies `from` to `dest` with its modification time: upload tools that
/// compare times (`aws s3 sync`) then skip it as unchanged.
fn copy_as_it_was(from: &Path, dest: &Path) -> Result<(), String> {
    let failed =
        |e: std::io::Error| format!("cannot copy {} to {}: {e}", from.display(), dest.display());
    std::fs::copy(from, dest).map_err(failed)?;
    let modified = std::fs::metadata(from)
        .and_then(|m| m.modified())
        .map_err(failed)?;
    std::fs::File::options()
        .write(true)
        .open(dest)
        .and_then(|f| f.set_modified(modified))
        .map_err(failed)
}

/// Checks that pack `name` in `dir` holds the bytes its name's hash says:
/// a base pack is never rewritten, so a damaged one would be served
/// release after release.
fn check_pack(dir: &Path, name: &str) -> Result<(), String> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("--previous: cannot read {}: {e}", path.display()))?;
    let hash = crate::encoders::sha256_hex(&bytes);
    let named = name
        .strip_suffix(".pack")
        .and_then(|s| s.rsplit_once('.'))
        .map(|(_, h)| h);
    if named.is_none_or(|h| !hash.starts_with(h)) {
        return Err(format!(
            "--previous: {} does not hold the bytes its name says (damaged, or altered): rebuild without --previous",
            path.display()
        ));
    }
    Ok(())
}

/// Every file of the last release, by name key: where its bytes (or its
/// base) lie, and its delta.
fn last_files(
    dir: &Path,
    packed: &Packed,
) -> Result<HashMap<u64, (Location, Option<Location>)>, String> {
    let levels = packed.buckets.trailing_zeros() as usize;
    let size = packed.slot_bytes as usize;
    let mut files = HashMap::new();
    for table in &packed.tables {
        let path = dir.join(table);
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("--previous: cannot read {}: {e}", path.display()))?;
        for slot in bytes.chunks(size) {
            let slot = packed::decode_slot(slot, size, levels)
                .map_err(|e| format!("--previous: {}: {e}", path.display()))?;
            for (at, delta) in slot.files() {
                if (at.pack as usize) < packed.packs.len()
                    && delta.is_none_or(|d| (d.pack as usize) < packed.packs.len())
                {
                    files.insert(at.key, (*at, delta.copied()));
                }
            }
        }
    }
    Ok(files)
}
