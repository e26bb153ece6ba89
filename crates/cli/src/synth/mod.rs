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
use std::path::Path;

use registry_core::RecordId;
use registry_core::import::ImportOptions;
use registry_core::model::{DISPLAY, Name, Record};

use crate::args::Args;
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

pub fn cmd_synth(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(
        rest,
        &["-o", "--out", "--factor", "--seed", "--date"],
        &["-q", "--quiet", "--next-release"],
    )?;
    let [dump] = a.exactly(&["<dump>"])? else {
        unreachable!()
    };
    let out = a
        .out()
        .ok_or("synth needs an output file: -o <file.json|file.json.gz>")?;
    let quiet = a.quiet();
    if a.flag("--next-release") {
        return next_release_cmd(&a, dump, out, quiet);
    }
    let factor: u32 = a
        .opt("--factor")
        .ok_or("synth needs --factor <n> (output = n × the input's records)")?
        .parse()
        .map_err(|_| format!("--factor must be a number 1–{MAX_FACTOR}"))?;
    let seed = seed_of(&a)?;
    let imported = read_records(dump, quiet)?;
    let records = synthesize(&imported, factor, seed)?;
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

/// `--seed`, or the default.
fn seed_of(a: &Args) -> Result<u64, String> {
    match a.opt("--seed") {
        None => Ok(DEFAULT_SEED),
        Some(s) => s.parse().map_err(|_| "--seed must be a number".into()),
    }
}

/// The records of the dump at `path`.
fn read_records(path: &str, quiet: bool) -> Result<Vec<Record>, String> {
    let bytes = load::read(Path::new(path))?;
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
fn next_release_cmd(a: &Args, dump: &str, out: &str, quiet: bool) -> Result<(), String> {
    if a.opt("--factor").is_some() {
        return Err(
            "--next-release makes a release of the dump as it is: no --factor (scale it up first)"
                .into(),
        );
    }
    let date = a.opt("--date").unwrap_or(next_release::DEFAULT_DATE);
    let valid = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !valid {
        return Err(format!("--date must be YYYY-MM-DD, not '{date}'"));
    }
    let imported = read_records(dump, quiet)?;
    let (records, c) = next_release::next_release(&imported, date, seed_of(a)?)?;
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
