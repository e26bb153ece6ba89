//! The partitioned typeahead index answers exactly as the whole registry:
//! for the relevance benchmark's kind of queries (display names and their
//! rarest word first, typed keystroke by keystroke), with and without
//! filters, every query a piece answers gives the same top 10 as the
//! whole-index `suggest`.

mod search_support;

use std::collections::HashMap;

use registry_core::search::{Engine, Filters, Version};
use registry_core::shard::pieces::{
    self, Answer, Directory, PieceBudget, PieceClient, PieceKind, Route,
};
use registry_core::shard::{self, SectionKind};
use registry_core::{Record, RecordId};
use search_support::{Data, demo, full};

/// Builds every piece file of `d` under `budget` and a client holding them.
fn client(d: &Data, budget: &PieceBudget) -> (Vec<pieces::PieceSpec>, PieceClient) {
    let specs = pieces::partition(&d.engine, budget);
    let (c, _) = client_files(d, &specs);
    (specs, c)
}

/// A client holding every piece, and the piece files by prefix.
fn client_files(d: &Data, specs: &[pieces::PieceSpec]) -> (PieceClient, HashMap<String, Vec<u8>>) {
    let by_id: HashMap<RecordId, &Record> = d
        .records
        .iter()
        .map(|r| (RecordId::parse(&r.id).unwrap(), r))
        .collect();
    let mut c = PieceClient::new(Directory::of(specs));
    let mut files = HashMap::new();
    for s in specs {
        let recs: Vec<Record> = s
            .records
            .iter()
            .map(|&i| (*by_id[&d.engine.registry().id(i as usize)]).clone())
            .collect();
        let built = shard::build_kinds(
            &recs,
            "pieces",
            0,
            &shard::Stored,
            &[SectionKind::Summary, SectionKind::Names],
        )
        .unwrap();
        let file = built.file(&[SectionKind::Summary, SectionKind::Names]);
        c.add(&s.key, &file).unwrap();
        files.insert(s.key.clone(), file);
    }
    (c, files)
}

/// A client over the split-prefix directory, fetching pieces on demand
/// from `specs` as a host would (a missing file is an empty piece).
fn shipped_client(d: &Data, specs: &[pieces::PieceSpec], qs: &[String]) -> PieceClient {
    let split: Vec<&str> = specs
        .iter()
        .filter(|s| s.kind == PieceKind::Head)
        .map(|s| s.key.as_str())
        .collect();
    let first = |k: &str| pieces::first_char(k).to_string();
    let (_, full) = client_files(d, specs);
    let mut c = PieceClient::new(Directory::sharded(split.iter().map(|k| first(k))));
    for q in qs {
        loop {
            match c.answer(q, "", 10).unwrap() {
                Answer::Need(key, _) => match full.get(&key) {
                    Some(bytes) => c.add(&key, bytes).unwrap(),
                    None => c.add_missing(&key),
                },
                Answer::NeedDirectory(f) => c.add_directory(
                    &f,
                    split
                        .iter()
                        .filter(|k| first(k) == f)
                        .map(|k| k.to_string()),
                ),
                _ => break,
            }
        }
    }
    c
}

/// Queries: every `step`-th record's display name and its rarest word
/// first, each keystroke up to 12 characters.
fn queries(e: &Engine, step: usize) -> Vec<String> {
    let reg = e.registry();
    let mut out = Vec::new();
    for i in (0..reg.len()).step_by(step) {
        let name = reg.display_name(i);
        let mut words: Vec<&str> = name.split_whitespace().collect();
        words.sort_by_key(|w| w.len());
        let rare = words.last().map(|w| w.to_string()).unwrap_or_default();
        for text in [name.to_string(), format!("{rare} {name}")] {
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            for n in 1..=chars.len().min(12) {
                let end = chars.get(n).map_or(text.len(), |c| c.0);
                out.push(text[..end].to_string());
            }
        }
    }
    out
}

/// Checks every query under every filter; returns (answered by a piece,
/// total).
fn check(d: &Data, c: &PieceClient, qs: &[String], filters: &[&str]) -> (usize, usize) {
    let e = &d.engine;
    let (mut answered, mut total) = (0, 0);
    for q in qs {
        for f in filters {
            total += 1;
            let whole = e.suggest(q, &e.parse_filters(f, Version::V2).unwrap(), 10);
            let got = match c.answer(q, f, 10).unwrap() {
                Answer::Hits(h) => h,
                Answer::Whole => continue,
                Answer::Need(k, _) => panic!("{q}: piece {k} not loaded"),
                Answer::NeedDirectory(f) => panic!("{q}: directory part {f} not loaded"),
            };
            answered += 1;
            let view = |v: &[registry_core::search::Suggestion]| -> Vec<View> {
                v.iter()
                    .map(|s| {
                        (
                            s.summary.id.clone(),
                            s.reason,
                            s.matched.value.clone(),
                            s.ranges.clone(),
                        )
                    })
                    .collect()
            };
            assert_eq!(view(&got), view(&whole), "{q:?} filter {f:?}");
        }
    }
    (answered, total)
}

/// What must agree: id, reason, matched name, highlight.
type View = (String, &'static str, String, Vec<(usize, usize)>);

const FILTERS: [&str; 4] = [
    "",
    "types:education",
    "locations.geo_details.country_code:US",
    "status:active,types:funder",
];

#[test]
fn pieces_answer_like_the_whole_registry_on_the_demo() {
    let d = demo();
    // A tiny budget, so the 63 records are split and heads are used.
    let budget = PieceBudget {
        raw_bytes: 600,
        head_records: 12,
    };
    let (specs, c) = client(d, &budget);
    assert!(specs.iter().any(|s| s.kind == PieceKind::Head));
    assert!(specs.iter().any(|s| s.kind == PieceKind::Leaf));
    let (answered, total) = check(d, &c, &queries(&d.engine, 1), &FILTERS);
    println!("demo: {answered} of {total} queries answered by a piece");
    assert!(answered * 2 > total, "{answered} / {total}");
    // Routes: ids and empty text need the whole data; nothing matches a
    // unit under no node.
    assert_eq!(c.route("0bsd6jb11"), Route::Whole);
    assert_eq!(c.route("  "), Route::Whole);
    assert_eq!(c.route("zzzzqx"), Route::Empty);
    assert!(matches!(
        c.answer("zzzzqx", "", 10).unwrap(),
        Answer::Hits(h) if h.is_empty()
    ));
    // A piece that is not loaded is asked for.
    let fresh = PieceClient::new(Directory::of(&specs));
    assert!(matches!(
        fresh.answer("northf", "", 5).unwrap(),
        Answer::Need(_, _)
    ));
    // A bad filter is the same error as on the whole registry.
    let err = c.answer("northf", "types:castle", 5).unwrap_err();
    assert!(err[0].contains("castle"), "{err:?}");
    // A country name no record of the piece has matches nothing there.
    assert!(matches!(c.route("kilimani"), Route::Leaf(_)));
    assert!(matches!(
        c.answer("kilimani", "locations.geo_details.country_name:Chile", 5).unwrap(),
        Answer::Hits(h) if h.is_empty()
    ));
}

#[test]
fn pieces_answer_like_the_whole_registry_on_the_full_data() {
    let Some(d) = full() else { return };
    let (specs, c) = client(d, &PieceBudget::default());
    let qs = queries(&d.engine, 150);
    let (answered, total) = check(d, &c, &qs, &FILTERS);
    println!(
        "full data: {} pieces, {answered} of {total} queries answered by a piece",
        specs.len()
    );
    assert!(answered * 10 > total * 6, "{answered} / {total}");
    // The shipped directory lists only the split prefixes: the same answers.
    let shipped = shipped_client(d, &specs, &qs);
    let (answered2, _) = check(d, &shipped, &qs, &FILTERS);
    assert_eq!(answered2, answered);
}

/// Filters parsed for a part accept what the whole accepts.
#[test]
fn part_filters_are_lenient_only_about_absent_country_names() {
    let e = &demo().engine;
    let ix = e.index();
    assert!(
        Filters::parse(
            "locations.geo_details.country_name:Atlantis",
            Version::V2,
            ix
        )
        .is_err()
    );
    let f = Filters::parse_in_part(
        "locations.geo_details.country_name:Atlantis",
        Version::V2,
        ix,
    )
    .unwrap();
    assert!(e.suggest("northfield", &f, 5).is_empty());
    assert!(Filters::parse_in_part("types:castle", Version::V2, ix).is_err());
}

/// A missing piece is an empty registry: it answers, with nothing.
#[test]
fn an_empty_registry_answers_nothing() {
    let e = Engine::new(registry_core::Registry::empty());
    assert!(e.suggest("a", &Filters::default(), 10).is_empty());
    assert!(e.suggest("0bsd6jb11", &Filters::default(), 10).is_empty());
    assert_eq!(e.registry().len(), 0);
}
