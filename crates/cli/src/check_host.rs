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
use std::ops::ControlFlow;
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
    let mut stream = connect(site, &what, timeout)?;
    stream
        .set_write_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(request(site, path, extra).as_bytes())
        .map_err(|e| format!("{what}: cannot send the request: {e}"))?;
    let mut answer = Answer {
        stream,
        deadline,
        timeout,
        what,
    };
    let (status, headers, body) = answer.read_head()?;
    let mut reply = Reply {
        status,
        headers,
        body,
        truncated: false,
    };
    let length = reply
        .header("content-length")
        .and_then(|v| v.parse::<u64>().ok());
    let chunked = reply
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    match length.filter(|_| !chunked) {
        Some(len) => answer.read_sized_body(&mut reply, len, cap)?,
        None => answer.read_open_body(&mut reply, chunked, cap)?,
    }
    Ok(reply)
}

/// A connection to the first of the host's addresses that accepts one
/// within `timeout` (a name may resolve to an address that does not answer).
fn connect(site: &Site, what: &str, timeout: Duration) -> Result<TcpStream, String> {
    let addrs: Vec<_> = (site.host.trim_matches(['[', ']']), site.port)
        .to_socket_addrs()
        .map_err(|e| format!("{what}: cannot resolve {}: {e}", site.host))?
        .collect();
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("{what}: cannot connect: {last}"))
}

/// The request's head: a browser's GET from a page on [`ORIGIN`], which
/// takes gzip and br, and the connection closed after the answer.
fn request(site: &Site, path: &str, extra: &[&str]) -> String {
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
    req
}

/// The answer being read: every read ends by one deadline for the whole
/// request, so a host that trickles bytes cannot hold the check.
struct Answer {
    stream: TcpStream,
    deadline: Instant,
    timeout: Duration,
    /// The URL, for the errors.
    what: String,
}

impl Answer {
    /// Reads into `buf` once, within the deadline; 0 at the end of the stream.
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        let what = &self.what;
        let late = || {
            format!(
                "{what}: no complete answer within {} s",
                self.timeout.as_secs()
            )
        };
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(late());
        }
        self.stream
            .set_read_timeout(Some(left))
            .map_err(|e| e.to_string())?;
        self.stream.read(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => late(),
            _ => format!("{what}: {e}"),
        })
    }

    /// The status, the headers and the body's bytes read with the head:
    /// reads until the blank line (at most HEAD_CAP) and parses the head.
    #[allow(clippy::type_complexity)]
    fn read_head(&mut self) -> Result<(u16, Vec<(String, String)>, Vec<u8>), String> {
        let mut data = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        let head_end = loop {
            if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            if data.len() > HEAD_CAP {
                return Err(format!(
                    "{}: the answer's head is larger than {} KiB",
                    self.what,
                    HEAD_CAP / 1024
                ));
            }
            let n = self.read_some(&mut chunk)?;
            if n == 0 {
                return Err(format!(
                    "{}: the connection closed before a complete answer",
                    self.what
                ));
            }
            data.extend_from_slice(&chunk[..n]);
        };
        let mut raw_headers = [httparse::EMPTY_HEADER; 96];
        let mut parsed = httparse::Response::new(&mut raw_headers);
        match parsed.parse(&data[..head_end]) {
            Ok(httparse::Status::Complete(_)) => {}
            _ => return Err(format!("{}: not an HTTP/1.x answer", self.what)),
        }
        let headers = parsed
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_string(),
                    String::from_utf8_lossy(h.value).trim().to_string(),
                )
            })
            .collect();
        Ok((parsed.code.unwrap_or(0), headers, data[head_end..].to_vec()))
    }

    /// A body of a Content-Length: read whole, or not at all when it is
    /// announced larger than `cap` (the reply is then marked truncated).
    fn read_sized_body(&mut self, reply: &mut Reply, len: u64, cap: usize) -> Result<(), String> {
        if len > cap as u64 {
            reply.truncated = true;
            reply.body.truncate(cap);
            return Ok(());
        }
        let mut chunk = [0u8; 16 * 1024];
        while (reply.body.len() as u64) < len {
            let n = self.read_some(&mut chunk)?;
            if n == 0 {
                return Err(format!(
                    "{}: the connection closed after {} of {len} bytes",
                    self.what,
                    reply.body.len()
                ));
            }
            reply.body.extend_from_slice(&chunk[..n]);
        }
        reply.body.truncate(len as usize);
        Ok(())
    }

    /// A chunked body or one to the end of the stream: the raw bytes up to
    /// the cap (and the chunk framing's few bytes more), then decoded; more
    /// than `cap` marks the reply truncated.
    fn read_open_body(
        &mut self,
        reply: &mut Reply,
        chunked: bool,
        cap: usize,
    ) -> Result<(), String> {
        let limit = cap.saturating_add(cap / 8 + 1024);
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if reply.body.len() > limit {
                reply.truncated = true;
                break;
            }
            if chunked && dechunk(&reply.body).is_some_and(|(_, done)| done) {
                break;
            }
            let n = self.read_some(&mut chunk)?;
            if n == 0 {
                break;
            }
            reply.body.extend_from_slice(&chunk[..n]);
        }
        if chunked {
            let (body, _) = dechunk(&reply.body)
                .ok_or_else(|| format!("{}: a chunked body that does not parse", self.what))?;
            reply.body = body;
        }
        if reply.body.len() > cap {
            reply.truncated = true;
            reply.body.truncate(cap);
        }
        Ok(())
    }
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
        if self.check_page().is_break() {
            return;
        }
        let manifest = self.check_manifest();
        let widget_wasm = self.check_widget_loader();
        self.check_wasm(widget_wasm);
        self.check_range(manifest.as_ref());
        self.report.note(
            "Access-Control-Expose-Headers",
            "not needed: the page reads no response header of another origin (a range is checked by its status and its bytes' hash)",
        );
    }

    /// The page: 200 as text/html. A host that does not answer it, or that
    /// sends it to https:// (which this check cannot read), is not asked
    /// again: every other check would fail for the same reason.
    fn check_page(&mut self) -> ControlFlow<()> {
        let r = match get(self.site, &self.url(""), &[], SCRIPT_CAP, self.timeout) {
            Ok(r) => r,
            Err(e) if e.contains("cannot connect") || e.contains("cannot resolve") => {
                self.report
                    .fail("page", &e, "check the URL: the host does not answer");
                return ControlFlow::Break(());
            }
            Err(e) => {
                self.report.fail(
                    "page",
                    &e,
                    "the host must answer this URL (is the folder uploaded whole, at this path?)",
                );
                return ControlFlow::Continue(());
            }
        };
        // A host that sends every http:// URL to https:// (GitHub Pages,
        // Netlify): nothing more can be read here, and the reason is said.
        if (300..400).contains(&r.status)
            && r.header("location")
                .is_some_and(|l| l.starts_with("https://"))
        {
            let to = r.header("location").unwrap_or("");
            self.report.fail(
                "page",
                &format!("{} answered {} to {to}: the site is served over https only", self.url(""), r.status),
                "this command speaks plain HTTP only (no TLS): check the origin server behind the CDN over http://, \
                 a copy of the folder served by `registry serve --root`, or the https URLs with HOSTING.md's curl lines",
            );
            return ControlFlow::Break(());
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
        ControlFlow::Continue(())
    }

    /// The manifest (every data file's name), with its CORS and cache
    /// headers; returned when it is a registry manifest, for the range
    /// check to name a pack.
    fn check_manifest(&mut self) -> Option<serde_json::Value> {
        let r = self.fetch("manifest", "data/manifest.json", &[], MANIFEST_CAP)?;
        if r.status != 200 {
            self.report.fail(
                "manifest",
                &format!("data/manifest.json answered HTTP {}", r.status),
                "upload the data folder (data/manifest.json) with the site",
            );
            return None;
        }
        if r.truncated {
            self.report.fail("manifest", &format!("data/manifest.json is larger than {} MiB (or says so): not a manifest this check reads", MANIFEST_CAP >> 20), "serve the manifest written by `registry site`");
            return None;
        }
        let manifest = self.read_manifest(&r);
        self.cors("data/manifest.json", &r);
        self.cache("data/manifest.json", &r, false);
        manifest
    }

    /// The manifest's JSON when it parses and has a build_id (a registry
    /// data folder's); otherwise the failure and its fix are reported.
    fn read_manifest(&mut self, r: &Reply) -> Option<serde_json::Value> {
        match decoded(r, MANIFEST_CAP).and_then(|b| {
            serde_json::from_slice::<serde_json::Value>(&b).map_err(|e| format!("not JSON: {e}"))
        }) {
            Ok(m) if m.get("build_id").is_some() => {
                self.report.ok(
                    "manifest",
                    &format!(
                        "data/manifest.json 200, release {}",
                        m["release"].as_str().unwrap_or("?")
                    ),
                );
                Some(m)
            }
            Ok(_) => {
                self.report.fail(
                    "manifest",
                    "data/manifest.json has no build_id: not a registry data folder",
                    "upload the folder written by `registry site`",
                );
                None
            }
            Err(e) => {
                self.report.fail(
                    "manifest",
                    &format!("data/manifest.json: {e}"),
                    "serve the file as written (application/json)",
                );
                None
            }
        }
    }

    /// The widget's loader: a module script (its type is enforced) read
    /// cross-origin. Returns the widget's content-hashed wasm it names, for
    /// the wasm check; a site without the loader has no form widget (a
    /// note, not a failure).
    fn check_widget_loader(&mut self) -> Option<String> {
        let r = self.fetch("widget loader", "registry-picker.js", &[], SCRIPT_CAP)?;
        if r.status != 200 {
            self.report.note(
                "widget loader",
                &format!(
                    "registry-picker.js answered HTTP {}: no form widget here",
                    r.status
                ),
            );
            return None;
        }
        let m = mime(&r);
        if m.contains("javascript") || m == "text/ecmascript" {
            self.report
                .ok("widget loader", &format!("registry-picker.js 200, {m}"));
        } else {
            self.report.fail("widget loader", &format!("registry-picker.js is served as '{m}': browsers refuse a module script of that type"), "serve .js as text/javascript");
        }
        self.cors("registry-picker.js", &r);
        self.cache("registry-picker.js", &r, false);
        let src = decoded(&r, SCRIPT_CAP).ok()?;
        find_hashed(
            &String::from_utf8_lossy(&src),
            "ui/registry_widget_bg.",
            ".wasm",
        )
    }

    /// The wasm files: their type (instantiateStreaming needs it), CORS
    /// (the widget's, which another origin loads) and cache.
    fn check_wasm(&mut self, widget_wasm: Option<String>) {
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
    }

    /// A range of the manifest's first pack: how the browser reads the
    /// pieces. Data without packs has nothing to read (a note).
    fn check_range(&mut self, manifest: Option<&serde_json::Value>) {
        match manifest.and_then(first_pack) {
            None if manifest.is_some() => self
                .report
                .note("range", "the data has no packs: no range is read"),
            None => {}
            Some(rel) => {
                let what = format!("range {rel}");
                let range = format!("Range: bytes=0-{}", RANGE_LEN - 1);
                if let Some(r) = self.fetch(&what, &rel, &[&range], 64 * 1024) {
                    self.judge_range(&what, &r);
                    self.cors(&rel, &r);
                    self.cache(&rel, &r, true);
                }
            }
        }
    }

    /// The answer to `Range: bytes=0-(RANGE_LEN-1)`: 206 with exactly those
    /// bytes, not compressed on the fly (the page checks the bytes' hash).
    fn judge_range(&mut self, what: &str, r: &Reply) {
        let cr = r.header("content-range").unwrap_or("");
        if r.status == 206
            && cr.starts_with(&format!("bytes 0-{}/", RANGE_LEN - 1))
            && r.body.len() == RANGE_LEN
            && r.header("content-encoding").is_none()
        {
            self.report.ok(what, &format!("206, Content-Range: {cr}"));
        } else if r.status == 206 && r.header("content-encoding").is_some() {
            self.report.fail(what, &format!("206 but compressed on the fly (Content-Encoding: {})", r.header("content-encoding").unwrap_or("")), "do not compress .pack files (nginx: keep them out of gzip_types; they are compressed already)");
        } else if r.status == 206 {
            self.report.fail(
                what,
                &format!(
                    "206 with Content-Range '{cr}' and {} bytes for {RANGE_LEN} asked",
                    r.body.len()
                ),
                "answer a single range exactly (bytes=a-b)",
            );
        } else if r.status == 200 {
            self.report.fail(what, "200 with the whole file to a Range request: the page falls back to the whole registry (a slow first visit)", "a host that answers Range with 206 Partial Content (every CDN, bucket, nginx, Apache does; python3 -m http.server does not)");
        } else {
            self.report.fail(
                what,
                &format!("HTTP {} to a Range request", r.status),
                "upload the data folder whole; answer Range with 206",
            );
        }
    }
}

/// The site-relative path of the manifest's first pack, if it has packs.
fn first_pack(m: &serde_json::Value) -> Option<String> {
    let pieces = m.get("pieces")?;
    let name = pieces.get("packed")?.get("packs")?.get(0)?.as_str()?;
    Some(format!(
        "data/{}{name}",
        pieces
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or("packs/")
    ))
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
    #[arg(long, value_name = "s", default_value = "10", value_parser = |v: &str| crate::arg_values::seconds_up_to(v, 600.0))]
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
