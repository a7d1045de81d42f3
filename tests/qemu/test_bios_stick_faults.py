"""The legacy BIOS stick on a bad day, under SeaBIOS: a stick made with
`make image BIOS_MBR=hybrid` (SYSLINUX's mbr.bin, an active FAT32 entry)
boots, and QEMU's blkdebug gives it one failed read and one failed write
(once=on, EIO) on the first sector of bios.jsonl: baremark reads what
earlier runs left there and writes its records through INT 13h retries
after a disk reset, and says so in an int13 log record. A read-only stick
(readonly=on): every write fails, is tried again, then the file is given
up with a record, and the run still ends ok with every record on serial."""
import json
import os
import shutil
import subprocess
import time

import qemu

BIOS_RESULTS = "::/baremark/results/bios.jsonl"


def _hybrid_image(workdir):
    """A fresh image as `make image BIOS_MBR=hybrid` makes it."""
    out = os.path.join(workdir, "hybrid.img")
    env = dict(os.environ, BIOS_BIN=os.path.join(qemu.BUILD, "baremark.bin"), BIOS_MBR="hybrid")
    subprocess.run(["bash", os.path.join(qemu.ROOT, "boot", "mkimage.sh"), os.path.join(qemu.BUILD, "baremark.efi"),
                    os.path.join(qemu.ROOT, "boot", "baremark.cfg"), out], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return out


def _results_first_sector(image):
    """The first sector of bios.jsonl: the one sector-aligned place where
    2 MiB of spaces begin (bios.html has 1 MiB, nothing else has that many)."""
    with open(image, "rb") as f:
        data = f.read()
    at = data.find(b" " * (2 * 1024 * 1024))
    assert at > 0, "no preallocated bios.jsonl in the image"
    return (at + 511) // 512 if at % 512 else at // 512


def _boot(workdir, drive, cfg_image, timeout=120):
    serial = os.path.join(workdir, "serial.log")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-m", "512", "-smp", "1", "-cpu", "max",
           "-serial", "file:" + serial, "-display", "none", "-net", "none", "-no-reboot",
           "-drive", "if=none,id=stick," + drive,
           "-device", "qemu-xhci,id=xhci", "-device", "usb-storage,bus=xhci.0,drive=stick,removable=on,bootindex=0"]
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timed_out = qemu.wait_for_qemu(proc, serial, timeout, end_grace=15)
    text = qemu.read_text(serial)
    return qemu.Run(text, qemu.parse_records(text), proc.returncode, timed_out, time.time() - t0, workdir, cfg_image)


def _file_records(image):
    text = qemu.read_fat_file(image, BIOS_RESULTS)
    return [json.loads(line) for line in text.split("\n") if line.strip()], text


def test_bios_hybrid_stick_survives_transient_read_and_write_errors_and_a_readonly_stick():
    workdir = qemu.tempdir("baremark-stickfault-")
    image = _hybrid_image(workdir)
    qemu.write_fat_file(image, "::/baremark/baremark.cfg", "mem=off\ndisk=off\nexit=shutdown\n")
    sector = _results_first_sector(image)
    conf = os.path.join(workdir, "blkdebug.conf")
    with open(conf, "w") as f:
        for event in ("read_aio", "write_aio"):
            f.write('[inject-error]\nevent = "%s"\nerrno = "5"\nsector = "%d"\nonce = "on"\n\n' % (event, sector))

    run = _boot(workdir, "format=raw,file=blkdebug:%s:%s" % (conf, image), image)
    assert not run.timed_out and run.returncode == 0, run.serial[-3000:]
    assert run.end()["status"] == "ok", run.end()
    # Booted through the hybrid MBR's active entry (mbr.bin -> the ESP's SYSLINUX).
    assert run.records[0]["results_file"].startswith("\\baremark\\results\\bios.jsonl run 1, "), run.records[0]
    # The failed read and the failed write were tried again after a reset.
    notes = [r["message"] for r in run.of_type("log") if r["where"] == "int13" and "tried again" in r["message"]]
    assert notes and any("status" in m for m in notes), [r for r in run.of_type("log")]
    assert not [r for r in run.of_type("log") if r["where"] == "stick" and "could not be written" in r["message"]]
    records, _ = _file_records(image)
    assert records == run.records, (len(records), len(run.records))

    # The same stick, read-only: nothing written, the run goes on, a record says why.
    ro = _boot(workdir, "format=raw,readonly=on,file=" + image, image)
    assert not ro.timed_out and ro.returncode == 0, ro.serial[-3000:]
    assert ro.end()["status"] == "ok", ro.end()
    gave_up = [r["message"] for r in ro.of_type("log") if r["where"] == "stick" and "could not be written" in r["message"]]
    assert gave_up and "3 tries" in gave_up[0], [r for r in ro.of_type("log")]
    assert [r for r in ro.of_type("log") if r["where"] == "stick" and "INT 13h write of" in r["message"]]
    again, _ = _file_records(image)
    assert again == records, "the read-only stick changed"


def test_bios_stick_emulated_as_a_floppy_reads_its_cfg_and_keeps_results():
    """A stick a BIOS emulates as a floppy (drive 00h, no EDD): here a
    2.88 MB FAT12 floppy with SYSLINUX on QEMU's i440fx floppy controller.
    SYSLINUX boots it, baremark finds it among the floppy drives (the one
    holding bios.jsonl), reads its baremark.cfg and writes its records into
    bios.jsonl through CHS (AH=02h/03h with the AH=08h geometry)."""
    workdir = qemu.tempdir("baremark-floppy-")
    fd = os.path.join(workdir, "fd.img")
    subprocess.run(["mkfs.fat", "-C", fd, "2880"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["syslinux", "--install", fd], check=True)
    cfg = os.path.join(workdir, "syslinux.cfg")
    with open(cfg, "w") as f:
        f.write("DEFAULT baremark\nPROMPT 0\nTIMEOUT 0\nLABEL baremark\n  LINUX /baremark.bin\n")
    jsonl = os.path.join(workdir, "bios.jsonl")
    with open(jsonl, "w") as f:
        f.write(" " * (512 * 1024 - 1) + "\n")
    bcfg = os.path.join(workdir, "baremark.cfg")
    with open(bcfg, "w") as f:
        f.write("mem=off\ndisk=quick\ntime=100ms\nwarmup=50ms\nexit=shutdown\n")  # the checks are the CHS path, not figures
    for args in (["mcopy", "-i", fd, cfg, "::/syslinux.cfg"],
                 ["mcopy", "-i", fd, os.path.join(qemu.BUILD, "baremark.bin"), "::/baremark.bin"],
                 ["mmd", "-i", fd, "::/baremark", "::/baremark/results"],
                 ["mcopy", "-i", fd, jsonl, "::/baremark/results/bios.jsonl"],
                 ["mcopy", "-i", fd, bcfg, "::/baremark/baremark.cfg"]):
        subprocess.run(args, check=True)
    serial = os.path.join(workdir, "serial.log")
    cmd = ["qemu-system-x86_64", "-machine", "pc", "-m", "512", "-smp", "1", "-cpu", "max",
           "-serial", "file:" + serial, "-display", "none", "-net", "none", "-no-reboot",
           "-drive", "if=floppy,index=0,format=raw,file=" + fd, "-boot", "a"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timed_out = qemu.wait_for_qemu(proc, serial, 120, end_grace=15)
    text = qemu.read_text(serial)
    run = qemu.Run(text, qemu.parse_records(text), proc.returncode, timed_out, 0, workdir, fd)
    assert not run.timed_out and run.returncode == 0, run.serial[-3000:]
    assert run.records[0]["config_files"] == ["baremark.cfg"], run.records[0]
    assert run.records[0]["results_file"].startswith("\\baremark\\results\\bios.jsonl run 1, "), run.records[0]
    assert run.end()["status"] == "ok", run.end()
    # Drive 00h, through CHS, and the boot disk (never written).
    drives = [r["message"] for r in run.of_type("log") if r["where"] == "int13" and r["message"].startswith("INT 13h drive 00h")]
    assert drives and "no EDD: CHS 80 cylinders, 2 heads, 36 sectors" in drives[0], [r for r in run.of_type("log")]
    stick = [r["message"] for r in run.of_type("log") if r["where"] == "stick"]
    assert stick and stick[0].startswith("booted from INT 13h drive 00h"), stick
    text = subprocess.run(["mtype", "-i", fd, BIOS_RESULTS], check=True, stdout=subprocess.PIPE).stdout.decode()
    records = [json.loads(line) for line in text.split("\n") if line.strip()]
    assert records == run.records, (len(records), len(run.records))
