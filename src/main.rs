//! The `bawo` command line: parse, call the library, print. `main` maps errors to exit codes:
//! 0 ok, 1 failure, 2 usage error; a reader that closed standard output early is no failure
//! (0, see `cli::out`).

mod cli;
mod plot;
mod progress;

use clap::Parser;

/// Large blocks go back to the system when freed. By default glibc raises its mmap threshold
/// after the first large free (up to 32 MiB) and then serves such blocks from arenas that
/// keep freed memory: tens of MiB above what the solver holds, beyond `--mem`.
fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 17);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 17);
    }
}

fn main() {
    return_freed_memory();
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(()) => 0,
        // The reader of standard output closed the pipe early (`| head`): it wanted no more.
        // Only pipes raise this; bawo's own files are regular files.
        Err(bawo_games::Error::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            0
        }
        Err(e) => {
            progress::note(format_args!("bawo: {e}"));
            cli::exit_code(&e)
        }
    };
    std::process::exit(code);
}
