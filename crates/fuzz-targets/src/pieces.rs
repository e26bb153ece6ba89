//! The typeahead pieces: piece files, id pieces, the first-keystroke pack,
//! directory parts and a head's exact words, each fed to a pieces client
//! that then answers queries (fetching the demo's real pieces for what
//! else it asks for).

use registry_core::RecordId;
use registry_core::pieces::{self, Answer, Directory, ExactWords, PieceClient, PieceKind, pack};
use registry_core::search::{SuggestContext, Suggestion};
use registry_core::shard::{self, SectionKind, Stored};

use crate::PieceInput;
use crate::data::demo;

/// The input's first byte picks what the rest is ([`PieceInput`]).
pub fn pieces(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let kind = PieceInput::ALL[selector as usize % PieceInput::ALL.len()];
    let d = demo();
    match kind {
        PieceInput::Piece | PieceInput::IdPiece | PieceInput::Part => {
            let Some((&which, body)) = rest.split_first() else {
                return;
            };
            let mut client = shipped_client();
            let text = match kind {
                PieceInput::Piece => {
                    let keys = d.term_pieces();
                    let (_, key) = keys[which as usize % keys.len()];
                    if client.add(key, body).is_err() {
                        return;
                    }
                    key.to_string()
                }
                PieceInput::IdPiece => {
                    let keys = d.keys(PieceKind::Id);
                    let key = keys[which as usize % keys.len()];
                    if client.add_id(key, body).is_err() {
                        return;
                    }
                    id_under(key)
                }
                _ => {
                    let firsts = d.split_firsts();
                    let first = &firsts[which as usize % firsts.len()];
                    let Ok(keys) = serde_json::from_slice::<Vec<String>>(body) else {
                        return;
                    };
                    client.add_directory(first, keys);
                    first.clone()
                }
            };
            ask(&mut client, &text);
        }
        PieceInput::Pack => {
            let Some(entries) = pack::decode(rest) else {
                return;
            };
            assert_eq!(pack::encode(&entries), rest, "a pack re-encodes as read");
            let mut client = shipped_client();
            for e in &entries {
                match e.kind {
                    b'h' => {
                        let _ = client.add(&e.key, &e.body);
                    }
                    b'd' => {
                        if let Ok(keys) = serde_json::from_slice::<Vec<String>>(&e.body) {
                            client.add_directory(&e.key, keys);
                        }
                    }
                    _ => {}
                }
            }
            for e in &entries {
                ask(&mut client, &e.key);
            }
        }
        PieceInput::ExactWords => {
            if let Ok(words) = ExactWords::decode(rest) {
                let again = ExactWords::decode(&words.encode()).expect("encoded words decode");
                assert_eq!(again, words);
            }
        }
    }
}

/// A head piece of the demo with `payload` as its `exact_words` section,
/// loaded by a client that then answers longer queries from it.
pub(crate) fn head_with_exact_words(payload: &[u8]) {
    let d = demo();
    let Some(spec) = d.specs.iter().find(|s| s.kind == PieceKind::Head) else {
        return;
    };
    let file = &d.piece_files[&(PieceKind::Head.code(), spec.key.clone())];
    let mut built = shard::reopen(file).expect("the demo's head reopens");
    built.push_section(SectionKind::ExactWords, payload, &Stored);
    let mut client = PieceClient::new(Directory::of(&d.specs));
    let kinds = [
        SectionKind::Summary,
        SectionKind::Names,
        SectionKind::ExactWords,
    ];
    if client.add(&spec.key, &built.file(&kinds)).is_ok() {
        ask(&mut client, &spec.key);
    }
}

/// A client as the browser has it: the split first characters, nothing
/// loaded, id pieces on.
fn shipped_client() -> PieceClient {
    PieceClient::new(Directory::sharded(demo().split_firsts())).with_id_pieces()
}

/// The id of a demo record in id piece `key`.
fn id_under(key: &str) -> String {
    let reg = demo().engine.registry();
    (0..reg.len())
        .map(|i| reg.id(i))
        .find(|&id| pieces::id_key(id) == key)
        .map(RecordId::url)
        .unwrap_or_else(|| key.to_string())
}

/// Asks `text` and a few longer queries under it, with and without a
/// filter, feeding the client the demo's real files for whatever else it
/// needs; every hit it gives is well formed.
fn ask(client: &mut PieceClient, text: &str) {
    let d = demo();
    let ctx = SuggestContext::default();
    let texts = [
        text.to_string(),
        format!("{text}a"),
        format!("{text}e"),
        format!("{text} u"),
    ];
    for text in &texts {
        for filter in ["", "types:education"] {
            for _ in 0..4 {
                match client.answer(text, filter, 10, &ctx) {
                    Ok(Answer::Hits(hits)) => {
                        well_formed(text, &hits);
                        break;
                    }
                    Ok(Answer::Partial(hits, key, kind)) => {
                        well_formed(text, &hits);
                        load(client, &key, kind);
                    }
                    Ok(Answer::Need(key, kind)) => load(client, &key, kind),
                    Ok(Answer::NeedDirectory(first)) => {
                        let keys = d
                            .split_keys()
                            .filter(|k| pieces::first_char(k) == first)
                            .map(str::to_string);
                        client.add_directory(&first, keys.collect::<Vec<_>>());
                    }
                    Ok(Answer::Whole) | Err(_) => break,
                }
            }
        }
    }
}

/// Gives the client the demo's own file of a piece (or says it has none).
fn load(client: &mut PieceClient, key: &str, kind: PieceKind) {
    let files = &demo().piece_files;
    let loaded = match (kind, files.get(&(kind.code(), key.to_string()))) {
        (PieceKind::Id, Some(file)) => client.add_id(key, file),
        (_, Some(file)) => client.add(key, file),
        (PieceKind::Id, None) => {
            client.add_missing_id(key);
            Ok(())
        }
        (_, None) => {
            client.add_missing(key);
            Ok(())
        }
    };
    loaded.expect("the demo's pieces load");
}

fn well_formed(text: &str, hits: &[Suggestion]) {
    for s in hits {
        let value = &s.matched.value;
        for &(a, b) in &s.ranges {
            assert!(
                a < b && b <= value.len(),
                "{text:?}: range {a}..{b} of {value:?}"
            );
            assert!(value.is_char_boundary(a) && value.is_char_boundary(b));
        }
        assert!(
            RecordId::parse(&s.summary.id).is_ok(),
            "{text:?}: {}",
            s.summary.id
        );
    }
}
