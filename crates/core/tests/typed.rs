//! The search page's reading of a query (`mode=typed`, core
//! `search::typed`): the last word by prefix, the typeahead's matches first
//! in its order, the other matches by words covered, and `meta` /
//! `number_of_results` over the same matches. E2 without `mode` keeps the
//! spec's reading (the conformance suite pins it).

mod search_support;

use std::collections::BTreeMap;

use registry_core::search::{Engine, Filters};
use registry_core::{Record, RecordId};
use search_support::{Data, all_ids, bad, build, demo, display, enc, facet, full, get, ok};
use serde_json::{Value, json};

fn typed_path(q: &str) -> String {
    format!("/v2/organizations?query={}&mode=typed", enc(q))
}

/// Display names of the first page of a list answer.
fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|r| {
            r["names"]
                .as_array()
                .expect("names")
                .iter()
                .find(|n| {
                    n["types"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|t| t == "registry_display")
                })
                .expect("display name")["value"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// The typeahead's first suggestion as the app's search box asks for it (no
/// filters).
fn first_suggestion(e: &Engine, text: &str) -> Option<String> {
    let s = e.suggest(text, &Filters::default(), 8).into_iter().next()?;
    Some(s.summary.name)
}

fn first_typed(e: &Engine, text: &str) -> Option<String> {
    let q = registry_core::search::query::escape(text);
    names(&ok(e, &typed_path(&q))).into_iter().next()
}

#[test]
fn a_part_typed_last_word_lists_its_matches() {
    let d = demo();
    // E2 over the API reads `northf` as a whole word: no organization has it.
    assert_eq!(
        ok(&d.engine, "/v2/organizations?query=northf")["number_of_results"],
        0
    );
    let v = ok(&d.engine, &typed_path("northf"));
    let first = names(&v).into_iter().next().expect("matches for northf");
    assert_eq!(Some(first), first_suggestion(&d.engine, "northf"));
    // The matches are E2's for `northf*`: every active record with a word
    // starting with "northf".
    let mut typed = all_ids(&d.engine, &typed_path("northf"));
    let mut prefix = all_ids(&d.engine, "/v2/organizations?query=northf*");
    typed.sort();
    prefix.sort();
    assert!(typed.len() >= 5, "{typed:?}");
    assert_eq!(typed, prefix);
    // Words before the last one, in any order, by prefix as the typeahead reads them.
    for q in ["univ northf", "northfield univ", "NORTHF"] {
        let v = ok(&d.engine, &typed_path(q));
        assert_eq!(
            names(&v).first().cloned(),
            first_suggestion(&d.engine, q),
            "{q}"
        );
    }
}

/// Every display name, its words in reverse order and its acronyms, typed
/// keystroke by keystroke: the list's first result is the typeahead's first
/// suggestion, whatever its status.
#[test]
fn the_first_result_is_the_typeaheads_first_suggestion_at_every_keystroke() {
    let d = demo();
    let e = &d.engine;
    let mut checked = 0;
    for r in &d.records {
        let mut texts: Vec<String> = vec![display(r).to_string()];
        let mut words: Vec<&str> = display(r).split_whitespace().collect();
        words.reverse();
        texts.push(words.join(" "));
        texts.extend(
            r.names
                .iter()
                .filter(|n| n.types.iter().any(|t| t == "acronym"))
                .map(|n| n.value.clone()),
        );
        for text in &texts {
            let ends: Vec<usize> = text
                .char_indices()
                .map(|(i, _)| i)
                .skip(1)
                .chain([text.len()])
                .collect();
            for end in ends {
                let typed = &text[..end];
                if let Some(want) = first_suggestion(e, typed) {
                    assert_eq!(
                        first_typed(e, typed).as_deref(),
                        Some(want.as_str()),
                        "{typed:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked}");
}

/// A constructed record.
fn org(n: u32, display: &str, others: &[(&str, &str)], status: &str) -> Value {
    let mut names =
        vec![json!({"lang": null, "types": ["ror_display", "label"], "value": display})];
    for (kind, value) in others {
        names.push(json!({"lang": null, "types": [kind], "value": value}));
    }
    json!({
        "admin": {"created": {"date": "2020-01-01", "schema_version": "2.1"},
                  "last_modified": {"date": "2024-01-01", "schema_version": "2.1"}},
        "domains": [], "established": null, "external_ids": [],
        "id": RecordId::from_number(n).expect("valid").url(), "links": [],
        "locations": [{"geonames_details": {
            "continent_code": "EU", "continent_name": "Europe",
            "country_code": "GB", "country_name": "United Kingdom",
            "country_subdivision_code": null, "country_subdivision_name": null,
            "lat": 0.0, "lng": 0.0, "name": "Town"}, "geonames_id": 1}],
        "names": names, "relationships": [], "status": status, "types": ["education"]
    })
}

/// Constructed records: universities with and without an abbreviated
/// "Univ …" label, a few Cambridge organizations, and filler records so
/// that "university", "marlow" and "tidal" are common words.
fn constructed() -> &'static Data {
    static D: std::sync::OnceLock<Data> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let mut recs = vec![
            org(
                1,
                "University of Cambridge",
                &[("acronym", "UCAM")],
                "active",
            ),
            org(
                2,
                "Université de Lille",
                &[("label", "Univ Lille")],
                "active",
            ),
            org(
                3,
                "Université de Rennes",
                &[("label", "Univ Rennes")],
                "active",
            ),
            org(4, "Cambridge University Press", &[], "active"),
            org(5, "Cambridge Consultants", &[], "active"),
            org(6, "Cambridge Biomedical Campus", &[], "active"),
            org(7, "Zephyr", &[], "active"),
            org(8, "Marlow Tidal Observatory", &[], "active"),
            org(9, "Marlow Rowing Club", &[], "active"),
            org(10, "Tidal Energy Board", &[], "active"),
            org(11, "Harvest Institute", &[], "inactive"),
            org(12, "Harvey Foundation", &[], "active"),
            org(13, "Quillon Foundation", &[], "withdrawn"),
        ];
        let syl = ["bel", "mor", "tan", "vik", "sol", "dar", "quen", "lis"];
        let mut n = 100;
        for a in syl {
            for b in syl {
                recs.push(org(n, &format!("University of {a}{b}"), &[], "active"));
                n += 1;
            }
            // Common enough that a rare word alone in a short name outscores
            // two of them in E2.
            recs.push(org(n, &format!("Marlow {a}ton Trust"), &[], "active"));
            recs.push(org(n + 1, &format!("Tidal {a}wick Works"), &[], "active"));
            n += 2;
        }
        build(serde_json::to_string(&recs).unwrap().as_bytes())
    })
}

#[test]
fn every_word_covered_comes_before_some() {
    let d = constructed();
    // E2 ranks the short "Univ Lille" label (a rare word in a short name)
    // above the University of Cambridge, which has "univ" only as a prefix.
    let e2 = names(&ok(&d.engine, "/v2/organizations?query=univ+cambridge"));
    assert_ne!(
        e2.first().map(String::as_str),
        Some("University of Cambridge"),
        "{e2:?}"
    );
    let v = ok(&d.engine, &typed_path("univ cambridge"));
    let got = names(&v);
    assert_eq!(
        got[..2],
        ["University of Cambridge", "Cambridge University Press"],
        "{got:?}"
    );
    // Then the records with one of the two words; the filler universities
    // ("univ" only by prefix, not the last word) are not matches.
    assert_eq!(v["number_of_results"], 6, "{got:?}");
    // No name holds every word (no typeahead match): the names covering
    // more of them come first, whatever their length and word rarity.
    let v = ok(&d.engine, &typed_path("marlow tidal zephyr"));
    let got = names(&v);
    assert_eq!(got[0], "Marlow Tidal Observatory", "{got:?}");
    let e2 = names(&ok(
        &d.engine,
        "/v2/organizations?query=marlow+tidal+zephyr",
    ));
    assert_eq!(e2[0], "Zephyr", "E2's order differs: {e2:?}");
}

#[test]
fn what_the_typeahead_shows_first_is_listed_whatever_its_status() {
    let d = constructed();
    // Inactive and withdrawn records stay out of the default list (the
    // spec's rule, as in E2) once an active match comes before them...
    let v = ok(&d.engine, &typed_path("harv"));
    assert_eq!(names(&v), ["Harvey Foundation"]);
    let v = ok(&d.engine, &format!("{}&all_status", typed_path("harv")));
    assert_eq!(names(&v), ["Harvey Foundation", "Harvest Institute"]);
    // ... but one named exactly as typed comes first, as in the typeahead.
    for q in ["Harvest Institute", "harvest institute"] {
        let v = ok(&d.engine, &typed_path(q));
        assert_eq!(names(&v)[0], "Harvest Institute", "{q}");
        assert_eq!(
            first_suggestion(&d.engine, q).as_deref(),
            Some("Harvest Institute")
        );
        assert_eq!(v["meta"]["statuses"][0]["id"], "inactive", "{v}");
    }
    // So does the typeahead's only match.
    let v = ok(&d.engine, &typed_path("quill"));
    assert_eq!(names(&v), ["Quillon Foundation"]);
    // A status filter still decides.
    let v = ok(
        &d.engine,
        &format!("{}&filter=status:active", typed_path("harvest institute")),
    );
    assert!(!names(&v).contains(&"Harvest Institute".to_string()), "{v}");
    assert_eq!(
        ok(
            &d.engine,
            &format!("{}&filter=status:active", typed_path("quill"))
        )["number_of_results"],
        0
    );
}

/// Counts per facet value over records (types and statuses: the facets whose
/// ids are the record's own values).
fn counts<'a>(
    recs: impl Iterator<Item = &'a Record>,
) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let (mut types, mut statuses) = (BTreeMap::new(), BTreeMap::new());
    for r in recs {
        for t in &r.types {
            *types.entry(t.clone()).or_default() += 1;
        }
        *statuses.entry(r.status.clone()).or_default() += 1;
    }
    (types, statuses)
}

#[test]
fn number_of_results_and_facets_count_the_listed_matches() {
    let d = demo();
    for path in [
        typed_path("northf"),
        typed_path("univ northf"),
        typed_path("institute mari"),
        typed_path("u"),
        typed_path("University of Northfield"),
        typed_path("kilimani agricultural"),
        format!("{}&all_status", typed_path("northfield univ")),
        format!("{}&filter=types:facility", typed_path("north")),
        format!("/v1/organizations?query={}&mode=typed", enc("inst")),
    ] {
        let first = ok(&d.engine, &path);
        let listed = all_ids(&d.engine, &path);
        assert_eq!(first["number_of_results"], listed.len(), "{path}");
        let mut unique = listed.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), listed.len(), "{path}: a record listed twice");
        let recs = listed
            .iter()
            .map(|id| d.records.iter().find(|r| &r.id == id).expect("known id"));
        let (types, statuses) = counts(recs);
        assert_eq!(facet(&first["meta"], "types"), types, "{path}");
        assert_eq!(facet(&first["meta"], "statuses"), statuses, "{path}");
    }
}

#[test]
fn ids_in_the_search_box_and_the_mode_parameter() {
    let d = demo();
    let rec = &d.records[5];
    let bare = rec.id.rsplit('/').next().unwrap();
    // Escaped as the search box sends text: still the record.
    for text in [rec.id.clone(), format!("ror.org/{bare}"), bare.to_string()] {
        let q = registry_core::search::query::escape(&text);
        let v = ok(&d.engine, &typed_path(&q));
        assert_eq!(search_support::ids(&v), [rec.id.as_str()], "{text}");
    }
    let typo = format!(
        "{}{}",
        &rec.id[..rec.id.len() - 1],
        if rec.id.ends_with('0') { '1' } else { '0' }
    );
    let e = bad(
        &d.engine,
        &typed_path(&registry_core::search::query::escape(&typo)),
    );
    assert!(e[0].contains("check"), "{e:?}");
    // An external id pasted whole (escaped as the search box sends it): its
    // record first, then E2's other matches, not every name with a word
    // starting with its last part (`grid.798464.a` listed 22 of the 63).
    let mut tried = 0;
    for r in &d.records {
        for x in &r.external_ids {
            for text in &x.all {
                let q = registry_core::search::query::escape(text);
                let typed = ok(&d.engine, &typed_path(&q));
                let plain = ok(&d.engine, &format!("/v2/organizations?query={}", enc(&q)));
                let ids = search_support::ids(&typed);
                assert_eq!(ids.first(), Some(&r.id), "{text}");
                // (The typeahead's answer is listed even where E2 misses it.)
                let plain_ids = search_support::ids(&plain);
                assert!(plain_ids.len() < 20, "{text}: one page holds them");
                let n = plain_ids.len() + usize::from(!plain_ids.contains(&r.id));
                assert_eq!(typed["number_of_results"], n, "{text}: {ids:?}");
                tried += 1;
            }
        }
    }
    assert!(tried > 50, "{tried}");
    // The extension is validated and listed with its version.
    assert_eq!(
        bad(&d.engine, "/v2/organizations?query=x&mode=fuzzy"),
        [
            "mode 'fuzzy' is not supported; the only mode is typed (the search page's reading of query)"
        ]
    );
    assert_eq!(
        bad(&d.engine, "/v2/organizations?query.advanced=x&mode=typed").len(),
        1
    );
    assert_eq!(
        bad(&d.engine, "/v1/organizations?affiliation=x&mode=typed").len(),
        1
    );
    let (s, root) = get(&d.engine, "/");
    assert_eq!(s, 200);
    assert!(
        root["extensions"]["mode=typed"].as_u64() >= Some(1),
        "{root}"
    );
    // Without a query there is nothing to read: the listing, as without mode.
    assert_eq!(
        ok(&d.engine, "/v2/organizations?mode=typed")["number_of_results"],
        ok(&d.engine, "/v2/organizations")["number_of_results"]
    );
}

/// The real registry (skipped without `../shared`): what the newcomer issue
/// found, and the typeahead's first suggestion first for names people type.
#[test]
fn real_data_part_typed_and_abbreviated_names() {
    let Some(d) = full() else { return };
    for (q, want) in [
        ("univ cambridge", "University of Cambridge"),
        ("harv", "Harvard University"),
        ("oxfo", "University of Oxford"),
    ] {
        let v = ok(&d.engine, &typed_path(q));
        assert_eq!(
            names(&v).first().map(String::as_str),
            Some(want),
            "{q}: {:?}",
            names(&v)
        );
        assert_eq!(first_suggestion(&d.engine, q).as_deref(), Some(want), "{q}");
    }
}
