//! `registry check-host <url>` against `registry serve --root` (every
//! needed check passes), against a deliberately bad static host (a tiny
//! `TcpListener` here: Range ignored, no CORS, wasm as octet-stream: each
//! failure named with the missing header, a non-zero exit), and against
//! hosts that announce a huge body or never answer (bounded: it ends, and
//! says why).

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{DEMO, binary, start};

const WIDGET_WASM: &str = "ui/registry_widget_bg.0123456789abcdef.wasm";

/// A site folder as `registry site` writes it, small: the demo's data
/// (built by the binary under test), a page, the loader naming its widget
/// wasm, and the two wasm files.
fn scratch_site(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("registry-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["ui", "pkg"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let built = Command::new(binary())
        .args(["build", DEMO, "-o"])
        .arg(root.join("data"))
        .args(["--release", "demo", "-q"])
        .status()
        .unwrap();
    assert!(built.success());
    std::fs::write(
        root.join("index.html"),
        "<!doctype html><title>registry</title>",
    )
    .unwrap();
    std::fs::write(
        root.join("registry-picker.js"),
        format!("const UI_WASM = \"{WIDGET_WASM}\";\n"),
    )
    .unwrap();
    std::fs::write(root.join(WIDGET_WASM), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(root.join("pkg/registry_wasm_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    root
}

fn check_host(url: &str, extra: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let out = Command::new(binary())
        .arg("check-host")
        .arg(url)
        .args(extra)
        .output()
        .unwrap();
    (out, t.elapsed())
}

/// A server on a free port answering each connection with `answer(request
/// head)` on a thread of its own (None: hold the connection, answer nothing).
fn tiny_server(answer: impl Fn(&str) -> Option<Vec<u8>> + Send + Sync + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 65536 {
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                match answer(&String::from_utf8_lossy(&head)) {
                    Some(bytes) => {
                        let _ = s.write_all(&bytes);
                    }
                    None => std::thread::sleep(Duration::from_secs(60)),
                }
            });
        }
    });
    port
}

/// A static host as `python3 -m http.server` is, but worse: the whole file
/// to a Range request, no CORS, no cache headers, wasm as octet-stream.
fn bad_host(root: &Path) -> u16 {
    let root = root.to_path_buf();
    tiny_server(move |head| {
        let target = head.split_whitespace().nth(1).unwrap_or("/");
        let mut rel = target
            .split('?')
            .next()
            .unwrap()
            .trim_start_matches('/')
            .to_string();
        if rel.is_empty() {
            rel = "index.html".into();
        }
        let Ok(body) = std::fs::read(root.join(&rel)) else {
            return Some(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            );
        };
        let kind = if rel.ends_with(".html") {
            "text/html"
        } else if rel.ends_with(".js") {
            "text/javascript"
        } else if rel.ends_with(".json") {
            "application/json"
        } else {
            "application/octet-stream"
        };
        let mut out = format!("HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(&body);
        Some(out)
    })
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn registry_serve_root_passes_every_needed_check() {
    let root = scratch_site("serve");
    let server = start(&["--root", root.to_str().unwrap()]);
    let (out, _) = check_host(&format!("http://127.0.0.1:{}/", server.port), &[]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("FAIL"), "{text}");
    for line in [
        "ok    manifest: data/manifest.json 200, release demo",
        "ok    CORS data/manifest.json: Access-Control-Allow-Origin: *",
        "ok    widget loader: registry-picker.js 200, text/javascript",
        &format!("ok    wasm {WIDGET_WASM}: Content-Type: application/wasm"),
        &format!("ok    cache {WIDGET_WASM}: Cache-Control: public, max-age=31536000, immutable"),
        "all needed checks passed",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("ok    range data/packs/pieces.")
                && l.contains(": 206, Content-Range: bytes 0-99/")),
        "{text}"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_bad_static_host_fails_naming_each_missing_header() {
    let root = scratch_site("bad");
    let port = bad_host(&root);
    let (out, _) = check_host(&format!("http://127.0.0.1:{port}/index.html"), &[]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("needed check(s) failed"));
    let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    // No CORS anywhere: the manifest, the loader, the widget's wasm, the pack.
    for rel in [
        "data/manifest.json",
        "registry-picker.js",
        WIDGET_WASM,
        "data/packs/pieces.",
    ] {
        assert!(
            fails
                .iter()
                .any(|l| l.starts_with(&format!("FAIL  CORS {rel}"))
                    && l.contains("no Access-Control-Allow-Origin header")),
            "{rel}:\n{text}"
        );
    }
    assert!(
        text.contains("fix: send Access-Control-Allow-Origin: *"),
        "{text}"
    );
    assert!(
        fails
            .iter()
            .any(|l| l.starts_with("FAIL  range data/packs/pieces.")
                && l.contains("200 with the whole file to a Range request")),
        "{text}"
    );
    assert!(
        text.contains("fix: a host that answers Range with 206 Partial Content"),
        "{text}"
    );
    assert!(
        fails.iter().any(|l| l.starts_with(
            "FAIL  wasm pkg/registry_wasm_bg.wasm: Content-Type: 'application/octet-stream'"
        )),
        "{text}"
    );
    assert!(
        text.contains("fix: serve .wasm as application/wasm"),
        "{text}"
    );
    // Cache headers: warned, not failed.
    assert!(
        text.contains("warn  cache data/manifest.json: Cache-Control: none"),
        "{text}"
    );

    // The widget used on its own origin only: CORS is not needed then, the rest still is.
    let (same, _) = check_host(&format!("http://127.0.0.1:{port}/"), &["--same-origin"]);
    let text = stdout(&same);
    assert!(!same.status.success());
    assert!(!text.lines().any(|l| l.starts_with("FAIL  CORS")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("FAIL  range")), "{text}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_huge_body_is_never_read_and_a_silent_host_times_out() {
    // Every answer announces 100 GB and sends a trickle: nothing waits for it.
    let huge = tiny_server(|_| {
        Some(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n{\"build_id\":".to_vec())
    });
    let (out, took) = check_host(&format!("http://127.0.0.1:{huge}/"), &["--timeout", "3"]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("FAIL  manifest: data/manifest.json is larger than 8 MiB (or says so)"),
        "{text}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");

    // A host that accepts and never answers: each request ends at its timeout.
    let silent = tiny_server(|_| None);
    let (out, took) = check_host(&format!("http://127.0.0.1:{silent}/"), &["--timeout", "1"]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("no complete answer within 1 s"), "{text}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn a_host_that_redirects_to_https_is_said_so_and_not_asked_further() {
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = asked.clone();
    let port = tiny_server(move |_| {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Some(b"HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.org/site/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec())
    });
    let (out, _) = check_host(&format!("http://127.0.0.1:{port}/site/"), &[]);
    let text = stdout(&out);
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains(
            "answered 301 to https://example.org/site/: the site is served over https only"
        ),
        "{text}"
    );
    assert!(text.contains("plain HTTP only"), "{text}");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1, "{text}");
}

#[test]
fn https_and_bad_urls_are_refused_with_what_to_do() {
    let (out, _) = check_host("https://example.org/", &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("plain HTTP only") && err.contains("registry serve --root"),
        "{err}"
    );
    let (out, _) = check_host("ftp://example.org/", &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected an http:// URL"));
}
