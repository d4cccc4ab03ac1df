//! `bawo serve`: a read-only web explorer over one or more finished databases.
//!
//! | module      | job                                                                |
//! |-------------|--------------------------------------------------------------------|
//! | [`served`]  | the databases being served, by name, with their cached statistics  |
//! | [`params`]  | query strings turned into positions, with 400 errors for bad input |
//! | [`shapes`]  | the JSON objects the API returns (the shapes of the commands' `--json`) |
//! | [`line`](mod@line) | the perfect-play line: the winner hurries, the loser delays        |
//! | [`routes`]  | the router: API handlers, the embedded page, 404s, size limits     |
//! | [`guard`]   | what every request passes: size limits, and every error as JSON    |
//! | [`listen`]  | the accept loop: header deadline, shutdown with a grace deadline   |
//! | [`page`]    | the page's files, compiled into the binary                         |
//!
//! Nothing is read from disk but the databases named on the command line, and those only
//! through [`bawo_db::Database`]: a request names a database by its short name, never by
//! path, so no request can reach another file. Probes run on tokio's blocking pool, capped at
//! [`BLOCKING_THREADS`] threads, or for `/api/query` inline on the worker threads (`--threads`),
//! so that a burst of requests cannot decode more blocks at once than that (memory stays
//! bounded by the block cache plus those in-flight blocks).

pub mod guard;
pub mod line;
pub mod listen;
pub mod page;
pub mod params;
pub mod routes;
pub mod served;
pub mod shapes;
pub mod stall;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bawo_games::error::{Error, Result};
pub use routes::router;

/// Writes one log line to standard error, ignoring a failed write: a line that cannot be shown
/// is never worth stopping the server for, and `eprintln!` would panic.
pub(crate) fn note(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
pub use served::Served;

/// The default address: this machine only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Most threads probing databases at once.
pub const BLOCKING_THREADS: usize = 16;
/// Longest wait for a request's head (and for the next request on an idle connection).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long requests in flight may take after Ctrl-C or SIGTERM before the server exits.
pub const GRACE: Duration = Duration::from_secs(1);

/// What `bawo serve` was asked to serve, and where.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Run directories (the `--out` of `bawo solve`).
    pub dbs: Vec<PathBuf>,
    /// Address to listen on; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Threads answering requests; 0 picks one per core, at most [`MAX_WORKERS`].
    pub threads: usize,
    /// Longest wait for a request's head, and for a client to take any of its answer
    /// ([`HEADER_TIMEOUT`] by default).
    pub header_timeout: Duration,
}

impl ServeConfig {
    /// Serves `dbs` on `addr`, one thread per core, with the default deadlines.
    pub fn new(dbs: Vec<PathBuf>, addr: SocketAddr) -> ServeConfig {
        ServeConfig {
            dbs,
            addr,
            threads: 0,
            header_timeout: HEADER_TIMEOUT,
        }
    }

    fn limits(&self) -> listen::Limits {
        listen::Limits {
            header: self.header_timeout,
            write: self.header_timeout,
            grace: GRACE,
        }
    }

    /// Parses `--addr` text, refusing anything that is not `IP:PORT` as a usage error.
    pub fn parse_addr(text: &str) -> Result<SocketAddr> {
        text.parse().map_err(|_| {
            Error::Input(bawo_games::game::InputError::new(format!(
                "--addr '{text}' is not an address like 127.0.0.1:8080 or [::1]:8080"
            )))
        })
    }
}

/// Most threads answering requests when `--threads` is left at 0.
pub const MAX_WORKERS: usize = 8;

/// The number of request threads for `threads` (0: one per core, at most [`MAX_WORKERS`]).
fn worker_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(2, |n| n.get().min(MAX_WORKERS)),
        n => n,
    }
}

/// One request thread runs everything on the thread that serves (no hand-offs between
/// threads: the cheapest per request when the server shares a small machine); more run
/// tokio's work-stealing pool.
fn runtime(threads: usize) -> Result<tokio::runtime::Runtime> {
    let mut builder = match worker_threads(threads) {
        1 => tokio::runtime::Builder::new_current_thread(),
        n => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
    };
    builder
        .max_blocking_threads(BLOCKING_THREADS)
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the server's threads: {e}")))
}

/// Most connections waiting to be accepted: a burst of a thousand clients is queued, not
/// refused or left to retry a second later.
const BACKLOG: u32 = 2048;

/// Binds `addr` (a usage error, not a crash, when it is taken); call inside the runtime.
fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener> {
    // The address stands where a path would in the message: "127.0.0.1:8080: Address in use".
    let io = |e| Error::io(addr.to_string(), e);
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(io)?;
    socket.set_reuseaddr(true).map_err(io)?;
    socket.bind(addr).map_err(io)?;
    socket.listen(BACKLOG).map_err(io)
}

/// Opens the databases, listens on `config.addr`, prints the address and serves until Ctrl-C
/// or SIGTERM (then gives the requests in flight [`GRACE`] to finish and returns).
pub fn serve(config: ServeConfig) -> Result<()> {
    let served = Served::open(&config.dbs)?;
    served.warn_at_start();
    let rt = runtime(config.threads)?;
    let (listener, stop) = {
        let _inside = rt.enter();
        (bind(config.addr)?, stop_signals()?)
    };
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Internal(format!("cannot read the bound address: {e}")))?;
    if !addr.ip().is_loopback() {
        crate::note(format_args!(
            "bawo serve: listening on {addr}, which other machines may reach: anyone who can \
             connect can read these databases (read-only; no password, no TLS)"
        ));
    }
    // Standard output gone (a closed pipe) is no reason to stop serving.
    let _ = writeln!(
        std::io::stdout().lock(),
        "bawo serve: http://{addr}/ ({})",
        served.names().join(", ")
    );
    let limits = config.limits();
    rt.block_on(listen::run(listener, router(served), limits, stop));
    // A probe still running on the blocking pool is not waited for.
    rt.shutdown_timeout(Duration::from_millis(100));
    crate::note(format_args!("bawo serve: stopped"));
    Ok(())
}

/// A future that completes on the first Ctrl-C (SIGINT) or SIGTERM. The handlers are in place
/// when this returns (call inside the runtime, before the address is printed), so a signal
/// sent as soon as the server is announced stops it cleanly rather than killing it.
fn stop_signals() -> Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let handler =
        |kind| signal(kind).map_err(|e| Error::Internal(format!("cannot listen for signals: {e}")));
    let mut term = handler(SignalKind::terminate())?;
    let mut int = handler(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    })
}

/// A server running on its own threads (tests, the load script); dropping it shuts it down.
pub struct RunningServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<()>>>,
}

impl RunningServer {
    /// The address it listens on (with the port chosen when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR` with no trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, finishes requests in flight and waits for the threads.
    pub fn stop(mut self) -> Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(Error::Internal("the server thread panicked".into())),
            None => Ok(()),
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Opens the databases and serves them on a background thread until the returned handle is
/// stopped or dropped.
pub fn start(config: ServeConfig) -> Result<RunningServer> {
    let served = Served::open(&config.dbs)?;
    let rt = runtime(config.threads)?;
    let listener = {
        let _inside = rt.enter();
        bind(config.addr)?
    };
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Internal(format!("cannot read the bound address: {e}")))?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let limits = config.limits();
    let thread = std::thread::spawn(move || {
        rt.block_on(listen::run(listener, router(served), limits, async {
            let _ = rx.await;
        }));
        rt.shutdown_timeout(Duration::from_millis(100));
        Ok(())
    });
    Ok(RunningServer {
        addr,
        stop: Some(tx),
        thread: Some(thread),
    })
}
