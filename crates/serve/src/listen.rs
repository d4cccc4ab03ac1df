//! The accept loop: each connection served by hyper's HTTP/1 with deadlines of its own, so
//! that no client can hold the server.
//!
//! `axum::serve` sets no deadline: a client that sends half a request head and waits keeps
//! its connection (and, on Ctrl-C, the whole process) alive for ever. Here a request head must
//! arrive within [`Limits::header`] (also the longest a kept-alive connection may sit idle
//! between requests), a write of an answer may wait at most [`Limits::write`] for the client
//! to read, and on shutdown connections are told to finish, given
//! [`Limits::grace`], then dropped. Request bodies are never read (the API refuses them
//! before reading a byte, and hyper then closes the connection), so no body can stall it.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::stall::WriteDeadline;

/// Most header lines hyper parses; a request with more is answered 431 by hyper itself.
pub const MAX_HEADERS: usize = 100;

/// How long clients are waited for.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest wait for a whole request head, counted from when the server starts reading it.
    pub header: Duration,
    /// Longest a write of an answer may wait for the client to read
    /// ([`crate::stall::WriteDeadline`]).
    pub write: Duration,
    /// After a stop signal, how long requests in flight may take before their connections
    /// are dropped.
    pub grace: Duration,
}

/// Serves `app` on `listener` until `shutdown` completes; then stops accepting, lets open
/// connections finish within the grace and drops the rest.
pub async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let (stop_tx, stop_rx) = watch::channel(());
    let mut conns = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    conns.spawn(connection(tcp, app.clone(), limits, stop_rx.clone()));
                }
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // wait a little rather than spin, and keep serving the others.
                    crate::note(format_args!("bawo serve: cannot accept a connection: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
    drop(listener);
    drop(stop_tx);
    let finished = tokio::time::timeout(limits.grace, async {
        while conns.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        crate::note(format_args!(
            "bawo serve: closing {} connection(s) still open after {} ms",
            conns.len(),
            limits.grace.as_millis()
        ));
    }
    conns.shutdown().await;
}

/// One connection: requests answered in turn until the client closes, a deadline passes, or
/// the server stops (then the request in flight is finished first).
async fn connection(tcp: TcpStream, app: Router, limits: Limits, mut stop: watch::Receiver<()>) {
    // Only a matter of speed: a socket that refuses it still serves.
    let _ = tcp.set_nodelay(true);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header)
        .max_headers(MAX_HEADERS);
    let conn = builder.serve_connection(
        TokioIo::new(WriteDeadline::new(tcp, limits.write)),
        TowerToHyperService::new(app),
    );
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stop.changed() => conn.as_mut().graceful_shutdown(),
    }
    // A failed connection (reset, timed out) is the client's business, not the log's.
    let _ = conn.await;
}
