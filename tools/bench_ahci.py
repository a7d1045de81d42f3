#!/usr/bin/env python3
"""Figures of the native AHCI driver under QEMU (TCG), in the configuration
of the Linux fio reference (tools/diskbench_compare.py measures it: Linux
fio, libaio, direct, in a TCG guest on the same devices gave about 24k IOPS
RND4K-Q32, 5.4k RND4K-Q1 and 3.1 GB/s SEQ1M-Q8 on AHCI): one 1 GiB raw disk
(random data, in the host page cache) on an ich9-ahci, -smp 2. Prints
SEQ1M-Q8, SEQ1M-Q1, RND4K-Q32 and RND4K-Q1 for each run; these measure the
emulator and the driver's cost in it, not hardware.

usage: tools/bench_ahci.py [--runs N] [--time S] [--disks N]
"""
import argparse
import os
import tempfile

import qemu_harness as qemu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--time", type=int, default=3, help="measured seconds per test")
    ap.add_argument("--disks", type=int, default=1, help="disks on the controller (all-disks figures from 2)")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="baremark-bench-ahci-")
    devices, drives = ["ich9-ahci,id=ahci"], []
    for i in range(args.disks):
        img = qemu.make_disk(os.path.join(work, "d%d.img" % i), 1024, fill="random")
        with open(img, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass
        drives.append("if=none,id=d%d,format=raw,cache=writeback,file=%s" % (i, img))
        devices.append("ide-hd,drive=d%d,bus=ahci.%d,serial=BENCH%d" % (i, i, i))
    options = "mem=off disk=quick time=%d driver=native exit=shutdown" % args.time
    for run_no in range(args.runs):
        run = qemu.boot(options=options, devices=devices, drives=drives, timeout=600)
        if run.timed_out:
            print("run %d: timed out" % run_no)
            continue
        for r in run.of_type("disk_result"):
            who = r["disk"] + (" (with %d)" % r["concurrent"] if "concurrent" in r and r["disk"] != "all" else "")
            print("run %d  %-18s %-12s %9.1f MB/s %9.0f IOPS  p50 %7.1f us  p99 %8.1f us%s" % (
                run_no, who, r["test"], r["mbps"], r["iops"], r["lat_us"]["p50"], r["lat_us"]["p99"],
                "  core busy %.0f%%" % r["core_busy_pct"] if "core_busy_pct" in r else ""))
        for e in run.of_type("error"):
            print("run %d  error %s: %s" % (run_no, e["where"], e["message"]))


if __name__ == "__main__":
    main()
