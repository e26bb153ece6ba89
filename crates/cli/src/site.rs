//! `registry site`: a complete static site folder — the built app (wasm, JS,
//! service worker, widget) plus the data as content-hashed shard files and
//! manifest.json — ready to upload to any static host, under any sub-path.

use std::path::{Path, PathBuf};

use registry_core::import::ImportOptions;
use registry_core::shard::{self, BuiltShard};

use crate::args::Args;
use crate::progress::Step;
use crate::{build, load, parse_level};

/// Files the app folder must have (written by scripts/build-web.sh).
const APP_FILES: [&str; 7] = [
    "index.html",
    "sw.js",
    "sw-control.js",
    "registry.js",
    "registry-worker.js",
    "registry-data.js",
    "pkg/registry_wasm_bg.wasm",
];

const HOSTING: &str = "\
# Hosting this folder

Upload the folder as it is to any static host, at the root or under a sub-path
(`https://host/some/path/`): every URL in the app is relative. `registry serve --root
<this folder> --data <this folder>/data` serves it as asked below (and the API besides).

* Serve `.wasm` as `application/wasm` and `.webmanifest` as `application/manifest+json`.
* Files whose names contain a 16-hex-digit content hash (`data/*.<hash>.shard`,
  `ui/*.<hash>.*`) and everything under `data/pieces/<build id>/` never change:
  `Cache-Control: public, max-age=31536000, immutable`. A missing piece must stay a 404
  (it means \"no record under this prefix\").
* Everything else (`index.html`, `*.js`, `data/manifest.json`, `app-files.json`) must be
  revalidated: `Cache-Control: no-cache`.
* Enable gzip or brotli for `.wasm`, `.js`, `.css`, `.html`, `.json`; the shard files are
  already zstd-compressed.
* HTTPS is required for the service worker (offline use) and for verifying downloads.
* A Content-Security-Policy needs `script-src 'self' 'wasm-unsafe-eval'` and
  `worker-src 'self'`.
* The form widget (`registry-picker.js`) may be embedded from another origin: send
  `Access-Control-Allow-Origin` for the folder. It answers from the typeahead pieces on the
  page's main thread; the few queries that need the whole registry start a Worker through a
  same-origin Blob module, so the page's CSP then needs `worker-src blob: <this origin>`.
";

fn copy_dir(from: &Path, to: &Path, skip: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        if path == skip {
            continue;
        }
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &dest, skip)?;
        } else {
            std::fs::copy(&path, &dest)
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The data as a built shard: from a dump (imported and built), or from a
/// shard file or build directory (its full file re-split without
/// recompressing).
fn data_shard(
    path: &Path,
    release: Option<&str>,
    level: i32,
    a: &Args,
    quiet: bool,
) -> Result<(BuiltShard, Vec<registry_core::Record>), String> {
    let file = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    };
    let file = if file.file_name().is_some_and(|n| n == "manifest.json") {
        load::manifest_full_file(&file)?
    } else {
        file
    };
    let bytes = load::read(&file)?;
    if bytes.starts_with(&shard::MAGIC) {
        let mut step = Step::start(quiet, format!("reading {}", file.display()));
        let built = shard::reopen(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        let registry = registry_core::Registry::from_bytes(&bytes).map_err(|e| e.to_string())?;
        let records: Vec<_> = (0..registry.len())
            .map(|i| {
                step.count(i + 1, registry.len());
                registry.record(i)
            })
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        step.done(format!("{} records", records.len()));
        if release.is_some_and(|r| r != built.info.release) {
            return Err(
                "--release cannot rename an existing shard; build from the dump instead".into(),
            );
        }
        return Ok((built, records));
    }
    let options = ImportOptions {
        skip_invalid: a.flag("--skip-invalid"),
    };
    let imported = build::import_with_progress(&bytes, options, quiet)?;
    let rel = release.map_or_else(|| build::release_from_path(path), str::to_string);
    Ok((
        build::build_shard_with_progress(&imported.records, &rel, level, quiet)?,
        imported.records,
    ))
}

pub fn cmd_site(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(
        rest,
        &[
            "-o",
            "--out",
            "--app",
            "--release",
            "--level",
            "--piece-bytes",
            "--head",
        ],
        &["--skip-invalid", "-q", "--quiet"],
    )?;
    let quiet = a.flag("-q") || a.flag("--quiet");
    let [data] = a.exactly(&["<dump or shard>"])? else {
        unreachable!()
    };
    let out = PathBuf::from(
        a.opt("-o")
            .or(a.opt("--out"))
            .ok_or("site needs an output directory: -o <dir>")?,
    );
    let app = PathBuf::from(a.opt("--app").unwrap_or("target/site"));
    let missing: Vec<&str> = APP_FILES
        .iter()
        .copied()
        .filter(|f| !app.join(f).is_file())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{} is not a built app (missing {}): run `bash scripts/build-web.sh` first, or pass --app <dir>",
            app.display(),
            missing.join(", ")
        ));
    }
    if out.exists() && std::fs::canonicalize(&out).ok() == std::fs::canonicalize(&app).ok() {
        return Err("the output directory must differ from the app directory".into());
    }
    let (built, records) = data_shard(
        Path::new(data),
        a.opt("--release"),
        parse_level(&a)?,
        &a,
        quiet,
    )?;
    if out.join("data").exists() {
        std::fs::remove_dir_all(out.join("data"))
            .map_err(|e| format!("cannot clear {}/data: {e}", out.display()))?;
    }
    copy_dir(&app, &out, &app.join("data"))?;
    let budget = crate::pieces::budget_arg(&a)?;
    let (files, manifest) = build::data_files(&built, &records, parse_level(&a)?, &budget, quiet)?;
    build::write_output(&out.join("data"), &files, &manifest, quiet)?;
    std::fs::write(out.join("HOSTING.md"), HOSTING).map_err(|e| e.to_string())?;
    if !quiet {
        eprintln!(
            "site: {} — release '{}', {} records; upload the folder as is (see HOSTING.md)",
            out.display(),
            built.info.release,
            built.info.record_count
        );
    }
    Ok(())
}
