//! `registry synth` on the sample dump: factor 3 gives 3× the records, every
//! id valid and unique, no real external id repeated, the same bytes on a
//! second run, and a dump `registry build` imports without a report.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use registry_core::{RecordId, import};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/registry-v2-sample.json"
);

fn registry(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(args)
        .output()
        .expect("run registry");
    assert!(
        out.status.success(),
        "registry {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("registry-synth-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn factor_three_on_the_sample() {
    if !Path::new(SAMPLE).exists() {
        eprintln!("skipped: ../shared not found");
        return;
    }
    let dir = tmp_dir("x3");
    let (a, b, gz) = (
        dir.join("a.json"),
        dir.join("b.json"),
        dir.join("c.json.gz"),
    );
    for out in [&a, &b, &gz] {
        registry(&[
            "synth",
            SAMPLE,
            "--factor",
            "3",
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]);
    }
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap(), "not deterministic");
    let gz = std::fs::read(&gz).unwrap();
    assert_eq!(registry_core::container::gunzip(&gz).unwrap(), bytes);

    let real = import::import_dump(
        &std::fs::read(SAMPLE).unwrap(),
        Default::default(),
        &mut |_, _| {},
    )
    .unwrap()
    .records;
    let synth = import::import_dump(&bytes, Default::default(), &mut |_, _| {})
        .expect("imports without reports")
        .records;
    assert_eq!(synth.len(), 3 * real.len());
    assert_eq!(
        &synth[..real.len()],
        &real[..],
        "the real records come first, unchanged"
    );

    let mut ids = HashSet::new();
    for r in &synth {
        let id = RecordId::parse(&r.id).expect("valid id with check digits");
        assert!(ids.insert(id), "duplicate id {}", r.id);
    }
    let real_ext: HashSet<&str> = real
        .iter()
        .flat_map(|r| &r.external_ids)
        .flat_map(|e| &e.all)
        .map(String::as_str)
        .collect();
    let synth_ids: HashSet<&str> = synth[real.len()..].iter().map(|r| r.id.as_str()).collect();
    for (copy, r) in synth[real.len()..].iter().enumerate() {
        let t = &real[copy % real.len()];
        assert_eq!(
            (&r.locations, &r.types, &r.status),
            (&t.locations, &t.types, &t.status)
        );
        assert_eq!(r.names.len(), t.names.len());
        for e in r.external_ids.iter().flat_map(|e| &e.all) {
            assert!(
                !real_ext.contains(e.as_str()),
                "real external id {e} repeated"
            );
        }
        for rel in &r.relationships {
            assert!(
                synth_ids.contains(rel.id.as_str()),
                "relationship out of the copies: {}",
                rel.id
            );
        }
    }
    // Names are rewritten: most copies have a display name unlike their template.
    let changed = synth[real.len()..]
        .iter()
        .zip(real.iter().cycle())
        .filter(|(s, t)| s.display_name() != t.display_name())
        .count();
    assert!(changed > real.len(), "only {changed} display names changed");

    let site = dir.join("built");
    registry(&[
        "build",
        a.to_str().unwrap(),
        "-o",
        site.to_str().unwrap(),
        "-q",
        "--level",
        "1",
    ]);
    assert!(site.join("manifest.json").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn next_release_of_the_demo_imports_and_bad_options_say_why() {
    let demo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/demo/registry-demo.json"
    );
    let dir = tmp_dir("next");
    let out = dir.join("next.json");
    registry(&[
        "synth",
        demo,
        "--next-release",
        "--date",
        "2027-01-05",
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    let old = import::import_dump(
        &std::fs::read(demo).unwrap(),
        Default::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let new = import::import_dump(
        &std::fs::read(&out).unwrap(),
        Default::default(),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(new.skipped.is_empty());
    assert!(new.records.len() > old.records.len(), "records are added");
    assert!(
        new.records
            .iter()
            .any(|r| r.admin.last_modified.date == "2027-01-05")
    );
    for (args, says) in [
        (vec!["--next-release", "--date", "2027-1-5"], "YYYY-MM-DD"),
        (vec!["--next-release", "--factor", "2"], "no --factor"),
    ] {
        let mut all = vec!["synth", demo, "-o", out.to_str().unwrap()];
        all.extend(args);
        let run = Command::new(env!("CARGO_BIN_EXE_registry"))
            .args(&all)
            .output()
            .unwrap();
        assert!(!run.status.success());
        assert!(
            String::from_utf8_lossy(&run.stderr).contains(says),
            "{all:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
