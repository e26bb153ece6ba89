//! `registry bench-serve`: throughput and latency of an HTTP server that
//! answers the registry API (`registry serve`, this build's or another's),
//! under many concurrent clients.
//!
//! Each client is a thread with its own keep-alive connection (or, with
//! `--fresh`, a new connection per request), sending the next request of a
//! shared sequence as soon as it has read the previous answer. The sequence
//! is built from the server's own listing (names and ids of its first
//! pages), so any data set works: E2 word queries, record look-ups, E4
//! affiliation strings, filtered and v1 queries, in turn.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use registry_core::router::encode_component;

use crate::stats::percentile;

const TIMEOUT: Duration = Duration::from_secs(30);

/// One HTTP/1.1 exchange on `stream`: (status, body length).
fn exchange(
    stream: &mut BufReader<TcpStream>,
    target: &str,
    close: bool,
) -> Result<(u16, Vec<u8>), String> {
    let connection = if close { "close" } else { "keep-alive" };
    write!(
        stream.get_mut(),
        "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: {connection}\r\n\r\n"
    )
    .map_err(|e| format!("send: {e}"))?;
    let mut status = 0;
    let mut length = None;
    let mut chunked = false;
    let mut line = String::new();
    loop {
        line.clear();
        if stream
            .read_line(&mut line)
            .map_err(|e| format!("read: {e}"))?
            == 0
        {
            return Err("connection closed before the answer".into());
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if status == 0 {
            status = l
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
        } else if let Some((k, v)) = l.split_once(':') {
            match k.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse::<usize>().ok(),
                "transfer-encoding" => chunked = v.to_ascii_lowercase().contains("chunked"),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            stream
                .read_line(&mut line)
                .map_err(|e| format!("read: {e}"))?;
            let size = usize::from_str_radix(line.trim(), 16).map_err(|_| "bad chunk size")?;
            let mut chunk = vec![0; size + 2];
            stream
                .read_exact(&mut chunk)
                .map_err(|e| format!("read: {e}"))?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        stream
            .read_exact(&mut body)
            .map_err(|e| format!("read: {e}"))?;
    } else {
        stream
            .read_to_end(&mut body)
            .map_err(|e| format!("read: {e}"))?;
    }
    Ok((status, body))
}

fn connect(addr: &str) -> Result<BufReader<TcpStream>, String> {
    let s = TcpStream::connect(addr).map_err(|e| format!("connect to {addr}: {e}"))?;
    s.set_read_timeout(Some(TIMEOUT)).ok();
    s.set_write_timeout(Some(TIMEOUT)).ok();
    s.set_nodelay(true).ok();
    Ok(BufReader::new(s))
}

/// The request sequence, from the names and ids of the server's first pages.
fn requests(addr: &str, n: usize) -> Result<Vec<String>, String> {
    let mut conn = connect(addr)?;
    let mut records = Vec::new();
    for page in 1..=5 {
        let (status, body) = exchange(&mut conn, &format!("/v2/organizations?page={page}"), false)?;
        if status != 200 {
            break;
        }
        let v: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| format!("listing page {page}: {e}"))?;
        for item in v["items"].as_array().into_iter().flatten() {
            let id = item["id"]
                .as_str()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap_or("");
            let name = item["names"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|n| {
                    n["types"].as_array().is_some_and(|t| {
                        t.iter()
                            .any(|t| t == "ror_display" || t == "registry_display")
                    })
                })
                .and_then(|n| n["value"].as_str())
                .unwrap_or("");
            if !id.is_empty() && !name.is_empty() {
                records.push((id.to_string(), name.to_string()));
            }
        }
    }
    if records.is_empty() {
        return Err(format!("http://{addr}/v2/organizations lists no records"));
    }
    Ok((0..n)
        .map(|i| {
            let (id, name) = &records[(i / 5) % records.len()];
            let word = name.split(' ').max_by_key(|w| w.len()).unwrap_or(name);
            match i % 5 {
                0 => format!("/v2/organizations?query={}", encode_component(word)),
                1 => format!("/v2/organizations/{id}"),
                2 => format!("/v2/organizations?affiliation={}", encode_component(name)),
                3 => format!(
                    "/v2/organizations?query={}&filter=status:active",
                    encode_component(name)
                ),
                _ => format!("/v1/organizations?query={}&page=1", encode_component(word)),
            }
        })
        .collect())
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this binary's `registry serve` on a free port.
fn start_server(data: &Path, threads: Option<usize>) -> Result<(Server, String), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(exe);
    cmd.args(["serve", "--port", "0", "-q", "--data"]).arg(data);
    if let Some(t) = threads {
        cmd.args(["--threads", &t.to_string()]);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start registry serve: {e}"))?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let server = Server(child);
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .ok_or_else(|| format!("registry serve said {line:?}"))?
        .to_string();
    Ok((server, addr))
}

/// A whole number ≥ 1.
fn positive() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..)
}

/// Throughput and latency of an HTTP server under many clients.
///
/// Throughput and p50/p90/p99 latency of a registry server under
/// concurrent clients; the requests (E2, records, E4, v1) are built from the server's own
/// listing.
#[derive(clap::Args)]
pub struct BenchServeArgs {
    /// A running server (this build's or another's); default: start
    /// `registry serve` on a free port
    #[arg(long, value_name = "http://host:port")]
    url: Option<String>,
    /// Data of the server started (default: the demo data, found as for
    /// serve)
    #[arg(long, value_name = "data")]
    data: Option<PathBuf>,
    /// Its --threads
    #[arg(long, value_name = "n", value_parser = positive())]
    threads: Option<usize>,
    /// Concurrent clients
    #[arg(long, value_name = "n", default_value_t = 200, value_parser = positive())]
    clients: usize,
    /// Requests in all
    #[arg(long, value_name = "n", default_value_t = 4000, value_parser = positive())]
    requests: usize,
    /// A new connection per request (default: keep-alive)
    #[arg(long)]
    fresh: bool,
}

pub fn cmd_bench_serve(a: BenchServeArgs) -> Result<(), String> {
    let (clients, total, fresh) = (a.clients, a.requests, a.fresh);
    let (_server, addr) = match &a.url {
        Some(url) => {
            let addr = url
                .strip_prefix("http://")
                .ok_or("--url must be http://host:port")?
                .trim_end_matches('/')
                .to_string();
            (None, addr)
        }
        None => {
            let data = crate::serve::data_or_demo(a.data.as_deref())?;
            let (s, addr) = start_server(&data, a.threads)?;
            (Some(s), addr)
        }
    };
    let targets = Arc::new(requests(&addr, total)?);
    // One warm-up pass, so both servers start with their lazy maps built.
    {
        let mut c = connect(&addr)?;
        for t in targets.iter().take(50) {
            exchange(&mut c, t, false)?;
        }
    }
    let next = Arc::new(AtomicUsize::new(0));
    let start = Arc::new(Barrier::new(clients + 1));
    let results = Arc::new(Mutex::new((Vec::with_capacity(total), 0usize, 0usize)));
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let (targets, next, start, results, addr) = (
                targets.clone(),
                next.clone(),
                start.clone(),
                results.clone(),
                addr.clone(),
            );
            std::thread::spawn(move || {
                let mut conn = if fresh { None } else { connect(&addr).ok() };
                let (mut lat, mut non_200, mut errors) = (Vec::new(), 0, 0);
                start.wait();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= targets.len() {
                        break;
                    }
                    let t = Instant::now();
                    let outcome = match conn.take() {
                        Some(c) => Ok(c),
                        None => connect(&addr),
                    }
                    .and_then(|mut c| {
                        let r = exchange(&mut c, &targets[i], fresh)?;
                        Ok((c, r))
                    });
                    match outcome {
                        Ok((c, (status, _))) => {
                            lat.push(t.elapsed().as_secs_f64() * 1000.0);
                            non_200 += usize::from(status != 200);
                            if !fresh {
                                conn = Some(c);
                            }
                        }
                        Err(_) => errors += 1,
                    }
                }
                let mut r = results.lock().unwrap_or_else(|p| p.into_inner());
                r.0.extend(lat);
                r.1 += non_200;
                r.2 += errors;
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for w in workers {
        w.join().map_err(|_| "a client thread failed")?;
    }
    let wall = began.elapsed().as_secs_f64();
    let mut r = results.lock().unwrap_or_else(|p| p.into_inner());
    let answered = r.0.len();
    let (non_200, errors) = (r.1, r.2);
    let lat = &mut r.0;
    println!(
        "{answered} requests answered ({non_200} not 200, {errors} failed) by http://{addr}, \
         {clients} concurrent clients, {}",
        if fresh {
            "a new connection per request"
        } else {
            "keep-alive connections"
        }
    );
    println!(
        "  {wall:.2} s: {:.0} requests/s; latency p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        answered as f64 / wall,
        percentile(lat, 0.5),
        percentile(lat, 0.9),
        percentile(lat, 0.99),
        percentile(lat, 1.0),
    );
    if errors > 0 {
        return Err(format!("{errors} requests failed"));
    }
    Ok(())
}
