//! The partitioned typeahead index answers exactly as the whole registry:
//! for the relevance benchmark's kind of queries (display names and their
//! rarest word first, typed keystroke by keystroke), with and without
//! filters, every query a piece answers gives the same top 10 as the
//! whole-index `suggest`; in the form's context (`suggest_in`), every query
//! a leaf answers too, while heads and e-mail domains go to the whole data
//! where the context could reach past the piece.

mod search_support;

use std::collections::HashMap;

use registry_core::pieces::{self, Answer, Directory, PieceBudget, PieceClient, PieceKind, Route};
use registry_core::search::{Engine, Filters, SuggestContext, Suggestion, Version};
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
        let file = pieces::piece_file(s, &recs, "pieces", 0, &shard::Stored).unwrap();
        if s.kind == PieceKind::Id {
            // Id pieces are asked for by [`ids_answer_like_the_whole_registry`].
            continue;
        }
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
    for (q, f) in qs.iter().flat_map(|q| FILTERS.map(|f| (q, f))) {
        loop {
            match c.answer(q, f, 10, &SuggestContext::default()).unwrap() {
                Answer::Need(key, _) | Answer::Partial(_, key, _) => match full.get(&key) {
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
    let n = check_in(d, c, qs, filters, &SuggestContext::default());
    (n.answered, n.total)
}

/// Counts of [`check_in`].
#[derive(Debug, Default)]
struct Checked {
    /// Queries × filters.
    total: usize,
    /// Answered by a piece (the others: `Whole`).
    answered: usize,
    /// Answered, and the context changes the whole registry's answer (so
    /// a piece ignoring it would have failed).
    changed: usize,
}

/// Checks every query under every filter in the context `ctx`: where a
/// piece answers, it is the whole registry's `suggest_in`.
fn check_in(
    d: &Data,
    c: &PieceClient,
    qs: &[String],
    filters: &[&str],
    ctx: &SuggestContext,
) -> Checked {
    let e = &d.engine;
    let mut n = Checked::default();
    for q in qs {
        for f in filters {
            n.total += 1;
            let filters = e.parse_filters(f, Version::V2).unwrap();
            let whole = e.suggest_in(q, &filters, 10, ctx);
            let got = match c.answer(q, f, 10, ctx).unwrap() {
                Answer::Hits(h) => h,
                Answer::Whole => continue,
                Answer::Need(k, _) | Answer::Partial(_, k, _) => {
                    panic!("{q}: piece {k} not loaded")
                }
                Answer::NeedDirectory(f) => panic!("{q}: directory part {f} not loaded"),
            };
            n.answered += 1;
            assert_eq!(view(&got), view(&whole), "{q:?} filter {f:?} in {ctx:?}");
            if *ctx != SuggestContext::default()
                && view(&whole) != view(&e.suggest(q, &filters, 10))
            {
                n.changed += 1;
            }
        }
    }
    n
}

/// What must agree: id, reason, matched name, highlight, remembered,
/// localized label.
type View = (
    String,
    &'static str,
    String,
    Vec<(usize, usize)>,
    bool,
    Option<String>,
);

/// The [`View`] of each hit.
fn view(v: &[Suggestion]) -> Vec<View> {
    v.iter()
        .map(|s| {
            (
                s.summary.id.clone(),
                s.reason,
                s.matched.value.clone(),
                s.ranges.clone(),
                s.remembered,
                s.localized.clone(),
            )
        })
        .collect()
}

const FILTERS: [&str; 4] = [
    "",
    "types:education",
    "locations.geo_details.country_code:US",
    "status:active,types:funder",
];

/// A tiny budget, so the 63 demo records are split and heads are used.
const DEMO_BUDGET: PieceBudget = PieceBudget {
    raw_bytes: 600,
    head_records: 12,
    exact_words_bytes: 1024,
};

#[test]
fn pieces_answer_like_the_whole_registry_on_the_demo() {
    let d = demo();
    let (specs, c) = client(d, &DEMO_BUDGET);
    assert!(specs.iter().any(|s| s.kind == PieceKind::Head));
    assert!(specs.iter().any(|s| s.kind == PieceKind::Leaf));
    let (answered, total) = check(d, &c, &queries(&d.engine, 1), &FILTERS);
    println!("demo: {answered} of {total} queries answered by a piece");
    assert!(answered * 2 > total, "{answered} / {total}");
    // Routes: ids and empty text need the whole data; nothing matches a
    // unit under no node.
    let none = SuggestContext::default();
    assert_eq!(c.route("0bsd6jb11"), Route::Whole);
    assert_eq!(c.route("  "), Route::Whole);
    assert_eq!(c.route("zzzzqx"), Route::Empty);
    assert!(matches!(
        c.answer("zzzzqx", "", 10, &none).unwrap(),
        Answer::Hits(h) if h.is_empty()
    ));
    // A piece that is not loaded is asked for.
    let fresh = PieceClient::new(Directory::of(&specs));
    assert!(matches!(
        fresh.answer("northf", "", 5, &none).unwrap(),
        Answer::Need(_, _)
    ));
    // A bad filter is the same error as on the whole registry.
    let err = c.answer("northf", "types:castle", 5, &none).unwrap_err();
    assert!(err[0].contains("castle"), "{err:?}");
    // A country name no record of the piece has matches nothing there.
    assert!(matches!(c.route("kilimani"), Route::Leaf(_)));
    assert!(matches!(
        c.answer("kilimani", "locations.geo_details.country_name:Chile", 5, &none)
            .unwrap(),
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

/// A client holding only the heads: what a user typing has while the
/// longer prefixes' pieces are on their way.
fn heads_only(d: &Data, specs: &[pieces::PieceSpec]) -> PieceClient {
    let (_, files) = client_files(d, specs);
    let mut c = PieceClient::new(Directory::of(specs));
    for s in specs.iter().filter(|s| s.kind == PieceKind::Head) {
        c.add(&s.key, &files[&s.key]).unwrap();
    }
    c
}

/// Answers of a heads-only client for one-word queries, checked against
/// the whole registry: a complete one is its answer, a partial one its
/// first hits. Returns (complete from a shorter head, partial, one-word
/// queries that needed a piece not loaded).
fn check_shorter_heads(
    d: &Data,
    c: &PieceClient,
    qs: &[String],
    ctx: &SuggestContext,
) -> (usize, usize, usize) {
    let e = &d.engine;
    let (mut complete, mut partial, mut waiting) = (0, 0, 0);
    for q in qs.iter().filter(|q| !q.trim().contains(' ')) {
        for f in FILTERS {
            let filters = e.parse_filters(f, Version::V2).unwrap();
            let whole = e.suggest_in(q, &filters, 10, ctx);
            let own = matches!(c.route(q), Route::Head(k) if c.has(&k));
            match c.answer(q, f, 10, ctx).unwrap() {
                Answer::Hits(h) => {
                    assert_eq!(view(&h), view(&whole), "{q:?} filter {f:?}");
                    if !own && matches!(c.route(q), Route::Leaf(_) | Route::Head(_)) {
                        complete += 1;
                        waiting += 1;
                    }
                }
                Answer::Partial(h, key, _) => {
                    assert!(!h.is_empty() && h.len() < 10, "{q:?}: {}", h.len());
                    assert!(!c.has(&key));
                    assert_eq!(view(&h), view(&whole[..h.len()]), "{q:?} filter {f:?}");
                    partial += 1;
                    waiting += 1;
                }
                Answer::Need(..) => waiting += 1,
                Answer::Whole | Answer::NeedDirectory(_) => {}
            }
        }
    }
    (complete, partial, waiting)
}

/// While the piece of a longer prefix is on its way, a loaded head of a
/// shorter one answers what it can prove: the first hits of the whole
/// registry, all of them when it holds ten. Without the exact words it
/// would be wrong: a record it does not hold may be named exactly as typed.
#[test]
fn shorter_heads_prove_the_first_hits() {
    let d = demo();
    let specs = pieces::partition(&d.engine, &DEMO_BUDGET);
    let qs = queries(&d.engine, 1);
    let c = heads_only(d, &specs);
    let (complete, partial, waiting) = check_shorter_heads(d, &c, &qs, &SuggestContext::default());
    println!("demo: {complete} complete and {partial} partial answers of {waiting} waiting");
    assert!(
        partial > 0 && complete + partial < waiting,
        "{complete} {partial} {waiting}"
    );
    // The same under `lang`; a preference lifts records a head may not
    // hold, so it proves nothing then.
    let lang = SuggestContext {
        lang: Some("fr".into()),
        ..Default::default()
    };
    let (c2, p2, _) = check_shorter_heads(d, &c, &qs, &lang);
    assert_eq!((c2, p2), (complete, partial));
    let prefer = SuggestContext {
        prefer_countries: vec!["US".into()],
        ..Default::default()
    };
    let (c3, p3, _) = check_shorter_heads(d, &c, &qs, &prefer);
    assert_eq!(c3 + p3, 0);
}

/// A record outside a head named exactly as typed comes first in the whole
/// registry (an exact band): the head's exact words keep it from proving
/// its own records first; a head that listed none would.
#[test]
fn exact_words_keep_an_exactly_named_record_first() {
    let mut dump: serde_json::Value =
        serde_json::from_slice(&std::fs::read(search_support::DEMO).unwrap()).unwrap();
    // A word one character past a full head, answered by a leaf, that
    // some of the head's records match: the acronym of a new record.
    let e = &demo().engine;
    let demo_specs = pieces::partition(e, &DEMO_BUDGET);
    let demo_client = PieceClient::new(Directory::of(&demo_specs));
    let q: String = demo_specs
        .iter()
        .filter(|s| s.kind == PieceKind::Head && s.records.len() == DEMO_BUDGET.head_records)
        .flat_map(|s| ('a'..='z').map(move |c| (s, format!("{}{c}", s.key))))
        .find(|(s, q)| {
            matches!(demo_client.route(q), Route::Leaf(_))
                && e.suggest(q, &Filters::default(), 10)
                    .iter()
                    .any(|h| s.records.contains(&(h.index as u32)))
        })
        .map(|(_, q)| q)
        .unwrap();
    let q = q.as_str();
    println!("query {q}");
    let items = dump.as_array_mut().unwrap();
    let mut x = items[0].clone();
    let id = (1..)
        .filter_map(|n| RecordId::from_number(n * 104_729))
        .find(|id| d_has_not(items, id))
        .unwrap();
    x["id"] = id.to_string().into();
    x["names"] = serde_json::json!([
        {"value": "Qzx Observatory", "types": ["ror_display", "label"], "lang": "en"},
        {"value": q.to_uppercase(), "types": ["acronym"], "lang": null}
    ]);
    x["relationships"] = serde_json::json!([]);
    // Inactive: it ranks after every active record for a shorter prefix
    // (outside its head), but first for its exact acronym.
    x["status"] = "inactive".into();
    items.push(x);
    let d = &search_support::build(&serde_json::to_vec(&dump).unwrap());
    let specs = pieces::partition(&d.engine, &DEMO_BUDGET);
    let whole = d.engine.suggest(q, &Filters::default(), 10);
    assert_eq!(whole[0].summary.id, id.to_string(), "{:?}", view(&whole));
    assert!(whole.len() > 1);
    // Typed with only the heads at hand: never a wrong first hit.
    let c = heads_only(d, &specs);
    assert!(matches!(c.route(q), Route::Leaf(_)), "{q}");
    match c.answer(q, "", 10, &SuggestContext::default()).unwrap() {
        Answer::Need(..) => {}
        Answer::Hits(h) | Answer::Partial(h, _, _) => {
            assert_eq!(view(&h), view(&whole[..h.len()]))
        }
        a => panic!("{a:?}"),
    }
    // Heads that claim no record outside them is named exactly so.
    let lying: Vec<pieces::PieceSpec> = specs
        .iter()
        .cloned()
        .map(|mut s| {
            if let Some(w) = &mut s.exact_words {
                w.words.clear();
                w.upto = u32::MAX;
            }
            s
        })
        .collect();
    let liar = heads_only(d, &lying);
    match liar.answer(q, "", 10, &SuggestContext::default()).unwrap() {
        Answer::Hits(h) | Answer::Partial(h, _, _) => {
            assert_ne!(
                h[0].summary.id,
                id.to_string(),
                "the liar proved the right answer"
            )
        }
        a => panic!("the lying heads should have proved a wrong first hit: {a:?}"),
    }
}

fn d_has_not(items: &[serde_json::Value], id: &RecordId) -> bool {
    !items.iter().any(|r| r["id"] == id.to_string())
}

#[test]
fn shorter_heads_prove_the_first_hits_on_the_full_data() {
    let Some(d) = full() else { return };
    let specs = pieces::partition(&d.engine, &PieceBudget::default());
    let qs = queries(&d.engine, 150);
    let c = heads_only(d, &specs);
    let (complete, partial, waiting) = check_shorter_heads(d, &c, &qs, &SuggestContext::default());
    println!("full data: {complete} complete and {partial} partial answers of {waiting} waiting");
    assert!(
        complete > 0 && partial > 0,
        "{complete} {partial} {waiting}"
    );
}

/// Exact words round-trip, and damaged bytes are an error, never a panic.
#[test]
fn exact_words_round_trip_and_refuse_damage() {
    let w = pieces::ExactWords {
        upto: 5,
        words: vec![
            "sa".into(),
            "sab".into(),
            "sé".into(),
            "séa".into(),
            "sø".into(),
        ],
    };
    let bytes = w.encode();
    assert_eq!(pieces::ExactWords::decode(&bytes).unwrap(), w);
    assert!(w.rules_out("sabc") && !w.rules_out("sab") && !w.rules_out("sabcde"));
    for cut in 0..bytes.len() {
        assert!(
            pieces::ExactWords::decode(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(pieces::ExactWords::decode(&trailing).is_err());
    // Out of order, or sharing more than the previous word has.
    let swapped = pieces::ExactWords {
        upto: 5,
        words: vec!["sb".into(), "sa".into()],
    };
    assert!(pieces::ExactWords::decode(&swapped.encode()).is_err());
    let mut long_share = pieces::ExactWords {
        upto: 5,
        words: vec!["sa".into()],
    }
    .encode();
    long_share[2] = 9;
    assert!(pieces::ExactWords::decode(&long_share).is_err());
    // A split character is refused too.
    let mut split = bytes.clone();
    let at = split.len() - 4; // the shared count of "sø" (shares "s")
    split[at] = 2; // inside "é"'s two bytes of the word before
    assert!(pieces::ExactWords::decode(&split).is_err());
}

/// Contexts whose every part is record-local: each part alone, then all
/// together. The remembered records are among those whose names
/// [`queries`] types (every `step`-th), plus an id no record has; labels
/// are shown in `lang`.
fn local_contexts(e: &Engine, step: usize, lang: &str) -> Vec<SuggestContext> {
    let reg = e.registry();
    let absent = (0..)
        .filter_map(RecordId::from_number)
        .find(|&id| reg.index_of(id).is_none())
        .unwrap();
    let remembered: Vec<String> = [reg.id(10 * step), absent, reg.id(0), reg.id(3 * step)]
        .iter()
        .map(|id| id.url())
        .chain(["not an id".to_string()])
        .collect();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let none = SuggestContext::default();
    vec![
        SuggestContext {
            prefer_countries: strings(&["GB"]),
            ..none.clone()
        },
        SuggestContext {
            prefer_countries: strings(&["de", "FR"]),
            ..none.clone()
        },
        SuggestContext {
            prefer_types: strings(&["funder"]),
            ..none.clone()
        },
        SuggestContext {
            remembered: remembered.clone(),
            ..none.clone()
        },
        SuggestContext {
            lang: Some(lang.into()),
            ..none.clone()
        },
        SuggestContext {
            prefer_countries: strings(&["GB"]),
            prefer_types: strings(&["funder"]),
            remembered,
            lang: Some(lang.into()),
            ..none
        },
    ]
}

/// Checks `qs` under each of [`local_contexts`]: leaves always answer,
/// exactly; heads answer (exactly) only under `lang` alone; each context
/// changes some answer the pieces gave (so they cannot have ignored it).
fn check_contexts(d: &Data, c: &PieceClient, qs: &[String], step: usize, lang: &str) {
    for ctx in local_contexts(&d.engine, step, lang) {
        let n = check_in(d, c, qs, &FILTERS, &ctx);
        println!("{ctx:?}: {n:?}");
        assert!(n.changed > 0, "{ctx:?} changes no answer: {n:?}");
        let lang_only = SuggestContext {
            lang: None,
            ..ctx.clone()
        } == SuggestContext::default();
        let (mut leaves, mut heads) = (0, 0);
        for q in qs {
            let a = c.answer(q, "", 10, &ctx).unwrap();
            match c.route(q) {
                Route::Leaf(_) => {
                    leaves += 1;
                    assert!(matches!(a, Answer::Hits(_)), "{q:?} in {ctx:?}: {a:?}");
                }
                Route::Head(_) => {
                    heads += 1;
                    if lang_only {
                        assert!(matches!(a, Answer::Hits(_)), "{q:?} in {ctx:?}: {a:?}");
                    } else {
                        assert!(matches!(a, Answer::Whole), "{q:?} in {ctx:?}: {a:?}");
                    }
                }
                _ => {}
            }
        }
        assert!(leaves > 0 && heads > 0, "{leaves} leaves, {heads} heads");
    }
}

#[test]
fn pieces_answer_in_context_like_the_whole_registry_on_the_demo() {
    let d = demo();
    let (_, c) = client(d, &DEMO_BUDGET);
    // The demo's German labels are all display names (never shown as a
    // `localized` label); one French label is not.
    check_contexts(d, &c, &queries(&d.engine, 1), 1, "fr");
}

#[test]
fn pieces_answer_in_context_like_the_whole_registry_on_the_full_data() {
    let Some(d) = full() else { return };
    let (_, c) = client(d, &PieceBudget::default());
    check_contexts(d, &c, &queries(&d.engine, 600), 600, "de");
}

/// A preferred country reorders a leaf's answer as it does the whole
/// registry's.
#[test]
fn a_leaf_follows_a_preferred_country() {
    let d = demo();
    let e = &d.engine;
    let (_, c) = client(d, &DEMO_BUDGET);
    let ids = |v: &[Suggestion]| v.iter().map(|s| s.summary.id.clone()).collect::<Vec<_>>();
    let gb = SuggestContext {
        prefer_countries: vec!["GB".into()],
        ..SuggestContext::default()
    };
    let mut followed = 0;
    for q in queries(e, 1) {
        if !matches!(c.route(&q), Route::Leaf(_)) {
            continue;
        }
        let plain = ids(&e.suggest(&q, &Filters::default(), 10));
        let preferred = ids(&e.suggest_in(&q, &Filters::default(), 10, &gb));
        if plain == preferred {
            continue;
        }
        let Answer::Hits(h) = c.answer(&q, "", 10, &gb).unwrap() else {
            panic!("{q:?}: a leaf must answer")
        };
        assert_eq!(ids(&h), preferred, "{q:?}");
        followed += 1;
    }
    assert!(
        followed > 0,
        "no query where preferring GB changes the order"
    );
}

/// An e-mail domain needs the `domains` section, which pieces lack: the
/// whole data answers, whatever the route, before anything is fetched.
/// Text that is no domain (no dot) is no e-mail context at all.
#[test]
fn an_email_domain_is_answered_by_the_whole_data() {
    let d = demo();
    let e = &d.engine;
    let (_, c) = client(d, &DEMO_BUDGET);
    let qs = queries(e, 1);
    let domain = (0..e.registry().len())
        .find_map(|r| e.registry().domains(r).into_iter().next())
        .expect("a demo record with a domain");
    let mail = SuggestContext {
        email_domain: Some(format!("jane@{domain}")),
        lang: Some("de".into()),
        ..SuggestContext::default()
    };
    let mut changed = 0;
    for q in &qs {
        assert!(
            matches!(c.answer(q, "", 10, &mail).unwrap(), Answer::Whole),
            "{q:?}"
        );
        let f = Filters::default();
        changed += usize::from(e.suggest_in(q, &f, 10, &mail) != e.suggest(q, &f, 10));
    }
    // ... where the whole registry's answer does depend on the domain.
    assert!(changed > 0, "{domain} changes no answer");
    let fresh = PieceClient::new(Directory::sharded(["n".to_string()]));
    assert!(matches!(
        fresh.answer("northf", "", 5, &mail).unwrap(),
        Answer::Whole
    ));
    let local = SuggestContext {
        email_domain: Some("jane@localhost".into()),
        ..SuggestContext::default()
    };
    let n = check_in(d, &c, &qs, &[""], &local);
    let plain = check_in(d, &c, &qs, &[""], &SuggestContext::default());
    assert_eq!(n.answered, plain.answered);
    assert!(n.answered > 0);
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

/// Id pieces: every record of the demo by its id in three forms, and ids
/// of no record, give the whole registry's answer, through a client that
/// fetches only the id piece (and, for an id of no record, what its text
/// routes to); the shipped directory does not know the id pieces.
#[test]
fn ids_answer_like_the_whole_registry() {
    let d = demo();
    let specs = pieces::partition(&d.engine, &PieceBudget::default());
    let id_specs: Vec<&pieces::PieceSpec> =
        specs.iter().filter(|s| s.kind == PieceKind::Id).collect();
    // One run of records per key, covering every record once.
    assert_eq!(
        id_specs.iter().map(|s| s.records.len()).sum::<usize>(),
        d.engine.registry().len()
    );
    let by_id: HashMap<RecordId, &Record> = d
        .records
        .iter()
        .map(|r| (RecordId::parse(&r.id).unwrap(), r))
        .collect();
    let file_of = |s: &pieces::PieceSpec| {
        let recs: Vec<Record> = s
            .records
            .iter()
            .map(|&i| (*by_id[&d.engine.registry().id(i as usize)]).clone())
            .collect();
        shard::build_kinds(
            &recs,
            "pieces",
            0,
            &shard::Stored,
            &[SectionKind::Summary, SectionKind::Names],
        )
        .unwrap()
        .file(&[SectionKind::Summary, SectionKind::Names])
    };
    let (_, terms) = client_files(d, &specs);
    let mut c = PieceClient::new(Directory::sharded(Vec::<String>::new())).with_id_pieces();
    let reg = d.engine.registry();
    let mut texts: Vec<String> = Vec::new();
    for r in 0..reg.len() {
        let url = reg.id(r).to_string();
        let bare = url.rsplit('/').next().unwrap().to_string();
        texts.push(url.clone());
        texts.push(bare.clone());
        texts.push(format!("ror.org/{bare}"));
    }
    // Valid ids of no record: the first record's id with other digits.
    let absent: Vec<String> = (1..40u32)
        .filter_map(|n| RecordId::from_number(n * 7919))
        .filter(|id| d.engine.registry().index_of(*id).is_none())
        .map(|id| id.to_string())
        .collect();
    assert!(!absent.is_empty());
    texts.extend(absent);
    let mut fetched = 0;
    for t in &texts {
        for filter in ["", "types:education"] {
            let got = loop {
                match c.answer(t, filter, 10, &SuggestContext::default()).unwrap() {
                    Answer::Need(key, PieceKind::Id) => {
                        fetched += 1;
                        match id_specs.iter().find(|s| s.key == key) {
                            Some(s) => c.add_id(&key, &file_of(s)).unwrap(),
                            None => c.add_missing_id(&key),
                        }
                    }
                    Answer::Need(key, _) | Answer::Partial(_, key, _) => match terms.get(&key) {
                        Some(bytes) => c.add(&key, bytes).unwrap(),
                        None => c.add_missing(&key),
                    },
                    Answer::NeedDirectory(_) => unreachable!("no split prefix in the demo"),
                    Answer::Whole => break None,
                    Answer::Hits(h) => break Some(h),
                }
            };
            let want =
                d.engine
                    .suggest(t, &d.engine.parse_filters(filter, Version::V2).unwrap(), 10);
            let ids = |h: &[Suggestion]| {
                h.iter()
                    .map(|s| (s.summary.id.clone(), s.reason))
                    .collect::<Vec<_>>()
            };
            let got = got.unwrap_or_else(|| panic!("'{t}' went to the whole data"));
            assert_eq!(ids(&got), ids(&want), "'{t}' under '{filter}'");
        }
    }
    assert!(
        fetched > 0 && fetched <= id_specs.len() + 40,
        "{fetched} id pieces fetched"
    );
    // Without id pieces in the build, an id is the whole data's.
    let plain = PieceClient::new(Directory::sharded(Vec::<String>::new()));
    assert!(matches!(
        plain
            .answer(&texts[0], "", 10, &SuggestContext::default())
            .unwrap(),
        Answer::Whole
    ));
}

/// The first-keystroke pack keeps its entries byte for byte and refuses
/// anything that is not exactly a pack (truncated, other magic, trailing
/// bytes), so a damaged download is never half-used.
#[test]
fn first_keystroke_pack_round_trips_and_refuses_damage() {
    use pieces::pack::{Entry, decode, encode};
    let entries = vec![
        Entry {
            kind: b'h',
            key: "h".into(),
            body: vec![1, 2, 3],
        },
        Entry {
            kind: b'd',
            key: "é".into(),
            body: b"[\"\xc3\xa9a\"]".to_vec(),
        },
        Entry {
            kind: b'h',
            key: "大".into(),
            body: Vec::new(),
        },
    ];
    let bytes = encode(&entries);
    assert_eq!(decode(&bytes), Some(entries.clone()));
    assert_eq!(decode(&encode(&[])), Some(Vec::new()));
    for cut in 0..bytes.len() {
        assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(decode(&trailing), None);
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(decode(&magic), None);
    // A huge count or length is refused, not allocated.
    let mut huge = bytes.clone();
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(decode(&huge), None);
}

/// The pack's characters are split first characters that begin display
/// names, commonest first.
#[test]
fn first_keystroke_characters_are_common_split_firsts() {
    let d = full_or_demo();
    let specs = pieces::partition(
        &d.engine,
        &PieceBudget {
            // The demo's 63 records split their first characters only under a tiny budget.
            raw_bytes: if d.engine.registry().len() > 1000 {
                4 * 1024
            } else {
                256
            },
            ..PieceBudget::default()
        },
    );
    let split: Vec<String> = specs
        .iter()
        .filter(|s| s.kind == PieceKind::Head && s.key.chars().count() == 1)
        .map(|s| s.key.clone())
        .collect();
    assert!(!split.is_empty());
    let refs: Vec<&str> = split.iter().map(String::as_str).collect();
    let firsts = pieces::pack_first_characters(&d.engine, &refs, 0.005);
    assert!(!firsts.is_empty());
    assert!(firsts.iter().all(|f| split.contains(f)));
    let reg = d.engine.registry();
    let count = |f: &str| {
        (0..reg.len())
            .filter(|&r| {
                registry_core::text::fold(reg.display_name(r))
                    .trim_start()
                    .starts_with(f)
            })
            .count()
    };
    let counts: Vec<usize> = firsts.iter().map(|f| count(f)).collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "{firsts:?} {counts:?}"
    );
    assert!(counts.iter().all(|&n| n as f64 >= 0.005 * reg.len() as f64));
}

fn full_or_demo() -> &'static Data {
    full().unwrap_or_else(demo)
}

/// A head written before the exact words (summary and names only) still
/// loads and answers its own prefix; it proves nothing for longer ones.
#[test]
fn heads_without_exact_words_still_load_and_prove_nothing() {
    let d = demo();
    let specs: Vec<pieces::PieceSpec> = pieces::partition(&d.engine, &DEMO_BUDGET)
        .into_iter()
        .map(|mut s| {
            s.exact_words = None;
            s
        })
        .collect();
    let c = heads_only(d, &specs);
    let qs = queries(&d.engine, 1);
    let (complete, partial, waiting) = check_shorter_heads(d, &c, &qs, &SuggestContext::default());
    assert_eq!((complete, partial), (0, 0));
    assert!(waiting > 0);
    for s in specs.iter().filter(|s| s.kind == PieceKind::Head) {
        let whole = d.engine.suggest(&s.key, &Filters::default(), 10);
        match c
            .answer(&s.key, "", 10, &SuggestContext::default())
            .unwrap()
        {
            Answer::Hits(h) => assert_eq!(view(&h), view(&whole), "{}", s.key),
            a => panic!("{}: {a:?}", s.key),
        }
    }
}
