#!/usr/bin/env bash
# Kill -9 and resume: solves an instance once without interruption, then again in a fresh
# run directory that is killed with SIGKILL at random moments and resumed with --resume each
# time until it completes, and compares the SHA-256 of every final table (.tbl and .bdb) with
# the uninterrupted run's. Prints PASS or FAIL; the exit code says the same (0 or 1).
#
#   scripts/kill-resume.sh                  # n=3, up to 16 seeds, L=64: 59 M positions
#   KILLS=8 SEED=7 scripts/kill-resume.sh   # more kills; SEED makes the kill times repeat
#   N=3 SEEDS=14 RANGE_BITS=21 CHECKPOINT_SECS=0 scripts/kill-resume.sh
#   N=2 SEEDS=12 L=6 RULES=kichwa=relay RANGE_BITS=14 MEM= scripts/kill-resume.sh
#
# Settings (environment): N, SEEDS, L (lap cap) and RULES (rule options; empty: the defaults)
# choose the instance. RANGE_BITS cuts tiers into ranges of 2^RANGE_BITS positions (default
# 22: the largest tiers in 3 to 7 ranges; empty: the plan from --mem). MEM is the solver's
# --mem (default empty: the solver's default; a budget too small for the ranges is refused).
# MESSAGE_BUDGET is the bytes of level messages held before they spill to files (default 8M,
# small enough that the attractor spills in the largest tiers; empty: the memory plan's
# share), set through BAWO_MESSAGE_BUDGET. CHECKPOINT_SECS is the solver's
# --checkpoint-secs (default 1: checkpoints inside the larger tiers, and work lost at each
# kill; 0: a checkpoint at every block, range and level). KILLS is how many times the run is
# killed, THREADS the solver's --threads, EXTRA more solve flags, SEED the random seed, TMPDIR
# where the run directories go (two of them, about 1 GB at most with the defaults).
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-3}
SEEDS=${SEEDS:-16}
L=${L:-64}
RULES=${RULES:-}
RANGE_BITS=${RANGE_BITS-22}
MEM=${MEM-}
MESSAGE_BUDGET=${MESSAGE_BUDGET-8388608}
[[ -n $MESSAGE_BUDGET ]] && export BAWO_MESSAGE_BUDGET=$MESSAGE_BUDGET
KILLS=${KILLS:-4}
CHECKPOINT_SECS=${CHECKPOINT_SECS:-1}
THREADS=${THREADS:-$(nproc)}
EXTRA=${EXTRA:-}
SEED=${SEED:-$$}
RANDOM=$SEED

cargo build --release --quiet --features fault-injection
BIN=$PWD/target/release/bawo
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bawo-kill-resume.XXXXXX")
pid=
cleanup() {
    if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        { wait "$pid"; } 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Flags of every run, first or resumed (the game and its parameters come from the manifest
# on --resume; --range-bits and --mem are not recorded there, so they are repeated).
# --keep-tables: the raw tables are compared too, not only the compressed files.
common=(--quiet --keep-tables --threads "$THREADS" --checkpoint-secs "$CHECKPOINT_SECS")
[[ -n $RANGE_BITS ]] && common+=(--range-bits "$RANGE_BITS")
[[ -n $MEM ]] && common+=(--mem "$MEM")
# shellcheck disable=SC2206 # EXTRA is a list of flags
[[ -n $EXTRA ]] && common+=($EXTRA)
game=(--game bawo --n "$N" --seeds "$SEEDS" --lap-cap "$L")
[[ -n $RULES ]] && game+=(--rules "$RULES")

now_ms() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# Where the run in $1 stands, from its manifest.
where() {
    local m=$1/manifest.json
    [[ -f $m ]] || { echo "no manifest yet"; return; }
    local done phase
    done=$(grep -c '"file": "tier-[0-9]*\.tbl"' "$m" || true)
    phase=$(grep -o '"phase": "[a-z]*"' "$m" | cut -d'"' -f4 || true)
    echo "$done tiers finished${phase:+, checkpoint in phase $phase}"
}

echo "instance: ${game[*]} ${common[*]}"
echo "random seed: $SEED"

clean=$WORK/clean
t0=$(now_ms)
"$BIN" solve "${game[@]}" "${common[@]}" --out "$clean" >/dev/null
clean_ms=$(($(now_ms) - t0))
echo "uninterrupted run: $(secs $clean_ms) s"

run=$WORK/killed
kills=0
finished=false
for ((i = 1; i <= KILLS; i++)); do
    # Each try runs for 20% to 120% of an even share of an uninterrupted run.
    delay_ms=$((clean_ms * (20 + RANDOM % 101) / 100 / KILLS))
    if ((i == 1)); then
        "$BIN" solve "${game[@]}" "${common[@]}" --out "$run" >/dev/null &
    else
        "$BIN" solve --resume "${common[@]}" --out "$run" >/dev/null &
    fi
    pid=$!
    sleep "$(secs $delay_ms)"
    kill -KILL "$pid" 2>/dev/null || true
    status=0
    # (braces: no job-control notice for the killed process)
    { wait "$pid"; } 2>/dev/null || status=$?
    pid=
    case $status in
        137)
            kills=$((kills + 1))
            echo "kill $kills after $(secs $delay_ms) s: $(where "$run")"
            ;;
        0)
            echo "try $i finished within $(secs $delay_ms) s, before its kill"
            finished=true
            break
            ;;
        *)
            echo "FAIL: try $i exited with status $status"
            exit 1
            ;;
    esac
done
if ! $finished; then
    t0=$(now_ms)
    if ! "$BIN" solve --resume "${common[@]}" --out "$run" >/dev/null; then
        echo "FAIL: the last resume failed"
        exit 1
    fi
    echo "last resume ran to the end in $(secs $(($(now_ms) - t0))) s"
fi

sums() { (cd "$1" && sha256sum -- *.tbl *.bdb); }
sums "$clean" >"$WORK/clean.sha256"
sums "$run" >"$WORK/killed.sha256"
files=$(wc -l <"$WORK/clean.sha256")
fail=
if ((kills == 0)); then
    fail="the run was never killed (it finished first): nothing was tested"
elif ! diff -u "$WORK/clean.sha256" "$WORK/killed.sha256"; then
    fail="final tables differ from the uninterrupted run (diff above)"
elif [[ -e $run/work ]]; then
    fail="work files left behind in $run/work"
elif ! grep -q '"complete": true' "$run/manifest.json"; then
    fail="the manifest does not say complete"
fi
if [[ -n $fail ]]; then
    echo "FAIL: $fail"
    exit 1
fi
echo "PASS: killed $kills times; all $files final files (.tbl and .bdb) identical (sha256)"
