//! Writing to standard output and standard error without ever panicking.
//!
//! `println!` panics when standard output is gone (`bawo moves ... | head -c 10`), which ends
//! the process with exit code 101. Here a reader that closed the pipe early ends the command
//! quietly with exit code 0 (it asked for no more), and any other failure to write standard
//! output (a full disk) is a one-line error with exit code 1. Standard error carries only
//! notes: failing to write one is ignored, never worth stopping a command for.

use std::fmt;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicI32, Ordering};

/// The exit code when the reader closes standard output early: 0, unless the command already
/// knows it fails (a `verify` that found damage) and says so with [`fail_even_if_closed`].
static CLOSED_CODE: AtomicI32 = AtomicI32::new(0);

/// Makes a closed standard output end the process with `code`: the command's outcome is
/// already decided, and a reader that stopped early must not turn a failure into success.
pub fn fail_even_if_closed(code: i32) {
    CLOSED_CODE.store(code, Ordering::Relaxed);
}

/// Writes `args` to standard output, ending the process as described in the module doc if
/// standard output cannot take it.
pub fn write_stdout(args: fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        stdout_failed(e);
    }
}

/// Ends the process after a failed write to standard output: quietly when the reader closed
/// the pipe (exit 0, or the code given to [`fail_even_if_closed`]), with a one-line error
/// (exit 1) otherwise.
fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_CODE.load(Ordering::Relaxed));
    }
    crate::progress::note(format_args!("bawo: cannot write to standard output: {e}"));
    std::process::exit(1);
}

/// `println!` for the command line: see [`write_stdout`].
macro_rules! outln {
    () => {
        $crate::cli::out::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::out::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the command line: see [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::out::write_stdout(format_args!($($arg)*))
    };
}

/// `eprintln!` that ignores a failed write (see [`crate::progress::note`]).
macro_rules! errln {
    ($($arg:tt)*) => {
        crate::progress::note(format_args!($($arg)*))
    };
}
