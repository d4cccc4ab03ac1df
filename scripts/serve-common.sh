# Sourced by scripts/serve-load.sh and scripts/serve-threads.sh (run from the repository root):
# builds the server and the load generator, makes a temporary directory `$work` that is deleted
# on exit (with any server still running stopped by SIGINT), and starts and stops servers.
cargo build --release --quiet --bin bawo --example serve_load
bin=${BAWO_BIN:-target/release/bawo}
load=target/release/examples/serve_load
work="$(mktemp -d)"
pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -INT "$pid"; wait "$pid" || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# start_server THREADS: serves $work/db on a free loopback port; sets $pid and $addr.
start_server() {
    "$bin" serve --db "$work/db" --addr 127.0.0.1:0 --threads "$1" >"$work/serve.out" 2>"$work/serve.err" &
    pid=$!
    addr=""
    for _ in $(seq 1 300); do
        addr="$(grep -o 'http://[^/]*' "$work/serve.out" 2>/dev/null | head -1 | sed 's#http://##' || true)"
        [ -n "$addr" ] && break
        sleep 0.1
    done
    [ -n "$addr" ] || { echo "server did not start"; cat "$work/serve.err"; exit 1; }
}

# stop_server: Ctrl-C to the server, then waits for it to finish.
stop_server() {
    kill -INT "$pid"
    wait "$pid"
    pid=""
}
