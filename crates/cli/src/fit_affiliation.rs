//! `registry fit-affiliation`: fits the affiliation `chosen` model
//! (boosted decision trees over the leading candidates' features, see
//! `registry_core::affiliation::features`) on a gold set and writes it as
//! the generated source file `crates/core/src/affiliation/model_weights.rs`.
//!
//! The fit is deterministic (fixed split candidates, no sampling),
//! so the same data and gold set give the same file. The threshold is the
//! lowest score at which the chosen answers of the training rows reach the
//! target precision; rows with an empty gold list count as wrong answers.

use std::borrow::Cow;
use std::path::PathBuf;

use registry_core::affiliation::features::{COUNT, NAMES};
use registry_core::affiliation::model::{
    DEPTH, INNER, LEAVES, MAX_SPLITS, NO_SPLIT, SPLIT_SCALE, Split, Tree, leaf_code, leaf_value,
    split_value,
};
use registry_core::affiliation::{Candidate, Model};
use registry_core::search::{Engine, Filters};

use crate::affiliation_rows::{
    DEFAULT_DATA, DEFAULT_EVAL, Row, augment, collect, read_gold, with_copies,
};
use crate::load;

/// Where the generated weights go (relative to the repository root).
const WEIGHTS_FILE: &str = "crates/core/src/affiliation/model_weights.rs";

/// What a model answers on one row: `Some(correct)` when it chooses.
pub fn answer(model: &Model, row: &Row) -> Option<bool> {
    let shown: Vec<&Candidate> = row.cands.iter().filter(|c| c.visible).collect();
    let feats: Vec<[f32; COUNT]> = shown.iter().map(|c| c.features).collect();
    let i = model.choose(&feats)?;
    Some(row.gold.contains(&shown[i].record))
}

/// Boosting settings.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Number of trees.
    pub trees: usize,
    /// Shrinkage of each tree's leaves.
    pub rate: f64,
    /// L2 penalty on leaf values.
    pub l2: f64,
    /// Least hessian sum (≈ samples · p(1−p)) on each side of a split.
    pub min_child: f64,
    /// Target precision of the threshold.
    pub precision: f64,
    /// Folds of the threshold's cross-validation: with k ≥ 2, the threshold
    /// is set on out-of-fold scores (each row scored by a model fitted on
    /// the other folds), so it does not trust the training rows' own,
    /// optimistic scores; with 0, on the training rows' scores.
    pub folds: usize,
    /// Also fit on a copy of each row whose text ends in an address, the
    /// address removed ([`augment`](crate::affiliation_rows::augment)), and
    /// require the target precision on those copies too.
    pub augment: bool,
}

/// The fit's settings from the command line (shared with
/// `eval-affiliation`'s in-memory fits); defaults: [`DEFAULT`].
#[derive(clap::Args)]
pub struct TreeArgs {
    /// Target precision of the threshold (default 0.965)
    #[arg(long, value_name = "p", value_parser = precision)]
    precision: Option<f64>,
    /// Number of boosted trees, 1–1000 (default 180)
    #[arg(long, value_name = "n", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    trees: Option<usize>,
    /// Learning rate (shrinkage of each tree, default 0.25)
    #[arg(long, value_name = "x", value_parser = rate)]
    rate: Option<f64>,
    /// Set the threshold on k-fold out-of-fold scores (default 5; 0: on the
    /// training rows' own scores)
    #[arg(long, value_name = "k", value_parser = folds)]
    folds: Option<usize>,
    /// Also train on copies of the rows with their strings varied
    #[arg(long)]
    augment: bool,
}

impl TreeArgs {
    pub fn settings(&self) -> Settings {
        Settings {
            trees: self.trees.unwrap_or(DEFAULT.trees),
            rate: self.rate.unwrap_or(DEFAULT.rate),
            precision: self.precision.unwrap_or(DEFAULT.precision),
            folds: self.folds.unwrap_or(DEFAULT.folds),
            augment: self.augment,
            ..DEFAULT
        }
    }
}

fn precision(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|p| (0.0..=1.0).contains(p))
        .ok_or_else(|| "a number from 0 to 1".into())
}

fn rate(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|r| *r > 0.0 && *r <= 1.0)
        .ok_or_else(|| "a number above 0, at most 1".into())
}

fn folds(v: &str) -> Result<usize, String> {
    v.parse()
        .ok()
        .filter(|&k| k == 0 || (2..=20).contains(&k))
        .ok_or_else(|| "0 or a number from 2 to 20".into())
}

/// Defaults of `registry fit-affiliation` (and of the eval's in-memory fits).
pub const DEFAULT: Settings = Settings {
    trees: 180,
    rate: 0.25,
    l2: 1.0,
    min_child: 3.0,
    // The threshold on out-of-fold scores, for a precision a little above
    // the 0.96 wanted on unseen strings: the training rows' own scores
    // flatter the model, and held-out precision fell below 0.96 with them.
    precision: 0.965,
    folds: 5,
    augment: false,
};

/// Most candidate split values per feature.
const MAX_BINS: usize = 32;

/// Candidate split values of each feature, in the trees' fixed point:
/// between distinct values (so equal values stay together), thinned to
/// [`MAX_BINS`] by quantile.
fn split_values(xs: &[[f32; COUNT]]) -> Vec<Vec<u16>> {
    (0..COUNT)
        .map(|j| {
            let mut v: Vec<f32> = xs.iter().map(|x| x[j]).collect();
            v.sort_by(f32::total_cmp);
            let n = v.len();
            let mut cuts: Vec<u16> = Vec::new();
            for q in 1..MAX_BINS {
                let k = q * n / MAX_BINS;
                if k == 0 || k >= n {
                    continue;
                }
                let lo = v[k - 1];
                let Some(&hi) = v[k..].iter().find(|&&h| h > lo) else {
                    continue;
                };
                // The first fixed-point value above `lo`; it must not pass `hi`.
                let raw = ((lo + 2.0) * SPLIT_SCALE).floor();
                if !(0.0..f32::from(NONE - 1)).contains(&raw) {
                    continue;
                }
                let mut cut = raw as u16;
                while cut < NONE - 1 && split_value(cut) <= lo {
                    cut += 1;
                }
                if split_value(cut) > lo
                    && split_value(cut) <= hi
                    && cuts.last().is_none_or(|&c| c < cut)
                {
                    cuts.push(cut);
                }
            }
            cuts
        })
        .collect()
}

/// A cut no value reaches (a node that does not split), while fitting.
const NONE: u16 = u16::MAX;

/// A tree while fitting: feature and cut per inner node.
#[derive(Clone, Copy, Debug)]
struct FitTree {
    feature: [u8; INNER],
    cut: [u16; INNER],
    /// Leaf codes (see `LEAF_VALUES`).
    leaf: [u8; LEAVES],
}

/// Fits one tree on gradients `g` and hessians `h`; `bins[i][j]` is the
/// number of split values of feature `j` at or below sample `i`'s value.
/// `used`: the (feature, cut) pairs of the trees so far; once it holds
/// [`MAX_SPLITS`], only those are considered (the trees share one table of
/// splits, named by a byte). Returns the tree and each sample's leaf.
fn tree(
    bins: &[[u8; COUNT]],
    cuts: &[Vec<u16>],
    g: &[f64],
    h: &[f64],
    set: &Settings,
    used: &mut Vec<(u8, u16)>,
) -> (FitTree, Vec<usize>) {
    let mut node = vec![0usize; g.len()];
    let mut t = FitTree {
        feature: [0; INNER],
        cut: [NONE; INNER],
        leaf: [leaf_code(0.0); LEAVES],
    };
    let nb = MAX_BINS + 1;
    for depth in 0..DEPTH {
        let first = (1 << depth) - 1;
        let width = 1 << depth;
        // Histograms: node × feature × bin → (G, H).
        let mut hist = vec![(0.0f64, 0.0f64); width * COUNT * nb];
        for (i, b) in bins.iter().enumerate() {
            let n = node[i] - first;
            for j in 0..COUNT {
                let e = &mut hist[(n * COUNT + j) * nb + b[j] as usize];
                e.0 += g[i];
                e.1 += h[i];
            }
        }
        for n in 0..width {
            let (mut gt, mut ht) = (0.0, 0.0);
            for b in 0..nb {
                gt += hist[n * COUNT * nb + b].0;
                ht += hist[n * COUNT * nb + b].1;
            }
            let parent = gt * gt / (ht + set.l2);
            let mut best = (1e-6, 0usize, NONE);
            let full = used.len() >= MAX_SPLITS;
            for j in 0..COUNT {
                let (mut gl, mut hl) = (0.0, 0.0);
                for (c, &cut) in cuts[j].iter().enumerate() {
                    // Samples left of cut `c` have bin index <= c.
                    let e = hist[(n * COUNT + j) * nb + c];
                    gl += e.0;
                    hl += e.1;
                    let (gr, hr) = (gt - gl, ht - hl);
                    if hl < set.min_child || hr < set.min_child {
                        continue;
                    }
                    if full && !used.contains(&(j as u8, cut)) {
                        continue;
                    }
                    let gain = gl * gl / (hl + set.l2) + gr * gr / (hr + set.l2) - parent;
                    if gain > best.0 {
                        best = (gain, j, cut);
                    }
                }
            }
            t.feature[first + n] = best.1 as u8;
            t.cut[first + n] = best.2;
            if best.2 != NONE && !used.contains(&(best.1 as u8, best.2)) {
                used.push((best.1 as u8, best.2));
            }
        }
        for (i, b) in bins.iter().enumerate() {
            let k = node[i];
            let f = t.feature[k] as usize;
            let right = t.cut[k] != NONE
                && (b[f] as usize) > cuts[f].iter().position(|&c| c == t.cut[k]).unwrap_or(0);
            node[i] = 2 * k + 1 + usize::from(right);
        }
    }
    let mut sums = [(0.0f64, 0.0f64); LEAVES];
    for (i, &k) in node.iter().enumerate() {
        sums[k - INNER].0 += g[i];
        sums[k - INNER].1 += h[i];
    }
    for (l, (gs, hs)) in sums.iter().enumerate() {
        t.leaf[l] = leaf_code(-gs / (hs + set.l2) * set.rate);
    }
    let leaves = node.iter().map(|&k| k - INNER).collect();
    (t, leaves)
}

/// Gradient-boosted trees on the log loss of "this candidate is gold".
/// Threshold left at 0.
fn boost(rows: &[&Row], set: &Settings) -> Result<Model, String> {
    let mut xs: Vec<[f32; COUNT]> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    for r in rows {
        for c in r.cands.iter().filter(|c| c.visible) {
            xs.push(c.features);
            ys.push(f64::from(u8::from(r.gold.contains(&c.record))));
        }
    }
    let pos = ys.iter().sum::<f64>();
    if pos == 0.0 || pos == ys.len() as f64 {
        return Err("the training candidates need both gold and non-gold ones".into());
    }
    let cuts = split_values(&xs);
    let bins: Vec<[u8; COUNT]> = xs
        .iter()
        .map(|x| {
            let mut b = [0u8; COUNT];
            for j in 0..COUNT {
                b[j] = cuts[j].iter().filter(|&&c| x[j] >= split_value(c)).count() as u8;
            }
            b
        })
        .collect();
    let base = (pos / (ys.len() as f64 - pos)).ln();
    let mut f = vec![base; xs.len()];
    let mut trees = Vec::with_capacity(set.trees);
    let mut used: Vec<(u8, u16)> = Vec::new();
    for _ in 0..set.trees {
        let mut g = vec![0.0; xs.len()];
        let mut h = vec![0.0; xs.len()];
        for i in 0..xs.len() {
            let p = 1.0 / (1.0 + (-f[i]).exp());
            g[i] = p - ys[i];
            h[i] = (p * (1.0 - p)).max(1e-6);
        }
        let (t, leaves) = tree(&bins, &cuts, &g, &h, set, &mut used);
        for (fi, &l) in f.iter_mut().zip(&leaves) {
            *fi += f64::from(leaf_value(t.leaf[l]));
        }
        trees.push(t);
    }
    // The shared split table, by feature and value: neighbouring entries
    // differ little, which the compressed wasm rewards.
    used.sort_unstable();
    let splits: Vec<Split> = used
        .iter()
        .map(|&(feature, value)| Split { feature, value })
        .collect();
    let trees = trees
        .iter()
        .map(|t| Tree {
            node: std::array::from_fn(|k| {
                if t.cut[k] == NONE {
                    NO_SPLIT
                } else {
                    used.iter()
                        .position(|&u| u == (t.feature[k], t.cut[k]))
                        .map_or(NO_SPLIT, |p| p as u8)
                }
            }),
            leaf: Tree::pack(&t.leaf),
        })
        .collect();
    Ok(Model {
        base: base as f32,
        splits: Cow::Owned(splits),
        trees: Cow::Owned(trees),
        threshold: 0.0,
    })
}

/// Each row's best eligible score under `model` and whether it is gold.
pub fn best_scores(model: &Model, rows: &[&Row]) -> Vec<(f32, bool)> {
    rows.iter()
        .filter_map(|r| {
            let shown: Vec<&Candidate> = r.cands.iter().filter(|c| c.visible).collect();
            let feats: Vec<[f32; COUNT]> = shown.iter().map(|c| c.features).collect();
            let (i, l) = model.best(&feats)?;
            Some((l, r.gold.contains(&shown[i].record)))
        })
        .collect()
}

/// The lowest score threshold at which the scored answers `best` reach
/// `precision` (empty-gold rows answered count as wrong).
pub fn threshold(mut best: Vec<(f32, bool)>, precision: f64) -> f32 {
    best.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut correct = 0usize;
    let mut t = f32::INFINITY;
    for (k, &(l, ok)) in best.iter().enumerate() {
        correct += usize::from(ok);
        // Only cut between distinct logits.
        let next_differs = best.get(k + 1).is_none_or(|n| n.0 < l);
        if next_differs && correct as f64 >= precision * (k + 1) as f64 {
            t = l;
        }
    }
    t
}

/// Fits a model with its threshold on `rows` (training copies, see
/// [`augment`](crate::affiliation_rows::augment), follow their originals).
pub fn fit(rows: &[&Row], set: &Settings) -> Result<Model, String> {
    let precision = set.precision;
    let mut m = boost(rows, set)?;
    let originals: Vec<&Row> = rows.iter().copied().filter(|r| !r.augmented).collect();
    let scores = if set.folds >= 2 {
        // A copy stays in its original's fold.
        let mut fold = Vec::with_capacity(rows.len());
        let mut seen = 0usize; // originals so far
        for r in rows {
            seen += usize::from(!r.augmented);
            fold.push(seen.saturating_sub(1) % set.folds);
        }
        let mut out = Vec::new();
        for f in 0..set.folds {
            let part = |held: bool| -> Vec<&Row> {
                rows.iter()
                    .zip(&fold)
                    .filter(|&(_, &k)| (k == f) == held)
                    .map(|(r, _)| *r)
                    .collect()
            };
            let held: Vec<&Row> = part(true).into_iter().filter(|r| !r.augmented).collect();
            out.extend(best_scores(&boost(&part(false), set)?, &held));
        }
        out
    } else {
        best_scores(&m, &originals)
    };
    m.threshold = threshold(scores, precision);
    let copies: Vec<&Row> = rows.iter().copied().filter(|r| r.augmented).collect();
    if !copies.is_empty() {
        // The target precision must hold on the address-less copies too: a
        // kind of string the training rows may lack.
        m.threshold = m
            .threshold
            .max(threshold(best_scores(&m, &copies), precision));
    }
    if !m.threshold.is_finite() {
        return Err(format!(
            "no threshold reaches precision {precision} on the training rows"
        ));
    }
    Ok(m)
}

/// Where the training rows' recall is lost (printed by `--analyze`).
fn analyze(model: &Model, rows: &[&Row], examples: usize) {
    let mut classes: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut shown_examples: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for r in rows.iter().filter(|r| r.has_gold) {
        let shown: Vec<&Candidate> = r.cands.iter().filter(|c| c.visible).collect();
        let feats: Vec<[f32; COUNT]> = shown.iter().map(|c| c.features).collect();
        let Some(g) = shown.iter().position(|c| r.gold.contains(&c.record)) else {
            let class = "gold not among the leading candidates";
            *classes.entry(class).or_default() += 1;
            let ex = shown_examples.entry(class).or_default();
            if ex.len() < examples {
                ex.push(&r.text);
            }
            continue;
        };
        let x = &feats[g];
        // The engine's own rules (model::ineligible), not a copy of them.
        use registry_core::affiliation::model::{Ineligible, ineligible};
        let class = if model.choose(&feats) == Some(g) {
            "chosen, correct"
        } else if let Some(why) = ineligible(x) {
            match why {
                Ineligible::LowScore => "gold below MIN_SCORE",
                Ineligible::Tied => "gold tied (prior lead short)",
                Ineligible::RivalElsewhere => "gold has a rival elsewhere",
            }
        } else {
            match model.best(&feats) {
                Some((b, _)) if b != g && model.choose(&feats).is_some() => "another chosen",
                Some((b, _)) if b != g => "another best, below threshold",
                _ => "gold best, below threshold",
            }
        };
        *classes.entry(class).or_default() += 1;
        let ex = shown_examples.entry(class).or_default();
        if class != "chosen, correct" && ex.len() < examples {
            ex.push(&r.text);
        }
    }
    for (k, v) in classes {
        println!("  {k:<40} {v}");
        for e in shown_examples.get(k).into_iter().flatten() {
            println!("      {e}");
        }
    }
}

/// The generated source file for `model`.
fn weights_source(model: &Model, provenance: &str) -> String {
    let mut s = String::new();
    s.push_str("//! The checked-in affiliation `chosen` model. Generated by\n");
    s.push_str("//! `registry fit-affiliation`; do not edit by hand.\n//!\n");
    for line in provenance.lines() {
        s.push_str(&format!("//! {line}\n"));
    }
    s.push_str("//!\n//! Features by index: ");
    s.push_str(
        &NAMES
            .iter()
            .enumerate()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    s.push_str(".\n\nuse std::borrow::Cow;\n\nuse super::model::{Model, Split, Tree};\n\n");
    s.push_str("/// The model `Engine::match_affiliation` uses.\n");
    s.push_str(&format!(
        "pub const MODEL: Model = Model {{\n    base: {:?},\n    splits: Cow::Borrowed(SPLITS),\n    trees: Cow::Borrowed(TREES),\n    threshold: {:?},\n}};\n\n",
        model.base, model.threshold
    ));
    s.push_str("/// (feature, fixed-point value) per split.\n#[rustfmt::skip]\nconst SPLITS: &[Split] = &[\n");
    for sp in model.splits.iter() {
        s.push_str(&format!(
            "    Split {{ feature: {}, value: {} }},\n",
            sp.feature, sp.value
        ));
    }
    s.push_str("];\n\n/// Split index per inner node, then leaf values.\n#[rustfmt::skip]\nconst TREES: &[Tree] = &[\n");
    for t in model.trees.iter() {
        s.push_str(&format!(
            "    Tree {{ node: {:?}, leaf: {:?} }},\n",
            t.node, t.leaf
        ));
    }
    s.push_str("];\n");
    s
}

/// Refit the affiliation `chosen` model (writes core source).
///
/// Boosted trees over the leading candidates' features, fitted on a gold
/// set and written to crates/core/src/affiliation/model_weights.rs (run
/// from the repository root, then rebuild).
#[derive(clap::Args)]
pub struct FitAffiliationArgs {
    /// Registry data (default: ../shared/data/registry-v2.json.gz)
    #[arg(long, value_name = "data")]
    data: Option<PathBuf>,
    /// Gold set, JSON lines (default: ../shared/eval/affiliation-dev.jsonl)
    #[arg(long, value_name = "jsonl")]
    eval: Option<PathBuf>,
    /// Fit on the rows of one source only
    #[arg(long, value_name = "name")]
    source: Option<String>,
    #[command(flatten)]
    tree: TreeArgs,
    /// Output file
    #[arg(long, value_name = "file", default_value = WEIGHTS_FILE)]
    out: String,
    /// Print the file instead of writing it
    #[arg(long)]
    dry_run: bool,
    /// Also print where the training rows' recall is lost (gold not among
    /// the leading candidates, tied, below threshold...)
    #[arg(long)]
    analyze: bool,
    /// With --analyze: up to n strings of each kind of loss
    #[arg(long, value_name = "n", default_value_t = 0)]
    examples: usize,
}

/// Runs the command.
pub fn cmd_fit_affiliation(a: FitAffiliationArgs) -> Result<(), String> {
    let data = load::given_or_default(a.data.as_deref(), &[DEFAULT_DATA.into()], "--data <data>")?;
    let eval = load::given_or_default(a.eval.as_deref(), &[DEFAULT_EVAL.into()], "--eval <jsonl>")?;
    let out = a.out.as_str();
    let set = a.tree.settings();
    let source = a.source.as_deref();
    let engine = Engine::new(load::load(&data, true)?);
    let lines = read_gold(&eval.to_string_lossy(), usize::MAX)?;
    let rows = collect(&engine, &lines, &Filters::default());
    let selected = |r: &Row| source.is_none_or(|s| r.source == s);
    let train: Vec<&Row> = rows.iter().filter(|r| selected(r)).collect();
    if train.is_empty() {
        return Err(format!("no rows to fit on (source {source:?})"));
    }
    let copies = if set.augment {
        augment(&engine, &rows, &Filters::default(), selected)
    } else {
        Vec::new()
    };
    let model = fit(&with_copies(&rows, &copies, |_, r| selected(r)), &set)?;
    let answered: Vec<bool> = train.iter().filter_map(|r| answer(&model, r)).collect();
    let correct = answered.iter().filter(|&&x| x).count();
    let with_gold = train.iter().filter(|r| r.has_gold).count();
    let reachable = train
        .iter()
        .filter(|r| {
            r.cands
                .iter()
                .any(|c| c.visible && r.gold.contains(&c.record))
        })
        .count();
    let (data, eval) = (data.display(), eval.display());
    let report = format!(
        "fitted on {} rows of {} ({}), data {}\n\
         command: registry fit-affiliation --data {data} --eval {eval} --precision {} --trees {}{}\n\
         settings: {set:?}, depth {DEPTH}\n\
         training rows: chosen {}, correct {} (P {:.4}, R {:.4}); gold among the leading candidates: {} (R <= {:.4})",
        train.len(),
        eval,
        source.unwrap_or("all sources"),
        data,
        set.precision,
        set.trees,
        source.map_or(String::new(), |s| format!(" --source {s}")),
        answered.len(),
        correct,
        correct as f64 / answered.len().max(1) as f64,
        correct as f64 / with_gold.max(1) as f64,
        reachable,
        reachable as f64 / with_gold.max(1) as f64,
    );
    println!("{report}");
    let mut sources: Vec<&str> = train.iter().map(|r| r.source.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    for s in sources {
        let rows: Vec<&&Row> = train.iter().filter(|r| r.source == s).collect();
        let answers: Vec<bool> = rows.iter().filter_map(|r| answer(&model, r)).collect();
        let correct = answers.iter().filter(|&&x| x).count();
        let with_gold = rows.iter().filter(|r| r.has_gold).count();
        println!(
            "  {s}: chosen {}, correct {correct} (P {:.4}, R {:.4})",
            answers.len(),
            correct as f64 / answers.len().max(1) as f64,
            correct as f64 / with_gold.max(1) as f64
        );
    }
    if a.analyze {
        analyze(&model, &train, a.examples);
    }
    if a.dry_run {
        print!("{}", weights_source(&model, &report));
        return Ok(());
    }
    std::fs::write(out, weights_source(&model, &report))
        .map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("wrote {out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(gold: bool, score: f32) -> Row {
        let mut f = [0f32; COUNT];
        f[0] = score;
        // A lead over the competitors (a tie is never chosen).
        f[22] = 0.5;
        Row {
            text: String::new(),
            source: "t".into(),
            gold: if gold { vec![1] } else { vec![2] },
            has_gold: true,
            augmented: false,
            cands: vec![Candidate {
                record: 1,
                visible: true,
                features: f,
            }],
        }
    }

    /// 200 rows, three in four right, their scores well apart.
    fn separable_rows() -> Vec<Row> {
        (0..200)
            .map(|k| {
                let good = k % 4 != 0;
                row(good, if good { 0.9 } else { 0.4 } + (k % 7) as f32 * 0.01)
            })
            .collect()
    }

    #[test]
    fn fit_separates_and_meets_precision() {
        let rows = separable_rows();
        let refs: Vec<&Row> = rows.iter().collect();
        let m = fit(&refs, &DEFAULT).unwrap();
        let answers: Vec<bool> = rows.iter().filter_map(|r| answer(&m, r)).collect();
        assert_eq!(answers.len(), 150);
        assert!(answers.iter().all(|&x| x));
        // The generated source names every feature and is valid Rust shape.
        let src = weights_source(&m, "test");
        assert!(src.contains("pub const MODEL: Model"));
        assert!(src.contains("Tree { node: ["));
    }

    #[test]
    fn out_of_fold_threshold_keeps_the_trees_and_separates() {
        let rows = separable_rows();
        let refs: Vec<&Row> = rows.iter().collect();
        let own = fit(&refs, &DEFAULT).unwrap();
        let set = Settings {
            folds: 3,
            ..DEFAULT
        };
        let oof = fit(&refs, &set).unwrap();
        // Only the threshold comes from the folds.
        assert_eq!(own.trees, oof.trees);
        let answers: Vec<bool> = rows.iter().filter_map(|r| answer(&oof, r)).collect();
        assert_eq!(answers.len(), 150);
        assert!(answers.iter().all(|&x| x));
        // A fold without both classes to fit on is an error, not a panic.
        assert!(fit(&refs[..3], &set).is_err());
    }

    #[test]
    fn the_threshold_must_hold_on_the_copies_too() {
        // The originals separate at any threshold; their copies (the same
        // features) are right only from score 0.93 up.
        let rows = separable_rows();
        let copies: Vec<Option<Row>> = rows
            .iter()
            .map(|r| {
                let score = r.cands[0].features[0];
                (score > 0.8).then(|| Row {
                    augmented: true,
                    ..row(score >= 0.93, score)
                })
            })
            .collect();
        let mixed = with_copies(&rows, &copies, |_, _| true);
        assert_eq!(mixed.len(), 350);
        let m = fit(&mixed, &DEFAULT).unwrap();
        let answers: Vec<bool> = rows.iter().filter_map(|r| answer(&m, r)).collect();
        let high = rows
            .iter()
            .filter(|r| r.cands[0].features[0] >= 0.93)
            .count();
        assert!(answers.iter().all(|&x| x));
        assert_eq!(answers.len(), high);
        assert!(high < 150);
        // Without the copies every right original is answered.
        let plain = fit(&with_copies(&rows, &[], |_, _| true), &DEFAULT).unwrap();
        assert_eq!(rows.iter().filter_map(|r| answer(&plain, r)).count(), 150);
        // Copies that never reach the precision leave no threshold: an error.
        let wrong: Vec<Option<Row>> = rows
            .iter()
            .map(|r| {
                Some(Row {
                    augmented: true,
                    ..row(false, r.cands[0].features[0])
                })
            })
            .collect();
        assert!(fit(&with_copies(&rows, &wrong, |_, _| true), &DEFAULT).is_err());
    }

    #[test]
    fn one_class_is_an_error() {
        let rows: Vec<Row> = (0..10).map(|_| row(true, 0.9)).collect();
        let refs: Vec<&Row> = rows.iter().collect();
        assert!(fit(&refs, &DEFAULT).is_err());
    }
}
