//! The core's layers, bottom up, as ARCHITECTURE.md draws them: no module
//! names a module of a higher layer in code (doc comments may point up).
//! A format under `shard/` that imported the engine, or an engine that
//! imported the pieces client, fails here.

use std::path::{Path, PathBuf};

/// Each top-level module of `crates/core/src` and its layer.
const LAYERS: &[(&str, u32)] = &[
    // Text, ids, the record model and what only needs them.
    ("crc32", 0),
    ("decimal", 0),
    ("text", 0),
    ("id", 0),
    ("model", 0),
    ("order", 0),
    ("v1", 0),
    ("container", 0),
    ("continent", 0),
    ("import", 0),
    ("prior", 0),
    ("list_layout", 0),
    // Formats: bytes in, typed values out.
    ("shard", 1),
    // A loaded shard, then its index.
    ("registry", 2),
    ("index", 3),
    // The engine: E2, typeahead, E3, E4.
    ("search", 4),
    ("advanced", 4),
    ("affiliation", 4),
    // What answers from pieces.
    ("pieces", 5),
    // The one API router.
    ("router", 6),
];

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules a file's code (comments aside) names as `crate::x`.
fn named_modules(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let tail = &rest[i + "crate::".len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
            rest = tail;
        }
    }
    out
}

/// Violations in `src`: (file, module, named module).
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut bad = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).expect("under src");
        let first = rel.components().next().expect("a component");
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "lib" {
            continue;
        }
        let own = layer(&module)
            .unwrap_or_else(|| panic!("module `{module}` has no layer in tests/layering.rs"));
        let source = std::fs::read_to_string(&file).expect("readable file");
        for named in named_modules(&source) {
            let Some(theirs) = layer(&named) else {
                continue; // a re-exported item (`crate::Record`), not a module
            };
            if theirs > own {
                bad.push(format!(
                    "{}: `{module}` (layer {own}) names `crate::{named}` (layer {theirs})",
                    rel.display()
                ));
            }
        }
    }
    bad.sort();
    bad.dedup();
    bad
}

#[test]
fn nothing_imports_upward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn the_check_sees_an_upward_import() {
    // A format that imported the engine must be caught (the check can fail).
    let dir = std::env::temp_dir().join(format!("layering-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("shard")).unwrap();
    std::fs::write(
        dir.join("shard/pieces.rs"),
        "//! Docs may name crate::search freely.\nuse crate::search::Engine;\n",
    )
    .unwrap();
    let bad = violations(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        bad,
        ["shard/pieces.rs: `shard` (layer 1) names `crate::search` (layer 4)"]
    );
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        let module = name.trim_end_matches(".rs");
        if module != "lib" {
            assert!(layer(module).is_some(), "`{module}` has no layer");
        }
    }
}
