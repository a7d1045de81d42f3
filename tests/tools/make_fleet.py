#!/usr/bin/env python3
"""Write a synthetic fleet of serial captures for measuring baremark-report
at scale: one file per machine (firmware noise, escape sequences, CRLF and
a complete baremark run of about 1.2 KB), a few slow disks and short links.

usage: make_fleet.py DIR MACHINES [FILES_PER_DIR]
  e.g. make_fleet.py /tmp/fleet 100000   (about 120 MB)
"""
import json
import os
import random
import sys


def machine(n, rng):
    slow = n % 997 == 0
    recs = [
        {"type": "run", "version": "0.1.0", "schema": 1, "args": "", "config_file": "mem=quick disk=quick",
         "time": "2026-01-%02dT%02d:%02d:00Z" % (1 + n % 28, n % 24, n % 60)},
        {"type": "system", "serial": "SN%07d" % n, "product": "R2-%d" % (n % 4), "cpu": "CPU %d" % (n % 3),
         "cpus": 64},
        {"type": "dimm", "bank": "P0", "locator": "DIMM_A1", "size_mb": 32768, "mem_type": "DDR5",
         "speed_mts": 4800},
        {"type": "pci", "bdf": "0000:01:00.0", "vendor": 5197, "device": 42, "class": 67586,
         "link": {"speed_gts": 16.0, "width": 2 if n % 1499 == 0 else 4, "max_speed_gts": 16.0, "max_width": 4},
         "path": ["0000:00:01.0"]},
        {"type": "disk", "id": "nvme0n1", "model": "NVME M%d" % (n % 5), "serial": "D%07d" % n, "lba_bytes": 512},
        {"type": "disk_result", "disk": "nvme0n1", "test": "SEQ1M-Q8T1", "rw": "read", "bs": 1048576, "qd": 8,
         "mbps": (900.0 if slow else 3000.0) + rng.random() * 100, "iops": 3000.0,
         "lat_us": {"mean": 2600, "p50": 2500, "p99": 4000, "p999": 5000, "max": 9000}},
        {"type": "disk_result", "disk": "nvme0n1", "test": "RND4K-Q32T1", "rw": "read", "bs": 4096, "qd": 32,
         "mbps": 1500.0 + rng.random() * 50, "iops": 380000.0,
         "lat_us": {"mean": 84, "p50": 80, "p99": 160, "p999": 300, "max": 900}},
        {"type": "mem_latency", "bytes": 268435456, "pattern": "full_random", "ns": 95.0 + rng.random() * 5},
        {"type": "mem_bandwidth", "op": "read", "threads": 64, "bytes": 1 << 30, "gbps": 210.0 + rng.random()},
        {"type": "end", "status": "ok", "errors": 0, "seconds": 312.5},
    ]
    noise = "\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001 \"UEFI PXE\"\r\n\x1b[0m"
    return (noise + "".join("BAREMARK %s\r\n" % json.dumps(r, separators=(",", ":")) for r in recs)).encode()


def main():
    folder, count = sys.argv[1], int(sys.argv[2])
    per_dir = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    rng = random.Random(1)
    total = 0
    for n in range(count):
        sub = os.path.join(folder, "rack%03d" % (n // per_dir))
        if n % per_dir == 0:
            os.makedirs(sub, exist_ok=True)
        data = machine(n, rng)
        total += len(data)
        with open(os.path.join(sub, "node%07d.log" % n), "wb") as f:
            f.write(data)
    print("%d machines, %d bytes" % (count, total))


if __name__ == "__main__":
    main()
