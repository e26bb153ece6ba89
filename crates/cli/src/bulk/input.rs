//! Reading the rows of `registry match`: a table with a header (RFC 4180,
//! comma, semicolon or tab separated, read with the `csv` crate), JSON
//! lines, or one string a line. Input comes from people's spreadsheets and
//! exports, so nothing in it is trusted: a row that cannot be read becomes a
//! row with an error (and its line number), never a lost row, and its bytes
//! are kept as they were so the output can repeat them.
//!
//! Which of these a file is, its delimiter and the column to match are
//! decided as the Match page decides them, by the core's one rule
//! (`registry_core::list_layout`). The `csv` crate reads leniently (a stray
//! quote is taken as text); each record's raw bytes are checked for the
//! quoting mistakes a person should hear about, and a quote never closed,
//! which the crate would run to the end of the file, costs its one line.

use registry_core::list_layout::{self, Layout};

/// The longest string matched; longer ones are reported, not matched (an
/// affiliation is a few hundred bytes; the matcher reads at most 1,200).
pub const MAX_TEXT: usize = 4096;

/// How the input is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Jsonl,
    Lines,
}

impl Format {
    pub fn parse(name: &str) -> Result<Format, String> {
        match name {
            "csv" => Ok(Format::Csv),
            "jsonl" | "ndjson" => Ok(Format::Jsonl),
            "lines" | "txt" => Ok(Format::Lines),
            _ => Err(format!(
                "--format must be csv, jsonl or lines, not '{name}'"
            )),
        }
    }

    /// The format of the file called `path` holding `data`: JSON lines by
    /// name or `--field`; a table when `--column` names one; standard input
    /// (`-`) otherwise holds one string a line, as pasted text does on the
    /// Match page; any other file is read by the page's rule.
    pub fn guess(path: &str, data: &[u8], column: bool, field: bool) -> Format {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") || field {
            Format::Jsonl
        } else if column {
            Format::Csv
        } else if path == "-" {
            Format::Lines
        } else {
            match list_layout::layout(path, data) {
                Layout::Lines => Format::Lines,
                Layout::Delimited(_) => Format::Csv,
            }
        }
    }
}

/// A row as read, kept for the output.
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// CSV fields, their bytes unquoted.
    Fields(Vec<Vec<u8>>),
    /// A line of a plain text file.
    Line(Vec<u8>),
    /// A JSON object, as its text (without surrounding white space).
    Object(String),
    /// A JSON line that is not an object: its bytes.
    NotObject(Vec<u8>),
}

/// One input row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The (1-based) line on which the row starts.
    pub line: usize,
    pub raw: Raw,
    /// The string to match, when the row could be read.
    pub text: Option<String>,
    /// Why the row is not matched (or what is wrong with it).
    pub error: Option<String>,
}

/// A whole input: its format, the header of a table (empty otherwise), the
/// rows, and the column matched when it was guessed rather than named.
pub struct Input {
    pub format: Format,
    pub header: Vec<Vec<u8>>,
    pub rows: Vec<Row>,
    pub guessed_column: Option<String>,
}

/// Reads the file called `name` holding `data`, as `format` or as guessed;
/// `column` and `field` name the table column or JSON member to match. `Err`
/// only for what makes the whole file unusable (no header, the column
/// missing): row problems are rows with an error.
pub fn read(
    name: &str,
    data: &[u8],
    format: Option<Format>,
    column: Option<&str>,
    field: Option<&str>,
) -> Result<Input, String> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data); // a spreadsheet's BOM
    let format =
        format.unwrap_or_else(|| Format::guess(name, data, column.is_some(), field.is_some()));
    let (header, rows, guessed_column) = match format {
        Format::Csv => read_csv(data, delimiter(name, data), column)?,
        Format::Jsonl => (Vec::new(), read_jsonl(data, field)?, None),
        Format::Lines => (Vec::new(), read_lines(data), None),
    };
    Ok(Input {
        format,
        header,
        rows,
        guessed_column,
    })
}

/// A table's delimiter: the page's rule, else (a file read as a table on
/// request) its header line's, else a comma.
fn delimiter(name: &str, data: &[u8]) -> u8 {
    match list_layout::layout(name, data) {
        Layout::Delimited(d) => d,
        Layout::Lines => {
            list_layout::sniff_delimiter(list_layout::first_line(data)).unwrap_or(b',')
        }
    }
}

fn is_blank(l: &[u8]) -> bool {
    l.iter().all(u8::is_ascii_whitespace)
}

/// Physical lines with their 1-based numbers (`\n` or `\r\n` ends a line).
fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    (!data.is_empty())
        .then(|| body.split(|&b| b == b'\n'))
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

/// One string a line, every line a row: a blank one is matched to nothing
/// (no error) and comes back as it was, so the output has a row per line.
fn read_lines(data: &[u8]) -> Vec<Row> {
    lines(data)
        .map(|(n, l)| {
            let mut row = Row {
                line: n,
                raw: Raw::Line(l.to_vec()),
                text: None,
                error: None,
            };
            set_text(&mut row, l, "the line");
            row
        })
        .collect()
}

/// Sets the row's text from `bytes`, or its error when they are not UTF-8
/// or too long to be an affiliation.
fn set_text(row: &mut Row, bytes: &[u8], what: &str) {
    if bytes.len() > MAX_TEXT {
        row.error = Some(format!(
            "line {}: {what} is {} bytes, longer than an affiliation string can be (at most {MAX_TEXT}); not matched",
            row.line,
            bytes.len()
        ));
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => row.text = Some(s.to_string()),
        Err(e) => {
            row.error = Some(format!(
                "line {}: {what} is not valid UTF-8 (byte {}); save the file as UTF-8",
                row.line,
                e.valid_up_to() + 1
            ))
        }
    }
}

fn read_jsonl(data: &[u8], field: Option<&str>) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let mut first_keys: Option<Vec<String>> = None;
    for (n, l) in lines(data) {
        if is_blank(l) {
            continue;
        }
        let trimmed = l.trim_ascii();
        let mut row = Row {
            line: n,
            raw: Raw::NotObject(l.to_vec()),
            text: None,
            error: None,
        };
        let Ok(text) = std::str::from_utf8(trimmed) else {
            row.error = Some(format!(
                "line {n}: not valid UTF-8, so not JSON; save the file as UTF-8"
            ));
            rows.push(row);
            continue;
        };
        let object = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(o)) => o,
            Ok(_) => {
                row.error = Some(format!("line {n}: a JSON value that is not an object"));
                rows.push(row);
                continue;
            }
            Err(e) => {
                row.error = Some(format!("line {n}: not JSON ({e})"));
                rows.push(row);
                continue;
            }
        };
        row.raw = Raw::Object(text.to_string());
        let keys = || object.keys().cloned().collect::<Vec<_>>();
        first_keys.get_or_insert_with(keys);
        let Some(field) = field else {
            return Err(format!(
                "JSON lines need --field <name>: the member holding the string (line {n} has: {})",
                keys().join(", ")
            ));
        };
        match object.get(field) {
            Some(serde_json::Value::String(s)) => set_text(&mut row, s.as_bytes(), field),
            Some(serde_json::Value::Null) | None => {
                row.error = Some(format!(
                    "line {n}: no \"{field}\" (this line has: {})",
                    keys().join(", ")
                ))
            }
            Some(_) => row.error = Some(format!("line {n}: \"{field}\" is not a string")),
        }
        rows.push(row);
    }
    // A field no line has is a mistake about the file, not about its rows.
    if let (Some(field), Some(keys)) = (field, &first_keys)
        && rows.iter().all(|r| r.text.is_none())
        && !rows.is_empty()
        && rows
            .iter()
            .all(|r| r.error.as_deref().is_some_and(|e| e.contains("no \"")))
    {
        return Err(format!(
            "no line has \"{field}\" (the first object has: {})",
            keys.join(", ")
        ));
    }
    Ok(rows)
}

/// A table's header, rows, and the column guessed when none was named.
type Table = (Vec<Vec<u8>>, Vec<Row>, Option<String>);

fn read_csv(data: &[u8], delimiter: u8, column: Option<&str>) -> Result<Table, String> {
    let mut records = csv_records(data, delimiter).into_iter();
    let header = loop {
        match records.next() {
            None => {
                return Err("the CSV is empty: it needs a header line naming its columns".into());
            }
            Some(r) if r.fields.iter().all(|f| is_blank(f)) => continue,
            Some(r) => {
                if let Some(e) = r.error {
                    return Err(format!("the CSV's header: {e}"));
                }
                break r.fields;
            }
        }
    };
    let names: Vec<String> = header
        .iter()
        .map(|h| String::from_utf8_lossy(h).trim().to_string())
        .collect();
    let records: Vec<CsvRecord> = records
        // An empty line is no row.
        .filter(|r| !(r.fields.len() == 1 && is_blank(&r.fields[0]) && r.error.is_none()))
        .collect();
    let (k, guessed) = match column {
        Some(column) => (column_named(&names, column)?, None),
        None => {
            let k = guessed_column(&names, &records);
            (k, Some(names[k].clone()))
        }
    };
    let what = format!("column '{}'", column.unwrap_or(&names[k]));
    let rows = records
        .into_iter()
        .map(|r| table_row(r, header.len(), k, &what))
        .collect();
    Ok((header, rows, guessed))
}

/// The index of the column called `column` (exactly, else in any case).
fn column_named(names: &[String], column: &str) -> Result<usize, String> {
    names
        .iter()
        .position(|n| n == column)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(column)))
        .ok_or_else(|| {
            format!(
                "the CSV has no column '{column}' (columns: {})",
                names.join(", ")
            )
        })
}

/// The column the Match page would match (the core's rule): a column
/// "holds text" when a row that can be read has more than white space in it.
fn guessed_column(names: &[String], records: &[CsvRecord]) -> usize {
    list_layout::guess_column(names, |k| {
        records
            .iter()
            .any(|r| r.error.is_none() && r.fields.len() == names.len() && !is_blank(&r.fields[k]))
    })
}

/// A data record as a row: its field `k` to match, or what is wrong with it.
fn table_row(r: CsvRecord, width: usize, k: usize, what: &str) -> Row {
    let count = r.fields.len();
    let field = (r.error.is_none() && count == width).then(|| r.fields[k].clone());
    let mut row = Row {
        line: r.line,
        raw: Raw::Fields(r.fields),
        text: None,
        error: r.error.map(|e| format!("line {}: {e}", r.line)),
    };
    match field {
        Some(f) => set_text(&mut row, &f, what),
        None if row.error.is_none() => {
            row.error = Some(format!(
                "line {}: {count} fields where the header has {width}",
                row.line
            ))
        }
        None => {}
    }
    row
}

/// A CSV record: its fields, the line it starts on, and what is wrong with
/// its quoting, if anything.
struct CsvRecord {
    line: usize,
    fields: Vec<Vec<u8>>,
    error: Option<String>,
}

/// The records of `data`, read by the `csv` crate (RFC 4180: quoted fields
/// may hold delimiters, line breaks and doubled quotes; CRLF, LF or CR end a
/// record; empty lines are skipped). The structure is ASCII, so any
/// encoding's bytes pass through. A quote never closed ends its record at
/// its first line (naively split), and reading starts again on the next, so
/// one stray quote cannot swallow the rest of the file.
fn csv_records(data: &[u8], delimiter: u8) -> Vec<CsvRecord> {
    let mut out = Vec::new();
    let (mut at, mut line) = (0, 1);
    while at < data.len() {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(&data[at..]);
        match read_until_unclosed(reader, data, at, line, delimiter, &mut out) {
            Some(next) => (at, line) = next,
            None => break,
        }
    }
    out
}

/// Reads records from `reader` (over `data[at..]`, starting on `line`) into
/// `out` up to the end, or up to a quote never closed: that record is cut
/// at its line's end, and the offset and line to read on from are returned.
fn read_until_unclosed(
    mut reader: csv::Reader<&[u8]>,
    data: &[u8],
    at: usize,
    line: usize,
    delimiter: u8,
    out: &mut Vec<CsvRecord>,
) -> Option<(usize, usize)> {
    let mut record = csv::ByteRecord::new();
    // Reading a byte slice cannot fail: no I/O, and byte records need no UTF-8.
    while reader.read_byte_record(&mut record).unwrap_or(false) {
        // A record just read always has its position: where reading it
        // began, before the line ends (and empty lines) the crate skipped.
        let (byte, line_in) = record.position().map_or((0, 1), |p| (p.byte(), p.line()));
        let (mut start, mut first_line) = (at + byte as usize, line + line_in as usize - 1);
        while let Some(&b @ (b'\r' | b'\n')) = data.get(start) {
            first_line += usize::from(b == b'\n');
            start += 1;
        }
        let end = at + reader.position().byte() as usize;
        let mistake = quoting_mistake(&data[start..end.max(start)], delimiter);
        if let Some(Mistake::NeverClosed(n)) = mistake {
            let eol = data[start..].iter().position(|&b| b == b'\n');
            let text = &data[start..eol.map_or(data.len(), |p| start + p)];
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            out.push(CsvRecord {
                line: first_line,
                fields: text
                    .split(|&b| b == delimiter)
                    .map(<[u8]>::to_vec)
                    .collect(),
                error: Some(Mistake::NeverClosed(n).to_string()),
            });
            return eol.map(|p| (start + p + 1, first_line + 1));
        }
        out.push(CsvRecord {
            line: first_line,
            fields: record.iter().map(<[u8]>::to_vec).collect(),
            error: mistake.map(|m| m.to_string()),
        });
    }
    None
}

/// A quoting mistake in a record (RFC 4180 reads none of them; the `csv`
/// crate reads the first two as text), with the field it is in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mistake {
    TextAfterQuote(usize),
    QuoteInside(usize),
    NeverClosed(usize),
}

impl std::fmt::Display for Mistake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mistake::TextAfterQuote(n) => write!(
                f,
                "text after the closing quote of field {n} (a quote inside a field is written \"\")"
            ),
            Mistake::QuoteInside(n) => write!(
                f,
                "a quote inside unquoted field {n} (quote the field and write the quote as \"\")"
            ),
            Mistake::NeverClosed(n) => write!(
                f,
                "field {n} opens a quote that is never closed (a quote inside a field is written \"\")"
            ),
        }
    }
}

/// The first quoting mistake in the raw bytes of one record, or a quote
/// still open at its end (the crate then read to the end of the file).
/// Records without a quote, nearly all, are passed over at once.
fn quoting_mistake(raw: &[u8], delimiter: u8) -> Option<Mistake> {
    if !raw.contains(&b'"') {
        return None;
    }
    let (mut field, mut first, mut opened) = (1, None, None);
    let (mut at_start, mut quoted, mut closed) = (true, false, false);
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        i += 1;
        if quoted {
            if b == b'"' && raw.get(i) == Some(&b'"') {
                i += 1;
            } else if b == b'"' {
                (quoted, closed) = (false, true);
            }
            continue;
        }
        if b == delimiter || b == b'\r' || b == b'\n' {
            field += usize::from(b == delimiter);
            (at_start, closed) = (true, false);
            continue;
        }
        if closed {
            first.get_or_insert(Mistake::TextAfterQuote(field));
        } else if b == b'"' && at_start {
            (quoted, opened) = (true, Some(field));
        } else if b == b'"' {
            first.get_or_insert(Mistake::QuoteInside(field));
        }
        at_start = false;
    }
    match opened {
        Some(n) if quoted => Some(Mistake::NeverClosed(n)),
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &[u8]) -> Vec<(usize, Vec<String>, Option<String>)> {
        csv_records(text, b',')
            .into_iter()
            .map(|r| {
                (
                    r.line,
                    r.fields
                        .iter()
                        .map(|f| String::from_utf8_lossy(f).into_owned())
                        .collect(),
                    r.error,
                )
            })
            .collect()
    }

    #[test]
    fn rfc4180_quoting_line_ends_and_line_numbers() {
        let r = csv(b"a,b\r\n\"x, \"\"y\"\"\",\"two\nlines\"\n3,\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].1, vec!["x, \"y\"", "two\nlines"]);
        assert_eq!(r[1].0, 2);
        assert_eq!((r[2].0, r[2].1.clone()), (4, vec!["3".into(), "".into()]));
        assert!(r.iter().all(|x| x.2.is_none()));
    }

    #[test]
    fn a_quote_never_closed_costs_one_row() {
        let r = csv(b"a,b\n\"open,1\nfine,2\nalso,3\n");
        assert_eq!(r.len(), 4);
        assert!(r[1].2.as_deref().unwrap().contains("never closed"));
        assert_eq!(r[1].1, vec!["\"open", "1"]);
        assert_eq!(
            (r[2].0, r[2].1.clone()),
            (3, vec!["fine".into(), "2".into()])
        );
        assert_eq!(r[3].0, 4);
    }

    #[test]
    fn stray_quotes_are_row_errors_with_the_text_kept() {
        let r = csv(b"\"ab\"c,d\ne\"f,g\n");
        assert_eq!(r[0].1, vec!["abc", "d"]);
        assert!(
            r[0].2
                .as_deref()
                .unwrap()
                .contains("after the closing quote")
        );
        assert_eq!(r[1].1, vec!["e\"f", "g"]);
        assert!(r[1].2.as_deref().unwrap().contains("unquoted field 1"));
    }

    #[test]
    fn rows_keep_their_bytes_and_report_what_is_wrong() {
        let data = b"id,aff\n1,Oxford\n2,Caf\xE9 Uni\n3\n4,\"x\n";
        let input = read("a.csv", data, None, Some("aff"), None).unwrap();
        assert_eq!(input.rows.len(), 4);
        assert_eq!(input.rows[0].text.as_deref(), Some("Oxford"));
        let errors: Vec<&str> = input.rows[1..]
            .iter()
            .map(|r| r.error.as_deref().unwrap())
            .collect();
        assert!(errors[0].starts_with("line 3:") && errors[0].contains("UTF-8"));
        assert!(errors[1].starts_with("line 4:") && errors[1].contains("1 fields"));
        assert!(errors[2].starts_with("line 5:") && errors[2].contains("never closed"));
        assert_eq!(
            input.rows[1].raw,
            Raw::Fields(vec![b"2".to_vec(), b"Caf\xE9 Uni".to_vec()])
        );
    }

    #[test]
    fn whole_file_mistakes_name_what_to_do() {
        let e = read("a.csv", b"id,aff\n1,x\n", None, Some("affiliation"), None)
            .err()
            .unwrap();
        assert!(e.contains("no column 'affiliation'") && e.contains("id, aff"));
        let e = read("a.csv", b"", None, Some("a"), None).err().unwrap();
        assert!(e.contains("empty"));
        let e = read("a.jsonl", b"{\"a\":\"x\"}\n", None, None, None)
            .err()
            .unwrap();
        assert!(e.contains("--field") && e.contains(": a"));
        let e = read("a.jsonl", b"{\"a\":\"x\"}\n", None, None, Some("b"))
            .err()
            .unwrap();
        assert!(e.contains("no line has \"b\""));
    }

    #[test]
    fn json_lines_rows() {
        let data = b"{\"s\":\"MIT\",\"n\":1}\n\n[1]\n{bad\n{\"s\":2}\n{\"t\":\"x\"}\n\xFF\n";
        let input = read("-", data, Some(Format::Jsonl), None, Some("s")).unwrap();
        let lines: Vec<usize> = input.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![1, 3, 4, 5, 6, 7]);
        assert_eq!(input.rows[0].text.as_deref(), Some("MIT"));
        assert_eq!(
            input.rows[0].raw,
            Raw::Object("{\"s\":\"MIT\",\"n\":1}".into())
        );
        for (r, want) in input.rows[1..].iter().zip([
            "not an object",
            "not JSON",
            "not a string",
            "no \"s\"",
            "UTF-8",
        ]) {
            assert!(r.error.as_deref().unwrap().contains(want), "{r:?}");
        }
    }

    #[test]
    fn plain_lines_keep_blank_ones_as_rows_and_refuse_huge_ones() {
        let mut data = b"MIT\r\n\n  \nCERN".to_vec();
        data.extend(b"\n");
        data.extend(vec![b'x'; MAX_TEXT + 1]);
        data.extend(b"\n");
        let input = read("list.txt", &data, None, None, None).unwrap();
        let got: Vec<(usize, Option<&str>)> = input
            .rows
            .iter()
            .map(|r| (r.line, r.text.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, Some("MIT")),
                (2, Some("")),
                (3, Some("  ")),
                (4, Some("CERN")),
                (5, None)
            ]
        );
        assert_eq!(input.rows[2].raw, Raw::Line(b"  ".to_vec()));
        assert!(input.rows[..4].iter().all(|r| r.error.is_none()));
        assert!(input.rows[4].error.as_deref().unwrap().contains("longer"));
        assert_eq!(read("l.txt", b"", None, None, None).unwrap().rows.len(), 0);
        assert_eq!(
            read("l.txt", b"\n", None, None, None).unwrap().rows.len(),
            1
        );
    }

    #[test]
    fn rfc4180_quoted_line_breaks_doubled_quotes_bom_and_crlf() {
        let data = b"\xEF\xBB\xBFid,affiliation\r\n\
1,\"Shinonome Institute\r\nTokyo\"\r\n\
2,\"Cape \"\"Fynbos\"\" Herbarium, Cape Town\"\r\n\
3,\"\"\r\n";
        let input = read("a.csv", data, None, None, None).unwrap();
        assert_eq!(input.header, vec![b"id".to_vec(), b"affiliation".to_vec()]);
        assert_eq!(input.guessed_column.as_deref(), Some("affiliation"));
        let got: Vec<(usize, Option<&str>)> = input
            .rows
            .iter()
            .map(|r| (r.line, r.text.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, Some("Shinonome Institute\r\nTokyo")),
                (4, Some("Cape \"Fynbos\" Herbarium, Cape Town")),
                (5, Some(""))
            ]
        );
        assert!(input.rows.iter().all(|r| r.error.is_none()));
    }

    #[test]
    fn a_row_of_empty_fields_is_a_row_a_blank_line_is_not() {
        let input = read(
            "a.csv",
            b"\n,\nname,affiliation\nAna,\n\n  \n,\n",
            None,
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            input.header,
            vec![b"name".to_vec(), b"affiliation".to_vec()]
        );
        let got: Vec<(usize, Option<&str>)> = input
            .rows
            .iter()
            .map(|r| (r.line, r.text.as_deref()))
            .collect();
        assert_eq!(got, vec![(4, Some("")), (7, Some(""))]);
    }

    #[test]
    fn the_page_rule_picks_the_delimiter_and_the_column() {
        let input = read(
            "export.csv",
            b"id;name;institution\n1;Ana;Cape, Town\n",
            None,
            None,
            None,
        )
        .unwrap();
        assert_eq!(input.format, Format::Csv);
        assert_eq!(input.guessed_column.as_deref(), Some("institution"));
        assert_eq!(input.rows[0].text.as_deref(), Some("Cape, Town"));
        let input = read("a.tsv", b"affiliation\nCape, Town\n", None, None, None).unwrap();
        assert_eq!(
            input.rows[0].text.as_deref(),
            Some("Cape, Town"),
            "a tab file"
        );
        let input = read("one.csv", b"Northfield University\nMIT\n", None, None, None).unwrap();
        assert_eq!((input.format, input.rows.len()), (Format::Lines, 2));
        let input = read("-", b"Dept of X, Univ Y\n", None, None, None).unwrap();
        assert_eq!(input.format, Format::Lines, "standard input is pasted text");
        let input = read("-", b"a;aff\n1;x\n", None, Some("AFF"), None).unwrap();
        assert_eq!(
            (input.rows[0].text.as_deref(), input.guessed_column),
            (Some("x"), None)
        );
    }
}
