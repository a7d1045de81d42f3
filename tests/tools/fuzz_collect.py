#!/usr/bin/env python3
"""Fuzz the collector's upload reader: seeded random mutations of a real
results file (bit flips, cuts, spliced lines, overlong lines, invalid UTF-8,
deep nesting, huge numbers, NULs, CRs) and of the HTTP request around it
(Content-Length too short / too long / negative / missing, bad tokens, odd
paths, garbage request lines), for a bounded time.

usage: fuzz_collect.py [--seconds S] [--seed N] [--http-every K]
  exit 0 when every case held, 1 with the seed and case of the first failure.

What must hold for every case:
  reader  ingest.load_lines never raises; records + bad lines <= lines; a
          second load of the same body adds no record (idempotent); the store's
          record count grows by exactly the new records reported
  HTTP    the server answers every request with one of its statuses (or
          closes a malformed one) and keeps serving; after 400/401/411/413
          nothing new is stored; a 201/204 body sent again gets 204
(The fleet record reader, extract.py, has its own harness by fuzz33.)
"""
import argparse
import io
import json
import os
import random
import socket
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))

from baremark_report import collect, ingest  # noqa: E402
from baremark_report.store import open_store  # noqa: E402

TOKEN = "fuzz-token"


def seed_body(rng):
    """A valid results file: run (with the identity fields), system, a few results, end."""
    n = rng.randrange(1 << 30)
    recs = [{"type": "run", "version": "f", "time": "2026-01-01T00:00:%02d" % (n % 60), "run_id": "%x" % n,
             "smbios_uuid": "%08x-0000-4000-8000-000000000001" % (n & 0xffffffff), "serial": "SN%d" % n,
             "mac": "52:54:00:%02x:%02x:%02x" % (n >> 16 & 255, n >> 8 & 255, n & 255), "ip": "10.0.0.2"},
            {"type": "system", "serial": "SN%d" % n, "product": "P", "cpu": "C"},
            {"type": "disk", "id": "d0", "model": "M"},
            {"type": "disk_result", "disk": "d0", "test": "T", "rw": "read", "bs": 4096, "qd": 1, "mbps": 1.5,
             "lat_us": {"p99": 3}},
            {"type": "pci", "bdf": "0000:01:00.0", "vendor": 1, "link": {"speed_gts": 8, "width": 4}, "path": []},
            {"type": "dimm", "bank": "B", "locator": "L", "size_mb": 0},
            {"type": "dimm_summary", "warnings": ["w"]},
            {"type": "mem_latency", "bytes": 4096, "pattern": "p", "ns": 1.0},
            {"type": "error", "where": "x", "message": "m"},
            {"type": "end", "status": "ok", "errors": 0}]
    return "".join(json.dumps(r) + "\n" for r in recs).encode()


def mutate(rng, body):
    """One to four random mutations of body."""
    out = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(11)
        p = rng.randrange(len(out) + 1)
        if op == 0 and out:                       # bit flip
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
        elif op == 1:                             # cut
            del out[p:]
        elif op == 2:                             # random bytes
            out[p:p] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        elif op == 3:                             # a line repeated
            lines = bytes(out).split(b"\n")
            line = rng.choice(lines)
            lines.insert(rng.randrange(len(lines) + 1), line)
            out = bytearray(b"\n".join(lines))
        elif op == 4:                             # an overlong line
            out[p:p] = b'{"type":"log","m":"' + b"x" * rng.choice((1000, 70000, 200000)) + b'"}\n'
        elif op == 5:                             # deep nesting
            d = rng.choice((20, 40, 5000))
            out[p:p] = b'{"type":"x","a":' + b"[" * d + b"]" * d + b"}\n"
        elif op == 6:                             # numbers no record holds
            out[p:p] = rng.choice((b'{"type":"mem_latency","ns":1e400}\n', b'{"type":"disk_result","mbps":' +
                                   b"9" * 30 + b"}\n", b'{"type":"x","s":"\\ud800"}\n', b'{"type":"x","n":NaN}\n'))
        elif op == 7:                             # invalid UTF-8, NUL, CR
            out[p:p] = rng.choice((b"\xff\xfe", b"\x00", b"\r", b"\xc3", b"\r\n"))
        elif op == 8:                             # lines swapped
            lines = bytes(out).split(b"\n")
            rng.shuffle(lines)
            out = bytearray(b"\n".join(lines))
        elif op == 9:                             # a field of the wrong type
            out = bytearray(bytes(out).replace(b'"mbps": 1.5', b'"mbps": "fast"').replace(b'"path": []', b'"path": 7'))
        else:                                     # nothing but garbage
            out = bytearray(bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))))
    return bytes(out)


def _count(st):
    return st.execute("SELECT COUNT(*) FROM records").fetchone()[0]


def check_reader(st, tmp, rng, case):
    """One mutated body through the loader, twice."""
    body = mutate(rng, seed_body(rng))
    path = os.path.join(tmp, "case.jsonl")
    with open(path, "wb") as f:
        f.write(body)
    before = _count(st)
    first = ingest.load_file(st, path, "10.0.0.%d" % rng.randint(1, 9), "case.jsonl")
    assert first.records + first.bad <= max(first.lines, 0), (case, vars(first))
    if first.records:
        st.commit()
    else:
        st.rollback()
    after = _count(st)
    assert after - before == (first.new if first.records else 0), (case, before, after, vars(first))
    second = ingest.load_file(st, path, "10.0.0.1", "case.jsonl") if first.records else None
    if second is not None:
        assert second.new == 0 or second.identity.run_key != first.identity.run_key, (case, vars(second))
        st.commit()


def _request(port, raw, timeout=10):
    """Send raw request bytes; the status code, or None when the server closed without one."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        try:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    if not data:
        return None
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else -1


def check_http(srv, st, rng, case):
    """One mutated request; the server answers it (or closes it) and stays up."""
    body = seed_body(rng) if rng.random() < 0.5 else mutate(rng, seed_body(rng))
    name = rng.choice(["a.jsonl", "x-SN1.html", "..%2f..%2fetc.jsonl", "a b.jsonl", "%00.jsonl", "A" * 300 + ".jsonl",
                       "ok-" + str(rng.randrange(1000)) + ".jsonl"])
    length = {0: len(body), 1: len(body) + rng.randint(1, 50), 2: max(0, len(body) - rng.randint(1, 50)),
              3: -5, 4: None, 5: 1 << 40}[rng.choice([0, 0, 0, 1, 2, 3, 4, 5])]
    token = rng.choice([TOKEN, TOKEN, TOKEN, "", "wrong", TOKEN + "x"])
    scheme = rng.choice(["Bearer", "bearer", "Bearer", "Basic"])
    head = ["PUT /results/%s HTTP/1.1" % name, "Host: x"]
    if token:
        head.append("Authorization: %s %s" % (scheme, token))
    if length is not None:
        head.append("Content-Length: %d" % length)
    garbage = rng.random() < 0.05 or " " in name  # (a space splits the request line: http.server answers 400)
    if garbage:
        head = [rng.choice(["GARBAGE", "PUT", "PUT / HTTP/9.9", "\x00\x01"])]
    authorised = not garbage and token == TOKEN and scheme.lower() == "bearer"
    good_name = name.startswith("ok-") or name in ("a.jsonl", "x-SN1.html")
    raw = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
    before = st.execute("SELECT COUNT(*) FROM uploads").fetchone()[0]
    status = _request(srv.port, raw)
    st.commit()  # see the server's writes
    after = st.execute("SELECT COUNT(*) FROM uploads").fetchone()[0]
    assert status in (None, -1, 201, 204, 400, 401, 404, 405, 411, 413, 501, 505), (case, status)
    if status not in (201,):
        assert after == before, (case, status, before, after)
    if not garbage and not authorised:
        assert status == 401, (case, "no or wrong token answered", status)
    if authorised and good_name and length == 1 << 40:
        assert status == 413, (case, "oversized answered", status)
    if authorised and good_name and length is None:
        assert status == 411, (case, "no length answered", status)
    if status in (201, 204):
        again = _request(srv.port, raw)
        assert again == 204, (case, again)
    # still serving
    assert _request(srv.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 405, case


def fuzz(seed, seconds=None, iterations=None, http_every=5, log=None):
    """Run cases until the time or the iterations are used up; returns the number of cases."""
    rng = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="baremark-fuzz-collect-")
    url = "sqlite:%s" % os.path.join(tmp, "s.db")
    srv = collect.start_collector(url, TOKEN, raw_dir=os.path.join(tmp, "raw"), log=log or io.StringIO())
    st = open_store(url)
    reader_st = open_store("sqlite:%s" % os.path.join(tmp, "reader.db"))
    deadline = time.time() + seconds if seconds else None
    case = 0
    try:
        while (iterations is None or case < iterations) and (deadline is None or time.time() < deadline):
            case += 1
            if http_every and case % http_every == 0:
                check_http(srv, st, rng, (seed, case))
            else:
                check_reader(reader_st, tmp, rng, (seed, case))
    finally:
        srv.stop()
        st.close()
        reader_st.close()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    return case


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--http-every", type=int, default=5, metavar="K", help="every K-th case is an HTTP request")
    args = ap.parse_args()
    try:
        n = fuzz(args.seed, seconds=args.seconds, http_every=args.http_every)
    except AssertionError as e:
        print("fuzz_collect: seed %d: FAILED: %s" % (args.seed, e))
        return 1
    print("fuzz_collect: seed %d: %d cases held" % (args.seed, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
