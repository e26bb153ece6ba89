//! `registry match` with the input people actually have: spreadsheets with
//! stray quotes, files not saved as UTF-8, a pasted megabyte-long line, the
//! wrong column name. Every row comes out, in order, with its line number
//! in the error column when it could not be matched; a mistake about the
//! whole file is one clear error; nothing panics.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/demo/registry-demo.json"
);

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("registry-match-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_registry"))
        .arg("match")
        .args(args)
        .args(["--data", DEMO, "--threads", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run registry");
    let input = stdin.map(<[u8]>::to_vec);
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        if let Some(b) = input {
            let _ = pipe.write_all(&b);
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The records of well-formed CSV output (this command's own quoting).
fn parse_csv(out: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), Vec::new());
    let (mut quoted, mut i) = (false, 0);
    while i < out.len() {
        let b = out[i];
        if quoted {
            if b == b'"' && out.get(i + 1) == Some(&b'"') {
                field.push(b'"');
                i += 1;
            } else if b == b'"' {
                quoted = false;
            } else {
                field.push(b);
            }
        } else if b == b'"' {
            quoted = true;
        } else if b == b',' {
            record.push(std::mem::take(&mut field));
        } else if b == b'\r' && out.get(i + 1) == Some(&b'\n') {
            record.push(std::mem::take(&mut field));
            records.push(std::mem::take(&mut record));
            i += 1;
        } else {
            field.push(b);
        }
        i += 1;
    }
    assert!(
        field.is_empty() && record.is_empty(),
        "output ends inside a record"
    );
    records
}

fn column(records: &[Vec<Vec<u8>>], name: &str) -> Vec<String> {
    let k = records[0]
        .iter()
        .position(|h| h == name.as_bytes())
        .unwrap_or_else(|| panic!("no column {name}"));
    records[1..]
        .iter()
        .map(|r| text(r.get(k).map_or(&b""[..], |v| v)))
        .collect()
}

#[test]
fn hostile_csv_rows_are_kept_and_reported_by_line() {
    let huge = vec![b'x'; 10 << 20];
    let mut csv = b"n,affiliation,note\r\n".to_vec();
    csv.extend(b"1,\"Northfield University, Marine Biology\",ok\r\n");
    csv.extend(b"2,\"");
    csv.extend(&huge);
    csv.extend(b"\",huge\r\n");
    csv.extend(b"3,Caf\xE9 de Shinonome,latin-1\r\n");
    csv.extend(b"4,\"Cape Fynbos \"Herbarium\",stray quote\r\n");
    csv.extend(b"5,Cape \"Fynbos\" Herbarium,quote inside\r\n");
    csv.extend(b"6\r\n");
    csv.extend(b"7,\"Shinonome Institute of Technology\nTokyo\",two lines\r\n");
    csv.extend(b"8,Independent researcher,none\r\n");
    csv.extend(b"9,\"never closed,x\r\n");
    csv.extend(b"10,Caribbean Netherlands Reef Monitoring Programme,last\r\n");
    let path = tmp("hostile.csv", &csv);
    let out = run(&[path.to_str().unwrap(), "--column", "affiliation"], None);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let records = parse_csv(&out.stdout);
    assert_eq!(
        column(&records, "n"),
        ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"],
        "every row, in order"
    );
    // The input's bytes come back as they were: the 10 MB field, the Latin-1 byte.
    assert_eq!(records[2][1], huge);
    assert_eq!(records[3][1], b"Caf\xE9 de Shinonome");
    let errors = column(&records, "error");
    let expect = [
        (0, ""),
        (1, "line 3: column 'affiliation' is 10485760 bytes"),
        (2, "line 4: column 'affiliation' is not valid UTF-8"),
        (3, "line 5: text after the closing quote"),
        (4, "line 6: a quote inside unquoted field 2"),
        (5, "line 7: 1 fields where the header has 3"),
        (6, ""),
        (7, ""),
        (8, "line 11: field 2 opens a quote that is never closed"),
        (9, ""),
    ];
    for (k, want) in expect {
        assert!(
            if want.is_empty() {
                errors[k].is_empty()
            } else {
                errors[k].starts_with(want)
            },
            "row {k}: {:?}, want {want:?}",
            errors[k]
        );
    }
    let ids = column(&records, "id");
    let chosen = column(&records, "chosen");
    let names = column(&records, "name");
    assert!(
        names[0].starts_with("Northfield University"),
        "{}",
        names[0]
    );
    assert!(ids[0].starts_with("https://ror.org/"));
    assert_eq!(names[6], "Shinonome Institute of Technology");
    assert_eq!(names[9], "Caribbean Netherlands Reef Monitoring Programme");
    assert_eq!((chosen[7].as_str(), ids[7].as_str()), ("false", ""));
    for k in [1, 2, 3, 4, 5, 8] {
        assert_eq!((ids[k].as_str(), chosen[k].as_str()), ("", ""), "row {k}");
    }
    assert!(
        stderr.contains("rows 10 ") && stderr.contains("errors 6"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no candidate 1") && stderr.contains("strings/s"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 3: "),
        "the summary lists the rows with errors: {stderr}"
    );
}

#[test]
fn a_mistake_about_the_whole_file_is_one_clear_error() {
    let path = tmp("cols.csv", b"name,city\nNorthfield University,x\n");
    let p = path.to_str().unwrap();
    for (args, want) in [
        (
            vec![p, "--column", "affiliation"],
            "no column 'affiliation' (columns: name, city)",
        ),
        (vec![p, "--format", "xml"], "--format must be"),
    ] {
        let out = run(&args, None);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
    let jsonl = tmp("f.jsonl", b"{\"aff\":\"Northfield University\"}\n");
    let out = run(&[jsonl.to_str().unwrap(), "--field", "affiliation"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no line has \"affiliation\" (the first object has: aff)"));
}

#[test]
fn json_lines_in_json_lines_out_with_per_row_errors() {
    let mut input = b"{\"k\":1,\"aff\":\"Cape Fynbos Herbarium\"}\n{\"k\":2}\nnot json\n".to_vec();
    input.extend(b"{\"k\":3,\"aff\":\"\xFF\"}\n{\"k\":4,\"aff\":\"Setouchi Maritime Archive\"}\n");
    let out = run(
        &["-", "--format", "jsonl", "--field", "aff", "-q"],
        Some(&input),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        out.stderr.is_empty(),
        "-q prints nothing: {}",
        text(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["k"], 1);
    assert_eq!(rows[0]["name"], "Cape Fynbos Herbarium");
    assert!(rows[0]["score"].is_number() && rows[0]["chosen"].is_boolean());
    assert!(
        rows[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: no \"aff\"")
    );
    assert_eq!(rows[2]["input"], "not json");
    assert!(
        rows[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 3: not JSON")
    );
    assert!(
        rows[3]["error"]
            .as_str()
            .unwrap()
            .starts_with("line 4: not valid UTF-8")
    );
    assert_eq!(rows[4]["name"], "Setouchi Maritime Archive");
}

#[test]
fn plain_lines_give_csv_with_a_text_column_and_a_row_per_line() {
    let mut input = b"Northfield University\n\nAegean Institute of Marine Archaeology\n".to_vec();
    input.extend(vec![b'y'; 10 << 20]);
    input.extend(b"\n\xC3\x28 bad\n");
    let path = tmp("lines.txt", &input);
    let out_path =
        std::env::temp_dir().join(format!("registry-match-{}-out.csv", std::process::id()));
    let out = run(
        &[path.to_str().unwrap(), "-o", out_path.to_str().unwrap()],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records = parse_csv(&std::fs::read(&out_path).unwrap());
    assert_eq!(
        records.len(),
        6,
        "header + 5 rows: one per line, the blank one too"
    );
    assert_eq!(records[0][0], b"text");
    let names = column(&records, "name");
    assert_eq!(names[0], "Northfield University");
    assert_eq!(names[2], "Aegean Institute of Marine Archaeology");
    let errors = column(&records, "error");
    // The blank line: echoed, no candidate, no error, not chosen.
    assert_eq!(
        ["text", "id", "error", "chosen"].map(|c| column(&records, c)[1].clone()),
        ["", "", "", "false"].map(String::from)
    );
    assert!(errors[3].starts_with("line 4: the line is 10485760 bytes"));
    assert!(errors[4].starts_with("line 5: the line is not valid UTF-8"));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("rows 5 ") && stderr.contains("errors 2"),
        "{stderr}"
    );
}

#[test]
fn a_semicolon_csv_is_read_and_its_column_guessed_as_the_match_page_does() {
    let csv = "author_id;name;institution_id;affiliation\r\n\
               1;Ana;X1;\"Northfield University; Marine Biology\"\r\n\
               2;Ken;;Setouchi Maritime Archive\r\n";
    let path = tmp("export.csv", csv.as_bytes());
    let out = run(&[path.to_str().unwrap()], None);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("matching the column 'affiliation' (guessed"),
        "{stderr}"
    );
    let records = parse_csv(&out.stdout);
    assert_eq!(
        records[0][..5],
        ["author_id", "name", "institution_id", "affiliation", "id"].map(|h| h.as_bytes().to_vec())
    );
    assert_eq!(records[1][3], b"Northfield University; Marine Biology");
    assert_eq!(
        column(&records, "name"),
        ["Ana", "Ken"],
        "the input's own name column"
    );
    let matched = column(&records, "match_name");
    assert!(
        matched[0].starts_with("Northfield University"),
        "{matched:?}"
    );
    assert_eq!(matched[1], "Setouchi Maritime Archive");
    // --column still chooses: the name column, matched to nothing.
    let out = run(&[path.to_str().unwrap(), "--column", "name", "-q"], None);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(column(&parse_csv(&out.stdout), "error"), ["", ""]);
}
