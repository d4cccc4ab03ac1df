//! What the serve tests share: small databases solved by the binary, a plain HTTP/1.1 client
//! over a socket (so tests can send paths and bytes no URL library would), and the binary's
//! own JSON for comparison.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_bawo");

/// Game flags of the three small databases.
pub const BAWO: &[&str] = &["--game", "bawo", "--n", "2", "--lap-cap", "64"];
pub const KIGOGO: &[&str] = &["--game", "kigogo"];
pub const BAO: &[&str] = &["--game", "bao"];

/// Solves `game` up to `seeds` with the binary into `parent/name`.
pub fn solve(
    parent: &std::path::Path,
    name: &str,
    game: &[&str],
    seeds: u32,
) -> std::path::PathBuf {
    let out = parent.join(name);
    let st = Command::new(BIN)
        .arg("solve")
        .args(game)
        .args([
            "--seeds",
            &seeds.to_string(),
            "--quiet",
            "--threads",
            "2",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    out
}

/// The three test databases: bawo n=2 up to 6 seeds, kigogo up to 2, bao mtaji with 3.
pub fn three_dbs(parent: &std::path::Path) -> Vec<std::path::PathBuf> {
    vec![
        solve(parent, "bawo2", BAWO, 6),
        solve(parent, "kigogo", KIGOGO, 2),
        solve(parent, "bao", BAO, 3),
    ]
}

/// A response: status code, header block, body.
pub struct Reply {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// Sends `request` as it is and reads the whole answer (the request should close).
pub fn raw(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    Reply {
        status,
        headers: head.to_string(),
        body: body.to_string(),
    }
}

/// `GET target` (sent byte for byte, no normalisation).
pub fn get(addr: SocketAddr, target: &str) -> Reply {
    raw(
        addr,
        format!("GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The binary's `--json` output of `args`.
pub fn bin_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "bawo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
