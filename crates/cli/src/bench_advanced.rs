//! `registry bench-advanced [<data>]`: latency of `query.advanced` (E3)
//! through `Engine::handle` (parse, column evaluation, filters, facets,
//! page decoding, JSON), per query type and overall, plus the one-time build
//! of the advanced columns (time and heap).

use std::path::PathBuf;
use std::time::Instant;

use registry_core::router::encode_component;
use registry_core::search::Engine;

use crate::alloc;
use crate::load;
use crate::stats::percentile;

const DEFAULT_DATA: &str = "../shared/data/registry-v2.json.gz";

/// The fixed query set: (type, expression, extra parameters).
const QUERIES: &[(&str, &str, &str)] = &[
    // One field.
    ("field", "names.value:university", ""),
    ("field", "names.value:(harvard medical)", ""),
    ("field", "locations.geo_details.country_code:CZ", ""),
    ("field", "types:education", ""),
    ("field", "types:education", "&page=3"),
    ("field", "external_ids.type:isni", "&all_status"),
    ("field", "relationships.type:parent", ""),
    ("field", "domains:edu", ""),
    ("field", "locations.geo_details.name:Paris", ""),
    ("field", "status:inactive", ""),
    ("field", "id:02mhbdp94", ""),
    ("field", "_exists_:domains", ""),
    // Wildcards.
    ("wildcard", "names.value:univ*", ""),
    ("wildcard", "names.value:*tech*", ""),
    ("wildcard", "names.value:c?mbridge", ""),
    ("wildcard", "links.value:*uni*", ""),
    ("wildcard", "external_ids.all:0000*", ""),
    ("wildcard", "locations.geo_details.name:San*", ""),
    ("wildcard", "id:*05*", ""),
    ("wildcard", "relationships.label:*insti*", ""),
    // Ranges.
    ("range", "established:[1900 TO 1950]", ""),
    ("range", "established:>2000", "&filter=types:company"),
    ("range", "admin.last_modified.date:[2024-01 TO *]", ""),
    ("range", "admin.created.date:{2019 TO 2021}", "&all_status"),
    ("range", "locations.geo_details.lat:>=50", ""),
    ("range", "names.value:[a TO b}", ""),
    // Boolean combinations.
    (
        "boolean",
        "types:education AND locations.geo_details.country_code:US",
        "",
    ),
    (
        "boolean",
        "(types:funder OR types:government) AND established:[1900 TO 1950} AND NOT status:active",
        "",
    ),
    (
        "boolean",
        "names.value:institute -locations.geo_details.continent_code:EU",
        "&filter=types:facility",
    ),
    ("boolean", "NOT types:company", ""),
    (
        "boolean",
        "(names.value:hospital OR names.value:clinic) AND _exists_:domains",
        "",
    ),
    (
        "boolean",
        "types:healthcare || types:archive && -_exists_:links.value",
        "",
    ),
    // Bare terms (every field).
    ("bare", "harvard", ""),
    ("bare", "oxford university", ""),
    ("bare", "Berlin", ""),
    ("bare", "1991", ""),
    ("bare", "university", "&page=10"),
    ("bare", "*uni*", ""),
    // Phrases.
    ("phrase", "\"university of\"", ""),
    ("phrase", "names.value:\"institute of technology\"", ""),
    ("phrase", "\"New York\"", ""),
    (
        "phrase",
        "relationships.label:\"university of california\"",
        "",
    ),
    ("phrase", "links.value:\"wikipedia org\"", "&all_status"),
];

fn line(name: &str, v: &mut [f64]) {
    let max = v.iter().copied().fold(0.0, f64::max);
    println!(
        "  {name:<9} {:>5} requests: p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        v.len(),
        percentile(v, 0.5),
        percentile(v, 0.99),
        max
    );
}

/// query.advanced latency through the API router.
///
/// p50/p99/max per query type and overall, plus the one-time build time
/// and heap of the advanced columns.
#[derive(clap::Args)]
pub struct BenchAdvancedArgs {
    /// Registry data (default: ../shared/data/registry-v2.json.gz)
    #[arg(value_name = "data")]
    data: Option<PathBuf>,
    /// Runs per query
    #[arg(long, value_name = "n", default_value_t = 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    reps: usize,
}

pub fn cmd_bench_advanced(a: BenchAdvancedArgs) -> Result<(), String> {
    let data = load::given_or_default(a.data.as_deref(), &[DEFAULT_DATA.into()], "<data>")?;
    let reps = a.reps;
    let started = Instant::now();
    let engine = Engine::new(load::load(&data, true)?);
    println!(
        "loaded {} records from {} in {:.2} s (index {:.1} MB)",
        engine.registry().len(),
        data.display(),
        started.elapsed().as_secs_f64(),
        engine.index().heap_bytes() as f64 / 1e6
    );

    // One-time build of the advanced columns.
    let before = alloc::current();
    alloc::reset_peak();
    let t = Instant::now();
    engine.warm_advanced();
    let build_ms = t.elapsed().as_secs_f64() * 1000.0;
    let held = alloc::current().saturating_sub(before);
    let peak = alloc::peak().saturating_sub(before);
    println!(
        "advanced columns: built once in {build_ms:.0} ms; heap {:.1} MB held ({:.1} MB counted by the structure), {:.1} MB peak during the build",
        held as f64 / 1e6,
        engine.advanced_heap_bytes() as f64 / 1e6,
        peak as f64 / 1e6
    );

    if let Ok(ix) = engine.advanced_index() {
        let mut fields = ix.field_heap_bytes();
        fields.sort_by_key(|f| std::cmp::Reverse(f.1));
        let top: Vec<String> = fields
            .iter()
            .take(8)
            .map(|(f, b)| format!("{} {:.1}", f.name(), *b as f64 / 1e6))
            .collect();
        println!("  largest columns (MB): {}", top.join(", "));
    }

    let mut by_type: Vec<(&str, Vec<f64>)> = Vec::new();
    let mut all: Vec<f64> = Vec::new();
    let mut per_query: Vec<(f64, f64, String, usize)> = Vec::new();
    for &(kind, expr, extra) in QUERIES {
        let url = format!(
            "/v2/organizations?query.advanced={}{extra}",
            encode_component(expr)
        );
        let mut times = Vec::with_capacity(reps);
        let mut results = 0;
        for _ in 0..reps {
            let t = Instant::now();
            let resp = engine.handle(&url);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            if resp.status != 200 {
                return Err(format!("{url}: HTTP {} {}", resp.status, resp.json));
            }
            if results == 0 {
                let v: serde_json::Value =
                    serde_json::from_str(&resp.json).map_err(|e| e.to_string())?;
                results = v["number_of_results"].as_u64().unwrap_or(0) as usize;
            }
        }
        all.extend_from_slice(&times);
        let max = times.iter().copied().fold(0.0, f64::max);
        let median = percentile(&mut times.clone(), 0.5);
        per_query.push((median, max, format!("{expr}{extra}"), results));
        match by_type.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, v)) => v.extend(times),
            None => by_type.push((kind, times)),
        }
    }

    println!("\nper query ({reps} runs each; median, max, results):");
    for (median, max, q, n) in &per_query {
        println!("  {median:>7.3} ms {max:>7.3} ms {n:>6}  {q}");
    }
    println!("\nlatency through Engine::handle (native, this build; after the build above):");
    for (kind, v) in &mut by_type {
        line(kind, v);
    }
    line("overall", &mut all);
    Ok(())
}
