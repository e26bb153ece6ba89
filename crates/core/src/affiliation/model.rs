//! The `chosen` decision: a small ensemble of boosted decision trees over
//! the leading candidates' [`features`](super::features), fitted offline by
//! `registry fit-affiliation` (the checked-in model is
//! [`super::model_weights`]).
//!
//! Each leading candidate gets a score (the sum of its trees' leaves, a
//! log-odds that it is the affiliation); the candidate with the highest
//! score is chosen when that score reaches the model's threshold (fitted for
//! a target precision). Trees rather than one linear score because the
//! evidence interacts: a tie with another candidate is harmless when that
//! candidate is the record's own parent, fatal when it is an unrelated
//! organization named as well.

use std::borrow::Cow;

use super::features::{
    COMPETITOR_APART, COUNT, EXACT, NEAR_TIE, PHRASE, PRIOR_LEAD, RIVAL_ELSEWHERE,
};

/// Least (evidence-adjusted) score of a chosen candidate.
pub const MIN_SCORE: f32 = 0.65;
/// Index of the score feature.
const SCORE: usize = 0;
/// Index of the `acronym` feature (an acronym decided the match).
const ACRONYM: usize = 7;
/// Index of the `acronym_name` feature (the name matched is an acronym).
const ACRONYM_NAME: usize = 11;
/// Index of the margin feature.
const MARGIN: usize = 22;
/// Least [`PRIOR_LEAD`] feature that lets a candidate tied (see [`tied`])
/// with an unrelated competitor be chosen: the record prior of one is this
/// many × 32 units (4 nats per unit of the feature, so 2 nats) above the
/// other's.
pub const TIE_PRIOR_LEAD: f32 = 0.5;

/// Depth of every tree.
pub const DEPTH: usize = 3;
/// Inner nodes of a tree (complete binary tree, node `k`'s children are
/// `2k + 1` and `2k + 2`).
pub const INNER: usize = (1 << DEPTH) - 1;
/// Leaves of a tree.
pub const LEAVES: usize = 1 << DEPTH;

/// Scale of [`Split::value`]: a split value `v` in [−2, 2) is stored as
/// `(v + 2) · SPLIT_SCALE`. Fixed point keeps the checked-in table small.
pub const SPLIT_SCALE: f32 = 16384.0;
/// Most splits of a model: a tree node names its split by a `u8`, and
/// [`NO_SPLIT`] is reserved.
pub const MAX_SPLITS: usize = 255;
/// A [`Tree::node`] that does not split (every value goes left).
pub const NO_SPLIT: u8 = u8::MAX;
/// Scale of [`LEAF_VALUES`]: a leaf value `v` is `LEAF_VALUES[code] / LEAF_SCALE`.
pub const LEAF_SCALE: f32 = 64.0;
/// The values a leaf can take (× [`LEAF_SCALE`]), by 4-bit code: finer near
/// zero, where most leaves of a boosted ensemble are (the fit rounds each
/// leaf to the nearest and later trees correct the rounding). Sorted.
pub const LEAF_VALUES: [i8; 16] = [-20, -13, -9, -6, -4, -2, -1, 0, 1, 2, 4, 6, 9, 13, 20, 32];

/// The 4-bit code of the leaf value nearest `v` (log-odds).
pub fn leaf_code(v: f64) -> u8 {
    let x = v * f64::from(LEAF_SCALE);
    let mut best = 0;
    for (k, &c) in LEAF_VALUES.iter().enumerate() {
        if (f64::from(c) - x).abs() < (f64::from(LEAF_VALUES[best]) - x).abs() {
            best = k;
        }
    }
    best as u8
}

/// The leaf value (log-odds) of a 4-bit code.
pub fn leaf_value(code: u8) -> f32 {
    f32::from(LEAF_VALUES[usize::from(code & 15)]) / LEAF_SCALE
}

/// One test of a model's trees: is feature `feature` at least `value`
/// (fixed point, see [`SPLIT_SCALE`])? The trees share one table of them, so
/// an inner node is one byte.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Split {
    /// Feature index.
    pub feature: u8,
    /// Split value (see [`SPLIT_SCALE`]).
    pub value: u16,
}

/// One decision tree, 11 bytes: at inner node `k`, a candidate passing split
/// `node[k]` of the model's table goes right, else left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tree {
    /// Index in [`Model::splits`] per inner node ([`NO_SPLIT`]: go left).
    pub node: [u8; INNER],
    /// Leaf codes (see [`LEAF_VALUES`]), two a byte: leaf `2k` in the low
    /// four bits of byte `k`, leaf `2k + 1` in the high four.
    pub leaf: [u8; LEAVES / 2],
}

/// The value a stored split stands for.
pub fn split_value(q: u16) -> f32 {
    f32::from(q) / SPLIT_SCALE - 2.0
}

impl Tree {
    /// The leaf value of a candidate whose split outcomes are `right`
    /// (indexed like [`Model::splits`], [`NO_SPLIT`] false).
    pub fn eval(&self, right: &[bool; 256]) -> f32 {
        let mut k = 0;
        for _ in 0..DEPTH {
            k = 2 * k + 1 + usize::from(right[usize::from(self.node[k])]);
        }
        self.leaf_at(k - INNER)
    }

    /// The value of leaf `l`.
    pub fn leaf_at(&self, l: usize) -> f32 {
        let byte = self.leaf[(l / 2) % (LEAVES / 2)];
        leaf_value(byte >> (4 * (l % 2)))
    }

    /// Leaf codes packed two a byte (see [`Tree::leaf`]).
    pub fn pack(codes: &[u8; LEAVES]) -> [u8; LEAVES / 2] {
        std::array::from_fn(|k| (codes[2 * k] & 15) | ((codes[2 * k + 1] & 15) << 4))
    }
}

/// A fitted model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Initial log-odds.
    pub base: f32,
    /// The splits the trees' nodes name (at most [`MAX_SPLITS`]).
    pub splits: Cow<'static, [Split]>,
    /// The trees, summed.
    pub trees: Cow<'static, [Tree]>,
    /// Least score of a chosen candidate.
    pub threshold: f32,
}

/// An exact tie with the nearest unrelated competitor, or a near tie
/// ([`NEAR_TIE`]) when both names stand whole in the string, apart.
pub fn tied(x: &[f32; COUNT]) -> bool {
    let whole = x[EXACT] > 0.0 || x[PHRASE] > 0.0;
    x[MARGIN].abs() < 1e-6 || (x[MARGIN].abs() < NEAR_TIE && whole && x[COMPETITOR_APART] > 0.0)
}

/// Why a candidate may not be chosen whatever the trees say (see
/// [`Model::best`]), or `None` when it may be.
pub fn ineligible(x: &[f32; COUNT]) -> Option<Ineligible> {
    // A department chain before one of them is no reason to prefer it: it
    // chose the first of "Department of X, A, UK; B, London, UK" but not of
    // the same string without the chain, and measured no better than
    // choosing none (eval-affiliation, 2026-11-27: dev set unchanged; fit
    // springer → crossref 4 fewer wrong answers, 1 fewer right).
    let tied =
        tied(x) && (x[PRIOR_LEAD] < TIE_PRIOR_LEAD || x[ACRONYM] > 0.0 || x[ACRONYM_NAME] > 0.0);
    if x[SCORE] < MIN_SCORE {
        Some(Ineligible::LowScore)
    } else if tied {
        Some(Ineligible::Tied)
    } else if x[RIVAL_ELSEWHERE] > 0.0 {
        Some(Ineligible::RivalElsewhere)
    } else {
        None
    }
}

/// The rules that keep a candidate from being chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ineligible {
    /// Its score is below [`MIN_SCORE`].
    LowScore,
    /// An unrelated organization is named as well and nothing in the string
    /// prefers this one.
    Tied,
    /// The string places another organization, unrelated, in another
    /// country: it holds two affiliations.
    RivalElsewhere,
}

impl Model {
    /// Score (log-odds) of one candidate.
    pub fn score(&self, x: &[f32; COUNT]) -> f32 {
        let mut right = [false; 256];
        for (r, s) in right.iter_mut().zip(self.splits.iter().take(MAX_SPLITS)) {
            *r = x[usize::from(s.feature).min(COUNT - 1)] >= split_value(s.value);
        }
        self.base + self.trees.iter().map(|t| t.eval(&right)).sum::<f32>()
    }

    /// The eligible candidate with the highest score and that score; `None`
    /// when none is eligible. Ties go to the earlier (better ranked)
    /// candidate. Eligible, whatever the trees say: a name score of at
    /// least [`MIN_SCORE`]; no [tie](tied) with an unrelated competitor —
    /// two organizations named equally well ("Ministry of Health" without a
    /// country, "University of Michigan and Brown University") are never a
    /// confident match unless the string prefers one: its record prior leads
    /// the other's by [`TIE_PRIOR_LEAD`] (not for acronyms: "UCL" alone
    /// stays unanswered) — naming one first, after a department chain, is
    /// no such reason, whatever separates the two (",", ";", "and"); and
    /// not one of two organizations the text places in different countries
    /// ([`RIVAL_ELSEWHERE`]). (A candidate ranked below
    /// another, with a negative margin, may be chosen: that is how a
    /// department's exact name loses to the university named after it.)
    pub fn best(&self, cands: &[[f32; COUNT]]) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (i, x) in cands.iter().enumerate() {
            if ineligible(x).is_some() {
                continue;
            }
            let s = self.score(x);
            if best.is_none_or(|b| s > b.1) {
                best = Some((i, s));
            }
        }
        best
    }

    /// The chosen candidate, if its score reaches the threshold.
    pub fn choose(&self, cands: &[[f32; COUNT]]) -> Option<usize> {
        self.best(cands)
            .filter(|&(_, s)| s >= self.threshold)
            .map(|(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_codes_round_to_the_nearest_value() {
        assert!(LEAF_VALUES.windows(2).all(|w| w[0] < w[1]));
        for (k, &v) in LEAF_VALUES.iter().enumerate() {
            assert_eq!(leaf_code(f64::from(v) / 64.0), k as u8);
        }
        assert_eq!(leaf_value(leaf_code(0.001)), 0.0);
        assert_eq!(leaf_value(leaf_code(-5.0)), -20.0 / 64.0);
        assert_eq!(leaf_value(leaf_code(5.0)), 0.5);
        assert_eq!(leaf_value(leaf_code(f64::NAN)), -20.0 / 64.0);
        let codes = [0, 1, 2, 3, 12, 13, 14, 15];
        let t = Tree {
            node: [NO_SPLIT; INNER],
            leaf: Tree::pack(&codes),
        };
        for (l, &c) in codes.iter().enumerate() {
            assert_eq!(t.leaf_at(l), leaf_value(c));
        }
    }

    #[test]
    fn trees_route_by_split() {
        let half = (2.5 * SPLIT_SCALE) as u16;
        let n = NO_SPLIT;
        let c = |v: f64| {
            let k = leaf_code(v);
            assert_eq!(f64::from(leaf_value(k)), v);
            k
        };
        // Split 0: feature 0 >= 0.5; split 1: feature 1 >= 0.5.
        let splits = vec![
            Split {
                feature: 0,
                value: half,
            },
            Split {
                feature: 1,
                value: half,
            },
        ];
        let t = Tree {
            node: [0, 1, 1, n, n, n, n],
            leaf: Tree::pack(&[
                c(-20.0 / 64.0),
                c(0.0),
                c(-13.0 / 64.0),
                c(0.0),
                c(20.0 / 64.0),
                c(0.0),
                c(0.5),
                c(0.0),
            ]),
        };
        let m = Model {
            base: 0.0,
            splits: Cow::Owned(splits),
            trees: Cow::Owned(vec![t]),
            threshold: 0.4,
        };
        let mut x = [0f32; COUNT];
        assert_eq!(m.score(&x), -20.0 / 64.0);
        x[1] = 1.0;
        assert_eq!(m.score(&x), -13.0 / 64.0);
        x[0] = 1.0;
        assert_eq!(m.score(&x), 0.5);
        x[MARGIN] = 0.5;
        let mut y = [0f32; COUNT];
        y[0] = 1.0;
        y[MARGIN] = 0.5;
        assert_eq!(m.best(&[x, y]), Some((0, 0.5)));
        assert_eq!(m.choose(&[y]), None);
        assert_eq!(m.choose(&[y, x]), Some(1));
        assert_eq!(m.choose(&[]), None);
        // A tie with a competitor: not eligible, unless its prior leads.
        x[MARGIN] = 0.0;
        assert_eq!(m.choose(&[x]), None);
        x[PRIOR_LEAD] = TIE_PRIOR_LEAD;
        assert_eq!(m.choose(&[x]), Some(0));
        // Not for an acronym.
        x[ACRONYM] = 1.0;
        assert_eq!(m.choose(&[x]), None);
    }
}
