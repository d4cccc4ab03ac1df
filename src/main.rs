//! The `bawo` command line: parse, call the library, print. `main` maps errors to exit codes:
//! 0 ok, 1 failure, 2 usage error; a reader that closed standard output early is no failure
//! (0, see `cli::out`).

mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(()) => 0,
        // The reader of standard output closed the pipe early (`| head`): it wanted no more.
        // Only pipes raise this; bawo's own files are regular files.
        Err(bawo::Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            bawo::progress::note(format_args!("bawo: {e}"));
            e.exit_code()
        }
    };
    std::process::exit(code);
}
