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
                          [--time 1] [--latency-ns 0] [--switch] [--level full|quick] [--smp 2]

--switch puts NVMe controllers behind one emulated PCIe switch, so the
all-disks records name the shared uplink and its ceiling.

--smp 1,2,4 boots once per CPU count (QEMU -smp N; under TCG, MTTCG runs
one host thread per vCPU) and ends with the aggregate of the all-disks
tests (and RND4K-Q32T16, disk=full) per CPU count, the CPUs each test ran
on and their busy shares: where one polling core was the limit, the
aggregate rises with the CPUs. The host's load average is printed next to
each boot (other work on the host's cores takes their time from the vCPU
threads); --rounds N repeats the sweep N times, interleaved (1,2,4,1,2,4,
...), and the summary gives each figure's median and every round's value,
so a load spike in one boot does not pass for scaling. --level quick runs
only the all-disks step over every disk.
"""
import argparse
import os
import statistics

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


def print_run(run):
    """The per-disk figures and the all-disks series of one boot."""
    disks = {d["id"]: d for d in run.of_type("disk")}
    results = run.of_type("disk_result")

    print("\nalone (each disk by itself):")
    for test in ("SEQ1M-Q8T1", "RND4K-Q32T1", "RND4K-Q32T16"):
        for r in results:
            if r["test"] == test and r["rw"] in ("read", "randread") and r["disk"] != "all" and "concurrent" not in r:
                print("  %-8s %-12s %10.1f MB/s %10.0f IOPS  p99 %8.0f us  %d CPU(s)  (%s)" % (
                    r["disk"], test, r["mbps"], r["iops"], r["lat_us"]["p99"], r.get("cpus", 1),
                    disks[r["disk"]]["driver"]))

    print("\nall at once (scaling series):")
    print("  %-18s %6s %12s %12s %10s %5s %16s  %s" % ("test", "disks", "MB/s", "IOPS", "p99 us", "CPUs",
                                                       "busy % per CPU", "link"))
    for r in results:
        if r["disk"] != "all":
            continue
        link = r.get("link")
        ltext = "%d disks behind %s at %s: %.0f%% of %.0f MB/s" % (
            link["disks_behind"], link["width_speed"], link["hop"], link["used_pct"], link["ceiling_mbps"]) \
            if link else ""
        print("  %-18s %6d %12.1f %12.0f %10.0f %5d %16s  %s" % (
            r["test"], r["concurrent"], r["mbps"], r["iops"], r["lat_us"]["p99"], r.get("cpus", 1),
            "/".join("%.0f" % x for x in r.get("cpu_busy_pct", [r["core_busy_pct"]])), ltext))
    print("\nA step that adds a disk but not throughput, with a core near 100 % busy, is a one-core limit;")
    print("with the cores well below that, the limit is elsewhere (the emulator, a shared link).")
    for e in run.of_type("error"):
        print("error: %s: %s" % (e["where"], e["message"]))


def sweep_rows(run):
    """The aggregate figures of one boot: the all-disks step over every disk
    (each workload) and RND4K-Q32T16 summed over the disks."""
    results = run.of_type("disk_result")
    agg = [r for r in results if r["disk"] == "all"]
    rows = []
    for test in sorted({r["test"] for r in agg}):
        top = max((r for r in agg if r["test"] == test), key=lambda r: r["concurrent"])
        rows.append((test, top["mbps"], top["iops"], top.get("cpus", 1), top.get("cpu_busy_pct", [])))
    t16 = [r for r in results if r["test"] == "RND4K-Q32T16" and r["disk"] != "all" and "concurrent" not in r]
    for r in t16:
        rows.append(("%s %s" % (r["test"], r["disk"]), r["mbps"], r["iops"], r.get("cpus", 1),
                     r.get("cpu_busy_pct", [])))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--disks", type=int, default=4)
    ap.add_argument("--kind", default="nvme", choices=("nvme", "ahci"))
    ap.add_argument("--driver", default="auto", choices=("auto", "native", "firmware"))
    ap.add_argument("--time", type=int, default=1)
    ap.add_argument("--latency-ns", type=int, default=0)
    ap.add_argument("--switch", action="store_true")
    ap.add_argument("--level", default="full", choices=("full", "quick"))
    ap.add_argument("--smp", default="2", help="CPU counts, comma-separated: one boot each (e.g. 1,2,4)")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the --smp sweep, interleaved")
    args = ap.parse_args()
    smps = [int(x) for x in args.smp.split(",") if x.strip()]

    drives, devices = machine(args.kind, args.disks, args.latency_ns, args.switch)
    serials = ",".join("SCALE%02d" % i for i in range(args.disks))
    options = "mem=off disk=%s time=%d driver=%s exit=shutdown disks=%s" % (
        args.level, args.time, args.driver, serials)
    sweep = []
    for smp in [x for _ in range(max(1, args.rounds)) for x in smps]:
        load0 = os.getloadavg()
        print("booting: %d %s disks (%s), -smp %d, %s; host load %.2f %.2f %.2f on %d cores" % (
            args.disks, args.kind, args.driver, smp, options, load0[0], load0[1], load0[2], os.cpu_count()),
            flush=True)
        run = qemu.boot(options=options, drives=drives, devices=devices, timeout=3600, smp=smp)
        qemu.cleanup()
        load1 = os.getloadavg()
        if not run.of_type("end"):
            print(run.serial[-3000:])
            raise SystemExit("no end record")
        print_run(run)
        sweep.append((smp, load0, load1, sweep_rows(run)))

    if len(sweep) < 2:
        return
    print("\naggregate per CPU count (%d %s disks, time=%d s, %d round(s) interleaved; median, then each round "
          "with the host's 1-minute load average when it began):" % (args.disks, args.kind, args.time, args.rounds))
    print("  %-26s %4s %12s %12s %5s %16s  %s" % ("test", "smp", "median MB/s", "median IOPS", "CPUs",
                                                 "busy % per CPU", "rounds: IOPS @ load"))
    tests = []
    for _, _, _, rows in sweep:
        tests += [r[0] for r in rows if r[0] not in tests]
    for test in tests:
        for smp in smps:
            got = [(row, load0) for s_, load0, _, rows in sweep if s_ == smp for row in rows if row[0] == test]
            if not got:
                continue
            mbps = statistics.median(r[1] for r, _ in got)
            iops = statistics.median(r[2] for r, _ in got)
            last = got[-1][0]
            print("  %-26s %4d %12.1f %12.0f %5d %16s  %s" % (
                test, smp, mbps, iops, last[3], "/".join("%.0f" % x for x in last[4]),
                ", ".join("%.0f @ %.1f" % (r[2], load0[0]) for r, load0 in got)))
    worst = max(load0[0] for _, load0, _, _ in sweep)
    if worst + max(smps) > (os.cpu_count() or 1):
        print("\nThe host was loaded (1-minute load up to %.1f on %d cores, and the largest guest adds %d vCPU "
              "threads): the vCPUs shared cores, so these figures do not show how the aggregate scales." % (
                  worst, os.cpu_count() or 1, max(smps)))

if __name__ == "__main__":
    main()
