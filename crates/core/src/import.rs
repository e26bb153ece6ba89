//! Dump import: a JSON array of v2 records, in either spelling, plain, gzip or
//! a release `.zip` (see [`crate::container`]).
//!
//! Every record is parsed on its own, so one bad record is reported with its
//! position, its id when it has one, and the reason; the import then fails
//! unless the caller asked to skip bad records, in which case the skipped ones
//! are returned too. Nothing is dropped silently.

use std::collections::HashMap;
use std::fmt;

use serde_json::value::RawValue;

use crate::container::{self, ContainerError};
use crate::id::{IdError, RecordId};
use crate::model::{DISPLAY, Record, STATUSES};

/// What to do with records that cannot be imported.
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// Skip bad records (and report them) instead of failing.
    pub skip_invalid: bool,
}

/// A record that could not be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordProblem {
    /// Position in the input array (0-based).
    pub index: usize,
    /// The record's `id`, when it has a readable one.
    pub id: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record #{}", self.index)?;
        if let Some(id) = &self.id {
            write!(f, " ({id})")?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// The outcome of an import.
#[derive(Debug)]
pub struct Imported {
    /// Records in input order, values in the spec's spelling.
    pub records: Vec<Record>,
    /// Records skipped because of `skip_invalid`.
    pub skipped: Vec<RecordProblem>,
}

/// Why an import failed.
#[derive(Debug)]
pub enum ImportError {
    /// The container (gzip, zip) could not be opened.
    Container(ContainerError),
    /// The input is not a JSON array.
    NotJson {
        /// Line of the problem (1-based).
        line: usize,
        /// Column of the problem (1-based).
        column: usize,
        /// The parser's message.
        reason: String,
    },
    /// Some records are bad and skipping was not requested.
    BadRecords {
        /// Every bad record (all of them, not just the first).
        problems: Vec<RecordProblem>,
        /// How many records the input has.
        total: usize,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Container(e) => write!(f, "{e}"),
            ImportError::NotJson {
                line,
                column,
                reason,
            } => {
                write!(
                    f,
                    "the dump is not a JSON array of records (line {line}, column {column}): {reason}"
                )
            }
            ImportError::BadRecords { problems, total } => {
                write!(
                    f,
                    "{} of {total} records cannot be imported",
                    problems.len()
                )?;
                for p in problems.iter().take(10) {
                    write!(f, "\n  {p}")?;
                }
                if problems.len() > 10 {
                    write!(f, "\n  … and {} more", problems.len() - 10)?;
                }
                write!(
                    f,
                    "\nFix the records, or pass --skip-invalid to import the rest and list the skipped ones."
                )
            }
        }
    }
}

impl std::error::Error for ImportError {}

impl From<ContainerError> for ImportError {
    fn from(e: ContainerError) -> Self {
        ImportError::Container(e)
    }
}

/// Imports a dump (plain JSON, gzip or zip). `progress(done, total)` is called
/// every few thousand records.
pub fn import_dump(
    bytes: &[u8],
    options: ImportOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Imported, ImportError> {
    let json = container::unwrap_dump(bytes)?;
    let json = json.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&json);
    let raws: Vec<&RawValue> = serde_json::from_slice(json).map_err(|e| ImportError::NotJson {
        line: e.line(),
        column: e.column(),
        reason: e.to_string(),
    })?;
    let total = raws.len();
    let mut records = Vec::with_capacity(total);
    let mut problems = Vec::new();
    let mut seen: HashMap<RecordId, usize> = HashMap::with_capacity(total);
    for (index, raw) in raws.iter().enumerate() {
        if index % 4096 == 0 {
            progress(index, total);
        }
        match parse_record(raw) {
            Ok((record, id)) => {
                if let Some(first) = seen.insert(id, index) {
                    seen.insert(id, first);
                    problems.push(RecordProblem {
                        index,
                        id: Some(record.id),
                        reason: format!("duplicate id: record #{first} has the same id"),
                    });
                } else {
                    records.push(record);
                }
            }
            Err(reason) => problems.push(RecordProblem {
                index,
                id: sniff_id(raw),
                reason,
            }),
        }
    }
    progress(total, total);
    if !problems.is_empty() && !options.skip_invalid {
        return Err(ImportError::BadRecords { problems, total });
    }
    Ok(Imported {
        records,
        skipped: problems,
    })
}

/// Parses and checks one record.
pub fn parse_record(raw: &RawValue) -> Result<(Record, RecordId), String> {
    let mut record: Record = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    record.adopt_spec_vocabulary();
    let id = RecordId::parse(&record.id).map_err(|e| match e {
        IdError::Malformed { .. } => format!("'{}' is not a registry id", record.id),
        e => e.to_string(),
    })?;
    record.id = id.url();
    if !STATUSES.contains(&record.status.as_str()) {
        return Err(format!(
            "status '{}' is not one of {}",
            record.status,
            STATUSES.join(", ")
        ));
    }
    if record.names.iter().any(|n| n.value.contains('\0')) {
        return Err("a name contains a NUL character".to_string());
    }
    if !record
        .names
        .iter()
        .any(|n| n.types.iter().any(|t| t == DISPLAY))
    {
        return Err("no name has type registry_display (ror_display)".to_string());
    }
    Ok((record, id))
}

/// Best-effort id of an unparseable record, for the error report.
fn sniff_id(raw: &RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct JustId {
        id: String,
    }
    serde_json::from_str::<JustId>(raw.get()).ok().map(|j| j.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, status: &str) -> String {
        format!(
            r#"{{"admin":{{"created":{{"date":"2020-01-01","schema_version":"1.0"}},"last_modified":{{"date":"2024-01-01","schema_version":"2.1"}}}},
            "domains":[],"established":null,"external_ids":[{{"all":["Q1"],"preferred":null,"type":"wikidata"}}],"id":"{id}",
            "links":[{{"type":"wikipedia","value":"https://en.wikipedia.org/x"}}],
            "locations":[{{"geonames_details":{{"country_code":"FR","country_name":"France","lat":48,"lng":2.35,"name":"Paris"}},"geonames_id":2988507}}],
            "names":[{{"lang":"fr","types":["label","ror_display"],"value":"Institut"}}],"relationships":[],"status":"{status}","types":["facility"]}}"#
        )
    }

    #[test]
    fn imports_upstream_spelling_into_spec_names() {
        let dump = format!("[{}]", rec("https://ror.org/02mhbdp94", "active"));
        let out = import_dump(dump.as_bytes(), ImportOptions::default(), &mut |_, _| {}).unwrap();
        let r = &out.records[0];
        assert_eq!(r.names[0].types, ["label", "registry_display"]);
        assert_eq!(r.external_ids[0].kind, "open_kb");
        assert_eq!(r.links[0].kind, "encyclopedia");
        assert_eq!(r.locations[0].geo_id, Some(2988507));
        let json = serde_json::to_value(r).unwrap();
        assert_eq!(
            json["locations"][0]["geo_details"]["lat"],
            serde_json::json!(48)
        );
        assert!(
            json["locations"][0]["geo_details"]
                .get("continent_code")
                .is_none()
        );
    }

    #[test]
    fn reports_every_bad_record_with_position_and_id() {
        let dump = format!(
            "[{}, {}, {}, {}, {{\"id\": 5}}]",
            rec("https://ror.org/02mhbdp94", "active"),
            rec("https://ror.org/02mhbdp95", "active"),
            rec("https://ror.org/02mhbdp94", "active"),
            rec("https://ror.org/0abcdef23", "dormant"),
        );
        let err =
            import_dump(dump.as_bytes(), ImportOptions::default(), &mut |_, _| {}).unwrap_err();
        let ImportError::BadRecords { problems, total } = &err else {
            panic!("{err}")
        };
        assert_eq!(*total, 5);
        let at: Vec<usize> = problems.iter().map(|p| p.index).collect();
        assert_eq!(at, [1, 2, 3, 4]);
        assert!(
            problems[0].reason.contains("check digits"),
            "{}",
            problems[0].reason
        );
        assert!(problems[1].reason.contains("duplicate"));
        assert!(problems[2].reason.contains("dormant"));
        assert!(err.to_string().contains("--skip-invalid"));

        let ok = import_dump(
            dump.as_bytes(),
            ImportOptions { skip_invalid: true },
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(ok.records.len(), 1);
        assert_eq!(ok.skipped.len(), 4);
    }

    #[test]
    fn rejects_non_arrays_with_a_position() {
        for bad in ["", "{}", "[1,", "not json"] {
            let err =
                import_dump(bad.as_bytes(), ImportOptions::default(), &mut |_, _| {}).unwrap_err();
            assert!(
                matches!(err, ImportError::NotJson { .. } | ImportError::Container(_)),
                "{bad}: {err}"
            );
        }
    }
}
