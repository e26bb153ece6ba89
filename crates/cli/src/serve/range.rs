//! Byte ranges of static files (RFC 9110 §14): what a `Range` and an
//! `If-Range` ask of a file, and the HTTP date of `Last-Modified`.
//!
//! The site's data packs are read with one range per request
//! (`Range: bytes=a-b`), so a single range is answered with a 206 of exactly
//! those bytes; everything else this server may ignore (RFC 9110 §14.2) is
//! answered with the whole file, never with wrong bytes:
//! * several ranges (`bytes=0-1,5-6`) would need a `multipart/byteranges`
//!   answer; the whole file (200) is as correct and no reader of ours asks;
//! * a range that does not parse (`bytes=5-2`, `items=0-1`, a number with
//!   more digits than fit in 64 bits such as `bytes=0-99999999999999999999`)
//!   is ignored: the whole file;
//! * a range starting at or past the end (`bytes=10-` of a 10-byte file, or
//!   `bytes=-0`) is unsatisfiable: 416 with `Content-Range: bytes */10`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a request gets of a file of some length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranged {
    /// The whole file (no range asked, or one this server ignores).
    Whole,
    /// Bytes `start..=end` (inclusive, `end` < the file's length).
    Part { start: u64, end: u64 },
    /// A range no byte of the file is in: 416.
    Unsatisfiable,
}

/// A decimal number of digits only, or None (empty, a sign, a space, or
/// too large for 64 bits: such a range is ignored rather than clamped).
fn number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// What one `Range` value asks of a file of `total` bytes.
pub fn parse(value: &str, total: u64) -> Ranged {
    let Some((unit, set)) = value.split_once('=') else {
        return Ranged::Whole;
    };
    if !unit.trim().eq_ignore_ascii_case("bytes") {
        return Ranged::Whole;
    }
    // Several ranges: the whole file (see the module's comment).
    if set.contains(',') {
        return Ranged::Whole;
    }
    let Some((first, last)) = set.trim().split_once('-') else {
        return Ranged::Whole;
    };
    match (first, last) {
        // `bytes=-n`: the last n bytes (all of them when the file is shorter).
        ("", n) => match number(n) {
            None => Ranged::Whole,
            Some(0) => Ranged::Unsatisfiable,
            Some(_) if total == 0 => Ranged::Unsatisfiable,
            Some(n) => Ranged::Part {
                start: total.saturating_sub(n),
                end: total - 1,
            },
        },
        // `bytes=a-`: from a to the end.
        (a, "") => match number(a) {
            None => Ranged::Whole,
            Some(a) if a >= total => Ranged::Unsatisfiable,
            Some(a) => Ranged::Part {
                start: a,
                end: total - 1,
            },
        },
        // `bytes=a-b`: a last position past the end means the end.
        (a, b) => match (number(a), number(b)) {
            (Some(a), Some(b)) if a <= b => {
                if a >= total {
                    Ranged::Unsatisfiable
                } else {
                    Ranged::Part {
                        start: a,
                        end: b.min(total - 1),
                    }
                }
            }
            _ => Ranged::Whole,
        },
    }
}

/// Whether an `If-Range` value names the file as it is now (RFC 9110
/// §13.1.5), so that a range of it may be sent: an entity tag compared
/// strongly with `etag` (a weak one never matches; nor does the tag of a
/// brotli or gzip form, whose bytes a range of the file is not), or an HTTP
/// date equal to the file's `Last-Modified`, which must be strong: at least
/// a second before `now` (a file changed twice within one second has one
/// `Last-Modified` for two contents).
pub fn if_range_holds(
    value: &str,
    etag: &str,
    modified: Option<SystemTime>,
    now: SystemTime,
) -> bool {
    let value = value.trim();
    if value.starts_with("W/") {
        return false;
    }
    if value.starts_with('"') {
        return value == etag;
    }
    modified.is_some_and(|m| {
        http_date(m).is_some_and(|d| d == value)
            && now
                .duration_since(m)
                .is_ok_and(|d| d >= Duration::from_secs(1))
    })
}

/// What a request asks of a file of `total` bytes, given its `Range` and
/// `If-Range` values and the file's validators.
pub fn ranged(
    range: &str,
    if_range: Option<&str>,
    total: u64,
    etag: &str,
    modified: Option<SystemTime>,
) -> Ranged {
    if let Some(v) = if_range
        && !if_range_holds(v, etag, modified, SystemTime::now())
    {
        return Ranged::Whole;
    }
    parse(range, total)
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), the
/// form of `Last-Modified`; None before 1970.
pub fn http_date(t: SystemTime) -> Option<String> {
    let secs = t.duration_since(UNIX_EPOCH).ok()?.as_secs();
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    Some(format!(
        "{}, {day:02} {} {year:04} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// The proleptic Gregorian (year, month, day) of a day count since
/// 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ranged::*;

    #[test]
    fn single_ranges() {
        let p = |start, end| Part { start, end };
        for (value, want) in [
            ("bytes=0-0", p(0, 0)),
            ("bytes=2-5", p(2, 5)),
            ("bytes=2-", p(2, 9)),
            ("bytes=-3", p(7, 9)),
            ("bytes=-30", p(0, 9)),
            ("bytes=5-1000", p(5, 9)),
            ("bytes=9-9", p(9, 9)),
            ("Bytes=1-2", p(1, 2)),
            ("bytes= 1-2 ", p(1, 2)),
            ("bytes=0-18446744073709551615", p(0, 9)),
        ] {
            assert_eq!(parse(value, 10), want, "{value}");
        }
    }

    #[test]
    fn unsatisfiable_ranges() {
        for value in [
            "bytes=10-",
            "bytes=10-20",
            "bytes=-0",
            "bytes=18446744073709551615-",
        ] {
            assert_eq!(parse(value, 10), Unsatisfiable, "{value}");
        }
        for value in ["bytes=0-0", "bytes=-1", "bytes=0-"] {
            assert_eq!(parse(value, 0), Unsatisfiable, "{value}");
        }
    }

    #[test]
    fn ranges_ignored_are_the_whole_file() {
        for value in [
            "",
            "bytes",
            "bytes=",
            "bytes=-",
            "bytes=5-2",
            "bytes=a-b",
            "bytes=+1-2",
            "bytes=1 - 2",
            "bytes=0-1,5-6",
            "bytes=0-1, 3-",
            "items=0-1",
            "bytes=0-99999999999999999999",
            "bytes=99999999999999999999-",
            "bytes=-99999999999999999999",
            "bytes=1-2-3",
        ] {
            assert_eq!(parse(value, 10), Whole, "{value}");
        }
    }

    #[test]
    fn if_range_compares_strongly() {
        let etag = "\"1f-abc\"";
        let now = SystemTime::now();
        let modified = UNIX_EPOCH + Duration::from_secs(784_111_777);
        let holds = |v| if_range_holds(v, etag, Some(modified), now);
        assert!(holds("\"1f-abc\""));
        assert!(!holds("W/\"1f-abc\""));
        assert!(!holds("\"1f-abc-br\""));
        assert!(!holds("\"1f-abd\""));
        assert!(holds("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(!holds("Sun, 06 Nov 1994 08:49:38 GMT"));
        assert!(!holds("garbage"));
        // A Last-Modified less than a second old is weak: no range by date.
        assert!(!if_range_holds(
            &http_date(now).unwrap(),
            etag,
            Some(now),
            now
        ));
        assert_eq!(ranged("bytes=0-1", Some("\"x\""), 10, etag, None), Whole);
        assert_eq!(
            ranged("bytes=0-1", Some(etag), 10, etag, None),
            Part { start: 0, end: 1 }
        );
        // A range that would be unsatisfiable is ignored when If-Range fails.
        assert_eq!(ranged("bytes=50-", Some("\"x\""), 10, etag, None), Whole);
    }

    #[test]
    fn http_dates() {
        let at = |s| http_date(UNIX_EPOCH + Duration::from_secs(s)).unwrap();
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(at(1_709_251_199), "Thu, 29 Feb 2024 23:59:59 GMT");
        assert_eq!(at(4_102_444_800), "Fri, 01 Jan 2100 00:00:00 GMT");
    }
}
