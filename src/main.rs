//! The `bawo` command line: parse, call the library, print. `main` maps errors to exit codes:
//! 0 ok, 1 failure, 2 usage error.

mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("bawo: {e}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
