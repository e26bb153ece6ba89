//! Writing the rows of `registry match` back with their match: CSV in (or
//! plain lines) → CSV out, written by the `csv` crate (RFC 4180: a field is
//! quoted when it holds a comma, a quote or a line break; CRLF ends each
//! record), JSON lines → JSON lines. The input's own bytes are repeated
//! (re-quoted for CSV, the object's text for JSON), so nothing the file held
//! is lost or rewritten, even bytes that are not UTF-8. Output is always
//! comma separated, whatever the input's delimiter: the columns it adds are
//! the same for every input. (A field with white space at its ends is not
//! quoted: RFC 4180 keeps such spaces, and so do the readers tested.)

use std::io::{self, Write};

use super::input::{Raw, Row};

/// The best candidates of one row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub first: Option<Candidate>,
    pub second: Option<Candidate>,
    pub chosen: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub name: String,
    pub score: f32,
    pub matching_type: String,
}

/// The columns added to each row, in order.
pub const ADDED: [&str; 9] = [
    "id",
    "name",
    "score",
    "chosen",
    "matching_type",
    "second_id",
    "second_name",
    "second_score",
    "error",
];

/// The added columns' names: `match_<name>` where the input already has
/// a column of that name, so that no input column is shadowed.
pub fn added_names(taken: &[&[u8]]) -> Vec<String> {
    ADDED
        .iter()
        .map(|&n| {
            let mut name = n.to_string();
            while taken.contains(&name.as_bytes()) {
                name.insert_str(0, "match_");
            }
            name
        })
        .collect()
}

fn score_text(s: f32) -> String {
    format!("{s:.2}")
}

/// The added values of a row, as text (empty where there is none).
fn added_values(outcome: &Outcome, error: Option<&str>) -> [String; 9] {
    let c =
        |c: &Option<Candidate>, f: fn(&Candidate) -> String| c.as_ref().map_or(String::new(), f);
    [
        c(&outcome.first, |c| c.id.clone()),
        c(&outcome.first, |c| c.name.clone()),
        c(&outcome.first, |c| score_text(c.score)),
        if error.is_some() {
            String::new()
        } else {
            outcome.chosen.to_string()
        },
        c(&outcome.first, |c| c.matching_type.clone()),
        c(&outcome.second, |c| c.id.clone()),
        c(&outcome.second, |c| c.name.clone()),
        c(&outcome.second, |c| score_text(c.score)),
        error.unwrap_or("").to_string(),
    ]
}

/// CSV: the header (the input's, or `text` for plain lines) and each row's
/// fields followed by the added columns. A row with more fields than the
/// header keeps them all, in columns `extra_1`, … added to the header, so
/// every row's added columns stay under their names.
pub fn write_csv(
    out: &mut impl Write,
    header: &[Vec<u8>],
    rows: &[Row],
    outcomes: &[Outcome],
) -> io::Result<()> {
    let own: Vec<&[u8]> = if header.is_empty() {
        vec![b"text"]
    } else {
        header.iter().map(Vec::as_slice).collect()
    };
    let width = rows
        .iter()
        .map(|r| match &r.raw {
            Raw::Fields(f) => f.len(),
            _ => 1,
        })
        .fold(own.len(), usize::max);
    let extra: Vec<Vec<u8>> = (1..)
        .map(|k| format!("extra_{k}").into_bytes())
        .filter(|n| !own.contains(&n.as_slice()))
        .take(width - own.len())
        .collect();
    let header: Vec<&[u8]> = own
        .iter()
        .copied()
        .chain(extra.iter().map(Vec::as_slice))
        .collect();
    let names = added_names(&header);
    let mut csv = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::CRLF)
        .from_writer(out);
    csv.write_record(
        header
            .iter()
            .copied()
            .chain(names.iter().map(|n| n.as_bytes())),
    )?;
    for (row, outcome) in rows.iter().zip(outcomes) {
        let added = added_values(outcome, row.error.as_deref());
        let own: Vec<&[u8]> = match &row.raw {
            Raw::Fields(f) => {
                // A short row is padded, so the added columns stay under their names.
                let mut v: Vec<&[u8]> = f.iter().map(Vec::as_slice).collect();
                v.resize(v.len().max(header.len()), b"");
                v
            }
            Raw::Line(l) | Raw::NotObject(l) => vec![l.as_slice()],
            Raw::Object(o) => vec![o.as_bytes()],
        };
        csv.write_record(own.into_iter().chain(added.iter().map(|a| a.as_bytes())))?;
    }
    csv.flush()
}

/// JSON lines: each object with the added members (those with a value);
/// a line that was no object becomes `{"input": <its text>, "error": ...}`.
pub fn write_jsonl(out: &mut impl Write, rows: &[Row], outcomes: &[Outcome]) -> io::Result<()> {
    for (row, outcome) in rows.iter().zip(outcomes) {
        let added = added_values(outcome, row.error.as_deref());
        let (head, keys): (String, Vec<String>) = match &row.raw {
            Raw::Object(o) => {
                let keys: Vec<String> =
                    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(o)
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default();
                let body = o.trim_end().strip_suffix('}').unwrap_or(o).trim_end();
                (body.to_string(), keys)
            }
            Raw::Fields(f) => input_member(&f.join(&b","[..])),
            Raw::Line(l) | Raw::NotObject(l) => input_member(l),
        };
        let taken: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        let names = added_names(&taken);
        let mut line = head;
        let mut first = line.ends_with('{');
        for (k, (name, value)) in names.iter().zip(&added).enumerate() {
            if value.is_empty() {
                continue;
            }
            let json = match k {
                2 | 7 => value.clone(), // scores: numbers
                3 => value.clone(),     // chosen: a boolean
                _ => serde_json::Value::String(value.clone()).to_string(),
            };
            if !first {
                line.push(',');
            }
            first = false;
            line.push_str(&serde_json::Value::String(name.clone()).to_string());
            line.push(':');
            line.push_str(&json);
        }
        line.push_str("}\n");
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// The start of the object standing for an input that was no JSON object.
fn input_member(bytes: &[u8]) -> (String, Vec<String>) {
    let text = String::from_utf8_lossy(bytes).into_owned();
    (
        format!("{{\"input\":{}", serde_json::Value::String(text)),
        vec!["input".to_string()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, score: f32) -> Option<Candidate> {
        Some(Candidate {
            id: id.into(),
            name: format!("Name, \"{id}\""),
            score,
            matching_type: "PHRASE".into(),
        })
    }

    #[test]
    fn csv_repeats_the_input_and_quotes_what_needs_it() {
        let rows = vec![
            Row {
                line: 2,
                raw: Raw::Fields(vec![b"1".to_vec(), b"a, b".to_vec()]),
                text: Some("a, b".into()),
                error: None,
            },
            Row {
                line: 3,
                raw: Raw::Fields(vec![b"\xFF".to_vec()]),
                text: None,
                error: Some("line 3: bad".into()),
            },
        ];
        let outcomes = vec![
            Outcome {
                first: cand("x", 0.9),
                second: cand("y", 0.5),
                chosen: true,
            },
            Outcome::default(),
        ];
        let mut out = Vec::new();
        write_csv(
            &mut out,
            &[b"id".to_vec(), b"aff".to_vec()],
            &rows,
            &outcomes,
        )
        .unwrap();
        let want: &[u8] = b"id,aff,match_id,name,score,chosen,matching_type,second_id,second_name,second_score,error\r\n\
1,\"a, b\",x,\"Name, \"\"x\"\"\",0.90,true,PHRASE,y,\"Name, \"\"y\"\"\",0.50,\r\n\
\xFF,,,,,,,,,,line 3: bad\r\n";
        assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(want));
    }

    #[test]
    fn csv_rows_with_extra_fields_keep_the_added_columns_in_place() {
        let row = |line, fields: &[&str], error: Option<&str>| Row {
            line,
            raw: Raw::Fields(fields.iter().map(|f| f.as_bytes().to_vec()).collect()),
            text: None,
            error: error.map(Into::into),
        };
        let rows = vec![
            row(
                2,
                &["1", "Rangitoto Polytechnic", " Auckland"],
                Some("line 2: 3 fields where the header has 2"),
            ),
            row(3, &["2", "Cape"], None),
        ];
        let outcomes = vec![
            Outcome::default(),
            Outcome {
                first: cand("x", 1.0),
                second: None,
                chosen: true,
            },
        ];
        let mut out = Vec::new();
        write_csv(
            &mut out,
            &[b"id".to_vec(), b"extra_1".to_vec()],
            &rows,
            &outcomes,
        )
        .unwrap();
        let want = "id,extra_1,extra_2,match_id,name,score,chosen,matching_type,second_id,second_name,second_score,error\r\n\
1,Rangitoto Polytechnic, Auckland,,,,,,,,,line 2: 3 fields where the header has 2\r\n\
2,Cape,,x,\"Name, \"\"x\"\"\",1.00,true,PHRASE,,,,\r\n";
        assert_eq!(String::from_utf8_lossy(&out), want);
    }

    #[test]
    fn json_lines_keep_the_object_text_and_add_members() {
        let rows = vec![
            Row {
                line: 1,
                raw: Raw::Object("{\"b\":1,\"a\":\"MIT\",\"score\":3}".into()),
                text: Some("MIT".into()),
                error: None,
            },
            Row {
                line: 2,
                raw: Raw::NotObject(b"{bad".to_vec()),
                text: None,
                error: Some("line 2: not JSON".into()),
            },
            Row {
                line: 3,
                raw: Raw::Object("{}".into()),
                text: None,
                error: Some("line 3: no \"a\"".into()),
            },
        ];
        let outcomes = vec![
            Outcome {
                first: cand("x", 0.9),
                second: None,
                chosen: false,
            },
            Outcome::default(),
            Outcome::default(),
        ];
        let mut out = Vec::new();
        write_jsonl(&mut out, &rows, &outcomes).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "{\"b\":1,\"a\":\"MIT\",\"score\":3,\"id\":\"x\",\"name\":\"Name, \\\"x\\\"\",\"match_score\":0.90,\"chosen\":false,\"matching_type\":\"PHRASE\"}"
        );
        assert_eq!(
            lines[1],
            "{\"input\":\"{bad\",\"error\":\"line 2: not JSON\"}"
        );
        assert_eq!(lines[2], "{\"error\":\"line 3: no \\\"a\\\"\"}");
        for l in lines {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }
}
