//! `registry bench-site <site dir>`: what a built site folder is made of
//! (files, bytes, the largest file, files and bytes by kind) and whether it
//! fits the caps of the static hosts a deployer is likely to use.
//!
//! Only caps the hosts publish are checked (as of 2026-11):
//! * Cloudflare Pages: 20,000 files a site on the free plan, 100,000 on paid
//!   plans, 25 MiB a file (developers.cloudflare.com/pages/platform/limits/);
//! * GitLab Pages (GitLab.com): 200,000 entries a site, directories and
//!   symlinks included, and 1 GB in all (GitLab.com settings, instance
//!   limits);
//! * GitHub Pages: a published site of at most 1 GB, and a deployment that
//!   takes more than 10 minutes times out (docs.github.com, "GitHub Pages
//!   limits"): the time is not measured here.
//!
//! "1 GB" is read as 10^9 bytes, the smaller reading, so a "yes" holds
//! under either. Sizes are apparent sizes (the files' lengths), what an
//! upload sends.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;
const GB: u64 = 1_000_000_000;

/// What a host limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    /// Files in the site.
    Files,
    /// Files and directories in the site (GitLab counts both).
    Entries,
    /// Bytes of the largest file.
    FileBytes,
    /// Bytes of all files.
    TotalBytes,
}

impl Limit {
    fn key(self) -> &'static str {
        match self {
            Limit::Files => "files",
            Limit::Entries => "entries",
            Limit::FileBytes => "file_bytes",
            Limit::TotalBytes => "total_bytes",
        }
    }

    fn describe(self, cap: u64) -> String {
        match self {
            Limit::Files => format!("{} files", thousands(cap)),
            Limit::Entries => format!("{} files + directories", thousands(cap)),
            Limit::FileBytes => format!("{} a file", size(cap)),
            Limit::TotalBytes => format!("{} in all", size(cap)),
        }
    }
}

/// A host and its published caps.
struct Host {
    name: &'static str,
    caps: &'static [(Limit, u64)],
    note: Option<&'static str>,
}

const HOSTS: &[Host] = &[
    Host {
        name: "Cloudflare Pages (free)",
        caps: &[(Limit::Files, 20_000), (Limit::FileBytes, 25 * MIB)],
        note: None,
    },
    Host {
        name: "Cloudflare Pages (paid)",
        caps: &[(Limit::Files, 100_000), (Limit::FileBytes, 25 * MIB)],
        note: None,
    },
    Host {
        name: "GitLab Pages",
        caps: &[(Limit::Entries, 200_000), (Limit::TotalBytes, GB)],
        note: None,
    },
    Host {
        name: "GitHub Pages",
        caps: &[(Limit::TotalBytes, GB)],
        note: Some("a deployment must also finish within 10 minutes (not measured here)"),
    },
];

/// The kinds a file is counted under, in the order printed.
const KINDS: &[&str] = &[
    "app",
    "manifest",
    "whole-data shards",
    "packs",
    "slot tables",
    "pieces r-",
    "pieces k-",
    "pieces kc-",
    "pieces kt-",
    "pieces g-",
    "pieces p-",
    "pieces pk-",
    "pieces pg-",
    "pieces e-",
    "pieces s-",
    "pieces i-",
    "pieces d-",
    "pieces ht-",
    "pieces h-",
    "leaves",
    "heads",
    "data other",
];

/// Piece files by the prefix of their name (`r-041q.json`,
/// `kc-1f-0.shard`, …): (prefix, kind, what they are).
const PIECES: &[(&str, &str, &str)] = &[
    ("r", "pieces r-", "record pieces and cards"),
    ("k", "pieces k-", "rank chunks"),
    ("kc", "pieces kc-", "rank chunks by country"),
    ("kt", "pieces kt-", "rank chunks by type"),
    ("g", "pieces g-", "group files"),
    ("p", "pieces p-", "phrase pieces"),
    ("pk", "pieces pk-", "phrase rank chunks"),
    ("pg", "pieces pg-", "phrase group files"),
    ("e", "pieces e-", "external id pieces"),
    ("s", "pieces s-", "statistics parts"),
    ("i", "pieces i-", "id pieces"),
    ("d", "pieces d-", "directory parts"),
    ("ht", "pieces ht-", "hash tables"),
    ("h", "pieces h-", "two-level hash tables"),
];

/// What each kind is, for the reports.
fn kind_help(kind: &str) -> &'static str {
    if let Some((_, _, what)) = PIECES.iter().find(|(_, k, _)| *k == kind) {
        return what;
    }
    match kind {
        "app" => "everything outside data/",
        "manifest" => "data/manifest.json",
        "whole-data shards" => "data/*.shard",
        "packs" => "*.pack under data/ (but slot tables)",
        "slot tables" => "tables.* under data/",
        "leaves" => "<hex>.shard",
        "heads" => "<hex>.h.shard",
        _ => "anything else under data/",
    }
}

/// The kind of a file by its path relative to the site folder (`/`
/// separated).
fn classify(rel: &str) -> &'static str {
    let Some(data) = rel.strip_prefix("data/") else {
        return "app";
    };
    if data == "manifest.json" {
        return "manifest";
    }
    if !data.contains('/') && data.ends_with(".shard") {
        return "whole-data shards";
    }
    let name = data.rsplit('/').next().unwrap_or(data);
    if name.starts_with("tables.") {
        return "slot tables";
    }
    if name.ends_with(".pack") {
        return "packs";
    }
    if let Some((prefix, _)) = name.split_once('-')
        && let Some((_, kind, _)) = PIECES.iter().find(|(p, _, _)| *p == prefix)
    {
        return kind;
    }
    let is_hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(stem) = name.strip_suffix(".h.shard")
        && is_hex(stem)
    {
        return "heads";
    }
    if let Some(stem) = name.strip_suffix(".shard")
        && is_hex(stem)
    {
        return "leaves";
    }
    "data other"
}

/// What the walk of a site folder found.
#[derive(Debug, Default)]
struct Site {
    files: u64,
    directories: u64,
    bytes: u64,
    largest: Option<(String, u64)>,
    /// `[files, bytes]` by kind.
    kinds: BTreeMap<&'static str, [u64; 2]>,
}

impl Site {
    fn add(&mut self, rel: &str, len: u64) {
        self.files += 1;
        self.bytes += len;
        if self.largest.as_ref().is_none_or(|(_, l)| len > *l) {
            self.largest = Some((rel.to_string(), len));
        }
        let k = self.kinds.entry(classify(rel)).or_default();
        k[0] += 1;
        k[1] += len;
    }

    fn value(&self, limit: Limit) -> u64 {
        match limit {
            Limit::Files => self.files,
            Limit::Entries => self.files + self.directories,
            Limit::FileBytes => self.largest.as_ref().map_or(0, |(_, l)| *l),
            Limit::TotalBytes => self.bytes,
        }
    }
}

/// Walks `root`: every file (symlinks to files counted as files; symlinked
/// directories not entered), in name order.
fn walk(root: &Path) -> Result<Site, String> {
    let mut site = Site::default();
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .collect::<Result<_, _>>()
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if kind.is_dir() {
                site.directories += 1;
                stack.push(path);
                continue;
            }
            let meta = std::fs::metadata(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            if !meta.is_file() {
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .map(|r| r.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            site.add(&rel, meta.len());
        }
    }
    Ok(site)
}

/// One cap of a host against the site.
#[derive(Debug, PartialEq, Eq)]
struct Check {
    limit: Limit,
    cap: u64,
    value: u64,
}

impl Check {
    fn fits(&self) -> bool {
        self.value <= self.cap
    }

    /// Room left (negative: over by that much).
    fn margin(&self) -> i128 {
        i128::from(self.cap) - i128::from(self.value)
    }

    fn margin_text(&self) -> String {
        let m = self.margin();
        let amount = m.unsigned_abs() as u64;
        let plural = if amount == 1 { "" } else { "s" };
        let amount = match self.limit {
            Limit::Files => format!("{} file{plural}", thousands(amount)),
            Limit::Entries => format!(
                "{} entr{}",
                thousands(amount),
                if amount == 1 { "y" } else { "ies" }
            ),
            // In the cap's own unit (MiB a file, GB in all); exact below 1 MB.
            _ if amount < 1_000_000 => format!("{} byte{plural}", thousands(amount)),
            Limit::FileBytes => format!("{:.2} MiB", amount as f64 / MIB as f64),
            Limit::TotalBytes => format!("{:.1} MB", amount as f64 / 1e6),
        };
        let what = match self.limit {
            Limit::FileBytes => " (largest file)",
            _ => "",
        };
        if m >= 0 {
            format!("{amount} left{what}")
        } else {
            format!("over by {amount}{what}")
        }
    }
}

/// A host's verdict.
struct Verdict {
    host: &'static Host,
    checks: Vec<Check>,
}

impl Verdict {
    fn fits(&self) -> bool {
        self.checks.iter().all(Check::fits)
    }
}

fn verdicts(site: &Site) -> Vec<Verdict> {
    HOSTS
        .iter()
        .map(|host| Verdict {
            host,
            checks: host
                .caps
                .iter()
                .map(|&(limit, cap)| Check {
                    limit,
                    cap,
                    value: site.value(limit),
                })
                .collect(),
        })
        .collect()
}

/// `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count for people: `25 MiB`, `1 GB`, `3.4 MB`, `812 B`.
fn size(n: u64) -> String {
    if n >= MIB && n.is_multiple_of(MIB) && n < GB {
        format!("{} MiB", n / MIB)
    } else if n >= GB && n.is_multiple_of(GB) {
        format!("{} GB", n / GB)
    } else if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else if n >= 1_000 {
        format!("{:.1} KB", n as f64 / 1e3)
    } else {
        format!("{n} B")
    }
}

/// The manifest's own count of what the packs hold (`pieces.packed.kinds`,
/// `[files, bytes]` by kind), when it has one: the files inside the packs,
/// which the walk sees only as packs.
fn packed_kinds(root: &Path) -> Option<BTreeMap<String, [u64; 2]>> {
    let bytes = std::fs::read(root.join("data/manifest.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let kinds = manifest.pointer("/pieces/packed/kinds")?.as_object()?;
    kinds
        .iter()
        .map(|(k, v)| {
            let pair = v.as_array()?;
            Some((k.clone(), [pair.first()?.as_u64()?, pair.get(1)?.as_u64()?]))
        })
        .collect()
}

fn text_report(root: &Path, site: &Site, packed: Option<&BTreeMap<String, [u64; 2]>>) -> String {
    let mut out = String::new();
    let line = |out: &mut String, s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(
        &mut out,
        format!(
            "site {}: {} files ({} directories), {} bytes ({})",
            root.display(),
            thousands(site.files),
            thousands(site.directories),
            thousands(site.bytes),
            size(site.bytes)
        ),
    );
    if let Some((name, len)) = &site.largest {
        line(
            &mut out,
            format!(
                "largest file: {name}, {} bytes ({:.2} MiB)",
                thousands(*len),
                *len as f64 / MIB as f64
            ),
        );
    }
    line(&mut out, String::new());
    line(
        &mut out,
        format!("{:<20} {:>9} {:>15}  what", "kind", "files", "bytes"),
    );
    for kind in KINDS {
        if let Some([files, bytes]) = site.kinds.get(kind) {
            line(
                &mut out,
                format!(
                    "{kind:<20} {:>9} {:>15}  {}",
                    thousands(*files),
                    thousands(*bytes),
                    kind_help(kind)
                ),
            );
        }
    }
    if let Some(packed) = packed.filter(|p| !p.is_empty()) {
        line(&mut out, String::new());
        line(
            &mut out,
            format!(
                "{:<20} {:>9} {:>15}  (what the packs hold, from the manifest's pieces.packed.kinds)",
                "inside the packs", "files", "bytes"
            ),
        );
        for (kind, [files, bytes]) in packed {
            line(
                &mut out,
                format!(
                    "  {kind:<18} {:>9} {:>15}",
                    thousands(*files),
                    thousands(*bytes)
                ),
            );
        }
    }
    line(&mut out, String::new());
    line(
        &mut out,
        format!("{:<24} {:<42} {:<4} margin", "host", "caps", "fits"),
    );
    for v in verdicts(site) {
        let caps: Vec<String> = v.checks.iter().map(|c| c.limit.describe(c.cap)).collect();
        let margins: Vec<String> = v.checks.iter().map(Check::margin_text).collect();
        let mut margin = margins.join("; ");
        if let Some(note) = v.host.note {
            margin.push_str("; ");
            margin.push_str(note);
        }
        line(
            &mut out,
            format!(
                "{:<24} {:<42} {:<4} {margin}",
                v.host.name,
                caps.join(", "),
                if v.fits() { "yes" } else { "no" }
            ),
        );
    }
    out
}

fn json_report(
    root: &Path,
    site: &Site,
    packed: Option<&BTreeMap<String, [u64; 2]>>,
) -> serde_json::Value {
    use serde_json::json;
    let kinds: Vec<serde_json::Value> = KINDS
        .iter()
        .filter_map(|k| {
            site.kinds.get(k).map(|[files, bytes]| {
                json!({"kind": k, "what": kind_help(k), "files": files, "bytes": bytes})
            })
        })
        .collect();
    let hosts: Vec<serde_json::Value> = verdicts(site)
        .iter()
        .map(|v| {
            json!({
                "host": v.host.name,
                "fits": v.fits(),
                "caps": v.checks.iter().map(|c| json!({
                    "limit": c.limit.key(),
                    "cap": c.cap,
                    "value": c.value,
                    "margin": c.margin() as i64,
                    "fits": c.fits(),
                })).collect::<Vec<_>>(),
                "note": v.host.note,
            })
        })
        .collect();
    json!({
        "site": root.display().to_string(),
        "files": site.files,
        "directories": site.directories,
        "bytes": site.bytes,
        "largest": site.largest.as_ref().map(|(name, bytes)| json!({"path": name, "bytes": bytes})),
        "kinds": kinds,
        "packed_kinds": packed,
        "hosts": hosts,
    })
}

/// What a built site folder holds and which hosts take it.
///
/// Files, bytes, the largest file, files and bytes by kind (app, the
/// manifest, whole-data shards, packs, slot tables, pieces by name prefix,
/// leaves, heads, other; what the packs hold, from the manifest), and a
/// yes/no with the margin for each host's caps: Cloudflare Pages free
/// (20,000 files, 25 MiB a file) and paid (100,000 files, 25 MiB a file),
/// GitLab Pages (200,000 files and directories, 1 GB), GitHub Pages (1 GB;
/// a deploy must finish within 10 minutes: not measured).
#[derive(clap::Args)]
pub struct BenchSiteArgs {
    /// A site folder (written by `registry site`)
    #[arg(value_name = "site dir")]
    dir: PathBuf,
    /// The same figures as JSON
    #[arg(long)]
    json: bool,
}

pub fn cmd_bench_site(a: BenchSiteArgs) -> Result<(), String> {
    let root = a.dir;
    if !root.is_dir() {
        return Err(format!("{} is not a directory", root.display()));
    }
    let site = walk(&root)?;
    let packed = packed_kinds(&root);
    let text = if a.json {
        let v = json_report(&root, &site, packed.as_ref());
        serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
    } else {
        text_report(&root, &site, packed.as_ref())
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_classified_by_path() {
        for (rel, kind) in [
            ("index.html", "app"),
            ("ui/registry_ui_bg.0123456789abcdef.wasm", "app"),
            ("pkg/data/x.shard", "app"),
            ("data/manifest.json", "manifest"),
            ("data/registry.e40424f332652c42.shard", "whole-data shards"),
            ("data/names.2938d10db729cb5c.shard", "whole-data shards"),
            ("data/packs/pieces.b53346a3d7558c28.pack", "packs"),
            ("data/packs/first.119ccdcf8d20b4f5.pack", "packs"),
            ("data/pieces/0123456789abcdef/first.pack", "packs"),
            ("data/packs/tables.7a4e57af4940cbad.pack", "slot tables"),
            ("data/pieces/0123456789abcdef/r-041q.json", "pieces r-"),
            ("data/pieces/0123456789abcdef/r-041q.shard", "pieces r-"),
            ("data/pieces/0123456789abcdef/k-1f-2a-0.shard", "pieces k-"),
            ("data/pieces/0123456789abcdef/kc-1f-0.shard", "pieces kc-"),
            ("data/pieces/0123456789abcdef/kt-1f-0.shard", "pieces kt-"),
            ("data/pieces/0123456789abcdef/g-1f-2a.shard", "pieces g-"),
            ("data/pieces/0123456789abcdef/p-1f.shard", "pieces p-"),
            ("data/pieces/0123456789abcdef/pk-1f-0.shard", "pieces pk-"),
            ("data/pieces/0123456789abcdef/pg-1f.shard", "pieces pg-"),
            ("data/pieces/0123456789abcdef/e-wd-q1.shard", "pieces e-"),
            ("data/pieces/0123456789abcdef/s-3.shard", "pieces s-"),
            ("data/pieces/0123456789abcdef/i-041.shard", "pieces i-"),
            ("data/pieces/0123456789abcdef/d-61.json", "pieces d-"),
            ("data/pieces/0123456789abcdef/ht-12.json", "pieces ht-"),
            ("data/pieces/0123456789abcdef/h-3.json", "pieces h-"),
            ("data/pieces/0123456789abcdef/6162.shard", "leaves"),
            ("data/pieces/0123456789abcdef/6162.h.shard", "heads"),
            ("data/pieces/0123456789abcdef/search.stats", "data other"),
            ("data/pieces/0123456789abcdef/zz-1.shard", "data other"),
            ("data/pieces/0123456789abcdef/xyz.shard", "data other"),
            ("data/README.txt", "data other"),
        ] {
            assert_eq!(classify(rel), kind, "{rel}");
            assert!(KINDS.contains(&kind));
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("registry-bench-site-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (rel, len) in [
            ("index.html", 100),
            ("ui/app.0123456789abcdef.js", 2_000),
            ("data/manifest.json", 50),
            ("data/registry.0123456789abcdef.shard", 30_000),
            ("data/packs/pieces.0123456789abcdef.pack", 70_000),
            ("data/packs/tables.0123456789abcdef.pack", 700),
            ("data/pieces/0123456789abcdef/6162.shard", 10),
            ("data/pieces/0123456789abcdef/6162.h.shard", 20),
            ("data/pieces/0123456789abcdef/r-041q.json", 30),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, vec![b'x'; len]).unwrap();
        }
        root
    }

    #[test]
    fn a_tiny_site_fits_every_host_with_its_margins() {
        let root = scratch("tiny");
        let site = walk(&root).unwrap();
        assert_eq!(site.files, 9);
        // ui, data, data/packs, data/pieces, data/pieces/<id>
        assert_eq!(site.directories, 5);
        assert_eq!(site.bytes, 102_910);
        assert_eq!(
            site.largest,
            Some((
                "data/packs/pieces.0123456789abcdef.pack".to_string(),
                70_000
            ))
        );
        assert_eq!(site.kinds["app"], [2, 2_100]);
        assert_eq!(site.kinds["manifest"], [1, 50]);
        assert_eq!(site.kinds["whole-data shards"], [1, 30_000]);
        assert_eq!(site.kinds["packs"], [1, 70_000]);
        assert_eq!(site.kinds["slot tables"], [1, 700]);
        assert_eq!(site.kinds["leaves"], [1, 10]);
        assert_eq!(site.kinds["heads"], [1, 20]);
        assert_eq!(site.kinds["pieces r-"], [1, 30]);
        let v = verdicts(&site);
        assert_eq!(v.len(), 4);
        assert!(v.iter().all(Verdict::fits));
        let margins = |i: usize| v[i].checks.iter().map(Check::margin).collect::<Vec<_>>();
        assert_eq!(margins(0), [20_000 - 9, 25 * 1_048_576 - 70_000]);
        assert_eq!(margins(1), [100_000 - 9, 25 * 1_048_576 - 70_000]);
        assert_eq!(margins(2), [200_000 - 14, 1_000_000_000 - 102_910]);
        assert_eq!(margins(3), [1_000_000_000 - 102_910]);
        let text = text_report(&root, &site, None);
        assert!(
            text.contains("9 files (5 directories), 102,910 bytes"),
            "{text}"
        );
        assert!(text.contains("Cloudflare Pages (free)"), "{text}");
        assert!(text.contains("19,991 files left"), "{text}");
        assert!(text.contains("10 minutes"), "{text}");
        let json = json_report(&root, &site, None);
        assert_eq!(json["files"], 9);
        assert_eq!(json["hosts"][2]["caps"][0]["limit"], "entries");
        assert_eq!(json["hosts"][2]["caps"][0]["margin"], 199_986);
        assert_eq!(json["hosts"][3]["fits"], true);
        assert_eq!(json["kinds"][0]["kind"], "app");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn verdicts_say_no_with_what_is_over() {
        let mut site = Site {
            files: 20_001,
            directories: 200_000,
            bytes: 1_000_000_001,
            largest: Some(("data/packs/big.pack".into(), 25 * MIB + 1)),
            kinds: BTreeMap::new(),
        };
        let v = verdicts(&site);
        let fits: Vec<bool> = v.iter().map(Verdict::fits).collect();
        assert_eq!(fits, [false, false, false, false]);
        assert_eq!(v[0].checks[0].margin_text(), "over by 1 file");
        assert_eq!(
            v[0].checks[1].margin_text(),
            "over by 1 byte (largest file)"
        );
        assert_eq!(v[1].checks[0].margin_text(), "79,999 files left");
        assert_eq!(v[2].checks[0].margin(), -20_001);
        // Exactly at every cap: fits (a cap is the most allowed).
        site.files = 20_000;
        site.directories = 180_000;
        site.bytes = GB;
        site.largest = Some(("data/packs/big.pack".into(), 25 * MIB));
        let fits: Vec<bool> = verdicts(&site).iter().map(Verdict::fits).collect();
        assert_eq!(fits, [true, true, true, true]);
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(25_165_003), "25,165,003");
        assert_eq!(size(25 * MIB), "25 MiB");
        assert_eq!(size(GB), "1 GB");
        assert_eq!(size(3_400_000), "3.4 MB");
        assert_eq!(size(812), "812 B");
    }
}
