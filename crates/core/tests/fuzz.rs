//! Fuzz-style robustness: random and hostile strings through the router and
//! the typeahead must never panic, and every answer is JSON with a known
//! status. Deterministic (xorshift), so a failure reproduces.

mod search_support;

use registry_core::search::Filters;
use search_support::demo;

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

const PIECES: &[&str] = &[
    "a",
    "Z",
    "univ",
    "northfield",
    " ",
    "  ",
    "+",
    "-",
    "=",
    "&&",
    "||",
    "&",
    "|",
    ">",
    "<",
    "!",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "^",
    "\"",
    "~",
    "*",
    "?",
    ":",
    "\\",
    "/",
    "%",
    "%2",
    "%25",
    "%zz",
    "%00",
    "%FF",
    "%C3%A9",
    "%E6%9D%B1",
    "%22",
    "%2C",
    "%3A",
    "+",
    "é",
    "e\u{301}",
    "東雲",
    "한",
    "ß",
    "İ",
    "ﬁ",
    "\u{200b}",
    "\u{202e}",
    "\u{0}",
    "😀",
    "\u{FFFD}",
    "AND",
    "OR",
    "NOT",
    "0",
    "1",
    "99999999999999999999",
    "-1",
    "_",
    "#",
    "?",
    "&",
    "=",
    ",",
    "types:",
    "status:active",
    "country.country_name:",
    "locations.geo_details.continent_name:North+America",
    "ror.org/",
    "https://",
    "grid.",
    "0000 0004",
    "Q1",
    "'",
    "’",
    "..",
    "./",
    "\n",
    "\t",
    "\r\n",
];

const PREFIXES: &[&str] = &[
    "/v2/organizations?query=",
    "/v1/organizations?query=",
    "/organizations?query=",
    "/v2/organizations?filter=",
    "/v1/organizations?filter=",
    "/v2/organizations?page=",
    "/v2/organizations?all_status=",
    "/v2/organizations/",
    "/v1/organizations/",
    "/v2/organizations?query=a&filter=",
    "/v2/",
    "/",
    "",
    "/v2/organizations?",
    "/v2/organizations?query.advanced=",
    "/v1/organizations?affiliation=",
    "/v2/organizations?mode=typed&query=",
    "/v1/organizations?mode=typed&all_status&query=",
    "/v2/organizations?query=univ+n&mode=",
];

fn random_text(rng: &mut XorShift) -> String {
    let n = rng.below(12);
    (0..n).map(|_| rng.pick(PIECES)).collect()
}

#[test]
fn the_router_never_panics_and_always_answers_json() {
    let e = &demo().engine;
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let path = format!("{}{}", rng.pick(PREFIXES), random_text(&mut rng));
        let r = e.handle(&path);
        assert!(
            [200, 400, 404].contains(&r.status),
            "{path:?}: {}",
            r.status
        );
        let v: serde_json::Value =
            serde_json::from_str(&r.json).unwrap_or_else(|err| panic!("{path:?}: {err}"));
        if r.status != 200 {
            assert!(v["errors"][0].is_string(), "{path:?}: {v}");
        }
    }
}

#[test]
fn hostile_inputs() {
    let e = &demo().engine;
    let long = "a".repeat(100_000);
    let deep = "(".repeat(10_000);
    let quotes = "\"".repeat(9_999);
    let escapes = "\\".repeat(10_001);
    let bytes: String = (0u8..=255).map(|b| format!("%{b:02X}")).collect();
    for q in [
        &long, &deep, &quotes, &escapes, &bytes, "%", "%%", "?", "&&&&", "=&=&=",
    ] {
        for prefix in PREFIXES {
            let path = format!("{prefix}{q}");
            let r = e.handle(&path);
            assert!(
                [200, 400, 404].contains(&r.status),
                "{}: {}",
                &path[..path.len().min(80)],
                r.status
            );
        }
    }
    // Very many parameters and a page number far out of range.
    let many: String = (0..5000).map(|i| format!("p{i}=x&")).collect();
    assert_eq!(e.handle(&format!("/v2/organizations?{many}")).status, 400);
    assert_eq!(
        e.handle("/v2/organizations?page=18446744073709551616")
            .status,
        400
    );
}

#[test]
fn suggest_never_panics_and_ranges_are_valid() {
    let e = &demo().engine;
    let mut rng = XorShift(0xDEAD_BEEF_CAFE_F00D);
    for _ in 0..20_000 {
        let q = random_text(&mut rng);
        for s in e.suggest(&q, &Filters::default(), 5) {
            for &(a, b) in &s.ranges {
                assert!(a < b && b <= s.matched.value.len(), "{q:?}");
                assert!(
                    s.matched.value.is_char_boundary(a) && s.matched.value.is_char_boundary(b),
                    "{q:?}"
                );
            }
        }
    }
}
