//! The npm package's `web/npm/index.d.ts` declares the typeahead's shapes
//! exactly as the contract's types serialise them: every field, no other,
//! optional (`?`) where the JSON leaves it out, `| null` where it writes
//! `null`, and the TypeScript type of the JSON written.
//!
//! Checked rather than generated: the `.d.ts` is mostly the element, its
//! events and the JS runtime's classes, written for people (their docs are
//! the package's reference), and only four of its interfaces are Rust
//! shapes. A generator (ts-rs, specta) would be a new dependency writing a
//! second file that the hand-written one imports; this test instead lists
//! each type's fields the way the wire does — from serde's own output of
//! a value with every field set, and of the default value — so a field
//! added, renamed or made optional on either side fails here.

use std::collections::BTreeMap;

use registry_contract::{Hit, Matched, SuggestContext, SuggestOptions, Summary};
use serde_json::Value;

/// The contract's types and the `.d.ts` interface each is declared as.
const DECLARED_AS: [(&str, &str); 4] = [
    ("SuggestOptions", "SuggestOptions"),
    ("Hit", "Suggestion"),
    ("Summary", "Summary"),
    ("Matched", "Matched"),
];

/// The interface a nested object field is declared as.
fn nested_interface(field: &str) -> Option<&'static str> {
    match field {
        "summary" => Some("Summary"),
        "matched" => Some("Matched"),
        _ => None,
    }
}

fn text(s: &str) -> String {
    s.to_string()
}

fn full_summary() -> Summary {
    Summary {
        id: text("https://ror.org/03ncywt35"),
        name: text("Shinonome Institute of Technology"),
        acronyms: vec![text("SIT")],
        city: Some(text("Tokyo")),
        country_code: Some(text("JP")),
        country_name: Some(text("Japan")),
        types: vec![text("education")],
        status: text("active"),
        successors: vec![text("https://ror.org/01149pg79")],
    }
}

fn full_matched() -> Matched {
    Matched {
        value: text("東雲工大"),
        types: vec![text("alias")],
        lang: Some(text("ja")),
    }
}

/// Each contract type's JSON with every field set, and its default's.
fn samples() -> BTreeMap<&'static str, (Value, Value)> {
    let options = SuggestOptions {
        filters: vec![text("types:education")],
        limit: Some(5),
        context: SuggestContext {
            prefer_countries: vec![text("JP")],
            prefer_types: vec![text("education")],
            email_domain: Some(text("x.example")),
            remembered: vec![text("03ncywt35")],
            lang: Some(text("ja")),
        },
    };
    let hit = Hit {
        index: 2,
        summary: full_summary(),
        matched: full_matched(),
        ranges: vec![(0, 6)],
        reason: text("name_prefix"),
        ranges16: vec![(0, 2)],
        localized: Some(text("東雲工科大学")),
        remembered: true,
    };
    BTreeMap::from([
        (
            "SuggestOptions",
            (json(&options), json(&SuggestOptions::default())),
        ),
        ("Hit", (json(&hit), json(&Hit::default()))),
        (
            "Summary",
            (json(&full_summary()), json(&Summary::default())),
        ),
        (
            "Matched",
            (json(&full_matched()), json(&Matched::default())),
        ),
    ])
}

fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("contract types serialise")
}

/// The TypeScript type of a JSON value of field `field`.
fn ts_type(field: &str, v: &Value) -> String {
    match v {
        Value::String(_) => text("string"),
        Value::Number(_) => text("number"),
        Value::Bool(_) => text("boolean"),
        Value::Array(a) => match a.first() {
            Some(Value::Array(pair)) if pair.len() == 2 => text("[number, number][]"),
            Some(item) => format!("{}[]", ts_type(field, item)),
            None => panic!("give {field} an item in the sample"),
        },
        Value::Object(_) => nested_interface(field)
            .unwrap_or_else(|| panic!("name the interface of {field}"))
            .to_string(),
        Value::Null => panic!("give {field} a value in the sample"),
    }
}

/// What the `.d.ts` must say of each field: `(optional, type)`.
fn expected(full: &Value, default: &Value) -> BTreeMap<String, (bool, String)> {
    let default = default.as_object().expect("an object");
    full.as_object()
        .expect("an object")
        .iter()
        .map(|(k, v)| {
            let mut ty = ts_type(k, v);
            if default.get(k) == Some(&Value::Null) {
                ty.push_str(" | null");
            }
            (k.clone(), (!default.contains_key(k), ty))
        })
        .collect()
}

/// `source` without `/* … */` and `// …` comments.
fn without_comments(source: &str) -> String {
    let mut out = String::new();
    let mut rest = source;
    while let Some(i) = rest.find("/*").into_iter().chain(rest.find("//")).min() {
        out.push_str(&rest[..i]);
        let end = if rest[i..].starts_with("/*") {
            rest[i..].find("*/").map_or(rest.len(), |e| i + e + 2)
        } else {
            rest[i..].find('\n').map_or(rest.len(), |e| i + e)
        };
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The members of `export interface name { … }`: `(optional, type)` by
/// field name.
fn declared(dts: &str, name: &str) -> BTreeMap<String, (bool, String)> {
    let head = format!("export interface {name} {{");
    let start = dts
        .find(&head)
        .unwrap_or_else(|| panic!("index.d.ts declares no {name}"))
        + head.len();
    let mut depth = 0i32;
    let mut members = Vec::new();
    let mut member = String::new();
    for c in dts[start..].chars() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' if depth == 0 => break,
            '}' | ']' | ')' => depth -= 1,
            ';' if depth == 0 => {
                members.push(std::mem::take(&mut member));
                continue;
            }
            _ => {}
        }
        member.push(c);
    }
    members.push(member);
    members
        .iter()
        .filter(|m| !m.trim().is_empty())
        .map(|m| {
            let (key, ty) = m
                .split_once(':')
                .unwrap_or_else(|| panic!("{name}: not a field: {m:?}"));
            let key = key.trim();
            let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
            match key.strip_suffix('?') {
                Some(k) => (k.to_string(), (true, ty)),
                None => (key.to_string(), (false, ty)),
            }
        })
        .collect()
}

fn dts() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/npm/index.d.ts");
    without_comments(&std::fs::read_to_string(path).expect("web/npm/index.d.ts"))
}

#[test]
fn index_d_ts_declares_the_contracts_typeahead_shapes() {
    let dts = dts();
    let samples = samples();
    for (rust, ts) in DECLARED_AS {
        let (full, default) = &samples[rust];
        assert_eq!(
            declared(&dts, ts),
            expected(full, default),
            "web/npm/index.d.ts `{ts}` against registry_contract::{rust}: (optional, type) by field"
        );
    }
}

/// The check catches a field the `.d.ts` lacks, one it marks optional
/// that is always written, and a type it gets wrong.
#[test]
fn the_check_sees_a_missing_field_a_wrong_optional_and_a_wrong_type() {
    let samples = samples();
    let (full, default) = &samples["Matched"];
    let want = expected(full, default);
    for wrong in [
        "export interface Matched { value: string; types: string[]; }",
        "export interface Matched { value?: string; types: string[]; lang: string | null }",
        "export interface Matched { value: string; types: string; lang: string | null }",
        "export interface Matched { value: string; types: string[]; lang: string }",
    ] {
        assert_ne!(declared(wrong, "Matched"), want, "{wrong}");
    }
    let right =
        "export interface Matched {\n  value: string; types: string[];\n  lang: string | null;\n}";
    assert_eq!(declared(right, "Matched"), want);
}
