//! Request heads hyper cannot take (too large, too many headers, not
//! HTTP/1.1): answered like every other error, with a JSON
//! `{"errors": [...]}` body, instead of hyper's bodiless 414/431/400.
//!
//! hyper writes those answers itself, with no way to give them a body, so
//! it never sees such a head: [`HeadGate`] sits between the socket and
//! hyper and hands hyper complete heads only (each ends at its first empty
//! line), each checked first with hyper's own parser (httparse). A head
//! that grows past [`HEAD_BYTES`] without ending is not read further. In
//! place of a refused head hyper gets a small stand-in request, which
//! [`refused`] recognises and answers (414 when even the request line has
//! not ended, 431 for the rest or for more than [`MAX_HEADERS`] headers,
//! 400 when it does not parse) with `Connection: close`, after the answers
//! to any requests pipelined before it. (What hyper checks beyond the
//! parser, e.g. a Content-Length that is not a number, still gets its
//! bodiless 400.) When hyper then closes, the gate reads and
//! discards what the client is still sending, for at most [`LINGER`] and
//! [`LINGER_BYTES`], so that closing with unread bytes does not reset the
//! connection before the client has read the answer.
//!
//! Bodies are never read (respond.rs answers 413 and closes), so the bytes
//! after a head that declares one only wait here until the connection
//! closes.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

use super::respond::{Body, json_error};

/// The largest request head (request line and headers) taken. A query is
/// at most 1,000 characters (≤ 9 KB percent-encoded), so this leaves room
/// for long affiliation strings and cookies while a head always fits in
/// hyper's buffer (server.rs `BUF_BYTES`), so hyper never refuses one itself.
pub const HEAD_BYTES: usize = 32 * 1024;

/// How long, and how much of, what a refused client still sends is read
/// and dropped before the connection is closed.
pub const LINGER: Duration = Duration::from_secs(2);
pub const LINGER_BYTES: u64 = 1 << 20;

/// The stand-in request's path; only answered as a refusal on a connection
/// whose gate has refused a head (see [`refused`]).
const STAND_IN_PATH: &str = "/.registry-refused-head";

/// Per connection: why its gate refused a head, once it has.
pub type Refusal = Arc<OnceLock<(StatusCode, String)>>;

/// Headers a request may have (hyper refuses more with a bodiless 431).
pub const MAX_HEADERS: usize = 64;

/// The answer to the stand-in request of a refused head, if `req` is it.
pub fn refused(refusal: &Refusal, req: &Request<Incoming>) -> Option<Response<Body>> {
    let (status, message) = refusal.get()?;
    if req.uri().path() != STAND_IN_PATH {
        return None;
    }
    let mut r = json_error(*status, message);
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    Some(r)
}

/// Why a head is too large: the request line alone, or all of it.
fn too_large(first_line_done: bool) -> (StatusCode, String) {
    if first_line_done {
        (
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the request's headers are larger than {HEAD_BYTES} bytes in all"),
        )
    } else {
        (
            StatusCode::URI_TOO_LONG,
            format!(
                "the request line is longer than {HEAD_BYTES} bytes; a query is at most {} \
                 characters",
                registry_core::search::MAX_QUERY_CHARS
            ),
        )
    }
}

/// Why hyper would refuse a complete head with a bodiless answer, checked
/// with the parser hyper uses and its settings (server.rs). An HTTP/2
/// preface is left to hyper, which tells it apart.
fn unparsable(head: &[u8]) -> Option<(StatusCode, String)> {
    if head.iter().all(|b| matches!(b, b'\r' | b'\n')) || head.starts_with(b"PRI * HTTP/2.0") {
        return None;
    }
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    match httparse::Request::new(&mut headers).parse(head) {
        Ok(_) => None,
        Err(httparse::Error::TooManyHeaders) => Some((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the request has more than {MAX_HEADERS} headers"),
        )),
        Err(e) => Some((
            StatusCode::BAD_REQUEST,
            format!("the request's head is not HTTP/1.1: {e}"),
        )),
    }
}

enum State {
    /// Passing complete heads on.
    Open,
    /// The client closed its side: the rest goes to hyper as it is.
    Ended,
    /// A head was too large: hyper gets the stand-in, then nothing more.
    Refused { stand_in: Vec<u8>, sent: usize },
}

/// The stream hyper reads from (see the module doc).
pub struct HeadGate<T> {
    inner: T,
    refusal: Refusal,
    /// Read from the client, not yet given to hyper.
    held: Vec<u8>,
    /// `held[..ready]` ends with a complete head.
    ready: usize,
    /// Whether the line being read is empty so far (`\r` aside).
    line_empty: bool,
    /// Whether the head being read has ended its first line.
    first_line_done: bool,
    /// Where in `held` the head being read starts.
    head_start: usize,
    /// A complete head hyper would refuse: nothing from it on is passed.
    bad: Option<(StatusCode, String)>,
    state: State,
    linger: Option<(Pin<Box<Sleep>>, u64)>,
}

impl<T> HeadGate<T> {
    pub fn new(inner: T, refusal: Refusal) -> Self {
        HeadGate {
            inner,
            refusal,
            held: Vec::new(),
            ready: 0,
            line_empty: true,
            first_line_done: false,
            head_start: 0,
            bad: None,
            state: State::Open,
            linger: None,
        }
    }

    /// Takes bytes read from the client, noting where heads end; stops
    /// passing heads at one hyper would refuse.
    fn take(&mut self, bytes: &[u8]) {
        let base = self.held.len();
        self.held.extend_from_slice(bytes);
        for (i, &b) in bytes.iter().enumerate() {
            if self.bad.is_some() {
                return;
            }
            match b {
                b'\n' if self.line_empty => {
                    let end = base + i + 1;
                    self.bad = unparsable(&self.held[self.head_start..end]);
                    if self.bad.is_none() {
                        self.ready = end;
                        self.head_start = end;
                    }
                    self.first_line_done = false;
                }
                b'\n' => {
                    self.line_empty = true;
                    self.first_line_done = true;
                }
                b'\r' => {}
                _ => self.line_empty = false,
            }
        }
    }

    /// Gives hyper up to `n` held bytes.
    fn give(&mut self, n: usize, buf: &mut ReadBuf<'_>) {
        let n = n.min(buf.remaining());
        buf.put_slice(&self.held[..n]);
        self.held.drain(..n);
        self.ready = self.ready.saturating_sub(n);
        self.head_start = self.head_start.saturating_sub(n);
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadGate<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                State::Refused { stand_in, sent } => {
                    if *sent == stand_in.len() {
                        // Nothing more: the answer closes the connection.
                        return Poll::Pending;
                    }
                    let n = (stand_in.len() - *sent).min(buf.remaining());
                    buf.put_slice(&stand_in[*sent..*sent + n]);
                    *sent += n;
                    return Poll::Ready(Ok(()));
                }
                State::Ended => {
                    let n = this.held.len();
                    this.give(n, buf);
                    return Poll::Ready(Ok(()));
                }
                State::Open => {}
            }
            if this.ready > 0 {
                let n = this.ready;
                this.give(n, buf);
                return Poll::Ready(Ok(()));
            }
            let refusal = if let Some(bad) = this.bad.take() {
                Some(bad)
            } else if this.held.len() > HEAD_BYTES {
                Some(too_large(this.first_line_done))
            } else {
                None
            };
            if let Some(why) = refusal {
                let _ = this.refusal.set(why);
                this.held = Vec::new();
                let stand_in = format!("GET {STAND_IN_PATH} HTTP/1.1\r\nHost: x\r\n\r\n");
                this.state = State::Refused {
                    stand_in: stand_in.into_bytes(),
                    sent: 0,
                };
                continue;
            }
            // At most one byte past the limit: enough to know it is passed.
            let mut chunk = [0u8; 16 * 1024];
            let room = (HEAD_BYTES + 1 - this.held.len()).min(chunk.len());
            let mut read = ReadBuf::new(&mut chunk[..room]);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => this.state = State::Ended,
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().to_vec();
                    this.take(&filled);
                }
            }
        }
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for HeadGate<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if !matches!(this.state, State::Refused { .. }) {
            return Pin::new(&mut this.inner).poll_shutdown(cx);
        }
        if this.linger.is_none() {
            // The answer is sent: end our side first, then drop what the
            // client still sends until it stops, or the linger runs out.
            std::task::ready!(Pin::new(&mut this.inner).poll_shutdown(cx))?;
            this.linger = Some((Box::pin(tokio::time::sleep(LINGER)), 0));
        }
        let Some((timer, dropped)) = &mut this.linger else {
            unreachable!()
        };
        let mut sink = [0u8; 16 * 1024];
        loop {
            if *dropped >= LINGER_BYTES || timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
            let mut read = ReadBuf::new(&mut sink);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) if read.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => *dropped += read.filled().len() as u64,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn gate(input: &[u8]) -> (HeadGate<tokio::io::DuplexStream>, Refusal) {
        let (mut client, server) = tokio::io::duplex(HEAD_BYTES * 4);
        client.write_all(input).await.unwrap();
        drop(client);
        let refusal = Refusal::default();
        (HeadGate::new(server, refusal.clone()), refusal)
    }

    async fn read_some(g: &mut HeadGate<tokio::io::DuplexStream>) -> Vec<u8> {
        let mut buf = vec![0u8; HEAD_BYTES * 4];
        let n = g.read(&mut buf).await.unwrap();
        buf.truncate(n);
        buf
    }

    #[test]
    fn complete_heads_pass_and_oversized_ones_are_replaced() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            // Two heads (one with bare \n) pass whole; the unended rest only
            // once the client has closed.
            let (mut g, refusal) =
                gate(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\n\nGET /c").await;
            assert_eq!(
                read_some(&mut g).await,
                b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\n\n"
            );
            assert_eq!(read_some(&mut g).await, b"GET /c");
            assert!(refusal.get().is_none());
            // A request line that does not end: 414; headers: 431.
            let long_line = format!("GET /?q={} HTTP/1.1\r\n\r\n", "x".repeat(HEAD_BYTES));
            let long_headers = format!(
                "GET / HTTP/1.1\r\n{}\r\n",
                "X-A: 0123456789\r\n".repeat(HEAD_BYTES / 10)
            );
            let many_headers = format!(
                "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n{}\r\n",
                "X-A: 1\r\n".repeat(MAX_HEADERS + 1)
            );
            let (mut g, refusal) = gate(many_headers.as_bytes()).await;
            assert_eq!(read_some(&mut g).await, b"GET /a HTTP/1.1\r\n\r\n");
            assert!(refusal.get().is_none());
            let got = read_some(&mut g).await;
            assert!(got.starts_with(b"GET /.registry-refused-head "), "{got:?}");
            assert_eq!(refusal.get().unwrap().0.as_u16(), 431);
            let (mut g, refusal) = gate(b"GET / HTTP/1.1\r\nbad header\r\n\r\n").await;
            read_some(&mut g).await;
            assert_eq!(refusal.get().unwrap().0.as_u16(), 400);
            for (input, status) in [(long_line, 414), (long_headers, 431)] {
                let (mut g, refusal) = gate(input.as_bytes()).await;
                let got = read_some(&mut g).await;
                assert!(got.starts_with(b"GET /.registry-refused-head "), "{got:?}");
                assert_eq!(refusal.get().unwrap().0.as_u16(), status);
                assert!(g.held.is_empty());
            }
        });
    }
}
