//! `registry build --previous` and `registry site --previous`: the new
//! release's one-section files name their stored image, and a delta from
//! the earlier release's file makes that image byte for byte.

use std::path::{Path, PathBuf};

use registry_contract::Manifest;
use registry_core::shard::delta;
use sha2::{Digest, Sha256};

mod common;
use common::{DEMO, ok, registry};

/// `registry <command> <dump> -o <out> --release <release> --level 3
/// [--previous <p>]… -q` (`command`: build, or site with its `--app`).
fn build(command: &[&str], dump: &str, out: &Path, release: &str, previous: &[&Path]) {
    let mut args: Vec<&str> = command.to_vec();
    let out = out.to_str().unwrap();
    args.extend([dump, "-o", out, "--release", release, "--level", "3", "-q"]);
    for p in previous {
        args.extend(["--previous", p.to_str().unwrap()]);
    }
    ok(&args);
}

fn tmp_dir(name: &str) -> PathBuf {
    common::tmp_dir("deltas", name)
}

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The demo's next release (`registry synth --next-release`), as a path.
fn next_release(dir: &Path) -> String {
    let out = dir.join("next.json");
    let path = out.to_str().unwrap().to_string();
    ok(&[
        "synth",
        DEMO,
        "--next-release",
        "--date",
        "2027-01-05",
        "-o",
        &path,
        "-q",
    ]);
    path
}

/// Every delta of `new` applied to `old`'s file gives the image the new
/// manifest names; returns (delta bytes, file bytes) summed.
fn check_deltas(old: &Path, new: &Path) -> (u64, u64) {
    let (om, nm) = (manifest(old), manifest(new));
    let mut sums = (0, 0);
    for entry in nm.files.iter().filter(|f| f.sections.len() == 1) {
        let stored = entry
            .stored
            .as_ref()
            .expect("every one-section file names its image");
        let image = delta::stored_image(&std::fs::read(new.join(&entry.name)).unwrap()).unwrap();
        assert_eq!(
            (image.len() as u64, sha256(&image)),
            (stored.bytes, stored.sha256.clone())
        );
        let from = om
            .files
            .iter()
            .find(|f| f.sections == entry.sections)
            .unwrap();
        let [d] = entry.deltas.as_slice() else {
            panic!("{}: one delta expected, got {:?}", entry.name, entry.deltas);
        };
        assert_eq!(d.from, from.sha256);
        assert_eq!(d.from_release, om.release);
        let bytes = std::fs::read(new.join(&d.name)).unwrap();
        assert_eq!(
            (bytes.len() as u64, sha256(&bytes)),
            (d.bytes, d.sha256.clone())
        );
        let source = std::fs::read(old.join(&from.name)).unwrap();
        let made =
            delta::apply(&delta::stored_image(&source).unwrap(), &bytes, stored.bytes).unwrap();
        assert_eq!(
            sha256(&made),
            stored.sha256,
            "{}: the delta makes the new image",
            d.name
        );
        sums.0 += d.bytes;
        sums.1 += entry.bytes;
    }
    sums
}

#[test]
fn a_build_given_the_last_release_writes_deltas_that_make_the_new_files() {
    let dir = tmp_dir("build");
    let (a, b) = (dir.join("a"), dir.join("b"));
    build(&["build"], DEMO, &a, "a", &[]);
    assert!(
        manifest(&a).files.iter().all(|f| f.deltas.is_empty()),
        "no earlier release, no delta"
    );
    let next = next_release(&dir);
    build(&["build"], &next, &b, "b", &[&a]);
    let (delta_bytes, file_bytes) = check_deltas(&a, &b);
    assert!(
        delta_bytes * 4 < file_bytes,
        "deltas {delta_bytes} of {file_bytes} bytes"
    );
    // The same folder as output and as the last release: read before it is
    // cleared; the earlier build's files and deltas go.
    build(&["build"], DEMO, &b, "c", &[&b]);
    let names: Vec<String> = std::fs::read_dir(&b)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let c = manifest(&b);
    let listed: Vec<&str> = c
        .files
        .iter()
        .flat_map(|f| {
            std::iter::once(f.name.as_str()).chain(f.deltas.iter().map(|d| d.name.as_str()))
        })
        .collect();
    for name in names
        .iter()
        .filter(|n| n.ends_with(".delta") || n.ends_with(".shard"))
    {
        assert!(
            listed.contains(&name.as_str()),
            "{name} is left from an earlier build"
        );
    }
    assert!(
        c.files
            .iter()
            .any(|f| f.deltas.iter().any(|d| d.from_release == "b"))
    );
}

#[test]
fn a_site_given_its_own_folder_as_the_last_release_carries_deltas() {
    let dir = tmp_dir("site");
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/site");
    if !Path::new(app).join("index.html").exists() {
        println!("skipped: target/site is not built (scripts/build-web.sh)");
        return;
    }
    let (site, keep) = (dir.join("site"), dir.join("a-data"));
    build(&["site", "--app", app], DEMO, &site, "a", &[]);
    // The old data folder, as a user's offline copy holds it.
    std::fs::create_dir_all(&keep).unwrap();
    for e in std::fs::read_dir(site.join("data")).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            std::fs::copy(e.path(), keep.join(e.file_name())).unwrap();
        }
    }
    let next = next_release(&dir);
    build(&["site", "--app", app], &next, &site, "b", &[&site]);
    check_deltas(&keep, &site.join("data"));
}

#[test]
fn a_previous_release_that_is_damaged_or_missing_is_named() {
    let dir = tmp_dir("bad");
    let a = dir.join("a");
    build(&["build"], DEMO, &a, "a", &[]);
    let out = registry(&[
        "build",
        DEMO,
        "-o",
        dir.join("x").to_str().unwrap(),
        "--previous",
        dir.join("nothing").to_str().unwrap(),
        "-q",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--previous"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = manifest(&a)
        .files
        .iter()
        .find(|f| f.sections == ["names"])
        .unwrap()
        .name
        .clone();
    let path = a.join(&names);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.pop();
    std::fs::write(&path, bytes).unwrap();
    let out = registry(&[
        "build",
        DEMO,
        "-o",
        dir.join("y").to_str().unwrap(),
        "--previous",
        a.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains(&names) && err.contains("SHA-256"),
        "{err}"
    );
}
