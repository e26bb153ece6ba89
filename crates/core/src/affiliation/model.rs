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

use super::features::{COUNT, RIVAL_ELSEWHERE};

/// Least (evidence-adjusted) score of a chosen candidate.
pub const MIN_SCORE: f32 = 0.65;
/// Index of the score feature.
const SCORE: usize = 0;
/// Index of the margin feature.
const MARGIN: usize = 22;

/// Depth of every tree.
pub const DEPTH: usize = 3;
/// Inner nodes of a tree (complete binary tree, node `k`'s children are
/// `2k + 1` and `2k + 2`).
pub const INNER: usize = (1 << DEPTH) - 1;
/// Leaves of a tree.
pub const LEAVES: usize = 1 << DEPTH;

/// Scale of [`Tree::split`]: a split value `v` in [−2, 2) is stored as
/// `(v + 2) · SPLIT_SCALE`. Fixed point keeps the checked-in trees small.
pub const SPLIT_SCALE: f32 = 16384.0;
/// A [`Tree::split`] no value reaches (the node does not split).
pub const NO_SPLIT: u16 = u16::MAX;
/// Scale of [`Tree::leaf`]: a leaf value `v` is stored as `v · LEAF_SCALE`.
pub const LEAF_SCALE: f32 = 64.0;

/// One decision tree, fixed point: at inner node `k`, a value of feature
/// `feature[k]` below split `split[k]` goes left, else right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tree {
    /// Feature index per inner node.
    pub feature: [u8; INNER],
    /// Split value per inner node (see [`SPLIT_SCALE`], [`NO_SPLIT`]).
    pub split: [u16; INNER],
    /// Leaf values, log-odds (see [`LEAF_SCALE`]).
    pub leaf: [i8; LEAVES],
}

/// The value a stored split stands for.
pub fn split_value(q: u16) -> f32 {
    if q == NO_SPLIT {
        f32::INFINITY
    } else {
        f32::from(q) / SPLIT_SCALE - 2.0
    }
}

impl Tree {
    /// The leaf value of `x`.
    pub fn eval(&self, x: &[f32; COUNT]) -> f32 {
        let mut k = 0;
        for _ in 0..DEPTH {
            let f = usize::from(self.feature[k]).min(COUNT - 1);
            k = 2 * k + 1 + usize::from(x[f] >= split_value(self.split[k]));
        }
        f32::from(self.leaf[k - INNER]) / LEAF_SCALE
    }
}

/// A fitted model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Initial log-odds.
    pub base: f32,
    /// The trees, summed.
    pub trees: Cow<'static, [Tree]>,
    /// Least score of a chosen candidate.
    pub threshold: f32,
}

impl Model {
    /// Score (log-odds) of one candidate.
    pub fn score(&self, x: &[f32; COUNT]) -> f32 {
        self.base + self.trees.iter().map(|t| t.eval(x)).sum::<f32>()
    }

    /// The eligible candidate with the highest score and that score; `None`
    /// when none is eligible. Ties go to the earlier (better ranked)
    /// candidate. Eligible: a name score of at least [`MIN_SCORE`] and no
    /// exact tie with an unrelated competitor, whatever the trees say — two
    /// organizations named equally well ("Ministry of Health" without a
    /// country) are never a confident match, nor is one of two
    /// organizations the text places in different countries. (A candidate ranked below
    /// another, with a negative margin, may be chosen: that is how a
    /// department's exact name loses to the university named after it.)
    pub fn best(&self, cands: &[[f32; COUNT]]) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (i, x) in cands.iter().enumerate() {
            if x[SCORE] < MIN_SCORE || x[MARGIN].abs() < 1e-6 || x[RIVAL_ELSEWHERE] > 0.0 {
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
    fn trees_route_by_split() {
        let half = (2.5 * SPLIT_SCALE) as u16;
        let n = NO_SPLIT;
        let l = (LEAF_SCALE / 2.0) as i8;
        let t = Tree {
            feature: [0, 1, 1, 0, 0, 0, 0],
            split: [half, half, half, n, n, n, n],
            leaf: [-l, 0, -2 * l, 0, l, 0, 2 * l, 0],
        };
        let mut x = [0f32; COUNT];
        assert_eq!(t.eval(&x), -0.5);
        x[1] = 1.0;
        assert_eq!(t.eval(&x), -1.0);
        x[0] = 1.0;
        assert_eq!(t.eval(&x), 1.0);
        let m = Model {
            base: 0.0,
            trees: Cow::Owned(vec![t]),
            threshold: 0.75,
        };
        x[MARGIN] = 0.5;
        let mut y = [0f32; COUNT];
        y[0] = 1.0;
        y[MARGIN] = 0.5;
        assert_eq!(m.best(&[x, y]), Some((0, 1.0)));
        assert_eq!(m.choose(&[y]), None);
        assert_eq!(m.choose(&[y, x]), Some(1));
        assert_eq!(m.choose(&[]), None);
        // A tie with a competitor: not eligible.
        x[MARGIN] = 0.0;
        assert_eq!(m.choose(&[x]), None);
    }
}
