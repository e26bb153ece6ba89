//! Typeahead (`Engine::suggest`): prefix-aware, order-insensitive,
//! accent-folding, acronyms from 2 characters, ids pasted in any form,
//! prefix-stable, ranked by the documented rule, with highlight ranges.

mod search_support;

use registry_core::search::{Engine, Filters, SuggestContext, Version};
use registry_core::text;
use search_support::{demo, display, full};

fn top(engine: &Engine, q: &str, k: usize) -> Vec<String> {
    engine
        .suggest(q, &Filters::default(), k)
        .into_iter()
        .map(|s| s.summary.name)
        .collect()
}

fn first(engine: &Engine, q: &str) -> String {
    top(engine, q, 5).into_iter().next().unwrap_or_default()
}

#[test]
fn prefix_on_every_word_in_any_order_accent_folded() {
    let e = &demo().engine;
    for q in [
        "univ montcl",
        "montcl univ",
        "universite de montclair",
        "UNIVERSITÉ MONTCLAIR-SUR",
        "rhone montclair",
        "montclair sur rhone university", // the English label, other order
    ] {
        assert_eq!(first(e, q), "Université de Montclair-sur-Rhône", "{q}");
    }
    assert_eq!(first(e, "obrien daught"), "O'Brien & Daughters Instruments");
    assert_eq!(
        first(e, "o'brien & daughters"),
        "O'Brien & Daughters Instruments"
    );
    assert_eq!(
        first(e, "karadeniz kiyi"),
        "Karadeniz Kıyı Araştırmaları Enstitüsü"
    );
    assert_eq!(first(e, "wroclaw"), "Uniwersytet Nadodrzański we Wrocławiu");
    // "University of X" = "X University" (optional "of").
    assert_eq!(
        first(e, "university of caldera"),
        "Caldera State University"
    );
}

#[test]
fn acronyms_from_two_characters_and_non_latin_scripts() {
    let e = &demo().engine;
    assert_eq!(first(e, "RP"), "Rangitoto Polytechnic");
    assert_eq!(first(e, "kq"), "Kestrel Quantum (Australia)");
    assert_eq!(first(e, "СИМ"), "Siberian Institute of Permafrost Studies");
    assert_eq!(first(e, "NFU"), "Northfield University");
    let csu = top(e, "CSU", 5);
    let mut two: Vec<&str> = csu.iter().take(2).map(String::as_str).collect();
    two.sort();
    assert_eq!(
        two,
        [
            "Caldera State University",
            "Centre for Sustainable Urbanism"
        ]
    );
    for (q, want) in [
        ("東雲", "Shinonome Institute of Technology"),
        ("東雲工科", "Shinonome Institute of Technology"),
        ("瀬戸内", "Setouchi Maritime Archive"),
        ("한빛", "Hanbit Institute of Science and Technology"),
        ("сибирский инст", "Siberian Institute of Permafrost Studies"),
        ("جامعة", "Al-Waha University"),
        ("Ινστιτούτο", "Aegean Institute of Marine Archaeology"),
        ("ινστιτουτο θαλ", "Aegean Institute of Marine Archaeology"),
        ("青杉", "Qingshan Academy of Agricultural Sciences"),
        ("สถาบัน", "Chao Phraya Institute of Food Science"),
    ] {
        assert_eq!(first(e, q), want, "{q}");
    }
}

#[test]
fn identifiers_pasted_in_any_form() {
    let d = demo();
    let e = &d.engine;
    let nf = "Northfield University Institute of Marine Biology";
    for q in [
        "https://ror.org/01149pg79",
        "ror.org/01149pg79",
        "01149pg79",
        " 01149PG79 ",
        "0000 0004 2713 8325",
        "0000000427138325",
        "https://isni.org/isni/0000000427138325",
        "grid.782199.9",
    ] {
        let s = e.suggest(q, &Filters::default(), 5);
        assert_eq!(s[0].summary.name, nf, "{q}");
        assert!(s[0].reason == "id" || s[0].reason == "external_id");
    }
    assert_eq!(
        first(e, "q190975160"),
        "Centrum jazykového dědictví střední Evropy"
    );
    assert_eq!(
        first(e, "https://www.wikidata.org/wiki/Q190975160"),
        "Centrum jazykového dědictví střední Evropy"
    );
    assert_eq!(first(e, "501100877934"), "Northfield University");
    assert_eq!(
        first(e, "https://doi.org/10.13039/501100877934"),
        "Northfield University"
    );
    // An id returns its record whatever its status.
    assert_eq!(
        first(e, "0tdhvk851"),
        "Northfield University Board of Regents"
    );
}

#[test]
fn ranking_rule_exact_acronym_display_prefix_other_and_status() {
    let e = &demo().engine;
    let s = e.suggest("Northfield University", &Filters::default(), 10);
    assert_eq!(s[0].summary.name, "Northfield University");
    assert_eq!(s[0].reason, "exact");
    // Display-name prefixes before other names; shorter first.
    assert_eq!(s[1].reason, "display_prefix");
    assert_eq!(s[1].summary.name, "Northfield University Hospital");
    let s = e.suggest("nfu", &Filters::default(), 5);
    assert_eq!(
        (s[0].reason, s[0].summary.name.as_str()),
        ("acronym", "Northfield University")
    );
    // Active before inactive within a tier.
    let s = e.suggest("kilimani", &Filters::default(), 5);
    assert_eq!(s[0].summary.name, "Kilimani University of Agriculture");
    assert_eq!(s[1].summary.name, "Kilimani Agricultural College");
    assert_eq!(s[1].summary.status, "inactive");
    // Withdrawn records are shown (after active ones), with their successor.
    let s = e.suggest("northfield board", &Filters::default(), 5);
    assert_eq!(s[0].summary.status, "withdrawn");
    assert_eq!(s[0].summary.successors.len(), 1);
    // ... unless a status filter says otherwise.
    let f = e.parse_filters("status:active", Version::V2).unwrap();
    assert!(e.suggest("northfield board", &f, 5).is_empty());
    let f = e.parse_filters("types:healthcare", Version::V2).unwrap();
    let s: Vec<String> = e
        .suggest("northfield", &f, 5)
        .into_iter()
        .map(|s| s.summary.name)
        .collect();
    assert_eq!(s, ["Northfield University Hospital"]);
}

#[test]
fn highlight_ranges_cover_the_matched_prefixes() {
    let e = &demo().engine;
    for q in [
        "univ montcl",
        "hop sainte",
        "o'brien",
        "東雲工",
        "СИМ",
        "rifmonitor",
        "wroclaw",
    ] {
        for s in e.suggest(q, &Filters::default(), 5) {
            let v = &s.matched.value;
            assert!(!s.ranges.is_empty(), "{q}: {v}");
            for &(a, b) in &s.ranges {
                assert!(
                    a < b && v.is_char_boundary(a) && v.is_char_boundary(b),
                    "{q}: {v} {a}..{b}"
                );
                let folded = text::fold(&v[a..b]).replace(['\'', '’'], "");
                let qt = text::tokens(q);
                assert!(
                    qt.iter().any(|t| folded.starts_with(&t.text)
                        || t.text.starts_with(&folded)
                        || folded.contains(&t.text)),
                    "{q}: '{}' in {v}",
                    &v[a..b]
                );
            }
        }
    }
    let s = &e.suggest("univ montcl", &Filters::default(), 1)[0];
    let parts: Vec<&str> = s
        .ranges
        .iter()
        .map(|&(a, b)| &s.matched.value[a..b])
        .collect();
    assert_eq!(parts, ["Univ", "Montcl"], "{}", s.matched.value);
}

const TIERS: [&str; 5] = ["exact", "acronym", "display_prefix", "name_prefix", "words"];

fn tier(reason: &str) -> usize {
    TIERS.iter().position(|t| *t == reason).unwrap_or(0)
}

/// Typing one more character never drops the best result while it still
/// matches as well as before (same or better tier): it stays in the top 5.
/// (It may be overtaken only by records reaching a better tier, e.g. an
/// exact name; and if the new character makes it match worse — the display
/// name no longer a prefix, only a label word — it may sink.)
fn check_prefix_stability(engine: &Engine, names: &[String]) {
    let mut checked = 0;
    for name in names {
        let chars: Vec<(usize, char)> = name.char_indices().collect();
        let mut prev: Option<(String, &'static str)> = None;
        for n in 1..=chars.len() {
            let end = chars.get(n).map_or(name.len(), |c| c.0);
            let q = &name[..end];
            let hits = engine.suggest(q, &Filters::default(), 5);
            if let Some((p, reason)) = &prev {
                let still = engine
                    .suggest(q, &Filters::default(), 100_000)
                    .into_iter()
                    .find(|h| &h.summary.id == p);
                if let Some(h) = still.filter(|h| tier(h.reason) <= tier(reason)) {
                    assert!(
                        hits.iter().any(|x| x.summary.id == h.summary.id),
                        "typing '{q}' dropped {p} ({reason}) from the top 5"
                    );
                    checked += 1;
                }
            }
            prev = hits.first().map(|h| (h.summary.id.clone(), h.reason));
        }
    }
    assert!(checked > 0);
}

#[test]
fn prefix_stable_on_the_demo_names() {
    let d = demo();
    let names: Vec<String> = d
        .records
        .iter()
        .flat_map(|r| r.names.iter().map(|n| n.value.clone()))
        .collect();
    check_prefix_stability(&d.engine, &names);
}

#[test]
fn prefix_stable_on_the_full_data_sample() {
    let Some(d) = full() else { return };
    let names: Vec<String> = d
        .records
        .iter()
        .step_by(1500)
        .map(|r| display(r).to_string())
        .collect();
    check_prefix_stability(&d.engine, &names);
    // "chan z" → "chan zu" (ror-roadmap#282: upstream drops results).
    let a = top(&d.engine, "chan z", 20);
    let b = top(&d.engine, "chan zu", 20);
    for x in &b {
        assert!(a.contains(x) || a.len() == 20, "{x}");
    }
}

#[test]
fn empty_and_limits() {
    let e = &demo().engine;
    assert!(e.suggest("", &Filters::default(), 5).is_empty());
    assert!(e.suggest("   ", &Filters::default(), 5).is_empty());
    assert!(e.suggest("northfield", &Filters::default(), 0).is_empty());
    assert_eq!(e.suggest("n", &Filters::default(), 3).len(), 3);
    assert!(
        e.suggest(&"a".repeat(5000), &Filters::default(), 5)
            .is_empty()
    );
}

/// Within the exact tier, records whose display name is the query come
/// before records where it is only a label or an alias ("Institute of
/// Philosophy": several institutes, and other records with that label).
#[test]
fn exact_display_names_before_exact_labels_and_aliases() {
    let Some(d) = full() else { return };
    let e = &d.engine;
    let s = e.suggest("Institute of Philosophy", &Filters::default(), 10);
    let exact: Vec<bool> = s
        .iter()
        .filter(|h| h.reason == "exact")
        .map(|h| {
            h.matched
                .types
                .iter()
                .any(|t| t == registry_core::model::DISPLAY)
        })
        .collect();
    assert!(exact.len() >= 2, "{exact:?}");
    assert!(exact[0], "{:?}", s[0]);
    assert!(exact.windows(2).all(|w| w[0] || !w[1]), "{exact:?}");
    // The same over a sample of names of every kind.
    for r in d.records.iter().step_by(97) {
        for n in &r.names {
            let s = e.suggest(&n.value, &Filters::default(), 10);
            let kinds: Vec<bool> = s
                .iter()
                .filter(|h| h.reason == "exact")
                .map(|h| {
                    h.matched
                        .types
                        .iter()
                        .any(|t| t == registry_core::model::DISPLAY)
                })
                .collect();
            assert!(
                kinds.windows(2).all(|w| w[0] || !w[1]),
                "{}: {kinds:?}",
                n.value
            );
        }
    }
}

/// The first k hits are exactly the first k of a longer list: the bounded
/// top-k selection ranks like a full sort, for short (many candidates) and
/// long queries, with and without filters.
#[test]
fn top_k_is_a_prefix_of_the_full_ranking() {
    let d = full().unwrap_or_else(demo);
    let e = &d.engine;
    let active = e.parse_filters("status:active", Version::V2).unwrap();
    for q in [
        "u", "s", "in", "un", "uni", "univ", "n", "nf", "東", "m", "inst of", "a&",
    ] {
        for f in [&Filters::default(), &active] {
            let all = e.suggest(q, f, 100_000);
            for k in [1, 5, 10] {
                let top = e.suggest(q, f, k);
                assert_eq!(top, all[..k.min(all.len())], "{q} k={k}");
            }
        }
    }
}

/// `Registry::external_ids` decodes the same ids as the full record.
#[test]
fn external_ids_alone_match_the_full_records() {
    let d = full().unwrap_or_else(demo);
    let reg = d.engine.registry();
    for i in (0..reg.len()).step_by(7) {
        assert_eq!(
            reg.external_ids(i).unwrap(),
            reg.record(i).unwrap().external_ids
        );
        let mut values = Vec::new();
        reg.for_each_external_id(i, |v| values.push(v.to_string()))
            .unwrap();
        for x in reg.record(i).unwrap().external_ids {
            for v in x.all.iter().chain(x.preferred.iter()) {
                assert!(values.contains(v), "{v}");
            }
        }
    }
}

/// Text that does not look like an external id never needs the id tables;
/// ids in any usual form still find their records.
#[test]
fn only_id_like_text_consults_external_ids() {
    for s in ["3M", "Area 51", "univ 2", "Qatar 1"] {
        assert!(!text::looks_like_external_id(s), "{s}");
    }
    let Some(d) = full() else { return };
    let r = d
        .records
        .iter()
        .find(|r| r.external_ids.iter().any(|x| x.kind == "isni"))
        .unwrap();
    let isni = &r
        .external_ids
        .iter()
        .find(|x| x.kind == "isni")
        .unwrap()
        .all[0];
    let hits = d.engine.suggest(isni, &Filters::default(), 5);
    assert!(
        hits.iter()
            .any(|h| h.summary.id == r.id && h.reason == "external_id")
    );
}

fn ids_in(e: &Engine, q: &str, ctx: &SuggestContext) -> Vec<String> {
    e.suggest_in(q, &Filters::default(), 5, ctx)
        .into_iter()
        .map(|s| s.summary.name)
        .collect()
}

/// An e-mail address offers its organisation before anything is typed: the
/// most specific domain first, then the parent domain's records; typing
/// keeps them boosted.
#[test]
fn email_domain_offers_on_focus_and_boosts_while_typing() {
    let e = &demo().engine;
    let ctx = SuggestContext {
        email_domain: Some("Jane.Doe@Polar.Northfield-University.example".into()),
        ..SuggestContext::default()
    };
    let offers = e.suggest_in("", &Filters::default(), 5, &ctx);
    let names: Vec<&str> = offers.iter().map(|s| s.summary.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Northfield University Institute for Polar Sciences",
            "Northfield University"
        ]
    );
    assert!(offers.iter().all(|s| s.reason == "email_domain"));
    // Without a context nothing is offered for empty text.
    assert!(e.suggest("", &Filters::default(), 5).is_empty());
    // While typing, the domain's record comes first among the matches.
    let plain = top(e, "northfield un", 5);
    let ctx = SuggestContext {
        email_domain: Some("someone@nuh.example".into()),
        ..SuggestContext::default()
    };
    let boosted = ids_in(e, "northfield un", &ctx);
    assert_ne!(plain[0], "Northfield University Hospital", "{plain:?}");
    assert_eq!(boosted[0], "Northfield University Hospital", "{boosted:?}");
    // Filters apply to the offers too; a shared suffix matches nothing.
    let f = e.parse_filters("types:facility", Version::V2).unwrap();
    let ctx = SuggestContext {
        email_domain: Some("polar.northfield-university.example".into()),
        ..SuggestContext::default()
    };
    assert_eq!(e.suggest_in("", &f, 5, &ctx).len(), 1);
    let ctx = SuggestContext {
        email_domain: Some("someone@example".into()),
        ..SuggestContext::default()
    };
    assert!(e.suggest_in("", &Filters::default(), 5, &ctx).is_empty());
}

/// Preferences boost, they do not filter.
#[test]
fn preferred_country_and_types_boost_without_filtering() {
    let e = &demo().engine;
    let plain = top(e, "institute", 10);
    let ru = ids_in(
        e,
        "institute",
        &SuggestContext {
            prefer_countries: vec!["ru".into()],
            ..SuggestContext::default()
        },
    );
    let first_ru = |v: &[String]| {
        v.iter()
            .position(|n| n.contains("Yakutsk") || n.contains("Siberian"))
            .unwrap_or(usize::MAX)
    };
    assert!(first_ru(&ru) < first_ru(&plain), "{ru:?} vs {plain:?}");
    assert_eq!(first_ru(&ru), 0, "{ru:?}");
    let all = e.suggest_in(
        "institute",
        &Filters::default(),
        100,
        &SuggestContext {
            prefer_countries: vec!["RU".into()],
            ..SuggestContext::default()
        },
    );
    assert_eq!(
        all.len(),
        e.suggest("institute", &Filters::default(), 100).len()
    );
    // A type preference lifts the facilities among Northfield's records.
    let pos = |v: &[String]| {
        v.iter()
            .position(|n| n == "Northfield University Center for Computational Linguistics")
            .unwrap_or(usize::MAX)
    };
    let plain = top(e, "northfield", 10);
    let facilities: Vec<String> = e
        .suggest_in(
            "northfield",
            &Filters::default(),
            10,
            &SuggestContext {
                prefer_types: vec!["Facility".into()],
                ..SuggestContext::default()
            },
        )
        .into_iter()
        .map(|s| s.summary.name)
        .collect();
    assert!(
        pos(&facilities) < pos(&plain),
        "{facilities:?} vs {plain:?}"
    );
    // Unknown countries and types prefer nothing and are no error.
    let none = ids_in(
        e,
        "institute",
        &SuggestContext {
            prefer_countries: vec!["XX".into(), "".into()],
            prefer_types: vec!["castle".into()],
            ..SuggestContext::default()
        },
    );
    assert_eq!(none, top(e, "institute", 5));
}

/// Records picked before come first when they match the text, and are
/// offered on focus after the e-mail domain's.
#[test]
fn remembered_records_come_first_for_matching_text() {
    let e = &demo().engine;
    let ctx = SuggestContext {
        remembered: vec!["not an id".into(), "0xsa2r256".into()],
        ..SuggestContext::default()
    };
    let hits = e.suggest_in("northfield", &Filters::default(), 5, &ctx);
    assert_eq!(hits[0].summary.name, "Northfield State University");
    assert!(hits[0].remembered);
    assert!(hits[1..].iter().all(|h| !h.remembered));
    // Even before an exact match of another record.
    let hits = e.suggest_in("northfield university", &Filters::default(), 5, &ctx);
    assert_eq!(hits[0].summary.name, "Northfield State University");
    assert_eq!(hits[1].summary.name, "Northfield University");
    // Not when it does not match.
    let hits = e.suggest_in("kilimani", &Filters::default(), 5, &ctx);
    assert!(hits.iter().all(|h| !h.remembered));
    // On focus.
    let offers = e.suggest_in("", &Filters::default(), 5, &ctx);
    assert_eq!(offers.len(), 1);
    assert_eq!(offers[0].reason, "remembered");
}

/// `lang` carries the record's label in that language.
#[test]
fn lang_gives_the_label_in_that_language() {
    let e = &demo().engine;
    let ctx = SuggestContext {
        lang: Some("es".into()),
        ..SuggestContext::default()
    };
    let hits = e.suggest_in("northfield university", &Filters::default(), 5, &ctx);
    assert_eq!(hits[0].summary.name, "Northfield University");
    assert_eq!(
        hits[0].localized.as_deref(),
        Some("Universidad de Northfield")
    );
    assert!(hits[1..].iter().all(|h| h.localized.is_none()));
    // Matching and order do not change.
    let names: Vec<&str> = hits.iter().map(|h| h.summary.name.as_str()).collect();
    assert_eq!(names, top(e, "northfield university", 5));
}

/// The stored prior orders records people pick more often first where the
/// match tiers leave a choice, and very short queries show the most likely.
#[test]
fn the_prior_orders_ties_and_short_queries() {
    let Some(d) = full() else {
        println!("skipped: ../shared not found");
        return;
    };
    let e = &d.engine;
    let reg = e.registry();
    for q in ["u", "un", "h", "ca"] {
        let hits = e.suggest(q, &Filters::default(), 5);
        // Every hit of a one- or two-character query is among the most
        // likely records of the registry (top 2 %).
        let mut priors: Vec<u8> = reg.priors().to_vec();
        priors.sort_unstable();
        let p98 = priors[priors.len() * 98 / 100];
        // (Exact matches, such as the acronym "UN", come first by rule.)
        for h in hits
            .iter()
            .filter(|h| h.reason != "exact" && h.reason != "acronym")
        {
            assert!(reg.prior(h.index) >= p98, "{q}: {}", h.summary.name);
        }
    }
    // "harv": Harvard University before HarvestPlus (issue #12's example).
    let harv = top(e, "harv", 5);
    assert_eq!(harv[0], "Harvard University", "{harv:?}");
}
