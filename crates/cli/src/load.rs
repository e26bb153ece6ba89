//! Loading registry data from what the user points at: a shard file, a build
//! directory (its manifest.json), a site folder (its data/manifest.json), a
//! manifest, or a dump (built in memory); and the default paths of data
//! arguments.

use std::path::{Path, PathBuf};

use registry_core::Registry;
use registry_core::shard::{self, ShardError};

use crate::progress::Step;

/// Reads a file with a message that names it.
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// `given`, else the first of `defaults` that exists (paths relative to
/// the working directory, as the help says, then any fallback); else an
/// error naming every place looked at, that it is the default, and how to
/// pass another (`how`, e.g. `--data <data>`).
pub fn given_or_default(
    given: Option<&Path>,
    defaults: &[PathBuf],
    how: &str,
) -> Result<PathBuf, String> {
    if let Some(g) = given {
        return Ok(g.to_path_buf());
    }
    if let Some(found) = defaults.iter().find(|p| p.exists()) {
        return Ok(found.clone());
    }
    let here = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
    let mut tried = defaults.iter().map(|p| p.display().to_string());
    let first = tried.next().unwrap_or_default();
    let others: String = tried.map(|p| format!(", nor is {p}")).collect();
    Err(format!(
        "no {how} given, and the default {first} (relative to the current directory, \
         {here}) is not there{others}: run from the repository's root, or pass {how}"
    ))
}

/// The manifest a folder given as registry data stands for: its own
/// manifest.json (a build directory), else its data/manifest.json (a site
/// folder given where its data/ folder is expected).
pub fn manifest_in(dir: &Path) -> Result<PathBuf, String> {
    let own = dir.join("manifest.json");
    let site = dir.join("data").join("manifest.json");
    if own.is_file() {
        return Ok(own);
    }
    if site.is_file() {
        return Ok(site);
    }
    Err(format!(
        "{} holds no manifest.json (a build directory, written by `registry build`) \
         and no data/manifest.json (a site folder, written by `registry site`): pass \
         one of those, a .shard file, a manifest.json or a dump",
        dir.display()
    ))
}

/// The file a data path stands for: a folder's manifest ([`manifest_in`]),
/// else the path itself.
pub fn data_file(path: &Path) -> Result<PathBuf, String> {
    if path.is_dir() {
        manifest_in(path)
    } else {
        Ok(path.to_path_buf())
    }
}

/// A manifest.json, read and checked ([`registry_contract::Manifest::checked`]).
pub fn read_manifest(manifest: &Path) -> Result<registry_contract::Manifest, String> {
    let text = read(manifest)?;
    let m: registry_contract::Manifest = serde_json::from_slice(&text)
        .map_err(|e| format!("{} is not a registry manifest: {e}", manifest.display()))?;
    let (m, _) = m
        .checked()
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    Ok(m)
}

/// The full shard file a manifest lists.
pub fn manifest_full_file(manifest: &Path) -> Result<PathBuf, String> {
    let m = read_manifest(manifest)?;
    let dir = manifest.parent().unwrap_or(Path::new("."));
    let full = m
        .files
        .iter()
        .filter(|f| f.sections.iter().any(|x| x == "records"))
        .max_by_key(|f| f.sections.len())
        .ok_or_else(|| format!("{} lists no full shard file", manifest.display()))?;
    Ok(dir.join(&full.name))
}

/// Whether a data file is a manifest (read for the files it lists).
pub fn is_manifest(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "manifest.json")
}

/// Loads a registry from a shard, a build directory, a site folder, a
/// manifest or a dump.
pub fn load(path: &Path, quiet: bool) -> Result<Registry, String> {
    let file = data_file(path)?;
    let files = if is_manifest(&file) {
        vec![manifest_full_file(&file)?]
    } else {
        vec![file]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_default_names_every_place_tried_and_how_to_pass_another() {
        let tried = [
            PathBuf::from("no/such/registry-demo.json"),
            PathBuf::from("/nowhere/registry-demo.json"),
        ];
        let e = given_or_default(None, &tried, "--data <data>").unwrap_err();
        assert!(e.contains("no/such/registry-demo.json"), "{e}");
        assert!(e.contains("/nowhere/registry-demo.json"), "{e}");
        assert!(e.contains("pass --data <data>"), "{e}");
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let found = given_or_default(None, &[tried[0].clone(), here.clone()], "x");
        assert_eq!(found, Ok(here));
        let given = given_or_default(Some(Path::new("mine")), &tried, "x");
        assert_eq!(given, Ok(PathBuf::from("mine")));
    }

    #[test]
    fn a_site_folder_stands_for_its_data_folder() {
        let dir = std::env::temp_dir().join(format!("registry-load-{}", std::process::id()));
        let data = dir.join("site/data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("manifest.json"), "{}").unwrap();
        let site = dir.join("site");
        assert_eq!(data_file(&site), Ok(data.join("manifest.json")));
        assert_eq!(data_file(&data), Ok(data.join("manifest.json")));
        let e = data_file(&dir).unwrap_err();
        assert!(
            e.contains("no manifest.json") && e.contains("data/manifest.json"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
