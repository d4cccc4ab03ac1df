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
//! latencies of a burst). `arrival_*_ms` count instead to the kernel's arrival stamp of each
//! response's last bytes (`SO_TIMESTAMPNS`): when the server's answer reached this machine's
//! socket, before this one thread, still busy sending, got round to reading it. `p*_ms` are
//! what the client saw, `arrival_*` what the server delivered. Only loopback addresses are
//! accepted, every socket has a 30-second timeout, and at most 100,000 requests are sent.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::os::fd::AsRawFd;

use tokio::io::Interest;
use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// The most any one connect or request may take.
const LIMIT: Duration = Duration::from_secs(30);

use bawo_db::Database;
use bawo_games::game::Game;

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
    bawo_games::with_game!(db.game(), g => {
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

/// The wall-clock time now, in nanoseconds since the epoch: the clock the kernel stamps
/// received data with (`SO_TIMESTAMPNS`), so a send time and a receive stamp compare.
fn realtime_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Asks the kernel to stamp the data it queues on `s` with the time it arrived.
fn stamp_arrivals(s: &TcpStream) -> std::io::Result<()> {
    let on: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and an int option of the right size.
    let rc = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// One non-blocking read into `buf`: the bytes read and the kernel's arrival stamp of the
/// data (nanoseconds since the epoch), where it gave one.
fn read_stamped(s: &TcpStream, buf: &mut [u8]) -> std::io::Result<(usize, Option<i128>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Room for one control message carrying a timespec, aligned for cmsghdr.
    let mut control = [0u64; 8];
    // SAFETY: msghdr is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    // SAFETY: a valid socket descriptor and a msghdr whose buffers are live and sized.
    let n = unsafe { libc::recvmsg(s.as_raw_fd(), &mut msg, libc::MSG_DONTWAIT) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut stamp = None;
    // SAFETY: the CMSG macros walk the control buffer the kernel filled, within msg_controllen.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::timespec>());
                stamp = Some(ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, stamp))
}

/// What one request measured: its status, and when its response's last bytes reached this
/// machine's socket by the kernel's stamp (before this one thread got round to reading them).
struct Answer {
    status: u16,
    arrived_ns: Option<i128>,
}

/// Sends one rendered request on `s` and reads its whole response.
async fn request(s: &TcpStream, req: &[u8], rb: &mut ReadBuf) -> std::io::Result<Answer> {
    write_all(s, req).await?;
    rb.response.clear();
    let mut arrived_ns = None;
    loop {
        if let Some((status, _)) = complete_response(&rb.response) {
            return Ok(Answer { status, arrived_ns });
        }
        match s.try_io(Interest::READABLE, || read_stamped(s, &mut rb.chunk)) {
            Ok((0, _)) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok((n, stamp)) => {
                rb.response.extend_from_slice(&rb.chunk[..n]);
                arrived_ns = stamp.or(arrived_ns);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => s.readable().await?,
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
    stamp_arrivals(&s)?;
    Ok(s)
}

/// What one client measured.
struct ClientRun {
    /// When its first timed request started to be sent.
    first_sent: Option<Instant>,
    connect_ms: f64,
    latencies_ms: Vec<f64>,
    /// From the first byte sent to the kernel's arrival stamp of the response's last bytes.
    arrival_ms: Vec<f64>,
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
            Ok(Ok(Answer { status: 200, .. }))
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
        arrival_ms: Vec::with_capacity(targets.len()),
        errors: 0,
    };
    for req in &requests {
        let t0 = Instant::now();
        let sent_ns = realtime_ns();
        run.first_sent.get_or_insert(t0);
        if conn.is_none() {
            conn = connect(addr).await.ok();
        }
        let status = match &conn {
            Some(s) => tokio::time::timeout(LIMIT, request(s, req, &mut buf)).await,
            None => Ok(Err(std::io::ErrorKind::NotConnected.into())),
        };
        run.latencies_ms.push(t0.elapsed().as_secs_f64() * 1e3);
        if let Ok(Ok(Answer {
            arrived_ns: Some(at),
            ..
        })) = &status
        {
            run.arrival_ms.push((at - sent_ns) as f64 / 1e6);
        }
        if !matches!(status, Ok(Ok(Answer { status: 200, .. }))) {
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
    let mut arrival: Vec<f64> = runs
        .iter()
        .flat_map(|r| r.arrival_ms.iter().copied())
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
    arrival.sort_by(f64::total_cmp);
    connect.sort_by(f64::total_cmp);
    let pct = |v: &[f64], p: f64| {
        if v.is_empty() {
            return "null".to_string();
        }
        let at = ((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1;
        format!("{:.2}", v[at])
    };
    println!(
        "{{\"requests\":{},\"concurrency\":{},\"errors\":{errors},\"p50_ms\":{},\"p99_ms\":{},\"max_ms\":{},\"arrival_p50_ms\":{},\"arrival_p99_ms\":{},\"arrival_max_ms\":{},\"connect_p99_ms\":{},\"send_spread_ms\":{send_spread_ms:.2},\"wall_s\":{wall:.3},\"requests_per_s\":{:.0}}}",
        lat.len(),
        a.concurrency,
        pct(&lat, 0.50),
        pct(&lat, 0.99),
        pct(&lat, 1.0),
        pct(&arrival, 0.50),
        pct(&arrival, 0.99),
        pct(&arrival, 1.0),
        pct(&connect, 0.99),
        lat.len() as f64 / wall
    );
}
