//! Load check for `bawo serve`: a bounded burst of `/api/query` requests on a local server.
//!
//! `cargo run --release --example serve_load -- --addr 127.0.0.1:PORT --db DIR
//!  [--db-name NAME] [--requests 1000] [--concurrency 1000]`
//!
//! `--concurrency` clients (threads) start together behind a barrier; each sends its share of
//! the requests one after another on its own keep-alive connection. Positions are the
//! database's own, spread over every tier. Prints one JSON line: counts, errors and latency
//! percentiles in milliseconds. Only loopback addresses are accepted, every socket has a
//! 30-second timeout, and at most 100,000 requests are sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

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

/// Sends one GET on `s` and reads the response; the status code.
fn request(s: &mut BufReader<TcpStream>, target: &str) -> std::io::Result<u16> {
    let req = format!("GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    s.get_mut().write_all(req.as_bytes())?;
    let mut line = String::new();
    s.read_line(&mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let mut len = 0usize;
    loop {
        line.clear();
        s.read_line(&mut line)?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; len];
    s.read_exact(&mut body)?;
    Ok(status)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("serve_load: {e}");
            std::process::exit(2);
        }
    };
    let targets = Arc::new(targets(&a));
    let barrier = Arc::new(Barrier::new(a.concurrency));
    let start = Instant::now();
    let workers: Vec<_> = (0..a.concurrency)
        .map(|w| {
            let targets = targets.clone();
            let barrier = barrier.clone();
            let (addr, n, c) = (a.addr, a.requests, a.concurrency);
            std::thread::Builder::new()
                .stack_size(128 << 10)
                .spawn(move || {
                    let mut lat = Vec::new();
                    let mut errors = 0usize;
                    barrier.wait();
                    let mut conn: Option<BufReader<TcpStream>> = None;
                    for t in targets.iter().skip(w).step_by(c).take(n) {
                        let t0 = Instant::now();
                        let ok = (|| -> std::io::Result<u16> {
                            if conn.is_none() {
                                let s = TcpStream::connect_timeout(&addr, Duration::from_secs(30))?;
                                s.set_read_timeout(Some(Duration::from_secs(30)))?;
                                s.set_nodelay(true)?;
                                conn = Some(BufReader::new(s));
                            }
                            request(conn.as_mut().unwrap(), t)
                        })();
                        lat.push(t0.elapsed().as_secs_f64() * 1e3);
                        if !matches!(ok, Ok(200)) {
                            errors += 1;
                            conn = None;
                        }
                    }
                    (lat, errors)
                })
                .expect("thread")
        })
        .collect();
    let mut lat = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (l, e) = w.join().expect("worker");
        lat.extend(l);
        errors += e;
    }
    let wall = start.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1];
    println!(
        "{{\"requests\":{},\"concurrency\":{},\"errors\":{errors},\"p50_ms\":{:.2},\"p99_ms\":{:.2},\"max_ms\":{:.2},\"wall_s\":{wall:.3},\"requests_per_s\":{:.0}}}",
        lat.len(),
        a.concurrency,
        pct(0.50),
        pct(0.99),
        pct(1.0),
        lat.len() as f64 / wall
    );
}
