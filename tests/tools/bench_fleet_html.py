#!/usr/bin/env python3
"""Time the fleet HTML page (html.fleet_page) at N machines, 4 disk results,
one memory latency row each: usage bench_fleet_html.py [TOOLS_DIR] N..."""
import os
import sys
import time

args = sys.argv[1:]
tools = args.pop(0) if args and os.path.isdir(args[0]) else os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")
sys.path.insert(0, tools)
from baremark_report import html, outliers  # noqa: E402

for n in [int(a) for a in args] or [1000, 4000]:
    machines = [{"machine": "m%06d" % i, "product": "P", "status": "ok"} for i in range(n)]
    disk = [{"machine": "m%06d" % i, "disk": "d%d" % k, "test": t, "rw": "read", "mbps": 500.0,
             "mbps_vs_median": 1.0, "lat_p99_us": 9.0, "p99_vs_median": 1.0}
            for i in range(n) for k in range(2) for t in ("SEQ1M-Q8T1", "RND4K-Q32T1")]
    lat = [{"machine": "m%06d" % i, "pattern": "full_random", "bytes": 1 << 28, "extra": "", "ns": 90.0,
            "ns_vs_median": 1.0} for i in range(n)]
    shown = {"machines": machines, "disk_results": disk, "mem_latency": lat, "mem_bandwidth": []}
    t0 = time.perf_counter()
    page = html.fleet_page(shown, [], outliers.Limits(), {})
    print("%d machines: %.2f s, %d bytes" % (n, time.perf_counter() - t0, len(page)))
