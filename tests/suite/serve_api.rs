//! `bawo serve`'s JSON API on a free local port: answers checked against the brute-force
//! oracle and against the binary's own `query`, `moves` and `stats --json`; the perfect-play
//! line; malformed input, unknown names, path traversal, request size; the command's start,
//! address and clean stop on Ctrl-C.

use crate::common;
use crate::serve_support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use bawo_db::Database;
use bawo_games::game::Game;
use bawo_serve::{start, RunningServer, ServeConfig};
use common::bawo_oracle::{OPos, Oracle};
use common::{solve_by_rounds, OValue};
use serde_json::Value as Json;
use serve_support::*;

fn local() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn serve(dbs: &[PathBuf]) -> RunningServer {
    start(ServeConfig::new(dbs.to_vec(), local())).unwrap()
}

/// Query strings of a sample of every tier's positions (every `step`-th index).
fn sample_positions(dir: &std::path::Path, step: u64) -> Vec<(Vec<u32>, String)> {
    let db = Database::open(dir).unwrap();
    let mut out = Vec::new();
    bawo_games::with_game!(db.game(), g => {
        for r in &db.manifest().tiers {
            let mut i = 0;
            while i < r.counts.states {
                let p = g.position(r.tier, i);
                out.push((g.board_counts(&p), g.side_to_move(&p).letter().to_string()));
                i += step;
            }
        }
    });
    out
}

fn board_text(b: &[u32]) -> String {
    b.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

fn oracle_json(v: OValue) -> (String, Json) {
    match v {
        OValue::Win(d) => ("WIN".into(), Json::from(d)),
        OValue::Loss(d) => ("LOSS".into(), Json::from(d)),
        OValue::Draw => ("DRAW".into(), Json::Null),
    }
}

fn bawo_oracle() -> HashMap<OPos, OValue> {
    let o = Oracle::new(2, 64, false, false);
    solve_by_rounds(&o.positions(6), |p| o.successors(p))
}

/// Bawo n=2 with lap cap 2 up to 8 seeds: small, and it has draws (lines that cycle).
const DRAWISH: &[&str] = &["--game", "bawo", "--n", "2", "--lap-cap", "2"];

fn drawish_oracle() -> (Oracle, HashMap<OPos, OValue>) {
    let o = Oracle::new(2, 2, false, false);
    let values = solve_by_rounds(&o.positions(8), |p| o.successors(p));
    (o, values)
}

#[test]
fn answers_match_the_oracle_and_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = three_dbs(tmp.path());
    let server = serve(&dirs);
    let addr = server.addr();
    let oracle = bawo_oracle();

    // Every sampled Bawo position: value, depth and every move's value from the oracle.
    let mut checked = 0;
    for (board, side) in sample_positions(&dirs[0], 7) {
        let q = format!("db=bawo2&board={}&to_move={side}", enc(&board_text(&board)));
        let ans = get(addr, &format!("/api/query?{q}"));
        assert_eq!(ans.status, 200, "{}", ans.body);
        let ans = ans.json();
        let s = if side == "A" { 0 } else { 1 };
        let (v, d) = oracle_json(oracle[&(board.clone(), s)]);
        assert_eq!(
            (ans["value"].as_str().unwrap(), &ans["depth"]),
            (v.as_str(), &d)
        );
        let moves = get(addr, &format!("/api/moves?{q}")).json();
        let results: HashMap<String, Vec<u32>> = moves["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let b = m["board"].as_array().unwrap();
                let b = b.iter().map(|x| x.as_u64().unwrap() as u32).collect();
                (m["move"].as_str().unwrap().to_string(), b)
            })
            .collect();
        assert_eq!(results.len(), ans["moves"].as_array().unwrap().len());
        for m in ans["moves"].as_array().unwrap() {
            let to = &results[m["move"].as_str().unwrap()];
            let (v, d) = match oracle[&(to.clone(), 1 - s)] {
                OValue::Win(d) => ("LOSS", Json::from(d + 1)),
                OValue::Loss(d) => ("WIN", Json::from(d + 1)),
                OValue::Draw => ("DRAW", Json::Null),
            };
            assert_eq!((m["value"].as_str().unwrap(), &m["depth"]), (v, &d), "{q}");
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} positions checked");

    // The same JSON as the binary's query and moves, for every game.
    for (i, (dir, name, flags)) in [
        (&dirs[0], "bawo2", BAWO),
        (&dirs[1], "kigogo", KIGOGO),
        (&dirs[2], "bao", BAO),
    ]
    .into_iter()
    .enumerate()
    {
        let sample = sample_positions(dir, [97, 131, 5][i]);
        assert!(sample.len() >= 8, "{name}: {} positions", sample.len());
        for (board, side) in sample.iter().take(12) {
            let b = board_text(board);
            let q = format!("db={name}&board={}&to_move={side}", enc(&b));
            let d = dir.to_str().unwrap();
            let want = bin_json(&[
                "query",
                "--db",
                d,
                "--board",
                &b,
                "--to-move",
                side,
                "--json",
            ]);
            assert_eq!(
                get(addr, &format!("/api/query?{q}")).json(),
                want,
                "{name} {q}"
            );
            let mut args = vec!["moves"];
            args.extend_from_slice(flags);
            args.extend(["--board", &b, "--to-move", side, "--json"]);
            assert_eq!(
                get(addr, &format!("/api/moves?{q}")).json(),
                bin_json(&args)
            );
        }
        let want = bin_json(&["stats", "--db", dir.to_str().unwrap(), "--json"]);
        assert_eq!(get(addr, &format!("/api/stats?db={name}")).json(), want);
    }

    // Opening positions (outside these small databases) still have moves, as the binary's.
    for (name, flags) in [("kigogo", KIGOGO), ("bao", BAO)] {
        let mut args = vec!["moves"];
        args.extend_from_slice(flags);
        args.extend(["--start", "--json"]);
        let got = get(addr, &format!("/api/moves?db={name}&start=1"));
        assert_eq!(got.json(), bin_json(&args));
        let q = get(addr, &format!("/api/query?db={name}&start=1"));
        assert_eq!(q.status, 400, "{}", q.body);
        assert!(q.json()["error"].as_str().unwrap().contains("seed") || name == "bao");
    }
    server.stop().unwrap();
}

#[test]
fn databases_are_listed_with_their_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = three_dbs(tmp.path());
    let server = serve(&dirs);
    let list = get(server.addr(), "/api/dbs").json();
    let list = list.as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|d| d["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["bawo2", "kigogo", "bao"]);
    for (d, dir) in list.iter().zip(&dirs) {
        let stats = bin_json(&["stats", "--db", dir.to_str().unwrap(), "--json"]);
        assert_eq!(d["descriptor"], stats["game"]);
        for k in ["states", "win", "loss", "draw"] {
            assert_eq!(d[k], stats[k], "{k}");
        }
        assert_eq!(d["complete"], true);
        assert_eq!(
            d["tiers"].as_array().unwrap().len(),
            stats["tiers"].as_array().unwrap().len()
        );
    }
    assert_eq!(list[0]["game"], "bawo");
    assert_eq!(list[0]["n"], 2);
    assert_eq!(list[0]["pits"], 8);
    assert_eq!(list[0]["start"], Json::Null);
    assert_eq!(list[1]["pits"], 48);
    assert_eq!(list[2]["pits"], 32);
    assert_eq!(list[2]["start"]["hands"], serde_json::json!([22, 22]));

    // Several databases: db= is needed; one database: it may be left out.
    let r = get(server.addr(), "/api/stats");
    assert_eq!(r.status, 400);
    assert!(r.json()["error"].as_str().unwrap().contains("bawo2"));
    let one = serve(&dirs[..1]);
    let r = get(one.addr(), "/api/query?board=0,0,2,0,0,0,0,1&to_move=A");
    assert_eq!(r.status, 200, "{}", r.body);
    let want = bin_json(&[
        "query",
        "--db",
        dirs[0].to_str().unwrap(),
        "--board",
        "0,0,2,0,0,0,0,1",
        "--json",
    ]);
    assert_eq!(r.json(), want);
}

#[test]
fn the_perfect_play_line_hurries_wins_and_delays_losses() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "drawish", DRAWISH, 8);
    let server = serve(std::slice::from_ref(&dir));
    let addr = server.addr();
    let (o, oracle) = drawish_oracle();
    assert!(oracle.values().any(|v| *v == OValue::Draw));
    let mut ends = HashMap::new();
    for (board, side) in sample_positions(&dir, 13) {
        let s = if side == "A" { 0u8 } else { 1 };
        let q = format!("board={}&to_move={side}", enc(&board_text(&board)));
        let line = get(addr, &format!("/api/line?{q}"));
        assert_eq!(line.status, 200, "{}", line.body);
        let line = line.json();
        let (v, d) = oracle_json(oracle[&(board.clone(), s)]);
        assert_eq!(
            (line["value"].as_str().unwrap(), &line["depth"]),
            (v.as_str(), &d)
        );
        let plies = line["plies"].as_array().unwrap();
        let end = line["end"].as_str().unwrap().to_string();
        *ends.entry(end.clone()).or_insert(0) += 1;
        // Walk the line with the oracle: each ply is a legal move, and its value is the
        // best the mover can get (fastest win, any draw, slowest loss).
        let mut pos: OPos = (board.clone(), s);
        for p in plies {
            let best = o
                .successors(&pos)
                .into_iter()
                .map(|succ| match succ {
                    common::OSucc::To(q) => match oracle[&q] {
                        OValue::Win(d) => (2, -(d as i64 + 1)),
                        OValue::Draw => (1, 0),
                        OValue::Loss(d) => (0, d as i64 + 1),
                    },
                    common::OSucc::MoverLoses => (2, -1),
                })
                .min()
                .expect("a ply from a position without moves");
            let got = match p["value"].as_str().unwrap() {
                "WIN" => (0, p["depth"].as_i64().unwrap()),
                "DRAW" => (1, 0),
                _ => (2, -p["depth"].as_i64().unwrap()),
            };
            assert_eq!(got, best, "{q}: ply {p}");
            let next: Vec<u32> = p["board"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect();
            let legal = o.legal(&pos.0, pos.1);
            assert!(
                legal.iter().any(|m| m.board == next),
                "{q}: illegal ply {p}"
            );
            pos = (next, 1 - pos.1);
        }
        match (v.as_str(), end.as_str()) {
            ("WIN" | "LOSS", "no-legal-move") => {
                assert_eq!(plies.len() as u64, d.as_u64().unwrap(), "{q}");
                assert!(o.legal(&pos.0, pos.1).is_empty());
            }
            ("DRAW", "cycle" | "limit") => {}
            other => panic!("{q}: line of a {other:?}"),
        }
    }
    assert!(ends.contains_key("no-legal-move"), "{ends:?}");
    assert!(ends.contains_key("cycle"), "{ends:?}");

    // The limit is honoured and bounded.
    let drawn = sample_positions(&dir, 1)
        .into_iter()
        .find(|(b, s)| oracle[&(b.clone(), if s == "A" { 0 } else { 1 })] == OValue::Draw)
        .unwrap();
    let q = format!("board={}&to_move={}", enc(&board_text(&drawn.0)), drawn.1);
    let line = get(addr, &format!("/api/line?{q}&limit=1")).json();
    assert_eq!(line["plies"].as_array().unwrap().len(), 1);
    assert_eq!(line["end"], "limit");
    assert_eq!(get(addr, &format!("/api/line?{q}&limit=1001")).status, 400);
    assert_eq!(get(addr, &format!("/api/line?{q}&limit=0")).status, 400);
}

#[test]
fn malformed_input_is_a_400_with_a_json_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = three_dbs(tmp.path());
    let server = serve(&dirs);
    let addr = server.addr();
    let bad = [
        "/api/query?db=bawo2",
        "/api/query?db=bawo2&board=",
        "/api/query?db=bawo2&board=1,2,3",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,x",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,-1",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,256",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,99999999999999999999",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,1&to_move=C",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,200",
        "/api/query?db=bawo2&board=0,,0,0,0,0,0,1",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,2&after=7",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,2&after=%00%ff",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,2&start=1",
        "/api/query?db=bawo2&start=maybe",
        "/api/query?db=bawo2&board=0,0,0,0,0,0,0,2&color=red",
        "/api/query?db=bawo2&board=%ZZ",
        "/api/query?db=bawo2&board=1&board=2",
        "/api/moves?db=bawo2&board=%F0%9F%92%A5",
        "/api/line?db=bawo2&board=0,0,0,0,0,0,0,2&limit=many",
        "/api/query?db=kigogo&board=0,0",
        "/api/query?db=kigogo&board=2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,9",
        "/api/query?db=bao&start=1",
        "/api/query?db=bao&board=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3&hands=1,x",
        "/api/query?db=bao&board=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3&houses=Q",
        "/api/stats?db=bawo2&extra=1",
        "/api/stats?db=bawo2&db=kigogo",
    ];
    for target in bad {
        let r = get(addr, target);
        assert_eq!(r.status, 400, "{target}: {}", r.body);
        assert!(
            r.headers.to_ascii_lowercase().contains("application/json"),
            "{target}"
        );
        let msg = r.json()["error"].as_str().unwrap().to_string();
        assert!(!msg.is_empty(), "{target}");
    }
    // The server is still answering after all of that.
    assert_eq!(get(addr, "/api/dbs").status, 200);
}

#[test]
fn unknown_names_and_paths_are_404_and_nothing_outside_is_served() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = three_dbs(tmp.path());
    std::fs::write(tmp.path().join("secret.txt"), "TOP-SECRET").unwrap();
    let server = serve(&dirs);
    let addr = server.addr();
    for target in [
        "/api/query?db=nope&board=1",
        "/api/stats?db=..",
        "/api/stats?db=../bawo2",
        "/api/stats?db=%2e%2e%2fsecret.txt",
        "/api/stats?db=bawo2%2f..%2f..%2fsecret.txt",
        "/api/stats?db=/etc/passwd",
        "/nothing",
        "/api",
        "/api/",
        "/api/nothing",
        "/../secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e/%2e%2e/secret.txt",
        "/bawo2/manifest.json",
        "/api/../bawo2/manifest.json",
        "/app.js/../../secret.txt",
        "//etc/passwd",
        "/static/..%2f..%2fsecret.txt",
        "/manifest.json",
        "/style.css/",
        "/index.html/..",
    ] {
        let r = get(addr, target);
        assert!(
            r.status == 404 || r.status == 400,
            "{target}: {} {}",
            r.status,
            r.body
        );
        assert!(!r.body.contains("TOP-SECRET"), "{target}");
        assert!(!r.body.contains("fingerprint"), "{target}");
        assert!(!r.body.contains("root:"), "{target}");
        r.json();
    }
    for target in [
        "/api/query?db=nope&board=1",
        "/api/stats?db=..",
        "/nothing",
        "/manifest.json",
    ] {
        assert_eq!(get(addr, target).status, 404, "{target}");
    }
    // The page itself is served, with the right types.
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<svg id=\"board\""));
    assert!(get(addr, "/app.js").headers.contains("text/javascript"));
    assert!(get(addr, "/style.css").headers.contains("text/css"));
}

#[test]
fn requests_are_bounded_and_read_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "bawo2", BAWO, 6);
    let server = serve(std::slice::from_ref(&dir));
    let addr = server.addr();
    let long = format!("/api/query?board={}", "1,".repeat(5000));
    let r = get(addr, &long);
    assert_eq!(r.status, 414, "{}", r.body);
    r.json();
    // Headers beyond hyper's buffer are refused without taking the server down.
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let _ = std::io::Write::write_all(&mut s, huge.as_bytes());
    drop(s);
    let body = "x".repeat(100_000);
    let post = format!(
        "POST /api/query HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let r = raw(addr, post.as_bytes());
    assert!(r.status == 413 || r.status == 405, "{}", r.status);
    let r = raw(
        addr,
        b"DELETE /api/dbs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(r.status, 405);
    let r = raw(addr, b"garbage\r\n\r\n");
    assert_eq!(r.status, 400);
    assert_eq!(get(addr, "/api/dbs").status, 200);
}

#[test]
fn the_command_serves_until_ctrl_c_and_refuses_bad_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = solve(tmp.path(), "bawo2", BAWO, 6);
    let mut srv = ServeChild::start(&["--db", dir.to_str().unwrap()]);
    let addr = srv.addr;
    assert!(addr.ip().is_loopback());
    assert_eq!(get(addr, "/api/dbs").json()[0]["name"], "bawo2");
    srv.signal(libc::SIGINT);
    let code = srv.exit_within(Duration::from_secs(20));
    assert_eq!(code, Some(Some(0)), "serve did not stop on SIGINT with 0");

    let run = |args: &[&str]| Command::new(BIN).args(args).output().unwrap();
    let out = run(&["serve", "--db", tmp.path().join("none").to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&[
        "serve",
        "--db",
        dir.to_str().unwrap(),
        "--addr",
        "localhost-ish",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--addr"));
    let out = run(&["serve"]);
    assert_eq!(out.status.code(), Some(2));
}
