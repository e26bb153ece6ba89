//! Progress of the long steps of a build on stderr (import, compression,
//! typeahead pieces, writing): the real registry takes tens of seconds, and
//! silence looks like a hang. A step prints its label when it starts and its
//! time when it ends, on one line; on a terminal a counter updates in place
//! meanwhile. Quiet steps print nothing.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// How often a terminal counter is redrawn.
const REDRAW: Duration = Duration::from_millis(250);

pub struct Step {
    label: String,
    quiet: bool,
    terminal: bool,
    started: Instant,
    drawn: Option<Instant>,
    finished: bool,
}

impl Step {
    pub fn start(quiet: bool, label: impl Into<String>) -> Step {
        crate::alloc::reset_peak();
        let step = Step {
            label: label.into(),
            quiet,
            terminal: std::io::stderr().is_terminal(),
            started: Instant::now(),
            drawn: None,
            finished: false,
        };
        if !quiet {
            eprint!("{} … ", step.label);
            let _ = std::io::stderr().flush();
        }
        step
    }

    /// `done` of `total` units; redrawn on a terminal at most every 250 ms.
    pub fn count(&mut self, done: usize, total: usize) {
        if self.quiet || !self.terminal || self.drawn.is_some_and(|t| t.elapsed() < REDRAW) {
            return;
        }
        self.drawn = Some(Instant::now());
        eprint!("\r{} … {done}/{total}", self.label);
        let _ = std::io::stderr().flush();
    }

    /// Ends the line: what was done and how long it took.
    pub fn done(mut self, what: impl std::fmt::Display) {
        self.finished = true;
        if self.quiet {
            return;
        }
        let secs = self.started.elapsed().as_secs_f64();
        if self.terminal && self.drawn.is_some() {
            // Clear the counter, which may be longer than the final line.
            eprint!("\r\x1b[K{} … ", self.label);
        }
        // The heap's high-water mark since the step began: the build's
        // memory bound is per phase, and this says which phase sets it.
        let peak = crate::alloc::peak() as f64 / 1e9;
        eprintln!("{what} ({secs:.1} s, heap peak {peak:.2} GB)");
    }
}

impl Drop for Step {
    /// A step left by an error ends its line, so the error starts its own.
    fn drop(&mut self) {
        if !self.finished && !self.quiet {
            eprintln!("stopped");
        }
    }
}
