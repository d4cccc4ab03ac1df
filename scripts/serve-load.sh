#!/usr/bin/env bash
# Load check of `bawo serve`, on this machine only: solves a Bawo database into a fresh
# temporary directory, serves it on a free loopback port, sends bursts of /api/query
# requests (examples/serve_load.rs: bounded in count, 30 s socket timeouts), prints the
# latency figures and the server's peak memory, stops the server with Ctrl-C (SIGINT) and
# deletes the temporary directory.
#
#   scripts/serve-load.sh            # bawo n=3 lap-cap=64 up to SEEDS=12 seeds
#   SEEDS=8 scripts/serve-load.sh    # a smaller database
#   THREADS=0 scripts/serve-load.sh  # the server's --threads (default here 1; 0: one per core)
#
# The default is one server thread because the generator runs on the same machine: on two
# cores it takes one of them, and a server with a worker per core only fights it for that core
# (README "serve", "Load"). Each line printed is one burst: p*_ms as the client read each
# response, arrival_p*_ms to the kernel's arrival stamp of the response; target p99 <= 20 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS="${SEEDS:-12}"
THREADS="${THREADS:-1}"
. scripts/serve-common.sh

"$bin" solve --game bawo --n 3 --lap-cap 64 --seeds "$SEEDS" --out "$work/db" --quiet
echo "database: bawo n=3 lap-cap=64 up to $SEEDS seeds, $(du -sh "$work/db" | cut -f1) on disk"
start_server "$THREADS"
echo "server: pid $pid at $addr, --threads $THREADS"
rss() { awk '/^VmRSS|^VmHWM/ {printf "%s %s %s  ", $1, $2, $3}' "/proc/$pid/status"; echo; }
echo "memory before load: $(rss)"
for run in "1000 1000" "1000 1000" "10000 64"; do
    set -- $run
    echo "requests $1, concurrency $2:"
    timeout 120 "$load" --addr "$addr" --db "$work/db" --requests "$1" --concurrency "$2"
done
echo "memory after load: $(rss)"
stop_server
echo "server stopped cleanly on SIGINT"
