#!/usr/bin/env bash
# Cold `bawo query` timing: each run is a new process that opens the database, checks the
# manifest and the tier files it needs, decodes the blocks of the position and of every
# position its moves lead to, and prints the answer. Prints the median and the largest
# wall time over RUNS runs (the files may be in the OS page cache: the first run reads them
# from disk, later ones do not; the median is the in-process cold cost).
#
#   scripts/time-query.sh DB BOARD [SIDE]          # e.g. a solve of n=3, 16 seeds
#   RUNS=50 BIN=/tmp/old/bawo scripts/time-query.sh DB 0,1,2,1,3,0,1,2,1,2,2,1 A
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/time-query.sh DB BOARD [SIDE]" >&2
  exit 2
fi
DB=$1
BOARD=$2
SIDE=${3:-A}
RUNS=${RUNS:-21}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/bawo
fi
"$BIN" query --db "$DB" --board "$BOARD" --to-move "$SIDE" >/dev/null
times=()
for _ in $(seq "$RUNS"); do
  t0=$(date +%s%N)
  "$BIN" query --db "$DB" --board "$BOARD" --to-move "$SIDE" >/dev/null
  t1=$(date +%s%N)
  times+=($(((t1 - t0) / 1000)))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(((RUNS + 1) / 2))p")
max=$(echo "$sorted" | tail -1)
printf 'cold query over %d runs: median %.2f ms, max %.2f ms\n' "$RUNS" \
  "$(echo "$median / 1000" | bc -l)" "$(echo "$max / 1000" | bc -l)"
