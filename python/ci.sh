#!/usr/bin/env bash
# The Python package: build and install it into a fresh virtual environment, run its tests.
# Called by .ci/run; runs from anywhere. Needs python3 (3.9+) with venv, cargo, and PyPI.
#
# The extension is built into the repository's target/ (CARGO_TARGET_DIR), with the root
# crate's release profile, so the dependencies that `cargo build --release` or `cargo test
# --release` compiled there are reused where their features agree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=${BAWO_PY_VENV:-$root/target/py-venv}

rm -rf "$venv"
if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian's python3 without python3-venv: install it when we may, else fail clearly.
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
        rm -rf "$venv"
        python3 -m venv "$venv"
    else
        echo "python/ci.sh: python3 -m venv failed (install python3-venv)" >&2
        exit 1
    fi
fi
py=$venv/bin/python
"$py" -m pip install --quiet --upgrade pip
CARGO_TARGET_DIR=$root/target "$py" -m pip install --quiet ./python pytest numpy pandas matplotlib

# The tests compare with the command line: the same release binary.
if [ -z "${BAWO_BIN:-}" ]; then
    [ -x target/release/bawo ] || cargo build --release --bin bawo
    export BAWO_BIN=$root/target/release/bawo
fi
# From outside the source tree, so that `import bawo` is the installed package.
cd "$root/python/tests"
"$py" -m pytest -q -p no:cacheprovider .
