//! What a build does for the people who hold an earlier release
//! (`registry site --previous <its site>`, `registry build --previous`).
//!
//! A returning user holds the last release's offline copy: the summary,
//! names, records and domains files. A release changes ~3 % of the records,
//! so instead of those files (10 MB at the real size) they download a
//! delta of each (`registry_core::shard::delta`; 3.4 % of the bytes at ×4):
//!
//! 1. the new build keeps the last release's string-table orders
//!    ([`TableOrders`]): a table reordered by new use counts would move
//!    every reference after a moved value;
//! 2. each one-section file gets its *stored image* in the manifest (its
//!    sections uncompressed: what a delta makes, since zstd output cannot
//!    be reproduced in the browser), so a delta's result is checked byte
//!    for byte;
//! 3. for each earlier release given, a delta from its file to the new
//!    image, when smaller than the new file: `<section>.<hash>.delta`,
//!    listed under the file's `deltas` with the earlier file's SHA-256.
//!
//! Several `--previous` folders give deltas from each (a user two releases
//! behind gets one delta, not a chain through files the host no longer
//! has); the first is the last release, whose table orders are kept.

use std::path::Path;

use registry_contract::{DeltaEntry, FileEntry, Manifest, StoredImage};
use registry_core::shard::{self, SectionKind, TableOrders, delta};

use crate::encoders::{Zstd, sha256_hex};
use crate::out_file::OutFile;

/// The compression level of a delta's ops: they are small, and level 19
/// saves ~4 % of them over 12 for twice the time (measured at ×4).
const DELTA_LEVEL: i32 = 19;

/// An earlier release: its manifest and its one-section files' stored
/// images, read when given (the output folder may be the earlier
/// release's, and a build clears it). The images serve both uses: the
/// deltas start from them, and the table orders are read from them without
/// decompressing the files a second time.
pub struct Previous {
    manifest: Manifest,
    /// Its data folder.
    dir: std::path::PathBuf,
    images: Vec<(FileEntry, Vec<u8>)>,
}

impl Previous {
    /// The release in `path`: a site folder or its `data/` folder.
    pub fn open(path: &Path) -> Result<Previous, String> {
        let manifest_path =
            crate::load::manifest_in(path).map_err(|e| format!("--previous: {e}"))?;
        let manifest =
            crate::load::read_manifest(&manifest_path).map_err(|e| format!("--previous: {e}"))?;
        let dir = manifest_path.parent().unwrap_or(Path::new("."));
        let images = manifest
            .files
            .iter()
            .filter(|f| f.sections.len() == 1)
            .map(|entry| {
                let image = delta::stored_image(&checked_read(dir, entry)?)
                    .map_err(|e| format!("--previous: {}: {e}", entry.name))?;
                Ok((entry.clone(), image))
            })
            .collect::<Result<_, String>>()?;
        Ok(Previous {
            manifest,
            dir: dir.to_path_buf(),
            images,
        })
    }

    /// The packs it hands on ([`crate::base::Base::open`]).
    pub fn base(&self, quiet: bool) -> Result<Option<crate::base::Base>, String> {
        crate::base::Base::open(&self.dir, &self.manifest, quiet)
    }

    /// Its release name.
    pub fn release(&self) -> &str {
        &self.manifest.release
    }

    /// Its one-section file of `kind`: the manifest entry and the file's
    /// stored image.
    fn image(&self, kind: SectionKind) -> Option<(&FileEntry, &[u8])> {
        self.images
            .iter()
            .find(|(f, _)| f.sections[0] == kind.name())
            .map(|(f, b)| (f, b.as_slice()))
    }

    /// The orders of its string tables, for the new build to keep.
    pub fn table_orders(&self) -> Result<TableOrders, String> {
        let mut sections = Vec::new();
        let mut info = None;
        for kind in [
            SectionKind::Summary,
            SectionKind::Names,
            SectionKind::Records,
        ] {
            if let Some((_, bytes)) = self.image(kind) {
                let file = shard::read_file(bytes).map_err(|e| format!("--previous: {e}"))?;
                info = Some(file.info);
                sections.extend(file.sections);
            }
        }
        let Some(info) = info else {
            return Ok(TableOrders::default());
        };
        TableOrders::read(&sections, info.record_count, info.format_version)
            .map_err(|e| format!("--previous: {e}"))
    }
}

/// A file of a data folder, checked by its manifest's hash.
fn checked_read(dir: &Path, entry: &FileEntry) -> Result<Vec<u8>, String> {
    let path = dir.join(&entry.name);
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("--previous: cannot read {}: {e}", path.display()))?;
    if sha256_hex(&bytes) != entry.sha256 {
        return Err(format!(
            "--previous: {} does not match its manifest's SHA-256 (damaged, or from another build)",
            path.display()
        ));
    }
    Ok(bytes)
}

/// The table orders to build with: the last release's, or none.
pub fn table_orders(previous: &[Previous]) -> Result<TableOrders, String> {
    previous
        .first()
        .map_or(Ok(TableOrders::default()), Previous::table_orders)
}

/// What [`add_deltas`] wrote, for the progress line and benchmarks.
#[derive(Debug, Default)]
pub struct Written {
    /// Delta files.
    pub deltas: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes of the files they stand for.
    pub instead_of: u64,
}

/// Gives each one-section file of `manifest` its stored image and, from
/// each earlier release, a delta (appended to `files`) when it is smaller
/// than the file.
pub fn add_deltas(
    files: &mut Vec<OutFile>,
    manifest: &mut Manifest,
    previous: &[Previous],
) -> Result<Written, String> {
    let mut written = Written::default();
    let mut new_files = Vec::new();
    for entry in manifest.files.iter_mut().filter(|f| f.sections.len() == 1) {
        let Some(kind) = SectionKind::ALL
            .into_iter()
            .find(|k| k.name() == entry.sections[0])
        else {
            continue;
        };
        let file = files
            .iter()
            .find(|f| f.name == entry.name)
            .ok_or_else(|| format!("{} is listed but was not built", entry.name))?;
        let image = delta::stored_image(&file.bytes).map_err(|e| e.to_string())?;
        entry.stored = Some(StoredImage {
            bytes: image.len() as u64,
            sha256: sha256_hex(&image),
        });
        for p in previous {
            let Some((old, source)) = p.image(kind) else {
                continue;
            };
            if old.sha256 == entry.sha256 {
                continue; // unchanged: the reader holds it already
            }
            let made = delta::write(source, &image, &Zstd(DELTA_LEVEL));
            if made.len() as u64 >= entry.bytes {
                continue;
            }
            let out = OutFile {
                name: format!("{}.{}.delta", kind.name(), &sha256_hex(&made)[..16]),
                sections: Vec::new(),
                bytes: made,
            };
            written.deltas += 1;
            written.bytes += out.bytes.len() as u64;
            written.instead_of += entry.bytes;
            entry.deltas.push(DeltaEntry {
                from: old.sha256.clone(),
                from_release: p.release().to_string(),
                name: out.name.clone(),
                bytes: out.bytes.len() as u64,
                sha256: sha256_hex(&out.bytes),
            });
            new_files.push(out);
        }
    }
    files.extend(new_files);
    Ok(written)
}

/// Whether `name` is a delta file as a build names it.
pub fn is_delta_name(name: &str) -> bool {
    name.strip_suffix(".delta")
        .and_then(|s| s.rsplit_once('.'))
        .is_some_and(|(stem, hash)| {
            SectionKind::ALL.iter().any(|k| k.name() == stem)
                && hash.len() == 16
                && hash.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_names_are_recognised() {
        assert!(is_delta_name("records.0123456789abcdef.delta"));
        assert!(!is_delta_name("records.0123456789abcdef.shard"));
        assert!(!is_delta_name("notes.0123456789abcdef.delta"));
        assert!(!is_delta_name("records.0123.delta"));
    }
}
