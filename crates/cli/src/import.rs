//! A dump read into records, with progress on stderr: what `registry build`,
//! `site`, `synth`, the benchmarks and loading a dump as data
//! ([`crate::load`]) all start from, so each reports skipped records alike.

use registry_core::import::{ImportOptions, Imported, import_dump};

use crate::progress::Step;

/// Imports a dump with progress on stderr.
pub fn import_with_progress(
    bytes: &[u8],
    options: ImportOptions,
    quiet: bool,
) -> Result<Imported, String> {
    let mut step = Step::start(quiet, "importing records");
    let imported = import_dump(bytes, options, &mut |done, total| step.count(done, total))
        .map_err(|e| e.to_string())?;
    step.done(format!("{} records", imported.records.len()));
    if !quiet {
        for p in &imported.skipped {
            eprintln!("skipped {p}");
        }
        if !imported.skipped.is_empty() {
            eprintln!(
                "{} record(s) skipped (--skip-invalid)",
                imported.skipped.len()
            );
        }
    }
    Ok(imported)
}
