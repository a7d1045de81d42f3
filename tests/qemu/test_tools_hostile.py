"""tools/baremark-report against hostile logs: records with values no
baremark record can hold are skipped and counted, never a traceback; and
the work stays linear in the input (size-scaled checks: the same input at
N and 4N, or counted operations, never a bare wall-clock limit)."""

HOST = True  # no test here boots QEMU: all run in `make check` (run_all.py --host)
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from baremark_report import cli, extract, fleet, outliers  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "baremark-report")


def _machine(n, mbps=500.0):
    """A small complete run (as JSON text lines)."""
    recs = [{"type": "run", "version": "t", "schema": 1, "time": "2025-01-01T00:00:00"},
            {"type": "system", "serial": "M%06d" % n, "product": "P", "cpu": "CPU X"},
            {"type": "pci", "bdf": "0000:02:00.0", "vendor": 4096, "device": 5,
             "link": {"speed_gts": 8.0, "width": 4, "max_speed_gts": 8.0, "max_width": 4}, "path": []},
            {"type": "disk", "id": "d0", "model": "M%d" % (n % 3), "serial": "S%d" % n},
            {"type": "disk_result", "disk": "d0", "test": "SEQ1M-Q8T1", "rw": "read", "bs": 1048576, "qd": 8,
             "mbps": mbps + n % 7, "iops": 100.0, "lat_us": {"mean": 5, "p50": 5, "p99": 9, "p999": 9, "max": 9}},
            {"type": "mem_latency", "bytes": 268435456, "pattern": "full_random", "ns": 100.0 + n % 5},
            {"type": "mem_bandwidth", "op": "read", "threads": 1, "bytes": 1 << 27, "gbps": 20.0},
            {"type": "end", "status": "ok", "errors": 0}]
    return [json.dumps(r) for r in recs]


# Each hostile record is placed where the old tool used it, and each one
# ended the whole report with a traceback there.
HOSTILE = {
    # a lone surrogate in the machine's name: text and CSV output
    "surrogate": [0, '{"type":"system","serial":"RX\\ud800","product":"P","cpu":"CPU X"}'],
    "surrogate_message": [6, '{"type":"error","where":"d0","message":"read failed \\udc80"}'],
    # an integer of 401 digits: median and "%.1f"
    "huge_int": [5, '{"type":"disk_result","disk":"d0","test":"SEQ1M-Q8T1","rw":"read","bs":1048576,"qd":8,'
                    '"mbps":1%s,"pass":2}' % ("0" * 400)],
    # -1e308 twice: the median of the two is -inf, then int() of it
    "huge_float": [6, '{"type":"mem_bandwidth","op":"read","threads":2,"bytes":-1e308,"gbps":1.0,"pass":1}\n'
                      '{"type":"mem_bandwidth","op":"read","threads":2,"bytes":-1e308,"gbps":1.0,"pass":2}'],
    # a list nested 400 deep in a displayed field (the PCI vendor)
    "deep": [3, '{"type":"pci","bdf":"0000:03:00.0","vendor":%s4096%s,"device":5,"path":[]}' % ("[" * 400,
                                                                                                 "]" * 400)],
}


def _hostile_file(folder, case):
    where, text = HOSTILE[case]
    lines = _machine(1)
    lines.insert(where, text)
    path = os.path.join(folder, "%s.jsonl" % case)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path, text.count("\n") + 1


def test_report_hostile_values_are_skipped_and_counted():
    with tempfile.TemporaryDirectory() as tmp:
        peers = []
        for n in range(2, 5):
            p = os.path.join(tmp, "peer%d.jsonl" % n)
            with open(p, "w") as f:
                f.write("\n".join(_machine(n)) + "\n")
            peers.append(p)
        for case in HOSTILE:
            path, nbad = _hostile_file(tmp, case)
            # Text and CSV on stdout: a real process, whose stdout encodes
            # to UTF-8 like a terminal's (all tables, then only the flags).
            for args in (["--format", "text"], ["--format", "csv"]):
                p = subprocess.run([TOOL] + args + [path] + peers, capture_output=True, timeout=60,
                                   env=dict(os.environ, PYTHONIOENCODING="utf-8"))
                assert p.returncode in (0, 1), (case, args, p.stderr.decode(errors="replace")[-2000:])
                assert b"Traceback" not in p.stderr, (case, args)
                p.stdout.decode("utf-8")
            # CSV files are written in-process, through real file encoding.
            status, out, err = _run(["--csv", os.path.join(tmp, "csv-" + case), path] + peers)
            assert status in (0, 1), (case, err)
            status, out, err = _run(["--json", path] + peers)
            files = {r["file"]: r for r in json.loads(out)["tables"]["files"]}
            assert files[path]["bad"] == nbad and files[path]["records"] == 8, (case, files[path])
            assert "%d record(s) could not be read" % nbad in err, (case, err)
            src = extract.extract_file(path)
            assert all(b.reason.startswith("bad value") for b in src.bad), (case, src.bad)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, out, err)
    return status, out.getvalue(), err.getvalue()


# Timing runs in a process of its own: another test's thread in this
# process would hold the interpreter lock for part of the time.
_TIMER = r"""
import sys, time, json
tools, setup, body, n0, repeat = json.loads(sys.argv[1])
sys.path.insert(0, tools)
times = []
for n in (n0, 4 * n0):
    env = {"n": n}
    exec(setup, env)
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        exec(body, env)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    times.append(best)
print(json.dumps(times))
"""


def _scaling(setup, body, n, repeat=3):
    """(seconds for size n, seconds for 4n), best of `repeat` each."""
    arg = json.dumps([os.path.join(ROOT, "tools"), setup, body, n, repeat])
    p = subprocess.run([sys.executable, "-c", _TIMER, arg], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


def _assert_linear(setup, body, n, what, repeat=2):
    """The same input 4x over: linear work takes about 4x the time,
    quadratic 16x. Measured up to three times: a busy machine can slow
    one measurement, never make quadratic work look linear."""
    for _ in range(3):
        small, large = _scaling(setup, body, n, repeat)
        if large < 8 * small + 0.05:
            return
    assert False, "%s: %.3f s for N, %.3f s for 4N: not linear" % (what, small, large)


def test_report_prefix_flood_is_linear():
    # One line of "BAREMARK {" repeated: each bad start used to copy the
    # rest of the line (800 KB took 24 s, 50 MB never ended).
    setup = "from baremark_report import extract\ndata = b'BAREMARK {' * n + b'\\n'"
    _assert_linear(setup, "extract.extract_bytes(data, 'flood.log')", 10000, "prefix flood")
    src = extract.extract_bytes(b"BAREMARK {" * 20000 + b"\n", "flood.log")
    assert src.bad_count == 20000 and len(src.bad) == extract.MAX_BAD_KEPT
    assert all(len(b.text) <= extract.SNIPPET_CHARS + 3 for b in src.bad)
    assert src.parses == 20000
    # with a --tag: the text before a bad start is not searched again and again
    setup = ("import re\nfrom baremark_report import extract\ntag = re.compile(r'(\\S+): *$')\n"
             "data = b'n1: ' + b'BAREMARK {' * n + b'\\n'")
    _assert_linear(setup, "extract.extract_bytes(data, 't.log', 'serial', tag)", 10000, "prefix flood with --tag")
    # starts inside one long unterminated string
    setup = "from baremark_report import extract\ndata = b'BAREMARK {\"a\":\"' + b'BAREMARK {x' * n + b'\\n'"
    _assert_linear(setup, "extract.extract_bytes(data, 's.log')", 10000, "starts inside a string")


def test_report_wrapped_records_are_parsed_once_per_start():
    # A record wrapped over 100 lines at 80 columns: parsed once, not once
    # per line joined.
    rec = {"type": "dimm", "locator": "DIMM_A1", "part": "X" * 7800}
    line = "BAREMARK " + json.dumps(rec)
    wrapped = "\r\n".join(line[i:i + 80] for i in range(0, len(line), 80)) + "\r\n"
    src = extract.extract_bytes(wrapped.encode(), "w.log")
    assert [f.record for f in src.found] == [rec]
    assert src.parses <= 2, src.parses
    # Starts that never close, each followed by 127 lines of filler: two
    # parse attempts per start at most (the old tool made up to 129).
    starts = 200
    data = ("BAREMARK {\"type\":\"dimm\",\"part\":\"" + "\r\n" + ("y" * 70 + "\r\n") * 127) * starts
    src = extract.extract_bytes(data.encode(), "cut.log")
    assert src.found == [] and src.bad_count == starts
    assert src.parses <= 2 * starts, src.parses
    # and a record that closes on its own line but is bad is not joined on
    src = extract.extract_bytes(("BAREMARK {\"a\":x}\r\n" + "{\"b\":1}\r\n" * 50).encode(), "x.log", "serial")
    assert src.bad_count == 1 and src.parses == 1


def test_report_peer_medians_once_per_group():
    calls = {"n": 0}

    class Counting(outliers.Peers):
        def median_fn(self, values):
            calls["n"] += 1
            return fleet.median(values)

    for n in (1000, 4000):
        rows = [{"test": "T%d" % (i % 4), "rw": "read", "bs": 4096, "qd": 1, "disk": "d0",
                 "model": "M%d" % (i % 5), "mbps": float(i)} for i in range(n)]
        calls["n"] = 0
        peers = Counting(rows, outliers._disk_key, lambda r: r.get("model"), "mbps", 3)
        for r in rows:
            peers.ratio(r), peers.reference(r)
        # 4 tests x 5 models: 20 groups, whatever n (it was 2 per row).
        assert calls["n"] == 20, (n, calls["n"])


def test_report_fleet_scales_linearly():
    # Whole fleets of N and 4N machines in one log: the peer medians were
    # recomputed for every row (10,000 machines > 120 s).
    with tempfile.TemporaryDirectory() as tmp:
        for n in (400, 1600):
            with open(os.path.join(tmp, "fleet%d.log" % n), "w") as f:
                for m in range(n):
                    f.write("".join("\x1b[0mBAREMARK %s\r\n" % l for l in _machine(m)))
        setup = ("import io\nfrom baremark_report import cli\npath = %r + '/fleet%%d.log' %% n" % tmp)
        body = "cli.main(['--format', 'csv', '-q', path], io.StringIO(), io.StringIO())"
        _assert_linear(setup, body, 400, "fleet")
