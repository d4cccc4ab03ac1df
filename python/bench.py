#!/usr/bin/env python3
"""Benchmark of the bawo package (not a test): probe latency, bulk throughput, tier scans.

    python python/bench.py --db DIR [--tier K]

DIR is a database; the target case is Bawo n=3, 16 seeds, tier 16 (26,075,790 positions):

    bawo solve --game bawo --n 3 --seeds 16 --lap-cap 64 --out /tmp/b16

(`--solve` runs that solve into --db when the directory does not exist; the binary is
$BAWO_BIN or target/release/bawo.) Printed:

- warm ``db.probe`` latency, microseconds a call (target <= 5), cycling through positions of
  tier K already probed once;
- warm ``db.probe_many`` throughput, positions a second (target >= 2 M/s), on positions of
  tier K and the tier below, shuffled;
- a scan of tier K into numpy arrays, chunk by chunk (value counts by depth taken from each
  chunk), in a child interpreter: wall and CPU seconds (all threads) and the child's peak RSS
  (VmHWM; target <= 3 s, < 300 MB).

Timings are the best of --rounds rounds. The load average is printed too: on a shared machine
compare CPU seconds, or rerun when it is quiet.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

# bawo does no linear algebra: keep OpenBLAS from starting threads that compete with rayon's.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

# Run as `python python/bench.py`, Python puts python/ first on sys.path, where the source
# package `bawo/` lacks its compiled `_native`: import the installed package instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import bawo  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def best(rounds: int, f) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def sample_rows(db: bawo.Database, tier: int, n: int, rng: np.random.Generator) -> bawo.TierChunk:
    """About n rows of `tier`, spread over the whole tier, read with a scan."""
    keep = []
    rows = len(db.tier(tier))
    p = min(1.0, n / max(rows, 1))
    for c in db.tier(tier):
        m = rng.random(len(c.index)) < p
        keep.append(bawo.TierChunk(*(a[m] for a in c)))
    return bawo.TierChunk(*(np.concatenate(cols) for cols in zip(*keep)))


def peak_rss_kb() -> int:
    """This process's peak resident set (VmHWM: unlike ru_maxrss, not inherited from the
    parent across fork and exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def scan_child(path: str, tier: int, chunk: int) -> None:
    """The scan, run alone in a child so that its peak RSS is its own."""
    db = bawo.open(path)
    base = peak_rss_kb()
    c0 = time.process_time()
    t0 = time.perf_counter()
    rows = 0
    win = np.zeros(1 << 14, np.int64)
    loss = np.zeros(1 << 14, np.int64)
    draws = 0
    for c in db.tier(tier, chunk_size=chunk):
        rows += len(c.index)
        d = c.depth.astype(np.intp)
        win += np.bincount(d[c.value == bawo.WIN], minlength=len(win))[: len(win)]
        loss += np.bincount(d[c.value == bawo.LOSS], minlength=len(loss))[: len(loss)]
        draws += int((c.value == bawo.DRAW).sum())
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = peak_rss_kb()
    print(
        json.dumps(
            {
                "rows": rows,
                "wall": wall,
                "cpu": cpu,
                "peak_kb": peak,
                "base_kb": base,
                "win": int(win.sum()),
                "loss": int(loss.sum()),
                "draw": draws,
            }
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default="/tmp/b16", help="database directory [/tmp/b16]")
    ap.add_argument("--tier", type=int, help="tier to probe and scan [the largest]")
    ap.add_argument("--solve", action="store_true", help="solve Bawo n=3, 16 seeds into --db if missing")
    ap.add_argument("--probes", type=int, default=200_000, help="db.probe calls timed [200000]")
    ap.add_argument("--bulk", type=int, default=1_000_000, help="positions of one probe_many call [1000000]")
    ap.add_argument("--chunk", type=int, default=1 << 20, help="rows a scan chunk [1048576]")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of each timing; the best is shown [3]")
    ap.add_argument("--scan-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()

    if a.scan_child:
        scan_child(a.db, a.tier, a.chunk)
        return
    if not Path(a.db).exists():
        if not a.solve:
            sys.exit(f"{a.db} does not exist: solve it first (see --help) or pass --solve")
        binary = os.environ.get("BAWO_BIN", str(REPO / "target" / "release" / "bawo"))
        cmd = [binary, "solve", "--game", "bawo", "--n", "3", "--seeds", "16", "--lap-cap", "64", "--out", a.db]
        print("$", " ".join(cmd), flush=True)
        subprocess.run(cmd + ["--quiet"], check=True)

    db = bawo.open(a.db)
    tier = a.tier if a.tier is not None else max(t["tier"] for t in db.tiers)
    below = [t["tier"] for t in db.tiers if t["tier"] < tier]
    print(f"{db.descriptor}, tier {tier}: {len(db.tier(tier)):,} positions; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(1)

    # Warm single probes: positions probed once before timing (their blocks cached).
    rows = sample_rows(db, tier, 4096, rng)
    texts = [(",".join(map(str, b)), bawo.SIDE_NAMES[s]) for b, s in zip(rows.boards, rows.to_move)][:1000]
    for b, s in texts:
        db.probe(b, s)
    k = len(texts)

    def probes() -> None:
        probe = db.probe
        for i in range(a.probes):
            b, s = texts[i % k]
            probe(b, s)

    t = best(a.rounds, probes)
    print(f"db.probe, warm:            {t / a.probes * 1e6:7.2f} us a call ({a.probes:,} calls, text boards)")
    lists = [([int(x) for x in b.split(",")], s) for b, s in texts]

    def probes_lists() -> None:
        probe = db.probe
        for i in range(a.probes):
            b, s = lists[i % k]
            probe(b, s)

    t = best(a.rounds, probes_lists)
    print(f"db.probe, warm:            {t / a.probes * 1e6:7.2f} us a call (lists of ints)")

    # Bulk: positions of the tier and the one below, shuffled.
    parts = [sample_rows(db, tier, a.bulk * 3 // 4, rng)]
    if below:
        parts.append(sample_rows(db, below[-1], a.bulk // 4, rng))
    boards = np.concatenate([p.boards for p in parts])
    sides = np.concatenate([p.to_move for p in parts])
    want = np.concatenate([p.value for p in parts])
    order = rng.permutation(len(boards))
    boards, sides, want = boards[order], sides[order], want[order]
    values, _ = db.probe_many(boards, sides)  # warm
    assert (values == want).all()
    c0 = time.process_time()
    t = best(a.rounds, lambda: db.probe_many(boards, sides))
    cpu = (time.process_time() - c0) / a.rounds
    print(f"db.probe_many, warm:       {len(boards) / t / 1e6:7.2f} M positions/s ({len(boards):,} a call: "
          f"{t:.3f} s wall, {cpu:.3f} s CPU)")
    db.close()

    # The scan, alone in a child interpreter.
    results = []
    for _ in range(a.rounds):
        r = subprocess.run(
            [sys.executable, __file__, "--scan-child", "--db", a.db, "--tier", str(tier), "--chunk", str(a.chunk)],
            capture_output=True, text=True, check=True,
        )
        results.append(json.loads(r.stdout))
    r = min(results, key=lambda x: x["wall"])
    print(f"scan of tier {tier}:          {r['wall']:7.2f} s wall, {r['cpu']:.2f} s CPU, "
          f"{r['rows'] / r['wall'] / 1e6:.1f} M rows/s; peak RSS {r['peak_kb'] / 1024:.0f} MB "
          f"(after open: {r['base_kb'] / 1024:.0f} MB); chunks of {a.chunk:,} rows")
    rounds = ", ".join("%.2f" % x["wall"] for x in results)
    print(f"  counted: {r['win']:,} WIN, {r['loss']:,} LOSS, {r['draw']:,} DRAW; all rounds: {rounds} s")


if __name__ == "__main__":
    main()
