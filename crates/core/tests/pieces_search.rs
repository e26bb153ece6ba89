//! E2 over pieces answers exactly as the whole registry: for a set of
//! queries of every kind (one word, several words, common words, phrases,
//! required and excluded words, ids, with and without filters, pages 1–3),
//! every page the pieces answer has the same records in the same order, the
//! same `number_of_results` and the same `meta` as `Engine::handle`'s
//! answer; the rest go to the whole registry. The demo data is cut with a
//! tiny budget so that it has split terms and common terms like the real
//! registry; the full data (when `../shared` exists) with the default one.

mod search_support;

use std::collections::HashMap;

use registry_core::pieces::search::{
    ListQuery, Need, SearchAnswer, SearchClient, SearchPieces, search_pieces,
};
use registry_core::pieces::{self, Directory, PieceBudget, PieceKind, PieceSpec};
use registry_core::search::Version;
use registry_core::shard::search::SearchStats;
use registry_core::shard::{self, SectionKind};
use registry_core::{Record, RecordId};
use search_support::{Data, demo, enc, full};
use serde_json::Value;

/// Every file of a build, as a host serves them, by what a client asks.
#[derive(Clone)]
struct Files {
    files: HashMap<Need, Vec<u8>>,
    parts: HashMap<String, Vec<String>>,
    firsts: Vec<String>,
}

fn single_section_file(kind: SectionKind, raw: &[u8]) -> Vec<u8> {
    let mut built = shard::build_kinds(&[], "pieces", 0, &shard::Stored, &[]).unwrap();
    built.push_section(kind, raw, &shard::Stored);
    built.file(&[kind])
}

fn files(d: &Data, budget: &PieceBudget) -> (Files, SearchPieces) {
    let specs = pieces::partition(&d.engine, budget);
    let sp = search_pieces(&d.engine, &specs, budget).with_external_ids(d.engine.registry());
    let by_id: HashMap<RecordId, &Record> = d
        .records
        .iter()
        .map(|r| (RecordId::parse(&r.id).unwrap(), r))
        .collect();
    let file_of = |s: &PieceSpec| {
        let recs: Vec<Record> = s
            .records
            .iter()
            .map(|&i| (*by_id[&d.engine.registry().id(i as usize)]).clone())
            .collect();
        pieces::piece_file(s, &recs, "pieces", 0, &shard::Stored).unwrap()
    };
    let mut out = HashMap::new();
    let mut parts: HashMap<String, Vec<String>> = HashMap::new();
    for s in &specs {
        match s.kind {
            PieceKind::Leaf => {
                out.insert(Need::Leaf(s.key.clone()), file_of(s));
            }
            PieceKind::Id => {
                out.insert(Need::Id(s.key.clone()), file_of(s));
            }
            PieceKind::Head => {
                out.insert(Need::Head(s.key.clone()), file_of(s));
                parts
                    .entry(pieces::first_char(&s.key).to_string())
                    .or_default()
                    .push(s.key.clone())
            }
        }
    }
    for (need, spec) in sp.piece_files() {
        out.insert(need, file_of(spec));
    }
    for (bucket, records) in &sp.externals {
        let recs: Vec<Record> = records
            .iter()
            .map(|&i| (*by_id[&d.engine.registry().id(i as usize)]).clone())
            .collect();
        out.insert(
            Need::External(*bucket),
            shard::pieces::record_piece_file(&recs, "pieces", 0, &shard::Stored).unwrap(),
        );
    }
    for m in &sp.members {
        out.insert(
            Need::Members(m.term.clone()),
            single_section_file(SectionKind::TermMembers, &m.encode()),
        );
    }
    for (need, g) in sp.group_files() {
        out.insert(
            need,
            single_section_file(SectionKind::TermGroups, &g.encode()),
        );
    }
    for (need, raw) in sp.stats_parts() {
        out.insert(need, single_section_file(SectionKind::SearchTerms, &raw));
    }
    out.insert(
        Need::Stats,
        single_section_file(SectionKind::SearchStats, &sp.stats.encode()),
    );
    let mut firsts: Vec<String> = parts.keys().cloned().collect();
    firsts.sort();
    (
        Files {
            files: out,
            parts,
            firsts,
        },
        sp,
    )
}

/// Asks until the client answers, fetching what it needs (a file the
/// build did not write is a 404).
fn ask(c: &mut SearchClient, f: &Files, q: &ListQuery, fetched: &mut usize) -> SearchAnswer {
    let (a, asked) = ask_noting(c, f, q);
    *fetched += asked
        .iter()
        .filter_map(|n| f.files.get(n))
        .map(Vec::len)
        .sum::<usize>();
    a
}

/// [`ask`], and every file asked for.
fn ask_noting(c: &mut SearchClient, f: &Files, q: &ListQuery) -> (SearchAnswer, Vec<Need>) {
    let mut asked = Vec::new();
    for _ in 0..40 {
        match c.answer(q) {
            SearchAnswer::Need(needs) => {
                for n in needs {
                    match &n {
                        Need::Directory(first) => {
                            c.add_directory(first, f.parts.get(first).cloned().unwrap_or_default())
                        }
                        _ => c.add(&n, f.files.get(&n).map(Vec::as_slice)).unwrap(),
                    }
                    asked.push(n);
                }
            }
            a => return (a, asked),
        }
    }
    panic!("{q:?}: still asking after 40 rounds: {asked:?}");
}

/// The files of `f` without those `drop` matches (a build before them:
/// 404s), and the answers to `q` of a cold client of each, both checked
/// against the whole registry: (with, what it asked, without). `allowance`:
/// the clients' rank chunk allowance, if not the default.
fn with_and_without(
    d: &Data,
    f: &Files,
    drop: fn(&Need) -> bool,
    q: &ListQuery,
    allowance: Option<u32>,
) -> (SearchAnswer, Vec<Need>, SearchAnswer) {
    let mut without = f.clone();
    without.files.retain(|n, _| !drop(n));
    let client = |f: &Files| {
        let c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        match allowance {
            Some(n) => c.with_rank_chunk_allowance(n),
            None => c,
        }
    };
    let (a, asked) = ask_noting(&mut client(f), f, q);
    check(d, q, &a);
    let (b, _) = ask_noting(&mut client(&without), &without, q);
    check(d, q, &b);
    (a, asked, b)
}

/// The first page of `text`, unfiltered (`typed`: the search page's reading).
fn first_page(text: &str, typed: bool) -> ListQuery {
    ListQuery {
        query: text.to_string(),
        filter: None,
        all_status: false,
        page: 1,
        version: Version::V2,
        typed,
    }
}

fn url(q: &ListQuery) -> String {
    let v = if q.version == Version::V1 { "v1" } else { "v2" };
    let mut u = format!("/{v}/organizations?query={}", enc(&q.query));
    if q.typed {
        u.push_str("&mode=typed");
    }
    if let Some(f) = &q.filter {
        u.push_str(&format!("&filter={}", enc(f)));
    }
    if q.all_status {
        u.push_str("&all_status");
    }
    u.push_str(&format!("&page={}", q.page));
    u
}

/// Deterministic choices.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// The query set: ≥ 300 requests of every kind, from the data itself.
fn queries(d: &Data, common: &[String], n: usize) -> Vec<ListQuery> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let reg = d.engine.registry();
    let words_of = |r: usize| -> Vec<String> {
        reg.display_name(r)
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit()))
            .collect()
    };
    let mut texts: Vec<String> = Vec::new();
    while texts.len() < n {
        let r = rng.below(reg.len());
        let w = words_of(r);
        if w.is_empty() {
            continue;
        }
        let i = rng.below(w.len());
        let pick = |rng: &mut Rng| w[rng.below(w.len())].clone();
        let text = match texts.len() % 13 {
            0 => w[i].clone(),
            1 => w.join(" "),
            2 => format!("{} {}", pick(&mut rng), pick(&mut rng)),
            3 => common[rng.below(common.len())].clone(),
            4 => format!("{} {}", common[rng.below(common.len())], w[i]),
            5 if w.len() > 1 => format!("\"{}\"", w[..2].join(" ")),
            6 => reg
                .id(r)
                .to_string()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string(),
            7 => format!("+{} {}", w[i], common[rng.below(common.len())]),
            8 if w.len() > 1 => format!("{} -{}", w[0], w[1]),
            9 => format!("university of {}", w[i]),
            10 => reg.id(r).to_string(),
            // Typed into a search box: words cut short, the last unfinished.
            12 => w
                .iter()
                .map(|w| w.chars().take(4 + rng.below(4)).collect::<String>())
                .collect::<Vec<_>>()
                .join(" "),
            _ => format!("{} {}", w[i], words_of(rng.below(reg.len())).join(" ")),
        };
        texts.push(text);
    }
    let country = |r: usize| reg.summary(r).country_code.unwrap_or_default();
    texts
        .into_iter()
        .enumerate()
        .map(|(i, query)| {
            let filter = match i % 5 {
                1 => Some("types:education".to_string()),
                2 => Some(format!(
                    "country.country_code:{}",
                    country(rng.below(reg.len()))
                )),
                3 => Some("status:inactive,types:company".to_string()),
                // Continents: a schema-2.0 place counts under its country's.
                4 if i % 15 == 4 => Some("locations.geo_details.continent_code:EU".to_string()),
                _ => None,
            };
            ListQuery {
                query,
                filter,
                all_status: i % 7 == 3,
                page: 1 + i % 3,
                version: if i % 4 == 1 { Version::V1 } else { Version::V2 },
                typed: false,
            }
        })
        .collect()
}

fn compare(d: &Data, budget: &PieceBudget, n: usize) -> (usize, usize, Vec<usize>) {
    let (f, sp) = files(d, budget);
    let mut common: Vec<String> = sp.stats.common.iter().map(|c| c.term.clone()).collect();
    if common.is_empty() {
        common.push("university".into());
    }
    let mut qs = queries(d, &common, n);
    // Continents from countries (schema-2.0 places): `tests/continent.rs`
    // checks the whole registry's facets; the pieces must agree with it.
    for filter in [
        None,
        Some("locations.geo_details.continent_code:EU".to_string()),
    ] {
        qs.push(ListQuery {
            query: "cambridge".into(),
            filter,
            all_status: false,
            page: 1,
            version: Version::V2,
            typed: false,
        });
    }
    // Each request as the API reads it and as the search page does.
    let qs: Vec<ListQuery> = qs
        .into_iter()
        .flat_map(|q| [q.clone(), ListQuery { typed: true, ..q }])
        .collect();
    let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
    let (mut answered, mut invalid) = (0, 0);
    let mut bytes = Vec::new();
    let mut whole: HashMap<&str, usize> = HashMap::new();
    for q in &qs {
        // A fresh client per query counts what a first visit fetches.
        let mut fresh = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        let mut fetched = 0;
        let a = ask(&mut fresh, &f, q, &mut fetched);
        let mut again = 0;
        let b = ask(&mut c, &f, q, &mut again);
        // A warm client holds more rank chunks, so it may answer where a
        // cold one gives up; what both answer is the same.
        if matches!((&a, &b), (SearchAnswer::Page(_), SearchAnswer::Page(_))) {
            assert_eq!(a, b, "{q:?}: a warm client answers as a cold one");
        }
        check(d, q, &b);
        if q.query == "cambridge" {
            let from = match &a {
                SearchAnswer::Page(p) => format!("pieces, meta {:?}", p.meta.continents),
                other => format!("{other:?}"),
            };
            println!("cambridge {:?}: {from}", q.filter);
        }
        if let SearchAnswer::Whole(why) = &a {
            *whole.entry(why).or_insert(0) += 1;
            continue;
        }
        if matches!(a, SearchAnswer::Invalid(_)) {
            invalid += 1;
        } else {
            answered += 1;
            bytes.push(fetched);
        }
        check(d, q, &a);
    }
    bytes.sort_unstable();
    println!("to the whole registry: {whole:?}");
    (answered + invalid, qs.len(), bytes)
}

/// An answer of the pieces equals the whole registry's.
fn check(d: &Data, q: &ListQuery, a: &SearchAnswer) {
    let answer = engine_answer(d, q);
    {
        match a {
            SearchAnswer::Page(p) => {
                let (status, v) = answer;
                assert_eq!(status, 200, "{q:?}: pieces answered, the registry says {v}");
                let ids: Vec<String> = v["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["id"].as_str().unwrap().to_string())
                    .collect();
                let got: Vec<String> = p.hits.iter().map(|h| h.summary.id.clone()).collect();
                assert_eq!(got, ids, "{q:?} ({})", url(q));
                assert_eq!(
                    p.number_of_results as u64,
                    v["number_of_results"].as_u64().unwrap(),
                    "{q:?}"
                );
                assert_eq!(serde_json::to_value(&p.meta).unwrap(), v["meta"], "{q:?}");
                // The scores too, bit for bit: BM25 with the whole registry's statistics.
                let mut filters = match &q.filter {
                    Some(f) => d.engine.parse_filters(f, q.version).unwrap(),
                    None => registry_core::search::Filters {
                        first_location_only: q.version == Version::V1,
                        ..Default::default()
                    },
                };
                filters.all_status = q.all_status;
                let whole = if q.typed {
                    d.engine.search_typed(&q.query, &filters).unwrap()
                } else {
                    d.engine.search(&q.query, &filters).unwrap()
                };
                let from = (q.page - 1) * 20;
                let scores: Vec<u32> = p.hits.iter().map(|h| h.score.to_bits()).collect();
                let expected: Vec<u32> = whole.scores[from.min(whole.scores.len())..]
                    .iter()
                    .take(20)
                    .map(|s| s.to_bits())
                    .collect();
                assert_eq!(scores, expected, "{q:?}: scores");
            }
            SearchAnswer::Invalid(errors) => {
                let (status, v) = answer;
                assert_eq!(status, 400, "{q:?}");
                assert_eq!(serde_json::to_value(errors).unwrap(), v["errors"], "{q:?}");
            }
            SearchAnswer::Whole(_) => {}
            SearchAnswer::Need(_) => unreachable!(),
        }
    }
}

fn engine_answer(d: &Data, q: &ListQuery) -> (u16, Value) {
    let r = d.engine.handle(&url(q));
    (r.status, serde_json::from_str(&r.json).unwrap())
}

/// A tiny budget, which splits the 63 demo records like the real registry.
fn demo_budget() -> PieceBudget {
    PieceBudget {
        raw_bytes: 600,
        head_records: 12,
        ..PieceBudget::default()
    }
}

#[test]
fn demo_pages_equal_the_whole_registry() {
    let (answered, total, _) = compare(demo(), &demo_budget(), 360);
    println!("demo: {answered} of {total} requests (E2 and mode=typed) answered from pieces");
    assert!(total >= 300);
    assert!(
        answered * 2 > total,
        "most requests are answered from pieces"
    );
}

#[test]
fn full_pages_equal_the_whole_registry() {
    let Some(d) = full() else { return };
    let (answered, total, bytes) = compare(d, &PieceBudget::default(), 360);
    let pct = |p: usize| bytes.get(bytes.len() * p / 100).copied().unwrap_or(0);
    println!(
        "full: {answered} of {total} requests answered from pieces; data bytes p50 {} p95 {}",
        pct(50),
        pct(95)
    );
    assert!(
        answered * 2 > total,
        "most requests are answered from pieces"
    );
}

/// The queries of a shared link the benchmarks time (tests/bench/cold-start.mjs)
/// and a few a person types, as the search page asks them: equal to the
/// whole registry's, and answered from pieces. `university of cambridge`'s
/// first page ends in records matching `university` alone, tied on score
/// with thousands no piece holds: the rank chunks order those by prior and
/// id as E2 does, so the first few chunks prove the page.
#[test]
fn shared_link_queries_are_answered_from_pieces() {
    let Some(d) = full() else { return };
    let (f, _) = files(d, &PieceBudget::default());
    let mut answered = Vec::new();
    for text in [
        "university of cambridge",
        "cambridge",
        "harvard university",
        "max planck institute",
        "univ cambridge",
    ] {
        let q = first_page(text, true);
        let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        let mut fetched = 0;
        let a = ask(&mut c, &f, &q, &mut fetched);
        println!(
            "{text}: {fetched} bytes, {:?}",
            match &a {
                SearchAnswer::Page(p) => format!("{} results", p.number_of_results),
                other => format!("{other:?}"),
            }
        );
        check(d, &q, &a);
        answered.push((text, matches!(a, SearchAnswer::Page(_))));
    }
    println!("answered from pieces: {answered:?}");
    for (text, ok) in &answered {
        assert!(*ok, "{text}: not answered from pieces");
    }
}

/// The E2 files of an older build (`tests/compat/<name>/`): its decoded
/// statistics, and its files by name (`None`: not in the fixture, a 404).
fn compat_search_files(name: &str) -> (SearchStats, impl Fn(&str) -> Option<Vec<u8>>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/compat")
        .join(name);
    let read = move |name: &str| std::fs::read(dir.join(name)).ok();
    let stats = read("search.stats").expect("the fixture's statistics");
    let file = shard::read_file(&stats).unwrap();
    let raw = &file
        .sections
        .iter()
        .find(|(k, _)| *k == SectionKind::SearchStats)
        .unwrap()
        .1;
    (SearchStats::decode(raw).unwrap(), read)
}

/// Asks `c` until it answers, loading what it needs from a fixture
/// (`read`); the answer and what it asked for. `LIST_FIXTURE=1` prints the
/// files (what a new fixture must hold).
fn ask_fixture(
    c: &mut SearchClient,
    q: &ListQuery,
    read: &impl Fn(&str) -> Option<Vec<u8>>,
) -> (SearchAnswer, Vec<Need>) {
    let mut asked = Vec::new();
    loop {
        match c.answer(q) {
            SearchAnswer::Need(needs) => {
                for n in needs {
                    let name = n.file_name();
                    let bytes = read(&name);
                    if std::env::var_os("LIST_FIXTURE").is_some() {
                        println!("fixture file {name} {}", bytes.is_some());
                    }
                    match &n {
                        Need::Directory(first) => {
                            let keys: Vec<String> = bytes
                                .map(|b| serde_json::from_slice(&b).unwrap())
                                .unwrap_or_default();
                            c.add_directory(first, keys);
                        }
                        _ => c.add(&n, bytes.as_deref()).unwrap(),
                    }
                    asked.push(n);
                }
            }
            a => return (a, asked),
        }
    }
}

/// The E2 files of a pieces-version-3 build of the demo data
/// (`compat/pieces-3-search/`, from `registry build
/// data/demo/registry-demo.json -o <dir> --release compat-pieces-3
/// --piece-bytes 600 --head 12` before version 4: the statistics without
/// the rank chunks' first records, and the chunks and member files of its
/// two common terms, `de` and `of`) still load and answer as the whole
/// registry, with the plain bound.
#[test]
fn version_3_search_files_still_answer() {
    let (decoded, read) = compat_search_files("pieces-3-search");
    // Version 3: rank chunks in the statistics, no group files.
    assert!(!decoded.groups);
    assert!(
        decoded
            .common
            .iter()
            .all(|c| !c.chunks.is_empty() && c.prefix_df.is_some())
    );
    let d = demo();
    let mut pages = 0;
    for text in ["of", "de", "of de", "de of", "-de of"] {
        for page in 1..=2 {
            let q = ListQuery {
                query: text.to_string(),
                filter: None,
                all_status: false,
                page,
                version: Version::V2,
                typed: false,
            };
            let mut c = SearchClient::new(Directory::sharded(vec!["d".into(), "o".into()]));
            let (a, _) = ask_fixture(&mut c, &q, &read);
            pages += usize::from(matches!(a, SearchAnswer::Page(_)));
            check(d, &q, &a);
        }
    }
    assert!(pages > 0, "the version-3 files answer some pages");
}

/// The E2 files of a pieces-version-4 build of the demo data
/// (`compat/pieces-4-search/`, from `registry build
/// data/demo/registry-demo.json -o <dir> --release compat-pieces-4
/// --piece-bytes 600 --head 12` before version 5: member files without
/// the more common terms each record holds, so a query of three or more
/// common terms reads every one's member file) still load and answer as
/// the whole registry. The fixture holds the files these queries fetch.
#[test]
fn version_4_search_files_still_answer() {
    let (decoded, read) = compat_search_files("pieces-4-search");
    assert!(decoded.groups, "version 4: group files");
    assert!(decoded.common.len() >= 3, "three common terms or more");
    let d = demo();
    let (mut pages, mut three) = (0, 0);
    let firsts: Vec<String> = ["d", "f", "i", "n", "o", "r", "u"]
        .map(String::from)
        .to_vec();
    for text in [
        "university of research",
        "institute for research",
        "de of",
        "-de of university",
        "research institute de",
    ] {
        for (page, filter) in [(1, None), (2, None), (1, Some("types:education"))] {
            let q = ListQuery {
                query: text.to_string(),
                filter: filter.map(str::to_string),
                all_status: false,
                page,
                version: Version::V2,
                typed: false,
            };
            let mut c = SearchClient::new(Directory::sharded(firsts.clone()));
            let (a, asked) = ask_fixture(&mut c, &q, &read);
            let members = asked
                .iter()
                .filter(|n| matches!(n, Need::Members(_)))
                .count();
            let answered = matches!(a, SearchAnswer::Page(_));
            pages += usize::from(answered);
            three += usize::from(answered && members >= 3);
            check(d, &q, &a);
        }
    }
    assert!(pages > 0, "the version-4 files answer some pages");
    assert!(three > 0, "some from three member files");
}

/// The E2 files of a pieces-version-5 build of the demo data
/// (`compat/pieces-5-search/`, from `registry build
/// data/demo/registry-demo.json -o <dir> --release compat-pieces-5
/// --piece-bytes 600 --head 12` before version 6: group files without the
/// common terms' rank chunks by country) still load and answer as the
/// whole registry, a country filter by the terms' own chunks. The fixture
/// holds the files these queries fetch (a file it lacks is a 404, as for
/// the country chunks a version-6 client asks ahead).
#[test]
fn version_5_search_files_still_answer() {
    let (decoded, read) = compat_search_files("pieces-5-search");
    assert!(
        decoded.member_holds,
        "version 5: member files say what else records hold"
    );
    let d = demo();
    let firsts: Vec<String> = ["d", "f", "i", "n", "o", "r", "u"]
        .map(String::from)
        .to_vec();
    let (mut pages, mut by_country) = (0, 0);
    for text in ["university", "university of research", "research institute"] {
        for (page, filter) in [
            (1, None),
            (1, Some("country.country_code:US")),
            (2, Some("country.country_code:US")),
            (1, Some("types:education")),
        ] {
            for typed in [false, true] {
                let q = ListQuery {
                    query: text.to_string(),
                    filter: filter.map(str::to_string),
                    all_status: false,
                    page,
                    version: Version::V2,
                    typed,
                };
                let mut c = SearchClient::new(Directory::sharded(firsts.clone()));
                let (a, _) = ask_fixture(&mut c, &q, &read);
                let answered = matches!(a, SearchAnswer::Page(_));
                pages += usize::from(answered);
                by_country += usize::from(answered && filter.is_some_and(|f| f.contains("US")));
                check(d, &q, &a);
            }
        }
    }
    assert!(
        pages > 0 && by_country > 0,
        "the version-5 files answer pages, filtered by a country too"
    );
}

/// The E2 files of a pieces-version-6 build of the demo data
/// (`compat/pieces-6-search/`, from `registry build
/// data/demo/registry-demo.json -o <dir> --release compat-pieces-6
/// --piece-bytes 600 --head 12` before version 7: group files without the
/// common terms' rank chunks by type) still load and answer as the whole
/// registry: a type filter by the terms' own chunks, a country filter by
/// the countries' (the fixture holds the files these queries fetch; a file
/// it lacks is a 404, as for the type chunks a version-7 client asks
/// ahead).
#[test]
fn version_6_search_files_still_answer() {
    let (decoded, read) = compat_search_files("pieces-6-search");
    assert!(
        decoded.external_buckets > 0,
        "version 6: the statistics count the external id pieces"
    );
    let d = demo();
    let firsts: Vec<String> = ["d", "f", "i", "n", "o", "r", "u"]
        .map(String::from)
        .to_vec();
    let (mut by_type, mut by_country) = (0, 0);
    for text in ["university", "university of research", "research institute"] {
        for (page, filter) in [
            (1, None),
            (2, Some("country.country_code:US")),
            (1, Some("types:education")),
            (2, Some("types:education")),
        ] {
            for typed in [false, true] {
                let q = ListQuery {
                    page,
                    filter: filter.map(str::to_string),
                    ..first_page(text, typed)
                };
                let mut c = SearchClient::new(Directory::sharded(firsts.clone()));
                let (a, asked) = ask_fixture(&mut c, &q, &read);
                let answered = matches!(a, SearchAnswer::Page(_));
                by_type += usize::from(answered && filter.is_some_and(|f| f.contains("types")));
                by_country += usize::from(
                    answered && asked.iter().any(|n| matches!(n, Need::CountryRank(..))),
                );
                check(d, &q, &a);
            }
        }
    }
    assert!(
        by_type > 0 && by_country > 0,
        "the version-6 files answer pages filtered by a type, and by a country from its chunks"
    );
}

/// The E2 files of a pieces-version-7 build of the demo data
/// (`compat/pieces-7-search/`, from `registry build
/// data/demo/registry-demo.json -o <dir> --release compat-pieces-7
/// --piece-bytes 600 --head 12` before version 8: every common term listed
/// in the statistics file, none in statistics parts) still load and answer
/// as the whole registry: several common terms (their triples' chunks), a
/// quoted pair of them, filters by a type and a country, both readings
/// (the fixture holds the files these queries fetch; a file it lacks is a
/// 404, as for the statistics parts a version-8 client asks with the
/// statistics file).
#[test]
fn version_7_search_files_still_answer() {
    let (decoded, read) = compat_search_files("pieces-7-search");
    assert!(
        !decoded.common.is_empty() && decoded.external_buckets > 0,
        "version 7: the statistics list the common terms"
    );
    let d = demo();
    // The build's `split_first` (its manifest).
    let firsts: Vec<String> = "abcdefhiklmnoprstu".chars().map(String::from).collect();
    let mut answered = 0;
    for text in [
        "university",
        "university of research",
        "for institute university of the",
        "\"university of\"",
        "northfield research institute",
    ] {
        for (page, filter) in [
            (1, None),
            (2, Some("country.country_code:US")),
            (1, Some("types:education")),
        ] {
            for typed in [false, true] {
                let q = ListQuery {
                    page,
                    filter: filter.map(str::to_string),
                    ..first_page(text, typed)
                };
                let mut c = SearchClient::new(Directory::sharded(firsts.clone()));
                let (a, _) = ask_fixture(&mut c, &q, &read);
                answered += usize::from(matches!(a, SearchAnswer::Page(_)));
                check(d, &q, &a);
            }
        }
    }
    assert!(
        answered >= 20,
        "the version-7 files answer most pages ({answered} of 30)"
    );
}

/// A query of three or more common terms reads the member files of all
/// but its two most common (each record there says which of those two it
/// holds) and the group files of those two: not the member files of the
/// two largest, which grow with the registry. Answers equal the whole
/// registry's, with required, excluded and filtered variants.
#[test]
fn many_common_terms_skip_the_two_largest_member_files() {
    let (f, sp) = files(demo(), &demo_budget());
    let stats = &sp.stats;
    assert!(stats.member_holds);
    let order = stats.commonness();
    let rank = |t: &str| order.iter().position(|&i| stats.common[i].term == t);
    let mut answered = 0;
    for text in [
        "university of research institute",
        "institute for research of",
        "+university of research",
        "university of research -institute",
        "northfield research institute for de",
    ] {
        let mut common: Vec<&str> = text
            .split(' ')
            .map(|t| t.trim_start_matches(['+', '-']))
            .filter(|t| stats.common(t).is_some())
            .collect();
        common.sort_by_key(|t| rank(t));
        assert!(common.len() >= 3, "{text}: {common:?}");
        for filter in [None, Some("types:education")] {
            for typed in [false, true] {
                let q = ListQuery {
                    filter: filter.map(str::to_string),
                    ..first_page(text, typed)
                };
                let mut c =
                    SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
                let (a, asked) = ask_noting(&mut c, &f, &q);
                check(demo(), &q, &a);
                if let SearchAnswer::Page(_) = a {
                    answered += 1;
                    // (A required rare word needs none: here every word is common.)
                    for t in &common[..2] {
                        assert!(
                            !asked.contains(&Need::Members(t.to_string())),
                            "{q:?}: the member file of {t:?}, one of the two most common"
                        );
                    }
                    for t in &common[2..] {
                        assert!(
                            asked.contains(&Need::Members(t.to_string())),
                            "{q:?}: no member file of {t:?}"
                        );
                    }
                }
            }
        }
    }
    assert!(answered >= 10, "{answered} pages answered");
}

/// A pair of common terms whose records are more than a rank chunk holds
/// has rank chunks of its own (records by their shortest name holding
/// both; `bound.rs` tests what they prove). A client holding them (as one
/// does after a query of both) answers as the whole registry, its bound
/// reading the pairs' frontiers.
#[test]
fn a_pair_of_common_terms_is_ranked_by_its_own_chunks() {
    let (f, sp) = files(demo(), &demo_budget());
    let mut pairs: Vec<(String, String)> =
        sp.pair_chunks.iter().map(|(p, _, _)| p.clone()).collect();
    pairs.dedup();
    assert!(!pairs.is_empty(), "the demo budget gives pairs rank chunks");
    let (mut used, mut answered) = (0, 0);
    for (a, b) in &pairs {
        let others: Vec<&str> = sp
            .stats
            .common
            .iter()
            .map(|c| c.term.as_str())
            .filter(|t| t != a && t != b)
            .collect();
        let mut texts = vec![
            format!("{a} {b}"),
            format!("{b} {a}"),
            format!("{a} {b} kilimani"),
        ];
        texts.extend(others.iter().map(|o| format!("{a} {o} {b}")));
        texts.extend(others.iter().map(|o| format!("{o} {a} {b}")));
        for (text, filter) in texts
            .iter()
            .flat_map(|t| [(t, None), (t, Some("types:education"))])
        {
            for page in 1..=3 {
                for typed in [false, true] {
                    let q = ListQuery {
                        page,
                        filter: filter.map(str::to_string),
                        ..first_page(text, typed)
                    };
                    let mut c =
                        SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
                    // Every pair's group file and chunks, loaded first.
                    let ahead = sp.pair_chunks.iter().flat_map(|((x, y), n, _)| {
                        [
                            Need::Groups(vec![x.clone(), y.clone()]),
                            Need::PairRank(x.clone(), y.clone(), *n),
                        ]
                    });
                    c.add(&Need::Stats, f.files.get(&Need::Stats).map(Vec::as_slice))
                        .unwrap();
                    for n in ahead {
                        c.add(&n, f.files.get(&n).map(Vec::as_slice)).unwrap();
                    }
                    let (a, _) = ask_noting(&mut c, &f, &q);
                    check(demo(), &q, &a);
                    if let SearchAnswer::Page(p) = &a {
                        answered += 1;
                        // A page holding a record only a pair's chunk holds.
                        let held: std::collections::HashSet<String> = sp
                            .pair_chunks
                            .iter()
                            .flat_map(|(_, _, spec)| spec.records.iter())
                            .map(|&r| demo().engine.registry().id(r as usize).to_string())
                            .collect();
                        used += usize::from(p.hits.iter().any(|h| held.contains(&h.summary.id)));
                    }
                }
            }
        }
    }
    println!(
        "{} pairs; {answered} pages answered, {used} showing records of a pair's chunks",
        pairs.len()
    );
    assert!(
        answered > 0 && used > 0,
        "no page from a pair's rank chunks"
    );
}

/// A page filtered by a country is ranked by the common terms' rank
/// chunks over that country's records (version 6): their first chunks
/// hold the country's best records, where the terms' own chunks spread
/// them over every country. Answers equal the whole registry's; pages a
/// client of the terms' own chunks alone leaves to the whole registry
/// are answered (the same client with the country chunks' files missing
/// fails them: the test would fail without the country chunks).
#[test]
fn a_country_filter_is_ranked_by_the_countrys_chunks() {
    let (f, sp) = files(demo(), &tiny_chunks());
    assert!(
        !sp.country_chunks.is_empty(),
        "the demo budget gives countries rank chunks"
    );
    let filters: Vec<String> = values_of(&sp.country_chunks)
        .into_iter()
        .map(|c| format!("country.country_code:{c}"))
        .collect();
    let is_country: fn(&Need) -> bool = |n| matches!(n, Need::CountryRank(..));
    let (used, only_with) = pages_by_filter_chunks(&f, &sp, &filters, is_country);
    assert!(
        used > 0 && only_with > 0,
        "no page from a country's rank chunks"
    );
}

/// Likewise a page filtered by a type (`types:education`), by the common
/// terms' rank chunks over that type's records (version 7), and one
/// filtered by both a type and a country, by whichever of the two
/// frontiers is further.
#[test]
fn a_type_filter_is_ranked_by_the_types_chunks() {
    let (f, sp) = files(demo(), &tiny_chunks());
    assert!(
        !sp.type_chunks.is_empty(),
        "the demo budget gives types rank chunks"
    );
    let types = values_of(&sp.type_chunks);
    let codes = values_of(&sp.country_chunks);
    let mut filters: Vec<String> = types.iter().map(|t| format!("types:{t}")).collect();
    for t in &types {
        for c in codes.iter().take(2) {
            filters.push(format!("types:{t},country.country_code:{c}"));
        }
    }
    let is_type: fn(&Need) -> bool = |n| matches!(n, Need::TypeRank(..));
    let (used, only_with) = pages_by_filter_chunks(&f, &sp, &filters, is_type);
    assert!(
        used > 0 && only_with > 0,
        "no page from a type's rank chunks"
    );
}

/// A query of three or more common terms reads, once no name of one of
/// them alone can outrank its page, the rank chunk of a triple of them
/// held in one name (its three rarest): a name holding all three is at
/// least as long as that chunk's frontier, which the terms' own chunks
/// (names of one first) and a pair's reach only deep in records of fewer.
/// Answers equal the whole registry's with the triples' files and without
/// them (a build before them: 404s); on the full data (when `../shared`
/// has it), names of three or more common words fetch less with them.
#[test]
fn three_common_terms_are_ranked_by_a_triples_chunks() {
    let is_triple: fn(&Need) -> bool = |n| match n {
        Need::SetRank(..) => true,
        Need::Groups(t) => t.len() == 3,
        _ => false,
    };
    // (Rank chunks of a few records: a triple needs half a piece's worth.)
    let (f, sp) = files(demo(), &tiny_chunks());
    let mut triples: Vec<&Vec<String>> = sp.triple_chunks.iter().map(|(t, _, _)| t).collect();
    triples.dedup();
    assert!(!triples.is_empty(), "the demo gives triples rank chunks");
    let mut used = 0;
    for t in triples {
        for text in [t.join(" "), format!("{} of the", t.join(" "))] {
            for (page, filter) in [
                (1, None),
                (2, None),
                (3, None),
                (1, Some("types:education")),
            ] {
                let q = ListQuery {
                    page,
                    filter: filter.map(str::to_string),
                    ..first_page(&text, false)
                };
                // An allowance the demo's chunks pass, as a large
                // registry's do.
                let (a, asked, _) = with_and_without(demo(), &f, is_triple, &q, Some(8));
                used += usize::from(
                    matches!(a, SearchAnswer::Page(_))
                        && asked.iter().any(|n| matches!(n, Need::SetRank(..))),
                );
            }
        }
    }
    assert!(used > 0, "no demo page from a triple's rank chunk");

    let Some(d) = full() else {
        println!("../shared/data is absent: the full-data half of this test did not run");
        return;
    };
    let (f, sp) = files(d, &PieceBudget::default());
    let mut without = f.clone();
    without.files.retain(|n, _| !is_triple(n));
    let reg = d.engine.registry();
    let (mut pages, mut with_bytes, mut without_bytes, mut only_with) = (0, 0, 0, 0);
    for i in (0..reg.len()).step_by(97) {
        let name = reg.display_name(i);
        let common = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| sp.stats.common(&w.to_lowercase()).is_some())
            .count();
        if common < 3 {
            continue;
        }
        let q = ListQuery {
            page: 1 + pages % 3,
            ..first_page(name, false)
        };
        let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        let (mut x, mut y) = (0, 0);
        let a = ask(&mut c, &f, &q, &mut x);
        check(d, &q, &a);
        let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        let b = ask(&mut c, &without, &q, &mut y);
        check(d, &q, &b);
        if let SearchAnswer::Page(_) = a {
            pages += 1;
            with_bytes += x;
            without_bytes += y;
            only_with += usize::from(!matches!(b, SearchAnswer::Page(_)));
        }
    }
    println!(
        "full: {pages} pages of names of three or more common words: {with_bytes} bytes with the triples' files, {without_bytes} without; {only_with} answered only with them"
    );
    assert!(
        pages > 0 && with_bytes < without_bytes,
        "the triples' files cut what such pages fetch"
    );
}

/// Pieces of a record or two: chunks more than a client loads for one
/// term, as a large registry's are.
fn tiny_chunks() -> PieceBudget {
    PieceBudget {
        raw_bytes: 200,
        ..demo_budget()
    }
}

/// The distinct values (country codes, types) of rank chunks by value.
fn values_of(chunks: &[(String, String, u32, PieceSpec)]) -> Vec<&str> {
    let mut values: Vec<&str> = chunks.iter().map(|(_, v, _, _)| v.as_str()).collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// Asks every common term, alone and with a rare word, pages 1–2, both
/// readings, under each of `filters`, with and without the files `chunk`
/// picks; each answer must equal the whole registry's. How many pages
/// were answered with such a file, and how many only with one.
fn pages_by_filter_chunks(
    f: &Files,
    sp: &SearchPieces,
    filters: &[String],
    chunk: fn(&Need) -> bool,
) -> (usize, usize) {
    let (mut answered, mut only_with, mut used) = (0, 0, 0);
    for c in &sp.stats.common {
        for filter in filters {
            for text in [c.term.clone(), format!("{} kilimani", c.term)] {
                for page in 1..=2 {
                    for typed in [false, true] {
                        let q = ListQuery {
                            page,
                            filter: Some(filter.clone()),
                            ..first_page(&text, typed)
                        };
                        // An allowance the demo's chunks pass, as a
                        // large registry's do.
                        let (a, asked, b) = with_and_without(demo(), f, chunk, &q, Some(6));
                        if let SearchAnswer::Page(_) = a {
                            answered += 1;
                            used += usize::from(asked.iter().any(&chunk));
                            only_with += usize::from(!matches!(b, SearchAnswer::Page(_)));
                        }
                    }
                }
            }
        }
    }
    println!("{answered} pages answered, {used} with such chunks, {only_with} only with them");
    (used, only_with)
}

/// A quoted phrase of common words (`"institute of"`, no leaf of either
/// word to hold its matches) is read from the phrase piece of one of its
/// pairs of adjacent words (version 6), which holds every record with a
/// name holding that pair: answers equal the whole registry's, alone, with
/// other words, excluded, filtered. Without the phrase pieces (404s) the
/// same requests go to the whole registry; a required phrase (`+"…"`)
/// still does.
#[test]
fn a_quoted_phrase_of_common_words_is_read_from_a_phrase_piece() {
    // Pieces of a record or two: common words split as prefixes, with no
    // leaf of their own to hold a phrase's matches (as in a large registry).
    let budget = PieceBudget {
        raw_bytes: 250,
        ..demo_budget()
    };
    let (f, sp) = files(demo(), &budget);
    assert!(
        !sp.phrases.is_empty(),
        "the demo budget gives phrase pieces"
    );
    let (mut answered, mut only_with, mut required) = (0, 0, 0);
    for (a, b, _) in &sp.phrases {
        let others: Vec<&str> = sp.stats.common.iter().map(|c| c.term.as_str()).collect();
        let mut texts = vec![
            format!("\"{a} {b}\""),
            format!("\"{a} {b}\" kilimani"),
            format!("{} -\"{a} {b}\"", others[0]),
            format!("+\"{a} {b}\""),
        ];
        texts.extend(others.iter().map(|o| format!("\"{a} {b} {o}\"")));
        for text in &texts {
            for filter in [
                None,
                Some("types:education"),
                Some("country.country_code:US"),
            ] {
                let q = ListQuery {
                    filter: filter.map(str::to_string),
                    ..first_page(text, false)
                };
                let (x, _, y) =
                    with_and_without(demo(), &f, |n| matches!(n, Need::Phrase(..)), &q, None);
                if text.starts_with('+') {
                    required += usize::from(matches!(x, SearchAnswer::Whole(_)));
                } else if let SearchAnswer::Page(_) = x {
                    answered += 1;
                    only_with += usize::from(!matches!(y, SearchAnswer::Page(_)));
                }
            }
        }
    }
    println!(
        "{} phrase pieces; {answered} pages answered, {only_with} only with them; {required} required phrases to the whole registry",
        sp.phrases.len()
    );
    assert!(only_with > 0, "no page from a phrase piece");
    assert!(required > 0);
}

/// A quoted phrase of two common words alone whose records do not fit a
/// phrase piece (`"university of"` in a large registry) is ranked by its
/// phrase rank chunks and counted by its phrase group file (version 7):
/// answers equal the whole registry's — filtered, paged, required, in v1
/// — and some only with those files (the same client without them goes
/// to the whole registry).
#[test]
fn a_quoted_phrase_of_common_words_alone_is_read_from_its_rank_chunks() {
    let (mut answered, mut only_with, mut phrases) = (0, 0, 0);
    // Chunks of one record to a few: pages proven after one chunk, two,
    // or not at all.
    for raw_bytes in [150, 300, 600] {
        let budget = PieceBudget {
            raw_bytes,
            ..demo_budget()
        };
        let (f, sp) = files(demo(), &budget);
        phrases += sp.phrase_groups.len();
        for g in &sp.phrase_groups {
            let (a, b) = (&g.terms[0], &g.terms[1]);
            for text in [format!("\"{a} {b}\""), format!("+\"{a} {b}\"")] {
                for filter in [
                    None,
                    Some("types:education"),
                    Some("country.country_code:US"),
                    Some("status:active,status:inactive"),
                ] {
                    for (page, version) in [(1, Version::V2), (2, Version::V2), (1, Version::V1)] {
                        let q = ListQuery {
                            filter: filter
                                .filter(|_| version == Version::V2)
                                .map(str::to_string),
                            page,
                            version,
                            ..first_page(&text, false)
                        };
                        let drop: fn(&Need) -> bool =
                            |n| matches!(n, Need::PhraseRank(..) | Need::PhraseGroups(..));
                        let (x, _, y) = with_and_without(demo(), &f, drop, &q, None);
                        if let SearchAnswer::Page(_) = x {
                            answered += 1;
                            only_with += usize::from(!matches!(y, SearchAnswer::Page(_)));
                        }
                    }
                }
            }
        }
    }
    println!(
        "{phrases} phrases with rank chunks; {answered} pages answered, {only_with} only with them"
    );
    assert!(phrases > 0, "the demo budgets give phrases rank chunks");
    assert!(only_with > 0, "no page from a phrase's rank chunks");
}

/// A quoted single common word (`"institute"`) is matched and scored by
/// E2 as the bare word, and read from the pieces as one: answered whenever
/// the bare word is, equal to the whole registry's answer.
#[test]
fn a_quoted_single_word_is_read_as_the_word() {
    let d = demo();
    let (f, sp) = files(d, &demo_budget());
    let (mut both, mut pages) = (0, 0);
    for c in &sp.stats.common {
        for filter in [
            None,
            Some("types:education"),
            Some("country.country_code:US"),
        ] {
            for page in 1..=2 {
                let ask = |text: String| {
                    let q = ListQuery {
                        filter: filter.map(str::to_string),
                        page,
                        ..first_page(&text, false)
                    };
                    let mut client = SearchClient::new(Directory::sharded(f.firsts.clone()));
                    let (a, _) = ask_noting(&mut client, &f, &q);
                    check(d, &q, &a);
                    matches!(a, SearchAnswer::Page(_))
                };
                let bare = ask(c.term.clone());
                let quoted = ask(format!("\"{}\"", c.term));
                assert_eq!(bare, quoted, "{:?} and its quoted form", c.term);
                pages += 1;
                both += usize::from(quoted);
            }
        }
    }
    println!("{both} of {pages} pages answered, quoted and bare");
    assert!(both > 0);
}

/// A query with a digit may be an external id (GRID, ISNI, FundRef,
/// Wikidata), which only whole records hold: it reads the external id
/// pieces of every text E2 looks up (version 6), and answers as the whole
/// registry — the id as stored, in another spelling, with other words,
/// required, filtered. Without those pieces (404s) it goes to the whole
/// registry; so does the search page's reading and an excluded id.
#[test]
fn a_query_with_a_digit_reads_the_external_id_pieces() {
    let d = demo();
    let (f, sp) = files(d, &demo_budget());
    assert!(sp.stats.external_buckets > 0 && !sp.externals.is_empty());
    let reg = d.engine.registry();
    let mut texts: Vec<String> = Vec::new();
    for r in (0..reg.len()).step_by(5) {
        let word = reg
            .display_name(r)
            .split(' ')
            .next()
            .unwrap_or("x")
            .to_string();
        let _ = reg.for_each_external_id(r, |id| {
            texts.push(enc_query(id));
            texts.push(enc_query(&id.replace(' ', "")));
            texts.push(format!("{} {word}", enc_query(id)));
            texts.push(format!("+{}", enc_query(id)));
        });
    }
    texts.extend(["university 1", "research 2020 institute"].map(String::from));
    assert!(texts.len() > 20, "the demo has external ids");
    let (mut answered, mut only_with, mut whole) = (0, 0, 0);
    for text in &texts {
        for (filter, typed) in [
            (None, false),
            (Some("types:education"), false),
            (None, true),
        ] {
            let q = ListQuery {
                filter: filter.map(str::to_string),
                ..first_page(text, typed)
            };
            let (x, _, y) = with_and_without(d, &f, |n| matches!(n, Need::External(_)), &q, None);
            match x {
                SearchAnswer::Page(p) if !typed => {
                    answered += usize::from(!p.hits.is_empty());
                    only_with += usize::from(!matches!(y, SearchAnswer::Page(_)));
                }
                SearchAnswer::Whole(_) if typed => whole += 1,
                _ => {}
            }
        }
    }
    let q = first_page(&format!("research -{}", texts[0]), false);
    let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
    let (x, _) = ask_noting(&mut c, &f, &q);
    assert!(matches!(x, SearchAnswer::Whole(_)), "an excluded id: {q:?}");
    println!(
        "{answered} pages with hits answered, {only_with} only with external id pieces; {whole} typed to the whole registry"
    );
    assert!(only_with > 0 && whole > 0);
}

/// Escapes E2's special characters in an external id (`grid.1.2`, `Q42`).
fn enc_query(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars() {
        if "+-&|!(){}[]^\"~*?:\\/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The search page's reading of one common word (`University` + Enter)
/// lists the typeahead's matches first, in its order: when the word is a
/// split prefix, its typeahead head holds the first of them (the order is
/// record-local, so the head's first matches under any filter are the
/// whole registry's), and a page within them is answered from it. Answers
/// equal the whole registry's; a page past the head goes to it.
#[test]
fn one_common_word_typed_reads_its_typeahead_head() {
    // (The demo's common words are split prefixes under a budget of a
    // record or two.)
    let small = PieceBudget {
        raw_bytes: 250,
        ..demo_budget()
    };
    for (d, budget, step) in [(demo(), small, 1)]
        .into_iter()
        .chain(full().map(|d| (d, PieceBudget::default(), 7)))
    {
        let (f, sp) = files(d, &budget);
        let (mut answered, mut from_head, mut past) = (0, 0, 0);
        for c in sp.stats.common.iter().step_by(step) {
            for (page, filter) in [
                (1, None),
                (2, None),
                (3, None),
                (1, Some("types:education")),
                (1, Some("country.country_code:US")),
            ] {
                for text in [c.term.clone(), c.term.to_uppercase()] {
                    let q = ListQuery {
                        page,
                        filter: filter.map(str::to_string),
                        ..first_page(&text, true)
                    };
                    let mut client =
                        SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
                    let (a, asked) = ask_noting(&mut client, &f, &q);
                    check(d, &q, &a);
                    let head = asked.iter().any(|n| matches!(n, Need::Head(_)));
                    match a {
                        SearchAnswer::Page(_) => {
                            answered += 1;
                            from_head += usize::from(head);
                        }
                        SearchAnswer::Whole(_) => past += usize::from(head),
                        _ => {}
                    }
                }
            }
        }
        println!(
            "{} common terms: {answered} pages answered, {from_head} from a head; {past} past the head",
            sp.stats.common.len()
        );
        assert!(from_head > 0, "no page from a head");
    }
}

/// The search page's reading of one common word filtered by a country or
/// a type whose records of the word fit one rank chunk (`University` +
/// Enter, then a click on Kenya): that chunk holds every match the filter
/// lets through, so pages past the word's typeahead head are answered from
/// it, equal to the whole registry's; without the facet values' chunks
/// (404s) the same pages go to the whole registry.
#[test]
fn one_common_word_typed_and_filtered_reads_its_facet_chunk() {
    // Heads of a few records: filtered pages pass them, as a large
    // registry's pass its heads of 40.
    let small = PieceBudget {
        raw_bytes: 250,
        head_records: 3,
        ..demo_budget()
    };
    for (d, budget, step) in [(demo(), small, 1)]
        .into_iter()
        .chain(full().map(|d| (d, PieceBudget::default(), 9)))
    {
        let (f, sp) = files(d, &budget);
        let reg = d.engine.registry();
        let mut codes: Vec<String> = (0..reg.len())
            .step_by(reg.len() / 60 + 1)
            .filter_map(|r| reg.summary(r).country_code)
            .collect();
        codes.sort();
        codes.dedup();
        let mut filters: Vec<String> = codes
            .iter()
            .take(12)
            .map(|c| format!("country.country_code:{c}"))
            .collect();
        filters.extend(["types:education", "types:facility", "types:funder"].map(String::from));
        let (mut answered, mut only_with) = (0, 0);
        for c in sp.stats.common.iter().step_by(step) {
            for filter in &filters {
                for page in 1..=3 {
                    let q = ListQuery {
                        page,
                        filter: Some(filter.clone()),
                        ..first_page(&c.term, true)
                    };
                    let facet: fn(&Need) -> bool =
                        |n| matches!(n, Need::CountryRank(..) | Need::TypeRank(..));
                    let (a, _, b) = with_and_without(d, &f, facet, &q, None);
                    if let SearchAnswer::Page(_) = a {
                        answered += 1;
                        only_with += usize::from(!matches!(b, SearchAnswer::Page(_)));
                    }
                }
            }
        }
        println!("{answered} filtered pages answered, {only_with} only with a facet value's chunk");
        assert!(only_with > 0, "no filtered page from a facet value's chunk");
    }
}

/// A query with common words asks for the rarest one's first rank chunk
/// in the round that asks for their group files (a round trip less on a
/// link), and only when records holding the common words alone can match.
#[test]
fn first_rank_chunk_comes_with_the_group_files() {
    let (f, sp) = files(demo(), &demo_budget());
    let common: Vec<&str> = sp.stats.common.iter().map(|c| c.term.as_str()).collect();
    assert!(
        common.contains(&"of") && common.contains(&"de"),
        "{common:?}"
    );
    let rounds = |text: &str| {
        let q = first_page(text, false);
        let mut c = SearchClient::new(Directory::sharded(f.firsts.clone())).with_id_pieces();
        let mut asked = Vec::new();
        for _ in 0..40 {
            match c.answer(&q) {
                SearchAnswer::Need(needs) => {
                    for n in &needs {
                        match n {
                            Need::Directory(first) => c.add_directory(
                                first,
                                f.parts.get(first).cloned().unwrap_or_default(),
                            ),
                            _ => c.add(n, f.files.get(n).map(Vec::as_slice)).unwrap(),
                        }
                    }
                    asked.push(needs);
                }
                a => {
                    check(demo(), &q, &a);
                    return asked;
                }
            }
        }
        panic!("{text}: still asking after 16 rounds");
    };
    let text = "universidad de kilimani of";
    let rarest = text
        .split(' ')
        .filter_map(|t| sp.stats.common(t))
        .min_by_key(|c| (c.df, c.term.as_str()))
        .map(|c| c.term.as_str())
        .unwrap();
    let asked = rounds(text);
    // Version 8: the statistics parts of the words' first characters come
    // with the statistics file (the common terms are not in it), so
    // knowing which words are common costs no round.
    let first_round: Vec<Need> = [Need::Stats]
        .into_iter()
        .chain(["d", "k", "o", "u"].map(|f| Need::StatsPart(f.to_string())))
        .collect();
    assert_eq!(asked[0], first_round);
    assert!(
        asked[1..]
            .iter()
            .flatten()
            .all(|n| !matches!(n, Need::Stats | Need::StatsPart(_))),
        "{asked:?}"
    );
    assert!(
        f.files.contains_key(&Need::StatsPart("o".into()))
            && !f.files.contains_key(&Need::StatsPart("k".into())),
        "a part for each first character of a common term, none for others"
    );
    let with_groups = asked
        .iter()
        .find(|r| r.iter().any(|n| matches!(n, Need::Groups(_))))
        .expect("a round asks for the group files");
    assert!(
        with_groups.contains(&Need::Rank(rarest.to_string(), 0)),
        "{with_groups:?}"
    );
    // A required rare word: no record of the common words alone matches.
    assert!(sp.stats.common("kilimani").is_none());
    let asked = rounds("+kilimani of");
    assert!(
        !asked.iter().flatten().any(|n| matches!(n, Need::Rank(..))),
        "{asked:?}"
    );
}

/// A term no longer term extends whose records pass the budget (`technology`
/// and `sciences` in the real registry) stays one typeahead leaf, which grows
/// with the registry. E2 reads it as a common term instead: its first
/// pages come from its rank chunks, not its whole leaf, and answer as the
/// whole registry; the leaf serves only when the chunks do not.
#[test]
fn a_term_too_common_to_split_is_read_by_its_rank_chunks() {
    let budget = demo_budget();
    let d = demo();
    let specs = pieces::partition(&d.engine, &budget);
    let (f, sp) = files(d, &budget);
    let oversized: Vec<&str> = specs
        .iter()
        .filter(|s| s.kind == PieceKind::Leaf && sp.stats.common(&s.key).is_some())
        .map(|s| s.key.as_str())
        .collect();
    assert!(
        !oversized.is_empty(),
        "the demo data at this budget has a leaf too common to split, read as a common term"
    );
    let (mut from_chunks, mut from_leaf) = (0, 0);
    for term in &oversized {
        let texts = [
            term.to_string(),
            format!("{term} of"),
            format!("{term} for research institute"),
        ];
        let filters = [None, Some("types:education".to_string())];
        let mut requests = Vec::new();
        for page in 1..=3 {
            for text in &texts {
                for filter in &filters {
                    requests.push((page, text.clone(), filter.clone()));
                }
            }
        }
        for (page, text, filter) in requests {
            let q = ListQuery {
                query: text,
                filter,
                all_status: false,
                page,
                version: Version::V2,
                typed: false,
            };
            // An allowance the demo's chunks pass, as a large registry's do.
            let mut c = SearchClient::new(Directory::sharded(f.firsts.clone()))
                .with_id_pieces()
                .with_rank_chunk_allowance(3);
            let mut fetched = 0;
            let a = ask(&mut c, &f, &q, &mut fetched);
            check(d, &q, &a);
            if !matches!(a, SearchAnswer::Page(_)) {
                continue;
            }
            if c.has(&Need::Leaf(term.to_string())) {
                from_leaf += 1;
            } else {
                from_chunks += 1;
            }
        }
    }
    println!(
        "leaves read as common terms: {oversized:?}; pages from rank chunks {from_chunks}, from the leaf once the chunks did not serve {from_leaf}"
    );
    assert!(
        from_chunks > 0,
        "some page comes from rank chunks, not the leaf"
    );
    assert!(from_leaf > 0, "the leaf answers where the chunks do not");
}
