//! `registry eval-affiliation`: runs the affiliation matcher over a gold set
//! (JSON lines `{"affiliation", "gold": [ids], "source"}`) and prints
//! precision (correct chosen / chosen, a `chosen` on a row with an empty
//! gold list counted as wrong, as an unattended user meets it; beside it the
//! precision on gold rows only), recall (correct chosen / rows with a gold
//! id), F1, the empty-gold rows and how many of them got no `chosen`, per
//! source and overall, for the whole set and for its two halves
//! (even rows = half "A", odd rows = half "B"), plus p50/p99 latency per
//! string. The checked-in `chosen` model was fitted on this whole set, so
//! these figures flatter it; the cross-source check that follows refits the
//! model in memory on one source's rows (or on half A) and reports it on the
//! other source's rows (or on half B).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use registry_core::RecordId;
use registry_core::affiliation::AffiliationMatch;
use registry_core::search::{Engine, Filters};

use crate::affiliation_rows::{self, DEFAULT_DATA, DEFAULT_EVAL, GoldLine, Row};
use crate::fit_affiliation;
use crate::load;
use crate::pr_svg::Curve;
use crate::stats::percentile;

#[derive(Default, Clone, Copy)]
struct Counts {
    rows: usize,
    with_gold: usize,
    /// Chosen on rows with a gold id (see `chosen_on_empty` for the others).
    chosen: usize,
    correct: usize,
    empty_gold: usize,
    chosen_on_empty: usize,
}

impl Counts {
    fn add(&mut self, gold: &[String], chosen: Option<&str>) {
        self.rows += 1;
        if gold.is_empty() {
            self.empty_gold += 1;
            self.chosen_on_empty += usize::from(chosen.is_some());
        } else {
            self.with_gold += 1;
            if let Some(c) = chosen {
                self.chosen += 1;
                self.correct += usize::from(gold.iter().any(|g| g == c));
            }
        }
    }

    fn line(&self, label: &str) -> String {
        let (p, r) = self.precision_recall();
        let f1 = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        format!(
            "{label:<22} rows {:>6}  chosen {:>6}  correct {:>6}  P {:.4}  R {:.4}  F1 {:.4}  (P on gold rows only {:.4})  empty gold {}: {} answered with nothing",
            self.rows,
            self.chosen + self.chosen_on_empty,
            self.correct,
            p,
            r,
            f1,
            div(self.correct, self.chosen),
            self.empty_gold,
            self.empty_gold - self.chosen_on_empty,
        )
    }

    /// Precision as an unattended user meets it: a `chosen` on a row whose
    /// gold is empty (no organization is right) is a wrong answer. Recall
    /// over the rows with a gold id.
    fn precision_recall(&self) -> (f64, f64) {
        (
            div(self.correct, self.chosen + self.chosen_on_empty),
            div(self.correct, self.with_gold),
        )
    }
}

fn div(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// Affiliation matching quality on a gold set.
///
/// Precision, recall, F1 per source and overall (whole set and both
/// halves; a chosen on an empty-gold row counts as a false positive, the
/// empty-gold rows answered with nothing beside it), p50/p99 latency per
/// string. Also prints the cross-source check: the chosen model fitted in
/// memory on one source's rows, reported on the other's, with its wrong
/// answers by kind (hospital and university, unit and host, several
/// organizations named, ...).
#[derive(clap::Args)]
pub struct EvalAffiliationArgs {
    /// Registry data (default: ../shared/data/registry-v2.json.gz)
    #[arg(long, value_name = "data")]
    data: Option<PathBuf>,
    /// Gold set, JSON lines: affiliation, gold (ids), source (default:
    /// ../shared/eval/affiliation-dev.jsonl)
    #[arg(long, value_name = "jsonl")]
    eval: Option<PathBuf>,
    /// Also print n false positives and n false negatives
    #[arg(long, value_name = "n", default_value_t = 0)]
    errors: usize,
    /// Match with all_status (default: active records only)
    #[arg(long)]
    all_status: bool,
    /// Only the first n lines
    #[arg(long, value_name = "n")]
    limit: Option<usize>,
    /// The in-memory fits' settings
    #[command(flatten)]
    tree: fit_affiliation::TreeArgs,
    /// Write the precision-recall curve of the in-memory fits' scores on
    /// the held-out rows (both checks), operating points marked, as an SVG
    #[arg(long, value_name = "file")]
    svg: Option<String>,
    /// Write every held-out row's answer as JSON lines (check, text, gold,
    /// chosen, best score, threshold, leading candidates with their
    /// features): for the error analysis
    #[arg(long, value_name = "file")]
    held_out: Option<String>,
}

/// Runs the command.
pub fn cmd_eval_affiliation(a: EvalAffiliationArgs) -> Result<(), String> {
    let data = load::given_or_default(a.data.as_deref(), &[DEFAULT_DATA.into()], "--data <data>")?;
    let eval = load::given_or_default(a.eval.as_deref(), &[DEFAULT_EVAL.into()], "--eval <jsonl>")?;
    let set = a.tree.settings();
    let t = Instant::now();
    let engine = Engine::new(load::load(&data, true)?);
    eprintln!(
        "loaded {} records in {:.1} s",
        engine.registry().len(),
        t.elapsed().as_secs_f64()
    );
    let lines =
        affiliation_rows::read_gold(&eval.to_string_lossy(), a.limit.unwrap_or(usize::MAX))?;
    let filters = Filters {
        all_status: a.all_status,
        ..Filters::default()
    };
    let mut tally = Tally::default();
    for (n, line) in lines.iter().enumerate() {
        tally.add(&engine, &filters, n, line, a.errors > 0);
    }
    println!(
        "affiliation matching: {} × {}",
        data.display(),
        eval.display()
    );
    println!(
        "filters: {}",
        if filters.all_status {
            "all_status"
        } else {
            "default (active only)"
        }
    );
    tally.print_scores();
    let curves = cross_source_written(&engine, &lines, &filters, &set, a.held_out.as_deref())?;
    if let Some(path) = &a.svg {
        write_svg(path, &set, &curves)?;
    }
    if a.errors > 0 {
        tally.print_errors(a.errors);
    }
    Ok(())
}

/// The checked-in model's answers over the gold set, counted per source and
/// overall for the whole set and each half, with each string's latency and
/// the errors of half A.
#[derive(Default)]
struct Tally {
    /// Per source and "all": the whole set, half A (even rows), half B.
    totals: BTreeMap<String, [Counts; 3]>,
    lat: Vec<f64>,
    slowest: (f64, String),
    false_positives: Vec<String>,
    false_negatives: Vec<String>,
    /// The false negatives by where the gold record stood in the list.
    fn_classes: BTreeMap<&'static str, usize>,
}

impl Tally {
    /// Matches row `n`, counts its answer in its source and "all" (whole
    /// set and its half) and, with `errors`, keeps it as a false positive
    /// or negative. Errors are kept from the tuning half (A) only.
    fn add(&mut self, engine: &Engine, filters: &Filters, n: usize, line: &GoldLine, errors: bool) {
        let reg = engine.registry();
        let aff = line.text.as_str();
        let t = Instant::now();
        let matches = engine.match_affiliation(aff, filters);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if ms > self.slowest.0 {
            self.slowest = (ms, aff.chars().take(80).collect());
        }
        self.lat.push(ms);
        let chosen = matches
            .iter()
            .find(|m| m.chosen)
            .map(|m| reg.id(m.record as usize).url());
        let half = 1 + n % 2;
        for key in [line.source.as_str(), "all"] {
            let c = self.totals.entry(key.to_string()).or_default();
            c[0].add(&line.gold, chosen.as_deref());
            c[half].add(&line.gold, chosen.as_deref());
        }
        if errors && half == 1 {
            self.keep_error(engine, line, &matches, chosen.as_deref());
        }
    }

    /// Keeps a wrong chosen as a false positive and a missing one on a row
    /// with gold as a false negative, classed by where the gold stood.
    fn keep_error(
        &mut self,
        engine: &Engine,
        line: &GoldLine,
        matches: &[AffiliationMatch],
        chosen: Option<&str>,
    ) {
        let gold = &line.gold;
        match chosen {
            Some(c) if !gold.iter().any(|g| g == c) => self
                .false_positives
                .push(error_report(engine, line, matches)),
            None if !gold.is_empty() => {
                let reg = engine.registry();
                let rank = matches
                    .iter()
                    .position(|m| gold.contains(&reg.id(m.record as usize).url()));
                let class = match rank {
                    Some(0) => "gold first, not chosen",
                    Some(_) => "gold listed lower",
                    None => "gold not listed",
                };
                *self.fn_classes.entry(class).or_insert(0usize) += 1;
                self.false_negatives
                    .push(error_report(engine, line, matches))
            }
            _ => {}
        }
    }

    /// Precision, recall and F1 of the whole set and each half, the latency
    /// per string and how the empty-gold rows were answered.
    fn print_scores(&mut self) {
        let totals = &self.totals;
        for (label, idx) in [
            ("whole set", 0),
            ("half A (even rows)", 1),
            ("half B (odd rows)", 2),
        ] {
            println!("{label}:");
            for (source, c) in totals {
                if source != "all" {
                    println!("  {}", c[idx].line(source));
                }
            }
            if let Some(c) = totals.get("all") {
                println!("  {}", c[idx].line("overall"));
            }
        }
        let p50 = percentile(&mut self.lat, 0.5);
        let p99 = percentile(&mut self.lat, 0.99);
        let max = self.lat.last().copied().unwrap_or(0.0);
        println!(
            "latency per string: p50 {p50:.3} ms  p99 {p99:.3} ms  max {max:.3} ms  ({} strings)",
            self.lat.len()
        );
        println!("slowest: {:.3} ms «{}»", self.slowest.0, self.slowest.1);
        if let Some(c) = self.totals.get("all") {
            println!(
                "rows with empty gold: {}, nothing chosen on {} (precision of the answer \"no match\": {:.3})",
                c[0].empty_gold,
                c[0].empty_gold - c[0].chosen_on_empty,
                if c[0].empty_gold == 0 {
                    1.0
                } else {
                    (c[0].empty_gold - c[0].chosen_on_empty) as f64 / c[0].empty_gold as f64
                }
            );
        }
    }

    /// `n_errors` false positives and negatives each, spread over the set.
    fn print_errors(&self, n_errors: usize) {
        let pick = |v: &[String]| -> Vec<String> {
            let step = (v.len() / n_errors).max(1);
            v.iter().step_by(step).take(n_errors).cloned().collect()
        };
        println!("\nfalse positives ({} total):", self.false_positives.len());
        for e in pick(&self.false_positives) {
            println!("{e}");
        }
        println!(
            "\nfalse negatives ({} total): {:?}",
            self.false_negatives.len(),
            self.fn_classes
        );
        for e in pick(&self.false_negatives) {
            println!("{e}");
        }
    }
}

/// A wrong answer as printed: the row, the gold records' names and the
/// first three candidates (score, name, matching type, the substring and
/// the country).
fn error_report(engine: &Engine, line: &GoldLine, matches: &[AffiliationMatch]) -> String {
    let reg = engine.registry();
    let name_of = |id: &str| {
        RecordId::parse(id)
            .ok()
            .and_then(|r| reg.index_of(r))
            .map_or_else(|| "?".to_string(), |i| reg.display_name(i).to_string())
    };
    let top: Vec<String> = matches
        .iter()
        .take(3)
        .map(|m| {
            format!(
                "{:.2} {} [{:?}] «{}» {}",
                m.raw_score,
                reg.display_name(m.record as usize),
                m.matching_type,
                m.substring,
                reg.places(m.record as usize)
                    .next()
                    .map_or("", |p| p.country_code)
            )
        })
        .collect();
    let gold_names: Vec<String> = line.gold.iter().map(|g| name_of(g)).collect();
    format!(
        "  [{}] {}\n      gold: {gold_names:?}\n      got:  {}",
        line.source,
        line.text,
        top.join(" | ")
    )
}

/// The cross-source check, its held-out answers written to `held_out` when
/// given (the file is made before the check runs, so a path that cannot be
/// written fails before the fitting).
fn cross_source_written(
    engine: &Engine,
    lines: &[GoldLine],
    filters: &Filters,
    set: &fit_affiliation::Settings,
    held_out: Option<&str>,
) -> Result<Vec<Curve>, String> {
    let mut writer = match held_out {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("cannot write {path}: {e}"))?,
        )),
        None => None,
    };
    let curves = cross_source(
        engine,
        lines,
        filters,
        set,
        writer.as_mut().map(|w| w as &mut dyn std::io::Write),
    )?;
    if let (Some(mut w), Some(path)) = (writer, held_out) {
        std::io::Write::flush(&mut w).map_err(|e| format!("cannot write {path}: {e}"))?;
        println!("held-out answers written to {path}");
    }
    Ok(curves)
}

/// The precision-recall curves of the held-out rows as an SVG, the
/// operating points marked.
fn write_svg(path: &str, set: &fit_affiliation::Settings, curves: &[Curve]) -> Result<(), String> {
    let doc = crate::pr_svg::svg(
        &format!(
            "Affiliation chosen: precision-recall on held-out rows (fit in memory, threshold for P {} on the fit rows)",
            set.precision
        ),
        curves,
        (0.96, 0.85),
    );
    std::fs::write(path, doc).map_err(|e| format!("cannot write {path}: {e}"))?;
    println!("precision-recall curve written to {path}");
    Ok(())
}

/// The honest check: the model fitted in memory on one source's rows
/// (threshold for the default precision on them), reported on the other's,
/// both ways; and the in-memory fit on all rows for comparison with the
/// checked-in weights.
fn cross_source(
    engine: &Engine,
    lines: &[GoldLine],
    filters: &Filters,
    set: &fit_affiliation::Settings,
    mut held_out: Option<&mut dyn std::io::Write>,
) -> Result<Vec<Curve>, String> {
    let mut curves = Vec::new();
    let mut dump = |label: &str, model: &registry_core::affiliation::Model, rows: &[&Row]| {
        if let Some(w) = held_out.as_mut() {
            held_out_lines(engine, label, model, rows, w)
        } else {
            Ok(())
        }
    };
    let mut trace = |label: String, model: &registry_core::affiliation::Model, rows: &[&Row]| {
        let with_gold = rows.iter().filter(|r| r.has_gold).count();
        curves.push(crate::pr_svg::curve(
            label,
            fit_affiliation::best_scores(model, rows),
            with_gold,
            model.threshold,
        ));
    };
    let rows = affiliation_rows::collect(engine, lines, filters);
    let copies = if set.augment {
        affiliation_rows::augment(engine, &rows, filters, |_| true)
    } else {
        Vec::new()
    };
    let mut sources: Vec<&str> = rows.iter().map(|r| r.source.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    let score = |model: &registry_core::affiliation::Model, rows: &[&Row]| {
        let mut c = Counts::default();
        for r in rows {
            let ok = fit_affiliation::answer(model, r);
            c.rows += 1;
            if r.has_gold {
                c.with_gold += 1;
                if let Some(ok) = ok {
                    c.chosen += 1;
                    c.correct += usize::from(ok);
                }
            } else {
                c.empty_gold += 1;
                c.chosen_on_empty += usize::from(ok.is_some());
            }
        }
        c
    };
    let p = set.precision;
    println!(
        "cross-source check (fitted in memory on one source, threshold for P >= {p} there, reported on the other):"
    );
    for &train in &sources {
        let fit_rows = affiliation_rows::with_copies(&rows, &copies, |_, r| r.source == train);
        let model = fit_affiliation::fit(&fit_rows, set)?;
        for &test in sources.iter().filter(|&&t| t != train) {
            let test_rows: Vec<&Row> = rows.iter().filter(|r| r.source == test).collect();
            println!(
                "  {}",
                score(&model, &test_rows).line(&format!("fit {train} -> {test}"))
            );
            println!("      {}", error_groups(&model, &test_rows));
            trace(
                format!("fit {train}, measured on {test}"),
                &model,
                &test_rows,
            );
            dump(&format!("{train}->{test}"), &model, &test_rows)?;
            // Recall at a fixed precision on the other source: the same
            // fitted scores, the threshold set where they reach P 0.95
            // there (with its labels: how well the ranking transfers, not
            // what the shipped threshold gives).
            let mut at = model.clone();
            at.threshold =
                fit_affiliation::threshold(fit_affiliation::best_scores(&model, &test_rows), 0.95);
            if at.threshold.is_finite() {
                println!(
                    "  {}",
                    score(&at, &test_rows).line(&format!("  at P 0.95 on {test}"))
                );
            }
        }
    }
    // Even rows against odd rows: same kinds of strings, unseen ones.
    let odd: Vec<&Row> = rows.iter().skip(1).step_by(2).collect();
    let even = affiliation_rows::with_copies(&rows, &copies, |i, _| i % 2 == 0);
    let model = fit_affiliation::fit(&even, set)?;
    println!("  {}", score(&model, &odd).line("fit half A -> half B"));
    println!("      {}", error_groups(&model, &odd));
    trace("fit even rows, measured on odd rows".into(), &model, &odd);
    dump("even->odd", &model, &odd)?;
    let all: Vec<&Row> = rows.iter().collect();
    let model = fit_affiliation::fit(
        &affiliation_rows::with_copies(&rows, &copies, |_, _| true),
        set,
    )?;
    println!("  {}", score(&model, &all).line("fit all -> all"));
    Ok(curves)
}

/// The kinds of wrong `chosen` answers a held-out check counts, in the
/// order they are tested (the first that fits names the error).
const ERROR_KINDS: [&str; 9] = [
    "empty gold",
    "gold not among the leading candidates",
    "placed in another country",
    "acronym",
    "hospital and university",
    "unit and host",
    "several organizations named whole",
    "several organizations, partly named",
    "another organization, same words",
];

/// Index of a feature by name (the names are fixed at compile time).
fn feature(name: &str) -> usize {
    registry_core::affiliation::features::NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or(0)
}

/// What kind of error a wrong `chosen` is (an index into [`ERROR_KINDS`]),
/// read from the features of the chosen candidate and of the gold one: a
/// string naming a hospital and its university where the gold is the other
/// one, a unit and its host organization (one the parent of a candidate
/// named as well, the other a child), several organizations named whole...
/// `chosen` indexes the row's visible candidates.
fn error_kind(row: &Row, chosen: usize) -> usize {
    use registry_core::affiliation::features::COUNT;
    let shown: Vec<&[f32; COUNT]> = row
        .cands
        .iter()
        .filter(|c| c.visible)
        .map(|c| &c.features)
        .collect();
    let gold = row
        .cands
        .iter()
        .filter(|c| c.visible)
        .position(|c| row.gold.contains(&c.record));
    let Some(c) = shown.get(chosen) else {
        return 8;
    };
    let on = |x: &[f32; COUNT], name: &str| x[feature(name)] > 0.0;
    if !row.has_gold {
        return 0;
    }
    let Some(g) = gold.map(|g| shown[g]) else {
        return 1;
    };
    if on(c, "country_disagrees") {
        return 2;
    }
    if on(c, "acronym") || on(c, "acronym_name") {
        return 3;
    }
    let hospital = |x: &[f32; COUNT]| on(x, "healthcare") && !on(x, "education");
    if (hospital(c) && on(g, "education")) || (on(c, "education") && hospital(g)) {
        return 4;
    }
    let host = |x: &[f32; COUNT]| on(x, "parent_of_candidate");
    let unit = |x: &[f32; COUNT]| on(x, "child_of_candidate");
    if (host(c) && unit(g)) || (unit(c) && host(g)) {
        return 5;
    }
    let named = |x: &[f32; COUNT]| x[feature("score")] >= 0.85;
    let whole = |x: &[f32; COUNT]| on(x, "exact") || on(x, "phrase");
    if named(g) && named(c) {
        return if whole(g) && whole(c) { 6 } else { 7 };
    }
    8
}

/// The wrong answers of a held-out check by kind ([`error_kind`]), most
/// frequent first.
fn error_groups(model: &registry_core::affiliation::Model, rows: &[&Row]) -> String {
    use registry_core::affiliation::features::COUNT;
    let mut n = [0usize; ERROR_KINDS.len()];
    for r in rows {
        let feats: Vec<[f32; COUNT]> = r
            .cands
            .iter()
            .filter(|c| c.visible)
            .map(|c| c.features)
            .collect();
        if let Some(i) = model.choose(&feats)
            && fit_affiliation::answer(model, r) == Some(false)
        {
            n[error_kind(r, i)] += 1;
        }
    }
    let mut kinds: Vec<(usize, &str)> = n.into_iter().zip(ERROR_KINDS).collect();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.0));
    let parts: Vec<String> = kinds
        .iter()
        .filter(|k| k.0 > 0)
        .map(|(n, k)| format!("{k} {n}"))
        .collect();
    format!("wrong answers by kind: {}", parts.join(", "))
}

/// One JSON line per held-out row (`--held-out`): the check, the text, the
/// gold names, the model's answer, its best eligible score and threshold,
/// and the leading candidates with their scores and eligibility: what the
/// error analysis of a held-out check reads.
fn held_out_lines(
    engine: &Engine,
    label: &str,
    model: &registry_core::affiliation::Model,
    rows: &[&Row],
    w: &mut dyn std::io::Write,
) -> Result<(), String> {
    use registry_core::affiliation::features::{COUNT, NAMES};
    let reg = engine.registry();
    for r in rows {
        let shown: Vec<_> = r.cands.iter().filter(|c| c.visible).collect();
        let feats: Vec<[f32; COUNT]> = shown.iter().map(|c| c.features).collect();
        let best = model.best(&feats);
        let chosen = model.choose(&feats);
        let cands: Vec<serde_json::Value> = shown
            .iter()
            .zip(&feats)
            .map(|(c, x)| {
                let features: serde_json::Map<String, serde_json::Value> = NAMES
                    .iter()
                    .zip(x)
                    .map(|(n, v)| ((*n).to_string(), serde_json::json!(v)))
                    .collect();
                serde_json::json!({
                    "name": reg.display_name(c.record as usize),
                    "country": reg.places(c.record as usize).next().map_or("", |p| p.country_code),
                    "gold": r.gold.contains(&c.record),
                    "logit": model.score(x),
                    "ineligible": registry_core::affiliation::model::ineligible(x).map(|k| format!("{k:?}")),
                    "features": features,
                })
            })
            .collect();
        let line = serde_json::json!({
            "check": label,
            "text": r.text,
            "has_gold": r.has_gold,
            "gold": r.gold.iter().map(|&g| reg.display_name(g as usize)).collect::<Vec<_>>(),
            "chosen": chosen.map(|i| reg.display_name(shown[i].record as usize)),
            "ok": chosen.map(|i| r.gold.contains(&shown[i].record)),
            "best": best.map(|b| b.1),
            "threshold": model.threshold,
            "cands": cands,
        });
        writeln!(w, "{line}").map_err(|e| format!("cannot write the held-out answers: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chosen_on_an_empty_gold_row_is_a_false_positive() {
        let mut c = Counts::default();
        let gold = vec!["https://ror.org/a".to_string()];
        c.add(&gold, Some("https://ror.org/a"));
        c.add(&gold, None);
        c.add(&[], Some("https://ror.org/b"));
        c.add(&[], None);
        // One right answer of two given; one of two gold rows found.
        assert_eq!(c.precision_recall(), (0.5, 0.5));
        let line = c.line("x");
        assert!(line.contains("chosen      2"), "{line}");
        assert!(line.contains("P on gold rows only 1.0000"), "{line}");
        assert!(
            line.contains("empty gold 2: 1 answered with nothing"),
            "{line}"
        );
    }

    /// A row whose candidate 0 was chosen and whose gold is record 2.
    fn row(chosen: &[(&str, f32)], gold: Option<&[(&str, f32)]>) -> Row {
        use registry_core::affiliation::Candidate;
        use registry_core::affiliation::features::COUNT;
        let cand = |record: u32, set: &[(&str, f32)]| {
            let mut features = [0f32; COUNT];
            for &(k, v) in set {
                features[feature(k)] = v;
            }
            Candidate {
                record,
                visible: true,
                features,
            }
        };
        let mut cands = vec![cand(1, chosen)];
        cands.extend(gold.map(|g| cand(2, g)));
        Row {
            text: String::new(),
            source: "t".into(),
            gold: vec![2],
            has_gold: true,
            cands,
            augmented: false,
        }
    }

    #[test]
    fn wrong_answers_are_grouped_by_what_the_string_names() {
        let kind = |r: &Row| ERROR_KINDS[error_kind(r, 0)];
        let named = [("score", 1.0), ("exact", 1.0)];
        assert_eq!(
            kind(&row(&named, None)),
            "gold not among the leading candidates"
        );
        let mut empty = row(&named, None);
        empty.has_gold = false;
        empty.gold.clear();
        assert_eq!(kind(&empty), "empty gold");
        // "Department of X, Y Hospital, Z University": the hospital chosen,
        // the university the gold (and the reverse).
        let hospital = [("score", 1.0), ("exact", 1.0), ("healthcare", 1.0)];
        let university = [("score", 0.9), ("phrase", 1.0), ("education", 1.0)];
        assert_eq!(
            kind(&row(&hospital, Some(&university))),
            "hospital and university"
        );
        assert_eq!(
            kind(&row(&university, Some(&hospital))),
            "hospital and university"
        );
        // A university hospital is both: not the hospital kind.
        let both = [("score", 1.0), ("healthcare", 1.0), ("education", 1.0)];
        assert_ne!(
            kind(&row(&both, Some(&university))),
            "hospital and university"
        );
        // The host chosen, its unit the gold.
        let host = [("score", 1.0), ("exact", 1.0), ("parent_of_candidate", 1.0)];
        let unit = [("score", 0.95), ("exact", 1.0), ("child_of_candidate", 1.0)];
        assert_eq!(kind(&row(&host, Some(&unit))), "unit and host");
        assert_eq!(
            kind(&row(&named, Some(&named))),
            "several organizations named whole"
        );
        assert_eq!(
            kind(&row(&named, Some(&[("score", 0.9)]))),
            "several organizations, partly named"
        );
        assert_eq!(
            kind(&row(&named, Some(&[("score", 0.6)]))),
            "another organization, same words"
        );
        let elsewhere = [("score", 1.0), ("country_disagrees", 1.0)];
        assert_eq!(
            kind(&row(&elsewhere, Some(&named))),
            "placed in another country"
        );
        assert_eq!(
            kind(&row(&[("score", 0.85), ("acronym", 1.0)], Some(&named))),
            "acronym"
        );
        // The grouping counts only wrong answers.
        let m = registry_core::affiliation::Model {
            base: 1.0,
            splits: std::borrow::Cow::Owned(Vec::new()),
            trees: std::borrow::Cow::Owned(Vec::new()),
            threshold: 0.0,
        };
        let lead = [("score", 1.0), ("exact", 1.0), ("margin", 0.5)];
        let wrong = row(&lead, Some(&[("score", 0.6)]));
        let mut right = row(&lead, None);
        right.gold = vec![1];
        assert_eq!(
            error_groups(&m, &[&wrong, &right]),
            "wrong answers by kind: another organization, same words 1"
        );
    }
}
