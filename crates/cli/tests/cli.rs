//! The `registry` command as a user meets it: per-command help, errors for
//! unknown options, progress on stderr during builds (none with -q), and a
//! data folder that holds one build however often it is rebuilt.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/demo/registry-demo.json"
);

mod common;

fn registry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(args)
        .output()
        .expect("run registry")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("registry-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every command and an option of each its help must mention.
const COMMANDS: &[(&str, &str)] = &[
    ("build", "--skip-invalid"),
    ("info", "<shard>"),
    ("get", "--v1"),
    ("bench-shard", "--runs"),
    ("serve", "--max-connections"),
    ("query", "--suggest"),
    ("bench-search", "--targets"),
    ("bench-advanced", "--reps"),
    ("eval-affiliation", "--errors"),
    ("fit-affiliation", "--precision"),
    ("match", "--column"),
    ("bench-pieces", "--budget"),
    ("fit-prior", "--dry-run"),
    ("site", "--app"),
    ("synth", "--factor"),
    ("bench-serve", "--clients"),
    ("bench-site", "--json"),
    ("bench-release", "--json"),
    ("check-host", "--same-origin"),
    ("completions", "zsh"),
];

#[test]
fn every_command_has_its_own_help() {
    let full = text(&registry(&["help"]).stdout);
    for (command, option) in COMMANDS {
        assert!(
            full.contains(&format!("\n  {command} ")),
            "`registry help` does not list {command}"
        );
        let takes_arguments = text(&registry(&[command, "-h"]).stdout).contains("Arguments:");
        for flag in ["--help", "-h"] {
            // Wherever the flag stands, even after an argument (where the
            // command takes one: else the argument is the mistake told).
            let mut asked = vec![vec![*command, flag]];
            if takes_arguments {
                // Any text is a valid first argument, but a shell's name.
                let argument = if *command == "completions" {
                    "bash"
                } else {
                    "x"
                };
                asked.push(vec![*command, argument, flag]);
            }
            for args in asked {
                let out = registry(&args);
                let help = text(&out.stdout);
                assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
                assert!(
                    help.contains(&format!("Usage: registry {command} ")),
                    "{args:?}: {help}"
                );
                assert!(help.contains(option), "{args:?} does not mention {option}");
                // Its own help, not everyone's.
                assert!(!help.contains("Developer commands"), "{args:?}: {help}");
            }
        }
        let out = registry(&["help", command]);
        assert!(out.status.success());
        let help = text(&out.stdout);
        assert!(
            help.contains(&format!("Usage: registry {command} ")),
            "{help}"
        );
        assert!(help.contains(option), "`registry help {command}`: {help}");
    }
    for args in [vec!["--help"], vec!["-h"], vec!["help"]] {
        let out = registry(&args);
        assert!(out.status.success());
        assert_eq!(text(&out.stdout), full);
    }
    // No command: the help, on stderr, as a usage error.
    let out = registry(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage: registry <COMMAND>"));
}

#[test]
fn the_help_lists_everyday_commands_first_and_developer_commands_apart() {
    let full = text(&registry(&["--help"]).stdout);
    let (everyday, developer) = full
        .split_once("Developer commands")
        .expect("a developer heading");
    for command in [
        "build",
        "site",
        "serve",
        "query",
        "get",
        "info",
        "match",
        "check-host",
        "synth",
    ] {
        let line = format!("\n  {command} ");
        assert!(
            everyday.contains(&line) && !developer.contains(&line),
            "{command}"
        );
    }
    for command in [
        "bench-shard",
        "bench-pieces",
        "eval-affiliation",
        "fit-prior",
    ] {
        let line = format!("\n  {command} ");
        assert!(
            developer.contains(&line) && !everyday.contains(&line),
            "{command}"
        );
    }
    // Short enough to read: a summary line a command, no option tables.
    assert!(full.lines().count() < 60, "{full}");
    assert!(full.lines().all(|l| l.chars().count() <= 100), "{full}");
}

#[test]
fn mistakes_get_suggestions_and_usage_errors() {
    for (args, says) in [
        (vec!["qeury"], "a similar subcommand exists: 'query'"),
        (vec!["serv"], "a similar subcommand exists: 'serve'"),
        (
            vec!["serve", "--prot", "8080"],
            "a similar argument exists: '--port'",
        ),
        (
            vec!["build", DEMO, "--quite"],
            "a similar argument exists: '--quiet'",
        ),
        (vec!["get"], "Usage: registry get <shard> <id>"),
        (vec!["help", "nope"], "unrecognized subcommand 'nope'"),
        (
            vec!["build", DEMO, "-o", "x", "--level", "30"],
            "zstd level is 1–22",
        ),
        (vec!["serve", "--idle-timeout", "0"], "0.05 to 86400"),
        (vec!["completions", "tcsh"], "possible values: bash"),
    ] {
        let out = registry(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(err.contains("try '--help'"), "{args:?}: {err}");
    }
    let err = text(&registry(&["build", "--frobnicate"]).stderr);
    assert!(
        err.contains("unexpected argument '--frobnicate'") && !err.contains("similar"),
        "{err}"
    );
}

#[test]
fn an_option_given_twice_takes_its_last_value() {
    let out = registry(&["query", DEMO, "univ", "--suggest", "-k", "5", "-k", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hits: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits.len(), 1);
}

#[test]
fn completions_name_every_command() {
    for shell in ["bash", "zsh", "fish"] {
        let out = registry(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = text(&out.stdout);
        for (command, _) in COMMANDS {
            assert!(script.contains(command), "{shell}: no {command}");
        }
        assert!(script.contains("max-connections"), "{shell}");
    }
    assert!(text(&registry(&["completions", "bash"]).stdout).contains("complete -F _registry"));
}

#[test]
fn a_site_folder_is_taken_for_its_data_folder() {
    let dir = tmp_dir("site-folder");
    let site = dir.join("site");
    let out = registry(&[
        "build",
        DEMO,
        "-o",
        site.join("data").to_str().unwrap(),
        "--level",
        "1",
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let site = site.to_str().unwrap();
    let out = registry(&["info", site]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["record_count"], 63);
    let out = registry(&["get", site, "041qyp388"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = registry(&["query", site, "/v2/organizations?query=university"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A folder that is neither says what it looked for.
    let out = registry(&["info", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("no manifest.json") && err.contains("no data/manifest.json"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_version_is_printed_and_mentioned_in_help() {
    for flag in ["--version", "-V"] {
        let out = registry(&[flag]);
        assert!(out.status.success(), "{flag}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("registry {}\n", env!("CARGO_PKG_VERSION")),
            "{flag}"
        );
    }
    assert!(text(&registry(&["--help"]).stdout).contains("--version"));
}

/// Starts `registry serve <args>` in `dir`, waits for it to listen (or
/// exit), stops it and returns its stderr.
fn serve_in(dir: &Path, args: &[&str]) -> (bool, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_registry"))
        .arg("serve")
        .args(["--port", "0"])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let _ = std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut line,
    );
    let listened = line.starts_with("listening on");
    let _ = server.kill();
    let out = server.wait_with_output().unwrap();
    (listened, text(&out.stderr))
}

#[test]
fn serve_finds_its_default_data_where_its_help_says() {
    let help = text(&registry(&["serve", "--help"]).stdout);
    // As one line, however the help is wrapped.
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(
            "data/demo/registry-demo.json under the current directory, else in the source tree"
        ),
        "{help}"
    );
    // A copied binary run beside other data: the working directory's demo
    // data comes first (here a 3-record one, to tell it from the build
    // tree's).
    let dir = tmp_dir("default-data");
    std::fs::create_dir_all(dir.join("data/demo")).unwrap();
    let all: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(DEMO).unwrap()).unwrap();
    std::fs::write(
        dir.join("data/demo/registry-demo.json"),
        serde_json::to_vec(&all[..3]).unwrap(),
    )
    .unwrap();
    let (listened, err) = serve_in(&dir, &[]);
    assert!(listened, "{err}");
    assert!(
        err.contains("3 records from data/demo/registry-demo.json"),
        "{err}"
    );
    // Elsewhere: the build tree's, as its help says.
    let empty = tmp_dir("default-data-empty");
    let (listened, err) = serve_in(&empty, &[]);
    assert!(listened, "{err}");
    assert!(err.contains("63 records from /"), "{err}");
    // Data that is not there: an error naming it, no server.
    let (listened, err) = serve_in(&empty, &["--data", "missing.json"]);
    assert!(!listened && err.contains("missing.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn missing_default_inputs_say_they_are_defaults_and_how_to_pass_others() {
    let dir = tmp_dir("no-defaults");
    for (args, how) in [
        (vec!["eval-affiliation"], "--data <data>"),
        (vec!["fit-prior", "--dry-run"], "--data <data>"),
        (vec!["fit-affiliation", "--dry-run"], "--data <data>"),
        (vec!["bench-advanced"], "<data>"),
        (vec!["eval-affiliation", "--data", DEMO], "--eval <jsonl>"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_registry"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("relative to the current directory")
                && err.contains(&format!("pass {how}")),
            "{args:?}: {err}"
        );
    }
    assert!(text(&registry(&["help"]).stdout).contains("relative to the current directory"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn shard_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.ok()?.file_name().to_string_lossy().into_owned();
            n.ends_with(".shard").then_some(n)
        })
        .collect();
    names.sort();
    names
}

/// The files of the packs folder, sorted.
fn pack_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("packs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The packs a manifest names (the first-keystroke pack, packs, tables), sorted.
fn packs_named(manifest: &serde_json::Value) -> Vec<String> {
    let p = &manifest["pieces"];
    let mut names = vec![p["first_pack"]["name"].as_str().unwrap().to_string()];
    for list in ["packs", "tables"] {
        for n in p["packed"][list].as_array().unwrap() {
            names.push(n.as_str().unwrap().to_string());
        }
    }
    names.sort();
    names
}

#[test]
fn a_data_folder_keeps_only_its_latest_build() {
    let dir = tmp_dir("rebuild");
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("notes.txt"), "mine").unwrap();
    std::fs::write(data.join("other.0123456789abcdef.bin"), "mine too").unwrap();
    // A pieces folder of a build before packs (pieces version 8).
    std::fs::create_dir_all(data.join("pieces/0123456789abcdef")).unwrap();
    std::fs::write(data.join("pieces/0123456789abcdef/61.shard"), "old").unwrap();
    let build = |release: &str, split: &[&str]| {
        let mut args = vec![
            "build",
            DEMO,
            "-o",
            data.to_str().unwrap(),
            "--release",
            release,
            "--level",
            "1",
            "-q",
        ];
        args.extend(split);
        let out = registry(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
    };
    build("first", &[]);
    let first_files = shard_files(&data);
    let first_packs = pack_files(&data);
    assert_eq!(first_files.len(), 5, "{first_files:?}");
    assert!(first_packs.len() >= 3, "{first_packs:?}");
    assert_eq!(
        std::fs::read_dir(data.join("pieces")).unwrap().count(),
        0,
        "the pieces folder of before packs went"
    );
    // Other pieces (split finer), so other packs.
    build("second", &["--piece-bytes", "600"]);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("manifest.json")).unwrap()).unwrap();
    let mut listed: Vec<String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    assert_eq!(
        shard_files(&data),
        listed,
        "shard files of the first build remain"
    );
    assert!(first_files.iter().all(|f| !listed.contains(f)));
    assert_eq!(
        pack_files(&data),
        packs_named(&manifest),
        "packs of the first build remain"
    );
    assert_ne!(first_packs, pack_files(&data), "other pieces, other packs");
    // Files that are not a build's stay.
    assert!(data.join("notes.txt").exists());
    assert!(data.join("other.0123456789abcdef.bin").exists());
    // The folder still loads.
    let out = registry(&["info", data.to_str().unwrap()]);
    assert!(out.status.success());
    // The first build's records under another release's name: its very
    // packs (a piece does not name its release, so what did not change
    // keeps its bytes and its URL).
    build("third", &[]);
    assert_eq!(pack_files(&data), first_packs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn builds_show_progress_unless_quiet() {
    let dir = tmp_dir("progress");
    let app = common::stand_in_app(&dir);
    let out_dir = dir.join("out");
    let site = |quiet: bool| {
        let mut args = vec![
            "site",
            DEMO,
            "-o",
            out_dir.to_str().unwrap(),
            "--app",
            app.to_str().unwrap(),
            "--level",
            "1",
        ];
        if quiet {
            args.push("-q");
        }
        registry(&args)
    };
    let build = |quiet: bool| {
        let mut args = vec![
            "build",
            DEMO,
            "-o",
            out_dir.to_str().unwrap(),
            "--level",
            "1",
        ];
        if quiet {
            args.push("--quiet");
        }
        registry(&args)
    };
    for (what, out) in [("site", site(false)), ("build", build(false))] {
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        for step in [
            "importing records … 63 records (",
            "compressing sections (zstd -1) … 4 sections (",
            "pieces (typeahead, E2, record pages) … ",
            "packs … ",
            "writing ",
        ] {
            assert!(err.contains(step), "{what}: no '{step}' in:\n{err}");
        }
        // The shard files are listed, not each typeahead piece.
        assert!(
            !err.contains("pieces/") || !err.contains(".h.shard"),
            "{err}"
        );
    }
    for (what, out) in [("site -q", site(true)), ("build --quiet", build(true))] {
        assert!(out.status.success());
        assert_eq!(text(&out.stderr), "", "{what} printed something");
    }
    // Hosts that read `_headers` (Netlify, Cloudflare Pages) get the cache
    // and CORS headers HOSTING.md asks for; no rule says no-cache, which
    // those hosts would join with the packs' max-age.
    let headers = std::fs::read_to_string(out_dir.join("_headers")).unwrap();
    assert!(
        headers.contains("/data/packs/*\n  Cache-Control: public, max-age=31536000, immutable"),
        "{headers}"
    );
    assert!(headers.contains("Access-Control-Allow-Origin: *") && !headers.contains("no-cache"));
    let hosting = std::fs::read_to_string(out_dir.join("HOSTING.md")).unwrap();
    assert!(hosting.contains("Range: bytes=") && hosting.contains("206"));
    // Serving a dump builds it in memory first: with progress too.
    let mut server = Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(["serve", "--port", "0", "--data", DEMO])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert!(line.starts_with("listening on"), "{line}");
    server.kill().unwrap();
    let out = server.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(err.contains("importing records … 63 records ("), "{err}");
    assert!(err.contains("building the shard … 63 records ("), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_terminal_sees_progress_bars_that_end_in_the_same_lines() {
    // `script` runs the build on a pseudo-terminal (util-linux; where it is
    // missing there is no terminal to test with).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script`: skipped");
        return;
    }
    let dir = tmp_dir("terminal-progress");
    let data = dir.join("data");
    let build = format!(
        "{} build {DEMO} -o {} --level 1",
        env!("CARGO_BIN_EXE_registry"),
        data.display()
    );
    let out = Command::new("script")
        .args(["-qec", &build, "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seen = text(&out.stdout);
    // Drawn in place (a line cleared), then the same final lines as a log.
    assert!(seen.contains("\r\x1b[2K"), "{seen:?}");
    for line in [
        "importing records … 63 records (",
        "pieces (typeahead, E2, record pages) … ",
        "63 records, release 'registry-demo'",
    ] {
        assert!(seen.contains(line), "no {line:?} in {seen:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Walks the pieces folder's trust chains (registry_contract::PieceHashes)
/// as a browser does: the manifest vouches for the pack and for each
/// layout's root; the root for each table (through the root table
/// `hashes.json`, or each tree table's proof), a table for the files in
/// its bucket (each in the bucket its name falls in). Tables absent from
/// `folder` are skipped (a fixture keeps a few); returns the files checked
/// (the same through both layouts when the manifest has the tree).
fn check_chain(manifest: &Path, folder: &Path) -> usize {
    let m: registry_contract::Manifest =
        serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    let (m, dropped) = m.checked().unwrap();
    assert_eq!(dropped, None);
    let p = m.pieces.expect("pieces");
    assert!(p.version >= 3, "hashes came with version 3");
    let read = |name: &str| std::fs::read(folder.join(name)).ok();
    let pack = read(&p.first_pack.name).expect("the pack");
    assert_eq!(p.first_pack.sha256, Some(sha256_hex(&pack)));
    let h = p.hashes.expect("hashes in a version-3 manifest");
    assert!(!h.proofs, "`hashes` are the two-level tables");
    let checked = check_layout(&h, "h", &read);
    if let Some(tree) = &p.tree {
        assert!(tree.proofs, "`tree` is the tree layout");
        assert_eq!(
            check_layout(tree, "ht", &read),
            checked,
            "both layouts list the same files"
        );
    }
    checked
}

/// One layout's chain ([`check_chain`]): its tables are `<prefix>-<i>.json`.
fn check_layout(
    h: &registry_contract::PieceHashes,
    prefix: &str,
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> usize {
    assert!(h.buckets.is_power_of_two());
    // The root table's entries (two levels), or none (a tree).
    let root: Vec<String> = if h.proofs {
        Vec::new()
    } else {
        let root_bytes = read("hashes.json").expect("the root table");
        assert_eq!(sha256_hex(&root_bytes), h.root);
        let root: Vec<String> = serde_json::from_slice(&root_bytes).unwrap();
        assert_eq!(root.len(), h.buckets as usize);
        root
    };
    let mut checked = 0;
    for i in 0..h.buckets as usize {
        let Some(table) = read(&format!("{prefix}-{i}.json")) else {
            continue;
        };
        let files = if h.proofs {
            proven(&table, i, h).unwrap_or_else(|| panic!("table {i} does not prove"))
        } else {
            assert_eq!(
                Some(&sha256_hex(&table)[..h.digits]),
                root.get(i).map(String::as_str),
                "table {i}"
            );
            &table[..]
        };
        let table: std::collections::BTreeMap<String, String> =
            serde_json::from_slice(files).unwrap();
        for (name, hash) in &table {
            assert_eq!(
                registry_contract::bucket(name, h.buckets),
                i as u32,
                "{name}"
            );
            if let Some(bytes) = read(name) {
                assert_eq!(&sha256_hex(&bytes)[..h.digits], hash, "{name}");
                checked += 1;
            }
        }
    }
    checked
}

/// The `files` bytes of tree table `i` (`[proof, files]`)
/// when its proof leads to the manifest's root, as registry-pieces.js
/// checks it.
fn proven<'a>(table: &'a [u8], i: usize, h: &registry_contract::PieceHashes) -> Option<&'a [u8]> {
    let close = table.iter().position(|&b| b == b']')?;
    if table.first() != Some(&b'[')
        || table.get(close + 1) != Some(&b',')
        || table.last() != Some(&b']')
    {
        return None;
    }
    let proof: Vec<String> = serde_json::from_slice(&table[1..=close]).ok()?;
    let files = &table[close + 2..table.len() - 1];
    assert_eq!(1 << proof.len(), h.buckets, "one hash a level");
    let mut node = sha256_hex(files);
    for (l, sibling) in proof.iter().enumerate() {
        let mine = &node[..h.digits];
        node = sha256_hex(
            if (i >> l) & 1 == 1 {
                format!("{sibling}{mine}")
            } else {
                format!("{mine}{sibling}")
            }
            .as_bytes(),
        );
    }
    (node == h.root).then_some(files)
}

/// Walks a packed pieces folder (pieces version 9, registry_contract::Packed)
/// as a browser does: every slot read at its computed place in the slot
/// tables and proven up to the manifest's root; every file it lists read
/// from its pack and checked by its hash. The files tile each pack exactly
/// (no byte unlisted, none listed twice). `names`: files that must be found
/// by name. Returns the files listed.
fn check_packed(manifest: &Path, names: &[&str]) -> usize {
    use registry_core::shard::packed;
    let folder = manifest.parent().unwrap();
    let m: registry_contract::Manifest =
        serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    let p = m.checked().unwrap().0.pieces.expect("pieces");
    let k = p.packed.as_ref().expect("a packed folder");
    assert!(p.hashes.is_none() && p.tree.is_none(), "no loose tables");
    let dir = folder.join(&p.path);
    let pack = std::fs::read(dir.join(&p.first_pack.name)).expect("the first-keystroke pack");
    assert_eq!(p.first_pack.sha256, Some(sha256_hex(&pack)));
    let packs: Vec<Vec<u8>> = k
        .packs
        .iter()
        .map(|n| std::fs::read(dir.join(n)).unwrap())
        .collect();
    let tables: Vec<Vec<u8>> = k
        .tables
        .iter()
        .map(|n| std::fs::read(dir.join(n)).unwrap())
        .collect();
    for (name, bytes) in k
        .packs
        .iter()
        .zip(&packs)
        .chain(k.tables.iter().zip(&tables))
    {
        assert!(bytes.len() <= packed::FILE_LIMIT, "{name}");
        assert!(
            name.contains(&sha256_hex(bytes)[..16]),
            "{name} is named by its content"
        );
    }
    assert!(k.buckets.is_power_of_two());
    let levels = k.buckets.trailing_zeros() as usize;
    let size = k.slot_bytes as usize;
    let per = k.slots_per_file as usize;
    let slot = |i: usize| &tables[i / per][(i % per) * size..(i % per + 1) * size];
    let proves = |bytes: &[u8], i: usize| -> bool {
        let Ok(s) = packed::decode_slot(bytes, size, levels) else {
            return false;
        };
        let mut node = sha2::Sha256::digest(s.body).to_vec();
        for (l, sibling) in s.proof.iter().enumerate() {
            let pair = if (i >> l) & 1 == 1 {
                [&sibling[..], &node[..packed::HASH_BYTES]].concat()
            } else {
                [&node[..packed::HASH_BYTES], &sibling[..]].concat()
            };
            node = sha2::Sha256::digest(&pair).to_vec();
        }
        sha256_hex_of(&node) == k.root
    };
    use sha2::Digest;
    let mut spans: Vec<Vec<(u32, u32)>> = vec![Vec::new(); packs.len()];
    let mut listed = 0;
    for i in 0..k.buckets as usize {
        assert!(proves(slot(i), i), "slot {i} proves the root");
        assert!(
            !proves(slot(i), i ^ 1),
            "slot {i}'s proof is not its sibling's"
        );
        for l in packed::decode_slot(slot(i), size, levels).unwrap().entries {
            let body = &packs[l.pack as usize][l.offset as usize..(l.offset + l.length) as usize];
            assert_eq!(
                sha2::Sha256::digest(body)[..packed::HASH_BYTES],
                l.hash,
                "slot {i}"
            );
            spans[l.pack as usize].push((l.offset, l.length));
            listed += 1;
        }
    }
    for (n, mut s) in spans.into_iter().enumerate() {
        s.sort();
        let mut at = 0;
        for (offset, length) in s {
            assert_eq!(offset, at, "pack {n}: files tile it");
            at += length;
        }
        assert_eq!(
            at as usize,
            packs[n].len(),
            "pack {n}: nothing after its last file"
        );
    }
    for name in names {
        let i = registry_contract::slot(name, k.buckets) as usize;
        let s = packed::decode_slot(slot(i), size, levels).unwrap();
        assert!(
            s.find(registry_contract::name_key(name)).is_some(),
            "{name} is in its slot"
        );
    }
    // A slot altered anywhere does not prove.
    for at in [0, 3, size / 2, size - 1] {
        let mut altered = slot(1).to_vec();
        altered[at] ^= 1;
        assert!(!proves(&altered, 1), "altered at {at}");
    }
    listed
}

fn sha256_hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_piece_is_in_a_pack_under_its_hash_from_the_manifest_down() {
    let dir = tmp_dir("hashes");
    let out = registry(&["build", DEMO, "-o", dir.to_str().unwrap(), "-q"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let m: registry_contract::Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let p = m.pieces.unwrap();
    assert_eq!(p.version, registry_contract::PIECES_VERSION);
    let listed = check_packed(
        &dir.join("manifest.json"),
        &["search.stats", "r-041q.shard", "r-041q.json"],
    );
    let k = p.packed.unwrap();
    let files = std::fs::read_dir(dir.join(&p.path)).unwrap().count();
    assert_eq!(
        files,
        1 + k.packs.len() + k.tables.len(),
        "the first-keystroke pack, packs and tables: nothing loose"
    );
    assert!(
        listed > 100 && k.buckets > 1,
        "{listed} files in {} slots",
        k.buckets
    );
    // FNV-1a as registry-pieces.js computes it (its test vectors).
    assert_eq!(
        registry_contract::bucket("", 1 << 31),
        0x811c_9dc5 % (1 << 31)
    );
    assert_eq!(
        registry_contract::bucket("a", 1 << 31),
        0xe40c_292c % (1 << 31)
    );
    assert_eq!(registry_contract::name_key(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(registry_contract::name_key("a"), 0xaf63_dc4c_8601_ec8c);
    // Statistics parts share the statistics file's table in the tree
    // layout; a slot has a fixed size, so there they do not.
    assert_eq!(
        registry_contract::bucket("s-75.shard", 1 << 20),
        registry_contract::bucket("search.stats", 1 << 20)
    );
    assert_ne!(
        registry_contract::slot("s-75.shard", 1 << 20),
        registry_contract::slot("search.stats", 1 << 20)
    );
}

/// The pieces-3 compat fixture (crates/core/tests/compat/pieces-3, from
/// `registry build data/demo/registry-demo.json -o <dir> --release
/// compat-pieces-3 --piece-bytes 600 --head 12`: the manifest, the root,
/// the pack, the files of the pieces-2 fixture and their tables) still
/// checks: the hash layout stays readable.
#[test]
fn the_pieces_3_fixture_checks_from_its_manifest_down() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/compat/pieces-3");
    assert_eq!(check_chain(&dir.join("manifest.json"), &dir), 6);
}

/// The hash-tree compat fixture (crates/core/tests/compat/pieces-8-tree,
/// from `registry build data/demo/registry-demo.json -o <dir> --release
/// compat-pieces-8-tree --piece-bytes 600 --head 12`: the manifest, the
/// pack, the root table, the files of the pieces-3 fixture and their
/// tables in both layouts) still checks: the tree stays readable.
#[test]
fn the_hash_tree_fixture_checks_from_its_manifest_down() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/compat/pieces-8-tree");
    assert_eq!(check_chain(&dir.join("manifest.json"), &dir), 6);
}

/// The packed compat fixture (crates/core/tests/compat/pieces-9, from
/// `registry build data/demo/registry-demo.json -o <dir> --release
/// compat-pieces-9`: the manifest and its `packs/` folder) still checks
/// from its manifest down: the pack layout stays readable.
#[test]
fn the_packed_fixture_checks_from_its_manifest_down() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/compat/pieces-9");
    let listed = check_packed(
        &dir.join("manifest.json"),
        &["search.stats", "r-041q.shard", "r-041q.json"],
    );
    assert!(listed > 300, "{listed}");
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `registry get … | head -1`: the pipe is closed before anything is
    // printed (the data takes longer to load than this takes to close it).
    for args in [
        vec!["get", DEMO, "041qyp388"],
        vec!["query", DEMO, "/v2/organizations?query=university"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_registry"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
        let said = text(&out.stderr);
        assert!(
            !said.contains("panicked") && !said.contains("Broken pipe"),
            "{args:?}: {said}"
        );
    }
}

#[test]
fn bench_release_tells_what_a_release_kept() {
    // Two "sites" (their data folders are what it reads): the demo, and its
    // next release.
    let dir = tmp_dir("bench-release");
    let next_dump = dir.join("next.json");
    let next = &next_dump;
    let made = registry(&[
        "synth",
        DEMO,
        "--next-release",
        "-o",
        next.to_str().unwrap(),
        "-q",
    ]);
    assert!(made.status.success(), "{}", text(&made.stderr));
    for (site, dump) in [("a", DEMO), ("b", next.to_str().unwrap())] {
        let data = dir.join(site).join("data");
        let out = registry(&[
            "build",
            dump,
            "-o",
            data.to_str().unwrap(),
            "--level",
            "1",
            "-q",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let figures = |old: &str, new: &str| -> serde_json::Value {
        let out = registry(&[
            "bench-release",
            dir.join(old).to_str().unwrap(),
            dir.join(new).to_str().unwrap(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let same = figures("a", "a");
    assert_eq!(
        same["same_url"], same["site"],
        "a site against itself keeps everything"
    );
    assert_eq!(same["pieces_kept"], same["pieces"]);
    assert_eq!(same["offline"][1], 0);
    let next = figures("a", "b");
    assert_eq!(
        next["new_records"].as_u64(),
        Some(next["old_records"].as_u64().unwrap() + 1)
    );
    assert_eq!(
        next["offline"][1], next["offline"][0],
        "every offline file changed"
    );
    let (kept, all) = (
        next["pieces_kept"][1].as_u64().unwrap(),
        next["pieces"][1].as_u64().unwrap(),
    );
    assert!(
        kept > 0 && kept < all,
        "some pieces kept, not all: {kept} of {all}"
    );
    // Built with the last release given: the offline copy is updated by deltas.
    let c = dir.join("c").join("data");
    let out = registry(&[
        "build",
        next_dump.to_str().unwrap(),
        "-o",
        c.to_str().unwrap(),
        "--level",
        "1",
        "--previous",
        dir.join("a").to_str().unwrap(),
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let by_delta = figures("a", "c");
    let (downloaded, offline) = (
        by_delta["offline"][1].as_u64().unwrap(),
        by_delta["offline"][0].as_u64().unwrap(),
    );
    assert!(downloaded * 4 < offline, "{downloaded} of {offline} bytes");
    assert_eq!(by_delta["offline_files"]["by_delta"], 4);
    let not_a_site = registry(&[
        "bench-release",
        dir.to_str().unwrap(),
        dir.join("a").to_str().unwrap(),
    ]);
    assert!(!not_a_site.status.success());
    assert!(
        text(&not_a_site.stderr).contains("not a site"),
        "{}",
        text(&not_a_site.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
