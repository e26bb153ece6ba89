//! `registry serve`: the API (through the core router, nothing re-routed
//! here) and static files over HTTP on 127.0.0.1.
//!
//! * `/v1/…`, `/v2/…`, `/organizations…`, `/heartbeat` → `Engine::handle`
//!   (JSON, CORS `*`, brotli/gzip when asked);
//! * anything else → a file under `--root` (`index.html` for directories)
//!   with the cache headers HOSTING.md asks for, CORS `*` and compression,
//!   and single byte ranges (`range`: 206/416, `If-Range`, never compressed),
//!   or the router's JSON 404 when no root is given;
//! * GET and HEAD (OPTIONS for CORS preflights); 405 JSON otherwise; a
//!   request with a body gets 413 and its body is never read.
//!
//! How it stands up to hostile clients: [`server`].

mod encoding;
mod files;
mod heads;
mod pool;
mod range;
mod respond;
mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use registry_core::search::Engine;

use crate::args::Args;
use crate::load;

/// The demo dump, used when `--data` is not given.
pub const DEMO_DATA: &str = "data/demo/registry-demo.json";

/// Where the demo dump may be, in the order tried: under the working
/// directory (a checkout, or a copied binary run beside its data), then in
/// the source tree this binary was built from (`cargo run` from anywhere).
pub fn demo_candidates() -> Vec<PathBuf> {
    vec![
        PathBuf::from(DEMO_DATA),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(DEMO_DATA),
    ]
}

/// The demo dump, or an error naming every place looked at and how to
/// pass data instead (a copied binary's build tree is usually gone).
pub fn demo_path() -> Result<PathBuf, String> {
    first_existing(&demo_candidates())
}

fn first_existing(candidates: &[PathBuf]) -> Result<PathBuf, String> {
    if let Some(found) = candidates.iter().find(|p| p.exists()) {
        return Ok(found.clone());
    }
    let tried: Vec<String> = candidates
        .iter()
        .map(|p| format!("  {}", p.display()))
        .collect();
    Err(format!(
        "no --data given and no demo data at the default places:\n{}\n\
         pass the registry data: --data <data> (a dump, a .shard file, a build \
         directory or its manifest.json)",
        tried.join("\n")
    ))
}

/// A duration in seconds (decimals allowed) from an option.
fn seconds(a: &Args, key: &str, default: f64) -> Result<Duration, String> {
    let v = a.opt(key).map_or(Ok(default), |v| {
        v.parse::<f64>()
            .map_err(|_| format!("{key} must be a number of seconds, not '{v}'"))
    })?;
    if !(0.05..=86_400.0).contains(&v) {
        return Err(format!("{key} must be 0.05–86400 seconds, not {v}"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// Raises the open-file limit to its hard maximum (each connection is a
/// file descriptor; the soft default is often 1024) and returns it.
#[cfg(unix)]
fn raise_file_limit() -> Option<libc::rlim_t> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    Some(lim.rlim_cur)
}

#[cfg(not(unix))]
fn raise_file_limit() -> Option<u64> {
    None
}

/// A listening socket on 127.0.0.1 with room for connection bursts: the
/// default backlog (128) drops the SYNs of 200 clients connecting at once,
/// and each dropped one costs its client a second (the SYN retransmit).
fn listen(port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(std::net::SocketAddr::from(([127, 0, 0, 1], port)))?;
    socket.listen(1024)
}

pub fn cmd_serve(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(
        rest,
        &[
            "--port",
            "--data",
            "--root",
            "--threads",
            "--max-connections",
            "--header-timeout",
            "--idle-timeout",
        ],
        &["-q", "--quiet"],
    )?;
    if !a.positional.is_empty() {
        return Err(format!("unexpected argument '{}'", a.positional[0]));
    }
    let quiet = a.quiet();
    let port: u16 = a
        .opt("--port")
        .unwrap_or("8080")
        .parse()
        .map_err(|_| "--port must be a number 0–65535 (0 = any free port)")?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let threads: usize = match a.opt("--threads") {
        None => cores.clamp(1, 64),
        Some(t) => t
            .parse()
            .ok()
            .filter(|t| (1..=64).contains(t))
            .ok_or("--threads must be 1–64")?,
    };
    let mut max_connections: usize = a
        .opt("--max-connections")
        .unwrap_or("1024")
        .parse()
        .ok()
        .filter(|n| (1..=1_000_000).contains(n))
        .ok_or("--max-connections must be 1–1000000")?;
    let header_timeout = seconds(&a, "--header-timeout", 10.0)?;
    let idle_timeout = seconds(&a, "--idle-timeout", 30.0)?;
    let data = match a.opt("--data") {
        Some(d) => PathBuf::from(d),
        None => demo_path()?,
    };
    let root = a.opt("--root").map(PathBuf::from);
    if let Some(r) = &root
        && !r.is_dir()
    {
        return Err(format!("--root {} is not a directory", r.display()));
    }
    // Each connection is a file descriptor; keep some for files and the
    // listener rather than fail accepting.
    if let Some(files) = raise_file_limit() {
        let room = (files as usize).saturating_sub(64).max(1);
        if room < max_connections {
            if !quiet {
                eprintln!(
                    "at most {room} connections: the open-file limit is {files} (raise it with `ulimit -n`)"
                );
            }
            max_connections = room;
        }
    }
    let registry = load::load(&data, quiet)?;
    let t = Instant::now();
    let engine = Engine::new(registry);
    if !quiet {
        eprintln!(
            "{} records from {}; index built in {:.1} ms",
            engine.registry().len(),
            data.display(),
            t.elapsed().as_secs_f64() * 1000.0
        );
    }
    let engine = Arc::new(engine);
    {
        // Build the external-id maps now, off the request path.
        let engine = engine.clone();
        std::thread::spawn(move || engine.index().warm(engine.registry()));
    }
    // Work waits for a permit at most this long before the client is told
    // to come back (503): a queue, not a pile-up.
    let max_wait = Duration::from_secs(30);
    let app = Arc::new(respond::App {
        engine,
        files: root.map(|r| Arc::new(files::Files::new(r))),
        api: pool::Pool::new(threads, max_wait),
        file_pool: pool::Pool::new(2, max_wait),
    });
    let limits = server::Limits {
        max_connections,
        header_timeout,
        idle_timeout,
    };
    // Connection tasks only move bytes; a worker per core (at most 4) is
    // plenty. Blocking threads: the two pools plus one for the runtime.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.clamp(1, 4))
        .max_blocking_threads(threads + 2 + 1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener =
            listen(port).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_or_else(|_| format!("127.0.0.1:{port}"), |a| a.to_string());
        println!("listening on http://{addr}");
        std::io::stdout().flush().ok();
        server::run(listener, app, limits, quiet).await;
        Ok::<(), String>(())
    })?;
    // A job still running on a blocking thread (a slow query whose client
    // left) need not finish: the answers are sent.
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// `registry query <data> <request>`: one API request (or, with
/// `--suggest`, one typeahead call) answered from the command line.
pub fn cmd_query(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(rest, &["--filter", "-k"], &["--suggest"])?;
    let [path, request] = a.exactly(&["<data>", "<request>"])? else {
        unreachable!()
    };
    let engine = Engine::new(load::load(Path::new(path), true)?);
    if a.flag("--suggest") {
        let filters = engine
            .parse_filters(
                a.opt("--filter").unwrap_or(""),
                registry_core::search::Version::V2,
            )
            .map_err(|e| e.join("; "))?;
        let k: usize = a
            .opt("-k")
            .unwrap_or("10")
            .parse()
            .map_err(|_| "-k must be a number")?;
        let hits = engine.suggest(request, &filters, k);
        let json = serde_json::to_string_pretty(&hits).map_err(|e| e.to_string())?;
        // A closed pipe (`| head`) is not an error worth a panic.
        let _ = writeln!(std::io::stdout(), "{json}");
        return Ok(());
    }
    let r = engine.handle(request);
    let _ = writeln!(std::io::stdout(), "{}", r.json);
    if r.status == 200 {
        Ok(())
    } else {
        Err(format!("HTTP status {}", r.status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_demo_data_names_every_place_tried() {
        let tried = [
            PathBuf::from("no/such/registry-demo.json"),
            PathBuf::from("/nowhere/registry-demo.json"),
        ];
        let e = first_existing(&tried).unwrap_err();
        assert!(e.contains("no/such/registry-demo.json"), "{e}");
        assert!(e.contains("/nowhere/registry-demo.json"), "{e}");
        assert!(e.contains("--data <data>"), "{e}");
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let found = first_existing(&[tried[0].clone(), here.clone()]);
        assert_eq!(found, Ok(here));
    }
}
