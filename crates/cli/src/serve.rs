//! `registry serve`: the API (through the core router, nothing re-routed
//! here) and static files over HTTP on 127.0.0.1, with `tiny_http`.
//!
//! * `/v1/…`, `/v2/…`, `/organizations…`, `/heartbeat` → `Engine::handle`
//!   (JSON, CORS `*`);
//! * anything else → a file under `--root` (`index.html` for directories),
//!   or the router's JSON 404 when no root is given;
//! * GET and HEAD only (405 JSON otherwise); no request can panic the server:
//!   paths are decoded leniently, `..` segments are refused.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use registry_core::id::percent_decode;
use registry_core::search::Engine;
use tiny_http::{Header, Method, Request, Response, Server};

use crate::args::Args;
use crate::load;

/// The demo dump, used when `--data` is not given.
pub const DEMO_DATA: &str = "data/demo/registry-demo.json";

/// Where the demo dump is: relative to the working directory, else to the
/// source tree this binary was built from.
pub fn demo_path() -> PathBuf {
    let here = PathBuf::from(DEMO_DATA);
    if here.exists() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(DEMO_DATA)
}

/// MIME type of a file name.
pub fn mime(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "gz" => "application/gzip",
        "zst" => "application/zstd",
        _ => "application/octet-stream",
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap_or_else(|_| {
        Header::from_bytes(&b"X-Invalid"[..], &b"1"[..]).expect("static header")
    })
}

fn json(status: u16, body: String) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(body.into_bytes())
        .with_status_code(status)
        .with_header(header("Content-Type", "application/json"))
        .with_header(header("Access-Control-Allow-Origin", "*"))
}

fn is_api(path: &str) -> bool {
    ["/v1", "/v2", "/organizations", "/heartbeat"]
        .iter()
        .any(|p| {
            path == *p || path.starts_with(&format!("{p}/")) || path.starts_with(&format!("{p}?"))
        })
}

/// A safe file path under `root` for a URL path, if any.
fn static_path(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path);
    if decoded.contains('\0') || decoded.contains('\\') {
        return None;
    }
    let rel = Path::new(decoded.trim_start_matches('/'));
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

/// Answers one request.
fn respond(engine: &Engine, root: Option<&Path>, req: Request) {
    let url = req.url().to_string();
    let method = req.method().clone();
    let path = url.split(['?', '#']).next().unwrap_or("").to_string();
    let result = if method != Method::Get && method != Method::Head {
        req.respond(
            json(
                405,
                serde_json::json!({ "errors": [format!("method {method} is not allowed; use GET")] })
                    .to_string(),
            )
            .with_header(header("Allow", "GET, HEAD")),
        )
    } else if is_api(&path) || root.is_none() {
        let r = engine.handle(&url);
        req.respond(json(r.status, r.json))
    } else {
        let root = root.expect("checked");
        match static_path(root, &path).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
            Some((p, bytes)) => req
                .respond(Response::from_data(bytes).with_header(header("Content-Type", mime(&p)))),
            None => req.respond(json(
                404,
                serde_json::json!({ "errors": [format!("no file '{}'", percent_decode(&path))] })
                    .to_string(),
            )),
        }
    };
    if let Err(e) = result {
        eprintln!("{method} {url}: cannot send the response: {e}");
    }
}

pub fn cmd_serve(rest: &[String]) -> Result<(), String> {
    let a = Args::parse(
        rest,
        &["--port", "--data", "--root", "--threads"],
        &["-q", "--quiet"],
    )?;
    if !a.positional.is_empty() {
        return Err(format!("unexpected argument '{}'", a.positional[0]));
    }
    let quiet = a.flag("-q") || a.flag("--quiet");
    let port: u16 = a
        .opt("--port")
        .unwrap_or("8080")
        .parse()
        .map_err(|_| "--port must be a number 0–65535 (0 = any free port)")?;
    let threads: usize = a
        .opt("--threads")
        .unwrap_or("2")
        .parse()
        .ok()
        .filter(|t| (1..=64).contains(t))
        .ok_or("--threads must be 1–64")?;
    let data = a.opt("--data").map(PathBuf::from).unwrap_or_else(demo_path);
    let root = a.opt("--root").map(PathBuf::from);
    if let Some(r) = &root
        && !r.is_dir()
    {
        return Err(format!("--root {} is not a directory", r.display()));
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
    let server = Server::http(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = server
        .server_addr()
        .to_ip()
        .map(|a| a.to_string())
        .unwrap_or_else(|| format!("127.0.0.1:{port}"));
    println!("listening on http://{addr}");
    std::io::stdout().flush().ok();
    let server = Arc::new(server);
    let engine = Arc::new(engine);
    {
        // Build the external-id maps now, off the request path.
        let engine = engine.clone();
        std::thread::spawn(move || engine.index().warm(engine.registry()));
    }
    let root = Arc::new(root);
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (server, engine, root) = (server.clone(), engine.clone(), root.clone());
            std::thread::spawn(move || {
                for req in server.incoming_requests() {
                    respond(&engine, root.as_deref(), req);
                }
            })
        })
        .collect();
    for w in workers {
        w.join()
            .map_err(|_| "a server thread stopped unexpectedly")?;
    }
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
