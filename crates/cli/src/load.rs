//! Loading registry data from what the user points at: a shard file, a build
//! directory (its manifest.json), a manifest, or a dump (built in memory).

use std::path::{Path, PathBuf};

use registry_core::Registry;
use registry_core::shard::{self, ShardError};

use crate::progress::Step;

/// Reads a file with a message that names it.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// `given`, else `default` (a path relative to the working directory, as
/// the help says) when it exists; else an error saying that it is the
/// default, where it was looked for, and how to pass another (`how`, e.g.
/// `--data <data>`).
pub fn given_or_default<'a>(
    given: Option<&'a str>,
    default: &'a str,
    how: &str,
) -> Result<&'a str, String> {
    if let Some(g) = given {
        return Ok(g);
    }
    if Path::new(default).exists() {
        return Ok(default);
    }
    let here = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
    Err(format!(
        "{default} (the default when no {how} is given) is not there: it is relative to \
         the current directory, {here}; run from the repository's root, or pass {how}"
    ))
}

/// The full shard file a manifest lists.
pub fn manifest_full_file(manifest: &Path) -> Result<PathBuf, String> {
    let text = read(manifest)?;
    let m: registry_contract::Manifest = serde_json::from_slice(&text)
        .map_err(|e| format!("{} is not a registry manifest: {e}", manifest.display()))?;
    let (m, _) = m
        .checked()
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let full = m
        .files
        .iter()
        .filter(|f| f.sections.iter().any(|x| x == "records"))
        .max_by_key(|f| f.sections.len())
        .ok_or_else(|| format!("{} lists no full shard file", manifest.display()))?;
    Ok(dir.join(&full.name))
}

/// Loads a registry from a shard, a build directory, a manifest or a dump.
pub fn load(path: &Path, quiet: bool) -> Result<Registry, String> {
    let files = if path.is_dir() {
        vec![manifest_full_file(&path.join("manifest.json"))?]
    } else if path.file_name().is_some_and(|n| n == "manifest.json") {
        vec![manifest_full_file(path)?]
    } else {
        vec![path.to_path_buf()]
    };
    let bytes: Vec<Vec<u8>> = files.iter().map(|f| read(f)).collect::<Result<_, _>>()?;
    let slices: Vec<&[u8]> = bytes.iter().map(Vec::as_slice).collect();
    match Registry::from_files(&slices) {
        Ok(r) => Ok(r),
        Err(ShardError::NotAShard {
            looks_like: Some(kind),
        }) if !kind.starts_with("HTML") && files.len() == 1 => {
            if !quiet {
                eprintln!(
                    "{} is a dump, not a shard: building an in-memory shard",
                    path.display()
                );
            }
            let imported =
                crate::import::import_with_progress(&bytes[0], Default::default(), quiet)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            let step = Step::start(quiet, "building the shard");
            let built = shard::build(&imported.records, "unnamed", 0, &shard::Stored)?;
            let registry = Registry::from_bytes(&built.full_file()).map_err(|e| e.to_string())?;
            step.done(format!("{} records", registry.len()));
            Ok(registry)
        }
        Err(e) => Err(format!("{}: {e}", files[0].display())),
    }
}
