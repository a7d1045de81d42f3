"""baremark-report's findings summary: machines counted and named per
finding, warnings first, runs without an end record said (no QEMU boot:
the tool in-process on small record files)."""
import io
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import marks  # noqa: E402
from baremark_report import cli  # noqa: E402

C226 = "4 SATA disks behind the Intel 8 series/C220 (Lynx Point)'s DMI 2.0 x4: 1.71 of 2.00 GB/s (86%)"


def _machine(d, serial, finds, ended=True):
    """One machine's .jsonl: run, system, its findings, end."""
    recs = [{"type": "run", "version": "0.1.0", "time": "2026-12-04T10:00:00Z", "args": ""},
            {"type": "system", "serial": serial, "product": "C226 WS", "cpus": 8}]
    for kind, sev, sentence in finds:
        recs.append({"type": "finding", "finding": kind, "severity": sev, "subjects": ["ahci0p0"], "text": sentence,
                     "numbers": {"aggregate_mbps": 1710, "ceiling_mbps": 2000}})
    if ended:
        recs.append({"type": "end", "status": "ok", "errors": 0, "seconds": 10})
    path = os.path.join(d, serial + ".jsonl")
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    return path


def _fleet(d):
    return [_machine(d, "S1", [("shared_ceiling", "warn", C226), ("numa_remote", "info", "Remote 1.6x")]),
            _machine(d, "S2", [("shared_ceiling", "warn", C226)]),
            _machine(d, "S3", [("numa_remote", "info", "Remote 1.7x")]),
            _machine(d, "S4", []),
            _machine(d, "S5", [], ended=False)]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, out, err)
    return status, out.getvalue(), err.getvalue()


@marks.host
def test_report_counts_and_names_machines_per_finding():
    with tempfile.TemporaryDirectory() as d:
        status, out, err = _run(["--json"] + _fleet(d))
        assert status in (0, 1), err
        rows = json.loads(out)["findings"]
    assert [r["finding"] for r in rows] == ["shared_ceiling", "numa_remote"]
    assert rows[0] == {"finding": "shared_ceiling", "severity": "warn", "count": 2, "machines": ["S1", "S2"],
                       "example": C226}
    assert rows[1]["count"] == 2 and rows[1]["machines"] == ["S1", "S3"] and rows[1]["severity"] == "info"


@marks.host
def test_report_text_puts_findings_first_and_names_cut_runs():
    with tempfile.TemporaryDirectory() as d:
        status, out, err = _run(_fleet(d))
    assert out.startswith("FINDINGS: 2 kinds over 5 machines\n"), out[:200]
    assert "  warn shared_ceiling       2 machines: S1, S2\n" in out
    assert "e.g. " + C226 in out
    assert "(no end record, findings may be missing: S5)" in out


@marks.host
def test_report_html_has_the_findings_table_before_the_flags():
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "fleet.html")
        status, out, err = _run(["--html", page] + _fleet(d))
        with open(page) as f:
            text = f.read()
    assert text.index('<section id="findings">') < text.index('<section id="flags">')
    assert "<td>S1, S2</td>" in text
    assert "(Lynx Point)&#x27;s DMI 2.0 x4" in text


@marks.host
def test_report_without_finding_records_says_none():
    with tempfile.TemporaryDirectory() as d:
        paths = [_machine(d, "S9", [])]
        status, out, err = _run(paths)
    assert out.startswith("FINDINGS: 0 kinds over 1 machine\n")
