//! Decimal text to `f64`, correctly rounded (ties to even), without the
//! standard library's float parser, whose tables and code are about 5 KB of
//! the compressed wasm. The registry parses decimals in two places: numbers
//! stored in the shard as digits and a scale, and numbers in advanced
//! queries.
//!
//! The value `mantissa × 10^exp` is divided out exactly in `u128` (long
//! division, one quotient bit at a time), so the range is bounded: 19
//! significant digits and |exp| ≤ 38, which covers every magnitude from
//! 1e-19 to 1e38. Longer numbers are cut to 19 digits; the answer is kept
//! when the cut value and the cut value plus one unit round to the same
//! `f64` (almost always), and is `None` otherwise. Outside what is covered
//! the functions return `None` where the standard parser gives a number:
//! never a different number.

/// Largest power of ten used (10^38 < 2^127, so remainders can be doubled
/// in `u128`).
const MAX_EXP: i64 = 38;

/// `±mantissa × 10^exp` as the nearest `f64`. `cut` says that digits were
/// dropped: the true value lies strictly between `mantissa` and
/// `mantissa + 1` units of `10^exp`.
pub(crate) fn from_parts(negative: bool, mantissa: u64, exp: i64, cut: bool) -> Option<f64> {
    let v = if mantissa == 0 {
        0.0
    } else if cut {
        let v = exact(mantissa, exp)?;
        (exact(mantissa + 1, exp)? == v).then_some(v)?
    } else {
        exact(mantissa, exp)?
    };
    Some(if negative { -v } else { v })
}

/// `mantissa × 10^exp` (mantissa > 0), correctly rounded.
fn exact(mantissa: u64, exp: i64) -> Option<f64> {
    if exp.abs() > MAX_EXP {
        return None;
    }
    Some(if exp >= 0 {
        ratio((mantissa as u128).checked_mul(10u128.pow(exp as u32))?, 1)
    } else {
        ratio(mantissa as u128, 10u128.pow((-exp) as u32))
    })
}

/// `n / d` rounded to the nearest `f64`, ties to even. Needs `n > 0` and
/// `0 < d < 2^127`; the result is a normal number (n < 2^128, d < 2^127).
fn ratio(n: u128, d: u128) -> f64 {
    const LOW: u128 = 1 << 53;
    const HIGH: u128 = 1 << 54;
    // Bring the quotient to 54 bits (53 + a guard bit): value = (q + r/d) · 2^exp.
    let (mut q, mut r) = (n / d, n % d);
    let mut exp: i32 = 0;
    let mut sticky;
    if q >= HIGH {
        sticky = r != 0;
        while q >= HIGH {
            sticky |= q & 1 == 1;
            q >>= 1;
            exp += 1;
        }
    } else {
        while q < LOW {
            r <<= 1;
            q <<= 1;
            if r >= d {
                r -= d;
                q |= 1;
            }
            exp -= 1;
        }
        sticky = r != 0;
    }
    let guard = q & 1 == 1;
    let mut mant = (q >> 1) as u64;
    exp += 1;
    if guard && (sticky || mant & 1 == 1) {
        mant += 1;
        if mant == 1 << 53 {
            mant >>= 1;
            exp += 1;
        }
    }
    // mant < 2^53 is exact; the power of two is a normal number here.
    mant as f64 * f64::from_bits(((exp + 1023) as u64) << 52)
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (a digit before or after
/// the point) as `str::parse::<f64>` would, within the range above.
pub(crate) fn parse(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let (mut mantissa, mut kept, mut exp, mut cut) = (0u64, 0, 0i64, false);
    let (mut any_digit, mut point) = (false, false);
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                any_digit = true;
                let v = u64::from(c - b'0');
                if mantissa == 0 && v == 0 {
                    // A leading zero: only its place value counts.
                    exp -= i64::from(point);
                } else if kept < 19 {
                    mantissa = mantissa * 10 + v;
                    kept += 1;
                    exp -= i64::from(point);
                } else {
                    cut |= v != 0;
                    exp += i64::from(!point);
                }
            }
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if !any_digit {
        return None;
    }
    if i < b.len() {
        if !matches!(b[i], b'e' | b'E') {
            return None;
        }
        i += 1;
        let e_negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut e = 0i64;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        if i == start || i != b.len() {
            return None;
        }
        exp += if e_negative { -e } else { e };
    }
    from_parts(negative, mantissa, exp, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: deterministic test inputs.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// Same answer as the standard parser; for more than 19 significant
    /// digits or outside the covered magnitudes, the same answer or none.
    fn same(s: &str) -> bool {
        let want = s.parse::<f64>().ok().filter(|v| v.is_finite());
        let got = parse(s);
        let digits = s
            .split(['e', 'E'])
            .next()
            .unwrap_or("")
            .trim_start_matches(['-', '+', '0', '.'])
            .trim_end_matches(['0', '.'])
            .bytes()
            .filter(u8::is_ascii_digit)
            .count();
        let covered = want.is_none_or(|v| v == 0.0 || (1e-19..1e38).contains(&v.abs()));
        if (covered && digits <= 19) || got.is_some() {
            assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{s}");
        }
        got.is_some()
    }

    #[test]
    fn agrees_with_the_standard_parser() {
        for s in [
            "0",
            "-0",
            "+0",
            "0.0",
            "1",
            "-1",
            "12",
            "-33.9",
            "1e3",
            "1E+3",
            "1.5e-3",
            ".5",
            "5.",
            "-.5e-2",
            "42.09975",
            "-87.7809",
            "0.1",
            "0.2",
            "0.3",
            "1.7976931348623157e2",
            "9007199254740993",
            "9007199254740992.5",
            "18446744073709551615",
            "1234567890123456789",
            "12345678901234567890123",
            "0.000000000000000000001",
            "1e38",
            "1e-38",
            "123456789012345678901234567890e-20",
            "2.5",
            "3.5",
            "0.30000000000000004",
            "14.583333333333334",
            "0e999",
            "000123.4500",
        ] {
            same(s);
        }
        // Exactly halfway between two doubles, then a hair above: ties go to
        // even, the hair rounds up (needs the dropped-digit flag).
        same("9007199254740993");
        same("9007199254740993.000000000001");
        same("9007199254740995");
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut long, mut long_answered) = (0, 0);
        for _ in 0..200_000 {
            let digits = 1 + rng.next() % 22;
            let mut s = String::new();
            if rng.next().is_multiple_of(2) {
                s.push('-');
            }
            for k in 0..digits {
                s.push((b'0' + (rng.next() % 10) as u8) as char);
                if k == rng.next() % digits {
                    s.push('.');
                }
            }
            if rng.next().is_multiple_of(3) {
                s.push_str(&format!("e{}", (rng.next() % 36) as i64 - 18));
            }
            let answered = same(&s);
            if digits > 19 && s.matches('.').count() <= 1 {
                long += 1;
                long_answered += usize::from(answered);
            }
        }
        // Cut numbers are answered almost always (the rest is out of range
        // or straddles a rounding boundary).
        assert!(long_answered * 10 > long * 9, "{long_answered} of {long}");
        // Shortest representations of random doubles of every magnitude in range.
        for _ in 0..200_000 {
            let v = f64::from_bits(rng.next());
            if v.is_finite() && (1e-30..1e30).contains(&v.abs()) {
                same(&v.to_string());
                same(&format!("{v:e}"));
            }
        }
    }

    #[test]
    fn rejects_what_is_not_a_decimal_or_out_of_range() {
        for s in [
            "", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "1-2", "1e5x", "--1", "inf", "NaN",
        ] {
            assert_eq!(parse(s), None, "{s}");
        }
        assert_eq!(parse("1e39"), None);
        assert_eq!(parse("1e-39"), None);
        assert_eq!(from_parts(false, 5, -39, false), None);
    }
}
