"""Write safety under QEMU + OVMF, where the boot medium is not the USB
stick: baremark booted from a SATA disk or an NVMe namespace (the
controller is then left to the firmware, and its other disks reached
through firmware Block I/O), and results written to a volume on another
disk. Whatever write= says, the disk baremark was loaded from and the one
holding the results volume are never written; the disks write= names next
to them are.

Each test boots once with small disks, mem=off and time=100ms warmup=50ms.
"""
import os
import shutil
import subprocess

import qemu
import testutil


sha256 = testutil.sha256


cleaned = testutil.cleaned("baremark-safety-")
fail_with_log = testutil.fail_with_log


def boot_image(work, options):
    """A copy of the baremark image, with these options in its baremark.cfg,
    to be attached as a disk and booted from."""
    path = os.path.join(work, "boot.img")
    shutil.copyfile(qemu.IMAGE, path)
    qemu.write_fat_file(path, "::/baremark/baremark.cfg", "\n".join(options.split()) + "\n")
    return path


def disk_by_serial(run, serial, path=None):
    ds = [d for d in run.of_type("disk") if d["serial"] == serial and (path is None or d["path"] == path)]
    assert len(ds) == 1, "expected one disk with serial %s: %s" % (serial, run.of_type("disk"))
    return ds[0]


def writes_of(run, disk_id):
    return [r["test"] for r in run.of_type("disk_result") if r["disk"] == disk_id and "write" in r["rw"]]


@cleaned
def test_boot_sata_disk_is_never_written_its_neighbour_is(work):
    # Booted from port 0 of the chipset's AHCI: the controller stays with
    # the firmware (no native driver under the boot volume), so the disk
    # on port 2 is reached through firmware Block I/O, and only the
    # device path and port tell the two apart.
    options = "mem=off disk=quick time=100ms warmup=50ms exit=shutdown out=off disks=SATAW write=BOOTSATA,SATAW"
    boot = boot_image(work, options)
    data = qemu.make_disk(os.path.join(work, "data.img"), 16, fill="random")
    before_boot, before_data = sha256(boot), sha256(data)
    run = qemu.boot(stick=False, timeout=180, workdir=work,
                    drives=["if=none,id=b,format=raw,file=" + boot, "if=none,id=d,format=raw,file=" + data],
                    devices=["ide-hd,bus=ide.0,drive=b,serial=BOOTSATA,bootindex=0",
                             "ide-hd,bus=ide.2,drive=d,serial=SATAW"])
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    b, d = disk_by_serial(run, "BOOTSATA"), disk_by_serial(run, "SATAW")
    # Whole disks only: the boot disk's partitions (GPT, ESP) are not disks.
    assert not [x for x in run.of_type("disk") if "/HD(" in x.get("device_path", "")], run.of_type("disk")
    assert "/HD(" not in b["device_path"] and b["device_path"].startswith("PciRoot"), b
    assert any(n["where"] == "0000:00:1f.2" and "boot volume" in n["message"] for n in run.of_type("note")), \
        run.of_type("note")
    assert b["path"] == d["path"] == "firmware", (b, d)
    assert b["boot"] is True and b["writes"] is False, b
    assert d["boot"] is False and d["writes"] is True, d
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == b["id"] and "refused" in errors[0]["message"] \
        and "loaded from" in errors[0]["message"], errors
    assert run.end()["status"] == "error" and run.end()["errors"] == 1, run.end()
    assert writes_of(run, d["id"]) == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"], \
        run.of_type("disk_result")
    assert not writes_of(run, b["id"])
    assert sha256(boot) == before_boot, "the boot disk was written"
    assert sha256(data) != before_data, "the disk write= names was not written"


@cleaned
def test_boot_nvme_namespace_is_never_written_its_sibling_is(work):
    # Booted from namespace 1 of an NVMe controller whose serial write=
    # names: the serial covers every namespace, the boot one stays read-only.
    # A second controller, not in write=, is driven natively and left alone.
    options = "mem=off disk=quick time=100ms warmup=50ms exit=shutdown out=off disks=BOOTNVME write=BOOTNVME"
    boot = boot_image(work, options)
    ns2 = qemu.make_disk(os.path.join(work, "ns2.img"), 16, fill="random")
    other = qemu.make_disk(os.path.join(work, "other.img"), 16, fill="random")
    before_boot, before_ns2, before_other = sha256(boot), sha256(ns2), sha256(other)
    run = qemu.boot(stick=False, timeout=180, workdir=work,
                    drives=["if=none,id=b,format=raw,file=" + boot, "if=none,id=n2,format=raw,file=" + ns2,
                            "if=none,id=o,format=raw,file=" + other],
                    devices=["nvme,id=nb,serial=BOOTNVME", "nvme-ns,bus=nb,drive=b,nsid=1,bootindex=0",
                             "nvme-ns,bus=nb,drive=n2,nsid=2", "nvme,drive=o,serial=OTHERNVME"])
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    disks = [d for d in run.of_type("disk") if d["serial"] == "BOOTNVME"]
    assert len(disks) == 2 and all(d["path"] == "firmware" for d in disks), run.of_type("disk")
    nb = [d for d in disks if d["boot"]]
    n2 = [d for d in disks if not d["boot"]]
    assert len(nb) == 1 and len(n2) == 1, disks
    nb, n2 = nb[0], n2[0]
    assert "NVMe(0x1" in nb["device_path"] and "NVMe(0x2" in n2["device_path"], disks
    assert nb["writes"] is False and n2["writes"] is True, disks
    o = disk_by_serial(run, "OTHERNVME")
    assert o["path"] == "native" and o["writes"] is False, o
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == nb["id"] and "loaded from" in errors[0]["message"], errors
    assert run.end()["status"] == "error", run.end()
    assert writes_of(run, n2["id"]) == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"], \
        run.of_type("disk_result")
    assert not writes_of(run, nb["id"]) and not writes_of(run, o["id"])
    assert sha256(boot) == before_boot, "the boot namespace was written"
    assert sha256(other) == before_other, "a disk not in write= was written"
    assert sha256(ns2) != before_ns2, "the sibling namespace write= allows was not written"


@cleaned
def test_boot_disk_behind_scsi_pass_thru_is_never_written(work):
    # Booted from target 0 of a virtio-scsi HBA (no native driver): the
    # firmware's pass-thru path drives its disks, the Block I/O view of
    # the same disks is dropped, and with it the device-path answer, so
    # controller, target and LUN alone must find the boot disk.
    options = "mem=off disk=quick time=100ms warmup=50ms exit=shutdown out=off disks=SCSIW write=BOOTSCSI,SCSIW"
    boot = boot_image(work, options)
    data = qemu.make_disk(os.path.join(work, "data.img"), 16, fill="random")
    before_boot, before_data = sha256(boot), sha256(data)
    run = qemu.boot(stick=False, timeout=180, workdir=work,
                    drives=["if=none,id=b,format=raw,file=" + boot, "if=none,id=d,format=raw,file=" + data],
                    devices=["virtio-scsi-pci,id=vs",
                             "scsi-hd,bus=vs.0,scsi-id=0,lun=0,drive=b,serial=BOOTSCSI,bootindex=0",
                             "scsi-hd,bus=vs.0,scsi-id=1,lun=0,drive=d,serial=SCSIW"])
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    b, d = disk_by_serial(run, "BOOTSCSI"), disk_by_serial(run, "SCSIW")
    assert b["driver"] == d["driver"] == "scsi_passthru" and b["pci"] == d["pci"], (b, d)
    assert b["boot"] is True and b["writes"] is False, b
    assert d["boot"] is False and d["writes"] is True, d
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == b["id"] and "loaded from" in errors[0]["message"], errors
    assert writes_of(run, d["id"]) == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"], \
        run.of_type("disk_result")
    assert sha256(boot) == before_boot, "the boot disk was written"
    assert sha256(data) != before_data, "the disk write= names was not written"


@cleaned
def test_results_disk_and_read_only_stick_are_never_written(work):
    # out=RESULTS:\res puts the results file on a FAT disk of an NVMe
    # controller a native driver would otherwise take. write= names that
    # disk: it is refused, the controller stays with the firmware, and the
    # results file on it is whole at the end. write= also names a USB stick
    # the firmware reports write-protected: refused too.
    res = os.path.join(work, "results.img")
    qemu.make_disk(res, 16)
    subprocess.run(["mkfs.vfat", "-n", "RESULTS", res], check=True, capture_output=True)
    ro = qemu.make_disk(os.path.join(work, "ro.img"), 8, fill="random")
    with open(res, "rb") as f:
        before = f.read()
    before_ro = sha256(ro)
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms exit=shutdown disks=RESDISK "
                            "write=RESDISK,ROSTICK out=RESULTS:\\res",
                    drives=["if=none,id=r,format=raw,file=" + res,
                            "if=none,id=ro,format=raw,readonly=on,file=" + ro],
                    # no bootindex on the NVMe disk: OVMF leaves it unconnected, and
                    # finding the RESULTS label must connect it first
                    devices=["nvme,drive=r,serial=RESDISK",
                             "usb-storage,bus=xhci.0,drive=ro,serial=ROSTICK,bootindex=2"],
                    workdir=work, timeout=180)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    r, s = disk_by_serial(run, "RESDISK"), disk_by_serial(run, "ROSTICK")
    assert r["path"] == "firmware" and r["writes"] is False and r["boot"] is False, r
    assert s["writes"] is False and s["boot"] is False, s
    assert any(n["where"] == r["pci"] and "results volume" in n["message"] for n in run.of_type("note")), \
        run.of_type("note")
    errors = sorted(run.of_type("error"), key=lambda e: e["where"] != r["id"])
    assert len(errors) == 2, errors
    assert errors[0]["where"] == r["id"] and "results are written to" in errors[0]["message"], errors
    assert errors[1]["where"] == s["id"] and "read-only" in errors[1]["message"], errors
    assert run.end()["status"] == "error" and run.end()["errors"] == 2, run.end()
    assert not writes_of(run, r["id"]) and not writes_of(run, s["id"])
    assert sha256(ro) == before_ro
    # Reads ran; the only change on the disk is the results file, intact.
    assert [x["test"] for x in run.of_type("disk_result") if x["disk"] == r["id"]] == \
        ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"]
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    names = subprocess.run(["mdir", "-b", "-i", res, "::/res"], capture_output=True, text=True, env=env).stdout
    files = [l.strip() for l in names.splitlines() if l.strip().endswith(".jsonl")]
    assert len(files) == 1, names
    text = subprocess.run(["mtype", "-i", res, files[0]], capture_output=True, env=env).stdout.decode()
    assert '"type":"end"' in text and '"serial":"RESDISK"' in text, text[-2000:]
    with open(res, "rb") as f:
        after = f.read()
    changed = sum(1 for i in range(0, len(after), 4096) if after[i:i + 4096] != before[i:i + 4096])
    assert 0 < changed < 16, changed  # FAT, directory and the file's clusters, not a benchmark's worth


@cleaned
def test_second_stick_on_boot_stick_controller(work):
    # Booted from a USB stick: the location names the xHCI controller and
    # no port, so the firmware's device path tells the sticks apart. With
    # out=off the second stick write= names is written and the boot stick
    # is not; with the results on the boot stick, the second stick is
    # refused, with an error that says why and how to lift it.
    options = "mem=off disk=quick time=100ms warmup=50ms exit=shutdown out=off disks=USB2 write=USB2,BOOTUSB"
    boot = boot_image(work, options)
    second = qemu.make_disk(os.path.join(work, "second.img"), 8, fill="random")
    before_boot, before_second = sha256(boot), sha256(second)
    sticks = ["usb-storage,bus=xhci.0,drive=b,serial=BOOTUSB,removable=on,bootindex=0",
              "usb-storage,bus=xhci.0,drive=s,serial=USB2,bootindex=1"]
    drives = ["if=none,id=b,format=raw,file=" + boot, "if=none,id=s,format=raw,file=" + second]
    run = qemu.boot(stick=False, timeout=180, workdir=work, drives=drives, devices=sticks)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    b, s = disk_by_serial(run, "BOOTUSB"), disk_by_serial(run, "USB2")
    assert b["pci"] == s["pci"] and b["boot"] is True and s["boot"] is False, (b, s)
    assert b["writes"] is False and s["writes"] is True, (b, s)
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == b["id"] and "loaded from" in errors[0]["message"], errors
    assert writes_of(run, s["id"]) == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"], \
        run.of_type("disk_result")
    assert sha256(boot) == before_boot, "the boot stick was written"
    assert sha256(second) != before_second, "the second stick was not written"

    qemu.write_fat_file(boot, "::/baremark/baremark.cfg",
                        "\n".join("mem=off disk=quick time=100ms warmup=50ms exit=shutdown disks=USB2 write=USB2".split()) + "\n")
    before_second = sha256(second)
    run = qemu.boot(stick=False, timeout=180, workdir=work, drives=drives, devices=sticks)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    s = disk_by_serial(run, "USB2")
    assert s["writes"] is False, s
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == s["id"], errors
    assert "controller of the volume the results are written to" in errors[0]["message"] \
        and "out=off" in errors[0]["message"], errors
    assert run.end()["status"] == "error", run.end()
    assert not writes_of(run, s["id"]) and sha256(second) == before_second
