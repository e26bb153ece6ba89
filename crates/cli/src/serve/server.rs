//! The HTTP server: hyper 1 (HTTP/1.1) on a tokio runtime.
//!
//! Why hyper rather than axum: there is nothing to route (the core's router
//! answers every API path and the rest is files), so axum's router, extractors
//! and tower layers would add code and compile time for nothing, while the
//! defences below are connection-level settings hyper exposes directly
//! (header-read timer, buffer caps, one request at a time per connection).
//! Why HTTP/1 only: browsers speak HTTP/2 only over TLS, which this
//! 127.0.0.1 server does not terminate; an HTTP/2 preface is answered with
//! hyper's 505 and the connection closed.
//!
//! What a client can cost, and what bounds it:
//! * a request head (request line and headers): at most
//!   `heads::HEAD_BYTES` read; a longer one gets a JSON 414 or 431 and the
//!   connection is closed ([`HeadGate`]);
//! * a declared body: nothing (never read; hyper parses Content-Length as a
//!   number and refuses one that does not fit; `respond` answers 413);
//! * connections: at most `max_connections`; beyond, a short 503 and close;
//! * a connection that sends nothing, sends its headers slowly (slowloris)
//!   or idles between requests: closed after `header_timeout` (hyper's
//!   header-read timer runs from the moment a request is awaited);
//! * a client that does not read its answers (e.g. 300 pipelined queries):
//!   hyper answers one request at a time and stops reading while its write
//!   buffer (≤ `BUF_BYTES`) is full; a write that makes no progress for
//!   `idle_timeout` closes the connection ([`StallTimeout`]);
//! * CPU: API answers and file work run on [`Pool`]s of bounded size, never
//!   on the connection tasks, so slow readers and slow queries cannot stop
//!   the tasks that accept and answer others.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

use super::heads::{self, HeadGate, Refusal};
use super::respond::{App, respond};

/// Read and write buffer cap per connection: a request head must fit
/// (`heads::HEAD_BYTES` is smaller, so that heads over it are answered
/// with a JSON error rather than hyper's bodiless 414/431); pipelined
/// requests beyond it wait in the client's socket, not in our memory.
const BUF_BYTES: usize = 64 * 1024;

/// How long connections may finish their answers after SIGTERM/Ctrl-C.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Connections refused with a 503 at the same time (each for ≤ 1 s); beyond,
/// a refused connection is just closed.
const REFUSALS: usize = 64;

/// The knobs of `registry serve`.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

/// Serves on `listener` until SIGTERM or Ctrl-C, then lets open requests
/// finish (up to 10 s).
pub async fn run(listener: TcpListener, app: Arc<App>, limits: Limits, quiet: bool) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(BUF_BYTES)
        .max_headers(heads::MAX_HEADERS)
        .keep_alive(true);
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    let refusals = Arc::new(Semaphore::new(REFUSALS));
    let graceful = GracefulShutdown::new();
    let stop = shutdown_signal();
    tokio::pin!(stop);
    let mut accept_errors_logged = 0u32;
    loop {
        tokio::select! {
            biased;
            why = &mut stop => {
                if !quiet {
                    eprintln!("{why}: not accepting connections; finishing open requests");
                }
                break;
            }
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors, or a connection reset
                        // before it was accepted: back off instead of
                        // spinning, and do not flood the log.
                        if !quiet && accept_errors_logged < 10 {
                            accept_errors_logged += 1;
                            eprintln!("cannot accept a connection: {e}");
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let Ok(permit) = connections.clone().try_acquire_owned() else {
                    refuse(stream, &refusals);
                    continue;
                };
                let conn_app = app.clone();
                let refusal = Refusal::default();
                let conn_refusal = refusal.clone();
                let service = service_fn(move |req| {
                    let app = conn_app.clone();
                    let refused = heads::refused(&conn_refusal, &req);
                    async move {
                        Ok::<_, Infallible>(match refused {
                            Some(answer) => answer,
                            None => respond(app, req).await,
                        })
                    }
                });
                let io = TokioIo::new(HeadGate::new(
                    StallTimeout::new(stream, limits.idle_timeout),
                    refusal,
                ));
                let conn = graceful.watch(http.serve_connection(io, service));
                tokio::spawn(async move {
                    // Errors here are the client's (gone, timed out, not
                    // HTTP): nothing to report to the operator.
                    let _ = conn.await;
                    drop(permit);
                });
            }
        }
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
        && !quiet
    {
        eprintln!(
            "connections still open after {} s: closing them",
            SHUTDOWN_GRACE.as_secs()
        );
    }
}

/// Resolves on Ctrl-C or SIGTERM, naming which. A signal that cannot be
/// listened to never resolves (rather than stopping the server at once).
async fn shutdown_signal() -> &'static str {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => "interrupt",
        _ = terminate => "SIGTERM",
    }
}

/// Tells a connection over the cap to come back later, without letting
/// refusals themselves pile up.
fn refuse(stream: TcpStream, refusals: &Arc<Semaphore>) {
    let Ok(permit) = refusals.clone().try_acquire_owned() else {
        return; // dropped: closed
    };
    tokio::spawn(async move {
        let _permit = permit;
        let mut stream = stream;
        let body = r#"{"errors": ["too many connections; retry in a moment"]}"#;
        let head = format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
             Access-Control-Allow-Origin: *\r\nRetry-After: 1\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.shutdown().await?;
            // Read what the client sent until it closes, so that closing
            // does not reset the connection before it has read the 503.
            let mut sink = [0u8; 1024];
            while stream.read(&mut sink).await? > 0 {}
            io::Result::Ok(())
        })
        .await;
    });
}

/// A stream whose writes fail with `TimedOut` when they make no progress for
/// `limit`: a client that stops reading cannot hold a connection (and the
/// answer buffered for it) forever. Reads are bounded by hyper's header
/// timer; no request body is ever read.
pub struct StallTimeout<T> {
    inner: T,
    limit: Duration,
    timer: Pin<Box<Sleep>>,
    armed: bool,
}

impl<T> StallTimeout<T> {
    pub fn new(inner: T, limit: Duration) -> Self {
        StallTimeout {
            inner,
            limit,
            timer: Box::pin(tokio::time::sleep(limit)),
            armed: false,
        }
    }

    /// After a write poll: disarm on progress, arm on a first `Pending`, and
    /// turn a `Pending` past the limit into an error.
    fn watch<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        match polled {
            Poll::Pending => {
                if !self.armed {
                    self.armed = true;
                    let deadline = Instant::now() + self.limit;
                    self.timer.as_mut().reset(deadline);
                }
                match self.timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client read nothing for too long",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            ready => {
                self.armed = false;
                ready
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.watch(cx, polled)
    }
}
