#!/usr/bin/env bash
# Whether two builds export the same table: solves the n=3, 14-seed instance with each (into
# fresh folders under a temporary directory) and compares the md5 of every tier's CSV export
# (value and depth of every position of both sides). Exit 1 when a tier differs. The rows are
# compared without their index column and sorted, so builds whose tiers list the positions in
# another order (run-directory format 5 against 4) compare by position.
#
#   OLD=/tmp/old/bawo NEW=target/release/bawo scripts/compare-export.sh [SEEDS]
set -euo pipefail
: "${OLD:?set OLD to the reference bawo binary}"
: "${NEW:?set NEW to the bawo binary under test}"
SEEDS=${1:-14}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for who in OLD NEW; do
  "${!who}" solve --quiet --game bawo --n 3 --lap-cap 64 --seeds "$SEEDS" --out "$work/$who" >/dev/null
done
differ=0
for t in $(seq 0 "$SEEDS"); do
  a=$("$OLD" export --db "$work/OLD" --tier "$t" --format csv | cut -d, -f2- | LC_ALL=C sort | md5sum | cut -c1-32)
  b=$("$NEW" export --db "$work/NEW" --tier "$t" --format csv | cut -d, -f2- | LC_ALL=C sort | md5sum | cut -c1-32)
  if [ "$a" = "$b" ]; then
    echo "tier $t: same ($a)"
  else
    echo "tier $t: DIFFERENT (old $a, new $b)"
    differ=1
  fi
done
exit $differ
