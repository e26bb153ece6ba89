//! A small command-line parser: positionals, `--flag`, `--key value`,
//! `--key=value`, `-o value`. `--help`/`-h` are handled before a command
//! parses (main.rs); errors name the command's help and the nearest option.
//!
//! Why not clap: every command already states its options here, and the
//! help text is one table in main.rs that the tests hold against them; a
//! derive rewrite of fifteen commands would change every command file for
//! the same behaviour.

use std::collections::HashMap;
use std::sync::OnceLock;

static COMMAND: OnceLock<&'static str> = OnceLock::new();

/// Names the running command, for error messages.
pub fn set_command(name: &'static str) {
    let _ = COMMAND.set(name);
}

/// "see `registry <command> --help`".
fn see_help() -> String {
    match COMMAND.get() {
        Some(c) => format!("see `registry {c} --help`"),
        None => "see `registry help`".to_string(),
    }
}

/// The candidate nearest to `word` by edit distance, if it is near enough to
/// be a typo (at most a third of its length, at least 1).
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn unknown_option(arg: &str, valued: &[&str], flags: &[&str]) -> String {
    let known: Vec<&str> = valued.iter().chain(flags).copied().collect();
    match closest(arg, &known) {
        Some(near) => format!(
            "unknown option '{arg}' (did you mean '{near}'? {})",
            see_help()
        ),
        None => format!("unknown option '{arg}' ({})", see_help()),
    }
}

/// Parsed arguments of one subcommand.
pub struct Args {
    pub positional: Vec<String>,
    options: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    /// Parses `raw`; `valued` lists the options that take a value, `flags` the
    /// ones that do not. Anything else starting with `-` is an error.
    pub fn parse(raw: &[String], valued: &[&str], flags: &[&str]) -> Result<Args, String> {
        let mut a = Args {
            positional: Vec::new(),
            options: HashMap::new(),
            flags: Vec::new(),
        };
        let mut it = raw.iter();
        while let Some(arg) = it.next() {
            if let Some((k, v)) = arg.split_once('=').filter(|(k, _)| k.starts_with("--")) {
                if !valued.contains(&k) {
                    return Err(unknown_option(k, valued, flags));
                }
                a.options.insert(k.to_string(), v.to_string());
            } else if valued.contains(&arg.as_str()) {
                let v = it
                    .next()
                    .ok_or_else(|| format!("option '{arg}' needs a value ({})", see_help()))?;
                a.options.insert(arg.clone(), v.clone());
            } else if flags.contains(&arg.as_str()) {
                a.flags.push(arg.clone());
            } else if arg.starts_with('-') && arg != "-" {
                return Err(unknown_option(arg, valued, flags));
            } else {
                a.positional.push(arg.clone());
            }
        }
        Ok(a)
    }

    pub fn opt(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    pub fn flag(&self, key: &str) -> bool {
        self.flags.iter().any(|f| f == key)
    }

    /// `-q` or `--quiet`: no progress output.
    pub fn quiet(&self) -> bool {
        self.flag("-q") || self.flag("--quiet")
    }

    /// `-o` or `--out`.
    pub fn out(&self) -> Option<&str> {
        self.opt("-o").or(self.opt("--out"))
    }

    /// Exactly `n` positionals, named in `what` for the error message.
    pub fn exactly(&self, what: &[&str]) -> Result<&[String], String> {
        if self.positional.len() != what.len() {
            return Err(format!(
                "expected {} argument(s): {} ({})",
                what.len(),
                what.join(" "),
                see_help()
            ));
        }
        Ok(&self.positional)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_option_is_a_typo_not_a_guess() {
        let known = ["--port", "--data", "--root", "--threads", "-q"];
        assert_eq!(closest("--prot", &known), Some("--port"));
        assert_eq!(closest("--thread", &known), Some("--threads"));
        assert_eq!(closest("--verbose", &known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn options_values_and_errors() {
        let raw: Vec<String> = ["x", "--port=8", "-o", "d", "-q"]
            .map(String::from)
            .to_vec();
        let a = Args::parse(&raw, &["--port", "-o"], &["-q"]).unwrap();
        assert_eq!(a.positional, ["x"]);
        assert_eq!(a.opt("--port"), Some("8"));
        assert_eq!(a.opt("-o"), Some("d"));
        assert!(a.flag("-q"));
        let e = Args::parse(&["--prot".into()], &["--port"], &[])
            .err()
            .unwrap();
        assert!(
            e.contains("unknown option '--prot'") && e.contains("'--port'"),
            "{e}"
        );
        let e = Args::parse(&["--port".into()], &["--port"], &[])
            .err()
            .unwrap();
        assert!(e.contains("needs a value"), "{e}");
    }
}
