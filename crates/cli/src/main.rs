//! `registry`: build, inspect and query registry shards.

mod affiliation_rows;
mod alloc;
mod arg_values;
mod base;
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
mod cli;
mod deltas;
mod encoders;
mod eval_affiliation;
mod fit_affiliation;
mod fit_prior;
mod gzip;
mod import;
mod inspect;
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

use std::process::ExitCode;

#[global_allocator]
static ALLOC: alloc::Counting = alloc::Counting;

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
    match cli::parse_and_run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
