#!/usr/bin/env python3
"""The store at fleet scale: MACHINES machines x RUNS runs each loaded into a
store through the collector's own loading code (ingest.load_lines, one
upload per run), a sample of uploads over HTTP, then the report from the
store (`baremark-report --db`, a subprocess), with times and peak RSS.

usage: bench_fleet.py [--machines N] [--runs N] [--db URL] [--dir DIR] [--http N] [--keep]
  make bench-fleet runs it with 100000 machines x 10 runs into an SQLite file
  under /tmp (about 10 GB of disk while it runs; removed unless --keep).

Each run is ten records as the firmware writes them (run with run_id,
SMBIOS UUID, serial, MAC, IP; system, dimm, pci, disk, two disk results,
memory latency and bandwidth, end); every 997th machine has a slow disk and
every 1499th a narrow PCIe link, so the report has flags to find.
"""
import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from baremark_report import collect, ingest  # noqa: E402
from baremark_report.store import open_store  # noqa: E402


def run_lines(n, r, jitter):
    """The results file of machine n's run r, as lines."""
    slow = n % 997 == 0
    mac = "52:54:%02x:%02x:%02x:%02x" % ((n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255)
    uuid = "%08x-0000-4000-8000-%012x" % (n, n)
    recs = [
        {"type": "run", "version": "0.1.0", "schema": 1, "args": "", "config_file": "mem=quick disk=quick",
         "time": "2026-01-%02dT%02d:%02d:00Z" % (1 + r, n % 24, n % 60), "run_id": "%016x%04x" % (n * 7919 + r, r),
         "smbios_uuid": uuid, "serial": "SN%07d" % n, "mac": mac, "ip": "10.%d.%d.%d" % (n >> 16, (n >> 8) & 255,
                                                                                     n & 255)},
        {"type": "system", "serial": "SN%07d" % n, "product": "R2-%d" % (n % 4), "cpu": "CPU %d" % (n % 3),
         "cpus": 64, "uuid": uuid},
        {"type": "dimm", "bank": "P0", "locator": "DIMM_A1", "size_mb": 32768, "mem_type": "DDR5",
         "speed_mts": 4800},
        {"type": "pci", "bdf": "0000:01:00.0", "vendor": 5197, "device": 42, "class": 67586,
         "link": {"speed_gts": 16.0, "width": 2 if n % 1499 == 0 else 4, "max_speed_gts": 16.0, "max_width": 4},
         "path": ["0000:00:01.0"]},
        {"type": "disk", "id": "nvme0n1", "model": "NVME M%d" % (n % 5), "serial": "D%07d" % n, "lba_bytes": 512},
        {"type": "disk_result", "disk": "nvme0n1", "test": "SEQ1M-Q8T1", "rw": "read", "bs": 1048576, "qd": 8,
         "mbps": (900.0 if slow else 3000.0) + jitter * 100, "iops": 3000.0,
         "lat_us": {"mean": 2600, "p50": 2500, "p99": 4000, "p999": 5000, "max": 9000}},
        {"type": "disk_result", "disk": "nvme0n1", "test": "RND4K-Q32T1", "rw": "read", "bs": 4096, "qd": 32,
         "mbps": 1500.0 + jitter * 50, "iops": 380000.0,
         "lat_us": {"mean": 84, "p50": 80, "p99": 160, "p999": 300, "max": 900}},
        {"type": "mem_latency", "bytes": 268435456, "pattern": "full_random", "ns": 95.0 + jitter * 5},
        {"type": "mem_bandwidth", "op": "read", "threads": 64, "bytes": 1 << 30, "gbps": 210.0 + jitter},
        {"type": "end", "status": "ok", "errors": 0, "seconds": 312.5},
    ]
    return [json.dumps(x, separators=(",", ":")) for x in recs]


COPIED = ["records", "disk", "disk_result", "mem_latency", "mem_bandwidth", "pci", "dimm", "dimm_summary", "error"]
RUN_COLUMNS = ("run_id, machine_key, name, named_by, smbios_uuid, serial, mac, ip, peer, product, cpu, cpus, version, "
               "time, args, first_seen, last_seen, records, passes, end_status, end_errors, end_note, uploads, "
               "upload_name, raw_path, html_path")


def copy_runs(st, have, want):
    """Runs have..want-1 of every machine as copies of its loaded runs (run time a year earlier)."""
    for r in range(have, want):
        suffix = "#copy%d" % r
        cols = {}
        for table in COPIED:
            cur = st.execute("SELECT * FROM %s LIMIT 0" % table)
            cols[table] = [d[0] for d in cur.description if d[0] != "run_key"]
        src = "SELECT run_key FROM runs WHERE run_key NOT LIKE '%#copy%'"
        for table in COPIED:
            c = ", ".join(cols[table])
            st.execute("INSERT INTO %s (run_key, %s) SELECT run_key || '%s', %s FROM %s WHERE run_key IN (%s)"
                       % (table, c, suffix, c, table, src))
        st.execute("INSERT INTO runs (run_key, %s) SELECT run_key || '%s', %s FROM runs WHERE run_key IN (%s)"
                   % (RUN_COLUMNS, suffix, RUN_COLUMNS.replace("time,", "'2025' || SUBSTR(time, 5),", 1), src))
        st.commit()


RSS_WRAPPER = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:]); "
               "sys.stderr.write('peak-rss-kb %d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "sys.exit(p.returncode)")


def _cpu(who=resource.RUSAGE_SELF):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime


def peak_rss_mb(who=resource.RUSAGE_SELF):
    return resource.getrusage(who).ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machines", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--db", help="store URL (default: sqlite: in --dir)")
    ap.add_argument("--dir", help="work folder (default: a new one under /tmp)")
    ap.add_argument("--http", type=int, default=2000, help="uploads sent over HTTP to a second store")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--report-only", action="store_true",
                    help="skip loading: measure the reports on the store already in --dir (or --db)")
    ap.add_argument("--ingest-runs", type=int, default=None, metavar="K",
                    help="load only K runs per machine through the collector's code and copy the others in SQL "
                         "(earlier run times, new run keys): the store reaches its size in a fraction of the "
                         "time; the ingest rate is the measured one (default: all RUNS)")
    args = ap.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="baremark-bench-fleet-")
    os.makedirs(work, exist_ok=True)
    url = args.db or "sqlite:%s" % os.path.join(work, "fleet.db")
    print("bench-fleet: %d machines x %d runs = %d uploads into %s"
          % (args.machines, args.runs, args.machines * args.runs, url))
    try:
        if not args.report_only:
            load(args, url, work)
        reports(args, url, work)
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(work, ignore_errors=True)


def load(args, url, work):
    """Fill the store and time it; then uploads over HTTP into a second store."""
    st = open_store(url)
    t0 = time.time()
    done = records = 0
    loaded_runs = args.runs if args.ingest_runs is None else max(1, min(args.runs, args.ingest_runs))
    total_runs = args.machines * loaded_runs
    cpu0 = _cpu()
    for r in range(loaded_runs):
        for n in range(args.machines):
            lines = run_lines(n, r, ((n * 2654435761 + r * 40503) % 1000) / 1000.0)
            loaded = ingest.load_lines(st, lambda: enumerate(lines, 1), "10.0.0.1", "r%d-%d.jsonl" % (n, r))
            records += loaded.records
            done += 1
            if done % 1000 == 0:
                st.commit()
            if done % max(1, total_runs // 10) == 0:
                el = time.time() - t0
                print("  %3d%%  %d uploads, %.0f uploads/s, %.0f records/s, peak RSS %.0f MB"
                      % (100 * done // total_runs, done, done / el, records / el, peak_rss_mb()), flush=True)
    st.commit()
    ingest_s = time.time() - t0
    cpu = _cpu() - cpu0
    print("ingest: %d uploads, %d records in %.0f s (%.0f s CPU): %.0f uploads/s, %.0f records/s "
          "(per CPU second: %.0f uploads, %.0f records); peak RSS %.0f MB"
          % (done, records, ingest_s, cpu, done / ingest_s, records / ingest_s, done / cpu, records / cpu,
             peak_rss_mb()), flush=True)
    if loaded_runs < args.runs:
        t3 = time.time()
        copy_runs(st, loaded_runs, args.runs)
        print("copied runs %d..%d of every machine in SQL in %.0f s" % (loaded_runs + 1, args.runs,
                                                                      time.time() - t3), flush=True)
    n_runs = st.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    n_recs = st.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    st.close()
    size = os.path.getsize(url[len("sqlite:"):]) if url.startswith("sqlite:") else 0
    print("store: %d runs, %d records%s" % (n_runs, n_recs, ", %.1f GB" % (size / 1e9) if size else ""))

    if args.http:
        hurl = "sqlite:%s" % os.path.join(work, "http.db")
        srv = collect.start_collector(hurl, "bench", raw_dir=os.path.join(work, "raw"), log=io.StringIO())
        import http.client
        t1 = time.time()
        for i in range(args.http):
            body = ("\n".join(run_lines(i, 0, 0.5)) + "\n").encode()
            c = http.client.HTTPConnection("127.0.0.1", srv.port)
            c.request("PUT", "/results/r%d.jsonl" % i, body=body,
                      headers={"Authorization": "Bearer bench", "Content-Length": str(len(body))})
            resp = c.getresponse()
            resp.read()
            c.close()
            assert resp.status == 201, resp.status
        hs = time.time() - t1
        srv.stop()
        print("http: %d uploads over HTTP (one connection each) in %.1f s: %.0f uploads/s"
              % (args.http, hs, args.http / hs))



def reports(args, url, work):
    """Time the report from the store: everything as text, the flags as CSV, the expected list."""
    expected = os.path.join(work, "expected.txt")
    with open(expected, "w") as f:
        for n in range(args.machines + args.machines // 100):  # 1% never reported
            f.write("52:54:%02x:%02x:%02x:%02x\n" % ((n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255))
    cpu_children = _cpu(resource.RUSAGE_CHILDREN)
    for label, argv in (("report (text, all tables)", []),
                        ("report (flags only, csv)", ["--format", "csv", "--tables", "flags"]),
                        ("report (--expected %d MACs, csv)" % (args.machines + args.machines // 100),
                         ["--format", "csv", "--tables", "expected", "--expected", expected])):
        out_path = os.path.join(work, "report.out")
        t2 = time.time()
        with open(out_path, "w") as out:
            # Through a small wrapper that reports its child's peak RSS: a child forked straight from
            # this (large) process would count this process's pages as its own peak.
            p = subprocess.run([sys.executable, "-c", RSS_WRAPPER, sys.executable,
                                os.path.join(ROOT, "tools", "baremark-report"), "--db", url] + argv,
                               stdout=out, stderr=subprocess.PIPE, text=True)
        rss = [line for line in p.stderr.splitlines() if line.startswith("peak-rss-kb ")]
        rss_mb = int(rss[-1].split()[1]) / 1024.0 if rss else float("nan")
        qs = time.time() - t2
        qcpu = _cpu(resource.RUSAGE_CHILDREN) - cpu_children
        cpu_children += qcpu
        with open(out_path) as f:
            lines = f.readlines()
        what = [x.strip() for x in lines if x.startswith("FLAGS:")] if not argv else \
            ["%d CSV rows" % (len(lines) - 1)]
        print("%s: exit %d in %.1f s (%.1f s CPU), %.1f MB of output, %s; peak RSS %.0f MB"
              % (label, p.returncode, qs, qcpu, os.path.getsize(out_path) / 1e6, what[0] if what else "?", rss_mb),
              flush=True)
        if p.returncode not in (0, 1):
            print(p.stderr)


if __name__ == "__main__":
    main()
