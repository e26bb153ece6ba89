//! Hostile clients against `registry serve` (issue 22): huge declared
//! bodies, a client pipelining 300 queries that never reads, 500 idle
//! connections, slow headers, an HTTP/2 preface, more connections than the
//! cap. After each, the process must still run and a normal request must be
//! answered within `BOUND` while the hostile connections are still open.
//! Short timeouts (`--header-timeout 2 --idle-timeout 2`) keep it under a
//! minute; the bound is generous for a loaded CI machine: it is a liveness
//! check, not a speed figure (`registry bench-serve` prints those).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Server, connect, start};

const BOUND: Duration = Duration::from_secs(5);

/// A normal query, answered 200 within `BOUND`; prints how long it took.
fn normal(server: &mut Server, while_: &str) {
    assert!(server.alive(), "the server died: {while_}");
    let started = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", server.port))
        .unwrap_or_else(|e| panic!("cannot connect {while_}: {e}"));
    s.set_read_timeout(Some(BOUND)).unwrap();
    s.write_all(
        b"GET /v2/organizations?query=northfield HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw) {
        panic!("no answer within {BOUND:?} {while_}: {e}");
    }
    let took = started.elapsed();
    assert!(
        raw.starts_with(b"HTTP/1.1 200"),
        "{while_}: {:?}",
        String::from_utf8_lossy(&raw[..raw.len().min(200)])
    );
    assert!(took < BOUND, "{while_}: answered after {took:?}");
    eprintln!(
        "normal request {while_}: {:.1} ms",
        took.as_secs_f64() * 1000.0
    );
}

/// The status line's code of what the server sends back, or None when it
/// closes without answering.
fn status_of(s: &mut TcpStream) -> Option<u16> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&raw)
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
}

/// Whether the server closes `s` within `within` (reading whatever it sends).
fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 65536];
    while Instant::now() < deadline {
        s.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => return true, // reset
        }
    }
    false
}

#[test]
fn hostile_clients_do_not_take_the_server_down() {
    let started = Instant::now();
    let mut server = start(&["--header-timeout", "2", "--idle-timeout", "2"]);
    normal(&mut server, "at start");

    // 1. Declared bodies the server must neither read nor allocate: 10^12
    // and 2^64−1 bytes, on GET and POST, and an endless chunked one.
    for length in ["1000000000000", "18446744073709551615"] {
        for method in ["GET", "POST"] {
            let mut s = connect(server.port);
            write!(
                s,
                "{method} /v2/organizations?query=x HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\nsome bytes"
            )
            .unwrap();
            let status = status_of(&mut s);
            assert!(
                status.is_some_and(|c| (400..500).contains(&c)),
                "{method} with Content-Length {length}: {status:?}"
            );
            normal(
                &mut server,
                &format!("after {method} with Content-Length {length}"),
            );
        }
    }
    let mut s = connect(server.port);
    s.write_all(
        b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
    )
    .unwrap();
    assert!(status_of(&mut s).is_some_and(|c| (400..500).contains(&c)));
    normal(&mut server, "after a chunked body");

    // 2. 300 pipelined queries, never read: the answers fill the sockets'
    // buffers and the server stops writing to this client, not to others.
    let mut piper = connect(server.port);
    piper
        .set_write_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let batch: String = (0..300)
        .map(|i| {
            format!(
                "GET /v2/organizations?query=university&page={} HTTP/1.1\r\nHost: x\r\n\r\n",
                i % 5 + 1
            )
        })
        .collect();
    // A full socket may refuse the rest: that is the point.
    let _ = piper.write_all(batch.as_bytes());
    std::thread::sleep(Duration::from_millis(300));
    normal(
        &mut server,
        "while a client pipelines 300 queries without reading",
    );

    // 3. 500 idle connections.
    let mut idle: Vec<TcpStream> = (0..500).map(|_| connect(server.port)).collect();
    normal(&mut server, "with 500 idle connections open");

    // 4. Slow headers (slowloris): 50 connections, a header line each
    // every 200 ms.
    let mut slow: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut s = connect(server.port);
            s.write_all(b"GET /v2/organizations HTTP/1.1\r\nHost: x\r\n")
                .unwrap();
            s
        })
        .collect();
    let drip: Vec<TcpStream> = slow.iter().map(|s| s.try_clone().unwrap()).collect();
    let dripper = std::thread::spawn(move || {
        let mut drip = drip;
        for i in 0..20 {
            for s in &mut drip {
                let _ = write!(s, "X-Slow-{i}: 1\r\n");
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    normal(&mut server, "while 50 clients send their headers slowly");

    // 5. An HTTP/2 connection preface and SETTINGS frame (h2c without
    // upgrade): refused or closed, never a crash.
    let mut h2 = connect(server.port);
    h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .unwrap();
    let status = status_of(&mut h2);
    assert!(
        status.is_none_or(|c| c >= 400),
        "an HTTP/2 preface got {status:?}"
    );
    normal(&mut server, "after an HTTP/2 preface");

    // The timeouts free what the hostile clients hold: the idle and slow
    // connections go after the header timeout, the non-reader after the
    // write-stall timeout, having received far fewer than its 300 answers.
    dripper.join().unwrap();
    let within = Duration::from_secs(6);
    assert!(
        closed_within(&mut idle[0], within),
        "an idle connection stayed open"
    );
    assert!(
        closed_within(&mut idle[499], within),
        "an idle connection stayed open"
    );
    assert!(
        closed_within(&mut slow[0], within),
        "a slow-header connection stayed open"
    );
    // 300 answers fit in the sockets' buffers; a greedier client that
    // sends for 2 s without reading shows the write-stall timeout: by the
    // time it reads, the server has dropped it with most answers unsent.
    let mut greedy = connect(server.port);
    greedy
        .set_write_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let one = b"GET /v2/organizations?query=university HTTP/1.1\r\nHost: x\r\n\r\n";
    let mut sent = 0;
    while sent < 20_000 && greedy.write_all(one).is_ok() {
        sent += 1;
    }
    normal(&mut server, "while a client floods queries without reading");
    std::thread::sleep(Duration::from_secs(4));
    let mut answered = Vec::new();
    greedy
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = greedy.read_to_end(&mut answered);
    let answers = answered
        .windows(12)
        .filter(|w| w == b"HTTP/1.1 200")
        .count();
    assert!(
        answers < sent,
        "the non-reading client got all {answers} answers"
    );
    eprintln!("the non-reading client was dropped after {answers} answers of {sent} queries sent");
    drop((idle, slow, piper, h2, greedy));
    normal(&mut server, "at the end");
    eprintln!("hostile clients: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn connections_over_the_cap_are_told_to_come_back() {
    let mut server = start(&["--max-connections", "20", "--header-timeout", "2"]);
    let held: Vec<TcpStream> = (0..20).map(|_| connect(server.port)).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut s = connect(server.port);
    s.write_all(b"GET /heartbeat HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let started = Instant::now();
    assert_eq!(status_of(&mut s), Some(503));
    assert!(started.elapsed() < BOUND);
    // The held connections time out, and the server takes new ones again.
    std::thread::sleep(Duration::from_millis(2500));
    normal(
        &mut server,
        "once the idle connections over the cap timed out",
    );
    drop(held);
}

/// Range values built to overflow or to cost: each gets a clean answer
/// (206 of bytes inside the file, 416, or the whole file with 200) and the
/// server keeps answering.
#[test]
fn hostile_ranges_get_clean_answers() {
    let root = std::env::temp_dir().join(format!("registry-hostile-ranges-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let file: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(root.join("a.pack"), &file).unwrap();
    let mut server = start(&["--root", root.to_str().unwrap()]);
    let many = vec!["0-0"; 3000].join(",");
    let long = "9".repeat(20_000);
    for range in [
        "bytes=0-99999999999999999999".to_string(),
        "bytes=99999999999999999999-".to_string(),
        "bytes=-99999999999999999999".to_string(),
        "bytes=18446744073709551615-18446744073709551615".to_string(),
        "bytes=18446744073709551614-".to_string(),
        "bytes=0-18446744073709551615".to_string(),
        "bytes=-18446744073709551615".to_string(),
        format!("bytes=0-{long}"),
        format!("bytes={many}"),
        "bytes=-1-2".to_string(),
        "bytes=--1".to_string(),
        "bytes=1--2".to_string(),
        "bytes=\u{0}-1".to_string(),
    ] {
        let mut s = connect(server.port);
        write!(
            s,
            "GET /a.pack HTTP/1.1\r\nHost: x\r\nConnection: close\r\nRange: {range}\r\n\r\n"
        )
        .unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        let shown = &range[..range.len().min(60)];
        let head_end = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("{shown}: no answer"));
        let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
        let body = &raw[head_end + 4..];
        let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
        match status {
            200 => assert_eq!(body, file, "{shown}"),
            206 => {
                let cr = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-range: bytes "))
                    .unwrap_or_else(|| panic!("{shown}: {head}"));
                let (span, total) = cr.split_once('/').unwrap();
                assert_eq!(total, "1000", "{shown}");
                let (a, b) = span.split_once('-').unwrap();
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                assert_eq!(body, &file[a..=b], "{shown}");
            }
            416 => assert!(head.contains("content-range: bytes */1000"), "{shown}"),
            // A head that is not HTTP (the NUL) or over the size limit.
            400 | 431 => {}
            other => panic!("{shown}: status {other}"),
        }
        normal(&mut server, &format!("after Range: {shown}"));
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&root);
}
