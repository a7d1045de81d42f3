"""baremark-collect: the HTTP side (token, limits, names, raw files) and what
reaches the store (idempotent, cumulative, identities that do not collide),
each on SQLite and on a real PostgreSQL server."""
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tracemalloc

import pytest

from baremark_report import collect, ingest
from baremark_report.store import open_store

TOKEN = "rack7-3f9c2a"
TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")


def run_records(serial="SN1", run_id="r-0001", mac="52:54:00:00:00:01", uuid="4c4c4544-0042-3510-8052-b4c04f333232",
                passes=2, end="ok", time_="2026-01-01T00:00:00"):
    """A run as the firmware writes it under the contract of docs/pending-30.md."""
    rr = {"type": "run", "version": "t", "schema": 1, "args": "", "time": time_}
    for k, v in (("run_id", run_id), ("smbios_uuid", uuid), ("serial", serial), ("mac", mac), ("ip", "10.0.0.9")):
        if v is not None:
            rr[k] = v
    recs = [rr, {"type": "system", "serial": serial, "product": "P1", "cpu": "CPU X", "uuid": uuid or ""},
            {"type": "disk", "id": "d0", "model": "M1", "serial": "D" + serial}]
    for p in range(1, passes + 1):
        recs.append({"type": "disk_result", "pass": p, "disk": "d0", "test": "SEQ1M-Q8T1", "rw": "read",
                     "bs": 1048576, "qd": 8, "mbps": 500.0 + p, "lat_us": {"p99": 900.0}})
    if end:
        recs.append({"type": "end", "status": end, "errors": 0 if end == "ok" else 1})
    return recs


def body_of(records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def put(srv, name, body, token=TOKEN, headers=None, path="/results/"):
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    h = {"Content-Length": str(len(body))}
    if token is not None:
        h["Authorization"] = "Bearer " + token
    h.update(headers or {})
    c.request("PUT", path + name, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data


@pytest.fixture
def server(store_url, tmp_path):
    log = io.StringIO()
    srv = collect.start_collector(store_url, TOKEN, raw_dir=str(tmp_path / "raw"), log=log)
    srv.test_log = log
    yield srv
    srv.stop()


def count(url, table, where="1=1", params=()):
    st = open_store(url, create=False)
    try:
        return st.execute("SELECT COUNT(*) FROM %s WHERE %s" % (table, where), params).fetchone()[0]
    finally:
        st.close()


def raw_files(srv):
    out = []
    for top, _, files in os.walk(srv.raw_dir):
        if os.path.basename(top) != "tmp":
            out += [os.path.join(top, f) for f in files]
    return sorted(out)


def test_collect_stores_an_upload_and_keeps_the_raw_file(server, store_url):
    body = body_of(run_records())
    status, data = put(server, "20260101T000000-SN1-r-0001.jsonl", body)
    assert status == 201, data
    doc = json.loads(data)
    assert doc["records"] == doc["new_records"] == 6
    assert doc["run_key"] == "id:r-0001@uuid:4c4c4544-0042-3510-8052-b4c04f333232"
    files = raw_files(server)
    assert len(files) == 1 and open(files[0], "rb").read() == body
    assert count(store_url, "records") == 6 and count(store_url, "disk_result") == 2
    assert count(store_url, "runs", "end_status = 'ok' AND mac = '52:54:00:00:00:01'") == 1


def test_collect_retried_upload_counts_once(server, store_url):
    body = body_of(run_records())
    assert put(server, "a.jsonl", body)[0] == 201
    assert put(server, "a.jsonl", body)[0] == 204          # the same bytes: already stored
    assert put(server, "other-name.jsonl", body)[0] == 204  # the same bytes under another name
    assert count(store_url, "records") == 6 and count(store_url, "runs") == 1 and count(store_url, "uploads") == 1
    assert len(raw_files(server)) == 1


def test_collect_started_pass_and_final_uploads_add_only_new_lines(server, store_url):
    full = run_records(passes=2)
    started, after_pass1 = full[:3], full[:4]
    for part in (started, after_pass1, full, after_pass1):  # a late retry of an earlier upload changes nothing
        assert put(server, "r.jsonl", body_of(part))[0] in (201, 204)
    assert count(store_url, "records") == len(full) and count(store_url, "runs") == 1
    st = open_store(store_url, create=False)
    row = st.execute("SELECT records, passes, end_status, uploads FROM runs").fetchone()
    st.close()
    assert tuple(row) == (len(full), 2, "ok", 3)


def test_collect_refuses_a_missing_or_wrong_token_and_stores_nothing(server, store_url):
    body = body_of(run_records())
    assert put(server, "a.jsonl", body, token=None)[0] == 401
    assert put(server, "a.jsonl", body, token="rack7-3f9c2b")[0] == 401
    assert put(server, "a.jsonl", body, token=None, headers={"Authorization": "Basic " + TOKEN})[0] == 401
    assert count(store_url, "uploads") == 0 and count(store_url, "records") == 0 and raw_files(server) == []
    log = server.test_log.getvalue()
    assert log.count(" 401 a.jsonl: ") == 3 and TOKEN not in log


def test_collect_refuses_an_oversized_upload_with_413(store_url, tmp_path):
    log = io.StringIO()
    srv = collect.start_collector(store_url, TOKEN, raw_dir=str(tmp_path / "raw"), max_bytes=1000, log=log)
    try:
        body = body_of(run_records(passes=20))
        assert len(body) > 1000
        assert put(srv, "big.jsonl", body)[0] == 413
        assert count(store_url, "uploads") == 0 and raw_files(srv) == []
        assert " 413 big.jsonl: " in log.getvalue()
    finally:
        srv.stop()


def test_collect_refuses_what_is_not_records_with_400(server, store_url):
    assert put(server, "a.jsonl", b"not json at all\n\x00\xff\n")[0] == 400
    assert put(server, "a.jsonl", b'{"no_type": 1}\n[1,2]\n')[0] == 400
    assert put(server, "a.jsonl", b"")[0] == 400
    assert put(server, "a.html", b"BAREMARK {}")[0] == 400                 # an .html that is no page
    assert put(server, "a.exe", body_of(run_records()))[0] == 400          # not a results name
    assert put(server, "..%2Fetc%2Fpasswd.jsonl", body_of(run_records()))[0] == 400
    assert count(store_url, "uploads") == 0 and raw_files(server) == []
    assert server.test_log.getvalue().count(" 400 ") == 6


def test_collect_takes_the_html_report_beside_the_results(server, store_url):
    assert put(server, "x-SN1.jsonl", body_of(run_records()))[0] == 201
    page = b"<!DOCTYPE html>\n<html><body>report</body></html>\n"
    assert put(server, "x-SN1.html", page)[0] == 201
    assert count(store_url, "uploads", "kind = 'html' AND run_key LIKE 'id:r-0001@%%'") == 1
    assert count(store_url, "runs", "html_path IS NOT NULL") == 1 and count(store_url, "records") == 6


def test_collect_same_placeholder_serial_same_second_do_not_collide(server, store_url):
    # Two boards with "Default string" serials booted in the same second upload the same name.
    name = "20260101T000000-Default_string.jsonl"
    a = run_records(serial="Default string", run_id="aa11", mac="52:54:00:00:00:0a", uuid=None)
    b = run_records(serial="Default string", run_id="bb22", mac="52:54:00:00:00:0b", uuid=None)
    assert put(server, name, body_of(a))[0] == 201
    assert put(server, name, body_of(b))[0] == 201
    assert count(store_url, "runs") == 2 and len(raw_files(server)) == 2
    st = open_store(store_url, create=False)
    keys = sorted(r[0] for r in st.execute("SELECT machine_key FROM runs").fetchall())
    st.close()
    assert keys == ["mac:52:54:00:00:00:0a", "mac:52:54:00:00:00:0b"]


def test_identity_without_run_id_never_keys_on_the_serial_alone():
    rr = {"type": "run", "time": "2026-01-01T00:00:00", "version": "t"}
    sysrec = {"type": "system", "serial": "Default string", "uuid": "00000000-0000-0000-0000-000000000000"}
    a = ingest.Identity(rr, sysrec, "10.0.0.5", "x.jsonl")
    b = ingest.Identity(rr, sysrec, "10.0.0.6", "x.jsonl")
    assert a.run_key != b.run_key and a.machine_key != b.machine_key
    assert a.run_key == ingest.Identity(rr, sysrec, "10.0.0.5", "x.jsonl").run_key  # a retry: the same run
    good = ingest.Identity(rr, dict(sysrec, uuid="4C4C4544-0042-3510-8052-B4C04F333232"), "10.0.0.5", "x.jsonl")
    assert good.machine_key == "uuid:4c4c4544-0042-3510-8052-b4c04f333232"


def test_identity_reads_the_serial_the_firmware_puts_in_the_run_record():
    # A run stopped by bad options has no system record: the run record's system_serial is all
    # there is, beside a `serial` object (the serial-port plan) that is not a serial number.
    rr = {"type": "run", "run_id": "0123abcd", "system_serial": "CZJ1234567",
          "serial": {"port": "com1", "baud": 115200}, "mac": "52:54:00:12:34:56"}
    ident = ingest.Identity(rr, None, "10.0.0.5", "x.jsonl")
    assert ident.serial == "CZJ1234567"
    assert ident.name == "CZJ1234567" and ident.named_by == "serial"


def test_collect_skips_bad_lines_and_overlong_lines_but_keeps_the_rest(server, store_url):
    recs = run_records()
    body = body_of(recs[:2]) + b'{"type": "disk", "cut' + b"\n" + b"x" * 200000 + b"\n" + body_of(recs[2:])
    status, data = put(server, "cut.jsonl", body)
    assert status == 201 and json.loads(data)["bad_lines"] == 2
    assert count(store_url, "records") == len(recs)
    assert " 201 cut.jsonl: stored, 2 bad line(s)" in server.test_log.getvalue()


def test_collect_streams_a_large_upload_in_bounded_memory(tmp_path):
    # 8 MB of records: the collector's own allocations stay far below the body's size.
    url = "sqlite:%s" % (tmp_path / "s.db")
    srv = collect.start_collector(url, TOKEN, raw_dir=str(tmp_path / "raw"), log=io.StringIO())
    recs = run_records(passes=0, end=None)
    filler = {"type": "log", "message": "x" * 400}
    head = body_of(recs)
    line = (json.dumps(filler) + "\n").encode()
    n = (8 << 20) // len(line)
    body = head + line * n + body_of([{"type": "end", "status": "ok", "errors": 0}])
    try:
        tracemalloc.start()
        status, _ = put(srv, "big.jsonl", body)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    finally:
        srv.stop()
    size = len(body)
    del body
    assert status == 201
    assert count(url, "records") == len(recs) + n + 1
    # The test's own body (counted by tracemalloc too) is the floor: the collector adds little.
    assert peak - size < (3 << 20), (peak, size)


def test_collect_command_line_serves_and_answers(tmp_path):
    tok = tmp_path / "token"
    tok.write_text(TOKEN + "\n")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    url = "sqlite:%s" % (tmp_path / "s.db")
    proc = collect.start_collector_process(url, str(tok), "127.0.0.1:%d" % port, log_path=str(tmp_path / "log"))
    try:
        class P:
            pass
        srv = P()
        srv.port = port
        assert put(srv, "a.jsonl", body_of(run_records()))[0] == 201
        assert put(srv, "a.jsonl", body_of(run_records()), token="nope")[0] == 401
    finally:
        proc.terminate()
        proc.wait(10)
    assert count(url, "records") == 6
    assert " 401 a.jsonl: wrong token" in (tmp_path / "log").read_text()
    # usage errors exit 2 with a message
    p = subprocess.run([sys.executable, os.path.join(TOOLS, "baremark-collect"), "--listen", "x", "--db", url,
                        "--token-file", str(tok)], capture_output=True, text=True)
    assert p.returncode == 2 and "--listen x" in p.stderr


def test_collect_many_uploads_do_not_pile_up_store_connections(server, store_url):
    # One thread per request: a connection per thread, never closed, ran PostgreSQL out of
    # connections (max_connections 100) after about a hundred uploads.
    fds = len(os.listdir("/proc/self/fd"))
    for i in range(120):
        status, data = put(server, "m%d.jsonl" % i, body_of(run_records(run_id="r%d" % i, serial="SN%d" % i,
                                                                         mac="52:54:00:00:01:%02x" % i)))
        assert status == 201, (i, status, data)
    assert count(store_url, "runs") == 120
    assert len(os.listdir("/proc/self/fd")) - fds < 20
    if store_url.startswith("postgresql"):
        st = open_store(store_url, create=False)
        n = st.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE backend_type = 'client backend'").fetchone()[0]
        st.close()
        assert n < 10, n


def test_collect_serves_at_most_max_requests_at_once(tmp_path, monkeypatch):
    import threading
    monkeypatch.setattr(collect, "MAX_REQUESTS", 2)
    url = "sqlite:%s" % (tmp_path / "s.db")
    srv = collect.start_collector(url, TOKEN, raw_dir=str(tmp_path / "raw"), log=io.StringIO())
    idle = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(2)]  # two silent clients
    result = []
    t = threading.Thread(target=lambda: result.append(put(srv, "a.jsonl", body_of(run_records()))[0]))
    try:
        t.start()
        t.join(1.0)
        assert t.is_alive() and not result  # the third waits for a slot
        for s in idle:
            s.close()
        t.join(10)
        assert result == [201]
    finally:
        for s in idle:
            s.close()
        srv.stop()
