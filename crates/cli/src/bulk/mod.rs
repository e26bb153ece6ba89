//! `registry match <file>`: affiliation matching of a whole list (a CSV
//! column, JSON lines, or one string a line) on every core, the rows written
//! back in their order with the best two candidates, and a summary. The
//! engine is shared read-only by scoped threads that take chunks of rows in
//! turn; each chunk's answers land in that chunk's slots, so order is kept
//! whatever finishes first.

pub mod input;
pub mod output;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use registry_core::search::{Engine, Filters};

use crate::affiliation_rows::DEFAULT_DATA;
use crate::load;
use input::{Format, Row};
use output::{Candidate, Outcome};

/// Rows a thread takes at a time: small enough to share out the last ones
/// evenly, large enough that taking them costs nothing.
const CHUNK: usize = 64;

/// How many row errors the summary lists (all are in the output).
const ERRORS_LISTED: usize = 20;

/// Match every affiliation string of a list (on all cores).
///
/// The output holds the input rows plus id, name, score, chosen,
/// matching_type of the best candidate (the chosen one when there is one),
/// the second candidate's id, name and score, and an error column; rows
/// that cannot be read keep their line and say why; a row with more fields
/// than the header keeps them in columns extra_1, … added after the
/// header's; a blank line of plain lines is a row with no candidate. CSV or
/// plain lines → CSV, JSON lines → JSON lines; progress and a summary
/// (chosen, no candidate, errors, strings/s) on stderr.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// The list: a file, or - (standard input)
    #[arg(value_name = "file")]
    file: String,
    /// The CSV column holding the strings (default: guessed from the
    /// header, as the Match page guesses it)
    #[arg(long, value_name = "name")]
    column: Option<String>,
    /// The JSON lines member holding the strings
    #[arg(long, value_name = "name")]
    field: Option<String>,
    /// csv, jsonl or lines (default: .jsonl/.ndjson or --field is JSON
    /// lines, --column a table; standard input is lines; else as the Match
    /// page reads the file: .txt lines, .tsv tabs, the header line's comma,
    /// semicolon or tab)
    #[arg(long, value_name = "f")]
    format: Option<String>,
    /// Registry data (default: ../shared/data/registry-v2.json.gz)
    #[arg(long, value_name = "data")]
    data: Option<PathBuf>,
    /// Match with all_status (default: active records only)
    #[arg(long)]
    all_status: bool,
    /// Output file (default: standard output)
    #[arg(short, long, value_name = "file")]
    out: Option<String>,
    /// Threads matching at once (default: the number of cores)
    #[arg(long, value_name = "n", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    threads: Option<usize>,
    /// No progress, no summary
    #[arg(short, long)]
    quiet: bool,
}

/// Runs the command.
pub fn cmd_match(a: MatchArgs) -> Result<(), String> {
    let (file, quiet) = (a.file.as_str(), a.quiet);
    let format = a.format.as_deref().map(Format::parse).transpose()?;
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bytes = if file == "-" {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        v
    } else {
        load::read(Path::new(file))?
    };
    // The input is read before the data is loaded: a mistake about the file
    // is reported at once.
    let (column, field) = (a.column.as_deref(), a.field.as_deref());
    let input =
        input::read(file, &bytes, format, column, field).map_err(|e| format!("{file}: {e}"))?;
    drop(bytes);
    if let Some(c) = input.guessed_column.as_ref().filter(|_| !quiet) {
        eprintln!(
            "matching the column '{c}' (guessed from the header; --column <name> names another)"
        );
    }
    let data = load::given_or_default(a.data.as_deref(), &[DEFAULT_DATA.into()], "--data <data>")?;
    let t = Instant::now();
    let engine = Engine::new(load::load(&data, quiet)?);
    if !quiet {
        eprintln!(
            "loaded {} records in {:.1} s",
            engine.registry().len(),
            t.elapsed().as_secs_f64()
        );
    }
    let filters = Filters {
        all_status: a.all_status,
        ..Filters::default()
    };
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let outcomes = match_all(&engine, &filters, &input.rows, threads, quiet);
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;

    let out_path = a.out.as_deref();
    let written = match out_path {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| format!("cannot create {p}: {e}"))?;
            write(&mut std::io::BufWriter::new(f), &input, &outcomes)
        }
        None => write(&mut std::io::stdout().lock(), &input, &outcomes),
    };
    written.map_err(|e| format!("cannot write {}: {e}", out_path.unwrap_or("the output")))?;
    if !quiet {
        eprint!("{}", summary(&input.rows, &outcomes, secs, cpu, threads));
    }
    Ok(())
}

fn write(out: &mut impl Write, input: &input::Input, outcomes: &[Outcome]) -> std::io::Result<()> {
    match input.format {
        Format::Jsonl => output::write_jsonl(out, &input.rows, outcomes)?,
        Format::Csv | Format::Lines => {
            output::write_csv(out, &input.header, &input.rows, outcomes)?
        }
    }
    out.flush()
}

/// One row's best two candidates (the chosen one first, when there is one).
fn match_one(engine: &Engine, filters: &Filters, text: &str) -> Outcome {
    let reg = engine.registry();
    let matches = engine.match_affiliation(text, filters);
    let candidate = |k: usize| {
        matches.get(k).map(|m| Candidate {
            id: reg.id(m.record as usize).url(),
            name: reg.display_name(m.record as usize).to_string(),
            score: m.score,
            matching_type: serde_json::to_value(m.matching_type)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
        })
    };
    Outcome {
        first: candidate(0),
        second: candidate(1),
        chosen: matches.first().is_some_and(|m| m.chosen),
    }
}

/// Matches every readable row on `threads` threads, in input order.
fn match_all(
    engine: &Engine,
    filters: &Filters,
    rows: &[Row],
    threads: usize,
    quiet: bool,
) -> Vec<Outcome> {
    let chunks: Vec<&[Row]> = rows.chunks(CHUNK).collect();
    let slots: Vec<Mutex<Vec<Outcome>>> = chunks.iter().map(|_| Mutex::default()).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let mut progress = Progress::new(quiet, rows.len());
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(chunks.len()).max(1))
            .map(|_| {
                s.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = chunks.get(k) else { break };
                        let answers: Vec<Outcome> = chunk
                            .iter()
                            .map(|r| match &r.text {
                                // A blank line is a row with no candidate, as on the Match page.
                                Some(t) if r.error.is_none() && !t.trim().is_empty() => {
                                    match_one(engine, filters, t)
                                }
                                _ => Outcome::default(),
                            })
                            .collect();
                        done.fetch_add(chunk.len(), Ordering::Relaxed);
                        *slots[k].lock().unwrap_or_else(|e| e.into_inner()) = answers;
                    }
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            progress.show(done.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    progress.finish();
    slots
        .into_iter()
        .flat_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// Progress on stderr: a bar redrawn in place on a terminal, a plain line
/// every few seconds otherwise (a log keeps every line).
struct Progress {
    quiet: bool,
    terminal: bool,
    total: usize,
    started: Instant,
    shown: Option<Instant>,
}

impl Progress {
    fn new(quiet: bool, total: usize) -> Progress {
        Progress {
            quiet,
            terminal: std::io::stderr().is_terminal(),
            total,
            started: Instant::now(),
            shown: None,
        }
    }

    fn show(&mut self, done: usize) {
        let every = if self.terminal {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(5)
        };
        let due = self
            .shown
            .map_or(self.started.elapsed() >= every, |t| t.elapsed() >= every);
        if self.quiet || !due {
            return;
        }
        self.shown = Some(Instant::now());
        let line = progress_line(done, self.total, self.started.elapsed().as_secs_f64());
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
            eprint!(
                "\r\x1b[K[{}{}] {line}",
                "#".repeat(filled),
                "-".repeat(WIDTH - filled)
            );
        } else {
            eprintln!("{line}");
        }
        let _ = std::io::stderr().flush();
    }

    /// Clears the bar, so the summary starts on a clean line.
    fn finish(&self) {
        if !self.quiet && self.terminal && self.shown.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}

fn progress_line(done: usize, total: usize, secs: f64) -> String {
    let rate = done as f64 / secs.max(1e-9);
    let eta = if rate > 0.0 {
        format!(", about {:.0} s left", (total - done) as f64 / rate)
    } else {
        String::new()
    };
    format!(
        "matching {done}/{total} ({:.0} %), {rate:.0} strings/s{eta}",
        (done * 100).checked_div(total).unwrap_or(100)
    )
}

/// CPU time this process has used (all threads), in seconds: on a shared
/// machine, wall-clock throughput says as much about the neighbours.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The closing report: counts, throughput, and the rows with errors.
fn summary(rows: &[Row], outcomes: &[Outcome], secs: f64, cpu: f64, threads: usize) -> String {
    let errors: Vec<&Row> = rows.iter().filter(|r| r.error.is_some()).collect();
    let matched = rows.len() - errors.len();
    let chosen = outcomes.iter().filter(|o| o.chosen).count();
    let none = rows
        .iter()
        .zip(outcomes)
        .filter(|(r, o)| r.error.is_none() && o.first.is_none())
        .count();
    let mut text = format!(
        "rows {}  chosen {chosen}  candidates but none chosen {}  no candidate {none}  errors {}\n\
         matched {matched} strings in {secs:.2} s: {:.0} strings/s ({threads} threads; \
         {cpu:.2} s of CPU time, {:.0} strings per CPU second)\n",
        rows.len(),
        matched - chosen - none,
        errors.len(),
        matched as f64 / secs.max(1e-9),
        matched as f64 / cpu.max(1e-9),
    );
    for r in errors.iter().take(ERRORS_LISTED) {
        text.push_str(r.error.as_deref().unwrap_or(""));
        text.push('\n');
    }
    if errors.len() > ERRORS_LISTED {
        text.push_str(&format!(
            "… and {} more rows with errors (the output's error column has each)\n",
            errors.len() - ERRORS_LISTED
        ));
    }
    text
}
