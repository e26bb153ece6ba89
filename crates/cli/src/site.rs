//! `registry site`: a complete static site folder — the built app (wasm, JS,
//! service worker, widget) plus the data as content-hashed shard files and
//! manifest.json — ready to upload to any static host, under any sub-path.

use std::path::{Path, PathBuf};

use registry_core::import::ImportOptions;
use registry_core::shard::{self, BuiltShard};

use crate::deltas;
use crate::progress::Step;
use crate::{build, load};

/// Write a complete static site: the built app + data.
///
/// The site folder holds the app, its data as content-hashed files under
/// data/, HOSTING.md and _headers: upload it as is to any static host.
#[derive(clap::Args)]
pub struct SiteArgs {
    /// Registry data: a dump, or a .shard file, build directory or site
    /// folder (its full file re-split without recompressing)
    #[arg(value_name = "dump|shard")]
    data: PathBuf,
    /// Output directory (its data/ is replaced)
    #[arg(short, long, value_name = "dir")]
    out: PathBuf,
    /// The built app (from scripts/build-web.sh)
    #[arg(long, value_name = "dir", default_value = "target/site")]
    app: PathBuf,
    #[command(flatten)]
    build: build::DataArgs,
}

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
The folder is a few dozen files: the registry's pieces are stored in packs of at most
24 MiB (`data/packs/*.pack`), which the browser reads piece by piece with HTTP range
requests, so every common static host takes it (Cloudflare Pages: 20,000 files and
25 MiB a file on the free plan; GitLab Pages: 200,000 files, 1 GB; GitHub Pages: 1 GB).
`registry bench-site <this folder>` prints its files, bytes and which caps it fits.

## What the host must do

* **Answer `Range: bytes=a-b` with `206 Partial Content`** on `data/packs/*.pack` (every
  CDN, bucket, nginx, Apache, GitHub, GitLab, Netlify and Cloudflare Pages does). A host
  that ignores it (`python3 -m http.server`) still works: the page notices on its first
  read, stops that download, says so in the browser's console, and answers from the
  whole registry (a slower first visit). Do not compress `.pack` files on the fly (a
  compressed answer cannot be cut into ranges): they are compressed already.
* Serve `.wasm` as `application/wasm` and `.webmanifest` as `application/manifest+json`.
* Files whose names contain a 16-hex-digit content hash (`data/*.<hash>.shard`,
  `data/packs/*.<hash>.pack`, `ui/*.<hash>.*`) never change:
  `Cache-Control: public, max-age=31536000, immutable`.
* Everything else (`index.html`, `*.js`, `data/manifest.json`, `app-files.json`) must be
  revalidated: `Cache-Control: no-cache`.
* Enable gzip or brotli for `.wasm`, `.js`, `.css`, `.html`, `.json`; the shard and pack
  files are already compressed.
* HTTPS is required for the service worker (offline use) and for verifying downloads.
* A Content-Security-Policy needs `script-src 'self' 'wasm-unsafe-eval'` and
  `worker-src 'self'`.
* The form widget (`registry-picker.js`) may be embedded from another origin: send
  `Access-Control-Allow-Origin` (e.g. `*`) for the whole folder, packs included. Its range
  requests carry a single `bytes=a-b`, which browsers send cross-origin without a preflight
  (no `OPTIONS` to answer). It answers from the pieces on the page's main thread; the few
  queries that need the whole registry start a Worker through a same-origin Blob module, so
  the page's CSP then needs `worker-src blob: <this origin>`.

## Per host

* **Netlify, Cloudflare Pages**: the `_headers` file of this folder sets the cache and
  CORS headers above; Range is answered already.
* **nginx**: ranges are on by default (`max_ranges` unset); keep `.pack` out of `gzip_types`.

      location ~ \\.[0-9a-f]{16}\\.(shard|pack|wasm|js|css)$ {
          add_header Cache-Control \"public, max-age=31536000, immutable\";
          add_header Access-Control-Allow-Origin *;
      }
      location / { add_header Cache-Control no-cache; add_header Access-Control-Allow-Origin *; }
      types { application/wasm wasm; application/manifest+json webmanifest; }

* **Apache** (`.htaccess`, mod_headers): ranges are on by default.

      <FilesMatch \"\\.[0-9a-f]{16}\\.(shard|pack|wasm|js|css)$\">
        Header set Cache-Control \"public, max-age=31536000, immutable\"
      </FilesMatch>
      Header set Access-Control-Allow-Origin \"*\"
      AddType application/wasm .wasm

* **GitHub Pages, GitLab Pages, S3/R2/GCS buckets**: Range and the types are answered
  already; GitHub Pages sets its own cache headers (10 minutes), which is safe.

## A new release

Build the new release with the last one's folder given, then replace the old folder:

    registry site <new dump> -o <folder> --previous <folder>

(`--previous` may name the output folder itself: it is read before the build clears it; or
a copy of the deployed site; repeat it for the releases before, the last one first.) Then:

* **Most of the folder does not change.** The build keeps the last release's packs
  (`data/packs/pieces.*.pack`) as they are, same names and bytes, and writes only what
  changed since: a small delta from the kept file where a file changed, new files whole,
  new slot tables. At the real size ~80 % of the folder's bytes are unchanged: upload the
  folder with a tool that skips files already there (`rclone sync`, `aws s3 sync`,
  `wrangler pages deploy`, a git commit), and every browser and CDN cache of those packs
  stays warm. Once a quarter of the kept packs' bytes are no longer read, the build starts
  afresh (it says so; `--new-base` forces it), and that one release uploads everything.
* **Returning users update cheaply.** The build keeps the last release's string tables in
  their order and writes, beside the new data files, a small delta from each earlier
  release's file (`data/*.delta`, a few percent of the files' bytes): an installed PWA
  whose user holds the last release updates its offline copy by them instead of
  downloading it again, and checks the result against the new release's manifest byte for
  byte (any failure: it downloads the files).

Without `--previous` every pack is new and every returning user downloads the whole
offline copy again.

A page opened before the deploy notices that its release's files are gone, says in the
console that a new data release is available, and goes on answering from the new one (its
pieces; never a \"damaged\" report). Keeping the old release's files a little longer is not
needed. The offline copy of an installed PWA is replaced when its user accepts the new
release, which is offered on the next visit. `registry bench-release <old folder> <new
folder>` prints what the release changed: files to upload, bytes unchanged, what a
returning user downloads.

## How to check a deployed site

    registry check-host http://host/path/

reads the site as a page on another origin would: the page, `data/manifest.json`, a
`Range: bytes=0-99` read of a pack (206), `Access-Control-Allow-Origin` on the manifest, the
widget's loader, its wasm and the pack, the wasm's `application/wasm`, the loader's JavaScript
type (browsers refuse a module script of another type) and the cache headers above; it prints
each check with the header to fix and fails when a needed one fails (`--same-origin` when the
widget is not embedded elsewhere: CORS is then not needed). It speaks plain HTTP only (no TLS):
for an https-only host, check the origin server behind the CDN, or by hand:

    curl -sI -H 'Range: bytes=0-99' https://host/path/data/packs/<a pack>.pack

must print `HTTP/… 206` and `Content-Range: bytes 0-99/…`; add `-H 'Origin: https://other.example'`
and look for `Access-Control-Allow-Origin` when the widget is embedded elsewhere.
";

/// `_headers` (Netlify, Cloudflare Pages): HOSTING.md's cache and CORS
/// headers, for a site at the host's root. Both hosts join the values of
/// every rule a path matches, so `no-cache` is not written: it is their
/// default (`max-age=0, must-revalidate`), and written for `/*` it would
/// join the immutable files' `max-age` and win.
const HEADERS: &str = "\
/*
  Access-Control-Allow-Origin: *
/data/packs/*
  Cache-Control: public, max-age=31536000, immutable
/data/*.shard
  Cache-Control: public, max-age=31536000, immutable
/ui/*
  Cache-Control: public, max-age=31536000, immutable
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

/// The data as a built shard: from a dump (imported and built, keeping the
/// last release's table `orders`), or from a shard file or build directory
/// (its full file re-split without recompressing).
fn data_shard(
    a: &SiteArgs,
    orders: &shard::TableOrders,
) -> Result<(BuiltShard, Vec<registry_core::Record>), String> {
    let (path, release, quiet) = (a.data.as_path(), a.build.release.as_deref(), a.build.quiet);
    let file = load::data_file(path)?;
    let file = if load::is_manifest(&file) {
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
        skip_invalid: a.build.skip_invalid,
    };
    let imported = crate::import::import_with_progress(&bytes, options, quiet)?;
    let rel = release.map_or_else(|| build::release_from_path(path), str::to_string);
    Ok((
        build::build_shard_with_progress(&imported.records, &rel, a.build.level, orders, quiet)?,
        imported.records,
    ))
}

pub fn cmd_site(a: SiteArgs) -> Result<(), String> {
    let (out, app, quiet) = (&a.out, &a.app, a.build.quiet);
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
    if out.exists() && std::fs::canonicalize(out).ok() == std::fs::canonicalize(app).ok() {
        return Err("the output directory must differ from the app directory".into());
    }
    // Read before the output folder's data is cleared: it may be the last release's.
    let previous = a.build.previous()?;
    let mut base = a.build.base(&previous)?;
    let aside = out.join(".base-packs");
    if let Some(b) = &mut base {
        b.move_out_of(&out.join("data"), &aside)?;
    }
    let (built, records) = data_shard(&a, &deltas::table_orders(&previous)?)?;
    if out.join("data").exists() {
        std::fs::remove_dir_all(out.join("data"))
            .map_err(|e| format!("cannot clear {}/data: {e}", out.display()))?;
    }
    copy_dir(app, out, &app.join("data"))?;
    let (files, manifest) = build::data_files(
        &built,
        records,
        a.build.level,
        &a.build.pieces.budget(),
        build::Earlier {
            releases: &previous,
            base,
        },
        quiet,
        Some(&out.join("data")),
    )?;
    build::write_output(&out.join("data"), &files, &manifest, quiet)?;
    if aside.exists() {
        std::fs::remove_dir_all(&aside)
            .map_err(|e| format!("cannot remove {}: {e}", aside.display()))?;
    }
    std::fs::write(out.join("HOSTING.md"), HOSTING).map_err(|e| e.to_string())?;
    std::fs::write(out.join("_headers"), HEADERS).map_err(|e| e.to_string())?;
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
