#!/usr/bin/env python3
"""The fuzz smoke of `make test`: every libFuzzer harness in build/fuzz/ for a
few seconds, started from its kept corpus (tests/fuzz/corpus/NAME), every
kept regression input (tests/fuzz/regress/NAME) and every crash a longer
`make fuzz` saved (build/fuzz/crash-NAME-*), then the Python harness of the
fleet tool's record reader (tests/fuzz/fuzz_report_records.py).

Each harness is one result, "fuzz.NAME"; a finding fails it (the sanitizer's
report is the detail, the input is saved as build/fuzz/crash-NAME-*, so the
next smoke replays it until it is fixed). A harness the tree has a source
for but the build lacks fails too: the smoke never skips silently.

usage: smoke.py [-k SUBSTRING] [-j N] [--seconds S]   (tests/fuzz/README.md)
"""
import argparse
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUZZ_DIR = os.path.join(ROOT, "tests/fuzz")
# Mutation time per harness after the replay: with two at a time, 29
# harnesses stay near half a minute (tests/fuzz/README.md has the measured
# cost and the planted bug a 2 s smoke still catches); `make fuzz` is the
# long run.
SECONDS = float(os.environ.get("BAREMARK_FUZZ_SMOKE_SECONDS", "2"))


def build_dir():
    return os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"), "fuzz")


def harness_names():
    """Every C harness the tree has a source for, by name (fuzz_NAME.c)."""
    return sorted(os.path.basename(p)[len("fuzz_"):-2] for p in glob.glob(os.path.join(FUZZ_DIR, "fuzz_*.c")))


def seed_inputs(name, into):
    """Copy the saved crash inputs of a harness into its scratch corpus; the
    kept corpus and regression folders are read in place."""
    dirs = [d for d in (os.path.join(FUZZ_DIR, "corpus", name), os.path.join(FUZZ_DIR, "regress", name))
            if os.path.isdir(d)]
    crashes = glob.glob(os.path.join(build_dir(), "crash-%s-*" % name))
    for i, c in enumerate(sorted(crashes)):
        shutil.copy(c, os.path.join(into, "saved-crash-%d" % i))
    return dirs, len(crashes)


def run_c_harness(name, seconds):
    """Replay, then mutate for `seconds`; returns (name, ok, detail, secs)."""
    t0 = time.time()
    binary = os.path.join(build_dir(), "fuzz_" + name)
    full = "fuzz." + name
    if not os.access(binary, os.X_OK):
        return full, False, "%s not built (make fuzz-build)" % binary, 0.0
    with tempfile.TemporaryDirectory(prefix="bm-fuzz-%s-" % name) as scratch:
        dirs, ncrash = seed_inputs(name, scratch)
        cmd = [binary, "-max_total_time=%d" % max(1, int(seconds)), "-timeout=10", "-rss_limit_mb=2048",
               "-close_fd_mask=1", "-print_final_stats=1", "-artifact_prefix=%s/crash-%s-" % (build_dir(), name),
               scratch] + dirs
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=ROOT,
                               timeout=seconds + 120)
        except subprocess.TimeoutExpired:
            return full, False, "no end within %.0f s: %s" % (seconds + 120, " ".join(cmd)), time.time() - t0
    secs = time.time() - t0
    runs = [l.split(":")[-1].strip() for l in p.stderr.splitlines() if l.startswith("stat::number_of_executed_units")]
    if p.returncode == 0:
        return full, True, "%s runs, %d saved crash input(s) replayed" % (runs[0] if runs else "?", ncrash), secs
    lines = p.stderr.splitlines()
    keep = [l for l in lines if "ERROR" in l or "runtime error" in l or "SUMMARY" in l or "Test unit written" in l
            or l.startswith("    #") or "Seed:" in l]
    return full, False, "exit %d: %s\n%s" % (p.returncode, " ".join(cmd), "\n".join(keep[:40] or lines[-40:])), secs


def python_with_hypothesis():
    """This interpreter, or Debian's when only it has python3-hypothesis
    (a pyenv python3 first in PATH does not see Debian's packages)."""
    for exe in (sys.executable, "/usr/bin/python3"):
        if os.access(exe, os.X_OK) and subprocess.run([exe, "-c", "import hypothesis"],
                                                      capture_output=True).returncode == 0:
            return exe
    return sys.executable


def run_py_harness(seconds):
    """The fleet tool's record reader (Python, hypothesis or a seeded loop)."""
    t0 = time.time()
    p = subprocess.run([python_with_hypothesis(), os.path.join(FUZZ_DIR, "fuzz_report_records.py"), "--seconds",
                        str(seconds)], capture_output=True, text=True, errors="replace", cwd=ROOT,
                       timeout=seconds + 120)
    ok = p.returncode == 0
    return "fuzz.report_records", ok, (p.stdout + p.stderr)[-4000:] if not ok else p.stdout.strip(), time.time() - t0


def smoke(pattern="", jobs=2, seconds=SECONDS):
    """Every harness matching pattern; yields (name, ok, detail, secs) as they end."""
    jobs_list = [("c", n) for n in harness_names() if not pattern or pattern in "fuzz." + n]
    if not pattern or pattern in "fuzz.report_records":
        jobs_list.append(("py", "report_records"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        futs = [ex.submit(run_c_harness, n, seconds) if kind == "c" else ex.submit(run_py_harness, seconds)
                for kind, n in jobs_list]
        for f in futs:
            yield f.result()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=SECONDS)
    args = ap.parse_args()
    passed = failed = 0
    t0 = time.time()
    for name, ok, detail, secs in smoke(args.k, args.j, args.seconds):
        print("%s %s (%.0f s) %s" % ("PASS" if ok else "FAIL", name, secs, detail if ok else ""), flush=True)
        if not ok:
            print(detail)
        passed += ok
        failed += not ok
    print("total time %.0f s" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
