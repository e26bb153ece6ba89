//! Value parsers and defaults shared by several commands' arguments
//! (`build`, `site`, `bench-shard`, `bench-pieces`, `check-host`): the
//! commands' argument structs use them and the command line (`cli.rs`)
//! uses those structs, so they live here, below both.

/// Default zstd level of the built files: slow to build (seconds), smallest
/// to ship.
pub const DEFAULT_ZSTD_LEVEL: i32 = 19;

/// `--level <1-22>`: a zstd level.
pub fn zstd_level(v: &str) -> Result<i32, String> {
    v.parse()
        .ok()
        .filter(|l| (1..=22).contains(l))
        .ok_or_else(|| "a zstd level is 1–22".to_string())
}

/// A number of seconds (decimals allowed) above 0, at most `max`.
pub fn seconds_up_to(v: &str, max: f64) -> Result<std::time::Duration, String> {
    v.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= max)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("a number of seconds above 0, at most {max}"))
}
