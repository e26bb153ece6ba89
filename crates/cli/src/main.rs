//! `registry`: build, inspect and query registry shards.

mod affiliation_rows;
mod alloc;
mod args;
mod bench;
mod bench_advanced;
mod bench_page;
mod bench_release;
mod bench_search;
mod bench_serve;
mod bench_site;
mod build;
mod bulk;
mod check_host;
mod encoders;
mod eval_affiliation;
mod fit_affiliation;
mod fit_prior;
mod gzip;
mod import;
mod load;
mod name_forms;
mod out_file;
mod packs;
mod parallel;
mod picks;
mod pieces;
mod pr_svg;
mod progress;
mod serve;
mod site;
mod stats;
mod synth;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use args::Args;
use registry_core::import::ImportOptions;
use registry_core::{RecordId, RecordV1, shard};

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

const HELP_HEAD: &str = "\
registry — a research-organization registry that runs anywhere

USAGE:
    registry <COMMAND> [ARGS] [OPTIONS]
    registry <COMMAND> --help      Help for one command
    registry --version             The version (also -V)

COMMANDS:
";

const HELP_TAIL: &str = "
<shard> and <data> may be a .shard file, a build directory (its manifest.json is read),
a manifest.json, or a dump (built in memory first). Default paths such as ../shared/...
and target/site are relative to the current directory: run from the repository's root.

EXAMPLES:
    registry build data/demo/registry-demo.json -o target/site/data --release demo
    registry info target/site/data
    registry get target/site/data 0bsd6jb11 --v1
    registry synth ../shared/data/registry-v2.json.gz --factor 4 -o target/registry-x4.json.gz
";

/// A subcommand: its name, what runs it, and its help (its lines of the
/// full help, so the two never disagree).
struct Command {
    name: &'static str,
    run: fn(&[String]) -> Result<(), String>,
    help: &'static str,
}

const COMMANDS: &[Command] = &[
    Command {
        name: "build",
        run: cmd_build,
        help: r#"    build <dump> -o <dir>     Import a dump and write shard files + manifest.json
        <dump>                  JSON array of v2 records (upstream or spec spelling),
                                plain, .gz, or a release .zip (the v2 JSON inside is used)
        -o, --out <dir>         Output directory (created if missing)
        --release <name>        Data release name stored in the shard
                                (default: derived from the dump's file name)
        --skip-invalid          Import the valid records and list the invalid ones,
                                instead of failing on the first report
        --level <1-22>          zstd level (default 19: smallest files, a few seconds)
        --piece-bytes <n>       Raw bytes a typeahead leaf may hold (default 49152; a
                                small value splits a small registry, for tests)
        --head <n>              Records in the head of a split prefix (default 40)
        -q, --quiet             No progress output
"#,
    },
    Command {
        name: "info",
        run: cmd_info,
        help: r#"    info <shard>              Print the shard header: release, records, sections, sizes
"#,
    },
    Command {
        name: "get",
        run: cmd_get,
        help: r#"    get <shard> <id>          Print one record as JSON (v2 unless --v1)
        --v1                    Print the v1 shape
        <id>                    Any form: https://ror.org/X, ror.org/X, or X
"#,
    },
    Command {
        name: "bench-shard",
        run: bench::cmd_bench_shard,
        help: r#"    bench-shard <dump>        Build in memory and print sizes, ratios, load time, memory
        --level <1-22>          zstd level (default 19)
        --runs <n>              Load-time repetitions (default 5)
"#,
    },
    Command {
        name: "serve",
        run: serve::cmd_serve,
        help: r#"    serve                     Serve the API (v1, v2) and static files on 127.0.0.1
        --data <data>           Registry data (default: data/demo/registry-demo.json under
                                the current directory, else in the source tree the binary
                                was built from)
        --port <n>              Port (default 8080; 0 = any free port, printed on start)
        --root <dir>            Serve static files from <dir> (e.g. the built UI), with
                                CORS, compression and HOSTING.md's cache headers
        --threads <n>           Threads answering API requests at once (default: the
                                number of cores; others wait their turn)
        --max-connections <n>   Open connections at most (default 1024; beyond: 503)
        --header-timeout <s>    A request's headers must arrive within <s> seconds, and
                                an idle connection is closed after it (default 10)
        --idle-timeout <s>      Close a connection whose client reads nothing of its
                                answer for <s> seconds (default 30)
        -q, --quiet             No log output
                              Stops on SIGTERM or Ctrl-C once open requests are answered
"#,
    },
    Command {
        name: "query",
        run: serve::cmd_query,
        help: r#"    query <data> <request>    Answer one API request and print the JSON, e.g.
                                '/v2/organizations?query=oxford&filter=types:education'
                                (exit status 1 when the HTTP status is not 200)
        --suggest               Treat <request> as typeahead text: print suggest() hits
        --filter <filters>      Filters for --suggest (filter syntax, v2 keys)
        -k <n>                  Number of suggestions (default 10)
"#,
    },
    Command {
        name: "bench-search",
        run: bench_search::cmd_bench_search,
        help: r#"    bench-search <data>       Relevance (suggest success@k, keystrokes to top-1; E2
                              recall@k) and latency (p50/p99 of suggest and E2), index
                              build time and heap, over a query set derived from the data
        --targets <n>           Number of target records (default 1000)
        --latency               Latency only (faster)
        --relevance             Relevance only
        --builds <n>            Extra index builds timed (default 5)
        --eval <jsonl>          Affiliation rows whose gold records are the realistic targets
                                (default: ../shared/eval/affiliation-dev.jsonl)
        --realistic             Only the realistic and uniform keystroke figures, with and
                                without the record prior
        --oracle                Also rank with priors taken from the picks themselves (the
                                bound any content-based prior could reach)
        --page                  Only the search page against the typeahead: the share of
                                the query set typed in full whose first result (plain E2;
                                mode=typed) is the typeahead's first suggestion
"#,
    },
    Command {
        name: "bench-advanced",
        run: bench_advanced::cmd_bench_advanced,
        help: r#"    bench-advanced [<data>]   query.advanced latency (p50/p99/max per query type and overall)
                              through the API router, plus the one-time build time and heap
                              of the advanced columns (default data:
                              ../shared/data/registry-v2.json.gz)
        --reps <n>              Runs per query (default 20)
"#,
    },
    Command {
        name: "eval-affiliation",
        run: eval_affiliation::cmd_eval_affiliation,
        help: r#"    eval-affiliation          Affiliation matching quality on a gold set: precision, recall,
                              F1 per source and overall (whole set and both halves; a
                              chosen on an empty-gold row counts as a false positive, the
                              empty-gold rows answered with nothing beside it), p50/p99
                              latency per string
        --data <data>           Registry data (default: ../shared/data/registry-v2.json.gz)
        --eval <jsonl>          Gold set, JSON lines: affiliation, gold (ids), source
                                (default: ../shared/eval/affiliation-dev.jsonl)
        --errors <n>            Also print n false positives and n false negatives
        --all-status            Match with all_status (default: active records only)
        --limit <n>             Only the first n lines
        --trees <n>             Trees of the in-memory fits (default 180)
        --rate <x>              Their learning rate (default 0.25)
        --folds <k>             Their threshold set on k-fold out-of-fold scores (default 5;
                                0: on the training rows' own scores)
        --precision <p>         Their target precision (default 0.965)
        --svg <file>            Write the precision-recall curve of the in-memory fits'
                                scores on the held-out rows (both checks), operating
                                points marked, as an SVG
        --held-out <file>       Write every held-out row's answer as JSON lines (check, text,
                                gold, chosen, best score, threshold, leading candidates
                                with their features): for the error analysis
                              Also prints the cross-source check: the chosen model fitted
                              in memory on one source's rows, reported on the other's,
                              with its wrong answers by kind (hospital and university,
                              unit and host, several organizations named, ...)
"#,
    },
    Command {
        name: "match",
        run: bulk::cmd_match,
        help: r#"    match <file>              Match every affiliation string of a list (on all cores): the
                              input rows plus id, name, score, chosen, matching_type of
                              the best candidate (the chosen one when there is one), the
                              second candidate's id, name and score, and an error column;
                              rows that cannot be read keep their line and say why; a
                              row with more fields than the header keeps them in columns
                              extra_1, … added after the header's.
                              CSV or plain lines → CSV, JSON lines → JSON lines; progress
                              and a summary (chosen, no candidate, errors, strings/s) on
                              stderr. <file> may be - (standard input)
        --column <name>         The CSV column holding the strings (RFC 4180, a header line)
        --field <name>          The JSON lines member holding the strings
        --format <f>            csv, jsonl or lines (default: from the file name's ending
                                .csv/.jsonl/.ndjson, else from --column/--field, else lines)
        --data <data>           Registry data (default: ../shared/data/registry-v2.json.gz)
        --all-status            Match with all_status (default: active records only)
        -o, --out <file>        Output file (default: standard output)
        --threads <n>           Threads matching at once (default: the number of cores)
        -q, --quiet             No progress, no summary
"#,
    },
    Command {
        name: "fit-affiliation",
        run: fit_affiliation::cmd_fit_affiliation,
        help: r#"    fit-affiliation           Fit the affiliation `chosen` model (boosted trees over
                              the leading candidates' features) on a gold set and write it
                              to crates/core/src/affiliation/model_weights.rs (run from
                              the repository root, then rebuild)
        --data <data>           Registry data (default: ../shared/data/registry-v2.json.gz)
        --eval <jsonl>          Gold set (default: ../shared/eval/affiliation-dev.jsonl)
        --source <name>         Fit on the rows of one source only
        --precision <p>         Target precision of the threshold (default 0.965)
        --trees <n>             Number of boosted trees (default 180)
        --rate <x>              Learning rate (shrinkage of each tree, default 0.25)
        --folds <k>             Set the threshold on k-fold out-of-fold scores (default 5;
                                0: on the training rows' own scores)
        --out <file>            Output file (default: the path above)
        --dry-run               Print the file instead of writing it
        --analyze               Also print where the training rows' recall is lost (gold
                                not among the leading candidates, tied, below threshold...)
        --examples <n>          With --analyze: up to n strings of each kind of loss
"#,
    },
    Command {
        name: "bench-pieces",
        run: pieces::cmd_bench_pieces,
        help: r#"    bench-pieces <dump>       The partitioned typeahead index: piece counts and sizes, and
                              the data bytes a cold typeahead client receives before its
                              first suggestion (first 1-3 keystrokes of names); then E2
                              over pieces: the share of requests answered from pieces,
                              data bytes before the first page (p50/p95, per kind of
                              file, what the requests around the p95 and the heaviest
                              5 % fetch) and the pieces folder
        --budget <KiB>          Raw bytes a leaf may hold (default 48)
        --head <n>              Records in the head of a split prefix (default 40)
        --level <1-22>          zstd level (default 19)
        --targets <n>           Names typed (default 1000)
        --requests <file>       Write each E2 request (query, bytes, files; or why the whole
                              registry answers it) as JSON lines
        --queries <file>        Replay the E2 requests of such a file (query, filter, page)
                              instead of sampling the data's names: the same query set at
                              two registry sizes (e.g. a 35,990-record run's file against
                              `registry synth --factor 4`)
"#,
    },
    Command {
        name: "fit-prior",
        run: fit_prior::cmd_fit_prior,
        help: r#"    fit-prior                 Fit the record prior (how likely each record is to be picked,
                              from its content) on the gold records of an affiliation set,
                              print held-out figures and write the weights as Rust source
        --data <dump>           Registry dump (default: ../shared/data/registry-v2.json.gz)
        --eval <jsonl>          Rows with a gold id list (default:
                                ../shared/eval/affiliation-dev.jsonl)
        -o, --out <file>        Where to write (default:
                                crates/core/src/prior/weights.rs)
        --dry-run               Print the source instead of writing it
"#,
    },
    Command {
        name: "site",
        run: site::cmd_site,
        help: r#"    site <dump|shard> -o <dir>  Write a complete static site: the built app + data
        --app <dir>             The built app (default target/site, from scripts/build-web.sh)
        --release <name>        Data release name (dumps only)
        --level <1-22>          zstd level (default 19)
        --piece-bytes <n>, --head <n>
                                Typeahead piece budget, as for build
"#,
    },
    Command {
        name: "synth",
        run: synth::cmd_synth,
        help: r#"    synth <dump> -o <out> --factor <n>
                              A synthetic scale-up for benchmarks at larger sizes: the
                              records plus n−1 copies of each with new valid ids (never a
                              real one), names recombined from real words of the same
                              script, case and position, the template's places, types
                              and status, relationships remapped within each copy,
                              external ids, domains and links made unique; the same
                              input, factor and seed give the same bytes
        -o, --out <file>        Output dump: .json, or .json.gz (gzip)
        --factor <n>            Output records = n × input records (1–64)
        --seed <n>              Another deterministic variant (default fixed)
        -q, --quiet             No progress output
    synth <dump> -o <out> --next-release
                              The dump's next release, as the registry's releases go:
                              3.3 % of the records changed (an alias added or a link
                              changed), 0.66 % added, 0.03 % withdrawn
        --date <YYYY-MM-DD>     Its date (last_modified of what it touches)
"#,
    },
    Command {
        name: "bench-serve",
        run: bench_serve::cmd_bench_serve,
        help: r#"    bench-serve               Throughput and p50/p90/p99 latency of a registry HTTP server
                              under concurrent clients (E2, records, E4, v1 requests built
                              from the server's own listing)
        --url <http://host:port>  A running server (this build's or another's); default:
                                start `registry serve` on a free port
        --data <data>           Data of the server started (default: the demo data, found
                                as for serve)
        --threads <n>           Its --threads
        --clients <n>           Concurrent clients (default 200)
        --requests <n>          Requests in all (default 4000)
        --fresh                 A new connection per request (default: keep-alive)
"#,
    },
    Command {
        name: "bench-site",
        run: bench_site::cmd_bench_site,
        help: r#"    bench-site <site dir>     What a built site folder holds and which hosts take it: files,
                              bytes, the largest file, files and bytes by kind (app, the
                              manifest, whole-data shards, packs, slot tables, pieces by
                              name prefix, leaves, heads, other; what the packs hold, from
                              the manifest), and a yes/no with the margin for each host's
                              caps: Cloudflare Pages free (20,000 files, 25 MiB a file)
                              and paid (100,000 files, 25 MiB a file), GitLab Pages
                              (200,000 files and directories, 1 GB), GitHub Pages (1 GB;
                              a deploy must finish within 10 minutes: not measured)
        --json                  The same figures as JSON
"#,
    },
    Command {
        name: "bench-release",
        run: bench_release::cmd_bench_release,
        help: r#"    bench-release <old site> <new site>
                              What a new release costs: the new site's files and bytes
                              unchanged by URL (a deployer uploads the rest; caches keep
                              them), its pieces whose bytes the old packs hold, and the
                              bytes of the offline copy a returning user downloads
        --json                  The same figures as JSON
"#,
    },
    Command {
        name: "check-host",
        run: check_host::cmd_check_host,
        help: r#"    check-host <url>          Check a deployed site (written by `site`) from the outside:
                                its page, data/manifest.json, a Range read of a pack (206),
                                CORS (Access-Control-Allow-Origin, as the widget embedded on
                                another origin needs), the wasm's and scripts' content types
                                and HOSTING.md's cache headers; each check with its fix.
                                Fails when a needed check fails. Plain http:// only (no TLS)
        --same-origin           The widget is not embedded elsewhere: CORS is not needed
        --timeout <s>           Each request's time at most (default 10)
"#,
    },
    Command {
        name: "help",
        run: cmd_help,
        help: r#"    help [<command>]          This text, or one command's help
"#,
    },
];

/// Every command's help, as `registry help` prints it.
fn full_help() -> String {
    let mut text = String::from(HELP_HEAD);
    for c in COMMANDS {
        text.push_str(c.help);
    }
    text + HELP_TAIL
}

/// One command's help: its lines of the full help, and what its data
/// arguments may be when it takes any.
fn command_help(c: &Command) -> String {
    let mut lines = c.help.lines();
    let first = lines.next().unwrap_or("").trim_start();
    let mut text = format!("USAGE:\n    registry {first}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    if ["<shard>", "<data>", "<dump|shard>"]
        .iter()
        .any(|arg| c.help.contains(arg))
    {
        text.push_str(
            "\n<shard> and <data> may be a .shard file, a build directory (its manifest.json is read),\n\
             a manifest.json, or a dump (built in memory first).\n",
        );
    }
    text.push_str("\nEvery command: `registry help`.\n");
    text
}

fn find_command(name: &str) -> Result<&'static Command, String> {
    COMMANDS.iter().find(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
        match args::closest(name, &names) {
            Some(near) => {
                format!("unknown command '{name}' (did you mean '{near}'? see `registry help`)")
            }
            None => format!("unknown command '{name}' (see `registry help`)"),
        }
    })
}

fn cmd_help(rest: &[String]) -> Result<(), String> {
    match rest {
        [] => print!("{}", full_help()),
        [name] => print!("{}", command_help(find_command(name)?)),
        _ => return Err("help takes at most one command name".into()),
    }
    Ok(())
}

/// A reader that stops early (`registry get … | head -1`) closes the pipe:
/// the rest of the output has nowhere to go, which is no error of ours.
/// `println!` panics then ("failed printing to stdout: Broken pipe", exit
/// 101 and a message); this ends the process at once with 0 instead,
/// wherever the output was being printed.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // The message is formatted lazily: it is no String payload.
        let message = info.to_string();
        if message.contains("failed printing to stdout") && message.contains("os error 32") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, rest)) = raw.split_first() else {
        eprint!("{}", full_help());
        return ExitCode::from(2);
    };
    let result = if name == "--help" || name == "-h" {
        cmd_help(&[])
    } else if name == "--version" || name == "-V" {
        // The name as invoked by users, not the crate's (registry-cli).
        println!("registry {}", env!("CARGO_PKG_VERSION"));
        Ok(())
    } else {
        find_command(name).and_then(|command| {
            // `--help` anywhere asks for help, as with common parsers (an
            // option's value never starts with '-' here).
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                print!("{}", command_help(command));
                return Ok(());
            }
            args::set_command(command.name);
            (command.run)(rest)
        })
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_level(a: &Args) -> Result<i32, String> {
    match a.opt("--level") {
        None => Ok(build::DEFAULT_LEVEL),
        Some(v) => v
            .parse()
            .ok()
            .filter(|l| (1..=22).contains(l))
            .ok_or_else(|| format!("--level must be 1–22, not '{v}'")),
    }
}

fn cmd_build(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(
        rest,
        &[
            "-o",
            "--out",
            "--release",
            "--level",
            "--piece-bytes",
            "--head",
        ],
        &["--skip-invalid", "-q", "--quiet"],
    )?;
    let [dump] = a.exactly(&["<dump>"])? else {
        unreachable!()
    };
    let out = a.out().ok_or("build needs an output directory: -o <dir>")?;
    let quiet = a.quiet();
    let level = parse_level(&a)?;
    let dump_path = Path::new(dump);
    let release = a
        .opt("--release")
        .map(str::to_string)
        .unwrap_or_else(|| build::release_from_path(dump_path));
    let bytes = load::read(dump_path)?;
    let options = ImportOptions {
        skip_invalid: a.flag("--skip-invalid"),
    };
    let imported = crate::import::import_with_progress(&bytes, options, quiet)?;
    let started = Instant::now();
    let built = build::build_shard_with_progress(&imported.records, &release, level, quiet)?;
    let budget = pieces::budget_arg(&a)?;
    let (files, manifest) = build::data_files(
        &built,
        imported.records,
        level,
        &budget,
        quiet,
        Some(Path::new(out)),
    )?;
    build::write_output(Path::new(out), &files, &manifest, quiet)?;
    if !quiet {
        eprintln!("built in {:.1} s", started.elapsed().as_secs_f64());
        eprintln!(
            "  {} typeahead pieces, {} bytes, in {}",
            manifest.pieces.as_ref().map_or(0, |p| p.pieces),
            manifest.pieces.as_ref().map_or(0, |p| p.piece_bytes),
            PathBuf::from(out)
                .join(manifest.pieces.as_ref().map_or("", |p| p.path.as_str()))
                .display()
        );
        for f in files
            .iter()
            // The shard files, not the thousands of pieces under pieces/.
            .filter(|f| !f.sections.is_empty() && !f.name.contains('/'))
        {
            eprintln!(
                "  {:>10} bytes  {}",
                f.bytes.len(),
                PathBuf::from(out).join(&f.name).display()
            );
        }
        eprintln!(
            "  manifest: {}",
            PathBuf::from(out).join("manifest.json").display()
        );
        eprintln!("{} records, release '{release}'", built.info.record_count);
    }
    Ok(())
}

fn cmd_info(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(rest, &[], &[])?;
    let [path] = a.exactly(&["<shard>"])? else {
        unreachable!()
    };
    let path = Path::new(path);
    let file = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    };
    if file.file_name().is_some_and(|n| n == "manifest.json") {
        let m: serde_json::Value =
            serde_json::from_slice(&load::read(&file)?).map_err(|e| e.to_string())?;
        println!("{}", serde_json::to_string_pretty(&m).unwrap_or_default());
        return Ok(());
    }
    let bytes = load::read(&file)?;
    let (info, entries, _) =
        shard::read_header(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    shard::read_file(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let sections: Vec<_> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "section": e.kind.name(), "codec": format!("{:?}", e.codec).to_lowercase(),
                "raw_bytes": e.raw_len, "stored_bytes": e.stored_len,
            })
        })
        .collect();
    let out = serde_json::json!({
        "file": file.display().to_string(), "bytes": bytes.len(), "format_version": info.format_version,
        "release": info.release, "record_count": info.record_count, "build_time": info.build_time,
        "build_id": format!("{:016x}", info.build_id), "sections": sections, "checksums": "ok",
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}

fn cmd_get(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(rest, &[], &["--v1"])?;
    let [path, id] = a.exactly(&["<shard>", "<id>"])? else {
        unreachable!()
    };
    let registry = load::load(Path::new(path), false)?;
    let rid = RecordId::parse(id).map_err(|e| e.to_string())?;
    let i = registry
        .index_of(rid)
        .ok_or_else(|| format!("no record with id {rid} in this shard"))?;
    let record = registry.record(i).map_err(|e| e.to_string())?;
    let json = if a.flag("--v1") {
        serde_json::to_string_pretty(&RecordV1::from_v2(&record))
    } else {
        serde_json::to_string_pretty(&record)
    };
    println!("{}", json.map_err(|e| e.to_string())?);
    Ok(())
}
