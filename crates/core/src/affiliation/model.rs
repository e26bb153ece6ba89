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

use super::features::{COUNT, PRIOR_LEAD, RIVAL_ELSEWHERE};

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
/// Least [`PRIOR_LEAD`] feature that lets a candidate tied exactly with an
/// unrelated competitor be chosen: the record prior of one is this many
/// × 32 units (4 nats per unit of the feature) above the other's.
pub const TIE_PRIOR_LEAD: f32 = 0.75;

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
/// Scale of [`Tree::leaf`]: a leaf value `v` is stored as `v · LEAF_SCALE`.
pub const LEAF_SCALE: f32 = 64.0;

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

/// One decision tree, 15 bytes: at inner node `k`, a candidate passing split
/// `node[k]` of the model's table goes right, else left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tree {
    /// Index in [`Model::splits`] per inner node ([`NO_SPLIT`]: go left).
    pub node: [u8; INNER],
    /// Leaf values, log-odds (see [`LEAF_SCALE`]).
    pub leaf: [i8; LEAVES],
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
        f32::from(self.leaf[k - INNER]) / LEAF_SCALE
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
    /// candidate. Eligible: a name score of at least [`MIN_SCORE`] and no
    /// exact tie with an unrelated competitor, whatever the trees say — two
    /// organizations named equally well ("Ministry of Health" without a
    /// country) are never a confident match unless the record prior of one
    /// leads the other's by [`TIE_PRIOR_LEAD`] (not for acronyms: "UCL"
    /// alone stays unanswered), nor is one of two
    /// organizations the text places in different countries. (A candidate ranked below
    /// another, with a negative margin, may be chosen: that is how a
    /// department's exact name loses to the university named after it.)
    pub fn best(&self, cands: &[[f32; COUNT]]) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (i, x) in cands.iter().enumerate() {
            let tied = x[MARGIN].abs() < 1e-6
                && (x[PRIOR_LEAD] < TIE_PRIOR_LEAD || x[ACRONYM] > 0.0 || x[ACRONYM_NAME] > 0.0);
            if x[SCORE] < MIN_SCORE || tied || x[RIVAL_ELSEWHERE] > 0.0 {
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
            leaf: [-l, 0, -2 * l, 0, l, 0, 2 * l, 0],
        };
        let m = Model {
            base: 0.0,
            splits: Cow::Owned(splits),
            trees: Cow::Owned(vec![t]),
            threshold: 0.75,
        };
        let mut x = [0f32; COUNT];
        assert_eq!(m.score(&x), -0.5);
        x[1] = 1.0;
        assert_eq!(m.score(&x), -1.0);
        x[0] = 1.0;
        assert_eq!(m.score(&x), 1.0);
        x[MARGIN] = 0.5;
        let mut y = [0f32; COUNT];
        y[0] = 1.0;
        y[MARGIN] = 0.5;
        assert_eq!(m.best(&[x, y]), Some((0, 1.0)));
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
