//! A small command-line parser: positionals, `--flag`, `--key value`, `-o value`.

use std::collections::HashMap;

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
                    return Err(format!("unknown option '{k}'"));
                }
                a.options.insert(k.to_string(), v.to_string());
            } else if valued.contains(&arg.as_str()) {
                let v = it
                    .next()
                    .ok_or_else(|| format!("option '{arg}' needs a value"))?;
                a.options.insert(arg.clone(), v.clone());
            } else if flags.contains(&arg.as_str()) {
                a.flags.push(arg.clone());
            } else if arg.starts_with('-') && arg != "-" {
                return Err(format!("unknown option '{arg}'"));
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

    /// Exactly `n` positionals, named in `what` for the error message.
    pub fn exactly(&self, what: &[&str]) -> Result<&[String], String> {
        if self.positional.len() != what.len() {
            return Err(format!(
                "expected {} argument(s): {}",
                what.len(),
                what.join(" ")
            ));
        }
        Ok(&self.positional)
    }
}
