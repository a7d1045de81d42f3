#!/usr/bin/env python3
"""Fuzz harness of the fleet tool's record reader (tools/baremark_report):
hostile serial captures and .jsonl files through extract -> fleet -> tables
and flags -> text, CSV, JSON and the fleet page, in process.

Inputs: records of every type the tool reads with the keys it reads, each
value any JSON (huge integers, 1e308, NaN and Infinity tokens, strings,
nesting), written as .jsonl or as a serial capture (prefixes, escape
sequences, a cut line); and the files in tests/tools/data with bytes
flipped, cut, repeated or spliced. Fails on any exception, and unless the
--format json document is strict JSON (no NaN/Infinity), as json.loads in
another tool would need.

With Debian's python3-hypothesis it generates through hypothesis (and
shrinks a failure); without it a seeded random loop does the same.
usage: fuzz_report_records.py [--seconds S] [--seed N] [FILE...]  (FILE: replay only)
"""
import argparse
import glob
import io
import json
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from baremark_report import cli, extract, fleet, html, outliers, tables  # noqa: E402

TYPES = ["run", "system", "end", "disk", "disk_result", "mem_latency", "mem_bandwidth", "pci", "dimm",
         "dimm_summary", "error", "note", "verdict", "mem_info"]
KEYS = ["type", "pass", "time", "serial", "product", "vendor", "version", "cpu", "cpus", "id", "model", "driver",
        "path", "blocks", "lba_bytes", "test", "rw", "bs", "qd", "mbps", "iops", "lat_us", "p50", "p99", "p999",
        "mean", "max", "bytes", "pattern", "ns", "op", "threads", "gbps", "extra", "bdf", "class", "device",
        "link", "speed_gts", "width", "max_speed_gts", "max_width", "downtrained", "bank", "locator", "size_mb",
        "populated", "slots", "warnings", "warning", "status", "errors", "note", "message", "where", "text",
        "disk", "firmware", "link_gbps"]
SEEDS = sorted(glob.glob(os.path.join(ROOT, "tests/tools/data/*.log")) +
               glob.glob(os.path.join(ROOT, "tests/tools/data/*.jsonl")))
SEED_BYTES = [open(p, "rb").read()[:20000] for p in SEEDS]
LIMITS = outliers.Limits(outliers.DISK_RATIO, outliers.LAT_RATIO, outliers.MEM_TOLERANCE, outliers.MIN_PEERS)


def check(blobs, all_runs=False, by_pass=False):
    """One fleet of inputs (bytes each) through everything the tool prints."""
    sources = [extract.extract_bytes(b, "m%d.%s" % (i, ("jsonl", "log")[i % 2])) for i, b in enumerate(blobs)]
    seen = fleet.split_runs(sources)
    chosen = fleet.choose_runs(seen, all_runs)
    shown, flags = cli.build_tables(chosen, sources, seen, LIMITS, by_pass)
    for name in tables.ORDER:
        tables.render_text(name, shown[name])
        tables.csv_text(name, shown[name])
    doc = {"limits": LIMITS.__dict__, "flags": shown["flags"],
           "tables": {n: tables.json_rows(n, shown[n]) for n in tables.ORDER if n != "flags"}}
    json.dumps(doc, allow_nan=False)  # ValueError if a NaN or an infinity reached the document
    for f in flags:
        f.line()
    html.fleet_page(shown, flags, LIMITS, {})


def value(rng, depth=0):
    """Any JSON value, weighted to what breaks number handling."""
    k = rng.randrange(12 if depth < 3 else 9)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([True, False])
    if k == 2:
        return rng.choice([0, -1, 1, 2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64, -(2 ** 63) - 1, 10 ** 30, rng.randrange(-9, 5000)])
    if k == 3:
        return rng.choice([0.5, -0.0, 1e18, 1.0000001e18, 1e308, -1e308, 5e-324, float("nan"), float("inf"),
                           float("-inf"), rng.uniform(-1e6, 1e6)])
    if k in (4, 5):
        return rng.choice(["", "x", "ok", "read", "random", "0000:00:01.0", "\u202e", "<script>", "\ud800", "NaN",
                           "a" * rng.randrange(300), "4K", "\x00\x1b[2J"])
    if k == 6:
        return rng.uniform(0, 1e4)
    if k in (7, 8):
        return rng.randrange(0, 1 << rng.randrange(1, 70))
    if k == 9:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(KEYS): value(rng, depth + 1) for _ in range(rng.randrange(5))}


def record(rng):
    r = {"type": rng.choice(TYPES) if rng.randrange(10) else value(rng)}
    for _ in range(rng.randrange(10)):
        r[rng.choice(KEYS)] = value(rng)
    return r


def mutate(rng, data):
    """Bytes flipped, cut, repeated or spliced with another seed file."""
    b = bytearray(data)
    for _ in range(rng.randrange(1, 8)):
        op = rng.randrange(5)
        if not b:
            b += rng.choice(SEED_BYTES or [b"{}"])
            continue
        i = rng.randrange(len(b))
        if op == 0:
            b[i] = rng.randrange(256)
        elif op == 1:
            del b[i:i + rng.randrange(1, 64)]
        elif op == 2:
            b[i:i] = b[i:i + rng.randrange(1, 200)] * rng.randrange(1, 4)
        elif op == 3:
            b[i:i] = rng.choice([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"99999999999999999999", b"\"",
                                 b"{", b"}", b"\n", b"\x1b[0m", b"\xff\xfe", b"\\ud800", b",\"pass\":-1"])
        else:
            other = rng.choice(SEED_BYTES or [b"{}"])
            j = rng.randrange(len(other) + 1)
            b[i:] = other[j:j + rng.randrange(2000)]
    return bytes(b)


def fleet_input(rng):
    """A few machines' files: generated records or mutated real captures."""
    blobs = []
    for m in range(rng.randrange(1, 6)):
        if SEED_BYTES and rng.randrange(3) == 0:
            blobs.append(mutate(rng, rng.choice(SEED_BYTES)))
            continue
        recs = [{"type": "run", "time": "2026-01-0%dT00:00:00Z" % rng.randrange(1, 9)},
                {"type": "system", "serial": "S%d" % rng.randrange(4)}] if rng.randrange(4) else []
        recs += [record(rng) for _ in range(rng.randrange(1, 12))]
        lines = [json.dumps(r, allow_nan=True) for r in recs]
        if m % 2:  # the serial form: prefixes, escapes, a line cut short
            lines = [rng.choice(["", "BAREMARK ", "\x1b[1m", "[ 12.3] ", "rack1: "]) + l for l in lines]
            if lines and rng.randrange(4) == 0:
                lines[-1] = lines[-1][:rng.randrange(len(lines[-1]) + 1)]
        data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
        blobs.append(mutate(rng, data) if rng.randrange(5) == 0 else data)
    return blobs


def one(seed):
    """The fleet of one seed through check(); the seed names it for a replay."""
    rng = random.Random(seed)
    check(fleet_input(rng), all_runs=rng.randrange(2) == 1, by_pass=rng.randrange(2) == 1)


def run_hypothesis(seconds):
    """Hypothesis drives the seed (and shrinks a failing one)."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    @settings(max_examples=25, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(min_value=0, max_value=2 ** 64))
    def prop(seed):
        try:
            one(seed)
        except Exception:
            print("failing seed: %d (replay: %s --seed %d)" % (seed, sys.argv[0], seed), file=sys.stderr)
            raise

    n, t0 = 0, time.time()
    while time.time() - t0 < seconds:
        prop()
        n += 25
    return n


def run_loop(seconds, seed):
    """Without hypothesis: consecutive seeds from `seed`."""
    n, t0 = 0, time.time()
    while time.time() - t0 < seconds:
        try:
            one(seed + n)
        except Exception:
            print("failing seed: %d (replay: %s --seed %d)" % (seed + n, sys.argv[0], seed + n), file=sys.stderr)
            raise
        n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--seed", type=int, help="replay this one seed (or, with --loop, start there)")
    ap.add_argument("--loop", action="store_true", help="the seeded loop even when hypothesis is installed")
    ap.add_argument("files", nargs="*", help="replay these files as one fleet")
    args = ap.parse_args()
    # Kept regression inputs: every file is one machine's capture, replayed first.
    regress = sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/regress/report_records/*")))
    for p in args.files or regress:
        check([open(p, "rb").read()])
    if args.files:
        print("replayed %d file(s)" % len(args.files))
        return 0
    if args.seed is not None and not args.loop:
        one(args.seed)
        print("seed %d clean" % args.seed)
        return 0
    try:
        import hypothesis  # noqa: F401
        use_hyp = not args.loop
    except ImportError:
        use_hyp = False
    t0 = time.time()
    n = run_hypothesis(args.seconds) if use_hyp else run_loop(args.seconds, args.seed or 1)
    secs = time.time() - t0
    print("%d fleets in %.1f s (%.0f/s, %s), %d regression input(s)" % (
        n, secs, n / secs if secs else 0, "hypothesis" if use_hyp else "seeded loop", len(regress)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
