//! Progress of the long steps of a build on stderr (import, compression,
//! typeahead pieces, writing): the real registry takes tens of seconds, and
//! silence looks like a hang. A step ends with one line: its label, what it
//! did, its time and heap peak. On a terminal an indicatif spinner, then a
//! bar once the step counts its work, stands in for it meanwhile; elsewhere
//! (tests, CI, a log file) the label is printed when the step starts and the
//! rest of the line when it ends, as those readers expect. Quiet steps print
//! nothing.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the spinner turns while a step has not counted anything.
const TICK: Duration = Duration::from_millis(120);

/// The terminal's first drawing: the label and a spinner.
const SPINNER: &str = "{msg} … {spinner} {elapsed}";

/// Once the step counts its work: how much of it is done and what is left.
const BAR: &str = "{msg} … {pos}/{len} {wide_bar} {elapsed} (eta {eta})";

pub struct Step {
    label: String,
    draw: Draw,
    started: Instant,
    finished: bool,
}

/// Where a step's progress goes.
enum Draw {
    Quiet,
    /// "label … " now, the rest of the line at the end.
    Plain,
    /// A spinner, then a bar, cleared for the final line.
    Terminal(ProgressBar),
}

impl Step {
    pub fn start(quiet: bool, label: impl Into<String>) -> Step {
        crate::alloc::reset_peak();
        let label = label.into();
        let draw = if quiet {
            Draw::Quiet
        } else if std::io::stderr().is_terminal() {
            Draw::Terminal(spinner(&label))
        } else {
            eprint!("{label} … ");
            let _ = std::io::stderr().flush();
            Draw::Plain
        };
        Step {
            label,
            draw,
            started: Instant::now(),
            finished: false,
        }
    }

    /// `done` of `total` units, shown on a terminal (indicatif limits the
    /// redraws); nothing elsewhere, where a redraw would be a new line.
    pub fn count(&mut self, done: usize, total: usize) {
        if let Draw::Terminal(bar) = &self.draw {
            if bar.length().is_none() {
                bar.set_style(bar_style());
            }
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }

    /// Ends the line: what was done and how long it took.
    pub fn done(mut self, what: impl std::fmt::Display) {
        self.finished = true;
        let secs = self.started.elapsed().as_secs_f64();
        // The heap's high-water mark since the step began: the build's
        // memory bound is per phase, and this says which phase sets it.
        let peak = crate::alloc::peak() as f64 / 1e9;
        let end = format!("{what} ({secs:.1} s, heap peak {peak:.2} GB)");
        match &self.draw {
            Draw::Quiet => {}
            Draw::Plain => eprintln!("{end}"),
            Draw::Terminal(bar) => {
                bar.finish_and_clear();
                eprintln!("{} … {end}", self.label);
            }
        }
    }
}

fn spinner(label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(SPINNER).unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(label.to_string());
    bar.enable_steady_tick(TICK);
    bar
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template(BAR).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Drop for Step {
    /// A step left by an error ends its line, so the error starts its own.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        match &self.draw {
            Draw::Quiet => {}
            Draw::Plain => eprintln!("stopped"),
            Draw::Terminal(bar) => {
                bar.finish_and_clear();
                eprintln!("{} … stopped", self.label);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_templates_parse() {
        // The fallbacks above are for a template indicatif would refuse.
        ProgressStyle::with_template(SPINNER).unwrap();
        ProgressStyle::with_template(BAR).unwrap();
    }
}
