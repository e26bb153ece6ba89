//! The importer: dump bytes (JSON, gzip or zip) to records, then the shard
//! round trip the README promises.

use registry_core::import::{ImportOptions, import_dump};
use registry_core::{Record, RecordId, Registry, shard};

/// Any bytes as a dump (bad records skipped): what imports builds into a
/// shard, loads, and reads back exactly as imported.
pub fn import(data: &[u8]) {
    let options = ImportOptions { skip_invalid: true };
    let Ok(imported) = import_dump(data, options, &mut |_, _| {}) else {
        return;
    };
    let mut records: Vec<Record> = imported.records;
    records.sort_by_key(|r| RecordId::parse(&r.id).ok());
    let built = shard::build(&records, "fuzz", 0, &shard::Stored)
        .unwrap_or_else(|e| panic!("imported records do not build: {e}"));
    let registry = Registry::from_bytes(&built.full_file())
        .unwrap_or_else(|e| panic!("a built shard does not load: {e}"));
    assert_eq!(registry.len(), records.len());
    for (i, want) in records.iter().enumerate() {
        let got = registry.record(i).expect("a built shard reads");
        assert_eq!(&got, want, "record {i} changed in the round trip");
    }
}
