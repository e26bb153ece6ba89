//! Starting `registry serve` on a free port and talking to it over a plain
//! `TcpStream` (so every byte sent is the test's own). Every wait is bounded.

#![allow(dead_code)] // each test file uses its own part of this

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/demo/registry-demo.json"
);

/// The binary under test; `REGISTRY_BIN` points the tests at another build
/// (e.g. an older one, to see a test fail before its fix).
pub fn binary() -> String {
    std::env::var("REGISTRY_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_registry").to_string())
}

/// `registry <args>`, run to its end.
pub fn registry(args: &[&str]) -> std::process::Output {
    Command::new(binary())
        .args(args)
        .output()
        .expect("run registry")
}

/// `registry <args>`, which must succeed: its stderr.
pub fn ok(args: &[&str]) -> String {
    let out = registry(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "registry {args:?} failed:\n{err}");
    err
}

/// An empty folder of this test process, `<what>-<name>`.
pub fn tmp_dir(what: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("registry-{what}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An app folder in `dir` with the files `registry site` asks for (their
/// content does not matter to the data it writes).
pub fn stand_in_app(dir: &std::path::Path) -> std::path::PathBuf {
    let app = dir.join("app");
    for f in [
        "index.html",
        "sw.js",
        "sw-control.js",
        "registry.js",
        "registry-worker.js",
        "registry-data.js",
        "pkg/registry_wasm_bg.wasm",
    ] {
        let path = app.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, f).unwrap();
    }
    app
}

pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

/// `registry serve --port 0 --data <demo> -q <extra>`, once it listens.
pub fn start(extra: &[&str]) -> Server {
    let mut child = Command::new(binary())
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

pub fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// A response as received.
pub struct Reply {
    pub status: u16,
    /// The header block, lower-cased.
    pub head: String,
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value (name in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim())
        })
    }
}

/// Sends one request with extra header lines and `Connection: close`.
pub fn request_with(port: u16, method: &str, target: &str, headers: &[&str]) -> Reply {
    let mut s = connect(port);
    let mut head =
        format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read response");
    parse(&raw)
}

pub fn request(port: u16, method: &str, target: &str) -> Reply {
    request_with(port, method, target, &[])
}

/// Parses one whole response (chunked bodies joined).
pub fn parse(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut body = raw[split + 4..].to_vec();
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status");
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    Reply { status, head, body }
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
