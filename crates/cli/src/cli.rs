//! The command line: one clap definition per command (its arguments are a
//! struct beside the command's code), which gives `--help`, `registry help`,
//! errors that suggest the nearest command or option, and completion
//! scripts (`registry completions bash|zsh|fish`).
//!
//! `registry --help` lists the everyday commands first and the developer
//! ones (the benchmarks, fits and evaluations) apart: clap has one heading
//! for all subcommands, so the root's help template is written here from
//! the same definitions.

use std::fmt::Write as _;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::{
    bench, bench_advanced, bench_release, bench_search, bench_serve, bench_site, build, bulk,
    check_host, eval_affiliation, fit_affiliation, fit_prior, inspect, pieces, serve, site, synth,
};

const ABOUT: &str = "registry — a research-organization registry that runs anywhere";

const AFTER_HELP: &str = "\
<shard> and <data> may be a .shard file, a build directory (its manifest.json is read), a site
folder (its data/), a manifest.json, or a dump (built in memory first). Default paths such as
../shared/... and target/site are relative to the current directory: run from the repository's
root.

Examples:
  registry build data/demo/registry-demo.json -o target/site/data --release demo
  registry info target/site/data
  registry get target/site/data 0bsd6jb11 --v1
  registry synth ../shared/data/registry-v2.json.gz --factor 4 -o target/registry-x4.json.gz";

/// Names starting so are the developer commands: they measure, evaluate or
/// refit the registry rather than build, serve or query it.
const DEVELOPER_PREFIXES: [&str; 3] = ["bench-", "fit-", "eval-"];

/// The heading of the developer commands in `registry --help`.
const DEVELOPER_HEADING: &str = "Developer commands (benchmarks, evaluations, model fits)";

#[derive(Parser)]
#[command(
    name = "registry",
    version,
    about = ABOUT,
    after_help = AFTER_HELP,
    arg_required_else_help = true,
    // As before clap: an option given twice takes its last value.
    args_override_self = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every command; each variant's arguments (and help) live beside its code.
/// The order is the order of `registry --help` within each group.
#[derive(Subcommand)]
enum Command {
    Build(build::BuildArgs),
    Site(site::SiteArgs),
    Serve(serve::ServeArgs),
    Query(serve::QueryArgs),
    Get(inspect::GetArgs),
    Info(inspect::InfoArgs),
    Match(bulk::MatchArgs),
    CheckHost(check_host::CheckHostArgs),
    Synth(synth::SynthArgs),
    Completions(CompletionsArgs),
    BenchShard(bench::BenchShardArgs),
    BenchSearch(bench_search::BenchSearchArgs),
    BenchAdvanced(bench_advanced::BenchAdvancedArgs),
    BenchPieces(pieces::BenchPiecesArgs),
    BenchServe(bench_serve::BenchServeArgs),
    BenchSite(bench_site::BenchSiteArgs),
    BenchRelease(bench_release::BenchReleaseArgs),
    EvalAffiliation(eval_affiliation::EvalAffiliationArgs),
    FitAffiliation(fit_affiliation::FitAffiliationArgs),
    FitPrior(fit_prior::FitPriorArgs),
}

/// Print a shell completion script (bash, zsh, fish, …).
///
/// It completes registry's commands and options. Bash: `registry
/// completions bash > ~/.local/share/bash-completion/completions/registry`;
/// zsh: save it as `_registry` in a directory on $fpath; fish: save it as
/// ~/.config/fish/completions/registry.fish.
#[derive(clap::Args)]
struct CompletionsArgs {
    /// The shell
    #[arg(value_name = "shell")]
    shell: clap_complete::Shell,
}

impl Command {
    fn run(self) -> Result<(), String> {
        match self {
            Command::Build(a) => build::cmd_build(a),
            Command::Site(a) => site::cmd_site(a),
            Command::Serve(a) => serve::cmd_serve(a),
            Command::Query(a) => serve::cmd_query(a),
            Command::Get(a) => inspect::cmd_get(a),
            Command::Info(a) => inspect::cmd_info(a),
            Command::Match(a) => bulk::cmd_match(a),
            Command::CheckHost(a) => check_host::cmd_check_host(a),
            Command::Synth(a) => synth::cmd_synth(a),
            Command::Completions(a) => print_completions(a.shell),
            Command::BenchShard(a) => bench::cmd_bench_shard(a),
            Command::BenchSearch(a) => bench_search::cmd_bench_search(a),
            Command::BenchAdvanced(a) => bench_advanced::cmd_bench_advanced(a),
            Command::BenchPieces(a) => pieces::cmd_bench_pieces(a),
            Command::BenchServe(a) => bench_serve::cmd_bench_serve(a),
            Command::BenchSite(a) => bench_site::cmd_bench_site(a),
            Command::BenchRelease(a) => bench_release::cmd_bench_release(a),
            Command::EvalAffiliation(a) => eval_affiliation::cmd_eval_affiliation(a),
            Command::FitAffiliation(a) => fit_affiliation::cmd_fit_affiliation(a),
            Command::FitPrior(a) => fit_prior::cmd_fit_prior(a),
        }
    }
}

/// The script is made in memory and written at once: a reader that stops
/// early (`| head`) is then no error, as for the other commands.
fn print_completions(shell: clap_complete::Shell) -> Result<(), String> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "registry", &mut script);
    let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
    Ok(())
}

/// Parses the process's arguments (clap prints help, the version or a usage
/// error and exits itself) and runs the command.
pub fn parse_and_run() -> Result<(), String> {
    let matches = command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.command.run()
}

/// The clap definition with the root's help grouped into everyday and
/// developer commands.
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    // Built, so that clap's own `help` subcommand is listed too.
    cmd.build();
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{}Options:\n{{options}}{{after-help}}",
        command_groups(&cmd)
    );
    cmd.help_template(template)
}

fn is_developer(name: &str) -> bool {
    DEVELOPER_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// "Commands:" and the developer heading, each with its commands' names
/// and one-line summaries, aligned as clap aligns them.
fn command_groups(cmd: &clap::Command) -> String {
    let listed: Vec<(&str, String)> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
            (c.get_name(), about)
        })
        .collect();
    let width = listed.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut text = String::new();
    for (heading, developer) in [("Commands", false), (DEVELOPER_HEADING, true)] {
        let _ = writeln!(text, "{heading}:");
        for (name, about) in listed.iter().filter(|(n, _)| is_developer(n) == developer) {
            let _ = writeln!(text, "  {name:<width$}  {about}");
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_is_in_one_group_and_both_groups_have_some() {
        let mut cmd = Cli::command();
        cmd.build();
        let groups = command_groups(&cmd);
        let (everyday, developer) = groups.split_once(DEVELOPER_HEADING).unwrap();
        for c in cmd.get_subcommands() {
            let line = format!("\n  {} ", c.get_name());
            let (here, not_there) = if is_developer(c.get_name()) {
                (developer, everyday)
            } else {
                (everyday, developer)
            };
            assert!(here.contains(&line) && !not_there.contains(&line), "{line}");
        }
        assert!(everyday.contains("\n  build ") && developer.contains("\n  bench-shard "));
    }
}
