#!/usr/bin/env bash
# Checks the code's direction (CONTRIBUTING.md, "Layers"):
#
#   bawo-games  <-  bawo-store  <-  bawo-db  <-  bawo-solve  <-  bawo-serve  <-  bawo (binary)
#
# The direction between crates is the compiler's to enforce: a crate can only name the
# crates its Cargo.toml lists. This script checks that each crate's manifest lists none from
# above it, and that inside every folder of every crate (the binary's `cli/` included) the
# files and folders that name each other (`super::x`, `crate::x`, `crate::dir::x`; a folder
# names what any file under it names) form no cycle (tsort).
# Comment lines are skipped: doc links are not imports. Prints every violation and exits 1 if
# there is one, 0 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

order=(bawo-games bawo-store bawo-db bawo-solve bawo-serve)
bad=0
for i in "${!order[@]}"; do
    crate=${order[$i]}
    manifest=crates/${crate#bawo-}/Cargo.toml
    for j in "${!order[@]}"; do
        ((j > i)) || continue
        if grep -qE "^${order[$j]}(\.workspace| *=)" "$manifest"; then
            echo "layer violation: $crate depends on ${order[$j]}, a layer above it"
            bad=1
        fi
    done
done

# Code lines of a file, comments dropped.
code() { grep -v '^[[:space:]]*//' "$1" || true; }

# Cycles between the files of each folder: `super::x` from a file names its sibling x;
# `crate::x` (or `crate::<dir>::x`) names the sibling x of a crate-root (or <dir>) file.
for root in src crates/*/src; do
    for dir in $(find "$root" -type d | sort); do
        rel=${dir#"$root"}
        rel=${rel#/}
        prefix="crate::"
        [[ -n $rel ]] && prefix="crate::${rel//\//::}::"
        edges=$(
            for f in "$dir"/*.rs; do
                [[ -e $f ]] || continue
                from=$(basename "$f" .rs)
                [[ $from == mod || $from == lib || $from == main ]] && continue
                for name in $(code "$f" | grep -oE "(super|${prefix%::})::[a-z_]+" | sed 's/.*:://' | sort -u); do
                    if [[ $name != "$from" && ( -f $dir/$name.rs || -d $dir/$name ) ]]; then
                        echo "$dir/$from $dir/$name"
                    fi
                done
            done
            # A folder is one node with everything under it: what any of its files names
            # as `crate::<dir>::x` is its edge to the sibling x.
            for sub in "$dir"/*/; do
                [[ -d $sub ]] || continue
                from=$(basename "$sub")
                for name in $(find "$sub" -name '*.rs' -exec grep -hv '^[[:space:]]*//' {} + |
                    grep -oE "${prefix%::}::[a-z_]+" | sed 's/.*:://' | sort -u); do
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
done

if ((bad)); then
    echo "FAIL"
    exit 1
fi
echo "OK: every crate depends only on crates below it; no cycle between the files and folders of a folder"
