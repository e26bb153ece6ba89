//! `registry synth`: a deterministic synthetic scale-up of a dump, so that
//! loading and typeahead can be measured at registry sizes beyond today's
//! (issue #13).
//!
//! The output holds the original records, then `factor − 1` copies of every
//! record. A copy keeps its template's locations, types, status, dates and
//! the shape of its names, but gets
//!
//! * a new identifier (valid check digits, never a real one, never repeated);
//! * new names: every word is replaced by a real word of the same *class*
//!   (script, letter case, first-or-not in its name, acronym or not), drawn
//!   with the words' real frequencies, so the vocabulary, word lengths and
//!   script mix stay the real ones. One word maps to one replacement within a
//!   record, so its display name, labels and aliases stay consistent; an
//!   acronym made of its display name's initials is rebuilt from the new ones;
//! * relationships pointing into the same copy (ids and labels remapped),
//!   dropped when the target is not in the dump;
//! * external ids, domains and links made unique (a `-s<copy>` suffix or an
//!   `s<copy>.` host prefix), so a lookup by external id still finds one
//!   organization.
//!
//! Same input, factor and seed → byte-identical output: one seeded PRNG per
//! record, pools in dump order, no hash-map iteration.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use registry_core::RecordId;
use registry_core::import::ImportOptions;
use registry_core::model::{DISPLAY, Name, Record};

use crate::{gzip, import, load};

mod draw;
pub mod next_release;

use draw::{NameRewriter, Pools, Rng, copy_record, record_seed};

/// Default seed; `--seed` picks another variant of the same scale-up.
pub const DEFAULT_SEED: u64 = 0x5eed_0f2e_6157_27aa;

/// Largest accepted factor (the id space holds ~10^9 ids; memory is the limit).
pub const MAX_FACTOR: u32 = 64;

/// The records, then `factor − 1` synthetic copies of them.
pub fn synthesize(records: &[Record], factor: u32, seed: u64) -> Result<Vec<Record>, String> {
    if !(1..=MAX_FACTOR).contains(&factor) {
        return Err(format!("--factor must be 1–{MAX_FACTOR}, not {factor}"));
    }
    let real: Vec<u32> = records
        .iter()
        .map(|r| RecordId::parse(&r.id).map(RecordId::number))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let index_of: HashMap<u32, usize> = real.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut used: HashSet<u32> = real.iter().copied().collect();
    let mut id_rng = Rng::new(seed ^ 0x1d5);
    let pools = Pools::new(records);
    let mut out = records.to_vec();
    out.reserve(records.len() * (factor as usize - 1));
    for copy in 1..factor {
        let ids: Vec<RecordId> = records
            .iter()
            .map(|_| {
                loop {
                    let n = (id_rng.next_u64() >> 34) as u32 & RecordId::MAX;
                    if used.insert(n) {
                        break RecordId::from_number(n).expect("masked to 30 bits");
                    }
                }
            })
            .collect();
        let names: Vec<Vec<Name>> = records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                NameRewriter {
                    pools: &pools,
                    rng: Rng::new(record_seed(seed, copy, i)),
                    chosen: HashMap::new(),
                }
                .names(r)
            })
            .collect();
        for (i, r) in records.iter().enumerate() {
            out.push(copy_record(r, copy, ids[i], &names[i], |id| {
                let n = RecordId::parse(id).ok()?.number();
                let t = *index_of.get(&n)?;
                let label = names[t]
                    .iter()
                    .find(|n| n.types.iter().any(|t| t == DISPLAY))?;
                Some((ids[t].url(), label.value.clone()))
            }));
        }
    }
    Ok(out)
}

/// The records as a JSON array, one record per line.
pub fn to_json(records: &[Record]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(records.len() * 1200);
    out.push(b'[');
    for (i, r) in records.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        serde_json::to_writer(&mut out, r).map_err(|e| e.to_string())?;
    }
    out.extend_from_slice(b"\n]\n");
    Ok(out)
}

/// Write a synthetic scale-up of a dump, or its next release.
///
/// --factor n, for benchmarks at larger sizes: the records plus n−1 copies of each with new valid ids
/// (never a real one), names recombined from real words of the same script,
/// case and position, the template's places, types and status,
/// relationships remapped within each copy, external ids, domains and links
/// made unique; the same input, factor and seed give the same bytes.
///
/// --next-release: the dump's next release, as the registry's releases go:
/// 3.3 % of the records changed (an alias added or a link changed), 0.66 %
/// added, 0.03 % withdrawn.
#[derive(clap::Args)]
pub struct SynthArgs {
    /// A registry dump
    #[arg(value_name = "dump")]
    dump: PathBuf,
    /// Output dump: .json, or .json.gz (gzip)
    #[arg(short, long, value_name = "file")]
    out: String,
    /// Output records = n × input records (1–64)
    #[arg(long, value_name = "n")]
    factor: Option<u32>,
    /// Another deterministic variant (default fixed)
    #[arg(long, value_name = "n", default_value_t = DEFAULT_SEED, hide_default_value = true)]
    seed: u64,
    /// Write the dump's next release instead of a scale-up
    #[arg(long)]
    next_release: bool,
    /// With --next-release: its date (last_modified of what it touches)
    #[arg(long, value_name = "YYYY-MM-DD", default_value = next_release::DEFAULT_DATE, value_parser = date)]
    date: String,
    /// No progress output
    #[arg(short, long)]
    quiet: bool,
}

pub fn cmd_synth(a: SynthArgs) -> Result<(), String> {
    let (dump, out, quiet) = (a.dump.as_path(), a.out.as_str(), a.quiet);
    let factor = match (a.next_release, a.factor) {
        (true, None) => return next_release_cmd(&a),
        (true, Some(_)) => {
            return Err(
                "--next-release makes a release of the dump as it is: no --factor \
                        (scale it up first)"
                    .into(),
            );
        }
        (false, factor) => factor.ok_or(
            "synth needs --factor <n> (output = n × the input's records), or --next-release",
        )?,
    };
    let imported = read_records(dump, quiet)?;
    let records = synthesize(&imported, factor, a.seed)?;
    let data = write_dump(out, &records)?;
    if !quiet {
        eprintln!(
            "synth: {} records ({} real × {factor}) → {out} ({data} bytes)",
            records.len(),
            imported.len(),
        );
    }
    Ok(())
}

/// `--date`: YYYY-MM-DD.
fn date(v: &str) -> Result<String, String> {
    let valid = v.len() == 10
        && v.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if valid {
        Ok(v.to_string())
    } else {
        Err("a date is YYYY-MM-DD".into())
    }
}

/// The records of the dump at `path`.
fn read_records(path: &Path, quiet: bool) -> Result<Vec<Record>, String> {
    let bytes = load::read(path)?;
    Ok(import::import_with_progress(&bytes, ImportOptions::default(), quiet)?.records)
}

/// Writes `records` as a dump (gzip when `out` ends in `.gz`); its bytes.
fn write_dump(out: &str, records: &[Record]) -> Result<usize, String> {
    let json = to_json(records)?;
    let data = if out.ends_with(".gz") {
        gzip::compress(&json)
    } else {
        json
    };
    std::fs::write(out, &data).map_err(|e| format!("cannot write {out}: {e}"))?;
    Ok(data.len())
}

/// `synth --next-release`: the dump's next release (crate::next_release).
fn next_release_cmd(a: &SynthArgs) -> Result<(), String> {
    let (out, quiet, date) = (a.out.as_str(), a.quiet, a.date.as_str());
    let imported = read_records(&a.dump, quiet)?;
    let (records, c) = next_release::next_release(&imported, date, a.seed)?;
    write_dump(out, &records)?;
    if !quiet {
        eprintln!(
            "synth: next release of {} records, {date}: {} changed ({} an alias added, {} a link), {} added, {} withdrawn → {out}",
            imported.len(),
            c.aliased.len() + c.relinked.len(),
            c.aliased.len(),
            c.relinked.len(),
            c.added.len(),
            c.withdrawn.len()
        );
    }
    Ok(())
}
