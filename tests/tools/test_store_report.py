"""baremark-report --db: the same tables and flags as folder mode, computed in
SQL on SQLite and on a real PostgreSQL server; the expected-machines list;
folder mode skipping HTML reports and reading sub-folders; the fleet page
linear in the machines."""
import io
import itertools
import json
import os
import re
import shutil
import time

import pytest

from baremark_report import cli, extract, fleet, html, ingest, outliers
from baremark_report.store import open_store

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "tools", "data")
TAG = r"(\S+): *$"
CAPTURES = ["node01.log", "node01.jsonl", "node02.log", "node03.log", "rack-b.log"]


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(argv, out, err)
    return status, out.getvalue(), err.getvalue()


def report_json(argv):
    status, out, err = run_cli(["--json"] + argv)
    assert status in (0, 1), (status, err)
    return status, json.loads(out)


_uploads = itertools.count()


def load_runs(url, tmp_path, runs_of_records, now=None):
    """Load runs (lists of records) the way the collector does: one upload each."""
    st = open_store(url)
    try:
        for peer, recs in runs_of_records:
            i = next(_uploads)
            path = tmp_path / ("up%d.jsonl" % i)
            path.write_text("".join(json.dumps(r) + "\n" for r in recs))
            loaded = ingest.load_file(st, str(path), peer, "up%d.jsonl" % i, now=now)
            assert loaded.records == len(recs)
            st.execute("UPDATE runs SET raw_path = ? WHERE run_key = ?", ("up%d" % i, loaded.identity.run_key))
            st.execute("INSERT INTO uploads (sha256, run_key, name, kind, peer, bytes, lines, records, bad, "
                       "new_records, received, raw_path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       ("sha%d" % i, loaded.identity.run_key, "up%d.jsonl" % i, "jsonl", peer, 1, loaded.lines,
                        loaded.records, loaded.bad, loaded.new, 0, "up%d" % i))
        st.commit()
    finally:
        st.close()


def fixture_runs():
    """Every run of the fixture captures, one upload each (as the firmware would have sent them); the
    fixtures predate run ids and their UUIDs are placeholders: each machine uploads from its own address."""
    sources = [extract.extract_file(os.path.join(DATA, n), None, re.compile(TAG)) for n in CAPTURES]
    runs = fleet.split_runs(sources)
    address = {}
    for run in runs:
        address.setdefault(run.machine, "10.0.0.%d" % (len(address) + 1))
    return [(address[run.machine], run.records) for run in runs]


def _flags(doc):
    return sorted((f["machine"], f["kind"], f["what"], f["value"], f["reference"], f["rule"]) for f in doc["flags"])


def _rows(doc, table, fields):
    return sorted(tuple(round(r[f], 6) if isinstance(r[f], float) else r[f] for f in fields)
                  for r in doc["tables"][table])


def test_report_db_gives_the_folder_mode_flags_and_tables(store_url, tmp_path):
    load_runs(store_url, tmp_path, fixture_runs())
    _, folder = report_json(["--tag", TAG] + [os.path.join(DATA, n) for n in CAPTURES])
    status, db = report_json(["--db", store_url])
    assert status == 1
    assert _flags(db) == _flags(folder) and len(_flags(db)) == 7
    checks = {
        "disk_results": ("machine", "disk", "model", "test", "rw", "bs", "qd", "passes", "mbps", "iops",
                         "lat_p99_us", "mbps_vs_median", "p99_vs_median"),
        "mem_latency": ("machine", "cpu", "bytes", "pattern", "extra", "passes", "ns", "ns_vs_median"),
        "mem_bandwidth": ("machine", "op", "threads", "passes", "gbps", "gbps_vs_median"),
        "pci": ("machine", "bdf", "vendor", "device", "speed_gts", "width", "downtrained", "fleet_speed_gts",
                "fleet_width", "path"),
        "dimms": ("machine", "bank", "locator", "size_mb", "populated_on", "part"),
        "dimm_summary": ("machine", "populated", "slots", "total_mb", "warnings"),
        "disks": ("machine", "disk", "driver", "model", "serial", "lba_bytes"),
        "errors": ("machine", "pass", "where", "message"),
    }
    for table, fields in checks.items():
        assert _rows(db, table, fields) == _rows(folder, table, fields), table
    for table in checks:
        assert db["tables"][table] or table == "errors", table
    machines = {m["machine"]: m for m in db["tables"]["machines"]}
    assert sorted(machines) == ["RX2-0001", "RX2-0002", "RX2-0003", "RX2-0004", "RX2-0005"]
    # text and csv from the same store
    status, text, _ = run_cli(["--db", store_url])
    assert status == 1 and "FLAGS: 7" in text and "== Disk results" in text
    status, csv_text, _ = run_cli(["--db", store_url, "--format", "csv", "--tables", "flags"])
    assert csv_text.count("\n") == 8


def fleet_run(n, serial, mac, mbps=500.0, end="ok", time_="2026-01-01T00:00:00", run_id=None, passes=1):
    rr = {"type": "run", "version": "t", "schema": 1, "time": time_, "run_id": run_id or "r%s-%s" % (serial, time_),
          "serial": serial, "mac": mac}
    recs = [rr, {"type": "system", "serial": serial, "product": "P", "cpu": "CPU X"},
            {"type": "disk", "id": "d0", "model": "M1", "serial": "S%d" % n}]
    for p in range(1, passes + 1):
        recs.append({"type": "disk_result", "pass": p, "disk": "d0", "test": "SEQ1M-Q8T1", "rw": "read",
                     "bs": 1048576, "qd": 8, "mbps": mbps, "lat_us": {"p99": 900.0}})
    if end:
        recs.append({"type": "end", "status": end, "errors": 0 if end == "ok" else 2})
    return recs


def test_report_expected_list_shows_never_reported_silent_running_failed_passed(store_url, tmp_path):
    now = time.time()
    load_runs(store_url, tmp_path, [
        ("10.0.0.1", fleet_run(1, "SN1", "52:54:00:00:00:01")),                  # passed
        ("10.0.0.2", fleet_run(2, "SN2", "52:54:00:00:00:02", end="error")),     # failed
        ("10.0.0.4", fleet_run(4, "SN4", "52:54:00:00:00:04", end=None)),        # running (just now)
        ("10.0.0.9", fleet_run(9, "SN9", "52:54:00:00:00:09")),                  # not in the list
    ], now=now)
    load_runs(store_url, tmp_path, [
        ("10.0.0.3", fleet_run(3, "SN3", "52:54:00:00:00:03", end=None)),        # silent for two hours
    ], now=now - 7200)
    exp = tmp_path / "expected.txt"
    exp.write_text("# rack 7\n52:54:00:00:00:01\n52-54-00-00-00-02  # by MAC, dashes\nSN3\nSN4\n"
                   "52:54:00:00:00:05\nSN6\n")
    status, doc = report_json(["--db", store_url, "--expected", str(exp)])
    assert status == 1
    rows = [(r["entry"], r["status"], r["machine"]) for r in doc["tables"]["expected"]]
    assert rows == [("52:54:00:00:00:01", "passed", "SN1"), ("52-54-00-00-00-02", "failed", "SN2"),
                    ("SN3", "started, silent", "SN3"), ("SN4", "started, running", "SN4"),
                    ("52:54:00:00:00:05", "never reported", ""), ("SN6", "never reported", ""),
                    ("", "not expected", "SN9")]
    kinds = {(f["machine"], f["kind"]) for f in doc["flags"]}
    assert {("52:54:00:00:00:05", "never_reported"), ("SN6", "never_reported"), ("SN3", "silent"),
            ("SN2", "end_status"), ("SN3", "no_end"), ("SN4", "no_end")} <= kinds
    assert not any(m == "SN1" for m, _ in kinds)
    status, text, _ = run_cli(["--db", store_url, "--expected", str(exp), "--tables", "expected"])
    assert "never reported" in text and "started, silent" in text


def test_report_db_latest_run_per_machine_and_labels_that_do_not_collide(store_url, tmp_path):
    load_runs(store_url, tmp_path, [
        ("10.0.0.1", fleet_run(1, "SN1", "52:54:00:00:00:01", mbps=100.0, time_="2026-01-01T00:00:00")),
        ("10.0.0.1", fleet_run(1, "SN1", "52:54:00:00:00:01", mbps=500.0, time_="2026-01-02T00:00:00")),
        # two boards with the same placeholder-free but duplicated serial: told apart by MAC
        ("10.0.0.2", fleet_run(2, "DUP", "52:54:00:00:00:02")),
        ("10.0.0.3", fleet_run(3, "DUP", "52:54:00:00:00:03")),
        ("10.0.0.4", fleet_run(4, "SN4", "52:54:00:00:00:04")),
    ])
    _, doc = report_json(["--db", store_url, "--tables", "machines,disk_results"])
    labels = sorted(m["machine"] for m in doc["tables"]["machines"])
    assert labels == ["DUP (52:54:00:00:00:02)", "DUP (52:54:00:00:00:03)", "SN1", "SN4"]
    sn1 = [r for r in doc["tables"]["disk_results"] if r["machine"] == "SN1"]
    assert [r["mbps"] for r in sn1] == [500.0]
    assert [m["runs_seen"] for m in doc["tables"]["machines"] if m["machine"] == "SN1"] == [2]
    _, doc = report_json(["--db", store_url, "--all-runs", "--tables", "machines"])
    assert sorted(m["machine"] for m in doc["tables"]["machines"] if m["machine"].startswith("SN1")) == \
        ["SN1#1", "SN1#2"]


def test_report_db_burn_in_passes_fold_to_their_median(store_url, tmp_path):
    recs = fleet_run(1, "SN1", "52:54:00:00:00:01", passes=0)
    for p, v in ((1, 100.0), (2, 400.0), (3, 300.0), (4, 200.0)):
        recs.insert(-1, {"type": "disk_result", "pass": p, "disk": "d0", "test": "T", "rw": "read", "bs": 4096,
                         "qd": 1, "mbps": v})
    load_runs(store_url, tmp_path, [("10.0.0.1", recs)])
    _, doc = report_json(["--db", store_url, "--tables", "disk_results"])
    assert [(r["mbps"], r["passes"]) for r in doc["tables"]["disk_results"]] == [(250.0, 4)]
    _, doc = report_json(["--db", store_url, "--tables", "disk_results", "--by-pass"])
    assert [(r["pass"], r["mbps"]) for r in doc["tables"]["disk_results"]] == [(1, 100.0), (2, 400.0), (3, 300.0),
                                                                               (4, 200.0)]


def test_report_db_usage_errors_exit_2(tmp_path):
    assert run_cli(["--db", "sqlite:%s" % (tmp_path / "missing.db")])[0] == 2
    assert run_cli(["--db", "mysql://x"])[0] == 2
    assert run_cli(["--expected", "x"] + [os.path.join(DATA, "node02.log")])[0] == 2
    assert run_cli([])[0] == 2


def test_folder_mode_skips_html_reports_and_reads_sub_folders(tmp_path):
    for i, n in enumerate(["node02.log", "node03.log"]):
        sub = tmp_path / ("rack%d" % i)
        sub.mkdir()
        shutil.copy(os.path.join(DATA, n), sub / n)
        (sub / (n + ".html")).write_text("<!DOCTYPE html><html><body>report</body></html>\n")
    (tmp_path / "top.html").write_text("<html></html>\n")
    shutil.copy(os.path.join(DATA, "node01.jsonl"), tmp_path / "node01.jsonl")
    _, doc = report_json(["-r", str(tmp_path)])
    files = sorted(os.path.basename(f["file"]) for f in doc["tables"]["files"])
    assert files == ["node01.jsonl", "node02.log", "node03.log"]
    assert not [f for f in doc["flags"] if f["kind"] == "no_records"]
    _, doc = report_json([str(tmp_path), str(tmp_path / "top.html")])  # not recursive: the top folder only
    assert [os.path.basename(f["file"]) for f in doc["tables"]["files"]] == ["node01.jsonl"]


class _Row(dict):
    """A table row counting every read of a field: the work the page does, without a clock."""
    reads = 0

    def get(self, key, default=None):
        _Row.reads += 1
        return dict.get(self, key, default)

    def __getitem__(self, key):
        _Row.reads += 1
        return dict.__getitem__(self, key)


def _fleet_page_reads(n):
    """Field reads to draw the fleet page of n machines (4 disk results and a latency row each)."""
    machines = [_Row(machine="m%06d" % i, product="P", status="ok") for i in range(n)]
    disk = [_Row(machine="m%06d" % i, disk="d%d" % k, test=t, rw="read", mbps=500.0, mbps_vs_median=1.0,
                 lat_p99_us=9.0, p99_vs_median=1.0)
            for i in range(n) for k in range(2) for t in ("SEQ1M-Q8T1", "RND4K-Q32T1")]
    lat = [_Row(machine="m%06d" % i, pattern="full_random", bytes=1 << 28, extra="", ns=90.0, ns_vs_median=1.0)
           for i in range(n)]
    shown = {"machines": machines, "disk_results": disk, "mem_latency": lat, "mem_bandwidth": []}
    _Row.reads = 0
    page = html.fleet_page(shown, [], outliers.Limits(), {})
    assert page.count('<tr class="machine">') == n
    return _Row.reads


def test_fleet_html_page_is_linear_in_the_machines():
    # 4x the machines: 4x the work when linear, 16x when quadratic (as it was: every machine's cell
    # scanned every row of its column).
    small, large = _fleet_page_reads(250), _fleet_page_reads(1000)
    assert large <= 4.2 * small, (small, large)


def test_report_db_html_writes_the_fleet_page_and_machine_pages(store_url, tmp_path, monkeypatch):
    load_runs(store_url, tmp_path, [("10.0.0.%d" % i, fleet_run(i, "SN%d" % i, "52:54:00:00:00:%02x" % i,
                                                                 mbps=100.0 if i == 3 else 500.0))
                                    for i in range(1, 6)])
    renderer = os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"), "host", "baremark-html")
    out = tmp_path / "rack.html"
    status, _, err = run_cli(["--db", store_url, "--html", str(out), "-q"])
    assert status == 1, err
    page = out.read_text()
    assert page.count('<tr class="machine">') == 5 and "SN3" in page and 'class="n outlier"' in page
    if os.access(renderer, os.X_OK):
        pages = sorted(os.listdir(tmp_path / "rack-machines"))
        assert pages == ["SN%d.html" % i for i in range(1, 6)]
        assert "SEQ1M-Q8T1" in (tmp_path / "rack-machines" / "SN3.html").read_text()
    else:
        assert "machine pages were not written" in page and "baremark-html" in err
