//! Load check for `bawo serve`: a bounded burst of `/api/query` requests on a local server.
//!
//! `cargo run --release --example serve_load -- --addr 127.0.0.1:PORT --db DIR
//!  [--db-name NAME] [--requests 1000] [--concurrency 1000]`
//!
//! `--concurrency` clients, tasks of one client thread (so the load generator takes at most one
//! of the machine's cores), first connect, then start together behind a barrier; each sends its
//! share of the requests one after another on its own keep-alive connection. Latency is counted
//! from the request's first byte to the response's last; connecting is timed apart. Positions are the
//! database's own, spread over every tier. Each client's connect is followed by one untimed
//! request (counted in `connect_p99_ms`), so the server has accepted every connection before
//! the timed burst starts. Prints one JSON line: counts, errors, latency percentiles in
//! milliseconds, and `send_spread_ms`, how long this one thread took to send every client's
//! first timed request (responses are read only after that, so it is a floor under the
//! latencies of a burst). Only loopback addresses are accepted, every socket has a
//! 30-second timeout, and at most 100,000 requests are sent.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// The most any one connect or request may take.
const LIMIT: Duration = Duration::from_secs(30);

use bawo::db::Database;
use bawo::game::Game;

struct Args {
    addr: SocketAddr,
    db: PathBuf,
    db_name: Option<String>,
    requests: usize,
    concurrency: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        addr: "127.0.0.1:8080".parse().unwrap(),
        db: PathBuf::new(),
        db_name: None,
        requests: 1000,
        concurrency: 1000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        match k.as_str() {
            "--addr" => a.addr = v.parse().map_err(|_| format!("bad --addr {v}"))?,
            "--db" => a.db = PathBuf::from(v),
            "--db-name" => a.db_name = Some(v),
            "--requests" => a.requests = v.parse().map_err(|_| "bad --requests")?,
            "--concurrency" => a.concurrency = v.parse().map_err(|_| "bad --concurrency")?,
            _ => return Err(format!("unknown flag {k}")),
        }
    }
    if !a.addr.ip().is_loopback() {
        return Err("--addr must be a loopback address: this load is for this machine only".into());
    }
    if a.requests == 0 || a.requests > 100_000 || a.concurrency == 0 || a.concurrency > 2000 {
        return Err("--requests 1..=100000 and --concurrency 1..=2000".into());
    }
    Ok(a)
}

/// Query strings of positions spread over the database's tiers.
fn targets(a: &Args) -> Vec<String> {
    let db = Database::open(&a.db).expect("database");
    let mut all = Vec::new();
    let db_param = a
        .db_name
        .as_ref()
        .map(|n| format!("db={n}&"))
        .unwrap_or_default();
    bawo::with_game!(db.game(), g => {
        let tiers = &db.manifest().tiers;
        for i in 0..a.requests {
            let r = &tiers[i % tiers.len()];
            let index = (i as u64).wrapping_mul(2_654_435_761) % r.counts.states;
            let p = g.position(r.tier, index);
            let board: Vec<String> = g.board_counts(&p).iter().map(u32::to_string).collect();
            all.push(format!(
                "/api/query?{db_param}board={}&to_move={}",
                board.join("%2C"),
                g.side_to_move(&p).letter()
            ));
        }
    });
    all
}

/// Writes all of `bytes` on `s`.
async fn write_all(s: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        s.writable().await?;
        match s.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The status code and total length of a complete response at the start of `buf`, if the
/// headers and the body (`Content-Length`) have all arrived.
fn complete_response(buf: &[u8]) -> Option<(u16, usize)> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&buf[..end]).ok()?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let len: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    (buf.len() >= end + len).then_some((status, end + len))
}

/// The bytes of a GET of `target`, rendered before the timed burst.
fn get_request(target: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n").into_bytes()
}

/// What a client reads responses into, allocated once so the timed path allocates nothing.
struct ReadBuf {
    response: Vec<u8>,
    chunk: Vec<u8>,
}

impl ReadBuf {
    fn new() -> ReadBuf {
        ReadBuf {
            response: Vec::with_capacity(32 << 10),
            chunk: vec![0; 16 << 10],
        }
    }
}

/// Sends one rendered request on `s` and reads its whole response; the status code.
async fn request(s: &TcpStream, req: &[u8], rb: &mut ReadBuf) -> std::io::Result<u16> {
    write_all(s, req).await?;
    rb.response.clear();
    loop {
        if let Some((status, _)) = complete_response(&rb.response) {
            return Ok(status);
        }
        s.readable().await?;
        match s.try_read(&mut rb.chunk) {
            Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => rb.response.extend_from_slice(&rb.chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
}

/// Connects with the 30-second limit every socket has here.
async fn connect(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let s = tokio::time::timeout(LIMIT, TcpStream::connect(addr))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
    s.set_nodelay(true)?;
    Ok(s)
}

/// What one client measured.
struct ClientRun {
    /// When its first timed request started to be sent.
    first_sent: Option<Instant>,
    connect_ms: f64,
    latencies_ms: Vec<f64>,
    errors: usize,
}

/// One client: connects first, waits until every client has connected, then sends its share
/// of the requests one after another on its keep-alive connection (reconnecting after an
/// error), timing each from the first byte sent to the last byte received.
async fn client(addr: SocketAddr, targets: Vec<String>, start: Arc<Barrier>) -> ClientRun {
    let requests: Vec<Vec<u8>> = targets.iter().map(|t| get_request(t)).collect();
    let t0 = Instant::now();
    let mut conn = connect(addr).await.ok();
    // A connect returns once the kernel has queued the connection, before the server has
    // accepted it: one untimed request makes sure the server holds the connection, so that
    // accepting does not leak into the timed burst.
    let mut buf = ReadBuf::new();
    if let (Some(s), Some(first)) = (&conn, requests.first()) {
        if !matches!(
            tokio::time::timeout(LIMIT, request(s, first, &mut buf)).await,
            Ok(Ok(200))
        ) {
            conn = None;
        }
    }
    let connect_ms = t0.elapsed().as_secs_f64() * 1e3;
    start.wait().await;
    let mut run = ClientRun {
        first_sent: None,
        connect_ms,
        latencies_ms: Vec::with_capacity(targets.len()),
        errors: 0,
    };
    for req in &requests {
        let t0 = Instant::now();
        run.first_sent.get_or_insert(t0);
        if conn.is_none() {
            conn = connect(addr).await.ok();
        }
        let status = match &conn {
            Some(s) => tokio::time::timeout(LIMIT, request(s, req, &mut buf)).await,
            None => Ok(Err(std::io::ErrorKind::NotConnected.into())),
        };
        run.latencies_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if !matches!(status, Ok(Ok(200))) {
            run.errors += 1;
            conn = None;
        }
    }
    run
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("serve_load: {e}");
            std::process::exit(2);
        }
    };
    let targets = targets(&a);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (runs, wall_start) = runtime.block_on(async {
        let start = Arc::new(Barrier::new(a.concurrency + 1));
        let clients: Vec<_> = (0..a.concurrency)
            .map(|w| {
                let mine = targets
                    .iter()
                    .skip(w)
                    .step_by(a.concurrency)
                    .cloned()
                    .collect();
                tokio::spawn(client(a.addr, mine, start.clone()))
            })
            .collect();
        start.wait().await;
        let t0 = Instant::now();
        let mut runs = Vec::new();
        for c in clients {
            runs.push(c.await.expect("client"));
        }
        (runs, t0)
    });
    let wall = wall_start.elapsed().as_secs_f64();
    let mut lat: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.latencies_ms.iter().copied())
        .collect();
    let mut connect: Vec<f64> = runs.iter().map(|r| r.connect_ms).collect();
    let errors: usize = runs.iter().map(|r| r.errors).sum();
    // How long this one thread took to send every client's first request: no response is
    // read before the sending is done, so it is a floor under the latencies it measures.
    let send_spread_ms = runs
        .iter()
        .filter_map(|r| r.first_sent)
        .max()
        .map_or(0.0, |last| (last - wall_start).as_secs_f64() * 1e3);
    lat.sort_by(f64::total_cmp);
    connect.sort_by(f64::total_cmp);
    let pct = |v: &[f64], p: f64| v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1];
    println!(
        "{{\"requests\":{},\"concurrency\":{},\"errors\":{errors},\"p50_ms\":{:.2},\"p99_ms\":{:.2},\"max_ms\":{:.2},\"connect_p99_ms\":{:.2},\"send_spread_ms\":{send_spread_ms:.2},\"wall_s\":{wall:.3},\"requests_per_s\":{:.0}}}",
        lat.len(),
        a.concurrency,
        pct(&lat, 0.50),
        pct(&lat, 0.99),
        pct(&lat, 1.0),
        pct(&connect, 0.99),
        lat.len() as f64 / wall
    );
}
