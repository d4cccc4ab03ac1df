#!/usr/bin/env bash
# Where the CPU of a `bawo serve` load goes, on this machine only: solves Bawo n=3, lap cap 64,
# 12 seeds into a temporary directory, starts a server (--threads THREADS, default 1), and for
# each burst (three of 1,000 clients at once, one of 64 clients x 10,000 requests;
# examples/serve_load.rs) prints the generator's JSON line, the server's CPU while the burst
# ran (`perf stat -p`, connecting and the untimed first requests included) and the generator's
# (`perf stat`, its setup included). Needs `perf`. Deletes its directory.
#
#   scripts/serve-cpu.sh
#   THREADS=0 scripts/serve-cpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS="${THREADS:-1}"
. scripts/serve-common.sh
"$bin" solve --game bawo --n 3 --lap-cap 64 --seeds 12 --out "$work/db" --quiet
start_server "$THREADS"
cpu() { awk '/task-clock/ {printf "%s ms", $1} /context-switches/ {printf ", %s switches", $1}' "$1"; }
for run in "1000 1000" "1000 1000" "1000 1000" "10000 64"; do
    set -- $run
    perf stat -e task-clock,context-switches -p "$pid" -o "$work/server.stat" &
    stat_pid=$!
    sleep 0.2
    line="$(perf stat -e task-clock,context-switches -o "$work/load.stat" \
        timeout 120 "$load" --addr "$addr" --db "$work/db" --requests "$1" --concurrency "$2")"
    kill -INT "$stat_pid"
    wait "$stat_pid" || true
    echo "$line"
    echo "  server CPU: $(cpu "$work/server.stat"); generator CPU: $(cpu "$work/load.stat")"
done
stop_server
