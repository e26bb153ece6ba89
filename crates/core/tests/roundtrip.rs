//! Import → shard → record gives back exactly the input JSON (after the
//! spec's renames), for the sample, the demo data and the full dump.

mod common;

use registry_core::model::rename_upstream_json;
use registry_core::{RecordId, Registry};
use serde_json::Value;

fn check_round_trip(dump_json: &[u8], registry: &Registry) -> usize {
    let input: Vec<Value> = serde_json::from_slice(dump_json).unwrap();
    assert_eq!(input.len(), registry.len());
    for mut want in input {
        rename_upstream_json(&mut want);
        let id = RecordId::parse(want["id"].as_str().unwrap()).unwrap();
        let i = registry
            .index_of(id)
            .unwrap_or_else(|| panic!("{id} missing"));
        let got = serde_json::to_value(registry.record(i).unwrap()).unwrap();
        assert_eq!(got, want, "record {id} differs after the round trip");
    }
    registry.len()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    registry_core::container::gunzip(bytes).unwrap()
}

#[test]
fn sample_round_trips_exactly() {
    let Some(path) = common::shared("data/registry-v2-sample.json") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let records = common::import_file(&common::shared("data/registry-v2-sample.json").unwrap());
    let n = check_round_trip(&bytes, &common::registry(&records));
    assert_eq!(n, 312);
    // Stored (uncompressed) sections give the same records.
    let stored =
        registry_core::shard::build(&records, "t", 0, &registry_core::shard::Stored).unwrap();
    check_round_trip(&bytes, &Registry::from_bytes(&stored.full_file()).unwrap());
}

#[test]
fn demo_round_trips_exactly() {
    let path = common::demo_path();
    let bytes = std::fs::read(&path).unwrap();
    let records = common::import_file(&path);
    assert!(
        records.len() >= 30,
        "the demo dataset has {} records",
        records.len()
    );
    check_round_trip(&bytes, &common::registry(&records));
}

#[test]
fn full_dump_round_trips_exactly() {
    let Some(path) = common::shared("data/registry-v2.json.gz") else {
        return;
    };
    let json = gunzip(&std::fs::read(&path).unwrap());
    let records = common::import_file(&path);
    assert_eq!(records.len(), 35_990);
    let n = check_round_trip(&json, &common::registry(&records));
    assert_eq!(n, 35_990);
}

#[test]
fn summary_and_names_alone_serve_typeahead_data() {
    let records = common::import_file(&common::demo_path());
    let built = registry_core::shard::build(&records, "t", 0, &common::Zstd).unwrap();
    use registry_core::shard::SectionKind::*;
    let light = Registry::from_bytes(&built.file(&[Summary, Names])).unwrap();
    assert!(!light.has_records());
    let full = Registry::from_bytes(&built.full_file()).unwrap();
    for i in 0..light.len() {
        assert_eq!(light.summary(i), full.summary(i));
        let r = full.record(i).unwrap();
        assert_eq!(light.display_name(i), r.display_name().unwrap());
    }
    assert!(matches!(
        light.record(0),
        Err(registry_core::ShardError::MissingSection { .. })
    ));
    // Lazy mode: add the records file later.
    let mut lazy = light;
    lazy.add_records_file(&built.file(&[Records])).unwrap();
    assert_eq!(lazy.record(3).unwrap(), full.record(3).unwrap());
    // A file of another build is refused.
    let other = registry_core::shard::build(&records[1..], "t", 0, &common::Zstd).unwrap();
    let mut mixed = Registry::from_bytes(&built.file(&[Summary, Names])).unwrap();
    let err = mixed.add_records_file(&other.file(&[Records])).unwrap_err();
    assert!(
        matches!(err, registry_core::ShardError::MixedBuilds { .. }),
        "{err}"
    );
}

#[test]
fn an_engine_gains_its_records_without_a_rebuild() {
    use registry_core::search::Engine;
    use registry_core::shard::SectionKind::*;
    let records = common::import_file(&common::demo_path());
    let built = registry_core::shard::build(&records, "t", 0, &common::Zstd).unwrap();
    let mut full = Engine::new(Registry::from_bytes(&built.full_file()).unwrap());
    let mut lazy = Engine::new(Registry::from_bytes(&built.file(&[Summary, Names])).unwrap());
    // Same `time_taken` in both answers.
    full.set_clock(|| 0.0);
    lazy.set_clock(|| 0.0);
    let with_ids = records
        .iter()
        .find(|r| r.external_ids.iter().any(|x| !x.all.is_empty()))
        .expect("the demo has external ids");
    let ext = &with_ids
        .external_ids
        .iter()
        .find(|x| !x.all.is_empty())
        .unwrap()
        .all[0];
    let requests = [
        format!(
            "/v2/organizations?query={}",
            registry_core::router::encode_component(ext)
        ),
        format!("/v2/organizations/{}", with_ids.id),
        "/v2/organizations?query.advanced=external_ids.type:grid".to_string(),
        "/v2/organizations?query=university".to_string(),
    ];
    // Before: the external ids and the advanced columns are asked for (and
    // cached) while the records are missing.
    for r in &requests {
        lazy.handle(r);
    }
    // Typeahead data alone: suggestions work, and the id pasted finds
    // nothing yet (its external ids live in the records section).
    let none = Default::default();
    assert!(!lazy.suggest("univ", &none, 5).is_empty());
    let by_ext = |e: &Engine| {
        e.suggest(ext, &none, 5)
            .iter()
            .any(|s| s.reason == "external_id")
    };
    assert!(!by_ext(&lazy));
    lazy.add_records_file(&built.file(&[Records])).unwrap();
    for r in &requests {
        let (a, b) = (lazy.handle(r), full.handle(r));
        assert_eq!((a.status, &a.json), (b.status, &b.json), "{r}");
    }
    assert!(
        full.handle(&requests[0]).json.contains(&with_ids.id),
        "the external id finds its record"
    );
    assert!(by_ext(&lazy) && by_ext(&full));
    // A second records file is refused and changes nothing.
    assert!(lazy.add_records_file(&built.file(&[Records])).is_err());
    assert_eq!(
        lazy.handle(&requests[0]).json,
        full.handle(&requests[0]).json
    );
}

/// An index built a few records at a time equals the one built at once.
#[test]
fn an_index_built_in_steps_equals_one_built_at_once() {
    use registry_core::search::{Engine, EngineBuilder};
    let mut sets = vec![common::import_file(&common::demo_path())];
    if let Some(p) = common::shared("data/registry-v2-sample.json") {
        sets.push(common::import_file(&p));
    }
    for records in sets {
        let bytes = common::shard_bytes(&records);
        let once = Engine::new(Registry::from_bytes(&bytes).unwrap());
        let want = once.index();
        for slice in [1, 7, 1000] {
            let mut b = EngineBuilder::new(Registry::from_bytes(&bytes).unwrap());
            let mut steps = 1;
            while !b.step(slice) {
                steps += 1;
            }
            // A step per slice of records, then the dictionary, postings and
            // columns passes.
            assert_eq!(steps, records.len().div_ceil(slice) + 3, "slice {slice}");
            let stepped = b.finish();
            let ix = stepped.index();
            assert_eq!(ix.term_count(), want.term_count());
            for t in 0..ix.term_count() as u32 {
                assert_eq!(ix.term(t), want.term(t));
                assert_eq!(ix.postings(t), want.postings(t));
            }
            assert_eq!(ix.entries(), want.entries());
            for e in 0..ix.entries() as u32 {
                assert_eq!(ix.entry_terms(e), want.entry_terms(e));
                assert_eq!(ix.entry_has_and(e), want.entry_has_and(e));
                assert_eq!(ix.entry_record(e), want.entry_record(e));
            }
            for r in 0..records.len() as u32 {
                assert_eq!(ix.display_len(r), want.display_len(r));
                assert_eq!(ix.record_countries(r), want.record_countries(r));
            }
            let none = Default::default();
            for q in ["univ", "northfield", "nat inst", "東京"] {
                assert_eq!(
                    stepped.suggest(q, &none, 10),
                    once.suggest(q, &none, 10),
                    "{q}"
                );
            }
        }
    }
}

/// Loading a file per step gives the registry `from_files` gives, and the
/// same errors.
#[test]
fn a_registry_loaded_a_file_at_a_time_equals_one_loaded_at_once() {
    use registry_core::registry::RegistryLoader;
    use registry_core::shard::SectionKind::*;
    let records = common::import_file(&common::demo_path());
    let built = registry_core::shard::build(&records, "t", 0, &common::Zstd).unwrap();
    let files = vec![built.file(&[Summary]), built.file(&[Names])];
    let once = Registry::from_files(&[&files[0], &files[1]]).unwrap();
    // 1,000 bytes a step; a zstd block (up to 128 KiB, here a whole demo
    // section) is the smallest piece, so at least a step per file.
    let mut loader = RegistryLoader::new(files.clone()).unwrap();
    let mut steps = 1;
    while !loader.step(1000).unwrap() {
        steps += 1;
    }
    assert_eq!(steps, files.len());
    let stepped = loader.finish().unwrap();
    assert_eq!(stepped.len(), once.len());
    for i in 0..once.len() {
        assert_eq!(stepped.summary(i), once.summary(i));
        assert!(
            stepped
                .names(i)
                .map(|n| n.value)
                .eq(once.names(i).map(|n| n.value))
        );
    }
    assert!(matches!(
        RegistryLoader::new(vec![b"<html>".to_vec()]),
        Err(registry_core::ShardError::NotAShard { .. })
    ));
    let other = registry_core::shard::build(&records[1..], "t", 0, &common::Zstd).unwrap();
    let mut mixed = RegistryLoader::new(vec![files[0].clone(), other.file(&[Names])]).unwrap();
    assert!(matches!(
        mixed.step(usize::MAX).and_then(|_| mixed.step(usize::MAX)),
        Err(registry_core::ShardError::MixedBuilds { .. })
    ));
    assert!(matches!(
        RegistryLoader::new(vec![files[1].clone()])
            .unwrap()
            .finish(),
        Err(registry_core::ShardError::MissingSection { section: Summary })
    ));
}
