//! One request → one response. The API is `Engine::handle` (nothing is
//! re-routed here, so the JSON is the router's, byte for byte); anything
//! else is a file under `--root`. Bodies are never read: the API is GET-only,
//! and a request that declares one is refused before a byte of it is taken.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Body as _, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use registry_core::id::percent_decode;
use registry_core::search::Engine;

use super::encoding::{self, Effort, Encoding};
use super::files::{Answer, Ask, Files, Part};
use super::pool::{Pool, PoolError};
use super::range;

pub type Body = Full<Bytes>;

/// What every request shares.
pub struct App {
    pub engine: Arc<Engine>,
    pub files: Option<Arc<Files>>,
    /// API answers (CPU: queries, facets, affiliation matching).
    pub api: Pool,
    /// Static files (disk reads, compression on first use): separate, so the
    /// app's files load while the API is saturated.
    pub file_pool: Pool,
}

/// Whether a path is the API's rather than a file's.
pub fn is_api(path: &str) -> bool {
    ["/v1", "/v2", "/organizations", "/heartbeat"]
        .iter()
        .any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
}

/// JSON readable by any origin: every API answer and every error.
fn json(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    r
}

pub(super) fn json_error(status: StatusCode, message: &str) -> Response<Body> {
    json(
        status,
        serde_json::json!({ "errors": [message] }).to_string(),
    )
}

fn pool_error(e: PoolError) -> Response<Body> {
    match e {
        PoolError::Busy => {
            let mut r = json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is busy; retry in a moment",
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            r
        }
        PoolError::Failed => json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error while answering this request",
        ),
    }
}

/// Answers one request.
pub async fn respond(app: Arc<App>, req: Request<Incoming>) -> Response<Body> {
    // No Content-Length (or 0) and no Transfer-Encoding: an empty body.
    // hyper has parsed the length as a number and allocated nothing for it.
    let declares_body = !req.body().is_end_stream();
    let mut response = answer(&app, &req, declares_body).await;
    if declares_body {
        // The body is never read, so this connection cannot carry another
        // request: say so rather than leave the client guessing.
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

async fn answer(app: &App, req: &Request<Incoming>, declares_body: bool) -> Response<Body> {
    let method = req.method();
    if method == Method::OPTIONS {
        // A CORS preflight: anything this server answers may be read by any
        // origin (it is public data), with GET or HEAD.
        let mut r = Response::new(Full::new(Bytes::new()));
        *r.status_mut() = StatusCode::NO_CONTENT;
        let h = r.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        if let Some(asked) = req.headers().get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
        }
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
        h.insert(
            header::ALLOW,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        return r;
    }
    if method != Method::GET && method != Method::HEAD {
        let mut r = json_error(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("method {method} is not allowed; use GET"),
        );
        r.headers_mut().insert(
            header::ALLOW,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        return r;
    }
    if declares_body {
        return json_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "a request body is not accepted: the API is GET requests with the query in the URL",
        );
    }
    let accept = encoding::negotiate(
        req.headers()
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let path = req.uri().path().to_string();
    match app.files.clone() {
        Some(files) if !is_api(&path) => static_file(app, files, req, path, accept).await,
        _ => {
            let target = req
                .uri()
                .path_and_query()
                .map_or("/", |p| p.as_str())
                .to_string();
            api(app, target, accept).await
        }
    }
}

async fn api(app: &App, target: String, accept: Encoding) -> Response<Body> {
    let engine = app.engine.clone();
    let job = move || {
        let r = engine.handle(&target);
        let json = r.json.into_bytes();
        match encoding::compress(&json, accept, Effort::PerRequest) {
            Some(c) => (r.status, c, accept),
            None => (r.status, json, Encoding::Identity),
        }
    };
    let (status, body, used) = match app.api.run(job).await {
        Ok(answer) => answer,
        Err(e) => return pool_error(e),
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = json(status, body);
    let h = r.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Some(coding) = used.header() {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    r
}

/// A request header's value as text, when sent exactly once.
fn single(req: &Request<Incoming>, name: header::HeaderName) -> Option<String> {
    let mut values = req.headers().get_all(name).iter();
    let first = values.next()?;
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok().map(str::to_string)
}

async fn static_file(
    app: &App,
    files: Arc<Files>,
    req: &Request<Incoming>,
    path: String,
    accept: Encoding,
) -> Response<Body> {
    let ask = Ask {
        accept,
        if_none_match: req
            .headers()
            .get(header::IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        // Two Range fields are not one range: the whole file.
        range: single(req, header::RANGE),
        if_range: single(req, header::IF_RANGE),
        // HEAD gets GET's headers, 206 and Content-Range included (as nginx
        // and Apache answer it), without a body.
        head: req.method() == Method::HEAD,
    };
    let url_path = path.clone();
    let job = move || files.get(&url_path, &ask);
    let answer = match app.file_pool.run(job).await {
        Ok(a) => a,
        Err(e) => return pool_error(e),
    };
    match answer {
        Answer::Found {
            body,
            length,
            encoding,
            mime,
            cache_control,
            etag,
            modified,
            varies,
            part,
        } => {
            let mut r = Response::new(Full::new(body));
            let h = r.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
            if let Ok(v) = HeaderValue::from_str(&etag) {
                h.insert(header::ETAG, v);
            }
            if let Some(date) = modified.and_then(range::http_date)
                && let Ok(v) = HeaderValue::from_str(&date)
            {
                h.insert(header::LAST_MODIFIED, v);
            }
            h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            cors_and_sniffing(h);
            if varies {
                h.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
            }
            if let Some(coding) = encoding.header() {
                h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
            }
            if let Some(Part { start, end, total }) = part {
                if let Ok(v) = HeaderValue::from_str(&format!("bytes {start}-{end}/{total}")) {
                    h.insert(header::CONTENT_RANGE, v);
                }
                *r.status_mut() = StatusCode::PARTIAL_CONTENT;
            }
            r
        }
        Answer::NotModified {
            cache_control,
            etag,
        } => {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            let h = r.headers_mut();
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
            if let Ok(v) = HeaderValue::from_str(&etag) {
                h.insert(header::ETAG, v);
            }
            h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            cors_and_sniffing(h);
            r
        }
        Answer::Unsatisfiable { total } => {
            let mut r = json_error(
                StatusCode::RANGE_NOT_SATISFIABLE,
                &format!("range not satisfiable: the file has {total} bytes"),
            );
            let h = r.headers_mut();
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{total}")) {
                h.insert(header::CONTENT_RANGE, v);
            }
            h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            cors_and_sniffing(h);
            r
        }
        Answer::NotFound => {
            // Also readable from other origins: a missing typeahead piece is
            // how the widget learns "no record under this prefix".
            let mut r = json_error(
                StatusCode::NOT_FOUND,
                &format!("no file '{}'", percent_decode(&path)),
            );
            r.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
    }
}

/// Static files may be used by pages of any origin (the widget hosted for
/// other sites' forms: issue 23 item 8), and are never sniffed into another
/// type than the one sent.
fn cors_and_sniffing(h: &mut hyper::HeaderMap) {
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}
