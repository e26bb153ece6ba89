//! What people pick: the gold record of each row of an affiliation set
//! (JSON lines with a `gold` list of ids), in row order. Rows are the unit
//! of popularity: a record written in 100 affiliations counts 100 times.

use std::path::Path;

use crate::load;

/// The default affiliation set.
pub const DEFAULT_EVAL: &str = "../shared/eval/affiliation-dev.jsonl";

/// One gold id (full URL form) per row that has exactly one; rows with no
/// gold or several are skipped (they say nothing about a single pick).
pub fn gold_per_row(path: &Path) -> Result<Vec<String>, String> {
    let text = load::read(path)?;
    let text = std::str::from_utf8(&text).map_err(|_| format!("{}: not UTF-8", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), n + 1))?;
        let gold = v["gold"]
            .as_array()
            .ok_or_else(|| format!("{}:{}: no \"gold\" list", path.display(), n + 1))?;
        if let [one] = gold.as_slice() {
            let id = one
                .as_str()
                .ok_or_else(|| format!("{}:{}: gold id is not a string", path.display(), n + 1))?;
            out.push(id.to_string());
        }
    }
    Ok(out)
}
