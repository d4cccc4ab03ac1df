#!/usr/bin/env bash
# Issue 13's check: one solve split across MPI ranks writes the same database as one process.
#
# Builds with `--features mpi`, then for three instances (Bawo with draws, `capture=occupied`;
# Kigogo; Bao mtaji) solves in one process and with 1, 2 and 3 ranks (`mpirun`), and compares
# the sha256 of every database file (manifest.json, tier-*.bdb; owned.json, the run's ledger,
# names its own directory). Then, per instance, kills one rank (rank 1, SIGKILL) in the middle
# of a tier, which makes mpirun stop the others, resumes with `--resume` on the same number of
# ranks, and compares again. Prints PASS or FAIL per case; exits 1 if any failed.
#
#   scripts/mpi-check.sh                     # needs libopenmpi-dev openmpi-bin libclang-dev
#   THREADS=2 scripts/mpi-check.sh           # threads per rank (default 1)
#
# Everything is written in a fresh temporary folder, removed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

cargo build --release --features mpi || { echo "FAIL build --features mpi"; exit 1; }
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
THREADS=${THREADS:-1}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# A copy: a build without the feature meanwhile (cargo test) must not replace it mid-run.
BIN=$WORK/bawo
cp target/release/bawo "$BIN"

# name|tiers finished before rank 1 is killed|solve flags (Bao mtaji with exactly 7 seeds is one
# tier: it is killed inside it)
INSTANCES=(
    "bawo-draws|10|--game bawo --n 3 --seeds 13 --rules capture=occupied"
    "kigogo|5|--game kigogo --seeds 6"
    "bao-mtaji|0|--game bao --seeds 7"
)

failed=0
result() { # result NAME OK
    if [[ $2 == 1 ]]; then echo "PASS $1"; else echo "FAIL $1"; failed=1; fi
}

# The sha256 of every database file of a run directory, by name.
sums() { (cd "$1" && sha256sum manifest.json tier-*.bdb); }

same() { # same DIR_A DIR_B: 1 if their database files are byte-identical
    [[ -f $1/manifest.json && -f $2/manifest.json ]] || { echo 0; return; }
    if diff <(sums "$1") <(sums "$2") >/dev/null; then echo 1; else echo 0; fi
}

# The processes started under mpirun's process $1, at any depth.
descendants() {
    local p
    for p in $(ps -o pid= --ppid "$1"); do
        echo "$p"
        descendants "$p"
    done
}

# The process of rank $2 among the descendants of mpirun's process $1.
rank_pid() {
    local p
    for p in $(descendants "$1"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$p"
            return
        fi
    done
}

# Tiers recorded as finished in a manifest (-1 before there is one).
finished_tiers() {
    local n
    n=$(grep -c '"bdb"' "$1/manifest.json" 2>/dev/null)
    echo "${n:--1}"
}

for inst in "${INSTANCES[@]}"; do
    name=${inst%%|*}
    rest=${inst#*|}
    kill_after=${rest%%|*}
    read -ra args <<<"${rest#*|}"
    base="$WORK/$name"
    mkdir -p "$base"
    t0=$(date +%s.%N)
    "$BIN" solve "${args[@]}" --threads "$THREADS" --quiet --out "$base/single" >/dev/null ||
        { result "$name: single process" 0; continue; }
    echo "$name: single process $(echo "$(date +%s.%N) - $t0" | bc)s"
    for k in 1 2 3; do
        t0=$(date +%s.%N)
        "${MPIRUN[@]}" -np "$k" "$BIN" solve "${args[@]}" --threads "$THREADS" --quiet \
            --out "$base/np$k" >"$base/np$k.log" 2>&1
        echo "$name: $k ranks $(echo "$(date +%s.%N) - $t0" | bc)s"
        result "$name: $k ranks, every file's sha256 as one process's" "$(same "$base/single" "$base/np$k")"
    done

    # Kill rank 1 a second after `kill_after` tiers are finished (the run is not), then resume.
    out="$base/killed"
    "${MPIRUN[@]}" -np 2 "$BIN" solve "${args[@]}" --threads "$THREADS" --quiet --out "$out" \
        >"$base/killed.log" 2>&1 &
    mp=$!
    killed=0
    for _ in $(seq 1 6000); do
        if ! kill -0 "$mp" 2>/dev/null; then break; fi
        if (($(finished_tiers "$out") >= kill_after)); then
            sleep 1
            victim=$(rank_pid "$mp" 1)
            if [[ -n $victim ]]; then
                kill -9 "$victim" && killed=1
                break
            fi
        fi
        sleep 0.05
    done
    wait "$mp"
    code=$?
    complete=$(grep -c '"complete": true' "$out/manifest.json" 2>/dev/null || true)
    if [[ $killed != 1 || $code == 0 || $complete != 0 ]]; then
        echo "$name: kill: killed=$killed mpirun exit=$code complete=$complete (the run may have finished first)"
        result "$name: rank 1 killed mid-run" 0
        continue
    fi
    echo "$name: rank 1 killed after $(finished_tiers "$out") finished tiers; mpirun exit $code"
    "${MPIRUN[@]}" -np 2 "$BIN" solve "${args[@]}" --threads "$THREADS" --quiet --out "$out" \
        --resume >"$base/resumed.log" 2>&1
    result "$name: rank 1 killed mid-run, resumed on 2 ranks, every file's sha256 as one process's" \
        "$(same "$base/single" "$out")"
done

if ((failed)); then
    echo "FAIL: see above"
    exit 1
fi
echo "PASS: every case"
