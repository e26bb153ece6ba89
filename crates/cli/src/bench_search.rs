//! `registry bench-search <data>`: relevance and latency of `suggest` and
//! E2 over a query set derived deterministically from the data. Prints
//! figures; asserts nothing.
//!
//! Query set (targets = every `step`-th record, so the set is the same on
//! every run):
//!
//! * **prefix**: the display name typed keystroke by keystroke;
//! * **words-first**: the display name with its rarest word moved to the
//!   front, typed keystroke by keystroke (what a user who knows the
//!   distinctive word types — order-insensitive matching allows it);
//! * **acronym**: each record's first acronym (2+ characters), typed fully;
//! * **accent-stripped**: display names with non-ASCII Latin letters,
//!   folded to ASCII (`Universite de Montreal`);
//! * **non-Latin**: the first name in a non-Latin script (CJK, Cyrillic,
//!   Arabic, Greek, Hebrew, Devanagari, Thai, Hangul…).
//!
//! **Realistic targets** (`--eval`, default the affiliation dev set): the
//! gold record of every n-th row, so popular records come as often as they
//! are written, typed as the display name and rarest word first; printed
//! with the record prior and without it (every record neutral, the ranking
//! before the prior), next to the uniform set's keystrokes both ways;
//! `--oracle` adds priors taken from the picks themselves, the bound a
//! content-based prior could reach.
//!
//! A target "succeeds at k" when its record is among the first k results.
//! The "oracle bound" line is what any ranking could reach on the prefix
//! family (records sharing the typed characters compete for k slots).
//! `BENCH_DEBUG=1` lists the targets missed at the 10th keystroke on stderr.

use std::path::{Path, PathBuf};
use std::time::Instant;

use registry_core::router::encode_component;
use registry_core::search::{Engine, Filters, query};
use registry_core::text;

use crate::alloc;
use crate::load;
use crate::name_forms::{accent_stripped, is_non_latin, rarest_first};
use crate::stats::percentile;

thread_local! {
    static SLOWEST: std::cell::RefCell<Vec<(f64, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn rank_of(engine: &Engine, q: &str, target: usize, k: usize, lat: &mut Vec<f64>) -> Option<usize> {
    let t = Instant::now();
    let hits = engine.suggest(q, &Filters::default(), k);
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    lat.push(ms);
    SLOWEST.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < 5 || ms > s[s.len() - 1].0 {
            s.push((ms, q.to_string()));
            s.sort_by(|a, b| b.0.total_cmp(&a.0));
            s.truncate(5);
        }
    });
    hits.iter().position(|h| h.index == target)
}

/// Keystroke-by-keystroke statistics of one query family.
#[derive(Default)]
struct Typing {
    targets: usize,
    at1: Vec<usize>, // per keystroke n (index n-1): targets at rank 1
    at5: Vec<usize>,
    by6_at5: usize,
    keys_to_top1: Vec<usize>,
    keys_to_top5: Vec<usize>,
    full_at1: usize,
    full_at5: usize,
}

impl Typing {
    fn run(&mut self, engine: &Engine, text: &str, target: usize, lat: &mut Vec<f64>) {
        self.targets += 1;
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut top1_at = None;
        let mut top5_at = None;
        let mut by6 = false;
        let mut last = None;
        for n in 1..=chars.len() {
            let end = chars.get(n).map_or(text.len(), |c| c.0);
            let q = &text[..end];
            let r = rank_of(engine, q, target, 5, lat);
            if self.at1.len() < n {
                self.at1.resize(n, 0);
                self.at5.resize(n, 0);
            }
            if r == Some(0) {
                self.at1[n - 1] += 1;
                top1_at.get_or_insert(n);
            }
            if n == 10 && r.is_none() && std::env::var_os("BENCH_DEBUG").is_some() {
                let got: Vec<String> = engine
                    .suggest(q, &Filters::default(), 5)
                    .into_iter()
                    .map(|h| format!("{} [{}]", h.summary.name, h.reason))
                    .collect();
                eprintln!(
                    "miss @10 {q:?} for {:?}: {got:?}",
                    engine.registry().display_name(target)
                );
            }
            if r.is_some() {
                top5_at.get_or_insert(n);
                self.at5[n - 1] += 1;
                if n <= 6 {
                    by6 = true;
                }
            }
            last = r;
            if n == chars.len() {
                self.full_at1 += usize::from(r == Some(0));
                self.full_at5 += usize::from(r.is_some());
            }
        }
        // Past the end of a short text the user has typed it all.
        for m in chars.len() + 1..=12 {
            if self.at1.len() < m {
                self.at1.resize(m, 0);
                self.at5.resize(m, 0);
            }
            self.at1[m - 1] += usize::from(last == Some(0));
            self.at5[m - 1] += usize::from(last.is_some());
            by6 |= m <= 6 && last.is_some();
        }
        self.by6_at5 += usize::from(by6);
        if let Some(n) = top1_at {
            self.keys_to_top1.push(n);
        }
        if let Some(n) = top5_at {
            self.keys_to_top5.push(n);
        }
    }

    fn print(&self, name: &str) {
        let t = self.targets.max(1) as f64;
        let at = |v: &Vec<usize>, n: usize| v.get(n - 1).copied().unwrap_or(0) as f64 / t;
        println!(
            "  {name:<16} targets {:>5}  success@1/@5 at keystroke 3: {:.3}/{:.3}  6: {:.3}/{:.3}  10: {:.3}/{:.3}  full text: {:.3}/{:.3}",
            self.targets,
            at(&self.at1, 3),
            at(&self.at5, 3),
            at(&self.at1, 6),
            at(&self.at5, 6),
            at(&self.at1, 10),
            at(&self.at5, 10),
            self.full_at1 as f64 / t,
            self.full_at5 as f64 / t
        );
        println!(
            "  {:<16} success@5 by the 6th keystroke {:.3}; mean keystrokes to top-1 {:.2} (top-1 reached for {:.3}), to top-5 {:.2} (reached for {:.3})",
            "",
            self.by6_at5 as f64 / t,
            self.mean_keys(1),
            self.keys_to_top1.len() as f64 / t,
            self.mean_keys(5),
            self.keys_to_top5.len() as f64 / t,
        );
    }

    /// Mean keystrokes until the target is first in the top `k` (1 or 5),
    /// over the targets that get there.
    fn mean_keys(&self, k: usize) -> f64 {
        let v = if k == 1 {
            &self.keys_to_top1
        } else {
            &self.keys_to_top5
        };
        v.iter().sum::<usize>() as f64 / v.len().max(1) as f64
    }

    /// Share of targets in the top 5 after `n` keystrokes.
    fn at5_after(&self, n: usize) -> f64 {
        self.at5.get(n - 1).copied().unwrap_or(0) as f64 / self.targets.max(1) as f64
    }
}

/// Realistic targets: the gold record of every `step`-th row of the
/// affiliation set (popular records as often as they are written), typed
/// as the display name and rarest word first.
fn realistic(engine: &Engine, targets: &[usize], label: &str) -> (Typing, Typing) {
    let mut lat = Vec::new();
    let (mut prefix, mut words_first) = (Typing::default(), Typing::default());
    for &i in targets {
        let name = engine.registry().display_name(i).to_string();
        prefix.run(engine, &name, i, &mut lat);
        words_first.run(engine, &rarest_first(engine, &name), i, &mut lat);
    }
    for (fam, t) in [("display name", &prefix), ("rarest word 1st", &words_first)] {
        println!(
            "  {label:<9} {fam:<16} targets {:>5}  mean keystrokes to top-1 {:.2} (reached {:.3})  to top-5 {:.2} (reached {:.3})  success@5 after 3 keystrokes {:.3}",
            t.targets,
            t.mean_keys(1),
            t.keys_to_top1.len() as f64 / t.targets.max(1) as f64,
            t.mean_keys(5),
            t.keys_to_top5.len() as f64 / t.targets.max(1) as f64,
            t.at5_after(3)
        );
    }
    (prefix, words_first)
}

/// The gold records of every `step`-th row with one gold id in the data.
fn realistic_targets(
    engine: &Engine,
    eval: &Path,
    want: usize,
) -> Result<Option<Vec<usize>>, String> {
    if !eval.exists() {
        return Ok(None);
    }
    let rows = crate::picks::gold_per_row(eval)?;
    let step = (rows.len() / want.max(1)).max(1);
    Ok(Some(
        rows.iter()
            .step_by(step)
            .filter_map(|id| {
                let id = registry_core::RecordId::parse(id).ok()?;
                engine.registry().index_of(id)
            })
            .collect(),
    ))
}

/// Milliseconds of each request through the router, the number of answers
/// other than 200, and the five slowest requests.
fn time_requests(engine: &Engine, paths: &[String]) -> (Vec<f64>, usize, Vec<(f64, String)>) {
    let mut lat = Vec::with_capacity(paths.len());
    let mut bad = 0;
    for p in paths {
        let t = Instant::now();
        let r = engine.handle(p);
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
        bad += usize::from(r.status != 200);
    }
    let mut slowest: Vec<(f64, String)> = lat.iter().copied().zip(paths.iter().cloned()).collect();
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    slowest.truncate(5);
    (lat, bad, slowest)
}

/// "p50 … ms  p99 … ms  max … ms" of `lat` (sorted in place).
fn summary(lat: &mut [f64]) -> String {
    let (p50, p99) = (percentile(lat, 0.5), percentile(lat, 0.99));
    format!(
        "p50 {p50:.3} ms  p99 {p99:.3} ms  max {:.3} ms",
        lat.last().copied().unwrap_or(0.0)
    )
}

/// Search relevance and latency over a query set from the data.
///
/// Relevance: suggest success@k, keystrokes to top-1; E2 recall@k. Latency:
/// p50/p99 of suggest and E2. Also the index's build time and heap.
#[derive(clap::Args)]
pub struct BenchSearchArgs {
    /// Registry data: a .shard file, a build directory, a site folder, a
    /// manifest.json or a dump (built in memory first)
    #[arg(value_name = "data")]
    data: PathBuf,
    /// Number of target records
    #[arg(long, value_name = "n", default_value_t = 1000)]
    targets: usize,
    /// Latency only (faster)
    #[arg(long)]
    latency: bool,
    /// Relevance only
    #[arg(long)]
    relevance: bool,
    /// Extra index builds timed
    #[arg(long, value_name = "n", default_value_t = 5)]
    builds: usize,
    /// Affiliation rows whose gold records are the realistic targets
    #[arg(long, value_name = "jsonl", default_value = crate::picks::DEFAULT_EVAL)]
    eval: PathBuf,
    /// Only the realistic and uniform keystroke figures, with and without
    /// the record prior
    #[arg(long)]
    realistic: bool,
    /// Also rank with priors taken from the picks themselves (the bound any
    /// content-based prior could reach)
    #[arg(long)]
    oracle: bool,
    /// Only the search page against the typeahead: the share of the query
    /// set typed in full whose first result (plain E2; mode=typed) is the
    /// typeahead's first suggestion
    #[arg(long)]
    page: bool,
}

pub fn cmd_bench_search(a: BenchSearchArgs) -> Result<(), String> {
    let (builds, want_targets) = (a.builds, a.targets);
    let (only_lat, only_rel) = (a.latency, a.relevance);
    let eval = a.eval.as_path();
    let registry = load::load(&a.data, true)?;
    let n = registry.len();
    let before = alloc::current();
    alloc::reset_peak();
    let t = Instant::now();
    let engine = Engine::new(registry);
    let build_ms = t.elapsed().as_secs_f64() * 1000.0;
    let held = alloc::current() - before;
    let peak = alloc::peak() - before;
    let ix = engine.index();
    // Repeat the build to see through machine noise.
    let mut times: Vec<f64> = (0..builds.max(1))
        .map(|_| {
            let t = Instant::now();
            let again = registry_core::index::Index::build(engine.registry());
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            std::hint::black_box(&again);
            ms
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let before = alloc::current();
    let t = Instant::now();
    ix.warm(engine.registry());
    let ext_ms = t.elapsed().as_secs_f64() * 1000.0;
    let ext_held = alloc::current() - before;
    println!(
        "data: {}, {n} records, {} names",
        a.data.display(),
        ix.entries()
    );
    println!(
        "index (names, filters, facets): built in {build_ms:.1} ms ({builds} more builds: min {:.1}, median {:.1} ms); heap {:.1} MB held, {:.1} MB peak during build; {} names, {} terms",
        times[0],
        times[times.len() / 2],
        held as f64 / 1e6,
        peak as f64 / 1e6,
        ix.entries(),
        ix.term_count(),
    );
    println!(
        "external-id maps (lazy, first id-like query or warm()): built in {ext_ms:.1} ms; heap {:.1} MB; {} ids",
        ext_held as f64 / 1e6,
        ix.external(engine.registry()).len()
    );
    let reg = engine.registry();
    let step = (n / want_targets.max(1)).max(1);
    let targets: Vec<usize> = (0..n).step_by(step).collect();
    let realistic_t = realistic_targets(&engine, eval, want_targets)?;
    let page_queries = || {
        if realistic_t.is_none() {
            println!(
                "\n(realistic targets skipped: {} not found)",
                eval.display()
            );
        }
        crate::bench_page::queries(&engine, &targets, realistic_t.as_deref().unwrap_or(&[]))
    };
    if a.page {
        crate::bench_page::print(&engine, &page_queries());
        return Ok(());
    }

    if !only_lat {
        // What the record prior changes: the same data at the neutral prior
        // (ranking as before the prior existed).
        let baseline = Engine::new(load::load(&a.data, true)?.without_prior());
        println!(
            "\nrealistic targets (gold record of every n-th row of {}), k = 5:",
            eval.display()
        );
        match &realistic_t {
            None => println!("  skipped: {} not found", eval.display()),
            Some(t) => {
                realistic(&engine, t, "prior");
                realistic(&baseline, t, "no prior");
                if a.oracle {
                    // Priors from the picks themselves: what a perfect
                    // content model could reach (not shippable).
                    let rows = crate::picks::gold_per_row(eval)?;
                    let mut counts = vec![0usize; n];
                    for id in &rows {
                        if let Some(i) = registry_core::RecordId::parse(id)
                            .ok()
                            .and_then(|id| engine.registry().index_of(id))
                        {
                            counts[i] += 1;
                        }
                    }
                    let priors = counts
                        .iter()
                        .map(|&c| registry_core::prior::quantize(((c as f32) / 0.01).ln_1p()))
                        .collect();
                    let oracle = Engine::new(load::load(&a.data, true)?.with_priors(priors));
                    realistic(&oracle, t, "oracle");
                }
            }
        }
        let mut lat = Vec::new();
        let (mut with, mut without) = (Typing::default(), Typing::default());
        for &i in &targets {
            let name = reg.display_name(i);
            with.run(&engine, name, i, &mut lat);
            without.run(&baseline, name, i, &mut lat);
        }
        println!(
            "  uniform targets ({}, every {step}th record), display name: mean keystrokes to top-1 {:.2} (reached {:.3}) with the prior, {:.2} (reached {:.3}) without ({:+.1} %); to top-5 {:.2} / {:.2}",
            targets.len(),
            with.mean_keys(1),
            with.keys_to_top1.len() as f64 / with.targets.max(1) as f64,
            without.mean_keys(1),
            without.keys_to_top1.len() as f64 / without.targets.max(1) as f64,
            (with.mean_keys(1) / without.mean_keys(1) - 1.0) * 100.0,
            with.mean_keys(5),
            without.mean_keys(5),
        );
        if a.realistic {
            return Ok(());
        }
    }
    let mut suggest_lat: Vec<f64> = Vec::new();
    let all = Filters {
        all_status: true,
        ..Filters::default()
    };
    let mut e2_queries: Vec<String> = Vec::new();
    if !only_lat {
        println!(
            "\nsuggest (k = 5), {} targets (every {step}th record):",
            targets.len()
        );
        let mut prefix = Typing::default();
        let mut words_first = Typing::default();
        let mut accent = Typing::default();
        let mut non_latin = Typing::default();
        let (mut acr_n, mut acr1, mut acr5) = (0, 0, 0);
        let (mut e2_n, mut e2_1, mut e2_5) = (0, 0, 0);
        let mut e2_fam: Vec<(&str, usize, usize, usize)> = Vec::new();
        let e2_rank = |q: &str, target: usize| -> Option<usize> {
            let hits = engine.search(&query::escape(q), &all).ok()?;
            hits.records
                .iter()
                .take(5)
                .position(|&r| r as usize == target)
        };
        let (mut ea_n, mut ea1, mut ea5) = (0, 0, 0);
        let (mut en_n, mut en1, mut en5) = (0, 0, 0);
        let (mut eacr_n, mut eacr1, mut eacr5) = (0, 0, 0);
        for &i in &targets {
            let name = reg.display_name(i).to_string();
            prefix.run(&engine, &name, i, &mut suggest_lat);
            words_first.run(&engine, &rarest_first(&engine, &name), i, &mut suggest_lat);
            let r = e2_rank(&name, i);
            e2_n += 1;
            e2_1 += usize::from(r == Some(0));
            e2_5 += usize::from(r.is_some());
            e2_queries.push(name.clone());
            if let Some(acr) = reg
                .names(i)
                .find(|x| x.is_acronym() && x.value.chars().count() >= 2)
            {
                let acr = acr.value.to_string();
                let r = rank_of(&engine, &acr, i, 5, &mut suggest_lat);
                acr_n += 1;
                acr1 += usize::from(r == Some(0));
                acr5 += usize::from(r.is_some());
                let r = e2_rank(&acr, i);
                eacr_n += 1;
                eacr1 += usize::from(r == Some(0));
                eacr5 += usize::from(r.is_some());
            }
            if !name.is_ascii() && !is_non_latin(&name) {
                let stripped = accent_stripped(&name);
                accent.run(&engine, &stripped, i, &mut suggest_lat);
                let r = e2_rank(&stripped, i);
                ea_n += 1;
                ea1 += usize::from(r == Some(0));
                ea5 += usize::from(r.is_some());
            }
            if let Some(nl) = reg.names(i).find(|x| is_non_latin(x.value)) {
                let nl = nl.value.to_string();
                non_latin.run(&engine, &nl, i, &mut suggest_lat);
                let r = e2_rank(&nl, i);
                en_n += 1;
                en1 += usize::from(r == Some(0));
                en5 += usize::from(r.is_some());
            }
        }
        prefix.print("prefix");
        // What any ranking could reach: records sharing the first n folded
        // characters of their display name compete for the same k slots.
        let folded: Vec<Vec<char>> = (0..n)
            .map(|i| text::fold(reg.display_name(i)).chars().collect())
            .collect();
        let mut bounds = Vec::new();
        for keys in [3usize, 6, 10] {
            let mut groups: std::collections::HashMap<String, usize> = Default::default();
            for f in &folded {
                *groups.entry(f.iter().take(keys).collect()).or_default() += 1;
            }
            let at5: usize = groups.values().map(|&g| g.min(5)).sum();
            bounds.push(format!(
                "{keys}: {:.3}/{:.3}",
                groups.len() as f64 / n as f64,
                at5 as f64 / n as f64
            ));
        }
        println!(
            "  {:<16} oracle bound (best possible ranking; all {n} records) success@1/@5 at keystroke {}",
            "",
            bounds.join("  ")
        );
        words_first.print("words-first");
        accent.print("accent-stripped");
        non_latin.print("non-Latin");
        let f = |a: usize, b: usize| a as f64 / b.max(1) as f64;
        println!(
            "  {:<16} targets {acr_n:>5}  success@1 {:.3}  success@5 {:.3} (acronym typed fully; acronyms are shared, so @1 is bounded)",
            "acronym",
            f(acr1, acr_n),
            f(acr5, acr_n)
        );
        e2_fam.push(("full display name", e2_n, e2_1, e2_5));
        e2_fam.push(("acronym", eacr_n, eacr1, eacr5));
        e2_fam.push(("accent-stripped", ea_n, ea1, ea5));
        e2_fam.push(("non-Latin name", en_n, en1, en5));
        println!("\nE2 query (escaped, all_status), recall@1 / recall@5:");
        for (name, n, r1, r5) in e2_fam {
            println!(
                "  {name:<18} queries {n:>5}  recall@1 {:.3}  recall@5 {:.3}",
                f(r1, n),
                f(r5, n)
            );
        }
        crate::bench_page::print(&engine, &page_queries());
    } else {
        for &i in &targets {
            let name = reg.display_name(i).to_string();
            let mut p = Typing::default();
            p.run(&engine, &name, i, &mut suggest_lat);
            e2_queries.push(name);
        }
    }
    if !only_rel {
        // E2 latency through the router (parsing, search, facets, 20 records, JSON).
        let mut paths: Vec<String> = Vec::new();
        for (k, q) in e2_queries.iter().enumerate() {
            let esc = encode_component(&query::escape(q));
            paths.push(format!("/v2/organizations?query={esc}"));
            if let Some(first) = q.split_whitespace().next() {
                paths.push(format!(
                    "/v2/organizations?query={}&all_status",
                    encode_component(&query::escape(first))
                ));
            }
            if k % 10 == 0 {
                paths.push(format!(
                    "/v1/organizations?query={esc}&filter=types:education,status:active"
                ));
            }
        }
        for broad in [
            "university",
            "institute",
            "hospital",
            "national",
            "research",
            "of",
            "a",
        ] {
            paths.push(format!("/v2/organizations?query={broad}"));
        }
        paths.push("/v2/organizations".to_string());
        paths.push("/v2/organizations?filter=types:education&page=3".to_string());
        let (mut e, bad, _) = time_requests(&engine, &paths);
        // The search page's reading of the same queries, and of what a
        // person submits half typed (the typeahead's whole ranking of a
        // short prefix is the costly case).
        let typed_paths: Vec<String> = paths
            .iter()
            .filter(|p| p.contains("query="))
            .map(|p| format!("{p}&mode=typed"))
            .chain(
                ["u", "a", "univ", "uni", "s", "inst", "university of"]
                    .map(|q| format!("/v2/organizations?query={}&mode=typed", encode_component(q))),
            )
            .collect();
        let (mut t, typed_bad, slowest_typed) = time_requests(&engine, &typed_paths);
        let mut s = suggest_lat.clone();
        println!(
            "\nlatency (native, this build):\n  suggest  {} calls: {}",
            s.len(),
            summary(&mut s)
        );
        SLOWEST.with(|s| {
            let s = s.borrow();
            let list: Vec<String> = s
                .iter()
                .map(|(ms, q)| format!("{q:?} {ms:.2} ms"))
                .collect();
            println!("  slowest suggest calls: {}", list.join(", "));
        });
        println!(
            "  E2+facets {} requests via handle(): {} ({bad} non-200)",
            e.len(),
            summary(&mut e)
        );
        println!(
            "  mode=typed (the search page) {} requests via handle(): {} ({typed_bad} non-200)",
            t.len(),
            summary(&mut t)
        );
        let list: Vec<String> = slowest_typed
            .iter()
            .map(|(ms, p)| format!("{p} {ms:.2} ms"))
            .collect();
        println!("  slowest mode=typed requests: {}", list.join(", "));
    }
    Ok(())
}
