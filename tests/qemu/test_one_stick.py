"""One stick for every machine: the same build/baremark.img (make image)
boots under OVMF (UEFI: GPT + FAT32 ESP, \\EFI\\BOOT\\BOOTX64.EFI) and under
QEMU's default SeaBIOS (legacy BIOS: SYSLINUX's gptmbr.bin, the ESP's
SYSLINUX, LINUX /baremark/baremark.bin), as a USB stick (qemu-xhci +
usb-storage) or a SATA disk (q35's ICH9 AHCI). On BIOS, baremark reads the
stick through INT 13h: its baremark.cfg, and its preallocated
\\baremark\\results\\bios.jsonl and bios.html, which it fills with the
records and the HTML report."""
import json
import os
import shutil
import subprocess
import time

import marks
import qemu

BIOS_RESULTS = "::/baremark/results/bios.jsonl"
BIOS_REPORT = "::/baremark/results/bios.html"


def boot_stick_bios(cfg, on="usb", devices=(), drives=(), timeout=200, on_serial=None, stick=None):
    """Boot a copy of build/baremark.img (or the stick given, again) under
    SeaBIOS with this baremark.cfg, on USB or SATA; wait for the power-off
    (exit=shutdown) or the end record. on_serial(text, monitor_socket) sees
    the serial log twice a second. Returns a qemu.Run (run.stick = the
    copy)."""
    workdir = qemu.tempdir("baremark-onestick-")
    if stick is None:
        stick = os.path.join(workdir, "stick.img")
        shutil.copyfile(qemu.IMAGE, stick)
    qemu.write_fat_file(stick, "::/baremark/baremark.cfg", cfg)
    serial = os.path.join(workdir, "serial.log")
    monitor = os.path.join(workdir, "monitor.sock")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-m", "1024", "-smp", "2", "-cpu", "max",
           "-serial", "file:" + serial, "-display", "none", "-monitor", "unix:%s,server,nowait" % monitor,
           "-net", "none", "-no-reboot",
           "-drive", "if=none,id=stick,format=raw,file=" + stick]
    if on == "usb":
        cmd += ["-device", "qemu-xhci,id=xhci", "-device", "usb-storage,bus=xhci.0,drive=stick,removable=on,bootindex=0"]
    else:
        cmd += ["-device", "ide-hd,drive=stick,bus=ide.0,bootindex=0"]
    for d in drives:
        cmd += ["-drive", d]
    for d in devices:
        cmd += ["-device", d]
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timed_out = qemu.wait_for_qemu(proc, serial, timeout, end_grace=15,
                                   on_text=(lambda text: on_serial(text, monitor)) if on_serial else None)
    text = qemu.read_text(serial)
    return qemu.Run(text, qemu.parse_records(text), proc.returncode, timed_out, time.time() - t0, workdir, stick)


def _bios_jsonl(run):
    """bios.jsonl read back from the stick with mtools: its records, and
    what follows them (must be blanks and the final newline)."""
    text = qemu.read_fat_file(run.stick, BIOS_RESULTS)
    lines = text.split("\n")
    records, rest = [], []
    for i, line in enumerate(lines):
        if line.strip():
            assert not rest, "a record after the blank part: %r" % line[:80]
            records.append(json.loads(line))
        else:
            rest.append(line)
    return records, text


def _bios_html(run):
    """bios.html read back from the stick: the page, and what follows it
    (blanks and the final newline only)."""
    text = qemu.read_fat_file(run.stick, BIOS_REPORT)
    end = text.find("</html>")
    assert end > 0, text[:200]
    assert text[end + len("</html>"):].strip() == "", "something after the page"
    assert len(text.encode()) == 1024 * 1024 and text.endswith(" \n"), len(text.encode())  # UTF-8 (µ, –)
    return text[:end + len("</html>")]


def _disk(run, disk_id):
    return [d for d in run.of_type("disk") if d["id"] == disk_id][0]


def test_one_stick_boots_under_ovmf_as_before():
    """UEFI side of the one image: BOOTX64.EFI from the ESP, the records in
    a results .jsonl beside bios.jsonl and bios.html, which stay blank."""
    run = marks.shared_boot(options="mem=off disk=off exit=shutdown", timeout=180)  # as test_foundation's
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.end()
    files = qemu.list_dir(run.stick, "::/baremark/results")
    assert "bios.jsonl" in files and any(f.endswith(".jsonl") and f != "bios.jsonl" for f in files), files
    assert qemu.read_fat_file(run.stick, BIOS_RESULTS).strip() == ""
    assert qemu.read_fat_file(run.stick, BIOS_REPORT).strip() == ""


def test_one_stick_usb_bios_cfg_results_file_firmware_disk_and_write():
    """SeaBIOS, the stick on USB: the stick's baremark.cfg takes effect
    (mem=off: no memory records; exit=shutdown: QEMU powers off by itself);
    the stick is an INT 13h firmware disk, the boot disk, never written;
    write=SERIAL on an NVMe disk is allowed now that the boot disk is known;
    bios.jsonl on the stick holds exactly the serial records, then blanks."""
    wd = qemu.tempdir("baremark-onestick-nvme-")
    # The stick's size: same capacity, but another sector 1 (no GPT), so not the stick.
    nvme = qemu.make_disk(os.path.join(wd, "nvme.img"), 64)
    run = boot_stick_bios("mem=off\ndisk=quick\ntime=100ms\nwarmup=50ms\nexit=shutdown\nwrite=BMW1\nscreen_dump=1\n",
                          drives=["if=none,id=nv,format=raw,file=" + nvme],
                          devices=["nvme,drive=nv,serial=BMW1"])
    assert not run.timed_out, run.serial[-3000:]
    assert run.returncode == 0
    run_rec = run.records[0]
    assert run_rec["type"] == "run" and run_rec["config_files"] == ["baremark.cfg"], run_rec
    types = [r["type"] for r in run.records]
    assert "mem_bandwidth" not in types and "mem_latency" not in types, types
    assert run.end()["status"] == "ok" and run.end()["errors"] == 0, [r for r in run.records if r["type"] == "error"]
    stick = [d for d in run.of_type("disk") if d["driver"] == "int13"]
    assert len(stick) == 1 and stick[0]["path"] == "firmware", run.of_type("disk")
    assert stick[0]["boot"] is True and stick[0]["writes"] is False, stick[0]
    assert not [r for r in run.of_type("disk_result") if r["disk"] == stick[0]["id"] and r["rw"] in ("write", "randwrite")]
    assert any(r["disk"] == stick[0]["id"] for r in run.of_type("disk_result")), "the stick was not measured"
    nv = [d for d in run.of_type("disk") if d["driver"] == "nvme"][0]
    assert nv["boot"] is False and nv["writes"] is True, nv
    assert any(r["disk"] == nv["id"] and "write" in r["rw"] for r in run.of_type("disk_result"))
    logs = [r["message"] for r in run.of_type("log") if r["where"] == "stick"]
    assert logs and logs[0].startswith("booted from INT 13h drive 80h"), logs
    records, text = _bios_jsonl(run)
    assert records == run.records
    assert len(text) == 4 * 1024 * 1024 and text.endswith(" \n"), len(text)
    # The HTML report in the preallocated bios.html, named on serial; the
    # screen's last line names the files as they are on the stick.
    page = _bios_html(run)
    assert page.lstrip().lower().startswith("<!doctype html"), page[:80]
    assert "BMW1" in page and "RND4K-Q32T1" in page, "the NVMe disk's results are not on the page"
    assert "report \\baremark\\results\\bios.html (end of run)" in run.serial, run.serial[-2000:]
    assert "bios.jsonl" in page, "the footer does not name the records file as it is on the stick"
    lines = run.one("screen")["lines"]
    assert lines[-2].startswith(" Results: \\baremark\\results\\bios.jsonl run 1, 3.9 MiB left ("), lines[-3:]

    # A second run on the same stick (the next machine of a rack): bios.jsonl
    # keeps the first run's records and has the second's after them; the run
    # record and the screen say which run it is and how much room is left;
    # the page is the second run's own.
    assert run_rec["results_file"].startswith("\\baremark\\results\\bios.jsonl run 1, "), run_rec
    again = boot_stick_bios("mem=off\ndisk=off\nexit=shutdown\n", stick=run.stick)
    assert not again.timed_out and again.returncode == 0, again.serial[-2000:]
    records, text = _bios_jsonl(again)
    assert records == run.records + again.records, (len(records), len(run.records), len(again.records))
    assert len(text) == 4 * 1024 * 1024 and text.endswith(" \n"), len(text)
    stored = again.records[0]["results_file"]
    assert stored.startswith("\\baremark\\results\\bios.jsonl run 2, ") and "MiB left (" in stored, stored
    name = stored.split("(")[1].split(")")[0]
    assert name.endswith(".jsonl") and name != run_rec["results_file"].split("(")[1].split(")")[0], (name, run_rec)
    page = _bios_html(again)
    assert "RND4K-Q32T1" not in page, "the first run's results are still on the page"


def test_one_stick_sata_bios_boots_and_refuses_writes_to_the_stick():
    """SeaBIOS, the stick on q35's AHCI: boots the same way; SeaBIOS gives
    no EDD PCI path, so the native AHCI driver takes the controller and the
    INT 13h drive is retired (said in a log record), and the native disk of
    the stick's capacity counts as the boot disk: write=its serial is
    refused."""
    run = boot_stick_bios("mem=off\ndisk=quick\ntime=100ms\nwarmup=50ms\nexit=shutdown\nwrite=QM00001\n", on="sata")
    assert not run.timed_out, run.serial[-3000:]
    assert run.returncode == 0
    assert run.records[0]["type"] == "run" and run.records[-1]["type"] == "end", run.serial[-2000:]
    disk = [d for d in run.of_type("disk") if d["serial"] == "QM00001"][0]
    assert disk["boot"] is True and disk["writes"] is False, disk
    assert not [r for r in run.of_type("disk_result") if "write" in r["rw"]]
    assert any("no longer used through INT 13h" in r["message"] for r in run.of_type("log")), run.of_type("log")
    # The records written before the native driver took the controller are on the stick.
    records, _ = _bios_jsonl(run)
    assert records and records == run.records[:len(records)], records[:3]


def test_one_stick_bad_option_in_cfg_gives_error_record():
    run = boot_stick_bios("mem=off\ndisk=sometimes\nexit=shutdown\n")
    assert not run.timed_out, run.serial[-3000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == "options", errors
    assert "'sometimes'" in errors[0]["message"], errors
    assert run.end()["status"] == "error", run.end()


def test_one_stick_esc_during_int13_io_stops_the_run():
    """Esc pressed while the stick is measured through INT 13h: the BIOS's
    keyboard handler (interrupts are on during the call) takes the key from
    the i8042, so baremark finds it in the BIOS keyboard buffer after the
    call: the run stops with the Esc note."""
    sent = []

    def press(text, monitor):
        if not sent and '"driver":"int13"' in text and '"type":"disk_result"' not in text:
            time.sleep(1.0)
            qemu.monitor_command(monitor, "sendkey esc")
            sent.append(1)
        return False

    run = boot_stick_bios("mem=off\ndisk=quick\ntime=5\nexit=shutdown\n", on_serial=press)
    assert sent, run.serial[-2000:]
    assert not run.timed_out, run.serial[-2000:]
    assert "aborted by Esc" in run.end().get("note", ""), run.end()


def test_bios_cfg_from_the_loaders_initrd():
    """PXE-style: no stick, the loader hands baremark.cfg over as its
    initrd (QEMU -initrd, as iPXE `initrd baremark.cfg`): it is read as the
    options file (mem=off disk=off exit=shutdown: no memory records, power-off)."""
    import test_bios
    wd = qemu.tempdir("baremark-initrd-")
    cfg = os.path.join(wd, "baremark.cfg")
    with open(cfg, "w") as f:
        f.write("mem=off\ndisk=off\nexit=shutdown\n")
    run = test_bios.boot_bios("", extra_args=["-initrd", cfg])
    assert not run.timed_out, run.serial[-2000:]
    assert run.returncode == 0
    assert run.records[0]["config_files"] == ["baremark.cfg"], run.records[0]
    assert not run.of_type("mem_latency") and run.end()["status"] == "ok", run.end()


def test_one_stick_same_records_under_seabios_and_ovmf():
    """The issue's test: one image, one machine (q35, -smp 2, the stick on
    USB and an NVMe disk), the same baremark.cfg, booted under SeaBIOS and
    under OVMF: the same record types with the same fields, the memory
    records on one and on all CPUs, the disk records of both disks. What may
    differ is named: diagnostics (log, note), the screen record and the
    firmware disk's UEFI device path."""
    import test_bios
    # mem_max=1M and time=100ms warmup=50ms: the same records and fields are the point, not their figures.
    cfg = "mem=quick\nmem_max=1M\ndisk=quick\ntime=100ms\nwarmup=50ms\nexit=shutdown\n"
    runs = {}
    for side in ("bios", "uefi"):
        wd = qemu.tempdir("baremark-onestick-same-")
        nvme = qemu.make_disk(os.path.join(wd, "nvme.img"), 64)
        drives, devices = ["if=none,id=nv,format=raw,file=" + nvme], ["nvme,drive=nv,serial=SAME1"]
        if side == "bios":
            runs[side] = boot_stick_bios(cfg, drives=drives, devices=devices, timeout=400)
        else:
            runs[side] = qemu.boot(cfg=cfg, drives=drives, devices=devices, timeout=400)
        assert not runs[side].timed_out, (side, runs[side].serial[-3000:])
        assert runs[side].end()["status"] == "ok", (side, [r for r in runs[side].records if r["type"] == "error"])
    bf, uf = test_bios._fields(runs["bios"]), test_bios._fields(runs["uefi"])
    optional = {"log", "note", "screen"}
    assert set(bf) - optional == set(uf) - optional, (set(bf) ^ set(uf))
    # A firmware disk's UEFI device path: a BIOS has none to give.
    uefi_only = {"disk": {"device_path"}}
    for t in set(bf) - optional:
        assert bf[t] == uf[t] - uefi_only.get(t, set()), \
            "%s: only BIOS %r, only UEFI %r" % (t, bf[t] - uf[t], uf[t] - bf[t])
    for side, run in runs.items():
        bw = run.of_type("mem_bandwidth")
        assert {b["threads"] for b in bw} >= {1, 2}, (side, [(b["op"], b["threads"]) for b in bw])
        drivers = {d["driver"] for d in run.of_type("disk")}
        assert "nvme" in drivers and len(run.of_type("disk")) == 2, (side, run.of_type("disk"))
        assert {r["disk"] for r in run.of_type("disk_result")} == {d["id"] for d in run.of_type("disk")}, side
