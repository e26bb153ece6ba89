//! `registry serve` answers like `Engine::handle`: starts the server on a
//! free port, sends requests over a plain `TcpStream`, compares, stops it.
//! Every wait is bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use registry_core::search::Engine;
use registry_core::{Registry, import, shard};

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/demo/registry-demo.json"
);

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_registry"))
        .args(["serve", "--port", "0", "--data", DEMO, "-q"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start registry serve");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(l) => l,
        Err(_) => {
            let _ = child.kill();
            panic!("the server did not start within 60 s");
        }
    };
    let port = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    Server { child, port }
}

/// Sends one request; returns (status, headers, body).
fn request(port: u16, method: &str, target: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read response");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status");
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (status, head, body)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").expect("chunk size");
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).expect("hex");
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 4 + size..];
    }
}

fn engine() -> Engine {
    let bytes = std::fs::read(DEMO).unwrap();
    let imported = import::import_dump(&bytes, Default::default(), &mut |_, _| {}).unwrap();
    let built = shard::build(&imported.records, "unnamed", 0, &shard::Stored).unwrap();
    Engine::new(Registry::from_bytes(&built.full_file()).unwrap())
}

fn without_time(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("time_taken");
    }
    v
}

#[test]
fn serve_answers_like_handle() {
    let server = start(&[]);
    let engine = engine();
    for target in [
        "/v2/organizations?query=northfield&filter=types:education",
        "/v1/organizations?query=university&filter=country.country_code:US,status:active&page=1",
        "/organizations?all_status",
        "/v2/organizations/https://ror.org/041qyp388",
        "/v2/organizations/ror.org%2F041qyp388",
        "/v1/organizations/041qyp388",
        "/v2/organizations/041qyp389",
        "/v2/organizations?query=(bad",
        "/v2/organizations?filter=country.country_name:Bonaire,%20Sint%20Eustatius,%20and%20Saba",
        "/v2/organizations?query=%E6%9D%B1%E9%9B%B2",
        "/v3/organizations",
        "/",
    ] {
        let (status, head, body) = request(server.port, "GET", target);
        let want = engine.handle(target);
        assert_eq!(status, want.status, "{target}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{target}: {head}"
        );
        let got: serde_json::Value = serde_json::from_slice(&body).expect("JSON body");
        let want: serde_json::Value = serde_json::from_str(&want.json).unwrap();
        assert_eq!(without_time(got), without_time(want), "{target}");
    }
    let (status, head, _) = request(server.port, "POST", "/v2/organizations");
    assert_eq!(status, 405);
    assert!(head.contains("GET"));
}

#[test]
fn serve_static_files_with_mime_types() {
    let root: PathBuf =
        std::env::temp_dir().join(format!("registry-serve-test-{}", std::process::id()));
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(root.join("pkg/app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(root.join("pkg/app.js"), "export {}").unwrap();
    let server = start(&["--root", root.to_str().unwrap()]);
    let (s, h, b) = request(server.port, "GET", "/");
    assert_eq!(s, 200);
    assert!(
        h.to_ascii_lowercase().contains("content-type: text/html"),
        "{h}"
    );
    assert!(String::from_utf8_lossy(&b).contains("<title>t</title>"));
    let (s, h, b) = request(server.port, "GET", "/pkg/app_bg.wasm");
    assert_eq!(s, 200);
    assert!(
        h.to_ascii_lowercase()
            .contains("content-type: application/wasm"),
        "{h}"
    );
    assert_eq!(b, b"\0asm\x01\0\0\0");
    let (_, h, _) = request(server.port, "GET", "/pkg/app.js");
    assert!(
        h.to_ascii_lowercase()
            .contains("content-type: text/javascript"),
        "{h}"
    );
    for bad in [
        "/../Cargo.toml",
        "/pkg/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/missing.css",
    ] {
        let (s, h, _) = request(server.port, "GET", bad);
        assert_eq!(s, 404, "{bad}");
        assert!(h.to_ascii_lowercase().contains("application/json"), "{bad}");
    }
    // The API is still there.
    let (s, _, _) = request(server.port, "GET", "/v2/organizations?query=northfield");
    assert_eq!(s, 200);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}
