//! Established years over a list's matches: the `established=<range>`
//! extension (narrows a list to the records whose year is in the range,
//! written in E3's range syntax) and the `histogram=established` extension
//! (`meta.established`: every year's exact count over all matches), both
//! applied by the router after E2, E3 or `mode=typed` found the matches,
//! so they compose with every query and `filter` the same way.
//!
//! The spec's `filter` has no year field and E2 cannot be combined with
//! `query.advanced`; without these a search page could narrow a keyword
//! search by years only by rewriting it as an E3 expression (which reads
//! the words differently).
//!
//! The range is parsed by the E3 parser itself (`established:<range>`), so
//! `[1900 TO 1950]`, `{1900 TO 1950}`, `[1900 TO *]`, `>=1900` and `<1950`
//! mean exactly what they mean in `query.advanced`; anything else (a
//! word, a second clause) is an error naming what to write.

use std::ops::Bound;

use serde::Serialize;

use crate::advanced::{self, Field, Node, Predicate, RangeBounds, Target};
use crate::registry::Registry;

/// Version of `meta.established` (listed under `extensions` in the root
/// answer); a change of its shape gets a new number.
pub const VERSION: u32 = 1;

/// A range of years, as E3 reads `established:<range>`.
#[derive(Clone, Debug, PartialEq)]
pub struct YearRange {
    lower: Bound<f64>,
    upper: Bound<f64>,
}

impl YearRange {
    /// Parses the value of `established=` (`[1900 TO 1950]`, `>=1900`, …).
    pub fn parse(value: &str) -> Result<YearRange, String> {
        let hint = "write a range of years as in query.advanced, e.g. established=[1900 TO 1950], {1900 TO 1950}, [1900 TO *] or >=1900";
        let query = advanced::parse(&format!("established:{}", value.trim()))
            .map_err(|e| format!("established '{value}': {e}"))?;
        match query.root() {
            Some(Node::Clause(c)) if c.target == Target::Field(Field::Established) => {
                match &c.predicate {
                    Predicate::Range(r) => match r.bounds() {
                        RangeBounds::Number(lower, upper) => Ok(YearRange {
                            lower: *lower,
                            upper: *upper,
                        }),
                        _ => Err(format!(
                            "established '{value}' is not a range of years; {hint}"
                        )),
                    },
                    _ => Err(format!("established '{value}' is not a range; {hint}")),
                }
            }
            _ => Err(format!("established '{value}' is not one range; {hint}")),
        }
    }

    /// Whether `year` is in the range (E3's comparison of a year with its bounds).
    pub fn contains(&self, year: i64) -> bool {
        let y = year as f64;
        let above = match self.lower {
            Bound::Included(l) => y >= l,
            Bound::Excluded(l) => y > l,
            Bound::Unbounded => true,
        };
        let below = match self.upper {
            Bound::Included(u) => y <= u,
            Bound::Excluded(u) => y < u,
            Bound::Unbounded => true,
        };
        above && below
    }
}

/// One year's count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct YearCount {
    /// The established year.
    pub year: i64,
    /// Matches established that year.
    pub count: usize,
}

/// `meta.established`: the matches by established year.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct YearCounts {
    /// [`VERSION`].
    pub version: u32,
    /// Every year with a match, in year order.
    pub years: Vec<YearCount>,
    /// Matches without an established year.
    pub unknown: usize,
}

/// Each of `records`' established years, in order (the records section
/// must be loaded; only the year is decoded).
fn years_of<'a>(
    registry: &'a Registry,
    records: &'a [u32],
) -> impl Iterator<Item = Result<Option<i64>, crate::shard::ShardError>> + 'a {
    records.iter().map(|&r| registry.established(r as usize))
}

/// The records (with their scores) whose year is in `range`.
pub fn keep_in_range(
    registry: &Registry,
    range: &YearRange,
    records: &mut Vec<u32>,
    scores: &mut Vec<f32>,
) -> Result<(), crate::shard::ShardError> {
    let keep: Vec<bool> = years_of(registry, records)
        .map(|y| y.map(|y| y.is_some_and(|y| range.contains(y))))
        .collect::<Result<_, _>>()?;
    let mut i = 0;
    records.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    // Scores are parallel to the records (E3's are all 0).
    if scores.len() == keep.len() {
        let mut i = 0;
        scores.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }
    Ok(())
}

/// Every established year's count over `records`.
pub fn histogram(
    registry: &Registry,
    records: &[u32],
) -> Result<YearCounts, crate::shard::ShardError> {
    // In year order as they come: a few hundred distinct years, so a
    // binary search and a rare insert (and no sort in the wasm).
    let mut counts: Vec<YearCount> = Vec::new();
    let mut unknown = 0;
    for y in years_of(registry, records) {
        let Some(year) = y? else {
            unknown += 1;
            continue;
        };
        match counts.binary_search_by(|c| c.year.cmp(&year)) {
            Ok(i) => counts[i].count += 1,
            Err(i) => counts.insert(i, YearCount { year, count: 1 }),
        }
    }
    Ok(YearCounts {
        version: VERSION,
        years: counts,
        unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_as_e3_reads_them() {
        let r = YearRange::parse("[1900 TO 1950]").unwrap();
        assert!(r.contains(1900) && r.contains(1950) && !r.contains(1899) && !r.contains(1951));
        let r = YearRange::parse("{1900 TO 1950}").unwrap();
        assert!(!r.contains(1900) && r.contains(1901) && r.contains(1949) && !r.contains(1950));
        let r = YearRange::parse("[1900 TO *]").unwrap();
        assert!(r.contains(2024) && !r.contains(1899));
        let r = YearRange::parse(">=1990").unwrap();
        assert!(r.contains(1990) && !r.contains(1989));
        for bad in ["1900", "[a TO b]", "[1900 TO 1950] OR x", "", "[1900 TO"] {
            let e = YearRange::parse(bad).unwrap_err();
            assert!(e.contains("established"), "{bad}: {e}");
        }
    }
}
