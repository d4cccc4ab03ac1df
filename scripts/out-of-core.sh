#!/usr/bin/env bash
# Out-of-core check: solves one instance under a small memory budget and again with a large
# one, reports peak resident memory (/usr/bin/time -v), bytes on disk and wall time of each,
# and checks that the tables are identical and the targets are met.
#
#   scripts/out-of-core.sh                          # n=4, 14 seeds, L=64 (291 million positions), --mem 1G
#   N=3 SEEDS=14 MEM=256M scripts/out-of-core.sh    # a quicker instance
#
# Targets (issue 3): peak RSS under RSS_LIMIT_MB (1300) with the small budget, and the
# budgeted run at most RATIO_LIMIT (1.5) times the wall time of the unbudgeted one.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-4}
SEEDS=${SEEDS:-14}
L=${L:-64}
MEM=${MEM:-1G}
BIG=${BIG:-16G}
THREADS=${THREADS:-$(nproc)}
RSS_LIMIT_MB=${RSS_LIMIT_MB:-1300}
RATIO_LIMIT=${RATIO_LIMIT:-1.5}

if [ ! -x /usr/bin/time ]; then
  echo "needs /usr/bin/time (Debian package 'time') for peak memory" >&2
  exit 2
fi
cargo build --release --quiet
BIN=$PWD/target/release/bawo
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bawo-ooc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
args=(--game bawo --n "$N" --seeds "$SEEDS" --lap-cap "$L" --threads "$THREADS" --quiet)

run() { # name mem
  local name=$1 mem=$2
  /usr/bin/time -v -o "$WORK/$name.time" "$BIN" solve "${args[@]}" --mem "$mem" \
    --out "$WORK/$name" --timings 2>"$WORK/$name.timings" >/dev/null
  local wall rss bytes
  wall=$(grep "Elapsed (wall clock)" "$WORK/$name.time" | awk '{print $NF}' |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(grep "Maximum resident set size" "$WORK/$name.time" | awk '{print $NF}')
  bytes=$(du -sb "$WORK/$name" | cut -f1)
  echo "$wall $rss $bytes"
}

echo "instance: n=$N seeds<=$SEEDS lap-cap=$L threads=$THREADS"
read -r small_wall small_rss small_bytes < <(run small "$MEM")
read -r big_wall big_rss big_bytes < <(run big "$BIG")
ranges=$(grep -o "ranges [0-9]*" "$WORK/small.timings" | awk '{print $2}' | sort -n | tail -1)

same=yes
# A finished run keeps only its compressed files (the raw tables are deleted at its end).
for f in "$WORK"/big/tier-*.bdb; do
  cmp -s "$f" "$WORK/small/$(basename "$f")" || { same=no; echo "differs: $(basename "$f")"; }
done

awk -v sw="$small_wall" -v sr="$small_rss" -v sb="$small_bytes" -v bw="$big_wall" \
  -v br="$big_rss" -v bb="$big_bytes" -v mem="$MEM" -v big="$BIG" -v rg="$ranges" \
  -v lim="$RSS_LIMIT_MB" -v rl="$RATIO_LIMIT" -v same="$same" 'BEGIN {
  printf "%-22s %10s %14s %14s\n", "run", "wall", "peak RSS", "on disk"
  printf "%-22s %9.1fs %11.0f MB %11.1f MB\n", "--mem " mem " (" rg " ranges)", sw, sr / 1024, sb / 1e6
  printf "%-22s %9.1fs %11.0f MB %11.1f MB\n", "--mem " big, bw, br / 1024, bb / 1e6
  ratio = sw / bw
  printf "budgeted / unbudgeted wall time: %.2fx (target <= %.2f)\n", ratio, rl
  printf "peak RSS with --mem %s: %.0f MB (target < %d MB)\n", mem, sr / 1024, lim
  printf "tables identical: %s\n", same
  ok = (same == "yes" && sr / 1024 < lim && ratio <= rl)
  print ok ? "PASS" : "FAIL"
  exit ok ? 0 : 1
}'
