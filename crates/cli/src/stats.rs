//! Small statistics shared by the benchmark commands.

/// The `p`-quantile (0–1) of `v` by nearest rank; sorts `v`; 0 when empty.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}
