#!/usr/bin/env bash
# Adversarial checks of the release binary: a user's decoy file inside a non-run --out,
# symlinks planted where the solver writes, standard output closed early (`| head -c1`),
# standard error that fails every write (`2>/dev/full`), an unfinished run, manifests that lie
# (re-signed: the checksum detects damage, not forgery), files that are FIFOs or too large,
# `compact` into places it must not write, and `bawo serve` against files cut short under it,
# stalled clients and malformed requests. Prints one PASS or FAIL line per case; exits 1 if
# any failed.
#
#   cargo build --release --features fault-injection --bin bawo --example resign
#   scripts/adversarial.sh
#
# BAWO is the binary (default target/release/bawo); RESIGN the manifest re-signer
# (examples/resign.rs, default target/release/examples/resign; without it the cases that
# forge a manifest are skipped, saying so); TMPDIR is where the scratch directory goes
# (removed at the end). Needs python3 (manifest edits), curl, flock and mkfifo.
set -uo pipefail
cd "$(dirname "$0")/.."

BAWO=${BAWO:-target/release/bawo}
[[ -x $BAWO ]] || { echo "no binary at $BAWO: run cargo build --release first" >&2; exit 2; }
BAWO=$(realpath "$BAWO")
RESIGN=${RESIGN:-target/release/examples/resign}
[[ -x $RESIGN ]] && RESIGN=$(realpath "$RESIGN") || RESIGN=
T=$(mktemp -d "${TMPDIR:-/tmp}/bawo-adversarial.XXXXXX")
SPID=
trap '[[ -n $SPID ]] && kill -KILL "$SPID" 2>/dev/null; rm -rf "$T"' EXIT

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

# Helpers for the cases below.
tree_sum() { # tree_sum DIR: one digest of every file's name and bytes under DIR
    (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum) 2>/dev/null | sha256sum | cut -c1-16
}
copy_run() { # copy_run FROM TO: a copy of a run directory, without its lock
    rm -rf "$2"
    mkdir -p "$2"
    cp -R "$1/." "$2/"
    rm -f "$2/lock"
}
forge() { # forge DIR PYTHON: runs PYTHON on DIR's manifest (the dict m, with os imported), re-signs it
    python3 - "$1/manifest.json" "$2" <<'PY' && "$RESIGN" "$1"
import json, os, sys
path, code = sys.argv[1], sys.argv[2]
m = json.load(open(path))
exec(code)
json.dump(m, open(path, "w"), indent=2)
PY
}
flip() { # flip FILE: one byte in the middle of FILE changed in place
    python3 - "$1" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0x55
open(sys.argv[1], "r+b").write(b)
PY
}
since() { # since T0: seconds since the `date +%s.%N` reading T0
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
wait_exit() { # wait_exit PID SECONDS: PID's exit code, or 137 if it was still running (killed)
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        # Exited: gone, or a zombie until waited for.
        [[ ! -e /proc/$1 || $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) == Z ]] && break
        sleep 0.05
    done
    kill -KILL "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}
start_serve() { # start_serve ARGS...: `bawo serve` on a free port; sets SPID and SADDR
    "$BAWO" serve --addr 127.0.0.1:0 "$@" >"$T/serve.out" 2>"$T/serve.err" &
    SPID=$!
    SADDR=
    for _ in $(seq 100); do
        SADDR=$(grep -o 'http://[^/]*' "$T/serve.out" 2>/dev/null | head -1 | sed 's#http://##')
        [[ -n $SADDR ]] && return 0
        sleep 0.1
    done
    return 1
}
stop_serve() { # stop_serve: Ctrl-C to the server, killed if still there 3 s later
    kill -INT "$SPID" 2>/dev/null
    wait_exit "$SPID" 3
    SPID=
}
RESUME=(--resume "${GAME[@]}" --seeds 8 --quiet)

# (f) A re-signed checkpoint whose work folder lies outside the run (an absolute path, or
# ../elsewhere): resume refuses it (exit 1) and never touches that folder's files.
W=$T/stopped
(BAWO_ABORT_AFTER_CHECKPOINTS=12 "$BAWO" solve "${GAME[@]}" --seeds 8 --checkpoint-secs 0 --quiet \
    --out "$W" >/dev/null 2>&1; true) 2>/dev/null
rm -f "$W/lock"
if [[ -z $RESIGN ]]; then
    echo "SKIP checkpoint outside the run: no re-signer (cargo build --release --example resign)"
elif ! grep -q '"current"' "$W/manifest.json"; then
    result "checkpoint outside the run: the abort stopped inside a tier" 1 "needs --features fault-injection"
else
    for how in absolute relative; do
        R=$T/wk-$how
        E=$T/elsewhere-$how
        copy_run "$W" "$R"
        work=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["current"]["work"])' \
            "$R/manifest.json")
        tier=$(basename "$work")
        mkdir -p "$E/$tier"
        cp -R "$R/$work/." "$E/$tier/" 2>/dev/null
        echo 'not yours' >"$E/$tier/notes.txt"
        to=$E/$tier
        [[ $how == relative ]] && to=../$(basename "$E")/$tier
        V=$to forge "$R" "m['current']['work'] = os.environ['V']"
        before=$(tree_sum "$E")
        "$BAWO" solve "${RESUME[@]}" --out "$R" >/dev/null 2>"$T/err"
        code=$?
        ok=1
        [[ $code == 1 && $(tree_sum "$E") == "$before" ]] && ok=0
        result "checkpoint names a work folder outside the run ($how): resume refused, its files untouched (exit $code)" \
            $ok "$(head -c 200 "$T/err")"
    done
fi

# (g) compact of an unfinished run: refused as a usage error, nothing written.
if grep -q '"complete": *false' "$W/manifest.json"; then
    "$BAWO" compact --quiet --db "$W" --out "$T/c-unfinished" >/dev/null 2>"$T/err"
    code=$?
    ok=1
    [[ $code == 2 && ! -e $T/c-unfinished/manifest.json ]] && ok=0
    result "compact of an unfinished run refused (exit $code)" $ok "$(head -c 200 "$T/err")"
fi

# (h) A re-signed tier record naming a file outside the directory: refused as damage by every
# reader and by resume; the outside file is never read into the run or touched.
for how in relative absolute; do
    [[ -z $RESIGN ]] && { echo "SKIP tier file outside the directory: no re-signer"; break; }
    R=$T/outside-$how
    copy_run "$DB" "$R"
    cp "$R/tier-0008.bdb" "$T/outside-$how.bdb"
    before=$(sha256sum <"$T/outside-$how.bdb")
    name=$T/outside-$how.bdb
    [[ $how == relative ]] && name=../outside-$how.bdb
    V=$name forge "$R" "m['tiers'][-1]['bdb']['file'] = os.environ['V']"
    codes=()
    for cmd in stats verify; do
        "$BAWO" $cmd --db "$R" >/dev/null 2>"$T/err"
        codes+=($?)
    done
    "$BAWO" query --db "$R" "${POS[@]}" >/dev/null 2>>"$T/err"
    codes+=($?)
    "$BAWO" solve --resume "${GAME[@]}" --seeds 9 --quiet --out "$R" >/dev/null 2>>"$T/err"
    codes+=($?)
    ok=1
    [[ ${codes[*]} == "1 1 1 1" && $(sha256sum <"$T/outside-$how.bdb") == "$before" ]] && ok=0
    result "tier record naming a file outside the directory ($how): stats, verify, query, resume refused (exit ${codes[*]}), file untouched" \
        $ok "$(head -c 200 "$T/err")"
done

# (i) compact into a folder of the user's holding a tier-0003.bdb and no manifest: refused.
O=$T/users
mkdir -p "$O"
echo 'my own file' >"$O/tier-0003.bdb"
"$BAWO" compact --quiet --db "$DB" --out "$O" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 2 && $(cat "$O/tier-0003.bdb") == 'my own file' && ! -e $O/manifest.json ]] && ok=0
result "compact into a user's folder with a tier-0003.bdb: refused, file untouched (exit $code)" $ok "$(head -c 200 "$T/err")"

# (j) compact into a folder inside its source: refused, nothing created there.
before=$(tree_sum "$DB")
"$BAWO" compact --quiet --db "$DB" --out "$DB/sub" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 2 && ! -e $DB/sub && $(tree_sum "$DB") == "$before" ]] && ok=0
result "compact --out SRC/sub refused (exit $code)" $ok "$(head -c 200 "$T/err")"

# (k) A tier file cut short under a running server: the server answers a JSON 5xx for what
# needs it and serves on.
D16=$T/db16
"$BAWO" solve "${GAME[@]}" --seeds 16 --quiet --out "$D16" >/dev/null 2>&1
if start_serve --db "$D16"; then
    curl -s -o /dev/null "http://$SADDR/api/query?board=16,0,0,0,0,0,0,0"
    truncate -s 0 "$D16/tier-0016.bdb"
    body=$(curl -s -w ' %{http_code}' "http://$SADDR/api/stats")
    after=$(curl -s -o /dev/null -w '%{http_code}' "http://$SADDR/api/dbs")
    ok=1
    [[ $body == '{"error":'*' 50'[03] && $after == 200 ]] && ok=0
    result "serve over a .bdb cut short while it runs: JSON 5xx, then serves on (${body: -3}, then $after)" \
        $ok "$(head -c 200 "$T/serve.err")"
    stop_serve
else
    result "serve over a .bdb cut short: the server started" 1 "$(head -c 200 "$T/serve.err")"
fi

# (l) A client that sends half a request head: the server closes it after its header deadline
# (10 s), and Ctrl-C stops the server within 2 s even while such a client waits.
if start_serve --db "$DB"; then
    exec 3<>"/dev/tcp/${SADDR%:*}/${SADDR##*:}"
    printf 'GET /api/dbs HTTP/1.1\r\nHost: x\r\n' >&3
    t0=$(date +%s.%N)
    timeout 14 cat <&3 >/dev/null
    code=$?
    took=$(since "$t0")
    exec 3>&-
    ok=1
    [[ $code == 0 ]] && awk -v t="$took" 'BEGIN { exit !(t <= 12) }' && ok=0
    result "half-sent request: connection closed by the server after ${took} s (limit 12 s)" $ok
    exec 3<>"/dev/tcp/${SADDR%:*}/${SADDR##*:}"
    printf 'GET /api/dbs HTTP/1.1\r\nHost: x\r\n' >&3
    t0=$(date +%s.%N)
    kill -INT "$SPID"
    wait_exit "$SPID" 2
    code=$?
    took=$(since "$t0")
    SPID=
    exec 3>&-
    ok=1
    [[ $code == 0 ]] && ok=0
    result "half-sent request: SIGINT stops the server within 2 s (exit $code after ${took} s)" $ok
else
    result "half-sent request: the server started" 1 "$(head -c 200 "$T/serve.err")"
fi

# (m) A manifest that is a FIFO, and one of 17 MiB (valid JSON padded with spaces): refused
# at once (exit 1), never read for ever or whole.
F=$T/fifo
copy_run "$DB" "$F"
rm "$F/manifest.json"
mkfifo "$F/manifest.json"
codes=()
for cmd in stats verify; do
    timeout 10 "$BAWO" $cmd --db "$F" >/dev/null 2>"$T/err"
    codes+=($?)
done
ok=1
[[ ${codes[*]} == "1 1" ]] && ok=0
result "manifest.json a FIFO: stats, verify end promptly (exit ${codes[*]}; 124 is a hang)" $ok "$(head -c 200 "$T/err")"
G=$T/bigmanifest
copy_run "$DB" "$G"
head -c $((17 << 20)) /dev/zero | tr '\0' ' ' >>"$G/manifest.json"
timeout 10 "$BAWO" stats --db "$G" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 1 ]] && grep -q 'too large' "$T/err" && ok=0
result "manifest of 17 MiB refused as too large (exit $code)" $ok "$(head -c 200 "$T/err")"

# (n) Extending a finished run whose stored tiers fail their checks: refused (exit 1) with the
# manifest unchanged.
X=$T/extend
"$BAWO" solve "${GAME[@]}" --seeds 10 --quiet --out "$X" >/dev/null 2>&1
flip "$X/tier-0005.bdb"
before=$(sha256sum <"$X/manifest.json")
"$BAWO" solve --resume "${GAME[@]}" --seeds 11 --quiet --out "$X" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 1 && $(sha256sum <"$X/manifest.json") == "$before" ]] && ok=0
result "solve --resume --seeds 11 over a damaged finished run: refused, manifest unchanged (exit $code)" \
    $ok "$(head -c 200 "$T/err")"

# (o) compact into an --out whose lock another process holds (as a second compact would):
# refused; a leftover temporary file of a killed compact is removed by the next one.
L=$T/locked
mkdir -p "$L"
flock -n "$L/lock" sleep 10 &
holder=$!
sleep 0.3
"$BAWO" compact --quiet --db "$DB" --out "$L" >/dev/null 2>"$T/err"
code=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
ok=1
[[ $code != 0 && ! -e $L/manifest.json ]] && ok=0
result "compact into an --out locked by another process refused (exit $code)" $ok "$(head -c 200 "$T/err")"
K=$T/leftover
mkdir -p "$K"
echo half >"$K/.tier-0003.bdb.AbC123.tmp"
"$BAWO" compact --quiet --db "$DB" --out "$K" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 0 && ! -e $K/.tier-0003.bdb.AbC123.tmp && -e $K/manifest.json ]] && ok=0
result "a killed compact's temporary file removed by the next compact (exit $code)" $ok "$(head -c 200 "$T/err")"

# (p) Re-signed manifests with absurd counts or a duplicated tier record: refused as damage.
for edit in "m['tiers'][1]['win'] = 2**64 - 1" "m['tiers'].insert(1, m['tiers'][1])"; do
    [[ -z $RESIGN ]] && { echo "SKIP absurd counts: no re-signer"; break; }
    A=$T/absurd
    copy_run "$DB" "$A"
    forge "$A" "$edit"
    codes=()
    for cmd in stats verify; do
        "$BAWO" $cmd --db "$A" >/dev/null 2>"$T/err"
        codes+=($?)
    done
    "$BAWO" query --db "$A" "${POS[@]}" >/dev/null 2>>"$T/err"
    codes+=($?)
    ok=1
    [[ ${codes[*]} == "1 1 1" ]] && grep -q 'corrupted' "$T/err" && ok=0
    result "re-signed manifest ($edit) refused as damaged (exit ${codes[*]})" $ok "$(head -c 200 "$T/err")"
done

# (q) verify with 11 tier files missing counts all 11.
V=$T/missing
"$BAWO" solve "${GAME[@]}" --seeds 13 --quiet --out "$V" >/dev/null 2>&1
for k in $(seq 1 11); do rm -f "$V/$(printf 'tier-%04d.bdb' "$k")"; done
"$BAWO" verify --db "$V" >"$T/out" 2>&1
code=$?
ok=1
[[ $code == 1 ]] && grep -q '11 damaged' "$T/out" && ok=0
result "verify with 11 tier files missing says 11 (exit $code)" $ok "$(grep -m1 damaged "$T/out" | head -c 200)"

# (r) Input is not echoed whole: a 2,000-character --after, a 1 MB line typed into play.
long=$(head -c 2000 /dev/zero | tr '\0' x)
"$BAWO" query --db "$DB" "${POS[@]}" --after "$long" >/dev/null 2>"$T/err"
code=$?
ok=1
[[ $code == 2 && $(wc -c <"$T/err") -lt 400 ]] && ok=0
result "query --after <2000 characters>: refused without echoing it (exit $code, $(wc -c <"$T/err") bytes)" $ok
{ head -c 1000000 /dev/zero | tr '\0' y; printf '\nq\n'; } |
    timeout 20 "$BAWO" play --db "$DB" "${POS[@]}" >"$T/out" 2>&1
code=$?
ok=1
[[ $code == 0 && $(wc -c <"$T/out") -lt 20000 ]] && ok=0
result "play with a 1 MB line: not echoed whole (exit $code, $(wc -c <"$T/out") bytes out)" $ok

# (s) Every HTTP error answers a JSON body.
if start_serve --db "$DB"; then
    wrong=()
    check() { # check CODE CURL-ARGS...: the status is CODE and the body a JSON error
        local got
        got=$(curl -s -o "$T/body" -w '%{http_code}' "${@:2}")
        [[ $got == "$1" ]] && grep -q '^{"error":' "$T/body" || wrong+=("$got ${*:2}")
    }
    U=http://$SADDR
    check 405 -X POST "$U/api/dbs"
    check 405 -X DELETE "$U/api/query"
    check 404 "$U/nothing"
    check 400 "$U/api/dbs?x=1"
    check 400 "$U/api/query?board=1,2,3"
    check 414 "$U/api/query?board=$(head -c 3000 /dev/zero | tr '\0' 1)"
    check 431 -H "X-Big: $(head -c 10000 /dev/zero | tr '\0' a)" "$U/api/dbs"
    check 413 --data-binary abc "$U/api/dbs"
    ok=1
    [[ ${#wrong[@]} == 0 ]] && ok=0
    result "HTTP errors 400, 404, 405, 413, 414, 431 answer JSON" $ok "$(printf '%s; ' "${wrong[@]}" | head -c 300)"
    stop_serve
else
    result "HTTP errors: the server started" 1 "$(head -c 200 "$T/serve.err")"
fi

exit $FAILED
