//! `bawo serve` when the world misbehaves: tier files cut short or damaged under a running
//! server, a run that finishes while it is served, clients that stall halfway through a
//! request, stop signals with such clients connected, every error answered as JSON, and a
//! manifest or tier file that is a FIFO.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bawo_db::Manifest;
use bawo_serve::{start, ServeConfig};

use crate::serve_support::*;

/// Bawo n = 2, lap cap 8: solved to 16 seeds its top tier files are larger than a page, so a
/// map of one cut short would be read past its end.
const SMALL: &[&str] = &["--game", "bawo", "--n", "2", "--lap-cap", "8"];

fn local() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn cut(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

/// Connects, sends `bytes` and reads until the server closes the connection: what was read
/// and when it closed, or `None` if it was still open after `limit`.
fn closed_within(addr: SocketAddr, bytes: &[u8], limit: Duration) -> Option<(String, Duration)> {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(limit)).unwrap();
    let t = Instant::now();
    s.write_all(bytes).unwrap();
    let mut got = Vec::new();
    match s.read_to_end(&mut got) {
        Ok(_) => Some((String::from_utf8_lossy(&got).into_owned(), t.elapsed())),
        // A reset is a close too.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
            Some((String::new(), t.elapsed()))
        }
        Err(_) => None,
    }
}

fn error_of(r: &Reply, status: u16, what: &str) -> String {
    assert_eq!(r.status, status, "{what}: {}", r.body);
    assert!(
        r.headers.to_ascii_lowercase().contains("application/json"),
        "{what}: {}",
        r.headers
    );
    r.json()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: no error message in {}", r.body))
        .to_string()
}

/// Flips the first byte of every block of the `.bdb` file at `path` (header and index kept).
fn damage_blocks(path: &Path) {
    let good = std::fs::read(path).unwrap();
    let word = |b: &[u8], at: usize, n: usize| {
        b[at..at + n]
            .iter()
            .rev()
            .fold(0usize, |x, &byte| x << 8 | byte as usize)
    };
    let (blocks, index) = (word(&good, 40, 4), word(&good, 48, 8));
    let mut bad = good.clone();
    for i in 0..blocks {
        bad[word(&good, index + 24 * i, 8)] ^= 0x55;
    }
    std::fs::write(path, &bad).unwrap();
}

#[test]
fn tier_files_cut_short_or_damaged_under_the_server_answer_500_and_it_serves_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "db", SMALL, 16);
    let mut srv = ServeChild::start(&["--db", dir.to_str().unwrap()]);
    // Tier 16's file opened, then cut to nothing under the server. The statistics read every
    // block of every tier, in ascending order.
    assert_eq!(
        get(srv.addr, "/api/query?board=16,0,0,0,0,0,0,0").status,
        200
    );
    cut(&dir.join("tier-0016.bdb"), 0);
    let msg = error_of(&get(srv.addr, "/api/stats"), 500, "stats over a cut file");
    assert!(msg.contains("tier-0016.bdb"), "{msg}");
    assert!(msg.contains("changed while in use"), "{msg}");
    assert!(
        !msg.contains(tmp.path().to_str().unwrap()),
        "no server path: {msg}"
    );
    // Tier 15's blocks damaged in place (same length): their checksums catch it.
    damage_blocks(&dir.join("tier-0015.bdb"));
    let msg = error_of(
        &get(srv.addr, "/api/stats"),
        500,
        "stats over damaged blocks",
    );
    assert!(msg.contains("tier-0015.bdb is damaged"), "{msg}");
    // The server lives on and answers everything else.
    assert!(srv.alive(), "the server died: {}", srv.stderr());
    assert_eq!(get(srv.addr, "/api/dbs").status, 200);
    assert_eq!(
        get(srv.addr, "/api/query?board=0,0,0,4,4,0,0,0").status,
        200
    );
    srv.signal(libc::SIGINT);
    assert_eq!(srv.exit_within(Duration::from_secs(5)), Some(Some(0)));
    let log = srv.stderr();
    assert!(
        log.contains("error") && log.contains("tier-0016.bdb"),
        "{log}"
    );
}

#[test]
fn a_tier_file_damaged_before_the_start_is_named_at_the_start() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "db", SMALL, 16);
    let f = dir.join("tier-0012.bdb");
    cut(&f, std::fs::metadata(&f).unwrap().len() / 2);
    let mut srv = ServeChild::start(&["--db", dir.to_str().unwrap()]);
    let log = srv.stderr();
    assert!(
        log.contains("warning") && log.contains("tier-0012.bdb"),
        "no warning at the start: {log}"
    );
    assert_eq!(get(srv.addr, "/api/dbs").status, 200);
    error_of(
        &get(srv.addr, "/api/query?board=12,0,0,0,0,0,0,0"),
        500,
        "a tier whose file was cut before the start",
    );
    assert!(srv.alive());
}

/// Copies the files of `from` into a new directory `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_run_that_finishes_while_served_is_served_finished() {
    let tmp = tempfile::tempdir().unwrap();
    let run: PathBuf = tmp.path().join("run");
    let solve = |extra: &[&str], env: &[(&str, String)]| {
        let mut args = vec![
            "solve",
            "--quiet",
            "--seeds",
            "10",
            "--checkpoint-secs",
            "0",
        ];
        args.extend_from_slice(SMALL);
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", run.to_str().unwrap()]);
        crate::common::cli::bawo_env(&args, env)
    };
    // Stopped inside a tier: the manifest holds a checkpoint.
    let _ = solve(&[], &[("BAWO_ABORT_AFTER_CHECKPOINTS", "12".to_string())]);
    let m = Manifest::load(&run).unwrap().unwrap();
    assert!(
        !m.complete && m.current.is_some(),
        "not stopped inside a tier"
    );
    let server = start(ServeConfig::new(vec![run.clone()], local())).unwrap();
    let addr = server.addr();
    let q = "/api/query?board=0,0,0,5,5,0,0,0";
    assert_eq!(get(addr, "/api/dbs").json()[0]["complete"], false);
    let msg = error_of(&get(addr, q), 400, "a tier not yet finished");
    assert!(msg.contains("unfinished"), "{msg}");
    assert!(
        !msg.contains(tmp.path().to_str().unwrap()),
        "no server path: {msg}"
    );
    // The run is resumed to its end while served.
    let out = solve(&["--resume"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = Instant::now();
    while get(addr, "/api/dbs").json()[0]["complete"] != true {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "still served as unfinished"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(get(addr, q).status, 200);
    server.stop().unwrap();
}

/// A small database in `tmp` served with deadlines of one second.
fn serve_with_one_second_deadlines(tmp: &Path) -> bawo_serve::RunningServer {
    let dir = solve(tmp, "db", SMALL, 8);
    let mut config = ServeConfig::new(vec![dir], local());
    config.header_timeout = Duration::from_secs(1);
    start(config).unwrap()
}

#[test]
fn stalled_clients_are_dropped_after_the_header_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve_with_one_second_deadlines(tmp.path());
    let addr = server.addr();
    let limit = Duration::from_secs(5);
    for (what, bytes) in [
        (
            "half a request head",
            &b"GET /api/dbs HTTP/1.1\r\nHost: x\r\n"[..],
        ),
        ("a request line cut short", b"GET /api/db"),
        ("nothing at all", b""),
    ] {
        let (got, after) = closed_within(addr, bytes, limit)
            .unwrap_or_else(|| panic!("{what}: still open after {limit:?}"));
        assert!(
            after >= Duration::from_millis(900) && after < Duration::from_secs(3),
            "{what}: closed after {after:?}"
        );
        assert!(!got.contains("200 OK"), "{what}: {got}");
    }
    // An idle kept-alive connection is closed after the same deadline.
    let (got, after) = closed_within(addr, b"GET /api/dbs HTTP/1.1\r\nHost: x\r\n\r\n", limit)
        .expect("an idle connection stays open");
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    assert!(after < Duration::from_secs(3), "{after:?}");
    // A body is never waited for: refused at once, the connection closed.
    let (got, after) = closed_within(
        addr,
        b"GET /api/dbs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc",
        limit,
    )
    .expect("a request with a body that never comes stays open");
    assert!(got.starts_with("HTTP/1.1 413"), "{got}");
    assert!(got.contains("{\"error\""), "{got}");
    assert!(after < Duration::from_millis(900), "{after:?}");
    assert_eq!(get(addr, "/api/dbs").status, 200);
}

#[test]
fn a_client_that_reads_none_of_its_answers_is_dropped_after_the_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve_with_one_second_deadlines(tmp.path());
    let addr = server.addr();
    // Many pipelined requests, their answers far more than the sockets' buffers hold, and
    // nothing read for a while: the server's writes stall, and it gives up on the client.
    let one = b"GET /api/dbs HTTP/1.1\r\nHost: x\r\n\r\n";
    let requests = 20_000;
    let mut s = TcpStream::connect(addr).unwrap();
    let sender = {
        let mut s = s.try_clone().unwrap();
        std::thread::spawn(move || {
            // Fails once the server has closed the connection: that is expected.
            let _ = s.write_all(&one.repeat(requests));
        })
    };
    std::thread::sleep(Duration::from_secs(4));
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut got = Vec::new();
    let ended = match s.read_to_end(&mut got) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    sender.join().unwrap();
    let answered = String::from_utf8_lossy(&got)
        .matches("HTTP/1.1 200")
        .count();
    assert!(
        ended,
        "the connection was not closed; {answered} answers read"
    );
    assert!(
        answered < requests,
        "all {requests} answers were sent: the stalled writes were waited for"
    );
    // Other clients are served meanwhile and after.
    assert_eq!(get(addr, "/api/dbs").status, 200);
}

#[test]
fn stop_signals_end_the_server_within_two_seconds_whatever_clients_do() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "db", SMALL, 8);
    for (name, sig) in [("SIGTERM", libc::SIGTERM), ("SIGINT", libc::SIGINT)] {
        let mut srv = ServeChild::start(&["--db", dir.to_str().unwrap()]);
        let mut half = TcpStream::connect(srv.addr).unwrap();
        half.write_all(b"GET /api/dbs HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        let _idle = TcpStream::connect(srv.addr).unwrap();
        assert_eq!(get(srv.addr, "/api/dbs").status, 200);
        srv.signal(sig);
        let t = Instant::now();
        let code = srv.exit_within(Duration::from_secs(2));
        assert_eq!(
            code,
            Some(Some(0)),
            "{name}: after {:?}: {}",
            t.elapsed(),
            srv.stderr()
        );
    }
}

#[test]
fn every_error_answer_is_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = vec![
        solve(tmp.path(), "bawo", SMALL, 8),
        solve(tmp.path(), "bao", BAO, 3),
    ];
    let server = start(ServeConfig::new(dirs, local())).unwrap();
    let addr = server.addr();
    let req = |line: &str, extra: &str| {
        raw(
            addr,
            format!("{line} HTTP/1.1\r\nHost: x\r\n{extra}Connection: close\r\n\r\n").as_bytes(),
        )
    };
    for method in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        let r = req(&format!("{method} /api/dbs"), "");
        let msg = error_of(&r, 405, method);
        assert!(msg.contains(method), "{msg}");
        assert!(
            r.headers.to_ascii_lowercase().contains("allow:"),
            "{method}"
        );
    }
    let long = format!("GET /api/query?db=bawo&board={}", "1,".repeat(1500));
    error_of(&req(&long, ""), 414, "a long target");
    let big = format!("X-Big: {}\r\n", "a".repeat(10_000));
    error_of(&req("GET /api/dbs", &big), 431, "a large head");
    error_of(&req("GET /api/dbs?x=1", ""), 400, "/api/dbs?x=1");
    error_of(&req("GET /api/dbs?db=bawo", ""), 400, "/api/dbs?db=");
    error_of(&req("GET /nothing", ""), 404, "an unknown path");
    let post = "POST /api/dbs HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
    error_of(&raw(addr, post.as_bytes()), 413, "a body");
    // HEAD is GET without the body.
    let r = req("HEAD /api/dbs", "");
    assert_eq!((r.status, r.body.as_str()), (200, ""));
    assert!(r.headers.contains("application/json"));
    assert_eq!(req("HEAD /nothing", "").status, 404);
    // What hyper refuses before the router sees it: statuses only (docs/serve.md).
    assert_eq!(raw(addr, b"garbage\r\n\r\n").status, 400);
    let many: String = (0..120).map(|i| format!("X-H{i}: 1\r\n")).collect();
    assert_eq!(req("GET /api/dbs", &many).status, 431);
}

#[test]
fn api_error_messages_name_keys_not_flags_or_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = vec![
        solve(tmp.path(), "bawo", SMALL, 8),
        solve(tmp.path(), "bao", BAO, 3),
    ];
    let server = start(ServeConfig::new(dirs, local())).unwrap();
    let addr = server.addr();
    let z = "0,".repeat(31) + "3";
    for target in [
        "/api/query?db=bawo&board=1,2,3".to_string(),
        "/api/query?db=bawo&board=0,0,0,0,0,0,0,x".to_string(),
        "/api/query?db=bawo&board=0,0,2,2,2,2,0,0&hands=1,1".to_string(),
        "/api/query?db=bawo&board=0,0,2,2,2,2,0,0&to_move=C".to_string(),
        "/api/query?db=bawo&board=0,0,2,2,2,2,0,0&after=9".to_string(),
        "/api/query?db=bawo&board=0,0,2,2,2,2,0,0&start=maybe".to_string(),
        "/api/query?db=bawo&board=0,,2,2,2,2,0,0".to_string(),
        "/api/query?db=bawo&board=9,9,9,9,9,9,9,9".to_string(),
        format!("/api/query?db=bao&board={z}&hands=1,x"),
        format!("/api/query?db=bao&board={z}&hands=0,0&houses=Q"),
        format!("/api/query?db=bao&board={z}&houses=A"),
        format!("/api/query?db=bao&board={z},1"),
    ] {
        let msg = error_of(&get(addr, &target), 400, &target);
        assert!(!msg.contains("--"), "{target}: {msg}");
        assert!(
            !msg.contains(tmp.path().to_str().unwrap()),
            "{target}: {msg}"
        );
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn a_manifest_or_tier_file_that_is_a_fifo_never_hangs_the_server() {
    let tmp = tempfile::tempdir().unwrap();
    let db = solve(tmp.path(), "db", SMALL, 8);
    let d = tmp.path().join("fifo-manifest");
    copy_dir(&db, &d);
    std::fs::remove_file(d.join("manifest.json")).unwrap();
    mkfifo(&d.join("manifest.json"));
    let mut child = crate::common::cli::clean_command(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--db",
        d.to_str().unwrap(),
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("serve hangs on a FIFO manifest");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a regular file"), "{err}");

    let d = tmp.path().join("fifo-tier");
    copy_dir(&db, &d);
    std::fs::remove_file(d.join("tier-0005.bdb")).unwrap();
    mkfifo(&d.join("tier-0005.bdb"));
    let mut srv = ServeChild::start(&["--db", d.to_str().unwrap()]);
    let log = srv.stderr();
    assert!(
        log.contains("tier-0005.bdb") && log.contains("not a regular file"),
        "{log}"
    );
    error_of(
        &get(srv.addr, "/api/query?board=5,0,0,0,0,0,0,0"),
        500,
        "a FIFO tier file",
    );
    assert_eq!(get(srv.addr, "/api/dbs").status, 200);
    srv.signal(libc::SIGINT);
    assert_eq!(srv.exit_within(Duration::from_secs(5)), Some(Some(0)));
}
