//! `registry bench-release <old site> <new site>`: what a new release costs
//! the people who host and use the site (issue #37) — the files a deployer
//! uploads, the bytes that keep their URL (so CDN and browser caches stay
//! warm), and what a returning user downloads to be current.
//!
//! Two measures of "unchanged": **by URL** (same path, same bytes: nothing
//! to upload, every cache keeps it) and **by content** (the pieces inside
//! the packs, by name and hash: what a build that reuses the old release's
//! pieces could keep, whatever pack they sit in).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use registry_contract::Manifest;
use registry_core::shard::packed;
use sha2::{Digest, Sha256};

/// Every file of a site: path (`/` separated) → (bytes, SHA-256).
fn files_of(root: &Path) -> Result<BTreeMap<String, (u64, [u8; 32])>, String> {
    let mut out = BTreeMap::new();
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        {
            let path = entry
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes =
                std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let rel = path
                .strip_prefix(root)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            out.insert(rel, (bytes.len() as u64, Sha256::digest(&bytes).into()));
        }
    }
    Ok(out)
}

fn manifest_of(root: &Path) -> Result<Manifest, String> {
    let path = root.join("data/manifest.json");
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read {}: {e} (not a site written by `registry site`?)",
            path.display()
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The files inside the packs, from every slot: (name key, hash) → bytes
/// of each file (of its base, for a file with a delta: pieces version 10),
/// and `[files, bytes]` of the deltas.
type PackedFiles = (HashMap<(u64, [u8; packed::HASH_BYTES]), u64>, [u64; 2]);

fn packed_files(root: &Path, m: &Manifest) -> Result<PackedFiles, String> {
    let Some(pieces) = &m.pieces else {
        return Ok((HashMap::new(), [0, 0]));
    };
    let Some(k) = &pieces.packed else {
        return Err(format!(
            "{}: its pieces are not packed (built before version 9): rebuild it",
            root.display()
        ));
    };
    let folder = root.join("data").join(&pieces.path);
    let (size, per) = (k.slot_bytes as usize, k.slots_per_file as usize);
    let levels = k.buckets.trailing_zeros() as usize;
    let (mut out, mut deltas) = (HashMap::new(), [0, 0]);
    for (t, table) in k.tables.iter().enumerate() {
        let bytes =
            std::fs::read(folder.join(table)).map_err(|e| format!("cannot read {table}: {e}"))?;
        for (j, slot) in bytes.chunks(size).enumerate() {
            let slot = packed::decode_slot(slot, size, levels)
                .map_err(|e| format!("{table}, slot {}: {e}", t * per + j))?;
            for (at, delta) in slot.files() {
                out.insert((at.key, at.hash), u64::from(at.length));
                if let Some(d) = delta {
                    deltas = [deltas[0] + 1, deltas[1] + u64::from(d.length)];
                }
            }
        }
    }
    Ok((out, deltas))
}

/// What a returning user holding the old release's offline copy (its
/// one-section files: summary, names, records, domains) downloads to be
/// current: nothing for a file unchanged, the delta from the file they hold
/// when the new manifest lists one (applied here, and checked to make the
/// new file's image byte for byte), else the file.
#[derive(Debug, Default)]
struct Offline {
    /// Bytes of the new offline copy.
    bytes: u64,
    /// Bytes downloaded to be current.
    downloaded: u64,
    /// Files updated by a delta.
    by_delta: u64,
    /// Files downloaded whole.
    whole: u64,
}

fn offline_update(old: &Path, om: &Manifest, new: &Path, nm: &Manifest) -> Result<Offline, String> {
    use registry_core::shard::delta;
    let read = |root: &Path, name: &str| {
        let path = root.join("data").join(name);
        std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let mut o = Offline::default();
    for entry in nm.files.iter().filter(|f| f.sections.len() == 1) {
        o.bytes += entry.bytes;
        let Some(held) = om.files.iter().find(|f| f.sections == entry.sections) else {
            (o.downloaded, o.whole) = (o.downloaded + entry.bytes, o.whole + 1);
            continue;
        };
        if held.sha256 == entry.sha256 {
            continue;
        }
        let usable = entry
            .deltas
            .iter()
            .find(|d| d.from == held.sha256 && d.bytes < entry.bytes);
        let (Some(d), Some(stored)) = (usable, &entry.stored) else {
            (o.downloaded, o.whole) = (o.downloaded + entry.bytes, o.whole + 1);
            continue;
        };
        let source = delta::stored_image(&read(old, &held.name)?).map_err(|e| e.to_string())?;
        let made = delta::apply(&source, &read(new, &d.name)?, stored.bytes)
            .map_err(|e| format!("{}: {e}", d.name))?;
        if crate::encoders::sha256_hex(&made) != stored.sha256 {
            return Err(format!(
                "{}: its result is not {}'s image",
                d.name, entry.name
            ));
        }
        (o.downloaded, o.by_delta) = (o.downloaded + d.bytes, o.by_delta + 1);
    }
    Ok(o)
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The figures, as printed.
#[derive(Debug)]
struct Report {
    old_release: String,
    new_release: String,
    old_records: u64,
    new_records: u64,
    /// `[files, bytes]` of the new site.
    site: [u64; 2],
    /// `[files, bytes]` with the same path and bytes in the old site.
    same_url: [u64; 2],
    /// `[files, bytes]` of the pieces inside the new packs.
    pieces: [u64; 2],
    /// `[files, bytes]` of those whose name and hash the old packs hold
    /// (for a file with a delta: its base's).
    pieces_kept: [u64; 2],
    /// `[files, bytes]` of the deltas (each read beside its base).
    deltas: [u64; 2],
    /// What a returning user downloads to be current.
    offline: Offline,
}

/// What a new release costs.
///
/// The new site's files and bytes unchanged by URL (a deployer uploads the
/// rest; caches keep them), its pieces whose bytes the old packs hold, and
/// the bytes of the offline copy a returning user downloads.
#[derive(clap::Args)]
pub struct BenchReleaseArgs {
    /// The site folder of the release before (written by `registry site`)
    #[arg(value_name = "old site")]
    old: PathBuf,
    /// The site folder of the new release
    #[arg(value_name = "new site")]
    new: PathBuf,
    /// The same figures as JSON
    #[arg(long)]
    json: bool,
}

pub fn cmd_bench_release(a: BenchReleaseArgs) -> Result<(), String> {
    let (old, new) = (a.old.as_path(), a.new.as_path());
    let (om, nm) = (manifest_of(old)?, manifest_of(new)?);
    let (of, nf) = (files_of(old)?, files_of(new)?);
    let ((op, _), (np, deltas)) = (packed_files(old, &om)?, packed_files(new, &nm)?);
    let sum = |it: &mut dyn Iterator<Item = u64>| it.fold([0, 0], |[n, b], len| [n + 1, b + len]);
    let r = Report {
        old_release: om.release.clone(),
        new_release: nm.release.clone(),
        old_records: om.record_count,
        new_records: nm.record_count,
        site: sum(&mut nf.values().map(|(len, _)| *len)),
        same_url: sum(&mut nf
            .iter()
            .filter(|(p, f)| of.get(*p) == Some(f))
            .map(|(_, (len, _))| *len)),
        pieces: sum(&mut np.values().copied()),
        pieces_kept: sum(&mut np
            .iter()
            .filter(|(k, _)| op.contains_key(k))
            .map(|(_, len)| *len)),
        deltas,
        offline: offline_update(old, &om, new, &nm)?,
    };
    if a.json {
        let json = serde_json::json!({
            "old_release": r.old_release, "new_release": r.new_release,
            "old_records": r.old_records, "new_records": r.new_records,
            "site": r.site, "same_url": r.same_url,
            "pieces": r.pieces, "pieces_kept": r.pieces_kept, "deltas": r.deltas,
            "offline": [r.offline.bytes, r.offline.downloaded],
            "offline_files": {"by_delta": r.offline.by_delta, "whole": r.offline.whole},
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "release '{}' ({} records) → '{}' ({} records)",
        r.old_release, r.old_records, r.new_release, r.new_records
    );
    println!("new site: {} files, {} bytes", r.site[0], r.site[1]);
    println!(
        "  unchanged by URL (same path, same bytes; caches keep them): {} files, {} bytes ({:.1} %)",
        r.same_url[0],
        r.same_url[1],
        percent(r.same_url[1], r.site[1])
    );
    println!(
        "  to upload: {} files, {} bytes",
        r.site[0] - r.same_url[0],
        r.site[1] - r.same_url[1]
    );
    println!(
        "pieces inside the packs: {} files, {} bytes; same name and bytes in the old packs: {} files, {} bytes ({:.1} %)",
        r.pieces[0],
        r.pieces[1],
        r.pieces_kept[0],
        r.pieces_kept[1],
        percent(r.pieces_kept[1], r.pieces[1])
    );
    if r.deltas[0] > 0 {
        println!(
            "  of those, files read with a delta from the old bytes (pieces version 10): {} files, {} bytes of deltas",
            r.deltas[0], r.deltas[1]
        );
    }
    let o = &r.offline;
    println!(
        "a returning user's offline copy: {} bytes; downloaded to be current: {} ({:.1} %): {} files by a delta (each applied here: it makes the new file's image byte for byte), {} files whole",
        o.bytes,
        o.downloaded,
        percent(o.downloaded, o.bytes),
        o.by_delta,
        o.whole
    );
    Ok(())
}
