//! Shards written by earlier format versions still load (tantivy-style).
//!
//! `compat/format-N.shard` was written by the format-N build from
//! `compat/format-N.source.json` (upstream spelling). When the format
//! changes, add the new version's fixture beside the old ones; drop an old
//! one only together with a deliberate bump of `OLDEST_READABLE_VERSION`,
//! and then assert here that it fails with `UnsupportedVersion`.

use registry_core::import::{ImportOptions, import_dump};
use registry_core::prior;
use registry_core::shard::{OLDEST_READABLE_VERSION, ShardError};
use registry_core::{RecordV1, Registry};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/compat")
            .join(name),
    )
    .unwrap()
}

/// Loads `format-N.shard` and checks every record against its source.
fn check_fixture(version: u16, build_time: u64) -> Option<registry_core::Registry> {
    let bytes = fixture(&format!("format-{version}.shard"));
    let result = Registry::from_bytes(&bytes);
    if OLDEST_READABLE_VERSION > version {
        assert!(matches!(
            result,
            Err(ShardError::UnsupportedVersion { found, .. }) if found == version
        ));
        return None;
    }
    let registry = result.unwrap();
    let info = registry.info();
    assert_eq!(info.format_version, version);
    assert_eq!(info.release, format!("compat-format-{version}"));
    assert_eq!(info.build_time, build_time);
    let source = import_dump(
        &fixture(&format!("format-{version}.source.json")),
        ImportOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(registry.len(), source.records.len());
    for want in &source.records {
        let i = registry
            .index_of(registry_core::RecordId::parse(&want.id).unwrap())
            .unwrap();
        let got = registry.record(i).unwrap();
        assert_eq!(&got, want);
        assert_eq!(RecordV1::from_v2(&got), RecordV1::from_v2(want));
        assert_eq!(registry.display_name(i), want.display_name().unwrap());
    }
    Some(registry)
}

#[test]
fn format_1_shard_still_loads_with_every_record_intact() {
    // Format 1 has no record prior: every record is neutral.
    if let Some(r) = check_fixture(1, 1_763_683_200) {
        assert!(r.priors().iter().all(|&p| p == prior::NEUTRAL));
    }
}

#[test]
fn format_2_shard_loads_with_its_prior_and_domains() {
    let Some(r) = check_fixture(2, 1_795_392_000) else {
        return;
    };
    // The stored prior is what the record's content gave at build time
    // (the weights of that build, so compared loosely: it is not neutral
    // for every record, and it orders records as the stored bytes say).
    assert!(r.priors().iter().any(|&p| p != prior::NEUTRAL));
    for i in 0..r.len() {
        assert_eq!(r.domains(i), r.record(i).unwrap().domains);
    }
}
