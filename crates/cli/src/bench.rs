//! `registry bench-shard`: sizes, ratios, load time and memory of a shard
//! built from a dump. Prints figures; asserts nothing.

use std::path::PathBuf;
use std::time::Instant;

use registry_core::Registry;
use registry_core::shard::SectionKind;

use crate::{alloc, build, cli, load};

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
    #[arg(long, value_name = "1-22", default_value_t = build::DEFAULT_LEVEL, value_parser = cli::zstd_level)]
    level: i32,
    /// Load-time repetitions
    #[arg(long, value_name = "n", default_value_t = 5)]
    runs: usize,
}

pub fn cmd_bench_shard(a: BenchShardArgs) -> Result<(), String> {
    let (level, runs) = (a.level, a.runs);
    let path = a.dump.as_path();
    let input = load::read(path)?;
    let gz_input = if input.starts_with(&[0x1f, 0x8b]) {
        input.len()
    } else {
        0
    };

    let t = Instant::now();
    let imported = crate::import::import_with_progress(&input, Default::default(), true)?;
    let import_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let built = build::build_shard(&imported.records, &build::release_from_path(path), level)?;
    let build_s = t.elapsed().as_secs_f64();
    let full = built.full_file();

    println!(
        "input: {} ({} bytes{}), {} records",
        path.display(),
        input.len(),
        if gz_input > 0 { ", gzip" } else { "" },
        imported.records.len()
    );
    println!(
        "import {:.2} s, build (zstd level {level}) {:.2} s",
        import_s, build_s
    );
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
    let reference = if gz_input > 0 { gz_input } else { input.len() };
    let what = if gz_input > 0 {
        "gzipped input"
    } else {
        "input"
    };
    println!(
        "\ntotal shard / {what}:            {:>6.1}%  (target ≤ 50%)",
        pct(full.len(), reference)
    );
    println!(
        "search+summary sections / {what}: {:>6.1}%  (target ≤ 20%; names {} + summary {} bytes)",
        pct(search_summary, reference),
        built
            .sections
            .iter()
            .find(|s| s.entry.kind == SectionKind::Names)
            .map_or(0, |s| s.entry.stored_len),
        built
            .sections
            .iter()
            .find(|s| s.entry.kind == SectionKind::Summary)
            .map_or(0, |s| s.entry.stored_len)
    );

    drop(imported);
    let typeahead: Vec<u8> = built.file(&[SectionKind::Summary, SectionKind::Names]);
    for (label, bytes) in [("full shard", &full), ("summary+names only", &typeahead)] {
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
    }

    // Where a typeahead client's load goes (wasm in Chromium takes about
    // 1.1–1.7 times these).
    let median = |f: &mut dyn FnMut()| -> f64 {
        let mut v: Vec<f64> = (0..runs.max(1))
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let read = median(&mut || {
        std::hint::black_box(registry_core::shard::read_file(&typeahead).ok());
    });
    let load = median(&mut || {
        std::hint::black_box(Registry::from_bytes(&typeahead).ok());
    });
    let registry = Registry::from_bytes(&typeahead).map_err(|e| e.to_string())?;
    let mut tok = registry_core::text::Tokenizer::default();
    let tokenize = median(&mut || {
        let mut n = 0usize;
        for r in 0..registry.len() {
            for name in registry.names(r) {
                tok.for_each(name.value, |_| n += 1);
            }
        }
        std::hint::black_box(n);
    });
    let index = median(&mut || {
        std::hint::black_box(registry_core::index::Index::build(&registry));
    });
    // The builder's passes, one step each: names, dictionary, postings, columns.
    let mut phases = [0f64; 4];
    for _ in 0..runs.max(1) {
        let mut b = registry_core::index::IndexBuilder::new(&registry);
        for p in &mut phases {
            let t = Instant::now();
            b.step(&registry, usize::MAX);
            *p += t.elapsed().as_secs_f64() * 1000.0 / runs.max(1) as f64;
        }
        std::hint::black_box(b.finish(&registry));
    }
    println!(
        "index passes, means: names {:.1} ms, dictionary {:.1} ms, postings {:.1} ms, columns {:.1} ms",
        phases[0], phases[1], phases[2], phases[3]
    );
    let engine = registry_core::search::Engine::new(registry);
    let first = median(&mut || {
        std::hint::black_box(engine.suggest("univ", &Default::default(), 10));
    });
    println!(
        "\ntypeahead load, medians: read + check + decompress {read:.1} ms, decode sections {:.1} ms, \
         index build {index:.1} ms (of which tokenising the names {tokenize:.1} ms), first suggest \"univ\" {first:.2} ms",
        load - read
    );
    Ok(())
}
