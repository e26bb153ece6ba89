//! Every checked-in fuzz input, on the stable toolchain: each target's seed
//! corpus (`fuzz/corpus/<target>/`) and every crash input found so far
//! (`fuzz/regressions/<target>/`, which must keep passing once fixed), run
//! through the same bodies the fuzzer runs.

use std::path::{Path, PathBuf};

use registry_fuzz_targets::{TARGETS, target};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Runs every input of `name`; returns how many there were.
fn replay(name: &str) -> usize {
    let body = target(name).expect("a target of that name");
    let mut failures = Vec::new();
    let mut count = 0;
    for folder in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir().join(folder).join(name)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .map(|e| e.expect("a readable folder").path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            let bytes = std::fs::read(&file).expect("a readable input");
            count += 1;
            if let Err(panic) = std::panic::catch_unwind(|| body(&bytes)) {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {message}", file.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{name}: {count} inputs");
    count
}

macro_rules! replays {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let n = replay(stringify!($name));
                assert!(n > 0, "fuzz/corpus/{} has no seeds", stringify!($name));
            }
        )*

        /// The table, these tests and the fuzzer's binaries list the same
        /// targets.
        #[test]
        fn every_target_is_replayed_and_has_a_fuzzer_binary() {
            let here = [$(stringify!($name)),*];
            let table: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
            assert_eq!(table, here);
            for name in here {
                let bin = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
                assert!(bin.exists(), "{} is missing", bin.display());
            }
        }
    };
}

replays!(
    router,
    advanced,
    affiliation,
    shard,
    sections,
    import,
    pieces,
    search
);
