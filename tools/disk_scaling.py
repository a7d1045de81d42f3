#!/usr/bin/env python3
"""Where adding a disk stops helping, and where one polling core becomes the
limit: boot baremark (disk=full) in QEMU with N fast disks of one kind and
print the all-disks scaling series it measured (ALL1 ... ALLN), with the
polling core's busy share next to each step.

Disks are QEMU null-co drives (no data, no host I/O; read-zeroes) so the
emulated controllers, not the host's storage, set the pace; an optional
fixed latency per request (--latency-ns) shows queue depth at work. Under
TCG the figures measure the emulator, not hardware: compare steps of one
series, not machines. It prints figures; it asserts nothing.

    tools/disk_scaling.py [--disks 4] [--kind nvme|ahci] [--driver auto|firmware|native]
                          [--time 1] [--latency-ns 0] [--switch]

--switch puts NVMe controllers behind one emulated PCIe switch, so the
all-disks records name the shared uplink and its ceiling.
"""
import argparse
import os

import qemu_harness as qemu


def machine(kind, n, latency_ns, switch):
    """-drive and -device strings for n null-co disks on controllers of one kind."""
    drives, devices = [], []
    if kind == "nvme" and switch:
        devices += ["pcie-root-port,id=rp1,chassis=1,slot=1", "x3130-upstream,bus=rp1,id=up1"]
    for i in range(n):
        drives.append("driver=null-co,size=1G,read-zeroes=on,latency-ns=%d,if=none,id=d%d" % (latency_ns, i))
        serial = "SCALE%02d" % i
        if kind == "nvme":
            bus = ""
            if switch:
                devices.append("xio3130-downstream,bus=up1,id=dn%d,chassis=%d,slot=0" % (i, i + 2))
                bus = "bus=dn%d," % i
            devices.append("nvme,%sdrive=d%d,serial=%s" % (bus, i, serial))
        elif kind == "ahci":
            if i >= 6:
                raise SystemExit("q35's AHCI has 6 ports")
            devices.append("ide-hd,bus=ide.%d,drive=d%d,serial=%s" % (i, i, serial))
        else:
            raise SystemExit("unknown kind " + kind)
    return drives, devices


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--disks", type=int, default=4)
    ap.add_argument("--kind", default="nvme", choices=("nvme", "ahci"))
    ap.add_argument("--driver", default="auto", choices=("auto", "native", "firmware"))
    ap.add_argument("--time", type=int, default=1)
    ap.add_argument("--latency-ns", type=int, default=0)
    ap.add_argument("--switch", action="store_true")
    args = ap.parse_args()

    drives, devices = machine(args.kind, args.disks, args.latency_ns, args.switch)
    serials = ",".join("SCALE%02d" % i for i in range(args.disks))
    options = "mem=off disk=full time=%d driver=%s exit=shutdown disks=%s" % (args.time, args.driver, serials)
    print("booting: %d %s disks (%s), %s" % (args.disks, args.kind, args.driver, options), flush=True)
    run = qemu.boot(options=options, drives=drives, devices=devices, timeout=3600)
    qemu.cleanup()
    if not run.of_type("end"):
        print(run.serial[-3000:])
        raise SystemExit("no end record")
    disks = {d["id"]: d for d in run.of_type("disk")}
    results = run.of_type("disk_result")

    print("\nalone (each disk by itself):")
    for test in ("SEQ1M-Q8T1", "RND4K-Q32T1"):
        for r in results:
            if r["test"] == test and r["rw"] in ("read", "randread"):
                print("  %-8s %-12s %10.1f MB/s %10.0f IOPS  p99 %8.0f us  (%s)" % (
                    r["disk"], test, r["mbps"], r["iops"], r["lat_us"]["p99"], disks[r["disk"]]["driver"]))

    print("\nall at once (scaling series, one polling core):")
    print("  %-18s %6s %12s %12s %10s %10s  %s" % ("test", "disks", "MB/s", "IOPS", "p99 us", "core busy", "link"))
    for r in results:
        if r["disk"] != "all":
            continue
        link = r.get("link")
        ltext = "%d disks behind %s at %s: %.0f%% of %.0f MB/s" % (
            link["disks_behind"], link["width_speed"], link["hop"], link["used_pct"], link["ceiling_mbps"]) \
            if link else ""
        print("  %-18s %6d %12.1f %12.0f %10.0f %9.0f%%  %s" % (
            r["test"], r["concurrent"], r["mbps"], r["iops"], r["lat_us"]["p99"], r["core_busy_pct"], ltext))
    print("\nA step that adds a disk but not throughput, with the core near 100 % busy, is the one-core limit;")
    print("with the core well below that, the limit is elsewhere (the emulator, a shared link).")
    for e in run.of_type("error"):
        print("error: %s: %s" % (e["where"], e["message"]))


if __name__ == "__main__":
    main()
