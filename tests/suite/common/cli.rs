//! The one harness for running the `bawo` binary in tests: run it, read what it printed, and
//! check the exit-code contract (0 ok, 1 failure, 2 usage error; an error is one line starting
//! with `bawo: `, never a panic).
//!
//! Every run starts with standard input closed and the fault-injection switches of
//! `bawo_store::fault` unset, so a variable left in the test's environment cannot change a
//! run; [`bawo_env`] sets them on purpose.

use std::ffi::OsStr;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_bawo");

/// Environment variables that inject faults (see `bawo_store::fault`), cleared so that a
/// caller's shell never changes a test.
const FAULT_SWITCHES: [&str; 9] = [
    "BAWO_ABORT_AFTER_CHECKPOINTS",
    "BAWO_FAIL_WRITES_AFTER",
    "BAWO_MESSAGE_BUDGET",
    "BAWO_HELD_CELLS",
    "BAWO_WIDE_ABOVE",
    "BAWO_FREE_DISK",
    "BAWO_ALLOW_MEM_ABOVE_PHYSICAL",
    "BAWO_OPEN_LOGS",
    "BAWO_IN_PLACE_FROM",
];

fn command<S: AsRef<OsStr>>(args: &[S], env: &[(&str, String)]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args);
    for k in FAULT_SWITCHES {
        c.env_remove(k);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// The command `bawo args` with the fault-injection switches unset, for a test that spawns
/// the child and waits for it itself (to read its peak memory, say).
pub fn clean_command<S: AsRef<OsStr>>(args: &[S]) -> Command {
    command(args, &[])
}

/// Runs `bawo args` with standard input closed.
pub fn bawo<S: AsRef<OsStr>>(args: &[S]) -> Output {
    bawo_env(args, &[])
}

/// Runs `bawo args` with the extra environment `env` (fault injection) and standard input
/// closed.
pub fn bawo_env<S: AsRef<OsStr>>(args: &[S], env: &[(&str, String)]) -> Output {
    command(args, env)
        .stdin(Stdio::null())
        .output()
        .expect("run bawo")
}

/// Runs `bawo args` with `input` (text, or any bytes) on standard input, closed after it.
pub fn bawo_stdin<S: AsRef<OsStr>>(args: &[S], input: impl AsRef<[u8]>) -> Output {
    let mut child = command(args, &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bawo");
    {
        let mut stdin = child.stdin.take().expect("piped stdin");
        stdin.write_all(input.as_ref()).expect("write stdin");
    }
    child.wait_with_output().expect("wait for bawo")
}

/// Output bytes as text (lossy: a test failure should show the bytes, not panic on them).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The one JSON object a successful run printed on standard output.
#[track_caller]
pub fn json(out: &Output) -> serde_json::Value {
    assert_ok(out, "bawo");
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// The keys of a JSON object, sorted.
pub fn sorted_keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .expect("a JSON object")
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

/// The run succeeded (exit code 0); otherwise fails showing `what` and standard error.
#[track_caller]
pub fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}",
        out.status,
        text(&out.stderr)
    );
}

/// A clean failure: exit code `code`, and standard error one line that starts with `bawo: `,
/// contains `needle`, and tells no panic.
#[track_caller]
pub fn assert_fails(out: &Output, code: i32, needle: &str, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: {:?}: {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: one line expected: {err}");
    assert!(err.starts_with("bawo: "), "{what}: not a bawo error: {err}");
    assert!(err.contains(needle), "{what}: '{needle}' not in: {err}");
}

/// `bawo args` is refused as a usage error (exit code 2) in one line containing `needle`.
#[track_caller]
pub fn assert_usage_error(args: &[&str], needle: &str) {
    assert_fails(&bawo(args), 2, needle, &format!("args {args:?}"));
}

/// Runs the binary with `args`; returns its exit code, its standard output and error, and its
/// peak resident memory in bytes.
// The child is reaped by `wait4`, which also reports its own peak memory (`Child::wait`
// does not).
#[allow(clippy::zombie_processes)]
pub fn run_measured(args: &[&str]) -> (i32, String, String, u64) {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let child = clean_command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
        .spawn()
        .expect("run bawo");
    let mut status = 0;
    // SAFETY: plain C structs and a pid this process spawned and has not waited for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let text = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    // ru_maxrss is in KiB on Linux.
    (code, text(&out), text(&err), usage.ru_maxrss as u64 * 1024)
}
