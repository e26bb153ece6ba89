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

/// The data `--data` names, else the demo dump where
/// [`demo_candidates`] looks for it.
pub fn data_or_demo(given: Option<&Path>) -> Result<PathBuf, String> {
    load::given_or_default(given, &demo_candidates(), "--data <data>")
}

/// `--header-timeout` and `--idle-timeout`: seconds, decimals allowed.
fn timeout(v: &str) -> Result<Duration, String> {
    v.parse::<f64>()
        .ok()
        .filter(|s| (0.05..=86_400.0).contains(s))
        .map(Duration::from_secs_f64)
        .ok_or_else(|| "a number of seconds from 0.05 to 86400".to_string())
}

/// Serve the API (v1, v2) and static files on 127.0.0.1.
///
/// Stops on SIGTERM or Ctrl-C once open requests are answered.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Registry data (default: data/demo/registry-demo.json under the
    /// current directory, else in the source tree the binary was built from)
    #[arg(long, value_name = "data")]
    data: Option<PathBuf>,
    /// Port (0 = any free port, printed on start)
    #[arg(long, value_name = "n", default_value_t = 8080)]
    port: u16,
    /// Serve static files from <dir> (e.g. the built UI), with CORS,
    /// compression and HOSTING.md's cache headers
    #[arg(long, value_name = "dir")]
    root: Option<PathBuf>,
    /// Threads answering API requests at once (default: the number of
    /// cores; others wait their turn)
    #[arg(long, value_name = "n", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    threads: Option<usize>,
    /// Open connections at most (beyond: 503)
    #[arg(long, value_name = "n", default_value_t = 1024, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    max_connections: usize,
    /// A request's headers must arrive within <s> seconds, and an idle
    /// connection is closed after it
    #[arg(long, value_name = "s", default_value = "10", value_parser = timeout)]
    header_timeout: Duration,
    /// Close a connection whose client reads nothing of its answer for <s>
    /// seconds
    #[arg(long, value_name = "s", default_value = "30", value_parser = timeout)]
    idle_timeout: Duration,
    /// No log output
    #[arg(short, long)]
    quiet: bool,
}

/// Answer one API request and print the JSON.
///
/// E.g. '/v2/organizations?query=oxford&filter=types:education'; the exit
/// status is 1 when the HTTP status is not 200.
#[derive(clap::Args)]
pub struct QueryArgs {
    /// Registry data: a .shard file, a build directory, a site folder, a
    /// manifest.json or a dump (built in memory first)
    #[arg(value_name = "data")]
    data: PathBuf,
    /// The request (path and query), or the typeahead text with --suggest
    #[arg(value_name = "request")]
    request: String,
    /// Treat <request> as typeahead text: print suggest() hits
    #[arg(long)]
    suggest: bool,
    /// Filters for --suggest (filter syntax, v2 keys)
    #[arg(long, value_name = "filters", default_value = "")]
    filter: String,
    /// Number of suggestions
    #[arg(short, value_name = "n", default_value_t = 10)]
    k: usize,
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

pub fn cmd_serve(a: ServeArgs) -> Result<(), String> {
    let (quiet, port, root) = (a.quiet, a.port, a.root);
    let (header_timeout, idle_timeout) = (a.header_timeout, a.idle_timeout);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let threads = a.threads.unwrap_or(cores.clamp(1, 64));
    let mut max_connections = a.max_connections;
    let data = data_or_demo(a.data.as_deref())?;
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
pub fn cmd_query(a: QueryArgs) -> Result<(), String> {
    let request = a.request.as_str();
    let engine = Engine::new(load::load(&a.data, true)?);
    if a.suggest {
        let filters = engine
            .parse_filters(&a.filter, registry_core::search::Version::V2)
            .map_err(|e| e.join("; "))?;
        let hits = engine.suggest(request, &filters, a.k);
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
