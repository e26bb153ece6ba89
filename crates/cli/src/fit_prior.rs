//! `registry fit-prior`: fits the record prior ([`registry_core::prior`])
//! on what people pick and writes the weights as Rust source.
//!
//! Model: log p(record) = w · features(record) + const, a softmax over every
//! record of the dump; each row of the affiliation set with one gold id is
//! one observed pick. Fitted by Newton's method on standardized features
//! with an L2 penalty (the problem is convex, so the fit is reproducible to
//! the last printed digit). Before the final fit on all rows, a fit on the
//! even rows is scored on the odd rows, so the gain over a uniform prior is
//! reported on picks the fit did not see.

// Dense linear algebra over fixed-size arrays reads best with indexes.
#![allow(clippy::needless_range_loop)]

use std::collections::HashMap;
use std::path::PathBuf;

use registry_core::import::{self, ImportOptions};
use registry_core::prior::{FEATURE_COUNT, FEATURE_NAMES, UNITS_PER_NAT, features};

use crate::load;
use crate::picks;

const DEFAULT_DATA: &str = "../shared/data/registry-v2.json.gz";
const DEFAULT_OUT: &str = "crates/core/src/prior/weights.rs";
/// L2 penalty on standardized weights: enough to keep rare features
/// (archive, a handful of picks) from running off, small against ~12k picks.
const LAMBDA: f64 = 2.0;

type Vector = [f64; FEATURE_COUNT];
type Matrix = [[f64; FEATURE_COUNT]; FEATURE_COUNT];

/// Standardized feature rows and the standardization.
struct Design {
    z: Vec<Vector>,
    mean: Vector,
    sd: Vector,
}

fn design(x: &[[f32; FEATURE_COUNT]]) -> Design {
    let n = x.len().max(1) as f64;
    let mut mean = [0.0; FEATURE_COUNT];
    for row in x {
        for j in 0..FEATURE_COUNT {
            mean[j] += f64::from(row[j]) / n;
        }
    }
    let mut sd = [0.0; FEATURE_COUNT];
    for row in x {
        for j in 0..FEATURE_COUNT {
            sd[j] += (f64::from(row[j]) - mean[j]).powi(2) / n;
        }
    }
    sd.iter_mut().for_each(|s| *s = s.sqrt());
    let z = x
        .iter()
        .map(|row| {
            let mut v = [0.0; FEATURE_COUNT];
            for j in 0..FEATURE_COUNT {
                // A constant feature carries nothing: its weight stays 0.
                v[j] = if sd[j] > 1e-9 {
                    (f64::from(row[j]) - mean[j]) / sd[j]
                } else {
                    0.0
                };
            }
            v
        })
        .collect();
    Design { z, mean, sd }
}

fn dot(a: &Vector, b: &Vector) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The softmax over every record: log Σ exp(w·z), and each record's
/// unnormalised weight exp(w·z − max) with their total.
fn softmax(d: &Design, w: &Vector) -> (f64, Vec<f64>, f64) {
    let s: Vec<f64> = d.z.iter().map(|z| dot(w, z)).collect();
    let max = s.iter().copied().fold(f64::MIN, f64::max);
    let weights: Vec<f64> = s.iter().map(|v| (v - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    (max + total.ln(), weights, total)
}

/// The softmax expectation and covariance of z (what Newton's step needs;
/// the objective needs only the log-normaliser).
fn moments(d: &Design, w: &Vector) -> (Vector, Matrix) {
    let (_, weights, total) = softmax(d, w);
    let mut e = [0.0; FEATURE_COUNT];
    let mut m2 = [[0.0; FEATURE_COUNT]; FEATURE_COUNT];
    for (z, p) in d.z.iter().zip(&weights) {
        let p = p / total;
        for a in 0..FEATURE_COUNT {
            e[a] += p * z[a];
            for b in a..FEATURE_COUNT {
                m2[a][b] += p * z[a] * z[b];
            }
        }
    }
    for a in 0..FEATURE_COUNT {
        for b in a..FEATURE_COUNT {
            m2[a][b] -= e[a] * e[b];
            m2[b][a] = m2[a][b];
        }
    }
    (e, m2)
}

/// Penalized log-likelihood of the picks (`counts` per record, `n` picks).
fn objective(d: &Design, counts: &[f64], n: f64, w: &Vector) -> f64 {
    let (lse, _, _) = softmax(d, w);
    let picked: f64 = d.z.iter().zip(counts).map(|(z, c)| c * dot(w, z)).sum();
    picked - n * lse - LAMBDA / 2.0 * dot(w, w)
}

/// Solves `a x = b` (symmetric positive definite) by Gaussian elimination
/// with partial pivoting.
fn solve(mut a: Matrix, mut b: Vector) -> Vector {
    for col in 0..FEATURE_COUNT {
        let pivot = (col..FEATURE_COUNT)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..FEATURE_COUNT {
            let f = a[row][col] / p;
            for k in col..FEATURE_COUNT {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; FEATURE_COUNT];
    for row in (0..FEATURE_COUNT).rev() {
        let s: f64 = (row + 1..FEATURE_COUNT).map(|k| a[row][k] * x[k]).sum();
        x[row] = if a[row][row].abs() < 1e-12 {
            0.0
        } else {
            (b[row] - s) / a[row][row]
        };
    }
    x
}

/// Newton's method with step halving; returns standardized weights.
fn fit(d: &Design, counts: &[f64]) -> Vector {
    let n: f64 = counts.iter().sum();
    let mut sum_z = [0.0; FEATURE_COUNT];
    for (z, c) in d.z.iter().zip(counts) {
        for j in 0..FEATURE_COUNT {
            sum_z[j] += c * z[j];
        }
    }
    let mut w = [0.0; FEATURE_COUNT];
    let mut obj = objective(d, counts, n, &w);
    for _ in 0..50 {
        let (e, cov) = moments(d, &w);
        let mut grad = [0.0; FEATURE_COUNT];
        let mut h = cov;
        for a in 0..FEATURE_COUNT {
            grad[a] = sum_z[a] - n * e[a] - LAMBDA * w[a];
            for b in 0..FEATURE_COUNT {
                h[a][b] *= n;
            }
            h[a][a] += LAMBDA;
        }
        let step = solve(h, grad);
        let mut t = 1.0;
        let mut improved = false;
        for _ in 0..30 {
            let mut next = w;
            for j in 0..FEATURE_COUNT {
                next[j] += t * step[j];
            }
            let o = objective(d, counts, n, &next);
            if o >= obj {
                improved = o - obj > 1e-9 * obj.abs().max(1.0);
                w = next;
                obj = o;
                break;
            }
            t /= 2.0;
        }
        if !improved {
            break;
        }
    }
    w
}

/// Mean log-probability per pick of `counts` under standardized weights.
fn mean_log_p(d: &Design, counts: &[f64], w: &Vector) -> f64 {
    let n: f64 = counts.iter().sum();
    let (lse, _, _) = softmax(d, w);
    let picked: f64 = d.z.iter().zip(counts).map(|(z, c)| c * dot(w, z)).sum();
    (picked - n * lse) / n.max(1.0)
}

/// Refit the record prior (writes core source).
///
/// The prior is how likely each record is to be picked, from its content;
/// fitted on the gold records of an affiliation set, with held-out figures
/// printed, and written as Rust source to crates/core/src/prior/weights.rs.
#[derive(clap::Args)]
pub struct FitPriorArgs {
    /// Registry dump (default: ../shared/data/registry-v2.json.gz)
    #[arg(long, value_name = "dump")]
    data: Option<PathBuf>,
    /// Rows with a gold id list (default:
    /// ../shared/eval/affiliation-dev.jsonl)
    #[arg(long, value_name = "jsonl")]
    eval: Option<PathBuf>,
    /// Where to write
    #[arg(short, long, value_name = "file", default_value = DEFAULT_OUT)]
    out: String,
    /// Print the source instead of writing it
    #[arg(long)]
    dry_run: bool,
}

pub fn cmd_fit_prior(a: FitPriorArgs) -> Result<(), String> {
    let data = load::given_or_default(a.data.as_deref(), &[DEFAULT_DATA.into()], "--data <data>")?;
    let eval = load::given_or_default(
        a.eval.as_deref(),
        &[picks::DEFAULT_EVAL.into()],
        "--eval <jsonl>",
    )?;
    let out = a.out.as_str();
    let bytes = load::read(&data)?;
    let imported = import::import_dump(&bytes, ImportOptions::default(), &mut |_, _| {})
        .map_err(|e| format!("{}: {e}", data.display()))?;
    let records = imported.records;
    let by_id: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let picks = picks::gold_per_row(&eval)?;
    let mut counts = [vec![0.0; records.len()], vec![0.0; records.len()]];
    let mut missing = 0;
    for (row, id) in picks.iter().enumerate() {
        match by_id.get(id.as_str()) {
            Some(&i) => counts[row % 2][i] += 1.0,
            None => missing += 1,
        }
    }
    let all: Vec<f64> = counts[0]
        .iter()
        .zip(&counts[1])
        .map(|(a, b)| a + b)
        .collect();
    let x: Vec<[f32; FEATURE_COUNT]> = records.iter().map(features).collect();
    let d = design(&x);
    println!(
        "{} records, {} picks ({} rows with one gold id; {missing} gold ids not in the data), {} distinct records picked",
        records.len(),
        all.iter().sum::<f64>(),
        picks.len(),
        all.iter().filter(|&&c| c > 0.0).count()
    );
    let uniform = -(records.len() as f64).ln();
    let half = fit(&d, &counts[0]);
    println!(
        "fit on even rows: mean log p per pick, even rows {:.3}, odd rows (held out) {:.3}; uniform {uniform:.3} (gain on held-out picks: {:.3} nats, ×{:.1} likelihood)",
        mean_log_p(&d, &counts[0], &half),
        mean_log_p(&d, &counts[1], &half),
        mean_log_p(&d, &counts[1], &half) - uniform,
        (mean_log_p(&d, &counts[1], &half) - uniform).exp()
    );
    let w = fit(&d, &all);
    println!(
        "fit on all rows: mean log p per pick {:.3}",
        mean_log_p(&d, &all, &w)
    );
    // Back to raw feature units; the bias puts the median record at 0, the
    // neutral stored value, so the byte range is spent around the mass.
    let mut raw = [0.0f64; FEATURE_COUNT];
    let mut bias = 0.0;
    for j in 0..FEATURE_COUNT {
        if d.sd[j] > 1e-9 {
            raw[j] = w[j] / d.sd[j];
            bias -= w[j] * d.mean[j] / d.sd[j];
        }
    }
    let mut scores: Vec<f64> = x
        .iter()
        .map(|row| {
            bias + (0..FEATURE_COUNT)
                .map(|j| raw[j] * f64::from(row[j]))
                .sum::<f64>()
        })
        .collect();
    scores.sort_by(f64::total_cmp);
    let median = scores[scores.len() / 2];
    bias -= median;
    let (lo, hi) = (scores[0] - median, scores[scores.len() - 1] - median);
    println!(
        "log-prior range {lo:.2} .. {hi:.2} nats around the median record (stored in 1/{UNITS_PER_NAT} nat units: {:.0} .. {:.0})",
        lo * f64::from(UNITS_PER_NAT),
        hi * f64::from(UNITS_PER_NAT)
    );
    let mut order: Vec<usize> = (0..FEATURE_COUNT).collect();
    order.sort_by(|&a, &b| w[b].abs().total_cmp(&w[a].abs()));
    println!("weights (per raw unit; standardized in brackets, by importance):");
    for j in order {
        println!(
            "  {:<32} {:>9.4}  [{:>7.3}]",
            FEATURE_NAMES[j], raw[j], w[j]
        );
    }
    let mut src = String::new();
    src.push_str(
        "//! Weights of the record prior ([`super`]). Generated by\n\
         //! `registry fit-prior` (log-linear softmax over every record, fitted on\n\
         //! the gold record of each affiliation row); do not edit by hand.\n",
    );
    src.push_str(&format!(
        "//! Data: {} records, {} picks.\n\n",
        records.len(),
        all.iter().sum::<f64>()
    ));
    src.push_str("/// Added to every record's log-prior (the median record scores 0).\n");
    src.push_str(&format!("pub const BIAS: f32 = {:.6};\n\n", bias));
    src.push_str("/// One weight per [`super::FEATURE_NAMES`] entry, per raw unit.\n");
    src.push_str("pub const WEIGHTS: [f32; super::FEATURE_COUNT] = [\n");
    // Comments aligned as rustfmt aligns them, so the file is formatted.
    let values: Vec<String> = raw.iter().map(|v| format!("{v:.6},")).collect();
    let width = values.iter().map(String::len).max().unwrap_or(0);
    for (v, name) in values.iter().zip(FEATURE_NAMES) {
        src.push_str(&format!("    {v:<width$} // {name}\n"));
    }
    src.push_str("];\n");
    if a.dry_run {
        print!("{src}");
    } else {
        std::fs::write(out, src).map_err(|e| format!("cannot write {out}: {e}"))?;
        println!("wrote {out} (rebuild, then rebuild the shards: the prior is stored in them)");
    }
    Ok(())
}
