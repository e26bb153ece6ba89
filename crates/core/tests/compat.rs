//! Shards written by earlier format versions still load (tantivy-style).
//!
//! `compat/format-N.shard` was written by the format-N build from
//! `compat/format-N.source.json` (upstream spelling). When the format
//! changes, add the new version's fixture beside the old ones; drop an old
//! one only together with a deliberate bump of `OLDEST_READABLE_VERSION`,
//! and then assert here that it fails with `UnsupportedVersion`.

use registry_core::import::{ImportOptions, import_dump};
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

#[test]
fn format_1_shard_still_loads_with_every_record_intact() {
    let bytes = fixture("format-1.shard");
    let result = Registry::from_bytes(&bytes);
    if OLDEST_READABLE_VERSION > 1 {
        assert!(matches!(
            result,
            Err(ShardError::UnsupportedVersion { found: 1, .. })
        ));
        return;
    }
    let registry = result.unwrap();
    let info = registry.info();
    assert_eq!(info.format_version, 1);
    assert_eq!(info.release, "compat-format-1");
    assert_eq!(info.build_time, 1_763_683_200);
    let source = import_dump(
        &fixture("format-1.source.json"),
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
}
