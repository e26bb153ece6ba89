//! How a list of strings to match is laid out: one string a line, or a
//! table (comma, semicolon or tab separated) with a header naming its
//! columns, and which column holds the affiliation strings.
//!
//! One rule for the Match page and `registry match`: the page calls it
//! through the wasm (`listLayout`, `guessColumn`), the CLI directly, so a
//! file the page reads one way is never read another way by the command.
//! (A shared table of header words checked on both sides would still leave
//! the delimiter, the one-column CSV and the fallback order written twice;
//! the whole rule is a few dozen lines, cheaper to ship than to keep in step.)
//! Both parse the table themselves afterwards (the CLI with the `csv` crate,
//! the page in JS): this module only reads the first line and the header.

/// A list's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One string a line.
    Lines,
    /// A table whose fields are separated by this byte, a header first.
    Delimited(u8),
}

/// The delimiters recognised, in the order that breaks a tie.
const DELIMITERS: [u8; 3] = [b',', b';', b'\t'];

/// The layout of a file called `name` whose text starts with `head` (at
/// least its first line that is not blank): `.txt` and `.lst` are lines,
/// `.tsv` is tab separated; otherwise the header line's delimiter decides,
/// and a line without one is a string, unless the file is a `.csv` whose
/// first line names its one column (`affiliation`).
pub fn layout(name: &str, head: &[u8]) -> Layout {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".txt") || lower.ends_with(".lst") {
        return Layout::Lines;
    }
    if lower.ends_with(".tsv") {
        return Layout::Delimited(b'\t');
    }
    let first = first_line(head);
    if let Some(d) = sniff_delimiter(first) {
        return Layout::Delimited(d);
    }
    let text = String::from_utf8_lossy(first);
    let text = text.trim();
    let unquoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    if lower.ends_with(".csv") && column_score(unquoted) > 0 {
        Layout::Delimited(b',')
    } else {
        Layout::Lines
    }
}

/// The first line of `text` that is not blank (without its line end).
pub fn first_line(text: &[u8]) -> &[u8] {
    text.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or(b"")
}

/// The delimiter of a header line: whichever of comma, semicolon and tab
/// occurs most outside quotes (the first of them on a tie), or `None` when
/// none does.
pub fn sniff_delimiter(line: &[u8]) -> Option<u8> {
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if let Some(k) = DELIMITERS.iter().position(|&d| d == b && !quoted) {
            counts[k] += 1;
        }
    }
    let (k, &count) = counts.iter().enumerate().rev().max_by_key(|&(_, c)| c)?;
    (count > 0).then_some(DELIMITERS[k])
}

/// How well a column name says it holds affiliation strings: higher is
/// better, 0 says nothing, below 0 is never guessed (an id or code column
/// holds identifiers, not strings to match).
pub fn column_score(header: &str) -> i32 {
    let lower = header.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|w| !w.is_empty())
        .collect();
    let Some(last) = words.last() else { return 0 };
    const ID_WORDS: [&str; 10] = [
        "id", "ids", "ror", "uuid", "code", "no", "nr", "num", "number", "key",
    ];
    if ID_WORDS.contains(last) {
        return -1;
    }
    let affiliation = |w: &&str| matches!(*w, "affiliation" | "affiliations");
    let organization = |w: &&str| {
        matches!(
            w.strip_suffix('s').unwrap_or(w),
            "organisation" | "organization" | "institution" | "employer" | "institute"
        )
    };
    if words.len() == 1 && affiliation(last) {
        5
    } else if words.iter().any(affiliation) {
        4
    } else if words.iter().any(organization) {
        3
    } else if [
        "affil",
        "organisation",
        "organization",
        "institut",
        "employer",
    ]
    .iter()
    .any(|p| header.to_ascii_lowercase().contains(p))
    {
        2
    } else {
        0
    }
}

/// The column to match: the best-named one (even if empty: the caller then
/// says so), else the first that holds text (`filled`) and is no id column,
/// else the first that is no id column, else the first.
pub fn guess_column<S: AsRef<str>>(header: &[S], filled: impl Fn(usize) -> bool) -> usize {
    let scores: Vec<i32> = header.iter().map(|h| column_score(h.as_ref())).collect();
    let best = (0..scores.len()).min_by_key(|&k| (-scores[k], k));
    match best {
        Some(k) if scores[k] > 0 => k,
        _ => (0..scores.len())
            .find(|&k| scores[k] == 0 && filled(k))
            .or_else(|| scores.iter().position(|&s| s == 0))
            .unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_then_the_header_line_decide_the_layout() {
        let d = Layout::Delimited;
        for (name, head, want) in [
            ("a.csv", &b"id,affiliation\n1,x\n"[..], d(b',')),
            ("export.csv", b"id;affiliation\n1;Cape, Town\n", d(b';')),
            ("list.dat", b"affiliation\tcountry\n", d(b'\t')),
            ("a.tsv", b"affiliation\n", d(b'\t')),
            ("a.txt", b"Dept of X, Univ Y\n", Layout::Lines),
            ("A.LST", b"a;b\n", Layout::Lines),
            ("list", b"Northfield University\nKestrel\n", Layout::Lines),
            ("one.csv", b"\n\r\n  \"Affiliation\"\r\nMIT\n", d(b',')),
            ("one.csv", b"Northfield University\nMIT\n", Layout::Lines),
            ("one", b"affiliation\nMIT\n", Layout::Lines),
            ("quoted.csv", b"\"a;b\",c\n", d(b',')),
            ("tie.csv", b"a;b,c\n", d(b',')),
            ("tie.csv", b"a\tb;c\n", d(b';')),
            ("empty.csv", b"", Layout::Lines),
        ] {
            assert_eq!(layout(name, head), want, "{name}: {head:?}");
        }
    }

    #[test]
    fn column_names_are_scored_by_whole_words() {
        for (name, want) in [
            ("Affiliation", 5),
            ("affiliations", 5),
            ("author affiliation", 4),
            ("Institution", 3),
            ("employer_name", 3),
            ("organisations", 3),
            ("AffiliationText", 2),
            ("institution_id", -1),
            ("ROR", -1),
            ("affiliation no", -1),
            ("name", 0),
            ("", 0),
            ("--", 0),
        ] {
            assert_eq!(column_score(name), want, "{name:?}");
        }
    }

    #[test]
    fn the_column_guess_prefers_names_then_text_never_ids() {
        let guess = |h: &[&str], filled: &[bool]| guess_column(h, |k| filled[k]);
        let cols = [
            "author_id",
            "name",
            "institution_id",
            "affiliation",
            "country",
        ];
        assert_eq!(guess(&cols, &[true; 5]), 3);
        assert_eq!(guess(&["org_id", "institution"], &[true, true]), 1);
        assert_eq!(
            guess(&["name", "affiliation"], &[true, false]),
            1,
            "even empty"
        );
        assert_eq!(guess(&["id", "a", "b"], &[true, false, true]), 2);
        assert_eq!(guess(&["id", "a", "b"], &[true, false, false]), 1);
        assert_eq!(guess(&["id", "ror"], &[true, true]), 0);
        assert_eq!(guess(&[], &[]), 0);
    }
}
