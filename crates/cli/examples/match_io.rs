//! The speed of `registry match`'s input and output layer alone: a 1 M-row
//! CSV read into rows, then written back with every added column, no
//! matching in between (matching costs a thousand times more and would
//! hide this layer's figures). Run it in release:
//!
//! ```text
//! cargo run --release -p registry-cli --example match_io [rows]
//! ```
//!
//! The two modules are compiled in from the binary's sources (the CLI is a
//! binary crate with no library to link against), so this measures exactly
//! the code `registry match` runs.
#![allow(dead_code)]

#[path = "../src/bulk/input.rs"]
mod input;
#[path = "../src/bulk/output.rs"]
mod output;

use std::time::Instant;

use input::Format;
use output::{Candidate, Outcome};

/// Best of this many runs: the machine is shared, the best run is the code's.
const RUNS: usize = 3;

fn main() {
    let rows: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().unwrap_or_else(|_| {
            eprintln!("the row count must be a number, not '{n}'");
            std::process::exit(2)
        }),
        None => 1_000_000,
    };
    let data = sample_csv(rows);
    let mb = data.len() as f64 / 1e6;
    let (mut read_best, mut write_best) = (f64::MAX, f64::MAX);
    let mut written = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let input = match input::read(
            "bench.csv",
            &data,
            Some(Format::Csv),
            Some("affiliation"),
            None,
        ) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("the sample did not read: {e}");
                std::process::exit(1)
            }
        };
        read_best = read_best.min(t.elapsed().as_secs_f64());
        assert_eq!(input.rows.len(), rows, "every row read");
        let outcomes: Vec<Outcome> = (0..rows).map(outcome).collect();
        let mut out = Vec::with_capacity(data.len() * 3);
        let t = Instant::now();
        if let Err(e) = output::write_csv(&mut out, &input.header, &input.rows, &outcomes) {
            eprintln!("writing failed: {e}");
            std::process::exit(1)
        }
        write_best = write_best.min(t.elapsed().as_secs_f64());
        written = out.len();
    }
    // As `registry match list.csv` reads it: the layout and the column guessed.
    let mut guessed_best = f64::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        let guessed = input::read("bench.csv", &data, None, None, None);
        guessed_best = guessed_best.min(t.elapsed().as_secs_f64());
        assert!(guessed.is_ok_and(|i| i.guessed_column.as_deref() == Some("affiliation")));
    }
    let rate = |secs: f64| rows as f64 / secs;
    println!(
        "match io: {rows} rows, {mb:.1} MB in, {:.1} MB out (best of {RUNS})",
        written as f64 / 1e6
    );
    println!(
        "read   {:>7.3} s  {:>10.0} rows/s  {:>6.1} MB/s",
        read_best,
        rate(read_best),
        mb / read_best
    );
    println!(
        "read, layout and column guessed {:>7.3} s  {:>10.0} rows/s",
        guessed_best,
        rate(guessed_best)
    );
    println!(
        "write  {:>7.3} s  {:>10.0} rows/s",
        write_best,
        rate(write_best)
    );
    let both = read_best + write_best;
    println!("both   {:>7.3} s  {:>10.0} rows/s", both, rate(both));
}

/// A spreadsheet export's mix: plain fields, quoted ones with commas,
/// doubled quotes, and a quoted line break now and then; CRLF line ends.
fn sample_csv(rows: usize) -> Vec<u8> {
    let mut out = b"n,affiliation,note\r\n".to_vec();
    for k in 0..rows {
        let line = match k % 10 {
            0..=4 => format!("{k},Northfield University {k},ok\r\n"),
            5..=7 => {
                format!("{k},\"Department of Chemistry, Northfield University {k}\",\"a, b\"\r\n")
            }
            8 => format!("{k},\"Cape \"\"Fynbos\"\" Herbarium {k}\",\r\n"),
            _ => format!("{k},\"Shinonome Institute\nTokyo {k}\",two lines\r\n"),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out
}

/// A row's answer: two candidates most of the time, none now and then.
fn outcome(k: usize) -> Outcome {
    if k.is_multiple_of(7) {
        return Outcome::default();
    }
    let candidate = |n: usize, score: f32| Candidate {
        id: format!("https://ror.org/0{n:08}"),
        name: format!("Northfield University, Campus {n}"),
        score,
        matching_type: "PHRASE".into(),
    };
    Outcome {
        first: Some(candidate(k, 0.93)),
        second: Some(candidate(k + 1, 0.41)),
        chosen: !k.is_multiple_of(3),
    }
}
