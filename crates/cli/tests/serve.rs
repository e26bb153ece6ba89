//! `registry serve` answers like `Engine::handle`: starts the server on a
//! free port, sends requests over a plain `TcpStream`, compares, stops it.
//! Every wait is bounded.

mod common;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{Reply, connect, parse, request, request_with, start};
use registry_core::search::Engine;
use registry_core::{Registry, import, shard};

const DEMO: &str = common::DEMO;

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
        let Reply { status, head, body } = request(server.port, "GET", target);
        let want = engine.handle(target);
        assert_eq!(status, want.status, "{target}");
        assert!(
            head.contains("content-type: application/json"),
            "{target}: {head}"
        );
        // The router's bytes, unchanged but for `time_taken`: the server's
        // engine has a clock, this one none (0), and a loaded machine takes
        // a millisecond now and then.
        let timeless = |s: &str| {
            let Some(at) = s.find("\"time_taken\":") else {
                return s.to_string();
            };
            let rest = &s[at + 13..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            format!("{}\"time_taken\":_{}", &s[..at], &rest[digits..])
        };
        assert_eq!(
            timeless(&String::from_utf8_lossy(&body)),
            timeless(&want.json),
            "{target}: not the router's bytes"
        );
        let got: serde_json::Value = serde_json::from_slice(&body).expect("JSON body");
        let want: serde_json::Value = serde_json::from_str(&want.json).unwrap();
        assert_eq!(without_time(got), without_time(want), "{target}");
    }
    let r = request(server.port, "POST", "/v2/organizations");
    assert_eq!(r.status, 405);
    assert!(r.header("allow").unwrap().contains("get"));
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
    let r = request(server.port, "GET", "/");
    assert_eq!(r.status, 200);
    assert!(r.head.contains("content-type: text/html"), "{}", r.head);
    assert!(String::from_utf8_lossy(&r.body).contains("<title>t</title>"));
    let r = request(server.port, "GET", "/pkg/app_bg.wasm");
    assert_eq!(r.status, 200);
    assert!(
        r.head.contains("content-type: application/wasm"),
        "{}",
        r.head
    );
    assert_eq!(r.body, b"\0asm\x01\0\0\0");
    let r = request(server.port, "GET", "/pkg/app.js");
    assert!(
        r.head.contains("content-type: text/javascript"),
        "{}",
        r.head
    );
    for bad in [
        "/../Cargo.toml",
        "/pkg/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/missing.css",
    ] {
        let r = request(server.port, "GET", bad);
        assert_eq!(r.status, 404, "{bad}");
        assert!(r.head.contains("application/json"), "{bad}");
    }
    // The API is still there.
    let r = request(server.port, "GET", "/v2/organizations?query=northfield");
    assert_eq!(r.status, 200);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

/// A scratch site: a hashed UI file, a build's piece, revalidated files.
fn scratch_site(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("registry-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for dir in ["ui", "data/pieces/0123456789abcdef"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let js: String = (0..800)
        .map(|i| {
            format!(
                "export const name{i} = \"University of Northfield {}\";\n",
                i % 7
            )
        })
        .collect();
    std::fs::write(root.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(root.join("sw.js"), &js).unwrap();
    std::fs::write(root.join("ui/app.0123456789abcdef.js"), &js).unwrap();
    std::fs::write(root.join("data/manifest.json"), "{}").unwrap();
    std::fs::write(
        root.join("data/pieces/0123456789abcdef/un.shard"),
        vec![b'u'; 5000],
    )
    .unwrap();
    root
}

#[test]
fn static_files_carry_hosting_headers_cors_and_validators() {
    let root = scratch_site("hosting");
    let server = start(&["--root", root.to_str().unwrap()]);
    let immutable = "public, max-age=31536000, immutable";
    for (path, cache) in [
        ("/ui/app.0123456789abcdef.js", immutable),
        ("/data/pieces/0123456789abcdef/un.shard", immutable),
        ("/", "no-cache"),
        ("/sw.js", "no-cache"),
        ("/data/manifest.json", "no-cache"),
    ] {
        let r = request(server.port, "GET", path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("cache-control"), Some(cache), "{path}");
        // Any origin may use the files: the widget hosted for other sites.
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}");
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        // Revalidation costs a 304 without a body.
        let etag = r.header("etag").expect("an ETag").to_string();
        let again = request_with(
            server.port,
            "GET",
            path,
            &[&format!("If-None-Match: {etag}")],
        );
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("cache-control"), Some(cache), "{path}");
    }
    // A missing piece stays a 404 another origin can read.
    let r = request(server.port, "GET", "/data/pieces/0123456789abcdef/zz.shard");
    assert_eq!(r.status, 404);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    // A changed file is a new representation.
    std::thread::sleep(Duration::from_millis(20));
    let before = request(server.port, "GET", "/sw.js");
    std::fs::write(root.join("sw.js"), "export const changed = true;").unwrap();
    let after = request_with(
        server.port,
        "GET",
        "/sw.js",
        &[&format!(
            "If-None-Match: {}",
            before.header("etag").unwrap()
        )],
    );
    assert_eq!(after.status, 200);
    assert_eq!(after.body, b"export const changed = true;");
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

fn unbrotli(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(b, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn ungzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The body of an answer for comparison: an API answer's JSON without its
/// `time_taken` (milliseconds, which differ between two requests on a
/// loaded machine), anything else as it is.
fn comparable(body: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(mut o)) => {
            o.remove("time_taken");
            serde_json::to_vec(&o).unwrap()
        }
        _ => body.to_vec(),
    }
}

#[test]
fn answers_are_compressed_as_the_client_accepts() {
    let root = scratch_site("compression");
    let server = start(&["--root", root.to_str().unwrap()]);
    for path in [
        "/ui/app.0123456789abcdef.js",
        "/v2/organizations?query=university",
    ] {
        let plain = request(server.port, "GET", path);
        assert_eq!(plain.status, 200);
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert!(plain.body.len() > 1024, "{path}: too small to compress");
        let br = request_with(
            server.port,
            "GET",
            path,
            &["Accept-Encoding: gzip, deflate, br"],
        );
        assert_eq!(br.header("content-encoding"), Some("br"), "{path}");
        assert_eq!(br.header("vary"), Some("accept-encoding"), "{path}");
        assert!(br.body.len() < plain.body.len() / 2, "{path}");
        assert_eq!(
            comparable(&unbrotli(&br.body)),
            comparable(&plain.body),
            "{path}"
        );
        let gz = request_with(server.port, "GET", path, &["Accept-Encoding: gzip"]);
        assert_eq!(gz.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(
            comparable(&ungzip(&gz.body)),
            comparable(&plain.body),
            "{path}"
        );
        let none = request_with(
            server.port,
            "GET",
            path,
            &["Accept-Encoding: br;q=0, identity"],
        );
        assert_eq!(none.header("content-encoding"), None, "{path}");
        assert_eq!(comparable(&none.body), comparable(&plain.body), "{path}");
    }
    // Shards are zstd already: sent as they are.
    let shard = request_with(
        server.port,
        "GET",
        "/data/pieces/0123456789abcdef/un.shard",
        &["Accept-Encoding: br, gzip"],
    );
    assert_eq!(shard.header("content-encoding"), None);
    assert_eq!(shard.body.len(), 5000);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn malformed_percent_escapes_are_400_naming_the_parameter() {
    let server = start(&[]);
    for (target, names) in [
        ("/v2/organizations?query=%ZZ", ["'query'", "'%ZZ'"]),
        ("/v2/organizations?filter=types:%G1", ["'filter'", "'%G1'"]),
        ("/v2/organizations?page=%2", ["'page'", "'%2'"]),
        (
            "/v1/organizations?affiliation=Universit%E9%20Paris",
            ["'affiliation'", "not UTF-8"],
        ),
        ("/v2/organizations/%ZZ", ["the path", "'%ZZ'"]),
        (
            "/v2/organizations?query=x&all_status=%",
            ["'all_status'", "'%'"],
        ),
    ] {
        let r = request(server.port, "GET", target);
        assert_eq!(r.status, 400, "{target}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON body");
        let errors = body["errors"].as_array().expect("errors");
        assert_eq!(errors.len(), 1, "{target}: {body}");
        let message = errors[0].as_str().unwrap();
        for name in names {
            assert!(message.contains(name), "{target}: {message}");
        }
    }
    // A well-formed escape of '%' is text like any other.
    assert_eq!(
        request(server.port, "GET", "/v2/organizations?query=100%25").status,
        200
    );
    // `registry query` answers the same way.
    let out = std::process::Command::new(common::binary())
        .args(["query", DEMO, "/v2/organizations?query=%ZZ"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let body: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(body["errors"][0].as_str().unwrap().contains("'%ZZ'"));
}

/// Sends `request` from another thread (what the server no longer reads
/// may fail to send) and reads everything the server answers until it
/// closes; returns the answer and how sending ended.
fn send_oversized(port: u16, request: Vec<u8>) -> (Vec<u8>, std::io::Result<()>) {
    let mut s = connect(port);
    let mut writer = s.try_clone().unwrap();
    let sending = std::thread::spawn(move || writer.write_all(&request));
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) => panic!("no clean close after {} bytes: {e}", raw.len()),
        }
    }
    (raw, sending.join().unwrap())
}

/// The JSON error answer at the start of `raw`, checked for the headers
/// every error carries; returns its message.
fn json_error_answer(raw: &[u8], status: u16) -> String {
    let r = parse(raw);
    assert_eq!(r.status, status, "{}", r.head);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str()),
        "the whole body, nothing after it"
    );
    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON body");
    body["errors"][0].as_str().expect("errors[0]").to_string()
}

#[test]
fn oversized_requests_get_json_errors_and_a_clean_close() {
    let server = start(&[]);
    // A 100 kB query, after a request pipelined before it: that one is
    // answered first, then the 414.
    let mut req = b"GET /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n".to_vec();
    req.extend_from_slice(b"GET /v2/organizations?query=");
    req.extend_from_slice(&b"a".repeat(100_000));
    req.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
    let (raw, _) = send_oversized(server.port, req);
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{:?}",
        &raw[..raw.len().min(100)]
    );
    let second = raw
        .windows(12)
        .position(|w| w == b"HTTP/1.1 414")
        .expect("a 414 after the 200");
    let message = json_error_answer(&raw[second..], 414);
    assert!(message.contains("request line is longer than"), "{message}");
    // A 1 MB header.
    let mut req = b"GET /v2/organizations HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
    req.extend_from_slice(&b"b".repeat(1_000_000));
    req.extend_from_slice(b"\r\n\r\n");
    let (raw, sent) = send_oversized(server.port, req);
    let message = json_error_answer(&raw, 431);
    assert!(message.contains("headers are larger than"), "{message}");
    // The server took what it needed and dropped the rest: the client
    // could send all of it (no reset before the answer was read).
    assert!(sent.is_ok(), "{sent:?}");
    // A head that never ends is not read for ever: sending fails once the
    // server has closed (after at most a few MB: its linger, the sockets'
    // buffers), rather than going on.
    let endless = b"x".repeat(256 << 20);
    let mut req = b"GET / HTTP/1.1\r\nX-Endless: ".to_vec();
    req.extend_from_slice(&endless);
    let (raw, sent) = send_oversized(server.port, req);
    json_error_answer(&raw, 431);
    let e = sent.expect_err("256 MB of header were all taken");
    assert!(
        matches!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
        ),
        "{e}"
    );
    assert_eq!(
        request(server.port, "GET", "/v2/organizations?query=northfield").status,
        200
    );
}

#[test]
fn heads_hyper_cannot_take_get_json_errors() {
    let server = start(&[]);
    let many: String = (0..70).map(|i| format!("X-{i}: 1\r\n")).collect();
    for (head, status, says) in [
        (
            format!("GET /v2/organizations HTTP/1.1\r\nHost: x\r\n{many}\r\n"),
            431,
            "more than 64 headers",
        ),
        (
            "GET /v2/organizations HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n".to_string(),
            400,
            "not HTTP/1.1",
        ),
        (
            "GET /v2/organizations HTTP/9\r\nHost: x\r\n\r\n".to_string(),
            400,
            "not HTTP/1.1",
        ),
    ] {
        let (raw, _) = send_oversized(server.port, head.into_bytes());
        let message = json_error_answer(&raw, status);
        assert!(message.contains(says), "{message}");
    }
}

#[test]
fn bodies_are_refused_unread_and_methods_answered() {
    let server = start(&[]);
    // A GET announcing a body: 413, and the connection is not reused.
    let mut s = connect(server.port);
    s.write_all(b"GET /v2/organizations HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let r = parse(&raw);
    assert_eq!(r.status, 413);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(String::from_utf8_lossy(&r.body).contains("not accepted"));
    // A preflight is answered for any origin.
    let r = request_with(
        server.port,
        "OPTIONS",
        "/v2/organizations",
        &[
            "Origin: https://form.example",
            "Access-Control-Request-Method: GET",
        ],
    );
    assert_eq!(r.status, 204);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(
        r.header("access-control-allow-methods")
            .unwrap()
            .contains("get")
    );
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let r = request(server.port, method, "/v2/organizations");
        assert_eq!(r.status, 405, "{method}");
    }
    // HEAD: the GET's headers without its body.
    let get = request(server.port, "GET", "/v2/organizations?query=northfield");
    let head = request(server.port, "HEAD", "/v2/organizations?query=northfield");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        Some(get.body.len().to_string().as_str())
    );
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_gracefully() {
    let mut server = start(&[]);
    // An idle keep-alive connection does not hold the shutdown up.
    let mut idle = connect(server.port);
    idle.write_all(b"GET /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 512];
    assert!(idle.read(&mut buf).unwrap() > 0);
    let pid = server.child.id().to_string();
    let started = Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "still running 15 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status after SIGTERM: {status}");
    // The idle connection was closed, not left dangling.
    assert_eq!(idle.read(&mut buf).unwrap_or(0), 0);
}

/// Reads one answer off a keep-alive connection: the head, then exactly
/// `Content-Length` bytes (none for a HEAD request's answer).
fn read_answer(s: &mut std::net::TcpStream, head_request: bool) -> Reply {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        assert_eq!(s.read(&mut byte).expect("read a head"), 1, "closed early");
        raw.push(byte[0]);
    }
    let mut reply = parse(&raw);
    if !head_request {
        let length: usize = reply
            .header("content-length")
            .and_then(|l| l.parse().ok())
            .expect("a Content-Length");
        let mut body = vec![0; length];
        s.read_exact(&mut body).expect("the whole body");
        reply.body = body;
    }
    reply
}

/// A site with a binary "pack" and a compressible JSON file.
fn range_site(name: &str) -> (PathBuf, Vec<u8>, Vec<u8>) {
    let root = scratch_site(name);
    let pack: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(root.join("data/pieces/0123456789abcdef/a.pack"), &pack).unwrap();
    let json: String = (0..300)
        .map(|i| format!("{{\"id\": {i}, \"name\": \"University of Northfield\"}},\n"))
        .collect();
    std::fs::write(root.join("data/table.json"), &json).unwrap();
    (root, pack, json.into_bytes())
}

#[test]
fn single_ranges_of_static_files_are_206_with_exact_bytes() {
    let (root, pack, json) = range_site("ranges");
    let server = start(&["--root", root.to_str().unwrap()]);
    let path = "/data/pieces/0123456789abcdef/a.pack";
    let whole = request(server.port, "GET", path);
    assert_eq!(whole.status, 200);
    assert_eq!(whole.header("accept-ranges"), Some("bytes"));
    assert_eq!(whole.body, pack);
    let etag = whole.header("etag").expect("an ETag").to_string();
    let last_modified = whole.header("last-modified").expect("Last-Modified");
    assert!(last_modified.ends_with(" gmt"), "{last_modified}");
    for (range, start, end) in [
        ("bytes=10-19", 10, 19),
        ("bytes=0-0", 0, 0),
        ("bytes=990-5000", 990, 999),
        ("bytes=500-", 500, 999),
        ("bytes=-100", 900, 999),
        ("bytes=-5000", 0, 999),
    ] {
        let r = request_with(
            server.port,
            "GET",
            path,
            &[&format!("Range: {range}"), "Accept-Encoding: br, gzip"],
        );
        assert_eq!(r.status, 206, "{range}");
        assert_eq!(r.body, &pack[start..=end], "{range}");
        assert_eq!(
            r.header("content-range"),
            Some(format!("bytes {start}-{end}/1000").as_str()),
            "{range}"
        );
        assert_eq!(
            r.header("content-length"),
            Some((end - start + 1).to_string().as_str()),
            "{range}"
        );
        assert_eq!(r.header("accept-ranges"), Some("bytes"), "{range}");
        assert_eq!(r.header("content-encoding"), None, "{range}");
        assert_eq!(r.header("etag"), Some(etag.as_str()), "{range}");
        assert_eq!(
            r.header("cache-control"),
            Some("public, max-age=31536000, immutable"),
            "{range}"
        );
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
        assert_eq!(r.header("content-type"), Some("application/octet-stream"));
    }
    // HEAD: the 206's headers, no body.
    let head = request_with(server.port, "HEAD", path, &["Range: bytes=10-19"]);
    assert_eq!(head.status, 206);
    assert!(head.body.is_empty());
    assert_eq!(head.header("content-length"), Some("10"));
    assert_eq!(head.header("content-range"), Some("bytes 10-19/1000"));
    let head = request(server.port, "HEAD", path);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("1000"));
    assert_eq!(head.header("accept-ranges"), Some("bytes"));
    // A compressible file: the range is of its own bytes, never a coded form.
    let r = request_with(
        server.port,
        "GET",
        "/data/table.json",
        &["Range: bytes=100-399", "Accept-Encoding: gzip, deflate, br"],
    );
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.body, &json[100..400]);
    assert_eq!(
        r.header("content-range"),
        Some(format!("bytes 100-399/{}", json.len()).as_str())
    );
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    // Without a range it is still compressed, and says it takes ranges.
    let r = request_with(
        server.port,
        "GET",
        "/data/table.json",
        &["Accept-Encoding: br"],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("br"));
    assert_eq!(r.header("accept-ranges"), Some("bytes"));
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn ranges_in_a_row_on_one_connection() {
    let (root, pack, _) = range_site("ranges-keepalive");
    let server = start(&["--root", root.to_str().unwrap()]);
    let mut s = connect(server.port);
    for (i, (start, end)) in [(0, 99), (100, 199), (900, 999), (37, 37), (0, 999)]
        .into_iter()
        .enumerate()
    {
        write!(
            s,
            "GET /data/pieces/0123456789abcdef/a.pack HTTP/1.1\r\nHost: x\r\nRange: bytes={start}-{end}\r\n\r\n"
        )
        .unwrap();
        let r = read_answer(&mut s, false);
        assert_eq!(r.status, 206, "request {i}");
        assert_eq!(r.body, &pack[start..=end], "request {i}");
        assert_eq!(
            r.header("content-range"),
            Some(format!("bytes {start}-{end}/1000").as_str())
        );
        assert_eq!(r.header("connection"), None, "request {i}: kept alive");
    }
    // HEAD on the same connection, then a GET again.
    s.write_all(
        b"HEAD /data/pieces/0123456789abcdef/a.pack HTTP/1.1\r\nHost: x\r\nRange: bytes=-10\r\n\r\n",
    )
    .unwrap();
    let r = read_answer(&mut s, true);
    assert_eq!((r.status, r.header("content-length")), (206, Some("10")));
    s.write_all(
        b"GET /data/pieces/0123456789abcdef/a.pack HTTP/1.1\r\nHost: x\r\nRange: bytes=-10\r\n\r\n",
    )
    .unwrap();
    let r = read_answer(&mut s, false);
    assert_eq!(r.body, &pack[990..]);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn unsatisfiable_ignored_and_conditional_ranges() {
    let (root, pack, _) = range_site("ranges-416");
    let path = "/data/pieces/0123456789abcdef/a.pack";
    // A file whose time is well in the past: its Last-Modified is strong.
    let file = std::fs::File::options()
        .write(true)
        .open(root.join(path.trim_start_matches('/')))
        .unwrap();
    file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(784_111_777))
        .unwrap();
    drop(file);
    let server = start(&["--root", root.to_str().unwrap()]);
    for range in ["bytes=1000-", "bytes=1000-2000", "bytes=-0"] {
        let r = request_with(server.port, "GET", path, &[&format!("Range: {range}")]);
        assert_eq!(r.status, 416, "{range}");
        assert_eq!(r.header("content-range"), Some("bytes */1000"), "{range}");
        assert_eq!(r.header("access-control-allow-origin"), Some("*"));
        let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON");
        assert!(body["errors"][0].as_str().unwrap().contains("1000 bytes"));
    }
    // Ranges this server does not take: the whole file, never wrong bytes.
    for range in [
        "bytes=0-1,5-6",
        "bytes=5-2",
        "items=0-1",
        "bytes=0-99999999999999999999",
        "bytes=-99999999999999999999",
        "bytes=abc",
    ] {
        let r = request_with(server.port, "GET", path, &[&format!("Range: {range}")]);
        assert_eq!(r.status, 200, "{range}");
        assert_eq!(r.body, pack, "{range}");
        assert_eq!(r.header("content-range"), None, "{range}");
    }
    // Two Range fields: the whole file.
    let r = request_with(
        server.port,
        "GET",
        path,
        &["Range: bytes=0-1", "Range: bytes=2-3"],
    );
    assert_eq!((r.status, r.body.len()), (200, 1000));
    // If-Range: a range of the file as it still is, else the whole file.
    let whole = request(server.port, "GET", path);
    let etag = whole.header("etag").unwrap().to_string();
    let date = whole.header("last-modified").unwrap().to_string();
    let ranged = |if_range: &str| {
        request_with(
            server.port,
            "GET",
            path,
            &["Range: bytes=10-19", &format!("If-Range: {if_range}")],
        )
    };
    let r = ranged(&etag);
    assert_eq!((r.status, r.body.as_slice()), (206, &pack[10..20]));
    assert_eq!(date, "sun, 06 nov 1994 08:49:37 gmt");
    let date = "Sun, 06 Nov 1994 08:49:37 GMT";
    let r = ranged(date);
    assert_eq!(r.status, 206, "If-Range: {date}");
    for stale in [
        "\"1-0\"".to_string(),
        format!("W/{etag}"),
        format!("\"{}-br\"", etag.trim_matches('"')),
        "Thu, 01 Jan 1970 00:00:00 GMT".to_string(),
    ] {
        let r = ranged(&stale);
        assert_eq!(r.status, 200, "If-Range: {stale}");
        assert_eq!(r.body, pack, "If-Range: {stale}");
    }
    // If-None-Match comes first: a cached copy is still a 304.
    let r = request_with(
        server.port,
        "GET",
        path,
        &["Range: bytes=0-9", &format!("If-None-Match: {etag}")],
    );
    assert_eq!(r.status, 304);
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn ranges_of_a_file_too_large_for_the_cache() {
    let root = scratch_site("ranges-large");
    // 40 MiB, sparse but for a marker near the end.
    let path = root.join("data/pieces/0123456789abcdef/big.pack");
    let total: u64 = 40 << 20;
    {
        use std::io::{Seek, SeekFrom};
        let mut f = std::fs::File::create(&path).unwrap();
        f.set_len(total).unwrap();
        f.seek(SeekFrom::Start(total - 1000)).unwrap();
        f.write_all(b"marker").unwrap();
    }
    let server = start(&["--root", root.to_str().unwrap()]);
    let url = "/data/pieces/0123456789abcdef/big.pack";
    let start = total - 1002;
    let r = request_with(
        server.port,
        "GET",
        url,
        &[&format!("Range: bytes={start}-{}", start + 9)],
    );
    assert_eq!(r.status, 206);
    assert_eq!(r.body, b"\0\0marker\0\0");
    assert_eq!(
        r.header("content-range"),
        Some(format!("bytes {start}-{}/{total}", start + 9).as_str())
    );
    assert!(r.header("etag").is_some());
    let r = request_with(server.port, "GET", url, &["Range: bytes=-3"]);
    assert_eq!((r.status, r.body.as_slice()), (206, &b"\0\0\0"[..]));
    let r = request_with(
        server.port,
        "GET",
        url,
        &[&format!("Range: bytes={total}-")],
    );
    assert_eq!(r.status, 416);
    assert_eq!(
        r.header("content-range"),
        Some(format!("bytes */{total}").as_str())
    );
    let r = request(server.port, "HEAD", url);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), Some(total.to_string().as_str()));
    assert_eq!(r.header("accept-ranges"), Some("bytes"));
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}
