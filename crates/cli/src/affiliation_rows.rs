//! The affiliation gold set as `fit-affiliation` and `eval-affiliation`
//! read it: where it and the data are by default, its lines, and its rows
//! with the matcher's leading candidates (plus the address-less training
//! copies). Its own module so that the eval (which refits in memory) and
//! the fit share the rows without importing each other for them.

use std::collections::HashSet;
use std::path::Path;

use registry_core::RecordId;
use registry_core::affiliation::Candidate;
use registry_core::search::{Engine, Filters};

use crate::load;

/// The data both commands (and `registry match`) load when no `--data` is
/// given.
pub const DEFAULT_DATA: &str = "../shared/data/registry-v2.json.gz";
/// The gold set both commands read when no `--eval` is given.
pub const DEFAULT_EVAL: &str = "../shared/eval/affiliation-dev.jsonl";

/// One gold row with its leading candidates.
pub struct Row {
    /// The affiliation string.
    pub text: String,
    /// `source` of the row.
    pub source: String,
    /// Gold records (indices in the registry; unknown ids dropped).
    pub gold: Vec<u32>,
    /// The row has gold ids (some may be unknown to the data).
    pub has_gold: bool,
    /// Leading candidates, best score first.
    pub cands: Vec<Candidate>,
    /// A copy of a gold row made for training only (see [`augment`]): the
    /// trees fit on it and the threshold must hold on it too; no reported
    /// figure counts it.
    pub augmented: bool,
}

/// One gold line: affiliation text, gold ids, source.
pub struct GoldLine {
    /// The affiliation string.
    pub text: String,
    /// Gold identifiers (full URLs).
    pub gold: Vec<String>,
    /// Source label.
    pub source: String,
}

/// Parses a JSON-lines gold set.
pub fn read_gold(path: &str, limit: usize) -> Result<Vec<GoldLine>, String> {
    let text = String::from_utf8(load::read(Path::new(path))?)
        .map_err(|e| format!("{path}: not UTF-8: {e}"))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().take(limit) {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let text = v["affiliation"]
            .as_str()
            .ok_or_else(|| format!("{path}:{}: no \"affiliation\" string", n + 1))?
            .to_string();
        let gold = v["gold"]
            .as_array()
            .map(|g| {
                g.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let source = v["source"].as_str().unwrap_or("unknown").to_string();
        out.push(GoldLine { text, gold, source });
    }
    Ok(out)
}

/// Candidates and labels of every gold line.
pub fn collect(engine: &Engine, lines: &[GoldLine], filters: &Filters) -> Vec<Row> {
    let reg = engine.registry();
    lines
        .iter()
        .map(|l| Row {
            text: l.text.clone(),
            source: l.source.clone(),
            gold: l
                .gold
                .iter()
                .filter_map(|g| RecordId::parse(g).ok().and_then(|r| reg.index_of(r)))
                .map(|i| i as u32)
                .collect(),
            has_gold: !l.gold.is_empty(),
            cands: engine.affiliation_candidates(&l.text, filters),
            augmented: false,
        })
        .collect()
}

/// Folded city and country names of the registry's records: what a
/// trailing address part of an affiliation string consists of.
fn place_names(engine: &Engine) -> HashSet<String> {
    let reg = engine.registry();
    let mut out = HashSet::new();
    for i in 0..reg.len() {
        for p in reg.places(i) {
            out.insert(registry_core::text::fold(p.city));
            out.insert(registry_core::text::fold(p.country_name));
        }
    }
    out
}

/// `text` without its trailing address parts ("…, Fisciano, SA, Italy" →
/// "…"), if it has any and something is left.
pub fn without_address(places: &HashSet<String>, text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split(',').collect();
    let mut end = parts.len();
    while end > 1 {
        let folded = registry_core::text::fold(parts[end - 1]);
        let words: Vec<&str> = folded
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !w.chars().any(|c| c.is_ascii_digit()))
            .collect();
        let address = words.is_empty()
            || places.contains(&words.join(" "))
            || (words.len() == 1 && words[0].len() <= 3);
        if !address {
            break;
        }
        end -= 1;
    }
    (end < parts.len()).then(|| parts[..end].join(","))
}

/// Training copies of the rows `keep` selects whose text ends in an
/// address, the address removed, one per row (`None` otherwise). Most strings of some
/// sources (crossref) carry no address while others' (springer) nearly
/// always do: a model fitted on the latter alone would never see one
/// without and trust the address-less kind as much.
pub fn augment(
    engine: &Engine,
    rows: &[Row],
    filters: &Filters,
    keep: impl Fn(&Row) -> bool,
) -> Vec<Option<Row>> {
    let places = place_names(engine);
    rows.iter()
        .map(|r| {
            if !keep(r) {
                return None;
            }
            let text = without_address(&places, &r.text)?;
            Some(Row {
                cands: engine.affiliation_candidates(&text, filters),
                text,
                source: r.source.clone(),
                gold: r.gold.clone(),
                has_gold: r.has_gold,
                augmented: true,
            })
        })
        .collect()
}

/// The rows `keep` selects by index, each followed by its training copy.
pub fn with_copies<'a>(
    rows: &'a [Row],
    copies: &'a [Option<Row>],
    keep: impl Fn(usize, &Row) -> bool,
) -> Vec<&'a Row> {
    let mut out = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if keep(i, r) {
            out.push(r);
            if let Some(c) = copies.get(i).and_then(Option::as_ref) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_parts_are_removed_from_the_end_only() {
        let places: std::collections::HashSet<String> =
            ["italy", "fisciano", "new york"].map(String::from).into();
        assert_eq!(
            without_address(
                &places,
                "Department of Economics, University of Salerno, Fisciano, SA, 84084, Italy"
            )
            .as_deref(),
            Some("Department of Economics, University of Salerno")
        );
        assert_eq!(
            without_address(&places, "New York University, New York, NY 10003, USA").as_deref(),
            Some("New York University")
        );
        // Nothing to remove, or nothing left: no copy.
        assert_eq!(without_address(&places, "University of Salerno"), None);
        assert_eq!(without_address(&places, "Italy"), None);
        assert_eq!(
            without_address(&places, "Fisciano, Italy").as_deref(),
            Some("Fisciano")
        );
    }
}
