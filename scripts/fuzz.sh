#!/usr/bin/env bash
# Runs one fuzz target (docs/testing.md, "Fuzzing") for SECONDS seconds (default 600) in one
# process, starting from the committed corpus, with cargo-fuzz on the stable toolchain
# (RUSTC_BOOTSTRAP=1 lets it pass its sanitizer flags). The working corpus grows in
# fuzz/corpus/TARGET and crashes land in fuzz/artifacts/TARGET (both ignored by git);
# `MINIMIZE=1` afterwards shrinks the working corpus into tests/fuzz-corpus/TARGET, the one
# the test suite runs.
#
#   scripts/fuzz.sh parse_position          # ten minutes
#   scripts/fuzz.sh bdb_block 3600
#   MINIMIZE=1 scripts/fuzz.sh manifest 0   # no fuzzing: just minimize into the committed corpus
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
target=${1:?usage: scripts/fuzz.sh parse_position|manifest|bdb_header|bdb_block [SECONDS]}
seconds=${2:-600}
committed=../tests/fuzz-corpus/$target
[[ -d $committed ]] || { echo "no target $target (no $committed)" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
# The manifest target writes a scratch run directory per process: in memory where possible.
[[ -d /dev/shm && -w /dev/shm ]] && export TMPDIR=${TMPDIR:-/dev/shm}
mkdir -p "corpus/$target"
cp -n "$committed"/* "corpus/$target/"
if ((seconds > 0)); then
    # -a: debug assertions and overflow checks on, so an arithmetic overflow is a crash.
    cargo fuzz run "$target" --release -a "corpus/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
fi
if [[ ${MINIMIZE:-} == 1 ]]; then
    # The fewest files that cover every edge the corpus reaches (hit counts aside).
    cargo fuzz cmin "$target" --release -a "corpus/$target" -- -set_cover_merge=1 -use_counters=0
    # Crash inputs stay; the rest of the committed corpus is replaced by the minimized one.
    find "$committed" -type f ! -name 'crash-*' -delete
    for f in "corpus/$target"/*; do
        kept=
        for c in "$committed"/crash-*; do
            [[ -e $c ]] && cmp -s "$f" "$c" && kept=1 && break
        done
        [[ -n $kept ]] || cp "$f" "$committed/"
    done
fi
