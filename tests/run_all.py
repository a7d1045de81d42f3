#!/usr/bin/env python3
"""Run every test: host unit tests (cmocka binaries in build/host/tests, the
AArch64 kernels' test in build/aa64/tests under qemu-aarch64, and
the host tools' pytest tests in tests/tools), QEMU integration tests
(tests/qemu/test_*.py, functions named test_*), and the fuzz smoke
(tests/fuzz/smoke.py: every harness a few seconds, "fuzz.NAME").

usage: run_all.py [--unit|--qemu|--host|--fuzz] [-k SUBSTRING] [-j N]
  --unit  the cmocka binaries only
  --qemu  the tests in tests/qemu only
  --host  the tests in tests/qemu that need no QEMU (marked with marks.host, or
          a module with HOST = True); with --unit, both: what `make check` runs
Ends with the line "N passed, N failed", after the ten slowest tests.
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"))
# Durations of the last run (written at the end), then the ones measured when
# the suite was last balanced (checked in): the slowest tests start first, so
# the parallel pool ends together instead of waiting on one late long test.
LAST_DURATIONS = os.path.join(BUILD, "test-durations.json")
KNOWN_DURATIONS = os.path.join(ROOT, "tests", "qemu", "durations.txt")
# The cmocka binaries mostly wait (device models' delays, bounded timeouts), so
# two at a time halve their wall time; not more than the cores by default, since
# a few count I/Os or retries within a deadline and need their CPU when they run.
UNIT_JOBS = int(os.environ.get("BAREMARK_UNIT_JOBS", os.environ.get("BAREMARK_TEST_JOBS", "2")))


def run_unit_binary(binary, pattern):
    """One cmocka binary: its TAP lines as (name, ok, detail), and its wall time."""
    t0 = time.time()
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
    cmd = [binary]
    name = os.path.basename(binary)
    if os.path.basename(os.path.dirname(os.path.dirname(binary))) == "aa64":
        cmd = ["qemu-aarch64", binary]  # tests/aa64: a static AArch64 binary, under QEMU user mode
        if not shutil.which(cmd[0]):
            return name, [(name, False, "qemu-aarch64 is missing: apt-get install qemu-user (make deps)")], 0.0
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    results = []
    seen = False
    for line in p.stdout.splitlines():
        line = line.strip()
        ok = line.startswith("ok ")
        if ok or line.startswith("not ok "):
            seen = True
            test = line.split(" - ", 1)[-1]
            full = "%s.%s" % (name, test)
            if pattern and pattern not in full:
                continue
            results.append((full, ok, "" if ok else p.stdout + p.stderr))
    if not seen:
        results.append((name, False, "no TAP output (exit %d)\n%s%s" % (p.returncode, p.stdout, p.stderr)))
    return name, results, time.time() - t0


def unit_tests(pattern):
    """Every cmocka binary, UNIT_JOBS at a time; results in name order, and each binary's time."""
    binaries = sorted(glob.glob(os.path.join(BUILD, "host/tests/test_*")))
    binaries += sorted(glob.glob(os.path.join(BUILD, "aa64/tests/test_*")))  # make aa64-mem-kernels
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, UNIT_JOBS)) as ex:
        done = list(ex.map(lambda b: run_unit_binary(b, pattern), binaries))
    results, times = [], {}
    for name, res, secs in done:
        results += res
        if res:
            times[name] = secs
    return results, times


def pytest_tests(pattern):
    """The host tools' pytest tests (tests/tools/test_*.py) as (name, ok, detail), from pytest's
    JUnit XML. They run with --unit; with -k, only when the pattern could name one of them."""
    import xml.etree.ElementTree as ET
    if pattern and not re.fullmatch(r"[\w.\[\]-]+", pattern):
        return []  # not a name pytest's -k can take (and no test here is named so)
    python = next((py for py in (sys.executable, "/usr/bin/python3") if os.path.exists(py) and subprocess.run(
        [py, "-c", "import pytest"], capture_output=True).returncode == 0), None)
    if python is None:
        return [("pytest", False, "pytest is missing: apt-get install python3-pytest (make deps)")]
    sub = pattern[len("pytest."):] if pattern.startswith("pytest.") else pattern
    with tempfile.TemporaryDirectory(prefix="baremark-pytest-") as tmp:
        xml = os.path.join(tmp, "junit.xml")
        cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", xml, "tests/tools"]
        if sub:
            cmd += ["-k", sub.rsplit(".", 1)[-1]]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1800)
        try:
            cases = list(ET.parse(xml).getroot().iter("testcase"))
        except (OSError, ET.ParseError):
            return [("pytest", False, "no JUnit XML (exit %d)\n%s%s" % (p.returncode, p.stdout, p.stderr))]
    results = []
    for c in cases:
        full = "pytest.%s.%s" % (c.get("classname", "").rsplit(".", 1)[-1], c.get("name"))
        bad = [e for e in c if e.tag in ("failure", "error")]
        if c.find("skipped") is not None or (pattern and pattern not in full):
            continue
        results.append((full, not bad, "\n".join((e.get("message") or "") + "\n" + (e.text or "") for e in bad)))
    if p.returncode not in (0, 1, 5) and not any(not ok for _, ok, _ in results):
        results.append(("pytest", False, "pytest exit %d\n%s%s" % (p.returncode, p.stdout[-3000:], p.stderr)))
    return results


def is_host_test(mod, fn):
    """A test that needs no QEMU: marked by marks.host, or in a HOST = True module."""
    return getattr(fn, "host_test", False) or getattr(mod, "HOST", False)


def qemu_cases(pattern, host_only=False):
    """The test functions of tests/qemu (only the host ones with host_only)."""
    cases = []
    sys.path.insert(0, os.path.join(ROOT, "tests/qemu"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/qemu/test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        # One module object per file: a test module that imports another
        # (test_bios_pxe imports test_rack) must get the one run here, not a
        # second copy with its own counters, locks and once-only boots (two
        # copies of test_rack gave two racks the same namespace names).
        mod = sys.modules.get(modname)
        if mod is None:
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
        for attr in sorted(dir(mod)):
            fn = getattr(mod, attr)
            if attr.startswith("test_") and callable(fn):
                full = "%s.%s" % (modname, attr)
                if (not pattern or pattern in full) and (not host_only or is_host_test(mod, fn)):
                    cases.append((full, fn))
    return cases


def fuzz_smoke(pattern, jobs):
    """The fuzz smoke's results (name, ok, detail, secs): tests/fuzz/smoke.py."""
    sys.path.insert(0, os.path.join(ROOT, "tests/fuzz"))
    import smoke
    return smoke.smoke(pattern, jobs)


def known_durations():
    """Seconds per test name: the checked-in table, overridden by the last run's."""
    out = {}
    try:
        for line in open(KNOWN_DURATIONS):
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                out[parts[1]] = float(parts[0])
    except OSError:
        pass
    try:
        out.update(json.load(open(LAST_DURATIONS)))
    except (OSError, ValueError):
        pass
    return out


def slowest_first(cases):
    """The cases, longest expected first (a test never timed counts as long: it may be)."""
    durations = known_durations()
    return sorted(cases, key=lambda c: -durations.get(c[0], 60.0))


def save_durations(times):
    """Keep this run's times for the next run's order (merged into what was there)."""
    try:
        old = json.load(open(LAST_DURATIONS))
    except (OSError, ValueError):
        old = {}
    old.update({k: round(v, 1) for k, v in times.items()})
    try:
        os.makedirs(os.path.dirname(LAST_DURATIONS), exist_ok=True)
        with open(LAST_DURATIONS, "w") as f:
            json.dump(old, f, indent=0, sort_keys=True)
    except OSError:
        pass


def guard_qemu():
    """In --host mode, starting QEMU is a mistake (a test marked host that is
    not): make it fail loudly instead of making `make check` slow."""
    real = subprocess.Popen

    class HostOnlyPopen(real):
        def __init__(self, args, *a, **kw):
            argv = [args] if isinstance(args, str) else list(args)
            if any(os.path.basename(str(x)).startswith("qemu-system") for x in argv):
                raise AssertionError("a test marked host starts QEMU: %s" % " ".join(map(str, argv))[:200])
            super().__init__(args, *a, **kw)

    subprocess.Popen = HostOnlyPopen


def run_case(case):
    """Run one test; its time leaves out what it waited for a shared boot
    another test was making (tests/qemu/marks.py), so that the durations
    start the booting test early and the ones reading its run late."""
    import marks
    name, fn = case
    t0, w0 = time.time(), marks.waited_seconds()
    try:
        fn()
        ok, detail = True, ""
    except Exception:  # an assertion or a crash: both fail the test
        ok, detail = False, traceback.format_exc()
    return name, ok, detail, time.time() - t0 - (marks.waited_seconds() - w0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unit", action="store_true")
    ap.add_argument("--qemu", action="store_true")
    ap.add_argument("--host", action="store_true")
    ap.add_argument("--fuzz", action="store_true", help="only the fuzz smoke")
    ap.add_argument("-k", default="")
    ap.add_argument("-j", type=int, default=int(os.environ.get("BAREMARK_TEST_JOBS", "2")))
    args = ap.parse_args()
    any_mode = args.unit or args.qemu or args.host or args.fuzz
    do_unit = args.unit or not any_mode
    do_qemu = args.qemu or args.host or not any_mode
    do_fuzz = args.fuzz or not any_mode
    passed = failed = 0
    times = {}
    t0 = time.time()

    # The tools' pytest run mostly waits (servers, a PostgreSQL cluster): it runs
    # beside the cmocka binaries, the fuzz smoke and the tests of tests/qemu,
    # and its results are printed when it is done (after those).
    pytest_pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    pytest_run = None
    if do_unit:
        def timed_pytest():
            t_py = time.time()
            return pytest_tests(args.k), time.time() - t_py
        pytest_run = pytest_pool.submit(timed_pytest)
        results, unit_times = unit_tests(args.k)
        times.update(unit_times)
        for name, ok, detail in results:
            print("%s %s" % ("PASS" if ok else "FAIL", name), flush=True)
            if not ok:
                print(detail)
            passed += ok
            failed += not ok

    if do_fuzz:
        for name, ok, detail, secs in fuzz_smoke(args.k, args.j):
            times[name] = secs
            print("%s %s (%.0f s)" % ("PASS" if ok else "FAIL", name, secs), flush=True)
            if not ok:
                print(detail)
            passed += ok
            failed += not ok

    if do_qemu:
        host_only = args.host and not args.qemu
        if host_only:
            guard_qemu()
        cases = slowest_first(qemu_cases(args.k, host_only))
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
            futures = [ex.submit(run_case, c) for c in cases]
            for fut in concurrent.futures.as_completed(futures):
                name, ok, detail, secs = fut.result()
                times[name] = secs
                print("%s %s (%.0f s)" % ("PASS" if ok else "FAIL", name, secs), flush=True)
                if not ok:
                    print(detail)
                passed += ok
                failed += not ok
        import qemu
        qemu.cleanup()
        save_durations({k: v for k, v in times.items() if "." in k})

    if pytest_run is not None:
        py_results, py_secs = pytest_run.result()
        if py_results:
            times["pytest (tests/tools, all)"] = py_secs
        for name, ok, detail in py_results:
            print("%s %s" % ("PASS" if ok else "FAIL", name), flush=True)
            if not ok:
                print(detail)
            passed += ok
            failed += not ok
    pytest_pool.shutdown()

    if times:
        print("slowest tests (unit tests per binary):")
        for name, secs in sorted(times.items(), key=lambda kv: -kv[1])[:10]:
            print("  %6.1f s  %s" % (secs, name))
    print("total time %.0f s" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
