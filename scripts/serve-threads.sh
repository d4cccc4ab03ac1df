#!/usr/bin/env bash
# A/B of `bawo serve --threads` under bursts of 1,000 /api/query requests at once, on this
# machine only: solves Bawo n=3, lap cap 64, 12 seeds into a temporary directory, then for
# ROUNDS rounds starts a fresh server for each thread count in THREADS_LIST and sends it two
# bursts (examples/serve_load.rs), printing one JSON line per burst. Deletes its directory.
#
#   scripts/serve-threads.sh                         # THREADS_LIST="0 1", ROUNDS=3
#   THREADS_LIST="1 2 4" ROUNDS=2 scripts/serve-threads.sh
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS_LIST="${THREADS_LIST:-0 1}"
ROUNDS="${ROUNDS:-3}"
. scripts/serve-common.sh
"$bin" solve --game bawo --n 3 --lap-cap 64 --seeds 12 --out "$work/db" --quiet
for _ in $(seq 1 "$ROUNDS"); do
    for t in $THREADS_LIST; do
        start_server "$t"
        for _ in 1 2; do
            echo "threads=$t $(timeout 60 "$load" --addr "$addr" --db "$work/db" --requests 1000 --concurrency 1000)"
        done
        stop_server
    done
done
