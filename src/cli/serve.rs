//! `serve`: the web explorer over finished databases (the server lives in [`bawo_serve`]).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use bawo_games::error::Result;
use bawo_serve::{serve, ServeConfig, DEFAULT_ADDR};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Database directory to serve (repeat for several); requests name it by its last
    /// path component.
    #[arg(long, required = true)]
    pub db: Vec<PathBuf>,
    /// Address to listen on. Anything but a loopback address lets other machines read the
    /// databases.
    #[arg(long, default_value = DEFAULT_ADDR)]
    pub addr: String,
    /// Threads answering requests (0: one per core, at most 8). Fewer threads than cores
    /// leave the rest to other work on the machine.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Seconds a client may take to send a request's head (and may stay idle between
    /// requests, or leave an answer unread) before its connection is closed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
}

pub fn run(a: ServeArgs) -> Result<()> {
    let mut config = ServeConfig::new(a.db, ServeConfig::parse_addr(&a.addr)?);
    config.threads = a.threads;
    config.header_timeout = Duration::from_secs(a.header_timeout);
    serve(config)
}
