#!/usr/bin/env python3
"""Run every test: host unit tests (cmocka binaries in build/host/tests, and
the host tools' pytest tests in tests/tools) and QEMU integration tests (tests/qemu/test_*.py, functions named test_*).

usage: run_all.py [--unit|--qemu] [-k SUBSTRING] [-j N]
Ends with the line "N passed, N failed".
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def unit_tests(pattern):
    results = []
    for binary in sorted(glob.glob(os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build") + "/host/tests/test_*"))):
        env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
        p = subprocess.run([binary], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        name = os.path.basename(binary)
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
    return results


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


def qemu_cases(pattern):
    cases = []
    sys.path.insert(0, os.path.join(ROOT, "tests/qemu"))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/qemu/test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for attr in sorted(dir(mod)):
            if attr.startswith("test_") and callable(getattr(mod, attr)):
                full = "%s.%s" % (modname, attr)
                if not pattern or pattern in full:
                    cases.append((full, getattr(mod, attr)))
    return cases


def run_case(case):
    name, fn = case
    t0 = time.time()
    try:
        fn()
        return name, True, "", time.time() - t0
    except Exception:  # an assertion or a crash: both fail the test
        return name, False, traceback.format_exc(), time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unit", action="store_true")
    ap.add_argument("--qemu", action="store_true")
    ap.add_argument("-k", default="")
    ap.add_argument("-j", type=int, default=int(os.environ.get("BAREMARK_TEST_JOBS", "2")))
    args = ap.parse_args()
    do_unit = args.unit or not args.qemu
    do_qemu = args.qemu or not args.unit
    passed = failed = 0
    t0 = time.time()

    if do_unit:
        for name, ok, detail in unit_tests(args.k) + pytest_tests(args.k):
            print("%s %s" % ("PASS" if ok else "FAIL", name), flush=True)
            if not ok:
                print(detail)
            passed += ok
            failed += not ok

    if do_qemu:
        cases = qemu_cases(args.k)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as ex:
            for name, ok, detail, secs in ex.map(run_case, cases):
                print("%s %s (%.0f s)" % ("PASS" if ok else "FAIL", name, secs), flush=True)
                if not ok:
                    print(detail)
                passed += ok
                failed += not ok

    if do_qemu:
        import qemu
        qemu.cleanup()
    print("total time %.0f s" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
