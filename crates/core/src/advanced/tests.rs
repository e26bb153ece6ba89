//! Unit tests: parsing, errors and evaluation on hand-made records.

use super::*;
use crate::model::{Admin, AdminEvent, ExternalId, GeoDetails, Link, Location, Name, Relationship};

fn record() -> Record {
    Record {
        admin: Admin {
            created: AdminEvent {
                date: "2021-03-16".into(),
                schema_version: "1.0".into(),
            },
            last_modified: AdminEvent {
                date: "2025-02-25".into(),
                schema_version: "2.1".into(),
            },
        },
        domains: vec!["cjdse.example".into()],
        established: Some(2019),
        external_ids: vec![ExternalId {
            all: vec!["Q190975160".into(), "0000 0004 1936 8948".into()],
            preferred: None,
            kind: "open_kb".into(),
        }],
        id: "https://ror.org/02mhbdp94".into(),
        links: vec![Link {
            kind: "website".into(),
            value: "https://www.cjdse.example/about".into(),
        }],
        locations: vec![Location {
            geo_details: GeoDetails {
                continent_code: Some(Some("EU".into())),
                continent_name: Some(Some("Europe".into())),
                country_code: "CZ".into(),
                country_name: "Czechia".into(),
                country_subdivision_code: Some(None),
                country_subdivision_name: None,
                lat: Some(serde_json::Number::from_f64(49.19522).unwrap()),
                lng: Some(16.into()),
                name: "New Brno".into(),
            },
            geo_id: Some(3078610),
        }],
        names: vec![
            Name {
                lang: None,
                types: vec!["acronym".into()],
                value: "CJDSE".into(),
            },
            Name {
                lang: Some("cs".into()),
                types: vec!["label".into(), "registry_display".into()],
                value: "Centrum jazykového dědictví střední Evropy".into(),
            },
        ],
        relationships: vec![Relationship {
            label: "Université de Côte".into(),
            kind: "parent".into(),
            id: crate::RecordId::from_number(7_654_321).unwrap().url(),
        }],
        status: "active".into(),
        types: vec!["education".into(), "funder".into()],
    }
}

#[track_caller]
fn m(expr: &str) -> bool {
    match parse(expr) {
        Ok(q) => q.matches(&record()),
        Err(e) => panic!("{expr}: {e}"),
    }
}

#[track_caller]
fn err(expr: &str) -> AdvancedError {
    match parse(expr) {
        Ok(q) => panic!("{expr} parsed: {q:?}"),
        Err(e) => e,
    }
}

#[test]
fn keyword_fields_are_exact_and_case_sensitive() {
    assert!(m("locations.geo_details.country_code:CZ"));
    assert!(!m("locations.geo_details.country_code:cz"));
    assert!(m("locations.geonames_details.country_code:CZ"));
    assert!(m("locations.geo_details.name:\"New Brno\""));
    assert!(m("locations.geo_details.name:(New Brno)"));
    assert!(m("locations.geo_details.name:New\\ Brno"));
    // The field binds one word; `Brno` then searches every field.
    assert!(!m("locations.geo_details.name:New Brno"));
    assert!(m("status:active") && !m("status:Active"));
    assert!(m("external_ids.all:\"0000 0004 1936 8948\""));
    assert!(m("external_ids.type:open_kb") && m("external_ids.type:wikidata"));
    assert!(m("names.types:registry_display") && m("names.types:ror_display"));
    assert!(m("id:https://ror.org/02mhbdp94") && m("id:02mhbdp94"));
    assert!(m(r"id:https\://ror.org/02mhbdp94"));
    let other = crate::RecordId::from_number(7_654_321).unwrap();
    assert!(m(&format!("relationships.id:ror.org/{}", other.unique())));
    assert!(m(&format!(
        "relationships.id:{}",
        other.unique().to_uppercase()
    )));
    assert!(m("admin.last_modified.schema_version:2.1"));
    assert!(!m("admin.created.schema_version:2.1"));
    assert!(m("types:funder AND types:education"));
}

#[test]
fn text_fields_fold_case_and_accents() {
    assert!(m("names.value:evropy"));
    assert!(m("names.value:EVROPY"));
    assert!(m("names.value:(dedictvi centrum)"));
    assert!(m("names.value:\"jazykoveho dedictvi\""));
    assert!(!m("names.value:\"dedictvi jazykoveho\""));
    // A phrase does not span two names.
    assert!(!m("names.value:\"CJDSE Centrum\""));
    // Unquoted words may come from different names of the field.
    assert!(m("names.value:(CJDSE Centrum)"));
    assert!(m("relationships.label:universite"));
    assert!(m("names.value:jazyk*"));
    assert!(m("names.value:JAZYK*"));
    assert!(m("names.value:d?dictvi"));
}

#[test]
fn letter_fields() {
    assert!(m("domains:cjdse.example"));
    assert!(m("domains:example.cjdse"));
    assert!(m("domains:\"cjdse.example\""));
    assert!(!m("domains:\"example.cjdse\""));
    assert!(m("links.value:https://www.cjdse.example/about"));
    assert!(m(r"links.value:https\://www.cjdse.example"));
    assert!(m("links.value:CJDSE"));
    assert!(m("links.value:cjd*"));
    assert!(!m("domains:123"));
}

#[test]
fn numbers_and_dates() {
    assert!(m("established:2019"));
    assert!(!m("established:2018"));
    assert!(m("established:[2000 TO 2019]"));
    assert!(!m("established:[2000 TO 2019}"));
    assert!(m("established:{1900 TO *}"));
    assert!(m("established:>2018") && !m("established:>2019"));
    assert!(m("established:>=2019") && m("established:<=2019"));
    assert!(!m("established:<2019"));
    assert!(m("locations.geo_details.lat:49.19522"));
    assert!(m("locations.geo_details.lng:16"));
    assert!(m("locations.geo_details.lat:[49 TO 50]"));
    assert!(m("locations.geo_details.lng:[-20 TO 20]"));
    assert!(m("locations.geo_details.lng:>-20"));
    assert!(m("locations.geo_id:3078610"));
    assert!(m("admin.created.date:2021-03-16"));
    assert!(m("admin.created.date:2021-03"));
    assert!(m("admin.created.date:2021"));
    assert!(!m("admin.created.date:2021-04"));
    assert!(m("admin.last_modified.date:[2024-12-27 TO 2025-02-25]"));
    assert!(!m("admin.last_modified.date:[2024-12-27 TO 2025-02-25}"));
    assert!(m("admin.last_modified.date:[2025 TO 2025]"));
    assert!(!m("admin.last_modified.date:{2025 TO *]"));
    assert!(m("admin.last_modified.date:{2024 TO *]"));
    assert!(m("admin.last_modified.date:[* TO 2025-02]"));
    assert!(!m("admin.last_modified.date:[* TO 2025-02}"));
    assert!(m("admin.last_modified.date:>2025-02-24"));
    assert!(m("admin.last_modified.date:\"2025-02-25\""));
}

#[test]
fn bare_terms_search_every_field() {
    assert!(m("CZ"));
    assert!(m("evropy"));
    assert!(m("2019"));
    assert!(m("3078610"));
    assert!(m("2021-03-16"));
    assert!(!m("2021"), "a bare year is not a date period");
    assert!(m("New Brno"), "one keyword value");
    assert!(m("jazykoveho evropy"), "two words of one text field");
    assert!(!m("evropy Czechia"), "words in different fields");
    assert!(m("evropy AND Czechia"));
    assert!(m("evropy Czechia OR nothing"));
    assert!(m("\"jazykoveho dedictvi\""));
    assert!(m("Cz*"));
    assert!(m("0000 0004 1936 8948"));
    assert!(m("*"));
    assert!(m("*:CZ"));
    assert!(m("locations.*:Czechia"));
    assert!(m("locations.\\*:Czechia"));
    assert!(!m("locations.*:active"));
    assert!(m("wikidata"), "upstream spelling of a renamed value");
}

#[test]
fn boolean_operators() {
    assert!(m("status:active AND types:funder"));
    assert!(m("status:inactive OR types:funder"));
    assert!(!m("status:inactive OR types:company"));
    assert!(m("NOT status:inactive"));
    assert!(m("-status:inactive"));
    assert!(!m("-status:active"));
    assert!(m("!status:inactive"));
    assert!(m("+status:active -types:company"));
    assert!(m("status:active && (types:company || types:funder)"));
    assert!(!m("status:active && (types:company || types:facility)"));
    assert!(m("types:company OR types:education status:active"));
    assert!(!m("types:company OR types:education status:inactive"));
    assert!(m("types:(company OR education)"));
    assert!(!m("types:(company OR -education)") || m("types:company OR -types:education"));
    assert!(m("names.value:(centrum -harvard)"));
    assert!(m("status:active^2"));
    assert!(m("NOT NOT status:active"));
}

#[test]
fn exists() {
    assert!(m("_exists_:established"));
    assert!(m("_exists_:locations.geo_details.continent_code"));
    assert!(!m(
        "_exists_:locations.geo_details.country_subdivision_code"
    ));
    assert!(!m(
        "_exists_:locations.geo_details.country_subdivision_name"
    ));
    assert!(!m("_exists_:external_ids.preferred"));
    assert!(m("_exists_:relationships"));
    assert!(m("_exists_:locations.geonames_details"));
    assert!(m("established:*"));
    assert!(!m("external_ids.preferred:*"));
}

#[test]
fn empty_matches_nothing() {
    for e in ["", "   ", "\t\n"] {
        let q = parse(e).unwrap();
        assert!(q.is_empty() && !q.matches(&record()) && !q.constrains_status());
    }
}

#[test]
fn status_constraint() {
    assert!(parse("status:inactive").unwrap().constrains_status());
    assert!(parse("x OR -status:active").unwrap().constrains_status());
    assert!(parse("_exists_:status").unwrap().constrains_status());
    assert!(!parse("inactive").unwrap().constrains_status());
    assert!(!parse("types:education").unwrap().constrains_status());
}

#[test]
fn errors_name_position_and_problem() {
    let e = err("locations:x");
    assert_eq!(
        e.to_string(),
        "query.advanced: unknown field 'locations' at position 0 (did you mean locations.geo_details.name?)"
    );
    assert_eq!(e.kind, ErrorKind::UnknownField);
    let e = err("status:active AND names.value.keyword:x");
    assert_eq!(
        (e.position, e.hint.as_deref()),
        (18, Some("did you mean names.value?"))
    );
    let e = err("foonames.value:x");
    assert_eq!(e.kind, ErrorKind::UnknownField);
    let e = err("https://x.org");
    assert_eq!(e.kind, ErrorKind::UnknownField);

    let cases: &[(&str, usize, &str)] = &[
        ("(a OR b", 0, "never closed"),
        ("a OR b)", 6, "no matching '('"),
        ("\"abc", 0, "quote"),
        ("a AND", 2, "nothing after"),
        ("a OR", 2, "nothing after"),
        ("OR a", 0, "nothing before"),
        ("a AND OR b", 2, "nothing after"),
        ("NOT", 0, "nothing after"),
        ("a -", 2, "nothing after"),
        ("()", 0, "empty parentheses"),
        ("status:", 0, "no value"),
        ("status: AND x", 0, "no value"),
        ("established:abc", 12, "not a number"),
        ("established:[1900 TO abc]", 21, "not a number"),
        ("admin.created.date:[2024-13-01 TO *]", 20, "not a date"),
        ("admin.created.date:2024-02-30", 19, "not a date"),
        ("admin.created.date:[2024 TO", 19, "never closed"),
        ("admin.created.date:[2024 2025]", 25, "expected TO"),
        ("established:19*", 12, "wildcards"),
        ("[1 TO 2]", 0, "needs a field"),
        (">2", 0, "needs a field"),
        ("a\\", 1, "backslash"),
        ("a~2", 1, "fuzzy"),
        ("/ab?c/", 0, "regular"),
        ("a]", 1, "unexpected"),
        (":x", 0, "no field name"),
        ("^2", 0, "boost"),
        ("_exists_:nothing", 9, "unknown field"),
        ("_exists_:", 0, "field name"),
        ("loc*ations:x", 0, "unknown field"),
        ("locations.*:[1 TO 2]", 12, "single field"),
    ];
    for (expr, pos, needle) in cases {
        let e = err(expr);
        assert!(
            e.position == *pos && e.to_string().contains(needle),
            "{expr}: got {e} (expected '{needle}' at {pos})"
        );
        assert!(e.to_string().starts_with("query.advanced: "));
    }
}

#[test]
fn limits() {
    let long = "a ".repeat(MAX_CHARS);
    assert_eq!(err(&long).kind, ErrorKind::TooComplex);
    let deep = format!("{}a{}", "(".repeat(40), ")".repeat(40));
    assert_eq!(err(&deep).kind, ErrorKind::TooComplex);
    let nots = "NOT ".repeat(40) + "a";
    assert_eq!(err(&nots).kind, ErrorKind::TooComplex);
    let ok = format!("{}a{}", "(".repeat(20), ")".repeat(20));
    assert!(parse(&ok).is_ok());
    let many = (0..200)
        .map(|i| format!("x{i}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    assert_eq!(err(&many).kind, ErrorKind::TooComplex);
}

#[test]
fn positions_are_characters() {
    let e = err("names.value:é AND é:x");
    assert_eq!(e.position, 18);
}

#[test]
fn query_exposes_clauses() {
    let q = parse("status:active AND (names.value:x OR y) -types:z").unwrap();
    let c = q.clauses();
    assert_eq!(c.len(), 4);
    assert_eq!(c[0].target, Target::Field(Field::Status));
    assert_eq!(c[2].target, Target::AllFields);
    let Predicate::Term(t) = &c[1].predicate else {
        panic!()
    };
    assert_eq!(t.text(), "x");
    assert!(matches!(q.root(), Some(Node::And(items)) if items.len() == 3));
}
