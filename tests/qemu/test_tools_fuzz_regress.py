"""The fleet tool's record reader on the inputs its fuzz harness
(tests/fuzz/fuzz_report_records.py) found breaking it, kept in
tests/fuzz/regress/report_records/: each is read like any capture, its bad
fields treated as absent. Host-only, no QEMU."""
import glob
import json
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from baremark_report import cli  # noqa: E402

HOST = True  # no test here boots QEMU: all run in `make check` (run_all.py --host)


def _report(paths):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["--json"] + paths, out, err)
    return status, out.getvalue(), err.getvalue()


def test_report_record_type_not_a_string_is_absent():
    """A record whose "type" is an object or a list is no record of any
    type (it raised TypeError: unhashable type in the run's index)."""
    path = os.path.join(ROOT, "tests/fuzz/regress/report_records/type_not_a_string.jsonl")
    status, out, err = _report([path])
    assert status in (0, 1), (status, err)
    assert '"machines"' in out, out[:500]


def test_report_fuzz_regressions_read_cleanly():
    """Every kept regression input ends in a report (exit 0 or 1), not a traceback."""
    paths = sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/regress/report_records/*")))
    assert paths
    for p in paths:
        status, _, err = _report([p])
        assert status in (0, 1), (p, status, err)


def _strict(text):
    """json.loads that refuses NaN and Infinity, as a strict reader does."""
    def refuse(token):
        raise ValueError("not JSON: %s" % token)
    return json.loads(text, parse_constant=refuse)


def test_report_pci_ids_not_scalars_are_absent():
    """A pci record's vendor, device and class that are no integer or
    string (a list, an object, NaN, Infinity) are left out, so the --json
    document stays strict JSON (they were copied into it as they came)."""
    path = os.path.join(ROOT, "tests/fuzz/regress/report_records/pci_ids_not_numbers.jsonl")
    status, out, err = _report([path])
    assert status in (0, 1), (status, err)
    pci = _strict(out)["tables"]["pci"]
    assert len(pci) == 1 and pci[0]["bdf"] == "0000:00:01.0", pci
    assert pci[0]["vendor"] is None and pci[0]["device"] is None and pci[0]["class"] is None, pci


def test_report_formatters_take_nan_and_infinity():
    """The page's number format and the size names print nothing for NaN and
    infinity (int() raised on them). The reader keeps such values out of
    the rows today; the formatters no longer depend on it."""
    from baremark_report import html, outliers
    for v in (float("nan"), float("inf"), float("-inf")):
        assert html._fmt(v) == "" and outliers.size_name(v) == "", v
    assert html._fmt(2.5) == "2.50" and outliers.size_name(4096) == "4 KiB"
