//! One sort for the cold and small sorts of the crate (facets, advanced-query
//! columns, affiliation candidates).
//!
//! Every `sort_by` of the standard library is compiled anew for each element
//! type and comparator, a few kilobytes of wasm each. [`sort_by`] sorts a
//! permutation (`u32`) with a `dyn` comparator instead, so the standard
//! sort is compiled once for all its callers, then moves the elements into
//! place. Ties keep their input order: it is a stable sort, equal in result
//! to `sort_by`, and to `sort_unstable_by` whenever the comparator leaves no
//! ties between distinct elements.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut perm = permutation(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    apply(v, &mut perm);
}

/// Sorts `v` by its order (see [`sort_by`]): for `sort` and
/// `sort_unstable` of types whose equal elements are alike.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by the key `f` gives (see [`sort_by`]).
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// The indexes `0..n` in stable sorted order.
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n as u32).collect();
    perm.sort_unstable_by(|&a, &b| cmp(a as usize, b as usize).then(a.cmp(&b)));
    perm
}

/// Moves `v[perm[k]]` to position `k`, one cycle of the permutation at a
/// time (`perm` is consumed: visited entries become fixed points).
fn apply<T>(v: &mut [T], perm: &mut [u32]) {
    for start in 0..perm.len() {
        let mut at = start;
        loop {
            let from = perm[at] as usize;
            perm[at] = at as u32;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_standard_stable_sort() {
        let mut seed = 7u32;
        for n in [0usize, 1, 2, 3, 20, 21, 100, 1000] {
            let v: Vec<(u8, u32)> = (0..n as u32)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((seed >> 24) as u8 % 7, i)
                })
                .collect();
            let mut a = v.clone();
            let mut b = v.clone();
            a.sort_by_key(|x| std::cmp::Reverse(x.0));
            sort_by(&mut b, |x, y| y.0.cmp(&x.0));
            assert_eq!(a, b);
        }
    }
}
