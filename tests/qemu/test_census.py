"""Nothing goes missing, under OVMF: every whole disk the firmware shows
when baremark starts ends up as a disk or in a note that names it.

One boot, driver=auto: q35's AHCI with a disk on port 0, an NVMe
controller with one namespace, one with 34 (baremark takes 32 per
controller: the firmware shows all 34, so two are named in a note), and a
MegaRAID (which OVMF has no driver for) behind a PCI Express root port, so
its native driver also enables the bridge above it.

A controller that loses a disk the firmware had (and is handed back) cannot
be made honestly under QEMU: its AHCI and NVMe models bring up every disk
they have. That path is pinned by tests/unit/test_disk_census.c."""
import os
import shutil

import qemu


def test_every_disk_the_firmware_shows_is_a_disk_or_named():
    work = qemu.tempdir(prefix="baremark-census-")
    try:
        a = qemu.make_disk(os.path.join(work, "a.img"), 16)
        n = qemu.make_disk(os.path.join(work, "n.img"), 16)
        m = qemu.make_disk(os.path.join(work, "m.img"), 16)
        run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms disks=NVOK", workdir=work, timeout=300,
                        drives=["file=%s,if=none,id=A,format=raw" % a, "file=%s,if=none,id=N,format=raw" % n,
                                "file=%s,if=none,id=M,format=raw" % m] +
                               ["driver=null-co,size=1M,read-zeroes=on,if=none,id=X%d" % i for i in range(1, 35)],
                        devices=["ide-hd,drive=A,bus=ide.0,serial=CENSUSAHCI",
                                 "nvme,id=nk,serial=NVOK", "nvme-ns,bus=nk,drive=N",
                                 "pcie-root-port,id=rp1,chassis=1,slot=1", "megasas-gen2,id=hba,bus=rp1",
                                 "scsi-hd,bus=hba.0,drive=M,serial=MEGA0",
                                 "nvme,id=nx,serial=NVMANYNS"] +
                                ["nvme-ns,bus=nx,drive=X%d,nsid=%d" % (i, i) for i in range(1, 35)])
        assert not run.timed_out, run.serial[-3000:]
        assert run.end()["status"] == "ok", run.end()
        assert run.of_type("error") == [], run.of_type("error")
        disks = {}
        for d in run.of_type("disk"):
            disks.setdefault(d["serial"], []).append(d)
        # Found natively, matched to the firmware's disks: no controller handed back.
        (ahci,) = disks["CENSUSAHCI"]
        assert ahci["path"] == "native" and ahci["driver"] == "ahci", ahci
        (nvok,) = disks["NVOK"]
        assert nvok["path"] == "native", nvok
        (mega,) = disks["MEGA0"]
        assert mega["path"] == "native" and mega["driver"] == "megasas", mega
        assert not mega["pci"].startswith("0000:00:"), mega  # on the bus behind the root port
        many = disks["NVMANYNS"]
        assert len(many) == 32 and all(d["path"] == "native" for d in many), many
        notes = [(r["where"], r["message"]) for r in run.of_type("note")]
        assert not [x for x in notes if "handed back" in x[1] or "is in no test" in x[1]], notes
        left = [x for x in notes if x[0] == many[0]["pci"] and "left out" in x[1]]
        assert len(left) == 1, notes
        assert "2 of the 34 disks the firmware shows" in left[0][1], left
        assert "namespace 33" in left[0][1] and "namespace 34" in left[0][1], left
    finally:
        shutil.rmtree(work, ignore_errors=True)
