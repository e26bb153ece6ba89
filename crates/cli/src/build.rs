//! `registry build`: dump → shard files + manifest.json.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use registry_contract::{FileEntry, Manifest};
use registry_core::import::ImportOptions;
use registry_core::model::Record;
use registry_core::shard::{self, BuiltShard, Codec, Compressor, SectionKind, TableOrders};

use crate::deltas::{self, Previous};
use crate::encoders::{Zstd, sha256_hex};
use crate::out_file::OutFile;
use crate::pieces::PieceArgs;
use crate::progress::Step;
use crate::{arg_values, load};

/// Import a dump and write shard files + manifest.json.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// JSON array of v2 records (upstream or spec spelling), plain, .gz, or
    /// a release .zip (the v2 JSON inside is used)
    #[arg(value_name = "dump")]
    dump: PathBuf,
    /// Output directory (created if missing)
    #[arg(short, long, value_name = "dir")]
    out: PathBuf,
    #[command(flatten)]
    build: DataArgs,
}

/// How `build` and `site` build data from a dump.
#[derive(clap::Args)]
pub struct DataArgs {
    /// Data release name stored in the shard (default: derived from the
    /// dump's file name; a shard or build given to `site` keeps its own)
    #[arg(long, value_name = "name")]
    pub release: Option<String>,
    /// Import the valid records and list the invalid ones, instead of
    /// failing on the first report
    #[arg(long)]
    pub skip_invalid: bool,
    /// zstd level (19: smallest files, a few seconds)
    #[arg(long, value_name = "1-22", default_value_t = arg_values::DEFAULT_ZSTD_LEVEL, value_parser = arg_values::zstd_level)]
    pub level: i32,
    #[command(flatten)]
    pub pieces: PieceArgs,
    /// The last release's data or site folder (it may be the output
    /// folder: it is read before it is cleared): its string tables keep
    /// their order, and a returning user updates their offline copy from it
    /// by a delta; the first's packs are kept as they are, and a changed
    /// file is written as a delta from them (unchanged URLs: caches keep
    /// them, a deployer uploads the rest).
    /// Repeat for older releases, the last one first
    #[arg(long, value_name = "dir")]
    pub previous: Vec<PathBuf>,
    /// With --previous: keep none of its packs (a new base; the build does
    /// so by itself once a quarter of the kept packs' bytes are unread)
    #[arg(long, requires = "previous")]
    pub new_base: bool,
    /// No progress output
    #[arg(short, long)]
    pub quiet: bool,
}

impl DataArgs {
    /// The earlier releases given, read now.
    pub fn previous(&self) -> Result<Vec<Previous>, String> {
        self.previous.iter().map(|p| Previous::open(p)).collect()
    }

    /// The packs to keep from the last release ([`crate::base`]).
    pub fn base(&self, previous: &[Previous]) -> Result<Option<crate::base::Base>, String> {
        match previous.first() {
            Some(p) if !self.new_base => p.base(self.quiet),
            _ => Ok(None),
        }
    }
}

/// A release name from a dump file name: `v1.58-2025-01-01-ror-data.zip` → `v1.58-2025-01-01`.
pub fn release_from_path(path: &Path) -> String {
    let mut name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for suffix in [".gz", ".zip", ".json", "_schema_v2", "-ror-data"] {
        if let Some(s) = name.strip_suffix(suffix) {
            name = s.to_string();
        }
    }
    if name.is_empty() {
        "unnamed".into()
    } else {
        name
    }
}

/// Build time: `SOURCE_DATE_EPOCH` when set (reproducible builds), else now.
pub fn build_time() -> u64 {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        })
}

/// The full shard plus one file per section, with content-hashed names.
pub fn shard_files(built: &BuiltShard) -> Vec<OutFile> {
    let mut layouts = vec![("registry", SectionKind::ALL.to_vec())];
    layouts.extend(SectionKind::ALL.iter().map(|k| (k.name(), vec![*k])));
    layouts
        .into_iter()
        .map(|(stem, sections)| {
            let bytes = built.file(&sections);
            let name = format!("{stem}.{}.shard", &sha256_hex(&bytes)[..16]);
            OutFile {
                name,
                sections,
                bytes,
            }
        })
        .collect()
}

/// manifest.json content, without pieces.
pub fn manifest(built: &BuiltShard, records: &[Record], files: &[OutFile]) -> Manifest {
    let mut schema_versions: BTreeMap<String, usize> = BTreeMap::new();
    for r in records {
        *schema_versions
            .entry(r.admin.last_modified.schema_version.clone())
            .or_default() += 1;
    }
    Manifest {
        format: registry_contract::MANIFEST_FORMAT.into(),
        format_version: built.info.format_version,
        release: built.info.release.clone(),
        schema: "v2".into(),
        schema_versions,
        record_count: u64::from(built.info.record_count),
        build_time: built.info.build_time,
        build_id: format!("{:016x}", built.info.build_id),
        // For pages that show the data (the widget demo): an e-mail domain
        // of this data, never a fictional one.
        examples: Some(registry_contract::Examples {
            email_domain: example_email_domain(records),
        }),
        files: files
            .iter()
            .map(|f| FileEntry {
                name: f.name.clone(),
                sections: f.sections.iter().map(|s| s.name().to_string()).collect(),
                bytes: f.bytes.len() as u64,
                sha256: sha256_hex(&f.bytes),
                stored: None,
                deltas: Vec::new(),
            })
            .collect(),
        pieces: None,
    }
}

/// An e-mail domain to try the widget's `domain-from` with, from the data:
/// preferably a unit's domain under its parent organization's (the offer
/// then shows both, the exact domain first), under the parent with the most
/// units; else a domain of the active record with the most units. Shorter
/// domains, then id order, break ties. `None` when no active record has one.
pub fn example_email_domain(records: &[Record]) -> Option<String> {
    let active: std::collections::BTreeMap<&str, &Record> = records
        .iter()
        .filter(|r| r.status == "active")
        .map(|r| (r.id.as_str(), r))
        .collect();
    fn related<'a>(r: &'a Record, kind: &str) -> Vec<&'a str> {
        r.relationships
            .iter()
            .filter(|x| x.kind.eq_ignore_ascii_case(kind))
            .map(|x| x.id.as_str())
            .collect()
    }
    let units = |r: &Record| related(r, "child").len();
    let under = |d: &str, pd: &str| {
        d.len() > pd.len() + 1 && d.ends_with(pd) && d[..d.len() - pd.len()].ends_with('.')
    };
    // (under its parent's domain, the parent's or its own units, shorter):
    // the largest key wins, the first in id order among equals.
    let candidates = active.values().flat_map(|r| {
        let parents: Vec<&Record> = related(r, "parent")
            .into_iter()
            .filter_map(|p| active.get(p).copied())
            .collect();
        r.domains.iter().map(move |d| {
            let parent = parents
                .iter()
                .find(|p| p.domains.iter().any(|pd| under(d, pd)));
            let key = match parent {
                Some(p) => (true, units(p), std::cmp::Reverse(d.len())),
                None => (false, units(r), std::cmp::Reverse(d.len())),
            };
            (key, d)
        })
    });
    candidates
        .min_by_key(|(key, _)| std::cmp::Reverse(*key))
        .map(|(_, d)| d.clone())
}

/// Writes the files and the manifest (manifest last, via rename, so a reader
/// never sees a manifest naming files that are not there yet), then removes
/// what earlier builds left in `dir` ([`remove_previous_builds`]).
pub fn write_output(
    dir: &Path,
    files: &[OutFile],
    manifest: &Manifest,
    quiet: bool,
) -> Result<(), String> {
    let step = Step::start(quiet, format!("writing {}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for f in files {
        f.write_under(dir)?;
    }
    let tmp = dir.join("manifest.json.tmp");
    let text = serde_json::to_string_pretty(manifest).unwrap_or_default() + "\n";
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join("manifest.json"))
        .map_err(|e| format!("cannot write manifest.json: {e}"))?;
    let removed = remove_previous_builds(dir, files, manifest)?;
    step.done(if removed == 0 {
        format!("{} files", files.len() + 1)
    } else {
        format!(
            "{} files; {removed} files and folders of earlier builds removed",
            files.len() + 1
        )
    });
    Ok(())
}

/// Removes from `dir` what earlier builds wrote and this one did not: shard
/// files named as a build names them (`registry.<16 hex>.shard`,
/// `<section>.<16 hex>.shard`), packs of other builds
/// (`packs/<stem>.<16 hex>.pack`) and other builds' piece folders
/// (`pieces/<16 hex>/`, before pieces version 9). A data folder thus holds one build, not every build
/// ever written to it (the demo's and the real registry's: 67 MB instead of
/// 3 MB); nothing else in it is touched. Returns how many went.
pub fn remove_previous_builds(
    dir: &Path,
    files: &[OutFile],
    manifest: &Manifest,
) -> Result<usize, String> {
    let is_hash = |s: &str| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    // What this build wrote: `files`, and the packs written as they filled.
    let packed: Vec<String> = manifest
        .pieces
        .iter()
        .filter_map(|p| p.packed.as_ref().map(|k| (p, k)))
        .flat_map(|(p, k)| {
            k.packs
                .iter()
                .chain(&k.tables)
                .chain(std::iter::once(&p.first_pack.name))
                .map(move |n| format!("{}{n}", p.path))
        })
        .collect();
    let keep: std::collections::HashSet<&str> = files
        .iter()
        .map(|f| f.name.as_str())
        .chain(packed.iter().map(String::as_str))
        .collect();
    let stems: Vec<&str> = std::iter::once("registry")
        .chain(SectionKind::ALL.iter().map(|k| k.name()))
        .collect();
    let mut removed = 0;
    let entries = |d: &Path| {
        std::fs::read_dir(d)
            .map_err(|e| format!("cannot list {}: {e}", d.display()))
            .map(|it| it.filter_map(Result::ok).collect::<Vec<_>>())
    };
    for entry in entries(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name
            .strip_suffix(".shard")
            .and_then(|s| s.rsplit_once('.'))
            .is_some_and(|(stem, hash)| stems.contains(&stem) && is_hash(hash))
            || deltas::is_delta_name(&name);
        if ours && !keep.contains(name.as_str()) && entry.path().is_file() {
            std::fs::remove_file(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
            removed += 1;
        }
    }
    // Packs and slot tables (pieces version 9) are named by their content
    // in a folder every build shares: those this build did not write go.
    let packs = dir.join(crate::packs::FOLDER);
    if packs.is_dir() {
        for entry in entries(&packs)? {
            let name = format!(
                "{}{}",
                crate::packs::FOLDER,
                entry.file_name().to_string_lossy()
            );
            let ours = name
                .strip_suffix(".pack")
                .and_then(|s| s.rsplit_once('.'))
                .is_some_and(|(_, hash)| is_hash(hash));
            if ours && !keep.contains(name.as_str()) && entry.path().is_file() {
                std::fs::remove_file(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
                removed += 1;
            }
        }
    }
    let pieces = dir.join("pieces");
    if pieces.is_dir() {
        let current: Vec<&str> = files
            .iter()
            .filter_map(|f| f.name.strip_prefix("pieces/")?.split('/').next())
            .collect();
        for entry in entries(&pieces)? {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_hash(&name) && !current.contains(&name.as_str()) && entry.path().is_dir() {
                std::fs::remove_dir_all(entry.path())
                    .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Builds a shard from dump bytes.
pub fn build_shard(records: &[Record], release: &str, level: i32) -> Result<BuiltShard, String> {
    build_shard_with_progress(records, release, level, &TableOrders::default(), true)
}

/// zstd that counts the sections it has compressed (for progress).
struct Counted<'a> {
    zstd: Zstd,
    step: RefCell<&'a mut Step>,
    done: Cell<usize>,
}

impl Compressor for Counted<'_> {
    fn codec(&self) -> Codec {
        self.zstd.codec()
    }
    fn compress(&self, raw: &[u8]) -> Vec<u8> {
        let out = self.zstd.compress(raw);
        self.done.set(self.done.get() + 1);
        self.step
            .borrow_mut()
            .count(self.done.get(), SectionKind::ALL.len());
        out
    }
}

/// [`build_shard`], keeping the last release's table `orders`
/// ([`crate::deltas`]), with its compression's progress on stderr.
pub fn build_shard_with_progress(
    records: &[Record],
    release: &str,
    level: i32,
    orders: &TableOrders,
    quiet: bool,
) -> Result<BuiltShard, String> {
    let mut step = Step::start(quiet, format!("compressing sections (zstd -{level})"));
    let counted = Counted {
        zstd: Zstd(level),
        step: RefCell::new(&mut step),
        done: Cell::new(0),
    };
    let kinds = SectionKind::ALL;
    let built = shard::build_after(records, release, build_time(), &counted, &kinds, orders)?;
    step.done(format!("{} sections", SectionKind::ALL.len()));
    Ok(built)
}

/// Every file of a data directory — the shard files, and the pieces in
/// their packs ([`crate::pieces`], [`crate::packs`]) — and the manifest,
/// which lists the shard files and names the packs. `out`: the data folder
/// the packs are written into as they fill (the rest is returned for
/// [`write_output`]); `None`: every file is returned.
pub fn data_files(
    built: &BuiltShard,
    records: Vec<Record>,
    level: i32,
    budget: &registry_core::pieces::PieceBudget,
    earlier: Earlier,
    quiet: bool,
    out: Option<&Path>,
) -> Result<(Vec<OutFile>, Manifest), String> {
    let Earlier {
        releases: previous,
        base,
    } = earlier;
    let mut files = shard_files(built);
    let mut manifest = manifest(built, &records, &files);
    add_deltas_with_progress(&mut files, &mut manifest, previous, quiet)?;
    // The pieces decode what they need from the shard: the records held
    // as values (~0.5 GB at ×4) would set the build's peak.
    drop(records);
    let folder = format!("pieces/{:016x}/", built.info.build_id);
    let base_release = base.as_ref().map(|b| b.release.clone());
    let mut packs = crate::packs::PackWriter::new(&folder, "first.pack", out, base);
    let mut count = 0;
    let mut step = Step::start(quiet, "pieces (typeahead, E2, record pages)");
    let about = crate::pieces::build_pieces(
        built,
        level,
        budget,
        &mut |done, total| step.count(done, total),
        &mut |_, f| {
            count += 1;
            packs.add(f)
        },
    )?;
    step.done(format!(
        "{count} files, {} typeahead pieces",
        about.manifest.pieces
    ));
    if let Some(release) = base_release {
        report_base(&release, &packs.tally, quiet);
    }
    let step = Step::start(quiet, "packs");
    let packed = packs.finish()?;
    step.done(format!(
        "{count} files in {} packs ({} kept) and {} slot tables",
        packed.packed.packs.len(),
        packed.packed.base,
        packed.packed.tables.len()
    ));
    let mut about = about.manifest;
    about.path = crate::packs::FOLDER.into();
    about.first_pack.name = packed.first_pack;
    about.packed = Some(packed.packed);
    manifest.pieces = Some(about);
    files.extend(packed.files);
    Ok((files, manifest))
}

/// What a build is given of earlier releases (`--previous`).
pub struct Earlier<'a> {
    /// The releases, the last one first: deltas from each for the offline copy.
    pub releases: &'a [Previous],
    /// The packs kept from the last one ([`crate::base`]).
    pub base: Option<crate::base::Base>,
}

/// What the packs kept from release `release` did, on stderr.
fn report_base(release: &str, t: &crate::packs::Tally, quiet: bool) {
    if quiet {
        return;
    }
    eprintln!(
        "packs of '{release}' kept: {} files as they were ({} bytes), {} as deltas ({} bytes for {}), {} written whole ({} bytes)",
        t.same[0], t.same[1], t.delta[0], t.delta[1], t.delta[2], t.whole[0], t.whole[1]
    );
}

/// [`deltas::add_deltas`], told on stderr when there are earlier releases.
fn add_deltas_with_progress(
    files: &mut Vec<OutFile>,
    manifest: &mut Manifest,
    previous: &[Previous],
    quiet: bool,
) -> Result<(), String> {
    let step = Step::start(quiet || previous.is_empty(), "deltas from earlier releases");
    let written = deltas::add_deltas(files, manifest, previous)?;
    step.done(format!(
        "{} deltas, {} bytes instead of {}",
        written.deltas, written.bytes, written.instead_of
    ));
    Ok(())
}

pub fn cmd_build(a: BuildArgs) -> Result<(), String> {
    let b = &a.build;
    let quiet = b.quiet;
    let release = b
        .release
        .clone()
        .unwrap_or_else(|| release_from_path(&a.dump));
    let bytes = load::read(&a.dump)?;
    let options = ImportOptions {
        skip_invalid: b.skip_invalid,
    };
    let previous = b.previous()?;
    let base = b.base(&previous)?;
    let imported = crate::import::import_with_progress(&bytes, options, quiet)?;
    let started = Instant::now();
    let orders = deltas::table_orders(&previous)?;
    let built = build_shard_with_progress(&imported.records, &release, b.level, &orders, quiet)?;
    let (files, manifest) = data_files(
        &built,
        imported.records,
        b.level,
        &b.pieces.budget(),
        Earlier {
            releases: &previous,
            base,
        },
        quiet,
        Some(&a.out),
    )?;
    write_output(&a.out, &files, &manifest, quiet)?;
    if !quiet {
        eprintln!("built in {:.1} s", started.elapsed().as_secs_f64());
        report(&a.out, &files, &manifest);
        eprintln!("{} records, release '{release}'", built.info.record_count);
    }
    Ok(())
}

/// What a build wrote, on stderr: the pieces, the shard files, the manifest.
fn report(out: &Path, files: &[OutFile], manifest: &Manifest) {
    eprintln!(
        "  {} typeahead pieces, {} bytes, in {}",
        manifest.pieces.as_ref().map_or(0, |p| p.pieces),
        manifest.pieces.as_ref().map_or(0, |p| p.piece_bytes),
        out.join(manifest.pieces.as_ref().map_or("", |p| p.path.as_str()))
            .display()
    );
    for f in files
        .iter()
        // The shard files, not the thousands of pieces under pieces/.
        .filter(|f| !f.sections.is_empty() && !f.name.contains('/'))
    {
        eprintln!(
            "  {:>10} bytes  {}",
            f.bytes.len(),
            out.join(&f.name).display()
        );
    }
    eprintln!("  manifest: {}", out.join("manifest.json").display());
}
