//! A record page is answered from one *record piece* (the records whose
//! id starts with the same [`record_key`]) exactly as by the whole
//! registry: for every record of the demo data (and of the full data when
//! `../shared` exists), `/v2/organizations/<id>` and `/v1/organizations/<id>`
//! in several id forms give the same status and the same JSON, and an id
//! of no record under a piece's key gives the whole registry's 404.

mod search_support;

use std::collections::BTreeMap;

use registry_core::search::Engine;
use registry_core::shard::pieces::{RECORD_KEY_CHARS, record_key, record_piece_file};
use registry_core::shard::{self, SectionKind};
use registry_core::{Record, RecordId, Registry};
use search_support::{Data, demo, full};

/// Every record piece of `d`, loaded, by key.
fn record_pieces(d: &Data) -> BTreeMap<String, Engine> {
    let mut groups: BTreeMap<String, Vec<Record>> = BTreeMap::new();
    for r in &d.records {
        let id = RecordId::parse(&r.id).unwrap();
        groups.entry(record_key(id)).or_default().push(r.clone());
    }
    groups
        .into_iter()
        .map(|(key, recs)| {
            let file = record_piece_file(&recs, "pieces", 0, &shard::Stored).unwrap();
            let registry = Registry::from_bytes(&file).unwrap();
            assert!(registry.has_records(), "piece {key} lacks its records");
            assert_eq!(registry.len(), recs.len());
            (key, Engine::new(registry))
        })
        .collect()
}

fn same_answers(d: &Data) {
    let pieces = record_pieces(d);
    let whole = &d.engine;
    for r in &d.records {
        let id = RecordId::parse(&r.id).unwrap();
        let piece = &pieces[&record_key(id)];
        let bare = id.url().rsplit('/').next().unwrap().to_string();
        for form in [
            bare.clone(),
            id.url(),
            bare.to_uppercase(),
            format!("{bare}/"),
        ] {
            for v in ["v1", "v2"] {
                let path = format!("/{v}/organizations/{}", search_support::enc(&form));
                let (a, b) = (piece.handle(&path), whole.handle(&path));
                assert_eq!(
                    (a.status, &a.json),
                    (b.status, &b.json),
                    "{path}: the record piece answers differently"
                );
            }
        }
    }
    // An id under an existing key that no record has: the same 404.
    let (key, piece) = pieces.iter().next().unwrap();
    assert_eq!(key.len(), RECORD_KEY_CHARS);
    let taken: std::collections::HashSet<u32> = d
        .records
        .iter()
        .map(|r| RecordId::parse(&r.id).unwrap().number())
        .collect();
    let start = piece.registry().id(0).number();
    let free = (start..start.saturating_add(4096))
        .filter_map(RecordId::from_number)
        .take_while(|id| &record_key(*id) == key)
        .find(|id| !taken.contains(&id.number()));
    if let Some(id) = free {
        let path = format!("/v2/organizations/{}", id.url());
        let (a, b) = (piece.handle(&path), whole.handle(&path));
        assert_eq!(a.status, 404);
        assert_eq!((a.status, a.json), (b.status, b.json));
    }
}

#[test]
fn demo_records_answer_from_their_piece_as_from_the_whole_registry() {
    same_answers(demo());
}

#[test]
fn full_records_answer_from_their_piece_as_from_the_whole_registry() {
    let Some(d) = full() else { return };
    same_answers(d);
}

#[test]
fn a_record_piece_holds_the_records_section() {
    let d = demo();
    let recs = &d.records[..3];
    let file = record_piece_file(recs, "pieces", 0, &shard::Stored).unwrap();
    let read = shard::read_file(&file).unwrap();
    let kinds: Vec<SectionKind> = read.sections.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Summary,
            SectionKind::Names,
            SectionKind::Records
        ]
    );
}
