//! Conformance suite: walks `shared/spec/registry-api.md` section by
//! section against the router (`Engine::handle`), on the demo data and —
//! when `../shared` exists — on the 35,990-record dump. Expected values are
//! computed independently from the imported records, never from the index.
//!
//! Where upstream misbehaves, a test shows that we do better; its comment
//! names the upstream behaviour (`shared/spec/upstream-behaviour.md`).

mod search_support;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use registry_core::Record;
use registry_core::model::{STATUSES, TYPES};
use registry_core::search::query::escape;
use search_support::{Data, all_ids, bad, demo, display, enc, full, get, ids, ok};
use serde_json::Value;

const CONTINENTS: [(&str, &str); 7] = [
    ("AF", "Africa"),
    ("AN", "Antarctica"),
    ("AS", "Asia"),
    ("EU", "Europe"),
    ("NA", "North America"),
    ("OC", "Oceania"),
    ("SA", "South America"),
];

fn by_status<'a>(d: &'a Data, status: &str) -> Vec<&'a Record> {
    d.records.iter().filter(|r| r.status == status).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn expect_ids<'a>(recs: impl IntoIterator<Item = &'a Record>) -> Vec<String> {
    sorted(recs.into_iter().map(|r| r.id.clone()).collect())
}

fn countries(r: &Record) -> BTreeSet<String> {
    r.locations
        .iter()
        .map(|l| l.geo_details.country_code.clone())
        .collect()
}

/// A place's continent, or its country's when it has none (schema 2.0).
fn continents(r: &Record) -> BTreeSet<String> {
    r.locations
        .iter()
        .filter_map(|l| {
            l.geo_details.continent_code.clone().flatten().or_else(|| {
                registry_core::continent::of_country(&l.geo_details.country_code)
                    .map(|i| registry_core::continent::CONTINENTS[i].0.to_string())
            })
        })
        .collect()
}

/// Facets computed independently from records: (countries, types, statuses, continents).
fn expected_meta(recs: &[&Record], v1: bool) -> Value {
    let mut c: BTreeMap<String, usize> = BTreeMap::new();
    let mut t: BTreeMap<String, usize> = BTreeMap::new();
    let mut s: BTreeMap<String, usize> = BTreeMap::new();
    let mut k: BTreeMap<String, usize> = BTreeMap::new();
    let mut titles: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in recs {
        let cs: Vec<String> = if v1 {
            r.locations
                .iter()
                .take(1)
                .map(|l| l.geo_details.country_code.clone())
                .collect()
        } else {
            countries(r).into_iter().collect()
        };
        for code in cs {
            *c.entry(code.to_lowercase()).or_default() += 1;
        }
        for ty in &r.types {
            *t.entry(ty.clone()).or_default() += 1;
        }
        *s.entry(r.status.clone()).or_default() += 1;
        for kc in continents(r) {
            *k.entry(kc.to_lowercase()).or_default() += 1;
        }
    }
    // Titles: the most frequent country name per code over the whole data is
    // what the engine uses; the tests only check the title is one of the
    // record's own spellings (below), so titles are left out here.
    let _ = &mut titles;
    let top = |m: BTreeMap<String, usize>| -> Vec<(usize, String)> {
        let mut v: Vec<(usize, String)> = m.into_iter().map(|(id, n)| (n, id)).collect();
        v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        v.truncate(10);
        v
    };
    let j = |v: Vec<(usize, String)>| -> Value {
        v.into_iter()
            .map(|(n, id)| serde_json::json!({"count": n, "id": id}))
            .collect()
    };
    let mut out = serde_json::json!({
        "countries": j(top(c)), "types": j(top(t)), "statuses": j(top(s)),
    });
    if !v1 {
        out["continents"] = j(top(k));
    }
    out
}

/// The meta of a response without titles (titles are checked separately).
fn strip_titles(meta: &Value) -> Value {
    let mut m = meta.clone();
    for (_, arr) in m.as_object_mut().expect("meta object").iter_mut() {
        for e in arr.as_array_mut().expect("facet array") {
            e.as_object_mut().expect("entry").remove("title");
        }
    }
    m
}

fn records_of<'a>(d: &'a Data, ids: &[String]) -> Vec<&'a Record> {
    ids.iter()
        .map(|id| d.records.iter().find(|r| &r.id == id).expect("known id"))
        .collect()
}

// ---------------------------------------------------------------- E1 ----

#[test]
fn e1_every_id_form_returns_the_record_whatever_its_status() {
    let d = demo();
    for status in STATUSES {
        let r = by_status(d, status)[0];
        let unique = &r.id["https://ror.org/".len()..];
        let want = serde_json::to_value(r).unwrap();
        for form in [
            r.id.clone(),
            format!("ror.org/{unique}"),
            unique.to_string(),
            enc(&r.id),
            format!("ror.org%2F{unique}"),
            format!("https%3A%2F%2Fror.org%2F{unique}"),
            format!("http://ror.org/{unique}"),
            format!("{unique}/"),
            unique.to_uppercase(),
        ] {
            assert_eq!(
                ok(&d.engine, &format!("/v2/organizations/{form}")),
                want,
                "{form}"
            );
            assert_eq!(
                ok(&d.engine, &format!("/organizations/{form}")),
                want,
                "unversioned = v2: {form}"
            );
            let v1 = ok(&d.engine, &format!("/v1/organizations/{form}"));
            assert_eq!(v1["id"], r.id);
            assert_eq!(v1["name"], display(r), "v1 shape");
            assert!(v1.get("names").is_none());
        }
    }
}

#[test]
fn e1_unknown_malformed_and_bad_checksum_ids_are_distinct_404s() {
    let d = demo();
    // Valid checksum, not in the data.
    let (s, v) = get(&d.engine, "/v2/organizations/02mhbdp94");
    assert_eq!(s, 404);
    assert_eq!(
        v,
        serde_json::json!({"errors": ["registry ID 'https://ror.org/02mhbdp94' does not exist"]})
    );
    // Malformed.
    let (s, v) = get(&d.engine, "/v2/organizations/not-an-id");
    assert_eq!(s, 404);
    assert_eq!(
        v,
        serde_json::json!({"errors": ["'not-an-id' is not a valid registry ID"]})
    );
    // Bad checksum: names the check digits.
    let (s, v) = get(&d.engine, "/v1/organizations/02mhbdp95");
    assert_eq!(s, 404);
    let msg = v["errors"][0].as_str().unwrap();
    assert!(
        msg.contains("check digits") && msg.contains("'94'"),
        "{msg}"
    );
    // Upstream: `/organizations/0abc12345/` (trailing slash) is "not a valid
    // ROR ID"; we accept it (same record as without the slash) — see above.
}

// ---------------------------------------------------------------- E2 ----

#[test]
fn e2_searches_every_name_type_and_language() {
    let d = demo();
    for r in &d.records {
        for n in &r.names {
            let v = ok(
                &d.engine,
                &format!(
                    "/v2/organizations?all_status&query={}",
                    enc(&escape(&n.value))
                ),
            );
            assert!(
                ids(&v).contains(&r.id),
                "{} ({:?}) should find {}",
                n.value,
                n.types,
                r.id
            );
            let v1 = ok(
                &d.engine,
                &format!(
                    "/v1/organizations?all_status&query={}",
                    enc(&escape(&n.value))
                ),
            );
            assert!(ids(&v1).contains(&r.id), "v1: {}", n.value);
        }
    }
}

#[test]
fn e2_full_display_name_ranks_its_record_first() {
    let d = demo();
    for r in &d.records {
        let v = ok(
            &d.engine,
            &format!(
                "/v2/organizations?all_status&query={}",
                enc(&escape(display(r)))
            ),
        );
        assert_eq!(ids(&v).first(), Some(&r.id), "{}", display(r));
    }
}

#[test]
fn e2_external_ids_as_stored_and_record_ids_in_three_forms() {
    let d = demo();
    for r in &d.records {
        for e in &r.external_ids {
            for id in &e.all {
                // Unquoted, spaces included (upstream: the id keyword sees the whole chunk).
                let v = ok(
                    &d.engine,
                    &format!("/v2/organizations?all_status&query={}", enc(id)),
                );
                assert_eq!(ids(&v).first(), Some(&r.id), "{} {id}", e.kind);
                // Quoted: exactly one record (upstream integration test for GRID).
                let v = ok(
                    &d.engine,
                    &format!(
                        "/v2/organizations?all_status&query={}",
                        enc(&format!("\"{id}\""))
                    ),
                );
                assert_eq!(ids(&v), vec![r.id.clone()], "quoted {id}");
            }
        }
        // Record ids: every status, without all_status (upstream skips the
        // active-only default for an id query).
        let unique = &r.id["https://ror.org/".len()..];
        for form in [
            r.id.clone(),
            format!("ror.org/{unique}"),
            unique.to_string(),
        ] {
            for ver in ["v1", "v2"] {
                let v = ok(
                    &d.engine,
                    &format!("/{ver}/organizations?query={}", enc(&form)),
                );
                assert_eq!(ids(&v), vec![r.id.clone()], "{form}");
                assert_eq!(v["number_of_results"], 1);
            }
        }
    }
}

/// What a client that follows the spec sends (free text with its reserved
/// characters escaped) still finds an id; a mistyped id says so whatever
/// its form; an external id in any usual form ranks its records first.
#[test]
fn e2_ids_escaped_mistyped_and_external_ids_in_pasted_forms() {
    let d = demo();
    for r in &d.records {
        let unique = &r.id["https://ror.org/".len()..];
        for form in [r.id.clone(), format!("ror.org/{unique}/")] {
            let v = ok(
                &d.engine,
                &format!("/v2/organizations?query={}", enc(&escape(&form))),
            );
            assert_eq!(ids(&v), vec![r.id.clone()], "escaped {form}");
        }
        let digits: u32 = unique[7..].parse().unwrap();
        let wrong = format!("{}{:02}", &unique[..7], (digits + 1) % 100);
        for form in [wrong.clone(), format!("https://ror.org/{wrong}")] {
            let errors = bad(
                &d.engine,
                &format!("/v2/organizations?query={}", enc(&escape(&form))),
            );
            let e1 = get(&d.engine, &format!("/v2/organizations/{wrong}")).1["errors"][0]
                .as_str()
                .unwrap()
                .replace(&wrong, &form);
            assert_eq!(errors, vec![e1], "{form}");
        }
        for e in &r.external_ids {
            let id = &e.all[0];
            let compact: String = id.chars().filter(|c| !c.is_whitespace()).collect();
            let mut forms = vec![compact.clone()];
            match e.kind.as_str() {
                "isni" => forms.push(format!("https://isni.org/isni/{compact}")),
                "wikidata" | "open_kb" => forms.push(format!("https://www.wikidata.org/wiki/{id}")),
                "fundref" | "funder_registry" => {
                    forms.push(format!("10.13039/{id}"));
                    forms.push(format!("https://doi.org/10.13039/{id}"));
                }
                _ => {}
            }
            for form in forms {
                let v = ok(
                    &d.engine,
                    &format!("/v2/organizations?all_status&query={}", enc(&escape(&form))),
                );
                assert_eq!(ids(&v).first(), Some(&r.id), "{} {form}", e.kind);
            }
        }
    }
}

#[test]
fn e2_links_and_locations_are_not_searched() {
    let d = demo();
    // "reefmonitoring" only occurs in a website link.
    let v = ok(
        &d.engine,
        "/v2/organizations?all_status&query=reefmonitoring",
    );
    assert_eq!(v["number_of_results"], 0);
    // "Wellington"-like city names: pick a city that no name contains.
    let r = &d.records[0];
    let city = &r.locations[0].geo_details.name;
    let in_names = d.records.iter().any(|x| {
        x.names.iter().any(|n| {
            registry_core::text::normalize(&n.value).contains(&registry_core::text::normalize(city))
        })
    });
    if !in_names {
        let v = ok(
            &d.engine,
            &format!("/v2/organizations?all_status&query={}", enc(city)),
        );
        assert_eq!(v["number_of_results"], 0, "city {city}");
    }
}

#[test]
fn e2_unquoted_words_are_or_quoted_text_is_a_phrase() {
    let d = demo();
    let a = ok(&d.engine, "/v2/organizations?query=northfield")["number_of_results"]
        .as_u64()
        .unwrap();
    let b = ok(&d.engine, "/v2/organizations?query=hospital")["number_of_results"]
        .as_u64()
        .unwrap();
    let ab = ok(&d.engine, "/v2/organizations?query=northfield+hospital");
    let n = ab["number_of_results"].as_u64().unwrap();
    assert!(n >= a.max(b) && n <= a + b, "{a} {b} {n}");
    // Best match first: the record with both words.
    assert_eq!(
        ids(&ab)[0],
        d.records
            .iter()
            .find(|r| display(r) == "Northfield University Hospital")
            .unwrap()
            .id
    );
    // A phrase: only names with the words adjacent and in order.
    let p = ok(
        &d.engine,
        "/v2/organizations?query=%22university+hospital%22",
    );
    let got = sorted(ids(&p));
    let want = expect_ids(d.records.iter().filter(|r| {
        r.status == "active"
            && r.names
                .iter()
                .any(|n| registry_core::text::normalize(&n.value).contains("university hospital"))
    }));
    assert_eq!(got, want);
    let p = ok(
        &d.engine,
        "/v2/organizations?query=%22hospital+university%22",
    );
    let want = expect_ids(d.records.iter().filter(|r| {
        r.status == "active"
            && r.names
                .iter()
                .any(|n| registry_core::text::normalize(&n.value).contains("hospital university"))
    }));
    assert_eq!(sorted(ids(&p)), want);
}

#[test]
fn e2_case_and_accent_insensitive_and_non_latin() {
    let d = demo();
    let find = |q: &str| {
        ids(&ok(
            &d.engine,
            &format!("/v2/organizations?all_status&query={}", enc(q)),
        ))
    };
    for (q, want) in [
        (
            "universite de montclair sur rhone",
            "Université de Montclair-sur-Rhône",
        ),
        (
            "UNIVERSITÉ DE MONTCLAIR-SUR-RHÔNE",
            "Université de Montclair-sur-Rhône",
        ),
        (
            "hopital sainte brigitte de quebec",
            "Hôpital Sainte-Brigitte de Québec",
        ),
        (
            "karadeniz kiyi arastirmalari enstitusu",
            "Karadeniz Kıyı Araştırmaları Enstitüsü",
        ),
        (
            "uniwersytet nadodrzanski we wroclawiu",
            "Uniwersytet Nadodrzański we Wrocławiu",
        ),
        (
            "obrien daughters instruments",
            "O'Brien & Daughters Instruments",
        ),
        (
            "O'Brien and Daughters Instruments",
            "O'Brien & Daughters Instruments",
        ),
        ("東雲工科大学", "Shinonome Institute of Technology"),
        ("東雲", "Shinonome Institute of Technology"),
        (
            "한빛과학기술원",
            "Hanbit Institute of Science and Technology",
        ),
        (
            "Сибирский институт",
            "Siberian Institute of Permafrost Studies",
        ),
        ("сибирскии", "Siberian Institute of Permafrost Studies"),
        ("جامعة الواحة", "Al-Waha University"),
        (
            "Ινστιτουτο θαλασσιας",
            "Aegean Institute of Marine Archaeology",
        ),
        ("המרכז הרפואי", "Beersheba Hills Medical Center"),
        ("สถาบันวิทยาศาสตร์", "Chao Phraya Institute of Food Science"),
        ("दक्कन पठार", "Deccan Plateau Seed Conservation Trust"),
        (
            "Vien Nghien cuu Phat trien Do thi Da Nang",
            "Da Nang Institute for Urban Development Studies",
        ),
    ] {
        let r = d.records.iter().find(|r| display(r) == want).unwrap();
        let got = find(q);
        assert_eq!(got.first(), Some(&r.id), "{q} → {want}: {got:?}");
    }
}

#[test]
fn malformed_percent_escapes_are_400_naming_the_part_in_every_route() {
    // Upstream decodes leniently (Python's unquote): `%ZZ` is searched as
    // text, a silent 200 with nothing. The router says what is wrong, so the
    // Worker, the service worker and `registry serve` answer alike.
    let d = demo();
    for (target, names) in [
        ("/v2/organizations?query=%ZZ", ["'query'", "'%ZZ'"]),
        ("/v1/organizations?query=univ%", ["'query'", "'%'"]),
        (
            "/v2/organizations?filter=types:education%2",
            ["'filter'", "'%2'"],
        ),
        (
            "/v1/organizations?affiliation=Universit%E9+Paris",
            ["'affiliation'", "UTF-8"],
        ),
        (
            "/v2/organizations?query.advanced=a%G1",
            ["'query.advanced'", "'%G1'"],
        ),
        ("/v2/organizations/%ZZ", ["the path", "'%ZZ'"]),
        ("/v1/organizations/0040h0667%", ["the path", "'%'"]),
    ] {
        let e = bad(&d.engine, target);
        assert_eq!(e.len(), 1, "{target}: {e:?}");
        for n in names {
            assert!(e[0].contains(n), "{target}: {e:?} lacks {n}");
        }
    }
    // Well-formed escapes, '%' itself among them, still answer.
    for target in [
        "/v2/organizations?query=100%25%20sure",
        "/v2/organizations?query=%E6%9D%B1+x",
        "/v2/organizations/0040h0667",
    ] {
        assert_eq!(get(&d.engine, target).0, 200, "{target}");
    }
}

#[test]
fn e2_reserved_characters_escaped_are_literal_unescaped_are_syntax_or_400() {
    let d = demo();
    // Escaped: the punctuated name is found (upstream needs escaping too).
    let q = escape("Tallowmere Biologics, Ltd. (Singapore)");
    let v = ok(&d.engine, &format!("/v2/organizations?query={}", enc(&q)));
    assert_eq!(ids(&v)[0], "https://ror.org/07j3zs607");
    // Every reserved character escaped alone: a valid query.
    for c in [
        "+", "-", "=", "&&", "||", ">", "<", "!", "(", ")", "{", "}", "[", "]", "^", "\"", "~",
        "*", "?", ":", "\\", "/",
    ] {
        let q: String = c.chars().map(|ch| format!("\\{ch}")).collect();
        let (s, v) = get(
            &d.engine,
            &format!("/v2/organizations?query={}", enc(&format!("a{q}b"))),
        );
        assert_eq!(s, 200, "escaped {c}: {v}");
    }
    // Unescaped: 400 naming the character and its position. Upstream: HTTP 500
    // HTML page from an uncaught Elasticsearch parse error.
    for (q, ch) in [
        ("(singapore", "("),
        ("a)", ")"),
        ("a:b", ":"),
        ("x/y", "/"),
        ("a^2", "^"),
        ("{a", "{"),
        ("[a", "["),
        ("a?", "?"),
        ("a=b", "="),
        ("a<b", "<"),
    ] {
        let e = bad(&d.engine, &format!("/v2/organizations?query={}", enc(q)));
        assert!(
            e[0].contains(&format!("'{ch}'")) && e[0].contains("escape"),
            "{q}: {e:?}"
        );
    }
    for q in ["\"open", "trailing\\", "a AND", "OR a", "*a", "a*b", "+"] {
        let (s, v) = get(&d.engine, &format!("/v2/organizations?query={}", enc(q)));
        assert!(s == 400 || s == 200, "{q}: {s} {v}");
        if s == 400 {
            assert!(v["errors"][0].as_str().unwrap().contains("query"), "{v}");
        }
    }
    // Syntax that works: +required, -excluded, NOT, AND, prefix*, fuzzy~.
    let all = |q: &str| {
        sorted(ids(&ok(
            &d.engine,
            &format!("/v2/organizations?query={}", enc(q)),
        )))
    };
    let nf = all("northfield");
    let with_hosp = all("+northfield +hospital");
    assert_eq!(with_hosp, all("northfield AND hospital"));
    assert_eq!(with_hosp.len(), 1);
    let without = all("+northfield -hospital");
    assert_eq!(without.len() + 1, nf.len());
    assert_eq!(without, all("northfield NOT hospital"));
    assert!(all("northf*").len() >= nf.len());
    assert_eq!(all("northfeld~"), nf, "fuzzy: one edit");
}

#[test]
fn e2_empty_query_yields_no_results_like_upstream() {
    let d = demo();
    for q in ["", "+", "%20%20", "..."] {
        let v = ok(&d.engine, &format!("/v2/organizations?query={q}"));
        assert_eq!(v["number_of_results"], 0, "{q}");
        assert_eq!(v["meta"]["types"], serde_json::json!([]));
    }
}

// ------------------------------------------------------------ filters ----

fn check_filter(d: &Data, ver: &str, filter: &str, pred: impl Fn(&Record) -> bool, extra: &str) {
    let path = format!("/{ver}/organizations?filter={}{extra}", enc(filter));
    let got = sorted(all_ids(&d.engine, &path));
    let want = expect_ids(d.records.iter().filter(|r| pred(r)));
    assert_eq!(got, want, "{path}");
}

#[test]
fn filters_every_key_and_value_both_versions() {
    let d = demo();
    let active = |r: &Record| r.status == "active";
    for ty in TYPES {
        for ver in ["v1", "v2"] {
            check_filter(
                d,
                ver,
                &format!("types:{ty}"),
                |r| active(r) && r.types.iter().any(|t| t == ty),
                "",
            );
        }
        // v1 requests use capitalised types too.
        let cap = format!("{}{}", ty[..1].to_uppercase(), &ty[1..]);
        check_filter(
            d,
            "v1",
            &format!("types:{cap}"),
            |r| active(r) && r.types.iter().any(|t| t == ty),
            "",
        );
    }
    for st in STATUSES {
        for ver in ["v1", "v2"] {
            check_filter(d, ver, &format!("status:{st}"), |r| r.status == st, "");
        }
    }
    let codes: BTreeSet<String> = d.records.iter().flat_map(countries).collect();
    for code in &codes {
        let name = d
            .records
            .iter()
            .flat_map(|r| &r.locations)
            .find(|l| &l.geo_details.country_code == code)
            .unwrap()
            .geo_details
            .country_name
            .clone();
        let any = |r: &Record| active(r) && countries(r).contains(code);
        let first = |r: &Record| {
            active(r)
                && r.locations
                    .first()
                    .is_some_and(|l| &l.geo_details.country_code == code)
        };
        for key in ["country.country_code", "locations.geo_details.country_code"] {
            check_filter(d, "v2", &format!("{key}:{code}"), any, "");
            check_filter(d, "v2", &format!("{key}:{}", code.to_lowercase()), any, "");
        }
        for key in ["country.country_name", "locations.geo_details.country_name"] {
            check_filter(d, "v2", &format!("{key}:{name}"), any, "");
            check_filter(d, "v2", &format!("{key}:{}", name.to_uppercase()), any, "");
        }
        // v1: the record's country is its first location's.
        check_filter(d, "v1", &format!("country.country_code:{code}"), first, "");
        check_filter(d, "v1", &format!("country.country_name:{name}"), first, "");
    }
    for (code, name) in CONTINENTS {
        let pred = |r: &Record| active(r) && continents(r).contains(code);
        check_filter(
            d,
            "v2",
            &format!("locations.geo_details.continent_code:{code}"),
            pred,
            "",
        );
        check_filter(
            d,
            "v2",
            &format!(
                "locations.geo_details.continent_code:{}",
                code.to_lowercase()
            ),
            pred,
            "",
        );
        check_filter(
            d,
            "v2",
            &format!("locations.geo_details.continent_name:{name}"),
            pred,
            "",
        );
        // A space may be written `+` (here a literal plus after decoding).
        check_filter(
            d,
            "v2",
            &format!(
                "locations.geo_details.continent_name:{}",
                name.replace(' ', "+")
            ),
            pred,
            "",
        );
        // And as `+` in the URL itself (decoded to a space).
        let path = format!(
            "/v2/organizations?filter=locations.geo_details.continent_name:{}",
            name.replace(' ', "+")
        );
        assert_eq!(
            sorted(all_ids(&d.engine, &path)),
            expect_ids(d.records.iter().filter(|r| pred(r))),
            "{path}"
        );
    }
}

#[test]
fn filters_or_within_a_key_and_across_keys() {
    let d = demo();
    let active = |r: &Record| r.status == "active";
    check_filter(
        d,
        "v2",
        "types:education,types:funder",
        |r| active(r) && r.types.iter().any(|t| t == "education" || t == "funder"),
        "",
    );
    check_filter(
        d,
        "v2",
        "types:education,country.country_code:US",
        |r| active(r) && r.types.iter().any(|t| t == "education") && countries(r).contains("US"),
        "",
    );
    // country.* and locations.geo_details.* are one key: OR.
    check_filter(
        d,
        "v2",
        "country.country_code:US,locations.geo_details.country_code:CA",
        |r| active(r) && (countries(r).contains("US") || countries(r).contains("CA")),
        "",
    );
    check_filter(
        d,
        "v2",
        "status:inactive,status:withdrawn,types:education",
        |r| {
            (r.status == "inactive" || r.status == "withdrawn")
                && r.types.iter().any(|t| t == "education")
        },
        "",
    );
    // With a query, filters narrow it.
    let v = ok(
        &d.engine,
        "/v2/organizations?query=northfield&filter=types:healthcare",
    );
    assert_eq!(ids(&v), vec!["https://ror.org/0adh71a67".to_string()]);
}

#[test]
fn filters_country_names_with_commas_work() {
    // Upstream: `country.country_name:Bonaire, Sint Eustatius, and Saba` is
    // split at its commas → "filter ' Sint Eustatius' is not in the
    // key:value form" (upstream-behaviour §5.4); such countries cannot be
    // filtered at all.
    let d = demo();
    let bq = |r: &Record| r.status == "active" && countries(r).contains("BQ");
    for ver in ["v1", "v2"] {
        check_filter(
            d,
            ver,
            "country.country_name:Bonaire, Sint Eustatius, and Saba",
            bq,
            "",
        );
        check_filter(
            d,
            ver,
            "types:other,country.country_name:Bonaire, Sint Eustatius, and Saba",
            bq,
            "",
        );
        check_filter(
            d,
            ver,
            "country.country_name:Bonaire, Sint Eustatius, and Saba,types:other",
            bq,
            "",
        );
    }
    check_filter(
        d,
        "v2",
        "locations.geo_details.country_name:bonaire,sint eustatius,and saba",
        bq,
        "",
    );
}

#[test]
fn filters_status_overrides_active_only_and_all_status_values() {
    let d = demo();
    let n = |st: &str| d.records.iter().filter(|r| r.status == st).count();
    let total = |p: &str| ok(&d.engine, p)["number_of_results"].as_u64().unwrap() as usize;
    // Status visibility table (spec "States and transitions").
    assert_eq!(total("/v2/organizations"), n("active"));
    assert_eq!(total("/v2/organizations?all_status"), d.records.len());
    assert_eq!(total("/v2/organizations?all_status="), d.records.len());
    assert_eq!(total("/v2/organizations?all_status=true"), d.records.len());
    assert_eq!(total("/v2/organizations?all_status=TRUE"), d.records.len());
    assert_eq!(total("/v2/organizations?all_status=false"), n("active"));
    assert_eq!(
        total("/v2/organizations?filter=status:inactive"),
        n("inactive")
    );
    assert_eq!(
        total("/v2/organizations?filter=status:withdrawn"),
        n("withdrawn")
    );
    assert_eq!(
        total("/v2/organizations?filter=status:inactive&all_status"),
        n("inactive")
    );
    let e = bad(&d.engine, "/v2/organizations?all_status=yes");
    assert_eq!(
        e,
        ["allowed values for all_status parameter are empty (no value), true or false"]
    );
    // Inactive/withdrawn records are found by query only with all_status or a status filter.
    let q = "/v2/organizations?query=%22board+of+regents%22";
    assert_eq!(total(q), 0);
    assert_eq!(total(&format!("{q}&all_status")), 1);
    assert_eq!(total(&format!("{q}&filter=status:withdrawn")), 1);
    // ... but always by id (E1 and an id query).
    let w = by_status(d, "withdrawn")[0];
    assert_eq!(
        ok(&d.engine, &format!("/v2/organizations/{}", w.id))["status"],
        "withdrawn"
    );
}

#[test]
fn filters_errors_name_the_offending_piece() {
    let d = demo();
    assert_eq!(
        bad(
            &d.engine,
            "/v2/organizations?filter=types:education,nokeyvalue"
        ),
        ["filter 'nokeyvalue' is not in the key:value form"]
    );
    assert_eq!(
        bad(&d.engine, "/v2/organizations?filter=colour:blue"),
        ["filter key 'colour' is illegal"]
    );
    // v2-only keys are illegal in v1.
    assert_eq!(
        bad(
            &d.engine,
            "/v1/organizations?filter=locations.geo_details.continent_code:EU"
        ),
        ["filter key 'locations.geo_details.continent_code' is illegal"]
    );
    for (f, piece) in [
        ("types:notatype", "notatype"),
        ("status:dormant", "dormant"),
        ("country.country_code:USA", "USA"),
        ("country.country_name:Atlantis", "Atlantis"),
        ("locations.geo_details.continent_code:XX", "XX"),
        ("locations.geo_details.continent_name:Atlantis", "Atlantis"),
        ("status:", "status:"),
    ] {
        // Upstream: values are never validated (0 results, HTTP 200).
        let e = bad(&d.engine, &format!("/v2/organizations?filter={}", enc(f)));
        assert!(e.len() == 1 && e[0].contains(piece), "{f}: {e:?}");
    }
    // Upstream's example: 3 filter errors, form errors first.
    let e = bad(
        &d.engine,
        "/v2/organizations?filter=fi1:e,types:education,f3,field2:44",
    );
    assert_eq!(
        e,
        [
            "filter 'f3' is not in the key:value form",
            "filter key 'fi1' is illegal",
            "filter key 'field2' is illegal"
        ]
    );
}

// ----------------------------------------------------------- envelope ----

fn check_envelope(v: &Value, v1: bool) {
    let o = v.as_object().expect("object");
    let mut keys: Vec<&str> = o.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["items", "meta", "number_of_results", "time_taken"]);
    assert!(v["number_of_results"].is_u64());
    assert!(v["time_taken"].is_u64());
    let items = v["items"].as_array().unwrap();
    assert!(items.len() <= 20);
    for it in items {
        if v1 {
            for k in [
                "id",
                "name",
                "types",
                "acronyms",
                "aliases",
                "labels",
                "country",
                "addresses",
                "external_ids",
                "relationships",
                "links",
                "status",
                "established",
                "email_address",
                "ip_addresses",
                "encyclopedia_url",
            ] {
                assert!(it.get(k).is_some(), "v1 item lacks {k}");
            }
            assert!(it.get("names").is_none());
        } else {
            for k in [
                "admin",
                "domains",
                "established",
                "external_ids",
                "id",
                "links",
                "locations",
                "names",
                "relationships",
                "status",
                "types",
            ] {
                assert!(it.get(k).is_some(), "v2 item lacks {k}");
            }
        }
    }
    let meta = v["meta"].as_object().unwrap();
    let mut mk: Vec<&str> = meta.keys().map(String::as_str).collect();
    mk.sort();
    if v1 {
        assert_eq!(mk, ["countries", "statuses", "types"]);
    } else {
        assert_eq!(mk, ["continents", "countries", "statuses", "types"]);
    }
    for (_, arr) in meta {
        let arr = arr.as_array().unwrap();
        assert!(arr.len() <= 10);
        for e in arr {
            assert!(
                e["count"].is_u64() && e["id"].is_string() && e["title"].is_string(),
                "{e}"
            );
        }
        // Sorted by count desc, ties by id.
        for w in arr.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            assert!(
                a["count"].as_u64() > b["count"].as_u64()
                    || a["count"] == b["count"] && a["id"].as_str() < b["id"].as_str(),
                "{a} {b}"
            );
        }
    }
}

#[test]
fn envelope_keys_types_and_item_shapes() {
    let d = demo();
    for ver in ["v1", "v2"] {
        for q in [
            "",
            "?query=northfield",
            "?all_status",
            "?filter=types:education",
            "?query=zzzz",
        ] {
            let v = ok(&d.engine, &format!("/{ver}/organizations{q}"));
            check_envelope(&v, ver == "v1");
        }
    }
    let v = ok(&d.engine, "/organizations?all_status");
    check_envelope(&v, false);
    assert_eq!(v["items"].as_array().unwrap().len(), 20);
    assert_eq!(v["number_of_results"], d.records.len());
}

// ------------------------------------------------------------- facets ----

fn check_facets(d: &Data, path: &str) {
    let v1 = path.starts_with("/v1");
    let first = ok(&d.engine, path);
    let all = all_ids(&d.engine, path);
    assert_eq!(
        all.len() as u64,
        first["number_of_results"].as_u64().unwrap(),
        "{path}"
    );
    let recs = records_of(d, &all);
    assert_eq!(
        strip_titles(&first["meta"]),
        expected_meta(&recs, v1),
        "{path}"
    );
    // Titles.
    let meta = &first["meta"];
    for e in meta["types"].as_array().unwrap() {
        let id = e["id"].as_str().unwrap();
        let want = if v1 {
            format!("{}{}", id[..1].to_uppercase(), &id[1..])
        } else {
            id.to_string()
        };
        assert_eq!(e["title"], want.as_str());
    }
    for e in meta["statuses"].as_array().unwrap() {
        assert_eq!(e["title"], e["id"]);
    }
    for e in meta["countries"].as_array().unwrap() {
        let code = e["id"].as_str().unwrap().to_uppercase();
        let names: BTreeSet<&str> = d
            .records
            .iter()
            .flat_map(|r| &r.locations)
            .filter(|l| l.geo_details.country_code == code)
            .map(|l| l.geo_details.country_name.as_str())
            .collect();
        assert!(
            names.contains(e["title"].as_str().unwrap()),
            "{e}: one of {names:?}"
        );
    }
    if let Some(k) = meta.get("continents") {
        for e in k.as_array().unwrap() {
            let code = e["id"].as_str().unwrap().to_uppercase();
            let name = CONTINENTS.iter().find(|c| c.0 == code).unwrap().1;
            assert_eq!(e["title"], name);
        }
    }
}

#[test]
fn facets_count_all_matches_per_spec() {
    let d = demo();
    for path in [
        "/v2/organizations?all_status",
        "/v1/organizations?all_status",
        "/v2/organizations?query=institute",
        "/v1/organizations?query=institute+university",
        "/v2/organizations?query=northfield&all_status",
        "/v2/organizations?filter=types:education",
        "/v1/organizations?filter=country.country_code:US",
        "/v2/organizations?filter=locations.geo_details.continent_code:NA",
    ] {
        check_facets(d, path);
    }
    // Empty result: every facet is [] (upstream's test expectation).
    let v = ok(&d.engine, "/v2/organizations?query=zzzzzz");
    assert_eq!(
        v["meta"],
        serde_json::json!({"types": [], "statuses": [], "countries": [], "continents": []})
    );
}

// ------------------------------------------------------------- paging ----

#[test]
fn paging_is_a_deterministic_total_order() {
    // Upstream: ties (and filter-only listings) come in Lucene doc order,
    // which changes across replicas and merges: pages may overlap or skip
    // records (ror-docs warns; ror-roadmap#333). Ours: score, then the
    // record prior, then id.
    let d = demo();
    for path in [
        "/v2/organizations?all_status",
        "/v2/organizations?query=institute+university+of&all_status",
        "/v1/organizations?filter=types:education,types:facility&all_status",
    ] {
        let a = all_ids(&d.engine, path);
        let b = all_ids(&d.engine, path);
        assert_eq!(a, b, "{path}: same order every time");
        let set: HashSet<&String> = a.iter().collect();
        assert_eq!(set.len(), a.len(), "{path}: no duplicates");
    }
    // Listing without query = id order.
    let all = all_ids(&d.engine, "/v2/organizations?all_status");
    let mut s = all.clone();
    s.sort_by_key(|id| registry_core::RecordId::parse(id).unwrap());
    assert_eq!(all, s);
    // Past the end: no items, same total.
    let v = ok(&d.engine, "/v2/organizations?page=500");
    assert_eq!(v["items"], serde_json::json!([]));
    assert_eq!(v["number_of_results"], by_status(d, "active").len());
}

// ------------------------------------------------------------- errors ----

#[test]
fn errors_use_upstream_wording_with_http_400() {
    // Upstream answers every validation error with HTTP 200 (§1.2).
    let d = demo();
    assert_eq!(
        bad(&d.engine, "/v2/organizations?sort=name"),
        ["query parameter 'sort' is illegal"]
    );
    assert_eq!(
        bad(&d.engine, "/v2/organizations?query=a&query.advanced=b"),
        [
            "query and query.advanced parameters cannot be combined. please use either query OR query.advanced"
        ]
    );
    for (p, msg) in [
        ("0", "page '0' outside of range 1-500"),
        ("501", "page '501' outside of range 1-500"),
        ("-5", "page '-5' outside of range 1-500"),
        ("10001", "page '10001' outside of range 1-500"),
        ("whatever", "page 'whatever' is not an integer"),
        ("1.5", "page '1.5' is not an integer"),
    ] {
        assert_eq!(
            bad(&d.engine, &format!("/v2/organizations?page={p}")),
            [msg]
        );
    }
    // Upstream's combination: 2 illegal params → only those (the other
    // checks need legal keys), then filter and page errors.
    let e = bad(
        &d.engine,
        "/v2/organizations?query=x&illegal=1&another=2&filter=fi1:e,types:education,f3,field2:44&page=third",
    );
    assert_eq!(e.len(), 6, "{e:?}");
    assert_eq!(e[0], "query parameter 'illegal' is illegal");
    assert_eq!(e[1], "query parameter 'another' is illegal");
    assert_eq!(e[5], "page 'third' is not an integer");
    // Limits: a clear error, no hang.
    let long = "a".repeat(1001);
    let e = bad(&d.engine, &format!("/v2/organizations?query={long}"));
    assert!(e[0].contains("too long"), "{e:?}");
    let fuzzy = ["northfeld~"; 9].join("+");
    let e = bad(&d.engine, &format!("/v2/organizations?query={fuzzy}"));
    assert!(e[0].contains("fuzzy"), "{e:?}");
    let many = vec!["w"; 100].join("+");
    let e = bad(&d.engine, &format!("/v2/organizations?query={many}"));
    assert!(e[0].contains("too many"), "{e:?}");
}

#[test]
fn routes_root_unknown_affiliation_and_advanced() {
    let d = demo();
    // Upstream: `/` is a router root / 500 page; ours is a JSON index.
    for p in ["/", "", "/v2", "/v1/", "/heartbeat", "/v2/heartbeat"] {
        let (s, v) = get(&d.engine, p);
        assert_eq!(s, 200, "{p}: {v}");
    }
    for p in [
        "/v3/organizations",
        "/v2/things",
        "/organisations",
        "/v2/organizationsx",
    ] {
        let (s, v) = get(&d.engine, p);
        assert_eq!(s, 404, "{p}");
        assert!(v["errors"][0].is_string(), "{p}: {v}");
    }
    let (s, v) = get(
        &d.engine,
        "/v1/organizations?affiliation=Shinonome+Institute+of+Technology",
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["items"][0]["chosen"], true, "{v}");
    assert_eq!(
        v["items"][0]["organization"]["id"],
        "https://ror.org/03ncywt35"
    );
    let (s, v) = get(
        &d.engine,
        "/v2/organizations?query.advanced=names.value:northfield",
    );
    assert_eq!(s, 200, "{v}");
    assert!(v["number_of_results"].as_u64().unwrap() >= 1, "{v}");
    // query.name / query.names are aliases of query (upstream redirects).
    let a = ok(&d.engine, "/v2/organizations?query.name=northfield");
    let b = ok(&d.engine, "/v2/organizations?query=northfield");
    assert_eq!((ids(&a), &a["meta"]), (ids(&b), &b["meta"]));
    // The last value of a repeated parameter counts (upstream).
    let a = ok(&d.engine, "/v2/organizations?query=zzzz&query=northfield");
    assert_eq!(
        a["number_of_results"],
        ok(&d.engine, "/v2/organizations?query=northfield")["number_of_results"]
    );
}

// ----------------------------------------------------- the full data ----

#[test]
fn full_data_facets_filters_and_paging() {
    let Some(d) = full() else { return };
    assert_eq!(d.records.len(), d.engine.registry().len());
    // Listing counts = independent counts (every status and type).
    for st in STATUSES {
        let v = ok(&d.engine, &format!("/v2/organizations?filter=status:{st}"));
        assert_eq!(
            v["number_of_results"],
            d.records.iter().filter(|r| r.status == st).count(),
            "{st}"
        );
    }
    let active: Vec<&Record> = by_status(d, "active");
    let v = ok(&d.engine, "/v2/organizations");
    assert_eq!(strip_titles(&v["meta"]), expected_meta(&active, false));
    let v = ok(&d.engine, "/v1/organizations");
    assert_eq!(strip_titles(&v["meta"]), expected_meta(&active, true));
    // Facet-driven filtering: each facet entry's count = the filtered total.
    for (facet, key) in [
        ("types", "types"),
        ("countries", "country.country_code"),
        ("continents", "locations.geo_details.continent_code"),
    ] {
        for e in v_meta(&d.engine, facet) {
            let id = e["id"].as_str().unwrap();
            let n =
                ok(&d.engine, &format!("/v2/organizations?filter={key}:{id}"))["number_of_results"]
                    .clone();
            assert_eq!(n, e["count"], "{facet} {id}");
        }
    }
    // Facets and paging over a mid-sized query (all pages).
    for path in [
        "/v2/organizations?query=marine+biology",
        "/v1/organizations?query=%22university+hospital%22&filter=country.country_code:DE",
        "/v2/organizations?query=observatory&all_status",
    ] {
        check_facets(d, path);
    }
    // Paging never duplicates on a big result (first 30 pages).
    let mut seen = HashSet::new();
    for page in 1..=30 {
        let v = ok(
            &d.engine,
            &format!("/v2/organizations?query=university&page={page}"),
        );
        for id in ids(&v) {
            assert!(seen.insert(id.clone()), "duplicate {id} on page {page}");
        }
    }
    // A comma country name in the real data.
    let bq = d
        .records
        .iter()
        .filter(|r| r.status == "active" && countries(r).contains("BQ"))
        .count();
    let v = ok(
        &d.engine,
        &format!(
            "/v2/organizations?filter={}",
            enc("country.country_name:Bonaire, Sint Eustatius, and Saba")
        ),
    );
    assert_eq!(v["number_of_results"], bq);
}

fn v_meta(engine: &registry_core::search::Engine, facet: &str) -> Vec<Value> {
    ok(engine, "/v2/organizations")["meta"][facet]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn full_data_names_and_ids_find_their_records() {
    let Some(d) = full() else { return };
    let mut checked = 0;
    let mut first = 0;
    for r in d.records.iter().step_by(97) {
        let v = ok(
            &d.engine,
            &format!(
                "/v2/organizations?all_status&query={}",
                enc(&escape(display(r)))
            ),
        );
        let got = ids(&v);
        assert!(got.iter().take(20).any(|x| x == &r.id), "{}", display(r));
        first += usize::from(got[0] == r.id);
        checked += 1;
        for e in r.external_ids.iter().take(2) {
            if let Some(id) = e.all.first() {
                let v = ok(
                    &d.engine,
                    &format!("/v2/organizations?all_status&query={}", enc(id)),
                );
                assert!(ids(&v).contains(&r.id), "{} {id}", e.kind);
            }
        }
    }
    // Shared names (e.g. 12 × "Ministry of Health") bound this below 1.
    assert!(first as f64 >= 0.97 * checked as f64, "{first}/{checked}");
}

/// Equal E2 scores (records named alike) are ordered by the record prior,
/// then by id: the record people pick more often first, deterministically.
#[test]
fn equal_scores_are_ordered_by_prior_then_id() {
    let Some(d) = full() else { return };
    let e = &d.engine;
    let all = registry_core::search::Filters {
        all_status: true,
        ..Default::default()
    };
    let mut ties = 0;
    for q in [
        "Institute of Philosophy",
        "Ministry of Health",
        "Department of Physics",
        "university hospital",
    ] {
        let hits = e.search(q, &all).unwrap();
        for w in 0..hits.records.len().saturating_sub(1) {
            if hits.scores[w] != hits.scores[w + 1] {
                continue;
            }
            ties += 1;
            let (a, b) = (hits.records[w] as usize, hits.records[w + 1] as usize);
            let (pa, pb) = (e.registry().prior(a), e.registry().prior(b));
            assert!(
                pa > pb || pa == pb && a < b,
                "{q}: {a} ({pa}) before {b} ({pb})"
            );
        }
    }
    assert!(ties > 0);
}
