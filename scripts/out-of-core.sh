#!/usr/bin/env bash
# Out-of-core check: for each seed count, solves one instance without a budget and again under
# each small budget, and reports peak resident memory (/usr/bin/time -v, the whole process),
# bytes on disk and wall time of each; then reads the smallest budget's database with
# `stats --mem` and `verify --sample --mem` under the same budget.
#
#   scripts/out-of-core.sh                                 # n=4, 14 and 15 seeds, L=64; 256M 512M 1G
#   SEEDS_LIST=14 MEMS="512M" scripts/out-of-core.sh       # one instance, one budget
#   N=3 SEEDS_LIST=15 MEMS=160M scripts/out-of-core.sh     # a quicker instance
#   BIN=/tmp/bawo scripts/out-of-core.sh                   # a binary built before
#
# Targets (issue 11): peak RSS <= --mem for every budgeted run and reader, each budgeted run
# at most RATIO_LIMIT (1.3) times the wall time of the unbudgeted one of the same instance, and
# identical tables. Each check prints PASS or FAIL; the script exits 1 if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-4}
SEEDS_LIST=${SEEDS_LIST:-14 15}
L=${L:-64}
MEMS=${MEMS:-256M 512M 1G}
BIG=${BIG:-16G}
THREADS=${THREADS:-$(nproc)}
RATIO_LIMIT=${RATIO_LIMIT:-1.3}
SAMPLE=${SAMPLE:-1000000}

if [ ! -x /usr/bin/time ]; then
  echo "needs /usr/bin/time (Debian package 'time') for peak memory" >&2
  exit 2
fi
if [ -z "${BIN:-}" ]; then # BIN=path/to/bawo skips the build
  cargo build --release --quiet
  BIN=$PWD/target/release/bawo
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bawo-ooc.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failed=0

bytes_of() { # 1G, 512M, 256K -> bytes
  awk -v s="$1" 'BEGIN { n = s + 0; u = toupper(substr(s, length(s)));
    m = (u == "G") ? 2^30 : (u == "M") ? 2^20 : (u == "K") ? 2^10 : 1; printf "%.0f", n * m }'
}

measure() { # name cmd... -> "wall_s peak_rss_bytes"
  local name=$1
  shift
  /usr/bin/time -v -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$WORK/$name.time" | awk '{print $NF}' |
    awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  rss=$(grep "Maximum resident set size" "$WORK/$name.time" | awk '{print $NF * 1024}')
  echo "$wall $rss"
}

check() { # label ok(0/1) detail
  if [ "$2" = 1 ]; then echo "PASS  $1 ($3)"; else echo "FAIL  $1 ($3)"; failed=1; fi
}

printf "%-26s %9s %12s %11s %7s\n" "run" "wall" "peak RSS" "on disk" "ranges"
for SEEDS in $SEEDS_LIST; do
  args=(solve --game bawo --n "$N" --seeds "$SEEDS" --lap-cap "$L" --threads "$THREADS" --quiet --timings)
  big=big-$SEEDS
  read -r big_wall big_rss < <(measure "$big" "$BIN" "${args[@]}" --mem "$BIG" --out "$WORK/$big")
  printf "%-26s %8.1fs %9.0f MiB %8.1f MB %7s\n" "n=$N s=$SEEDS --mem $BIG" "$big_wall" \
    "$(echo "$big_rss / 1048576" | bc -l)" "$(du -sb "$WORK/$big" | awk '{print $1 / 1e6}')" 1
  small_dir=""
  for MEM in $MEMS; do
    name=small-$SEEDS-$MEM
    read -r wall rss < <(measure "$name" "$BIN" "${args[@]}" --mem "$MEM" --out "$WORK/$name")
    ranges=$(grep -o "ranges [0-9]*" "$WORK/$name.err" | awk '{print $2}' | sort -n | tail -1)
    printf "%-26s %8.1fs %9.0f MiB %8.1f MB %7s\n" "n=$N s=$SEEDS --mem $MEM" "$wall" \
      "$(echo "$rss / 1048576" | bc -l)" "$(du -sb "$WORK/$name" | awk '{print $1 / 1e6}')" "${ranges:-1}"
    limit=$(bytes_of "$MEM")
    check "n=$N s=$SEEDS solve --mem $MEM: peak RSS <= --mem" "$(awk -v r="$rss" -v l="$limit" 'BEGIN{print (r <= l) ? 1 : 0}')" \
      "$(awk -v r="$rss" 'BEGIN{printf "%.0f MiB", r / 1048576}')"
    check "n=$N s=$SEEDS solve --mem $MEM: wall <= ${RATIO_LIMIT}x unbudgeted" \
      "$(awk -v a="$wall" -v b="$big_wall" -v x="$RATIO_LIMIT" 'BEGIN{print (a <= x * b) ? 1 : 0}')" \
      "$(awk -v a="$wall" -v b="$big_wall" 'BEGIN{printf "%.2fx", a / b}')"
    same=1
    # A finished run keeps only its compressed files (the raw tables are deleted at its end).
    for f in "$WORK/$big"/tier-*.bdb; do
      cmp -s "$f" "$WORK/$name/$(basename "$f")" || { same=0; echo "differs: $name/$(basename "$f")"; }
    done
    check "n=$N s=$SEEDS solve --mem $MEM: tables identical to unbudgeted" "$same" "$(ls "$WORK/$name" | grep -c '\.bdb$') tiers"
    if [ -z "$small_dir" ]; then
      small_dir=$WORK/$name
      # Readers of the database under the same (smallest) budget.
      for reader in stats verify; do
        extra=()
        [ "$reader" = verify ] && extra=(--sample "$SAMPLE" --threads "$THREADS")
        read -r rwall rrss < <(measure "$reader-$SEEDS" "$BIN" "$reader" --db "$small_dir" --mem "$MEM" "${extra[@]}")
        ok=$(awk -v r="$rrss" -v l="$limit" 'BEGIN{print (r <= l) ? 1 : 0}')
        [ "$reader" = verify ] && ! grep -q ": 0 disagree" "$WORK/$reader-$SEEDS.out" && ok=0
        check "n=$N s=$SEEDS $reader ${extra[*]} --mem $MEM: peak RSS <= --mem" "$ok" \
          "$(awk -v r="$rrss" -v w="$rwall" 'BEGIN{printf "%.0f MiB, %.1fs", r / 1048576, w}')"
      done
    fi
  done
  rm -rf "${WORK:?}"/small-"$SEEDS"-* "${WORK:?}/$big"
done
if [ "$failed" = 0 ]; then echo "PASS"; else echo "FAIL"; fi
exit "$failed"
