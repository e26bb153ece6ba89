//! `registry bench-shard`: sizes, ratios, load time and memory of a shard
//! built from a dump. Prints figures; asserts nothing.

use std::path::{Path, PathBuf};
use std::time::Instant;

use registry_core::Registry;
use registry_core::shard::{BuiltShard, SectionKind};

use crate::{alloc, arg_values, build, load};

fn pct(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// Build in memory and print sizes, ratios, load time, memory.
#[derive(clap::Args)]
pub struct BenchShardArgs {
    /// A registry dump
    #[arg(value_name = "dump")]
    dump: PathBuf,
    /// zstd level
    #[arg(long, value_name = "1-22", default_value_t = arg_values::DEFAULT_ZSTD_LEVEL, value_parser = arg_values::zstd_level)]
    level: i32,
    /// Load-time repetitions
    #[arg(long, value_name = "n", default_value_t = 5)]
    runs: usize,
}

pub fn cmd_bench_shard(a: BenchShardArgs) -> Result<(), String> {
    let path = a.dump.as_path();
    let input = load::read(path)?;
    let built = import_and_build(path, &input, a.level)?;
    let full = built.full_file();
    print_sections(&built, &full, &input);
    let typeahead: Vec<u8> = built.file(&[SectionKind::Summary, SectionKind::Names]);
    for (label, bytes) in [("full shard", &full), ("summary+names only", &typeahead)] {
        print_load(label, bytes, a.runs)?;
    }
    print_typeahead_load(&typeahead, a.runs)
}

/// Imports the dump and builds the shard in memory, printing the input and
/// the time of each; the imported records are freed on return, before the
/// loads are measured.
fn import_and_build(path: &Path, input: &[u8], level: i32) -> Result<BuiltShard, String> {
    let t = Instant::now();
    let imported = crate::import::import_with_progress(input, Default::default(), true)?;
    let import_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let built = build::build_shard(&imported.records, &build::release_from_path(path), level)?;
    let build_s = t.elapsed().as_secs_f64();
    println!(
        "input: {} ({} bytes{}), {} records",
        path.display(),
        input.len(),
        if is_gzip(input) { ", gzip" } else { "" },
        imported.records.len()
    );
    println!(
        "import {:.2} s, build (zstd level {level}) {:.2} s",
        import_s, build_s
    );
    Ok(built)
}

fn is_gzip(input: &[u8]) -> bool {
    input.starts_with(&[0x1f, 0x8b])
}

/// Each section's raw and stored bytes, and the shard and its search and
/// summary sections against the input (gzipped if it came so, as it is
/// shipped), beside the targets.
fn print_sections(built: &BuiltShard, full: &[u8], input: &[u8]) {
    println!(
        "\n{:<10} {:>12} {:>12} {:>8}",
        "section", "raw bytes", "stored", "ratio"
    );
    let mut search_summary = 0;
    for s in &built.sections {
        let e = &s.entry;
        println!(
            "{:<10} {:>12} {:>12} {:>7.1}%",
            e.kind.name(),
            e.raw_len,
            e.stored_len,
            pct(e.stored_len as usize, e.raw_len as usize)
        );
        if e.kind != SectionKind::Records {
            search_summary += e.stored_len as usize;
        }
    }
    println!("{:<10} {:>12} {:>12}", "total file", "", full.len());
    let what = if is_gzip(input) {
        "gzipped input"
    } else {
        "input"
    };
    let stored = |kind: SectionKind| {
        built
            .sections
            .iter()
            .find(|s| s.entry.kind == kind)
            .map_or(0, |s| s.entry.stored_len)
    };
    println!(
        "\ntotal shard / {what}:            {:>6.1}%  (target ≤ 50%)",
        pct(full.len(), input.len())
    );
    println!(
        "search+summary sections / {what}: {:>6.1}%  (target ≤ 20%; names {} + summary {} bytes)",
        pct(search_summary, input.len()),
        stored(SectionKind::Names),
        stored(SectionKind::Summary)
    );
}

/// Loads `bytes` as a registry `runs` times: the median, fastest and
/// slowest time, and the heap at its peak and held after the last load.
fn print_load(label: &str, bytes: &[u8], runs: usize) -> Result<(), String> {
    let mut times = Vec::new();
    let mut peak = 0;
    let mut held = 0;
    for _ in 0..runs.max(1) {
        let before = alloc::current();
        alloc::reset_peak();
        let t = Instant::now();
        let registry = Registry::from_bytes(bytes).map_err(|e| e.to_string())?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        peak = alloc::peak() - before;
        held = alloc::current() - before;
        std::hint::black_box(&registry);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "\nload {label}: decode+ready median {:.1} ms (min {:.1}, max {:.1}, {} runs); heap peak {:.1} MB, held {:.1} MB",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        times.len(),
        peak as f64 / 1e6,
        held as f64 / 1e6
    );
    Ok(())
}

/// Where a typeahead client's load goes (wasm in Chromium takes about
/// 1.1–1.7 times these): reading the file, decoding its sections,
/// tokenising the names, building the index (and its passes) and the first
/// suggestion, each the median of `runs`.
fn print_typeahead_load(typeahead: &[u8], runs: usize) -> Result<(), String> {
    let read = median_ms(runs, &mut || {
        std::hint::black_box(registry_core::shard::read_file(typeahead).ok());
    });
    let load = median_ms(runs, &mut || {
        std::hint::black_box(Registry::from_bytes(typeahead).ok());
    });
    let registry = Registry::from_bytes(typeahead).map_err(|e| e.to_string())?;
    let mut tok = registry_core::text::Tokenizer::default();
    let tokenize = median_ms(runs, &mut || {
        let mut n = 0usize;
        for r in 0..registry.len() {
            for name in registry.names(r) {
                tok.for_each(name.value, |_| n += 1);
            }
        }
        std::hint::black_box(n);
    });
    let index = median_ms(runs, &mut || {
        std::hint::black_box(registry_core::index::Index::build(&registry));
    });
    let phases = index_pass_means(&registry, runs);
    println!(
        "index passes, means: names {:.1} ms, dictionary {:.1} ms, postings {:.1} ms, columns {:.1} ms",
        phases[0], phases[1], phases[2], phases[3]
    );
    let engine = registry_core::search::Engine::new(registry);
    let first = median_ms(runs, &mut || {
        std::hint::black_box(engine.suggest("univ", &Default::default(), 10));
    });
    println!(
        "\ntypeahead load, medians: read + check + decompress {read:.1} ms, decode sections {:.1} ms, \
         index build {index:.1} ms (of which tokenising the names {tokenize:.1} ms), first suggest \"univ\" {first:.2} ms",
        load - read
    );
    Ok(())
}

/// The median milliseconds of `runs` (at least one) calls of `f`.
fn median_ms(runs: usize, f: &mut dyn FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The index builder's passes timed one step each (names, dictionary,
/// postings, columns): the mean milliseconds of each over `runs`.
fn index_pass_means(registry: &Registry, runs: usize) -> [f64; 4] {
    let mut phases = [0f64; 4];
    for _ in 0..runs.max(1) {
        let mut b = registry_core::index::IndexBuilder::new(registry);
        for p in &mut phases {
            let t = Instant::now();
            b.step(registry, usize::MAX);
            *p += t.elapsed().as_secs_f64() * 1000.0 / runs.max(1) as f64;
        }
        std::hint::black_box(b.finish(registry));
    }
    phases
}
