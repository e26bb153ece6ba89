//! Pieces written by an earlier build still load and answer (the pieces'
//! counterpart of `compat.rs`).
//!
//! `compat/pieces-2/` holds, from a pieces-version-2 build of the demo data
//! split like a large registry (`registry build data/demo/registry-demo.json
//! -o <dir> --release compat-pieces-2 --piece-bytes 600 --head 12`): its
//! `manifest.json`, the directory part of "a", the head "a" (with its
//! `exact_words` section), the leaf "ae", the id piece `041`, and the record
//! piece and card `041q`. When the pieces change in a way an older reader
//! cannot follow, raise `registry_contract::PIECES_VERSION`, add the new
//! version's fixture beside this one, and keep this one loading (or assert
//! here that it is refused, together with a deliberate drop).
//!
//! Version 3 only added hashes (`compat/pieces-3/`, checked from its
//! manifest down by `crates/cli/tests/cli.rs`); its piece files are read as
//! these. The browser uses no piece it cannot check, so it asks the whole
//! registry of version-2 data. The hash tree of builds since 2026-11-27
//! only added tables (`compat/pieces-8-tree/`: the same files, their
//! tables in both layouts; checked by the same cli test).

use registry_contract::{Manifest, PIECES_VERSION};
use registry_core::pieces::{Answer, Directory, PieceClient, PieceKind};
use registry_core::search::{Engine, SuggestContext};
use registry_core::{RecordId, Registry};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/compat/pieces-2")
            .join(name),
    )
    .unwrap()
}

fn manifest() -> Manifest {
    let m: Manifest = serde_json::from_slice(&fixture("manifest.json")).unwrap();
    let (m, dropped) = m.checked().unwrap();
    assert_eq!(dropped, None, "this build reads version-2 pieces");
    m
}

#[test]
fn the_manifest_says_what_a_reader_needs() {
    let m = manifest();
    assert_eq!(m.release, "compat-pieces-2");
    let p = m.pieces.unwrap();
    assert_eq!(p.version, 2);
    assert!(PIECES_VERSION >= p.version);
    assert_eq!(p.record_chars, Some(4));
    assert!(p.record_cards);
    assert!(p.split_first.iter().any(|f| f == "a"));
}

/// Asks `client` for `text`, loading the fixture files it names; the
/// names, and the first hits a loaded head proved before that (if any).
fn answer(client: &mut PieceClient, text: &str) -> (Vec<String>, Vec<String>) {
    let names = |h: Vec<registry_core::search::Suggestion>| -> Vec<String> {
        h.into_iter().map(|s| s.summary.name).collect()
    };
    let mut proven = Vec::new();
    for _ in 0..4 {
        let (key, kind) = match client
            .answer(text, "", 10, &SuggestContext::default())
            .unwrap()
        {
            Answer::Hits(h) => return (names(h), proven),
            Answer::NeedDirectory(first) => {
                let part = fixture(&format!("d-{}.json", hex(&first)));
                let keys: Vec<String> = serde_json::from_slice(&part).unwrap();
                client.add_directory(&first, keys);
                continue;
            }
            Answer::Need(key, kind) => (key, kind),
            Answer::Partial(h, key, kind) => {
                proven = names(h);
                (key, kind)
            }
            other => panic!("'{text}': unexpected {other:?}"),
        };
        let name = match kind {
            PieceKind::Leaf => format!("{}.shard", hex(&key)),
            PieceKind::Head => format!("{}.h.shard", hex(&key)),
            PieceKind::Id => format!("i-{key}.shard"),
        };
        let bytes = fixture(&name);
        match kind {
            PieceKind::Id => client.add_id(&key, &bytes).unwrap(),
            _ => client.add(&key, &bytes).unwrap(),
        }
    }
    panic!("'{text}' unanswered")
}

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn version_2_heads_leaves_and_id_pieces_still_answer() {
    let p = manifest().pieces.unwrap();
    let mut client = PieceClient::new(Directory::sharded(p.split_first.clone())).with_id_pieces();
    // The head "a" (exact words section), then the leaf "ae" under it.
    let (a, _) = answer(&mut client, "a");
    assert_eq!(a.len(), 10, "{a:?}");
    // The head's exact words prove the first hit of "ae" before its leaf.
    let (ae, proven) = answer(&mut client, "ae");
    assert_eq!(proven, ["Aegean Institute of Marine Archaeology"]);
    assert_eq!(ae.first(), proven.first());
    let (id, _) = answer(&mut client, "https://ror.org/041qyp388");
    assert_eq!(id, ["Northfield University"]);
}

#[test]
fn version_2_record_pieces_and_cards_still_answer() {
    let engine = Engine::new(Registry::from_bytes(&fixture("r-041q.shard")).unwrap());
    let r = engine.handle("/v2/organizations/041qyp388");
    assert_eq!(r.status, 200);
    let v: serde_json::Value = serde_json::from_str(&r.json).unwrap();
    assert_eq!(v["id"], "https://ror.org/041qyp388");
    assert_eq!(engine.handle("/v1/organizations/041qyp388").status, 200);
    let card: Vec<serde_json::Value> = serde_json::from_slice(&fixture("r-041q.json")).unwrap();
    let northfield = card
        .iter()
        .find(|s| s["id"] == "https://ror.org/041qyp388")
        .unwrap();
    assert_eq!(northfield["name"], "Northfield University");
    let key = registry_core::shard::pieces::record_key(RecordId::parse("041qyp388").unwrap());
    assert_eq!(key, "041q");
}
