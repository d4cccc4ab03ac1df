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

/// `bawo serve` run as a child process (so that a signal that would kill a server kills only
/// it), its standard error kept in a file to read afterwards.
pub struct ServeChild {
    pub child: std::process::Child,
    pub addr: SocketAddr,
    err: tempfile::NamedTempFile,
}

impl ServeChild {
    /// Starts `bawo serve --addr 127.0.0.1:0 ARGS` and waits for the address it prints.
    pub fn start(args: &[&str]) -> ServeChild {
        let err = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(err.reopen().unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let addr = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("http://"))
            .and_then(|a| a.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| {
                let _ = child.kill();
                panic!(
                    "no address in {line:?}; stderr: {}",
                    std::fs::read_to_string(err.path()).unwrap_or_default()
                )
            });
        ServeChild { child, addr, err }
    }

    /// Sends `signal` (`libc::SIGINT`, `libc::SIGTERM`) to the server.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid, which it still is until waited for.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// The exit code once the server has exited, waiting at most `limit`; `None` if it is
    /// still running then (or was killed by a signal: `Some(None)` is not told apart here).
    pub fn exit_within(&mut self, limit: Duration) -> Option<Option<i32>> {
        let t = std::time::Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s.code());
            }
            if t.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// What the server wrote on standard error so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(self.err.path()).unwrap_or_default()
    }
}

impl Drop for ServeChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
