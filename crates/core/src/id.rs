//! Registry identifiers: `https://ror.org/0xxxxxxNN`.
//!
//! An identifier is `0`, six Crockford base-32 digits and a two-digit checksum
//! (ISO/IEC 7064 MOD 97-10 over the base-32 number, as the registry generates
//! it: `98 - (n * 100 mod 97)`). The six digits hold a number below 2^30, so an
//! identifier fits in a `u32`, which is how shards store it.
//!
//! Accepted input forms (all case-insensitive, surrounding whitespace ignored,
//! percent-encoding decoded once, one trailing `/` tolerated):
//! `https://ror.org/X`, `http://ror.org/X`, `ror.org/X`, `www.ror.org/X`, and `X`.
//! Upstream rejects upper case and whitespace; we accept them because people
//! paste identifiers from PDFs and spreadsheets, and the checksum still guards
//! against typos.

use std::fmt;

/// The host part of every identifier URL.
pub const ID_HOST: &str = "ror.org";
/// The prefix of every identifier URL.
pub const ID_BASE: &str = "https://ror.org/";

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A validated registry identifier (the 30-bit number behind the unique string).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RecordId(u32);

/// Why a string is not a registry identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdError {
    /// The text does not have the shape of an identifier at all.
    Malformed {
        /// The input as given.
        input: String,
    },
    /// The shape is right but the two check digits do not match the number:
    /// usually a typo in one of the characters.
    BadChecksum {
        /// The input as given.
        input: String,
        /// The check digits the number requires.
        expected: String,
        /// The check digits found in the input.
        found: String,
    },
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Malformed { input } => write!(f, "'{input}' is not a valid registry ID"),
            IdError::BadChecksum {
                input,
                expected,
                found,
            } => write!(
                f,
                "'{input}' is not a valid registry ID: its check digits are '{found}' but should be '{expected}' (is a character mistyped?)"
            ),
        }
    }
}

impl std::error::Error for IdError {}

fn digit_value(c: u8) -> Option<u32> {
    let c = c.to_ascii_lowercase();
    ALPHABET.iter().position(|&a| a == c).map(|p| p as u32)
}

/// The check digits for a number, as the registry computes them.
pub fn checksum(n: u32) -> u32 {
    98 - ((n as u64 * 100) % 97) as u32
}

impl RecordId {
    /// The largest number six base-32 digits can hold.
    pub const MAX: u32 = (1 << 30) - 1;

    /// Wraps a number; `None` when it needs more than six base-32 digits.
    pub fn from_number(n: u32) -> Option<RecordId> {
        (n <= Self::MAX).then_some(RecordId(n))
    }

    /// The number behind the unique string.
    pub fn number(self) -> u32 {
        self.0
    }

    /// The nine-character unique string, e.g. `02mhbdp94`.
    pub fn unique(self) -> String {
        let mut s = String::with_capacity(9);
        s.push('0');
        for shift in (0..6).rev() {
            s.push(ALPHABET[((self.0 >> (shift * 5)) & 31) as usize] as char);
        }
        s.push_str(&format!("{:02}", checksum(self.0)));
        s
    }

    /// The full identifier URL, e.g. `https://ror.org/02mhbdp94`.
    pub fn url(self) -> String {
        format!("{ID_BASE}{}", self.unique())
    }

    /// Parses any accepted form (see the module docs).
    pub fn parse(input: &str) -> Result<RecordId, IdError> {
        let malformed = || IdError::Malformed {
            input: input.to_string(),
        };
        let decoded = percent_decode(input.trim());
        let unique = strip_prefix(&decoded).ok_or_else(malformed)?;
        let b = unique.as_bytes();
        if b.len() != 9 || b[0] != b'0' || !b[7].is_ascii_digit() || !b[8].is_ascii_digit() {
            return Err(malformed());
        }
        let mut n = 0u32;
        for &c in &b[1..7] {
            n = n * 32 + digit_value(c).ok_or_else(malformed)?;
        }
        let found = &unique[7..9];
        let expected = format!("{:02}", checksum(n));
        if found != expected {
            return Err(IdError::BadChecksum {
                input: input.to_string(),
                expected,
                found: found.to_string(),
            });
        }
        Ok(RecordId(n))
    }

    /// True when `input` has the shape of an identifier (checksum not checked).
    /// Used to tell "a mistyped identifier" from "a name".
    pub fn looks_like_id(input: &str) -> bool {
        !matches!(RecordId::parse(input), Err(IdError::Malformed { .. }))
    }
}

impl fmt::Display for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url())
    }
}

/// Removes an optional `http(s)://`, `www.` and `ror.org/` prefix and one
/// trailing slash; `None` when a prefix is present but incomplete or foreign.
fn strip_prefix(s: &str) -> Option<&str> {
    let lower = s.to_ascii_lowercase();
    let mut rest = s;
    let mut rest_lower = lower.as_str();
    let mut had_scheme = false;
    for scheme in ["https://", "http://"] {
        if let Some(r) = rest_lower.strip_prefix(scheme) {
            rest = &rest[scheme.len()..];
            rest_lower = r;
            had_scheme = true;
            break;
        }
    }
    if rest_lower.starts_with("www.") {
        rest = &rest[4..];
        rest_lower = &rest_lower[4..];
    }
    let host = format!("{ID_HOST}/");
    if rest_lower.starts_with(&host) {
        rest = &rest[host.len()..];
    } else if had_scheme || rest.contains('/') && !rest.ends_with('/') {
        return None;
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    (!rest.contains('/')).then_some(rest)
}

/// Decodes `%XX` escapes once; invalid escapes are kept verbatim and bytes
/// that are not UTF-8 become U+FFFD (the router first refuses a request
/// target with either, naming the bad part: see `percent_unescape`).
pub fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    String::from_utf8_lossy(&percent_unescape(s).bytes).into_owned()
}

/// The bytes `%XX` escapes stand for, and where decoding them went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unescaped {
    /// `s` with each `%XX` escape decoded once; a `%` not followed by two
    /// hexadecimal digits stays as text.
    pub bytes: Vec<u8>,
    /// The offset in `s` of the first such `%`, if any.
    pub malformed: Option<usize>,
}

/// Decodes the `%XX` escapes of `s` once: the one decoder of both the
/// lenient reading (`percent_decode`) and the router's check that tells the
/// client which escape is wrong.
pub fn percent_unescape(s: &str) -> Unescaped {
    let b = s.as_bytes();
    let hex = |i: usize| b.get(i).and_then(|&c| (c as char).to_digit(16));
    let mut out = Unescaped {
        bytes: Vec::with_capacity(b.len()),
        malformed: None,
    };
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) {
                out.bytes.push((high * 16 + low) as u8);
                i += 3;
                continue;
            }
            out.malformed.get_or_insert(i);
        }
        out.bytes.push(b[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode_once_and_bad_ones_are_located() {
        assert_eq!(percent_decode("100%25%20sure"), "100% sure");
        assert_eq!(percent_decode("%2541"), "%41", "decoded once");
        assert_eq!(percent_decode("a%ZZ%4"), "a%ZZ%4");
        assert_eq!(percent_decode("Universit%E9"), "Universit\u{FFFD}");
        let u = percent_unescape("x%41%G0%");
        assert_eq!((u.bytes.as_slice(), u.malformed), (&b"xA%G0%"[..], Some(4)));
        assert_eq!(percent_unescape("%e6%9d%b1").malformed, None);
    }

    #[test]
    fn round_trips_the_unique_string() {
        let id = RecordId::parse("02mhbdp94").unwrap();
        assert_eq!(id.unique(), "02mhbdp94");
        assert_eq!(id.url(), "https://ror.org/02mhbdp94");
        for n in [0, 1, 31, 32, 12345, RecordId::MAX] {
            let id = RecordId::from_number(n).unwrap();
            assert_eq!(RecordId::parse(&id.unique()), Ok(id));
        }
        assert!(RecordId::from_number(RecordId::MAX + 1).is_none());
    }

    #[test]
    fn accepts_every_documented_form() {
        let want = RecordId::parse("02mhbdp94").unwrap();
        for form in [
            "https://ror.org/02mhbdp94",
            "http://ror.org/02mhbdp94",
            "ror.org/02mhbdp94",
            "ror.org%2F02mhbdp94",
            "https%3A%2F%2Fror.org%2F02mhbdp94",
            "  https://ror.org/02mhbdp94/ ",
            "HTTPS://ROR.ORG/02MHBDP94",
            "https://www.ror.org/02mhbdp94",
        ] {
            assert_eq!(RecordId::parse(form), Ok(want), "{form}");
        }
    }

    #[test]
    fn rejects_foreign_or_broken_shapes() {
        for bad in [
            "",
            "http://02mhbdp94",
            "https://example.org/02mhbdp94",
            "12mhbdp94",
            "02mhbdp9",
            "02mhbdp945",
            "02mhbdpi4",
            "0w7hudk2x",
            "ror.org/",
            "grid.4991.5",
        ] {
            assert!(
                matches!(RecordId::parse(bad), Err(IdError::Malformed { .. })),
                "{bad}: {:?}",
                RecordId::parse(bad)
            );
        }
    }

    #[test]
    fn reports_a_bad_checksum_as_such() {
        let err = RecordId::parse("02mhbdp95").unwrap_err();
        match &err {
            IdError::BadChecksum {
                expected, found, ..
            } => {
                assert_eq!(expected, "94");
                assert_eq!(found, "95");
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("check digits"));
        assert!(RecordId::looks_like_id("02mhbdp95"));
        assert!(!RecordId::looks_like_id("oxford"));
    }

    #[test]
    fn checksum_matches_the_iso_7064_definition() {
        // ISO 7064 MOD 97-10: appending the check digits makes the number ≡ 1 (mod 97).
        for n in [0u32, 7, 1000, 99_999, 1 << 29] {
            let c = checksum(n) as u64;
            assert_eq!((n as u64 * 100 + c) % 97, 1, "{n}");
        }
    }
}
