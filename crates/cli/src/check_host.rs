//! `registry check-host <url>`: checks a deployed site (a folder written by
//! `registry site`) from the outside, as a browser on another origin would
//! read it: the page, the data's manifest, a range of a pack (206), the
//! CORS header the widget needs when embedded elsewhere, the wasm's content
//! type, the module scripts' type and the cache headers of HOSTING.md. Each
//! check is printed with a fix naming the header; a needed check that fails
//! makes the command fail.
//!
//! Plain HTTP/1.1 over `std::net` (the CLI links no HTTP client and no TLS:
//! `https://` is refused with what to do instead), every read bounded: a
//! connect and an overall timeout per request, a cap on the response head
//! and on the body (a host announcing a huge body is told, never read).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The Origin sent with every request: a page on another origin.
const ORIGIN: &str = "http://check-host.invalid";
/// A response head larger than this is refused.
const HEAD_CAP: usize = 64 * 1024;
/// The manifest's body at most (a real registry's is tens of kilobytes).
const MANIFEST_CAP: usize = 8 << 20;
/// The loader's body at most (its source is a few tens of kilobytes).
const SCRIPT_CAP: usize = 1 << 20;
/// Bytes asked of a pack.
const RANGE_LEN: usize = 100;

/// A response as far as it was read.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The body was longer than the cap (or announced so): `body` is not all of it.
    truncated: bool,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// `http://host[:port]/path/`: where the site's folder is.
#[derive(Debug)]
struct Site {
    host: String,
    port: u16,
    /// The folder's path, ending in '/'.
    path: String,
}

fn parse_url(url: &str) -> Result<Site, String> {
    if url.starts_with("https://") {
        return Err(format!(
            "{url}: this command speaks plain HTTP only (the `registry` binary has no TLS); \
             check the same files over http:// (the origin server behind the CDN, or a copy of \
             the folder served by `registry serve --root`), or with the curl lines of HOSTING.md"
        ));
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: expected an http:// URL of the site's folder"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if authority.is_empty() || authority.contains('@') {
        return Err(format!("{url}: no host in the URL"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (
            h.to_string(),
            p.parse::<u16>()
                .map_err(|_| format!("{url}: the port '{p}' is not a number"))?,
        ),
        _ => (authority.to_string(), 80),
    };
    // The folder: a trailing file name (index.html) is dropped.
    let mut path = if path.is_empty() {
        "/".to_string()
    } else {
        path.to_string()
    };
    if let Some(q) = path.find(['?', '#']) {
        path.truncate(q);
    }
    if !path.ends_with('/') {
        let cut = path.rfind('/').unwrap_or(0);
        let last = &path[cut + 1..];
        if last.contains('.') {
            path.truncate(cut + 1);
        } else {
            path.push('/');
        }
    }
    Ok(Site { host, port, path })
}

/// One GET of `path` (absolute) with `extra` header lines, read within
/// `timeout`: the head (≤ HEAD_CAP) and at most `cap` bytes of the body.
fn get(
    site: &Site,
    path: &str,
    extra: &[&str],
    cap: usize,
    timeout: Duration,
) -> Result<Reply, String> {
    let what = format!("http://{}:{}{path}", site.host, site.port);
    let deadline = Instant::now() + timeout;
    let addrs: Vec<_> = (site.host.trim_matches(['[', ']']), site.port)
        .to_socket_addrs()
        .map_err(|e| format!("{what}: cannot resolve {}: {e}", site.host))?
        .collect();
    let mut stream = None;
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e.to_string(),
        }
    }
    let mut s = stream.ok_or_else(|| format!("{what}: cannot connect: {last}"))?;
    s.set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let host = if site.port == 80 {
        site.host.clone()
    } else {
        format!("{}:{}", site.host, site.port)
    };
    let mut req = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: registry-check-host/{}\r\nAccept: */*\r\n\
         Accept-Encoding: gzip, br\r\nOrigin: {ORIGIN}\r\nConnection: close\r\n",
        env!("CARGO_PKG_VERSION")
    );
    for h in extra {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())
        .map_err(|e| format!("{what}: cannot send the request: {e}"))?;

    // Reads into `buf` once, within the deadline; 0 at the end of the stream.
    let read_some = |s: &mut TcpStream, buf: &mut [u8]| -> Result<usize, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{what}: no complete answer within {} s",
                timeout.as_secs()
            ));
        }
        s.set_read_timeout(Some(left)).map_err(|e| e.to_string())?;
        s.read(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                format!("{what}: no complete answer within {} s", timeout.as_secs())
            }
            _ => format!("{what}: {e}"),
        })
    };

    let mut data = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if data.len() > HEAD_CAP {
            return Err(format!(
                "{what}: the answer's head is larger than {} KiB",
                HEAD_CAP / 1024
            ));
        }
        let n = read_some(&mut s, &mut chunk)?;
        if n == 0 {
            return Err(format!(
                "{what}: the connection closed before a complete answer"
            ));
        }
        data.extend_from_slice(&chunk[..n]);
    };
    let mut raw_headers = [httparse::EMPTY_HEADER; 96];
    let mut parsed = httparse::Response::new(&mut raw_headers);
    match parsed.parse(&data[..head_end]) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return Err(format!("{what}: not an HTTP/1.x answer")),
    }
    let status = parsed.code.unwrap_or(0);
    let headers: Vec<(String, String)> = parsed
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_string(),
                String::from_utf8_lossy(h.value).trim().to_string(),
            )
        })
        .collect();
    let mut reply = Reply {
        status,
        headers,
        body: data[head_end..].to_vec(),
        truncated: false,
    };
    let length = reply
        .header("content-length")
        .and_then(|v| v.parse::<u64>().ok());
    let chunked = reply
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if let Some(len) = length.filter(|_| !chunked) {
        if len > cap as u64 {
            // Announced larger than this check reads: not read at all.
            reply.truncated = true;
            reply.body.truncate(cap);
            return Ok(reply);
        }
        while (reply.body.len() as u64) < len {
            let n = read_some(&mut s, &mut chunk)?;
            if n == 0 {
                return Err(format!(
                    "{what}: the connection closed after {} of {len} bytes",
                    reply.body.len()
                ));
            }
            reply.body.extend_from_slice(&chunk[..n]);
        }
        reply.body.truncate(len as usize);
        return Ok(reply);
    }
    // Chunked or to the end of the stream: read the raw bytes up to the cap
    // (and the chunk framing's few bytes more), then decode.
    let limit = cap.saturating_add(cap / 8 + 1024);
    loop {
        if reply.body.len() > limit {
            reply.truncated = true;
            break;
        }
        if chunked && dechunk(&reply.body).is_some_and(|(_, done)| done) {
            break;
        }
        let n = read_some(&mut s, &mut chunk)?;
        if n == 0 {
            break;
        }
        reply.body.extend_from_slice(&chunk[..n]);
    }
    if chunked {
        let (body, _) = dechunk(&reply.body)
            .ok_or_else(|| format!("{what}: a chunked body that does not parse"))?;
        reply.body = body;
    }
    if reply.body.len() > cap {
        reply.truncated = true;
        reply.body.truncate(cap);
    }
    Ok(reply)
}

/// A chunked body's data as far as it is complete, and whether its last chunk came.
fn dechunk(raw: &[u8]) -> Option<(Vec<u8>, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        let Some(eol) = raw[at..].windows(2).position(|w| w == b"\r\n") else {
            return Some((out, false));
        };
        let line = std::str::from_utf8(&raw[at..at + eol]).ok()?;
        let size = usize::from_str_radix(line.split(';').next()?.trim(), 16).ok()?;
        at += eol + 2;
        if size == 0 {
            return Some((out, true));
        }
        if raw.len() < at + size {
            out.extend_from_slice(&raw[at..]);
            return Some((out, false));
        }
        out.extend_from_slice(&raw[at..at + size]);
        at += size + 2;
        if at > raw.len() {
            return Some((out, false));
        }
    }
}

/// The body as sent before its Content-Encoding (gzip or br), at most `cap` bytes.
fn decoded(reply: &Reply, cap: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let limit = cap as u64 + 1;
    let r = match reply
        .header("content-encoding")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("identity") => return Ok(reply.body.clone()),
        Some("gzip") => flate2::read::GzDecoder::new(&reply.body[..])
            .take(limit)
            .read_to_end(&mut out),
        Some("br") => brotli::Decompressor::new(&reply.body[..], 4096)
            .take(limit)
            .read_to_end(&mut out),
        Some(other) => return Err(format!("an unknown Content-Encoding '{other}'")),
    };
    r.map_err(|e| format!("its compressed body does not decode: {e}"))?;
    if out.len() > cap {
        return Err(format!(
            "its body is larger than {} MiB once decompressed",
            cap >> 20
        ));
    }
    Ok(out)
}

/// The checks' outcome, printed as they are made.
struct Report {
    failed: Vec<String>,
    warned: usize,
}

impl Report {
    fn ok(&mut self, what: &str, detail: &str) {
        println!("ok    {what}: {detail}");
    }
    /// A needed check failed.
    fn fail(&mut self, what: &str, detail: &str, fix: &str) {
        println!("FAIL  {what}: {detail}\n      fix: {fix}");
        self.failed.push(what.to_string());
    }
    /// Works, but not as HOSTING.md asks (slower, or stale after a release).
    fn warn(&mut self, what: &str, detail: &str, fix: &str) {
        println!("warn  {what}: {detail}\n      fix: {fix}");
        self.warned += 1;
    }
    fn note(&mut self, what: &str, detail: &str) {
        println!("note  {what}: {detail}");
    }
}

/// Content-Type without its parameters, lowercased ("" when absent).
fn mime(reply: &Reply) -> String {
    reply
        .header("content-type")
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The `max-age` of a Cache-Control value, if any.
fn max_age(cc: &str) -> Option<u64> {
    cc.split(',')
        .filter_map(|d| d.trim().strip_prefix("max-age="))
        .find_map(|v| v.trim_matches('"').parse().ok())
}

struct Checker<'a> {
    site: &'a Site,
    timeout: Duration,
    /// CORS is needed (the widget is embedded from another origin).
    cross_origin: bool,
    report: Report,
}

impl Checker<'_> {
    fn url(&self, rel: &str) -> String {
        format!("{}{rel}", self.site.path)
    }

    fn fetch(&mut self, what: &str, rel: &str, extra: &[&str], cap: usize) -> Option<Reply> {
        match get(self.site, &self.url(rel), extra, cap, self.timeout) {
            Ok(r) => Some(r),
            Err(e) => {
                self.report.fail(
                    what,
                    &e,
                    "the host must answer this URL (is the folder uploaded whole, at this path?)",
                );
                None
            }
        }
    }

    /// `Access-Control-Allow-Origin` on `reply` (for `rel`).
    fn cors(&mut self, rel: &str, reply: &Reply) {
        let what = format!("CORS {rel}");
        match reply.header("access-control-allow-origin") {
            Some(v) if v == "*" || v == ORIGIN => self
                .report
                .ok(&what, &format!("Access-Control-Allow-Origin: {v}")),
            Some(v) => {
                let detail =
                    format!("Access-Control-Allow-Origin: {v} (not this page's origin, {ORIGIN})");
                let fix =
                    "send Access-Control-Allow-Origin: * (or echo each embedding page's origin)";
                if self.cross_origin {
                    self.report.fail(&what, &detail, fix);
                } else {
                    self.report.warn(&what, &detail, fix);
                }
            }
            None => {
                let detail = "no Access-Control-Allow-Origin header: a page on another origin cannot read it (the widget embedded elsewhere stays free text)";
                let fix = "send Access-Control-Allow-Origin: * for the whole folder (HOSTING.md: nginx add_header, Apache Header set, _headers)";
                if self.cross_origin {
                    self.report.fail(&what, detail, fix);
                } else {
                    self.report
                        .note(&what, &format!("{detail}; not needed with --same-origin"));
                }
            }
        }
    }

    /// HOSTING.md's cache rule for `rel`: immutable when its name is content-hashed, else revalidated.
    fn cache(&mut self, rel: &str, reply: &Reply, hashed: bool) {
        let what = format!("cache {rel}");
        let cc = reply
            .header("cache-control")
            .unwrap_or("")
            .to_ascii_lowercase();
        if hashed {
            if cc.contains("immutable") || max_age(&cc).is_some_and(|a| a >= 86_400) {
                self.report.ok(&what, &format!("Cache-Control: {cc}"));
            } else {
                self.report.warn(
                    &what,
                    &format!("Cache-Control: {} (a content-hashed file, asked again on every visit)", if cc.is_empty() { "none" } else { &cc }),
                    "Cache-Control: public, max-age=31536000, immutable for files named <name>.<16 hex>.<ext>",
                );
            }
        } else if cc.contains("no-cache")
            || cc.contains("no-store")
            || cc.contains("must-revalidate")
            || max_age(&cc).is_some_and(|a| a <= 600)
        {
            self.report.ok(&what, &format!("Cache-Control: {cc}"));
        } else {
            self.report.warn(
                &what,
                &format!(
                    "Cache-Control: {} (browsers may keep an old copy after a new release)",
                    if cc.is_empty() { "none" } else { &cc }
                ),
                "Cache-Control: no-cache for files without a content hash in their name",
            );
        }
    }

    fn run(&mut self) {
        // The page; a host that does not answer it is not asked again.
        let page = match get(self.site, &self.url(""), &[], SCRIPT_CAP, self.timeout) {
            Ok(r) => Some(r),
            Err(e) if e.contains("cannot connect") || e.contains("cannot resolve") => {
                return self
                    .report
                    .fail("page", &e, "check the URL: the host does not answer");
            }
            Err(e) => {
                self.report.fail(
                    "page",
                    &e,
                    "the host must answer this URL (is the folder uploaded whole, at this path?)",
                );
                None
            }
        };
        if let Some(r) = page {
            // A host that sends every http:// URL to https:// (GitHub Pages,
            // Netlify): nothing more can be read here, and the reason is said.
            if (300..400).contains(&r.status)
                && r.header("location")
                    .is_some_and(|l| l.starts_with("https://"))
            {
                let to = r.header("location").unwrap_or("");
                return self.report.fail(
                    "page",
                    &format!("{} answered {} to {to}: the site is served over https only", self.url(""), r.status),
                    "this command speaks plain HTTP only (no TLS): check the origin server behind the CDN over http://, \
                     a copy of the folder served by `registry serve --root`, or the https URLs with HOSTING.md's curl lines",
                );
            }
            if r.status == 200 && mime(&r) == "text/html" {
                self.report
                    .ok("page", &format!("{} 200, text/html", self.url("")));
            } else {
                self.report.fail(
                    "page",
                    &format!("{} answered {} ({})", self.url(""), r.status, mime(&r)),
                    "serve the folder's index.html for its path, as text/html",
                );
            }
        }
        // The manifest: every data file's name.
        let mut manifest = None;
        if let Some(r) = self.fetch("manifest", "data/manifest.json", &[], MANIFEST_CAP) {
            if r.status != 200 {
                self.report.fail(
                    "manifest",
                    &format!("data/manifest.json answered HTTP {}", r.status),
                    "upload the data folder (data/manifest.json) with the site",
                );
            } else if r.truncated {
                self.report.fail("manifest", &format!("data/manifest.json is larger than {} MiB (or says so): not a manifest this check reads", MANIFEST_CAP >> 20), "serve the manifest written by `registry site`");
            } else {
                match decoded(&r, MANIFEST_CAP).and_then(|b| {
                    serde_json::from_slice::<serde_json::Value>(&b)
                        .map_err(|e| format!("not JSON: {e}"))
                }) {
                    Ok(m) if m.get("build_id").is_some() => {
                        self.report.ok(
                            "manifest",
                            &format!(
                                "data/manifest.json 200, release {}",
                                m["release"].as_str().unwrap_or("?")
                            ),
                        );
                        manifest = Some(m);
                    }
                    Ok(_) => self.report.fail(
                        "manifest",
                        "data/manifest.json has no build_id: not a registry data folder",
                        "upload the folder written by `registry site`",
                    ),
                    Err(e) => self.report.fail(
                        "manifest",
                        &format!("data/manifest.json: {e}"),
                        "serve the file as written (application/json)",
                    ),
                }
                self.cors("data/manifest.json", &r);
                self.cache("data/manifest.json", &r, false);
            }
        }
        // The widget's loader: a module script (its type is enforced) read cross-origin.
        let mut widget_wasm = None;
        if let Some(r) = self.fetch("widget loader", "registry-picker.js", &[], SCRIPT_CAP) {
            if r.status != 200 {
                self.report.note(
                    "widget loader",
                    &format!(
                        "registry-picker.js answered HTTP {}: no form widget here",
                        r.status
                    ),
                );
            } else {
                let m = mime(&r);
                if m.contains("javascript") || m == "text/ecmascript" {
                    self.report
                        .ok("widget loader", &format!("registry-picker.js 200, {m}"));
                } else {
                    self.report.fail("widget loader", &format!("registry-picker.js is served as '{m}': browsers refuse a module script of that type"), "serve .js as text/javascript");
                }
                self.cors("registry-picker.js", &r);
                self.cache("registry-picker.js", &r, false);
                if let Ok(src) = decoded(&r, SCRIPT_CAP) {
                    widget_wasm = find_hashed(
                        &String::from_utf8_lossy(&src),
                        "ui/registry_widget_bg.",
                        ".wasm",
                    );
                }
            }
        }
        // The wasm: its type (instantiateStreaming needs it), CORS and cache.
        let mut wasm = vec![("pkg/registry_wasm_bg.wasm".to_string(), false)];
        if let Some(w) = widget_wasm {
            wasm.push((w, true));
        }
        for (rel, hashed) in wasm {
            let what = format!("wasm {rel}");
            let Some(r) = self.fetch(&what, &rel, &[], 0) else {
                continue;
            };
            if r.status != 200 {
                self.report.fail(
                    &what,
                    &format!("HTTP {}", r.status),
                    "upload the folder whole",
                );
                continue;
            }
            if mime(&r) == "application/wasm" {
                self.report.ok(&what, "Content-Type: application/wasm");
            } else {
                self.report.fail(&what, &format!("Content-Type: '{}'", mime(&r)), "serve .wasm as application/wasm (nginx: types { application/wasm wasm; }, Apache: AddType application/wasm .wasm)");
            }
            if hashed {
                self.cors(&rel, &r);
            }
            self.cache(&rel, &r, hashed);
        }
        // A range of a pack: how the browser reads the pieces.
        let pack = manifest.as_ref().and_then(|m| {
            let pieces = m.get("pieces")?;
            let name = pieces.get("packed")?.get("packs")?.get(0)?.as_str()?;
            Some(format!(
                "data/{}{name}",
                pieces
                    .get("path")
                    .and_then(|p| p.as_str())
                    .unwrap_or("packs/")
            ))
        });
        match pack {
            None if manifest.is_some() => self
                .report
                .note("range", "the data has no packs: no range is read"),
            None => {}
            Some(rel) => {
                let what = format!("range {rel}");
                let range = format!("Range: bytes=0-{}", RANGE_LEN - 1);
                if let Some(r) = self.fetch(&what, &rel, &[&range], 64 * 1024) {
                    let cr = r.header("content-range").unwrap_or("");
                    if r.status == 206
                        && cr.starts_with(&format!("bytes 0-{}/", RANGE_LEN - 1))
                        && r.body.len() == RANGE_LEN
                        && r.header("content-encoding").is_none()
                    {
                        self.report.ok(&what, &format!("206, Content-Range: {cr}"));
                    } else if r.status == 206 && r.header("content-encoding").is_some() {
                        self.report.fail(&what, &format!("206 but compressed on the fly (Content-Encoding: {})", r.header("content-encoding").unwrap_or("")), "do not compress .pack files (nginx: keep them out of gzip_types; they are compressed already)");
                    } else if r.status == 206 {
                        self.report.fail(
                            &what,
                            &format!(
                                "206 with Content-Range '{cr}' and {} bytes for {RANGE_LEN} asked",
                                r.body.len()
                            ),
                            "answer a single range exactly (bytes=a-b)",
                        );
                    } else if r.status == 200 {
                        self.report.fail(&what, "200 with the whole file to a Range request: the page falls back to the whole registry (a slow first visit)", "a host that answers Range with 206 Partial Content (every CDN, bucket, nginx, Apache does; python3 -m http.server does not)");
                    } else {
                        self.report.fail(
                            &what,
                            &format!("HTTP {} to a Range request", r.status),
                            "upload the data folder whole; answer Range with 206",
                        );
                    }
                    self.cors(&rel, &r);
                    self.cache(&rel, &r, true);
                }
            }
        }
        self.report.note(
            "Access-Control-Expose-Headers",
            "not needed: the page reads no response header of another origin (a range is checked by its status and its bytes' hash)",
        );
    }
}

/// The first `<prefix><16 hex><suffix>` in `text`.
fn find_hashed(text: &str, prefix: &str, suffix: &str) -> Option<String> {
    text.match_indices(prefix).find_map(|(i, _)| {
        let rest = &text[i + prefix.len()..];
        let hex = rest.get(..16)?;
        (hex.bytes().all(|b| b.is_ascii_hexdigit()) && rest[16..].starts_with(suffix))
            .then(|| format!("{prefix}{hex}{suffix}"))
    })
}

/// Check a deployed site (written by `site`) from the outside.
///
/// Its page, data/manifest.json, a Range read of a pack (206), CORS
/// (Access-Control-Allow-Origin, as the widget embedded on another origin
/// needs), the wasm's and scripts' content types and HOSTING.md's cache
/// headers; each check with its fix. Fails when a needed check fails.
/// Plain http:// only (no TLS).
#[derive(clap::Args)]
pub struct CheckHostArgs {
    /// The site's address, e.g. http://host/path/
    #[arg(value_name = "url")]
    url: String,
    /// The widget is not embedded elsewhere: CORS is not needed
    #[arg(long)]
    same_origin: bool,
    /// Each request's time at most, in seconds
    #[arg(long, value_name = "s", default_value = "10", value_parser = |v: &str| crate::cli::seconds_up_to(v, 600.0))]
    timeout: Duration,
}

pub fn cmd_check_host(a: CheckHostArgs) -> Result<(), String> {
    let timeout = a.timeout;
    let site = parse_url(&a.url)?;
    println!(
        "checking http://{}:{}{} (as a page on {ORIGIN} would read it)",
        site.host, site.port, site.path
    );
    let mut checker = Checker {
        site: &site,
        timeout,
        cross_origin: !a.same_origin,
        report: Report {
            failed: Vec::new(),
            warned: 0,
        },
    };
    checker.run();
    let Report { failed, warned } = checker.report;
    if failed.is_empty() {
        println!(
            "all needed checks passed{}",
            if warned > 0 {
                format!(" ({warned} warnings)")
            } else {
                String::new()
            }
        );
        Ok(())
    } else {
        Err(format!(
            "{} needed check(s) failed: {}",
            failed.len(),
            failed.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_folder() {
        let s = parse_url("http://example.org:8080/some/path/index.html?q=x").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.path.as_str()),
            ("example.org", 8080, "/some/path/")
        );
        let s = parse_url("http://example.org").unwrap();
        assert_eq!((s.port, s.path.as_str()), (80, "/"));
        assert_eq!(parse_url("http://h/x").unwrap().path, "/x/");
        assert!(
            parse_url("https://h/")
                .unwrap_err()
                .contains("plain HTTP only")
        );
        assert!(parse_url("ftp://h/").is_err());
        assert!(parse_url("http://h:port/").is_err());
    }

    #[test]
    fn chunked_bodies_decode_as_far_as_they_came() {
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"),
            Some((b"abcde".to_vec(), true))
        );
        assert_eq!(
            dechunk(b"3\r\nabc\r\n2\r\nd"),
            Some((b"abcd".to_vec(), false))
        );
        assert_eq!(dechunk(b"zz\r\n"), None);
    }

    #[test]
    fn hashed_names_are_found() {
        let src = r#"const UI_WASM="ui/registry_widget_bg.0123456789abcdef.wasm";"#;
        assert_eq!(
            find_hashed(src, "ui/registry_widget_bg.", ".wasm").as_deref(),
            Some("ui/registry_widget_bg.0123456789abcdef.wasm")
        );
        assert_eq!(
            find_hashed(
                "ui/registry_widget_bg.__WIDGET_WASM__",
                "ui/registry_widget_bg.",
                ".wasm"
            ),
            None
        );
    }
}
