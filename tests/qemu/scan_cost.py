#!/usr/bin/env python3
"""The surface scan's cost under QEMU (issue 29, docs/surface-scan.md): boot
an image with a 64 GiB null-co disk on its own AHCI controller (scanned on
an application processor, as its SEQ1M-Q8T1 ran) and print its scan rate
against its SEQ1M-Q8T1 of the same run, the median of the curve's parts,
and the host's load average before and after.

usage: scan_cost.py [IMAGE [SETUP [RUNS]]]
  IMAGE  the stick (default build/baremark.img)
  SETUP  alone:  the clean disk only;
         small:  beside a 32 MiB null-co disk on q35's AHCI, whose scan (on
                 the boot processor) ends in a few ms;
         band:   beside test_scan.py's 32 MiB disk with 16 unreadable
                 sectors (37 failing re-reads)
  RUNS   boots (default 1)
"""
import os
import statistics
import sys
import tempfile
import time

import qemu

OPTIONS = "mem=off disk=quick time=1 driver=native exit=shutdown scan=on"


def boot(image, setup):
    work = tempfile.mkdtemp(prefix="baremark-scan-cost-")
    devices = ["ich9-ahci,id=ahci", "ide-hd,drive=g,bus=ahci.0,serial=SCANGOOD"]
    drives = ["if=none,id=g,driver=null-co,size=65536M,read-zeroes=on"]
    if setup == "small":
        devices.append("ide-hd,drive=b,bus=ide.2,serial=SCANSMALL")
        drives.append("if=none,id=b,driver=null-co,size=32M,read-zeroes=on")
    elif setup == "band":
        bad = qemu.make_disk(os.path.join(work, "bad.img"), 32)
        rules = os.path.join(work, "band.conf")
        with open(rules, "w") as f:
            for s in range(20000, 20016):
                f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\nsector = "%d"\n\n' % s)
        devices.append("ide-hd,drive=b,bus=ide.2,serial=SCANBAD")
        drives.append("if=none,id=b,format=raw,file=blkdebug:%s:%s" % (rules, bad))
    elif setup != "alone":
        sys.exit("scan_cost.py: SETUP is alone, small or band, not %r" % setup)
    load0 = os.getloadavg()[0]
    run = qemu.boot(options=OPTIONS, devices=devices, drives=drives, timeout=300, image=image)
    load1 = os.getloadavg()[0]
    scans = {r["disk"]: r for r in run.of_type("scan")}
    if "ahci0p0" not in scans:
        sys.exit("scan_cost.py: no scan record of the clean disk:\n" + run.serial[-2000:])
    g = scans["ahci0p0"]
    other = ["%s %.2f s, %d re-reads" % (d, r["seconds"], r["rereads"]) for d, r in scans.items() if d != "ahci0p0"]
    print("%s %s: scan %.1f MB/s in %.2f s, SEQ1M-Q8T1 %.1f MB/s: %.1f%% (median part %.1f%%); "
          "parts %.0f-%.0f MB/s; load %.2f -> %.2f%s" % (
              time.strftime("%H:%M"), setup, g["mbps"], g["seconds"], g["seq1m_mbps"], g["vs_seq1m_pct"],
              100 * statistics.median(g["curve_mbps"]) / g["seq1m_mbps"], min(g["curve_mbps"]),
              max(g["curve_mbps"]), load0, load1, "; beside " + ", ".join(other) if other else ""), flush=True)


def main():
    image = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
    setup = sys.argv[2] if len(sys.argv) > 2 else "alone"
    for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 1):
        boot(image, setup)


if __name__ == "__main__":
    main()
