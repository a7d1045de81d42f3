"""tools/baremark-report: records out of noisy serial captures, tables, flags.

Host-only and fast (no QEMU). The fixtures in tests/tools/data are serial
captures of five machines written by tests/tools/make_fixtures.py, which
also wrote expected.json: every record each file holds (line, tag, object)
and the lines holding records nobody can read.
"""

HOST = True  # no test here boots QEMU: all run in `make check` (run_all.py --host)
import csv
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from baremark_report import cli, extract  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "baremark-report")
DATA = os.path.join(ROOT, "tests", "tools", "data")
TAG = r"(\S+): *$"  # the console server's syslog: "... consrv node04: BAREMARK {...}"
CAPTURES = ["node01.log", "node01.jsonl", "node02.log", "node03.log", "rack-b.log"]

# What is wrong with the fleet, and nothing else.
EXPECTED_FLAGS = {
    ("RX2-0002", "pci_link", "PCIe link 0000:00:01.0 - 0000:01:00.0"),
    ("RX2-0003", "dimm_empty", "DIMM slot P0 CHANNEL D DIMM_D1"),
    ("RX2-0003", "dimm_warning", "DIMM population"),
    ("RX2-0004", "disk_mbps", "disk sata0 SEQ1M-Q8T1 read (ACME S200 480GB)"),
    ("RX2-0004", "disk_mbps", "disk sata0 SEQ1M-Q1T1 read (ACME S200 480GB)"),
    ("RX2-0004", "disk_p99", "disk sata0 SEQ1M-Q8T1 read (ACME S200 480GB)"),
    ("RX2-0004", "disk_p99", "disk sata0 SEQ1M-Q1T1 read (ACME S200 480GB)"),
}


def _expected():
    with open(os.path.join(DATA, "expected.json")) as f:
        return json.load(f)


def _paths(names=CAPTURES):
    return [os.path.join(DATA, n) for n in names]


def _run(argv):
    """The tool in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, out, err)
    return status, out.getvalue(), err.getvalue()


def _report(argv):
    """The tool's --json document for argv (asserting it ran)."""
    status, out, err = _run(["--json"] + argv)
    assert status in (0, 1), (status, err)
    return status, json.loads(out)


def _write_jsonl(folder, name, records):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    return path


def _fleet_records(n, serial, model="M1", mbps=500.0, p99=900.0, link=(8.0, 4, False), dimm_mb=16384,
                   mem_ns=100.0, gbps=20.0, end=True):
    """A small, complete run for synthetic-fleet tests."""
    recs = [{"type": "run", "version": "t", "schema": 1, "time": "2025-01-01T00:00:%02d" % n},
            {"type": "system", "serial": serial, "product": "P", "cpu": "CPU X"},
            {"type": "dimm", "locator": "DIMM0", "bank": "", "size_mb": dimm_mb},
            {"type": "pci", "bdf": "0000:02:00.0", "vendor": 4096, "device": 5,
             "link": {"speed_gts": link[0], "width": link[1], "max_speed_gts": 8.0, "max_width": 8,
                      "downtrained": link[2]}, "path": []},
            {"type": "disk", "id": "d0", "model": model, "serial": "S%d" % n},
            {"type": "disk_result", "disk": "d0", "test": "SEQ1M-Q8T1", "rw": "read", "bs": 1048576, "qd": 8,
             "mbps": mbps, "iops": mbps, "lat_us": {"mean": p99 / 2, "p50": p99 / 2, "p99": p99, "p999": p99,
                                                    "max": p99}},
            {"type": "mem_latency", "bytes": 268435456, "pattern": "full_random", "ns": mem_ns},
            {"type": "mem_bandwidth", "op": "read", "threads": 1, "bytes": 1 << 27, "gbps": gbps}]
    if end:
        recs.append({"type": "end", "status": "ok", "errors": 0})
    return recs


def _flag_set(doc):
    return {(f["machine"], f["kind"], f["what"]) for f in doc["flags"]}


def test_report_extracts_exact_records_from_noisy_captures():
    expected = _expected()
    tag_re = re.compile(TAG)
    for name in CAPTURES:
        src = extract.extract_file(os.path.join(DATA, name), tag_re=tag_re)
        got = [[f.line, f.tag, f.record] for f in src.found]
        want = [[line, tag if name == "rack-b.log" else None, rec] for line, tag, rec in expected[name]["records"]]
        assert got == want, "%s: records differ" % name
        assert [b.line for b in src.bad] == expected[name]["bad"], (name, src.bad)
    # The captures really hold what the tool has to survive.
    raw = open(os.path.join(DATA, "node02.log"), "rb").read()
    assert b"\x1b[2J\x1b[01;01H" in raw and b"BdsDxe: loading" in raw and b"\r\n" in raw
    assert re.search(rb"5 s / 5 s \x1b\[K(?=BAREMARK \{)", raw), "a record after noise on its line"
    wrapped = [l for l in raw.split(b"\r\n") if l.startswith(b'BAREMARK {"type":"pci","bdf":"0000:00:01.0"')]
    assert len(wrapped) == 1 and len(wrapped[0]) == 80, "a record wrapped onto a second line"
    assert len(expected["node03.log"]["bad"]) == 2 and len(expected["rack-b.log"]["bad"]) == 1


def test_report_flags_exactly_the_broken_machines():
    status, doc = _report(["--tag", TAG] + _paths())
    assert status == 1
    assert _flag_set(doc) == EXPECTED_FLAGS, sorted(_flag_set(doc) ^ EXPECTED_FLAGS)
    by = {(f["machine"], f["kind"], f["what"]): f for f in doc["flags"]}
    slow = by[("RX2-0004", "disk_mbps", "disk sata0 SEQ1M-Q8T1 read (ACME S200 480GB)")]
    # value and median are the fixture's own figures
    recs = _expected()["rack-b.log"]["records"]
    mine = [r["mbps"] for _, tag, r in recs if tag == "node04" and r.get("disk") == "sata0"
            and r.get("test") == "SEQ1M-Q8T1"]
    assert slow["value_num"] == mine[0]
    assert slow["reference_num"] > 2 * slow["value_num"]
    link = by[("RX2-0002", "pci_link", "PCIe link 0000:00:01.0 - 0000:01:00.0")]
    assert "x2" in link["value"] and "x4" in link["reference"]
    machines = {m["machine"]: m for m in doc["tables"]["machines"]}
    assert sorted(machines) == ["RX2-0001", "RX2-0002", "RX2-0003", "RX2-0004", "RX2-0005"]
    assert all(m["status"] == "ok" for m in machines.values())


def test_report_subprocess_exit_status_and_csv_files():
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([TOOL, "--tag", TAG, "--csv", tmp] + _paths(), capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 1, p.stderr
        assert "FLAGS: %d" % len(EXPECTED_FLAGS) in p.stdout
        assert "node03.log: 2 record(s) could not be read" in p.stderr
        with open(os.path.join(tmp, "disk_results.csv")) as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 5 * 2 * 4, len(rows)  # machines x disks x tests
        slow = [r for r in rows if r["machine"] == "RX2-0004" and r["disk"] == "sata0" and r["test"] == "SEQ1M-Q8T1"]
        assert len(slow) == 1 and float(slow[0]["mbps_vs_median"]) < 0.5
        burn = [r for r in rows if r["machine"] == "RX2-0001"]
        assert {r["passes"] for r in burn} == {"2"}
        with open(os.path.join(tmp, "flags.csv")) as f:
            flags = list(csv.DictReader(f))
        assert {(r["machine"], r["kind"], r["what"]) for r in flags} == EXPECTED_FLAGS
        with open(os.path.join(tmp, "pci.csv")) as f:
            pci = list(csv.DictReader(f))
        assert {(r["machine"], r["bdf"]) for r in pci if r["downtrained"] == "true"} == \
            {("RX2-0002", "0000:00:01.0"), ("RX2-0002", "0000:01:00.0")}
        with open(os.path.join(tmp, "files.csv")) as f:
            files = {os.path.basename(r["file"]): r for r in csv.DictReader(f)}
        assert files["node03.log"]["bad"] == "2" and files["node03.log"]["runs"] == "2"
        # One table to stdout is plain CSV.
        status, out, err = _run(["--tag", TAG, "--format", "csv", "--tables", "dimm_summary"] + _paths())
        rows = list(csv.DictReader(io.StringIO(out)))
        assert status == 1 and len(rows) == 5
        assert [r["machine"] for r in rows if r["warnings"]] == ["RX2-0003"]


def test_report_exit_zero_on_a_healthy_fleet():
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(1, 5):
            _write_jsonl(tmp, "m%d.jsonl" % n, _fleet_records(n, "H%d" % n, mbps=500.0 + n))
        status, out, err = _run([tmp])
        assert status == 0, out + err
        assert "FLAGS: 0" in out and "H4" in out


def test_report_usage_errors_exit_2():
    assert _run([os.path.join(DATA, "no-such-file.log")])[0] == 2
    assert _run(["--tables", "disks,nonsense", os.path.join(DATA, "node02.log")])[0] == 2
    assert _run(["--tag", "(unclosed", os.path.join(DATA, "node02.log")])[0] == 2
    assert _run(["--min-peers", "0", os.path.join(DATA, "node02.log")])[0] == 2
    status, out, err = _run([])
    assert status == 2 and "required: FILE" in err
    status, out, err = _run(["--no-such-option", os.path.join(DATA, "node02.log")])
    assert status == 2 and "unrecognized arguments: --no-such-option" in err
    p = subprocess.run([TOOL, "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    for word in ("disk_mbps", "pci_link", "dimm_empty", "no_end", "--min-peers", "exit status", "--tag"):
        assert word in p.stdout, word


def test_report_survives_random_bytes():
    rng = random.Random(7)
    nasty = [b"BAREMARK {", b"BAREMARK {\"type\":\"pci\",\"link\":", b"[" * 5000, b"\x1b[", b"\r", b"\n",
             b"\"", b"}", b"\xff\xfe", b"BAREMARK {\"type\":\"disk_result\",\"mbps\":\"x\",\"lat_us\":[1]}\n"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i in range(6):
            chunks = [bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 400))) for _ in range(40)]
            data = b"".join(c + (rng.choice(nasty) if rng.random() < 0.5 else b"") for c in chunks)
            path = os.path.join(tmp, "garbage%d.%s" % (i, "jsonl" if i % 2 else "bin"))
            with open(path, "wb") as f:
                f.write(data)
            paths.append(path)
        for path in paths:
            status, out, err = _run([path])
            assert status in (0, 1), err
        status, doc = _report(paths + _paths(["node02.log"]))
        assert status == 1
        # a file of pure noise is one machine where baremark never ran
        pure = os.path.join(tmp, "pure.bin")
        with open(pure, "wb") as f:
            f.write(bytes(rng.getrandbits(8) for _ in range(20000)).replace(b"BAREMARK", b"x"))
        status, doc = _report([pure])
        assert status == 1 and [f["kind"] for f in doc["flags"]] == ["no_records"]
    # a record nested deeper than Python's parser goes is a bad line, not a crash
    src = extract.extract_bytes(b"BAREMARK {\"a\":" + b"[" * 100000 + b"\n")
    assert src.found == [] and len(src.bad) == 1


def test_report_joins_wrapped_records_and_reads_noise_before_prefix():
    rec = {"type": "dimm", "locator": "DIMM_A1", "bank": "P0", "size_mb": 8192, "part": "X" * 150}
    line = "BAREMARK " + json.dumps(rec)
    wrapped = "\r\n".join(line[i:i + 80] for i in range(0, len(line), 80))
    data = ("BdsDxe: starting\r\n\x1b[0m\x1b[24;1H  sata0 RND4K 5 s / 5 s " + wrapped +
            " BAREMARK {\"type\":\"end\",\"status\":\"ok\"}\r\n").encode()
    src = extract.extract_bytes(data, "w.log")
    assert [f.record for f in src.found] == [rec, {"type": "end", "status": "ok"}]
    assert [f.line for f in src.found] == [2, 2 + len(range(0, len(line), 80)) - 1] and not src.bad
    # A record cut by a reset is not glued to what follows it.
    data = b"BAREMARK {\"type\":\"dimm\",\"loc\r\n\x1b[2JBIOS\r\nBAREMARK {\"type\":\"run\"}\r\n"
    src = extract.extract_bytes(data, "r.log")
    assert [f.record for f in src.found] == [{"type": "run"}] and [b.line for b in src.bad] == [1]


def test_report_reads_each_run_once_and_compares_the_last():
    status, doc = _report(["--tag", TAG, "--tables", "machines"] + _paths())
    m = {r["machine"]: r for r in doc["tables"]["machines"]}
    assert m["RX2-0001"]["records"] == len(_expected()["node01.jsonl"]["records"])  # serial + jsonl: once
    assert m["RX2-0003"]["runs_seen"] == 2 and m["RX2-0003"]["status"] == "ok"
    # --all-runs: the run cut by the reset is a machine that never finished
    status, doc = _report(["--tag", TAG, "--all-runs"] + _paths())
    assert ("RX2-0003#1", "no_end", "run") in _flag_set(doc)
    assert {r["machine"] for r in doc["tables"]["machines"]} >= {"RX2-0003#1", "RX2-0003#2"}


def test_report_burn_in_passes_fold_to_their_median():
    status, doc = _report(["--by-pass", "--tables", "disk_results", os.path.join(DATA, "node01.jsonl")])
    rows = [r for r in doc["tables"]["disk_results"] if r["disk"] == "nvme0n1" and r["test"] == "SEQ1M-Q8T1"]
    assert sorted(r["pass"] for r in rows) == [1, 2]
    status, doc = _report(["--tables", "disk_results", os.path.join(DATA, "node01.jsonl")])
    folded = [r for r in doc["tables"]["disk_results"] if r["disk"] == "nvme0n1" and r["test"] == "SEQ1M-Q8T1"]
    assert len(folded) == 1 and folded[0]["passes"] == 2
    assert abs(folded[0]["mbps"] - (rows[0]["mbps"] + rows[1]["mbps"]) / 2) < 1e-9


def test_report_disk_peers_same_model_else_all():
    with tempfile.TemporaryDirectory() as tmp:
        paths = [_write_jsonl(tmp, "a%d.jsonl" % n, _fleet_records(n, "A%d" % n, model="FAST", mbps=500.0))
                 for n in range(3)]
        # A lone slower model is compared with everyone: 200 < 0.5 x 500.
        paths.append(_write_jsonl(tmp, "b0.jsonl", _fleet_records(9, "B0", model="SLOW", mbps=200.0)))
        status, doc = _report(paths)
        assert _flag_set(doc) == {("B0", "disk_mbps", "disk d0 SEQ1M-Q8T1 read (SLOW)")}
        assert "all models" in doc["flags"][0]["reference"]
        # Three of the slow model make their own peer group: no flag.
        for n in (1, 2):
            paths.append(_write_jsonl(tmp, "b%d.jsonl" % n, _fleet_records(9 + n, "B%d" % n, model="SLOW",
                                                                              mbps=200.0)))
        status, doc = _report(paths)
        assert status == 0 and doc["flags"] == []


def test_report_links_memory_dimms_and_unfinished_runs():
    with tempfile.TemporaryDirectory() as tmp:
        paths = [_write_jsonl(tmp, "n%d.jsonl" % n, _fleet_records(n, "N%d" % n)) for n in range(3)]
        # narrower than the fleet but not marked downtrained; memory 25% slow,
        # bandwidth 15% low (inside the 20%); its only slot empty; no end record.
        paths.append(_write_jsonl(tmp, "odd.jsonl", _fleet_records(
            7, "ODD", link=(8.0, 2, False), mem_ns=125.0, gbps=17.0, dimm_mb=0, end=False)))
        status, doc = _report(paths)
        assert _flag_set(doc) == {("ODD", "pci_link", "PCIe link 0000:02:00.0"),
                                  ("ODD", "mem_latency", "memory latency 256 MiB full_random"),
                                  ("ODD", "dimm_empty", "DIMM slot DIMM0"),
                                  ("ODD", "no_end", "run")}
        status, doc = _report(["--mem-tolerance", "0.3"] + paths)
        assert ("ODD", "mem_latency", "memory latency 256 MiB full_random") not in _flag_set(doc)


def test_report_ignores_unknown_types_and_wrong_field_types():
    recs = [{"type": "run"}, {"type": "system", "serial": ["not", "text"], "product": None},
            {"type": "weird_future_record", "x": {"y": 1}},
            {"type": "disk_result", "disk": 5, "test": None, "mbps": "fast", "lat_us": [1, 2]},
            {"type": "pci", "bdf": "0000:00:01.0", "link": "x4", "path": "root"},
            {"type": "dimm", "locator": {"a": 1}, "size_mb": True},
            {"type": "dimm_summary", "warnings": [{"message": "mixed sizes"}, 3, None, ""]},
            {"type": "mem_latency", "bytes": "big", "ns": float("nan")},
            {"no_type": 1}, {"type": "end", "status": "error", "errors": 2, "note": "disk d0 failed"}]
    with tempfile.TemporaryDirectory() as tmp:
        path = _write_jsonl(tmp, "odd-machine.jsonl", recs)
        status, doc = _report([path])
        assert status == 1
        kinds = {(f["machine"], f["kind"], f["value"]) for f in doc["flags"]}
        assert kinds == {("odd-machine", "dimm_warning", "mixed sizes"), ("odd-machine", "dimm_warning", "3"),
                         ("odd-machine", "end_status", "status error")}
        status, out, err = _run([path])
        assert status == 1 and "disk d0 failed" in out


def test_report_names_machines_without_serial_by_product_and_file():
    # QEMU guests: no SMBIOS serial, the same product name everywhere.
    def guest(n, mbps):
        recs = _fleet_records(n, "", mbps=mbps)
        recs[1]["product"] = "Standard PC (Q35 + ICH9, 2009)"
        return recs
    with tempfile.TemporaryDirectory() as tmp:
        paths = [_write_jsonl(tmp, "vm%d.jsonl" % n, guest(n, 500.0 + n)) for n in range(3)]
        # vm0's serial capture holds the same run as vm0.jsonl: read once.
        log = os.path.join(tmp, "vm0.log")
        with open(log, "w") as f:
            f.write("".join("\x1b[0mBAREMARK %s\r\n" % json.dumps(r) for r in guest(0, 500.0)))
        status, doc = _report(paths + [log])
        names = sorted(m["machine"] for m in doc["tables"]["machines"])
        assert names == ["Standard PC (Q35 + ICH9, 2009) (vm%d)" % n for n in range(3)], names
        assert status == 0
