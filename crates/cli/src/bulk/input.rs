//! Reading the rows of `registry match`: a CSV with a header (RFC 4180),
//! JSON lines, or one string a line. Input comes from people's spreadsheets
//! and exports, so nothing in it is trusted: a row that cannot be read
//! becomes a row with an error (and its line number), never a lost row, and
//! its bytes are kept as they were so the output can repeat them.

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

    /// The format a file name suggests, else the one its options imply.
    pub fn guess(path: &str, column: bool, field: bool) -> Format {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".csv") {
            Format::Csv
        } else if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
            Format::Jsonl
        } else if column {
            Format::Csv
        } else if field {
            Format::Jsonl
        } else {
            Format::Lines
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

/// A whole input: the header of a CSV (empty otherwise) and the rows.
pub struct Input {
    pub header: Vec<Vec<u8>>,
    pub rows: Vec<Row>,
}

/// Reads `data` as `format`; `key` is the CSV column or JSON field. `Err`
/// only for what makes the whole file unusable (no header, the column
/// missing): row problems are rows with an error.
pub fn read(data: &[u8], format: Format, key: Option<&str>) -> Result<Input, String> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data); // a spreadsheet's BOM
    match format {
        Format::Csv => read_csv(data, key),
        Format::Jsonl => read_jsonl(data, key),
        Format::Lines => Ok(Input {
            header: Vec::new(),
            rows: lines(data)
                .filter(|(_, l)| !is_blank(l))
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
                .collect(),
        }),
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

fn read_jsonl(data: &[u8], field: Option<&str>) -> Result<Input, String> {
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
    Ok(Input {
        header: Vec::new(),
        rows,
    })
}

fn read_csv(data: &[u8], column: Option<&str>) -> Result<Input, String> {
    let mut records = CsvRecords {
        data,
        at: 0,
        line: 1,
    };
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
    let Some(column) = column else {
        return Err(format!(
            "a CSV needs --column <name>: the column holding the strings (columns: {})",
            names.join(", ")
        ));
    };
    let Some(k) = names
        .iter()
        .position(|n| n == column)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(column)))
    else {
        return Err(format!(
            "the CSV has no column '{column}' (columns: {})",
            names.join(", ")
        ));
    };
    let mut rows = Vec::new();
    for r in records {
        if r.fields.len() == 1 && is_blank(&r.fields[0]) && r.error.is_none() {
            continue; // an empty line is no row
        }
        let count = r.fields.len();
        let field = (r.error.is_none() && count == header.len()).then(|| r.fields[k].clone());
        let mut row = Row {
            line: r.line,
            raw: Raw::Fields(r.fields),
            text: None,
            error: r.error.map(|e| format!("line {}: {e}", r.line)),
        };
        match field {
            Some(f) => set_text(&mut row, &f, &format!("column '{column}'")),
            None if row.error.is_none() => {
                row.error = Some(format!(
                    "line {}: {count} fields where the header has {}",
                    row.line,
                    header.len()
                ))
            }
            None => {}
        }
        rows.push(row);
    }
    Ok(Input { header, rows })
}

/// A CSV record: its fields, the line it starts on, and what is wrong with
/// its quoting, if anything.
struct CsvRecord {
    line: usize,
    fields: Vec<Vec<u8>>,
    error: Option<String>,
}

/// RFC 4180 records over bytes (the structure is ASCII, so any encoding's
/// bytes pass through). Quoting mistakes are kept as the record's error and
/// reading goes on: a quote never closed ends the record at its first line
/// (naively split), so one stray quote cannot swallow the rest of the file.
struct CsvRecords<'a> {
    data: &'a [u8],
    at: usize,
    line: usize,
}

impl Iterator for CsvRecords<'_> {
    type Item = CsvRecord;

    fn next(&mut self) -> Option<CsvRecord> {
        let d = self.data;
        if self.at >= d.len() {
            return None;
        }
        let (start, start_line) = (self.at, self.line);
        let mut fields = Vec::new();
        let mut error: Option<String> = None;
        let mut i = self.at;
        loop {
            let mut field = Vec::new();
            let n = fields.len() + 1;
            if d.get(i) == Some(&b'"') {
                i += 1;
                let mut closed = false;
                while i < d.len() {
                    match d[i] {
                        b'"' if d.get(i + 1) == Some(&b'"') => {
                            field.push(b'"');
                            i += 2;
                        }
                        b'"' => {
                            i += 1;
                            closed = true;
                            break;
                        }
                        b => {
                            self.line += usize::from(b == b'\n');
                            field.push(b);
                            i += 1;
                        }
                    }
                }
                if !closed {
                    let end = d[start..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(d.len(), |p| start + p);
                    let line = d[start..end].strip_suffix(b"\r").unwrap_or(&d[start..end]);
                    self.at = (end + 1).min(d.len());
                    self.line = start_line + 1;
                    return Some(CsvRecord {
                        line: start_line,
                        fields: line.split(|&b| b == b',').map(<[u8]>::to_vec).collect(),
                        error: Some(format!(
                            "field {n} opens a quote that is never closed (a quote inside a field is written \"\")"
                        )),
                    });
                }
                if !matches!(d.get(i), None | Some(b',' | b'\n' | b'\r')) {
                    error.get_or_insert(format!(
                        "text after the closing quote of field {n} (a quote inside a field is written \"\")"
                    ));
                }
            }
            // Unquoted text, or what follows a closing quote by mistake.
            while i < d.len() && !matches!(d[i], b',' | b'\n') {
                if d[i] == b'"' {
                    error.get_or_insert(format!(
                        "a quote inside unquoted field {n} (quote the field and write the quote as \"\")"
                    ));
                }
                field.push(d[i]);
                i += 1;
            }
            match d.get(i) {
                Some(b',') => {
                    fields.push(field);
                    i += 1;
                }
                _ => {
                    if d.get(i) == Some(&b'\n') && field.last() == Some(&b'\r') {
                        field.pop();
                    }
                    fields.push(field);
                    if i < d.len() {
                        self.line += 1;
                        i += 1;
                    }
                    break;
                }
            }
        }
        self.at = i;
        Some(CsvRecord {
            line: start_line,
            fields,
            error,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &[u8]) -> Vec<(usize, Vec<String>, Option<String>)> {
        CsvRecords {
            data: text,
            at: 0,
            line: 1,
        }
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
        let input = read(data, Format::Csv, Some("aff")).unwrap();
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
        let e = read(b"id,aff\n1,x\n", Format::Csv, Some("affiliation"))
            .err()
            .unwrap();
        assert!(e.contains("no column 'affiliation'") && e.contains("id, aff"));
        let e = read(b"", Format::Csv, Some("a")).err().unwrap();
        assert!(e.contains("empty"));
        let e = read(b"{\"a\":\"x\"}\n", Format::Jsonl, None).err().unwrap();
        assert!(e.contains("--field") && e.contains(": a"));
        let e = read(b"{\"a\":\"x\"}\n", Format::Jsonl, Some("b"))
            .err()
            .unwrap();
        assert!(e.contains("no line has \"b\""));
    }

    #[test]
    fn json_lines_rows() {
        let data = b"{\"s\":\"MIT\",\"n\":1}\n\n[1]\n{bad\n{\"s\":2}\n{\"t\":\"x\"}\n\xFF\n";
        let input = read(data, Format::Jsonl, Some("s")).unwrap();
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
    fn plain_lines_skip_blank_ones_and_refuse_huge_ones() {
        let mut data = b"MIT\r\n\n  \nCERN".to_vec();
        data.extend(b"\n");
        data.extend(vec![b'x'; MAX_TEXT + 1]);
        let input = read(&data, Format::Lines, None).unwrap();
        let got: Vec<(usize, Option<&str>)> = input
            .rows
            .iter()
            .map(|r| (r.line, r.text.as_deref()))
            .collect();
        assert_eq!(got, vec![(1, Some("MIT")), (4, Some("CERN")), (5, None)]);
        assert!(input.rows[2].error.as_deref().unwrap().contains("longer"));
    }
}
