#!/usr/bin/env bash
# Whole-solve benchmark: solves one Generalized Bawo instance end to end and a bare pass that
# only generates every position's successors, and prints wall time, positions per second,
# peak resident memory and bytes written.
#
#   scripts/bench-solve.sh                      # the benchmark instance: n=3, 16 seeds, L=64
#   N=4 SEEDS=12 L=64 THREADS=2 scripts/bench-solve.sh
#   EXTRA="--mem 1G" scripts/bench-solve.sh     # extra solve flags
#   BIN=/tmp/old/bawo scripts/bench-solve.sh     # another build (no cargo build), to compare
#                                                # (the bare pass is BIN's examples/bare_pass,
#                                                # or BARE=path)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-3}
SEEDS=${SEEDS:-16}
L=${L:-64}
THREADS=${THREADS:-$(nproc)}
EXTRA=${EXTRA:-}

if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin bawo --example bare_pass
  BIN=target/release/bawo
fi
BARE=${BARE:-$(dirname "$BIN")/examples/bare_pass}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bawo-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
args=(--game bawo --n "$N" --seeds "$SEEDS" --lap-cap "$L" --threads "$THREADS")

num() { grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2; }

echo "instance: n=$N seeds<=$SEEDS lap-cap=$L threads=$THREADS $EXTRA"

"$BARE" "bawo n=$N lap-cap=$L" "$SEEDS" "$THREADS" >"$WORK/bare.json"
bare_s=$(num seconds "$WORK/bare.json")

timer=()
if [ -x /usr/bin/time ]; then timer=(/usr/bin/time -v -o "$WORK/time.txt"); fi
start=$(date +%s.%N)
# shellcheck disable=SC2086
"${timer[@]}" "$BIN" solve "${args[@]}" --out "$WORK/db" --json --quiet $EXTRA >"$WORK/summary.json"
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
states=$(num states "$WORK/summary.json")
# What the solver wrote (its per-tier bytes_written), and what the finished run keeps.
bytes=$(grep -o '"bytes_written":[0-9]*' "$WORK/summary.json" | cut -d: -f2 | awk '{ s += $1 } END { print s + 0 }')
kept=$(du -sb "$WORK/db" | cut -f1)
peak_kb=""
if [ -f "$WORK/time.txt" ]; then
  peak_kb=$(grep "Maximum resident set size" "$WORK/time.txt" | awk '{print $NF}')
fi

awk -v s="$states" -v w="$wall" -v b="$bare_s" -v t="$THREADS" -v by="$bytes" -v kp="$kept" -v pk="$peak_kb" 'BEGIN {
  printf "positions            %d\n", s
  printf "solve wall time      %.2f s\n", w
  printf "positions per second %.2f M (%.2f M per thread)\n", s / w / 1e6, s / w / 1e6 / t
  printf "bare successor pass  %.2f s (%.2f M positions/s)\n", b, s / b / 1e6
  printf "solve / bare pass    %.2fx\n", w / b
  if (pk != "") printf "peak resident memory %.1f MB\n", pk / 1024
  printf "bytes written        %.1f MB (%.1f per position)\n", by / 1e6, by / s
  printf "left on disk         %.1f MB\n", kp / 1e6
}'
