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
    let engine = build_and_measure_index(&a)?;
    let n = engine.registry().len();
    let step = (n / a.targets.max(1)).max(1);
    let targets: Vec<usize> = (0..n).step_by(step).collect();
    let realistic_t = realistic_targets(&engine, &a.eval, a.targets)?;
    let page_queries = || {
        if realistic_t.is_none() {
            println!(
                "\n(realistic targets skipped: {} not found)",
                a.eval.display()
            );
        }
        crate::bench_page::queries(&engine, &targets, realistic_t.as_deref().unwrap_or(&[]))
    };
    if a.page {
        crate::bench_page::print(&engine, &page_queries());
        return Ok(());
    }
    if !a.latency {
        print_prior_effect(&a, &engine, &targets, step, realistic_t.as_deref())?;
        if a.realistic {
            return Ok(());
        }
    }
    let mut suggest_lat: Vec<f64> = Vec::new();
    let e2_queries = if a.latency {
        time_prefix_typing(&engine, &targets, &mut suggest_lat)
    } else {
        let queries = print_relevance(&engine, &targets, step, &mut suggest_lat);
        crate::bench_page::print(&engine, &page_queries());
        queries
    };
    if !a.relevance {
        print_latency(&engine, &e2_queries, suggest_lat);
    }
    Ok(())
}

/// Loads the data, builds the engine and prints the index's build time and
/// heap; the index is built `--builds` times more, because one build alone
/// is at the mercy of machine noise.
fn build_and_measure_index(a: &BenchSearchArgs) -> Result<Engine, String> {
    let registry = load::load(&a.data, true)?;
    let n = registry.len();
    let before = alloc::current();
    alloc::reset_peak();
    let t = Instant::now();
    let engine = Engine::new(registry);
    let build_ms = t.elapsed().as_secs_f64() * 1000.0;
    let held = alloc::current() - before;
    let peak = alloc::peak() - before;
    let times = time_index_builds(&engine, a.builds);
    let ix = engine.index();
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
        "index (names, filters, facets): built in {build_ms:.1} ms ({} more builds: min {:.1}, median {:.1} ms); heap {:.1} MB held, {:.1} MB peak during build; {} names, {} terms",
        a.builds,
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
    Ok(engine)
}

/// Milliseconds of `builds` (at least one) more index builds, sorted.
fn time_index_builds(engine: &Engine, builds: usize) -> Vec<f64> {
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
    times
}

/// What the record prior changes: the realistic targets and the uniform
/// ones typed against the same data at the neutral prior (the ranking
/// before the prior existed), and with `--oracle` against priors from the
/// picks themselves.
fn print_prior_effect(
    a: &BenchSearchArgs,
    engine: &Engine,
    targets: &[usize],
    step: usize,
    realistic_t: Option<&[usize]>,
) -> Result<(), String> {
    let baseline = Engine::new(load::load(&a.data, true)?.without_prior());
    println!(
        "\nrealistic targets (gold record of every n-th row of {}), k = 5:",
        a.eval.display()
    );
    match realistic_t {
        None => println!("  skipped: {} not found", a.eval.display()),
        Some(t) => {
            realistic(engine, t, "prior");
            realistic(&baseline, t, "no prior");
            if a.oracle {
                let oracle = oracle_engine(a, engine)?;
                realistic(&oracle, t, "oracle");
            }
        }
    }
    print_uniform_keystrokes(engine, &baseline, targets, step);
    Ok(())
}

/// The data with priors from the picks themselves: what a perfect content
/// model could reach (not shippable), the bound for any real prior.
fn oracle_engine(a: &BenchSearchArgs, engine: &Engine) -> Result<Engine, String> {
    let rows = crate::picks::gold_per_row(&a.eval)?;
    let mut counts = vec![0usize; engine.registry().len()];
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
    Ok(Engine::new(load::load(&a.data, true)?.with_priors(priors)))
}

/// The uniform targets' display names typed with the prior and without:
/// the mean keystrokes to the top 1 and top 5, side by side.
fn print_uniform_keystrokes(engine: &Engine, baseline: &Engine, targets: &[usize], step: usize) {
    let mut lat = Vec::new();
    let (mut with, mut without) = (Typing::default(), Typing::default());
    for &i in targets {
        let name = engine.registry().display_name(i);
        with.run(engine, name, i, &mut lat);
        without.run(baseline, name, i, &mut lat);
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
}

/// How many queries of a family were asked and how many found their target
/// first and among the first five.
#[derive(Default)]
struct Recall {
    queries: usize,
    at1: usize,
    at5: usize,
}

impl Recall {
    fn add(&mut self, rank: Option<usize>) {
        self.queries += 1;
        self.at1 += usize::from(rank == Some(0));
        self.at5 += usize::from(rank.is_some());
    }

    fn share(hits: usize, of: usize) -> f64 {
        hits as f64 / of.max(1) as f64
    }
}

/// Every query family of the suggest and E2 relevance figures, filled one
/// target at a time.
#[derive(Default)]
struct Families {
    prefix: Typing,
    words_first: Typing,
    accent: Typing,
    non_latin: Typing,
    /// Suggest, the acronym typed fully.
    acronym: Recall,
    e2_name: Recall,
    e2_acronym: Recall,
    e2_accent: Recall,
    e2_non_latin: Recall,
}

impl Families {
    /// Types the target's display name (as written and rarest word first),
    /// its first acronym of 2+ characters, its name folded to ASCII (when
    /// it has non-ASCII Latin letters) and its first non-Latin name; each
    /// text that E2 can be asked is asked too.
    fn run(&mut self, engine: &Engine, i: usize, lat: &mut Vec<f64>) {
        let reg = engine.registry();
        let name = reg.display_name(i).to_string();
        self.prefix.run(engine, &name, i, lat);
        self.words_first
            .run(engine, &rarest_first(engine, &name), i, lat);
        self.e2_name.add(e2_rank(engine, &name, i));
        if let Some(acr) = reg
            .names(i)
            .find(|x| x.is_acronym() && x.value.chars().count() >= 2)
        {
            let acr = acr.value.to_string();
            self.acronym.add(rank_of(engine, &acr, i, 5, lat));
            self.e2_acronym.add(e2_rank(engine, &acr, i));
        }
        if !name.is_ascii() && !is_non_latin(&name) {
            let stripped = accent_stripped(&name);
            self.accent.run(engine, &stripped, i, lat);
            self.e2_accent.add(e2_rank(engine, &stripped, i));
        }
        if let Some(nl) = reg.names(i).find(|x| is_non_latin(x.value)) {
            let nl = nl.value.to_string();
            self.non_latin.run(engine, &nl, i, lat);
            self.e2_non_latin.add(e2_rank(engine, &nl, i));
        }
    }

    fn print(&self, engine: &Engine) {
        self.prefix.print("prefix");
        print_prefix_bound(engine);
        self.words_first.print("words-first");
        self.accent.print("accent-stripped");
        self.non_latin.print("non-Latin");
        println!(
            "  {:<16} targets {:>5}  success@1 {:.3}  success@5 {:.3} (acronym typed fully; acronyms are shared, so @1 is bounded)",
            "acronym",
            self.acronym.queries,
            Recall::share(self.acronym.at1, self.acronym.queries),
            Recall::share(self.acronym.at5, self.acronym.queries)
        );
        println!("\nE2 query (escaped, all_status), recall@1 / recall@5:");
        for (name, r) in [
            ("full display name", &self.e2_name),
            ("acronym", &self.e2_acronym),
            ("accent-stripped", &self.e2_accent),
            ("non-Latin name", &self.e2_non_latin),
        ] {
            println!(
                "  {name:<18} queries {:>5}  recall@1 {:.3}  recall@5 {:.3}",
                r.queries,
                Recall::share(r.at1, r.queries),
                Recall::share(r.at5, r.queries)
            );
        }
    }
}

/// The target's rank among E2's first five results for `q` (escaped, every
/// status), or None.
fn e2_rank(engine: &Engine, q: &str, target: usize) -> Option<usize> {
    let all = Filters {
        all_status: true,
        ..Filters::default()
    };
    let hits = engine.search(&query::escape(q), &all).ok()?;
    hits.records
        .iter()
        .take(5)
        .position(|&r| r as usize == target)
}

/// Suggest and E2 relevance of every query family over the uniform
/// targets, printed; returns the display names, which the latency figures
/// ask E2 again.
fn print_relevance(
    engine: &Engine,
    targets: &[usize],
    step: usize,
    suggest_lat: &mut Vec<f64>,
) -> Vec<String> {
    println!(
        "\nsuggest (k = 5), {} targets (every {step}th record):",
        targets.len()
    );
    let mut families = Families::default();
    for &i in targets {
        families.run(engine, i, suggest_lat);
    }
    families.print(engine);
    display_names(engine, targets)
}

fn display_names(engine: &Engine, targets: &[usize]) -> Vec<String> {
    targets
        .iter()
        .map(|&i| engine.registry().display_name(i).to_string())
        .collect()
}

/// What any ranking could reach: records sharing the first n folded
/// characters of their display name compete for the same k slots.
fn print_prefix_bound(engine: &Engine) {
    let reg = engine.registry();
    let n = reg.len();
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
}

/// `--latency`: the display names typed keystroke by keystroke for the
/// suggest latency alone (no relevance printed); returns the names.
fn time_prefix_typing(
    engine: &Engine,
    targets: &[usize],
    suggest_lat: &mut Vec<f64>,
) -> Vec<String> {
    for &i in targets {
        let name = engine.registry().display_name(i);
        Typing::default().run(engine, name, i, suggest_lat);
    }
    display_names(engine, targets)
}

/// Latency of suggest (the calls made above), of E2 with facets through
/// the router and of the search page's `mode=typed`, with the slowest of
/// each.
fn print_latency(engine: &Engine, e2_queries: &[String], mut suggest_lat: Vec<f64>) {
    let paths = e2_paths(e2_queries);
    let (mut e, bad, _) = time_requests(engine, &paths);
    let (mut t, typed_bad, slowest_typed) = time_requests(engine, &typed_paths(&paths));
    println!(
        "\nlatency (native, this build):\n  suggest  {} calls: {}",
        suggest_lat.len(),
        summary(&mut suggest_lat)
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

/// E2 requests through the router (parsing, search, facets, 20 records,
/// JSON): each query escaped, its first word over every status, every
/// tenth as a filtered v1 request, then broad words and plain listings.
fn e2_paths(e2_queries: &[String]) -> Vec<String> {
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
    paths
}

/// The search page's reading of the same queries, and of what a person
/// submits half typed (the typeahead's whole ranking of a short prefix is
/// the costly case).
fn typed_paths(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| p.contains("query="))
        .map(|p| format!("{p}&mode=typed"))
        .chain(
            ["u", "a", "univ", "uni", "s", "inst", "university of"]
                .map(|q| format!("/v2/organizations?query={}&mode=typed", encode_component(q))),
        )
        .collect()
}
