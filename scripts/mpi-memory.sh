#!/usr/bin/env bash
# Each rank within its own --mem (issue 13): solves one instance on K ranks under /usr/bin/time
# and prints every rank's peak resident memory (or the refusal), for the README's table.
#
#   scripts/mpi-memory.sh RANKS MEM [solve flags...]
#   scripts/mpi-memory.sh 2 400M --n 4 --seeds 12          # default flags: --threads 1
#   BIN=/path/to/other/bawo scripts/mpi-memory.sh 2 400M --n 4 --seeds 12
#
# Needs a build with `--features mpi` (target/release/bawo unless BIN says otherwise). Writes
# only in a fresh temporary folder, removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { echo "usage: $0 RANKS MEM [solve flags...]" >&2; exit 2; }
ranks=$1 mem=$2
shift 2
BIN=${BIN:-target/release/bawo}
BIN=$(readlink -f "$BIN")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# One rank: its peak resident memory (KiB, GNU time's %M) into a file named for its rank.
cat >"$WORK/rank.sh" <<'RANK'
#!/bin/sh
out=$1
shift
exec /usr/bin/time -f "%M" -o "$out.$OMPI_COMM_WORLD_RANK" "$@"
RANK
chmod +x "$WORK/rank.sh"
t0=$(date +%s.%N)
mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$WORK/rank.sh" "$WORK/rss" "$BIN" \
    solve --threads 1 "$@" --mem "$mem" --quiet --timings --out "$WORK/db" >"$WORK/log" 2>&1
code=$?
secs=$(echo "$(date +%s.%N) - $t0" | bc)
grep -m1 '^bawo:' "$WORK/log"
echo "exit $code after ${secs}s, --mem $mem on $ranks ranks"
for r in $(seq 0 $((ranks - 1))); do
    kib=$(cat "$WORK/rss.$r" 2>/dev/null | tail -1)
    [[ -n $kib ]] && echo "rank $r: peak RSS $((kib / 1024)) MiB ($kib KiB)"
done
grep '^mpi peak RSS' "$WORK/log"
