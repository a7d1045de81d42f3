#!/usr/bin/env python3
"""`make run`: boot build/baremark.img in QEMU with emulated disks on every
controller family baremark drives, stream the serial console, then print
where the records are.

BAREMARK_OPTIONS overrides the options (default: a short run suited to TCG).
"""
import os
import sys

import qemu

DEFAULT_OPTIONS = "mem=quick mem_max=64M disk=quick time=1 exit=shutdown"


def main():
    workdir = os.path.join(qemu.BUILD, "run")
    os.makedirs(workdir, exist_ok=True)
    disks = {}
    for name, mib in (("nvme0", 256), ("sata0", 256), ("sata1", 256), ("sas0", 256)):
        disks[name] = qemu.make_disk(os.path.join(workdir, name + ".img"), mib)
    drives = ["if=none,id=%s,format=raw,file=%s" % (n, p) for n, p in disks.items()]
    devices = [
        "nvme,drive=nvme0,serial=DEMO-NVME0",
        "ich9-ahci,id=sata",
        "ide-hd,drive=sata0,bus=sata.0,serial=DEMO-SATA0",
        "ide-hd,drive=sata1,bus=sata.1,serial=DEMO-SATA1",
        "megasas-gen2,id=hba",
        "scsi-hd,drive=sas0,bus=hba.0,serial=DEMO-SAS0",
    ]
    options = os.environ.get("BAREMARK_OPTIONS", DEFAULT_OPTIONS)
    print("Booting baremark in QEMU (TCG unless BAREMARK_KVM=1) with options: %s" % options, flush=True)
    run = qemu.boot(options=options, drives=drives, devices=devices, smp=2, memory_mib=2048, timeout=1800,
                    stream=True, workdir=workdir)
    print()
    print("=" * 78)
    if run.timed_out:
        print("QEMU did not finish in time; serial log: %s" % os.path.join(workdir, "serial.log"))
        return 1
    end = [r for r in run.records if r.get("type") == "end"]
    print("%d records on serial (%s)" % (len(run.records), os.path.join(workdir, "serial.log")))
    for name in sorted(run.results_files(), key=lambda n: not n.endswith(".jsonl")):
        if name.endswith(".html"):
            # the report, copied out of the stick to open in a browser
            copy = os.path.join(workdir, name)
            with open(copy, "w") as f:
                f.write(run.read_file("::/baremark/results/" + name))
            print("HTML report on the stick: \\baremark\\results\\%s  (copied to %s)" % (name, copy))
            continue
        print("results file on the stick: \\baremark\\results\\%s  (mtype -i %s@@1M ::/baremark/results/%s)"
              % (name, run.stick, name))
    if end:
        print("status: %s, errors: %s, %.1f s" % (end[0].get("status"), end[0].get("errors"), end[0].get("seconds", 0)))
    return 0 if end and end[0].get("status") == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
