#!/usr/bin/env bash
# Adversarial checks of the release binary (issue 10): a user's decoy file inside a non-run
# --out, symlinks planted where the solver writes, standard output closed early
# (`| head -c1`), standard error that fails every write (`2>/dev/full`), and an unfinished run.
# Prints one PASS or FAIL line per case; exits 1 if any failed.
#
#   cargo build --release --features fault-injection && scripts/adversarial.sh
#
# BAWO is the binary (default target/release/bawo); TMPDIR is where its scratch directory goes
# (removed at the end).
set -uo pipefail
cd "$(dirname "$0")/.."

BAWO=${BAWO:-target/release/bawo}
[[ -x $BAWO ]] || { echo "no binary at $BAWO: run cargo build --release first" >&2; exit 2; }
BAWO=$(realpath "$BAWO")
T=$(mktemp -d "${TMPDIR:-/tmp}/bawo-adversarial.XXXXXX")
trap 'rm -rf "$T"' EXIT

GAME=(--game bawo --n 2 --lap-cap 8)
SMALL=("${GAME[@]}" --seeds 8 --quiet)
POS=(--board 0,0,2,2,2,2,0,0 --to-move A)
FAILED=0

result() { # result NAME OK(0/1) [why]
    if [[ $2 == 0 ]]; then
        echo "PASS $1"
    else
        echo "FAIL $1${3:+: $3}"
        FAILED=1
    fi
}

# A finished database for the read-only commands.
DB=$T/db
"$BAWO" solve "${SMALL[@]}" --out "$DB" >/dev/null 2>&1 || { echo "FAIL setup: solve into $DB"; exit 1; }

complete() { # complete DIR: the run's manifest says it is complete
    grep -q '"complete": *true' "$1/manifest.json" 2>/dev/null
}

# (a) A decoy: a user's file in a non-empty --out that is no bawo run.
for force in "" --force; do
    H=$T/decoy$force
    mkdir -p "$H/work/thesis"
    echo 'my thesis' >"$H/work/thesis/chapter1.tex"
    "$BAWO" solve "${SMALL[@]}" --out "$H" $force >/dev/null 2>"$T/err"
    code=$?
    ok=1
    [[ $code == 2 && $(cat "$H/work/thesis/chapter1.tex" 2>/dev/null) == 'my thesis' ]] && ok=0
    result "decoy file survives, solve refused ${force:-without --force} (exit $code)" $ok "$(head -c 200 "$T/err")"
done

# (b) Symlinks planted where the solver writes, in a fresh directory and in a finished run.
for where in fresh finished; do
    D=$T/sym-$where
    echo 'victim' >"$T/victim-$where"
    if [[ $where == finished ]]; then
        "$BAWO" solve "${SMALL[@]}" --out "$D" >/dev/null 2>&1
        rm -f "$D/lock"
        extra=--force
    else
        mkdir -p "$D"
        extra=
    fi
    for name in .manifest.json.tmp lock .tier-0002.bdb.tmp; do
        ln -sf "$T/victim-$where" "$D/$name"
    done
    "$BAWO" solve "${SMALL[@]}" --out "$D" $extra >/dev/null 2>"$T/err"
    code=$?
    ok=1
    [[ $(cat "$T/victim-$where") == victim && $code != 101 ]] && ! grep -q panicked "$T/err" && ok=0
    result "planted symlinks in a $where run directory leave the victim alone (exit $code)" $ok "$(head -c 200 "$T/err" | tr -d '\0')"
done

# (c) Standard output closed after one byte (`| head -c1`), and closed before any (`| true`,
# which does not depend on the output being larger than the pipe's buffer): no panic, no exit
# 101.
closed_pipe() { # closed_pipe NAME ARGS...
    local name=$1
    shift
    local codes=() ok=0
    "$BAWO" "$@" 2>"$T/err" | head -c1 >/dev/null
    codes+=("${PIPESTATUS[0]}")
    grep -q panicked "$T/err" && ok=1
    "$BAWO" "$@" 2>>"$T/err" | true
    codes+=("${PIPESTATUS[0]}")
    grep -q panicked "$T/err" && ok=1
    [[ " ${codes[*]} " == *" 101 "* ]] && ok=1
    result "closed pipe: $name (exit ${codes[*]})" $ok "$(head -c 200 "$T/err")"
}
closed_pipe moves moves "${GAME[@]}" "${POS[@]}"
closed_pipe query query --db "$DB" "${POS[@]}"
closed_pipe stats stats --db "$DB"
closed_pipe verify verify --db "$DB"
closed_pipe reach reach "${GAME[@]}" "${POS[@]}"
closed_pipe export export --db "$DB" --tier 8
closed_pipe solve solve "${GAME[@]}" --seeds 8 --out "$T/pipe-solve"
complete "$T/pipe-solve"
result "closed pipe: the solve's run is complete" $?

# (d) Standard error fails every write: the solve still finishes its run.
"$BAWO" solve "${GAME[@]}" --seeds 8 --timings --out "$T/full" >/dev/null 2>/dev/full
code=$?
ok=1
[[ $code == 0 ]] && complete "$T/full" && ok=0
result "2>/dev/full: solve finishes complete (exit $code)" $ok
"$BAWO" solve "${GAME[@]}" --seeds 8 --out "$T/head3" 2>&1 | head -3 >/dev/null
code=${PIPESTATUS[0]}
ok=1
[[ $code != 101 ]] && complete "$T/head3" && ok=0
result "2>&1 | head -3: solve finishes complete (exit $code)" $ok

# (e) An unfinished run (aborted after its third checkpoint) never passes for a finished one.
U=$T/unfinished
# (In a subshell, so that the shell's "Aborted" notice goes to /dev/null too.)
(BAWO_ABORT_AFTER_CHECKPOINTS=3 "$BAWO" solve "${GAME[@]}" --seeds 8 --checkpoint-secs 0 --quiet \
    --out "$U" >/dev/null 2>&1; true) 2>/dev/null
if complete "$U"; then
    result "unfinished run: the abort left it unfinished" 1 "the run completed before 3 checkpoints"
else
    "$BAWO" stats --db "$U" --json >"$T/stats" 2>/dev/null
    grep -q '"complete": *false' "$T/stats"
    result "unfinished run: stats --json says \"complete\":false" $? "$(head -c 200 "$T/stats")"
    "$BAWO" verify --db "$U" >/dev/null 2>&1
    code=$?
    ok=1
    [[ $code == 1 ]] && ok=0
    result "unfinished run: verify exits 1 (exit $code)" $ok
fi

exit $FAILED
