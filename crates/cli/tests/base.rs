//! `--previous` keeps the last release's packs (pieces version 10): the new
//! folder lists them first, byte for byte, and every file read through the
//! slots (a delta applied to its base where the slot lists one) is the file
//! a build without them writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use registry_contract::{Manifest, Packed};
use registry_core::shard::{delta, packed};

mod common;
use common::{DEMO, ok, registry};

/// `registry build <dump> -o <out> --release <release> --level 3` and `more`.
fn build(dump: &str, out: &Path, release: &str, more: &[&str]) -> String {
    let mut args = vec!["build", dump, "-o", out.to_str().unwrap()];
    args.extend(["--release", release, "--level", "3"]);
    args.extend(more);
    ok(&args)
}

fn tmp_dir(name: &str) -> PathBuf {
    common::tmp_dir("base", name)
}

fn packed_of(dir: &Path) -> Packed {
    let m: Manifest =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        m.pieces.as_ref().unwrap().version,
        registry_contract::PIECES_VERSION
    );
    m.pieces.unwrap().packed.unwrap()
}

/// The next release of `dump` (`registry synth --next-release`).
fn next_release(dump: &str, dir: &Path, date: &str) -> String {
    let path = dir.join(format!("next-{date}.json"));
    let path = path.to_str().unwrap().to_string();
    ok(&[
        "synth",
        dump,
        "--next-release",
        "--date",
        date,
        "-o",
        &path,
        "-q",
    ]);
    path
}

/// What a reader gets for each file of the packed data folder `dir`, by
/// name key: its bytes, or the stored image its delta makes from its base.
/// Also how many files had a delta.
fn read_all(dir: &Path) -> (BTreeMap<u64, Vec<u8>>, usize) {
    let k = packed_of(dir);
    let packs: Vec<Vec<u8>> = k
        .packs
        .iter()
        .map(|n| std::fs::read(dir.join("packs").join(n)).unwrap())
        .collect();
    let at = |l: &packed::Location| {
        packs[l.pack as usize][l.offset as usize..(l.offset + l.length) as usize].to_vec()
    };
    let (levels, size) = (k.buckets.trailing_zeros() as usize, k.slot_bytes as usize);
    let mut files = BTreeMap::new();
    let mut deltas = 0;
    for table in &k.tables {
        let bytes = std::fs::read(dir.join("packs").join(table)).unwrap();
        for slot in bytes.chunks(size) {
            let slot = packed::decode_slot(slot, size, levels).unwrap();
            for (base, d) in slot.files() {
                let file = match d {
                    Some(d) => {
                        deltas += 1;
                        let source = delta::stored_image(&at(base)).unwrap();
                        delta::apply(&source, &at(d), 1 << 26).unwrap()
                    }
                    None => at(base),
                };
                files.insert(base.key, file);
            }
        }
    }
    (files, deltas)
}

/// `a` and `b` hold the same files: the same bytes, or (a file one of them
/// makes from a delta) the same stored image.
fn same_files(a: &Path, b: &Path) {
    let ((fa, _), (fb, _)) = (read_all(a), read_all(b));
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "the same names"
    );
    for (key, x) in &fa {
        let y = &fb[key];
        if x != y {
            let image = |f: &[u8]| delta::stored_image(f).expect("a file that differs is a shard");
            assert!(image(x) == image(y), "file {key:x} differs");
        }
    }
}

fn pack_bytes(dir: &Path, names: &[String]) -> u64 {
    names
        .iter()
        .map(|n| std::fs::metadata(dir.join("packs").join(n)).unwrap().len())
        .sum()
}

#[test]
fn a_release_keeps_the_last_ones_packs_and_reads_as_a_build_without_them() {
    let dir = tmp_dir("keep");
    let (a, b, fresh) = (dir.join("a"), dir.join("b"), dir.join("fresh"));
    build(DEMO, &a, "a", &["-q"]);
    let next = next_release(DEMO, &dir, "2027-01-05");
    let said = build(&next, &b, "b", &["--previous", a.to_str().unwrap()]);
    assert!(said.contains("packs of 'a' kept"), "{said}");
    build(
        &next,
        &fresh,
        "b",
        &["--previous", a.to_str().unwrap(), "--new-base", "-q"],
    );
    let (ka, kb) = (packed_of(&a), packed_of(&b));
    assert_eq!(kb.base as usize, ka.packs.len());
    assert_eq!(kb.base_release.as_deref(), Some("a"));
    assert_eq!(kb.packs[..ka.packs.len()], ka.packs[..], "A's packs first");
    for name in &ka.packs {
        assert_eq!(
            std::fs::read(a.join("packs").join(name)).unwrap(),
            std::fs::read(b.join("packs").join(name)).unwrap(),
            "{name} kept byte for byte"
        );
    }
    assert_eq!(packed_of(&fresh).base, 0, "--new-base keeps none");
    let (_, deltas) = read_all(&b);
    assert!(deltas > 0, "changed files are deltas");
    same_files(&b, &fresh);
    let own = pack_bytes(&b, &kb.packs[kb.base as usize..]);
    let whole = pack_bytes(&fresh, &packed_of(&fresh).packs);
    assert!(
        own * 2 < whole,
        "B wrote {own} bytes of packs where a new base writes {whole}"
    );
}

#[test]
fn the_next_release_keeps_what_the_last_one_wrote_and_a_folder_may_be_its_own_previous() {
    let dir = tmp_dir("chain");
    let (a, b) = (dir.join("a"), dir.join("b"));
    build(DEMO, &a, "a", &["-q"]);
    let next = next_release(DEMO, &dir, "2027-01-05");
    build(&next, &b, "b", &["--previous", a.to_str().unwrap(), "-q"]);
    let third = next_release(&next, &dir, "2027-02-02");
    let kb = packed_of(&b);
    // The output is the last release's folder: its packs are kept in place.
    build(&third, &b, "c", &["--previous", b.to_str().unwrap(), "-q"]);
    let kc = packed_of(&b);
    assert_eq!(kc.base_release.as_deref(), Some("a"), "the same base");
    // What C keeps is what B listed and C still reads, in B's order: A's packs,
    // and B's own where they hold what C's files are.
    let kept = &kc.packs[..kc.base as usize];
    let in_b: Vec<usize> = kept
        .iter()
        .map(|n| {
            kb.packs
                .iter()
                .position(|m| m == n)
                .expect("a kept pack is B's")
        })
        .collect();
    assert!(in_b.windows(2).all(|w| w[0] < w[1]), "in B's order");
    assert!(
        in_b.iter().any(|&i| i >= kb.base as usize),
        "B's own pack is kept: its files did not all change"
    );
    for name in kb.packs.iter().filter(|n| !kc.packs.contains(n)) {
        assert!(
            !b.join("packs").join(name).exists(),
            "{name}, read no more, removed"
        );
    }
    let fresh = dir.join("fresh");
    build(
        &third,
        &fresh,
        "c",
        &["--previous", b.to_str().unwrap(), "--new-base", "-q"],
    );
    same_files(&b, &fresh);
}

#[test]
fn a_release_that_leaves_most_kept_bytes_unread_starts_a_new_base_next_time() {
    let dir = tmp_dir("compact");
    let (a, b, c) = (dir.join("a"), dir.join("b"), dir.join("c"));
    // Twice the records, then the demo alone: most of A's files change.
    let twice = dir.join("x2.json");
    let twice = twice.to_str().unwrap();
    ok(&["synth", DEMO, "--factor", "2", "-o", twice, "-q"]);
    build(twice, &a, "a", &["-q"]);
    build(DEMO, &b, "b", &["--previous", a.to_str().unwrap(), "-q"]);
    assert!(packed_of(&b).base > 0, "B keeps what it still reads of A");
    let said = build(DEMO, &c, "c", &["--previous", b.to_str().unwrap()]);
    assert!(said.contains("a new base is built"), "{said}");
    assert_eq!(packed_of(&c).base, 0);
    same_files(&c, &b);
}

#[test]
fn a_damaged_base_pack_is_named_not_kept() {
    let dir = tmp_dir("damaged");
    let a = dir.join("a");
    build(DEMO, &a, "a", &["-q"]);
    let name = packed_of(&a).packs[0].clone();
    let path = a.join("packs").join(&name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let out = registry(&[
        "build",
        DEMO,
        "-o",
        dir.join("b").to_str().unwrap(),
        "--previous",
        a.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains(&name) && err.contains("without --previous"),
        "{err}"
    );
}

#[test]
fn a_site_built_into_its_own_folder_keeps_its_packs_in_place() {
    let dir = tmp_dir("site");
    let app = common::stand_in_app(&dir);
    let (site, fresh) = (dir.join("site"), dir.join("fresh"));
    let site_args = |dump: &str, out: &Path, release: &str, more: &[&str]| {
        let mut args = vec!["site", "--app", app.to_str().unwrap(), dump];
        args.extend(["-o", out.to_str().unwrap(), "--release", release]);
        args.extend(["--level", "3", "-q"]);
        args.extend(more);
        ok(&args);
    };
    site_args(DEMO, &site, "a", &[]);
    let ka = packed_of(&site.join("data"));
    let kept: Vec<Vec<u8>> = ka
        .packs
        .iter()
        .map(|n| std::fs::read(site.join("data/packs").join(n)).unwrap())
        .collect();
    let next = next_release(DEMO, &dir, "2027-01-05");
    site_args(&next, &site, "b", &["--previous", site.to_str().unwrap()]);
    let kb = packed_of(&site.join("data"));
    assert_eq!(kb.packs[..kb.base as usize], ka.packs[..]);
    for (name, bytes) in ka.packs.iter().zip(&kept) {
        assert_eq!(
            &std::fs::read(site.join("data/packs").join(name)).unwrap(),
            bytes,
            "{name} kept in place"
        );
    }
    assert!(!site.join(".base-packs").exists(), "nothing left aside");
    let (_, deltas) = read_all(&site.join("data"));
    assert!(deltas > 0);
    let previous = site.to_str().unwrap();
    site_args(&next, &fresh, "b", &["--previous", previous, "--new-base"]);
    same_files(&site.join("data"), &fresh.join("data"));
}
