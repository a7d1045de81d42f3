"""Rounds of tools/diskbench_compare.py: the median and spread of several
rounds, the order the boots run in, and what the machine's load says
about the figures. Pure functions (the calibration loop only reads the
clock)."""
import time

def median_results(runs):
    """Per test, the run with the median IOPS out of several rounds (the whole
    result of that run, so figures stay consistent with each other), with
    every round's IOPS and the spread, (max - min) / median."""
    runs = [r for r in runs if r]
    if not runs:
        return {}
    out = {}
    for t in set().union(*runs):
        have = sorted((r[t] for r in runs if t in r), key=lambda x: x.get("iops") or 0)
        out[t] = dict(have[(len(have) - 1) // 2])
        if len(have) > 1:
            out[t]["iops_rounds"] = [x.get("iops") for x in have]
            mid = out[t].get("iops") or 0
            out[t]["iops_spread"] = (have[-1].get("iops", 0) - have[0].get("iops", 0)) / mid if mid else None
    return out


def median_linux(rounds):
    """Rounds of fio_by_variant() -> {engine: median_results of that engine}."""
    engines = set().union(*[r for r in rounds if r]) if any(rounds) else set()
    return {v: median_results([(r or {}).get(v) for r in rounds]) for v in sorted(engines)}


SIDES = ("fio", "native", "firmware")


def run_order(devices, rounds, sides=SIDES):
    """The boots in the order they run: round by round, and in each round
    every device's sides one after the other (fio, native, firmware), so
    that a change of the machine's load hits every side alike."""
    return [(n, dev, side) for n in range(rounds) for dev in devices for side in sides]


def calibration_loop_s(n=300000):
    """Wall time of a fixed amount of Python work: it grows when other
    processes take the CPUs, which the QEMU runs then also lost."""
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i & 7
    return time.perf_counter() - t0


def load_notes(samples, ncpu, drift_limit=1.3):
    """What the reader should know about the machine during the runs.
    samples: one {"load": [1-min load average before, after], "calib_s":
    calibration_loop_s()} per boot. Notes when the load average went
    above the CPU count (other work competed with the emulator) or when
    the calibration loop's time drifted by more than drift_limit between
    boots (figures of different rounds are then not comparable)."""
    notes = []
    loads = [x for s in samples for x in s.get("load", []) if x is not None]
    calib = [s["calib_s"] for s in samples if s.get("calib_s")]
    if loads and max(loads) > ncpu:
        notes.append("machine loaded: 1-minute load average %.1f to %.1f on %d CPUs; other work competed with QEMU,"
                     " so only ratios within one round mean anything" % (min(loads), max(loads), ncpu))
    if len(calib) > 1 and max(calib) / min(calib) > drift_limit:
        notes.append("machine speed drifted: a fixed calibration loop took %.0f to %.0f ms between boots (%.1fx)"
                     % (min(calib) * 1e3, max(calib) * 1e3, max(calib) / min(calib)))
    if not notes and loads:
        notes.append("machine quiet: load average at most %.1f on %d CPUs, calibration loop within %.0f%%"
                     % (max(loads), ncpu, 100 * (max(calib) / min(calib) - 1) if calib else 0))
    return notes
