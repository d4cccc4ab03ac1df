#!/usr/bin/env bash
# Checks that the library's modules import one way (README, "Code layout"):
#
#   layer 0  value, rank, units, clock  plain types, number formatting, CPU clocks
#   layer 1  error              the error type
#   layer 2  game               rule sets
#   layer 3  store              files of a run directory (no solver, no database)
#   layer 4  solve              the solver
#   layer 5  db                 finished databases
#   layer 6  everything else    progress bars
#   layer 7  serve              the web explorer (the binary's CLI uses `bawo::`)
#
# A module may name (`crate::X`) only modules of a lower layer. Inside each top-level module,
# the files that name each other (`super::x`, `crate::m::x`) must not form a cycle (checked
# with tsort). Comment lines are skipped: doc links are not imports. Prints every violation
# and exits 1 if there is one, 0 otherwise.
#
#   scripts/check-layers.sh          # check
#   VERBOSE=1 scripts/check-layers.sh  # also print every edge between top-level modules
set -euo pipefail
cd "$(dirname "$0")/../src"

layer() {
    case $1 in
        value | rank | units | clock) echo 0 ;;
        error) echo 1 ;;
        game) echo 2 ;;
        store) echo 3 ;;
        solve) echo 4 ;;
        db) echo 5 ;;
        serve) echo 7 ;;
        *) echo 6 ;;
    esac
}

# The library's files: everything but the binary (main.rs, commands.rs, cli/).
files=$(find . -name '*.rs' ! -path './main.rs' ! -path './commands.rs' ! -path './cli/*' \
    ! -path './lib.rs' | sed 's|^\./||' | sort)

# Code lines of a file, comments dropped.
code() { grep -v '^[[:space:]]*//' "$1" || true; }

bad=0
declare -A seen=()
for f in $files; do
    top=${f%%/*}
    top=${top%.rs}
    for ref in $(code "$f" | grep -oE 'crate::[a-z_]+' | sed 's/crate:://' | sort -u); do
        [[ $ref == with_game ]] && ref=game # the game's macro, exported at the crate root
        [[ $ref == "$top" ]] && continue
        edge="$top -> $ref"
        if [[ -z ${seen[$edge]:-} ]]; then
            seen[$edge]=1
            [[ -n ${VERBOSE:-} ]] && echo "$edge"
        fi
        if (($(layer "$ref") >= $(layer "$top"))); then
            echo "layer violation: $f names crate::$ref ($top is layer $(layer "$top"), $ref layer $(layer "$ref"))"
            bad=1
        fi
    done
done

# Cycles between the files of each top-level module directory.
for dir in $(find . -mindepth 1 -maxdepth 1 -type d ! -name cli | sed 's|^\./||' | sort); do
    edges=$(
        for f in "$dir"/*.rs; do
            from=$(basename "$f" .rs)
            [[ $from == mod ]] && continue
            for name in $(code "$f" | grep -oE "(super|crate::$dir)::[a-z_]+" | sed 's/.*:://' | sort -u); do
                if [[ $name != "$from" && ( -f $dir/$name.rs || -d $dir/$name ) ]]; then
                    echo "$dir/$from $dir/$name"
                fi
            done
        done
    )
    if [[ -n $edges ]] && ! out=$(tsort <<<"$edges" 2>&1 >/dev/null); then
        echo "import cycle inside $dir/: $(tr '\n' ' ' <<<"$out")"
        bad=1
    fi
done

if ((bad)); then
    echo "FAIL"
    exit 1
fi
echo "OK: every module imports only lower layers; no cycle between the files of a module"
