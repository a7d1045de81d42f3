"""Legacy BIOS boot: build/baremark.bin (`make bios`, a Linux x86 boot
protocol image) started by QEMU's -kernel under its default SeaBIOS, which
loads it the way SYSLINUX, GRUB and iPXE do, prints the same records on
serial as the UEFI build."""
import os
import subprocess
import time

import marks
import qemu

BIN = os.path.join(qemu.BUILD, "baremark.bin")


def boot_bios(options, timeout=180, smp=2, on_serial=None, memory="1024", extra_args=(), no_reboot=True, com2=False,
              binary=None):
    """Boot baremark.bin with this command line; stop QEMU a few seconds
    after the end record unless it powered off by itself. on_serial(text,
    monitor_socket) is called with the serial log so far twice a second;
    returning True stops QEMU. com2: a second UART (COM2 at 0x2f8), its
    output in workdir/com2.log. binary: another image than
    build/baremark.bin (the test-hooks build)."""
    binary = binary or BIN
    assert os.path.exists(binary), "%s is missing: run `make bios`" % binary
    workdir = qemu.tempdir("baremark-bios-")
    serial = os.path.join(workdir, "serial.log")
    monitor = os.path.join(workdir, "monitor.sock")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-m", memory, "-smp", str(smp), "-cpu", "max",
           "-kernel", binary, "-append", options, "-serial", "file:" + serial, "-display", "none",
           "-monitor", "unix:%s,server,nowait" % monitor, "-net", "none"] + (["-no-reboot"] if no_reboot else []) + list(extra_args)
    if com2:
        cmd[cmd.index("file:" + serial) + 1:cmd.index("file:" + serial) + 1] = ["-serial", "file:" + os.path.join(workdir, "com2.log")]
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # Without -no-reboot the machine resets after its end record: the
    # caller's on_serial decides when it has seen enough.
    timed_out = qemu.wait_for_qemu(proc, serial, timeout,
                                   on_text=(lambda text: on_serial(text, monitor)) if on_serial else None,
                                   end_grace=5 if no_reboot else None)
    text = qemu.read_text(serial)
    return qemu.Run(text, qemu.parse_records(text), proc.returncode, timed_out, time.time() - t0, workdir, None)



# mem_max=1M (as test_mem's runs): the checks are which records there are
# and their fields, not figures; a default quick run would build a 256 MiB
# chase chain and 64 MiB buffers under TCG first.
QUICK_OPTIONS = "mem=quick mem_max=1M disk=off exit=shutdown"


@marks.once
def _quick_run():
    return boot_bios(QUICK_OPTIONS, com2=True)


def _uefi_quick_run():
    # test_mem's -smp 2 run, the same boot: its memory records are checked
    # there, their fields against the BIOS build's here.
    from test_mem import UEFI_QUICK
    return marks.shared_boot(**UEFI_QUICK)


def test_bios_boot_prints_run_system_memory_and_end_records():
    run = _quick_run()
    assert not run.timed_out, run.serial[-2000:]
    types = [r["type"] for r in run.records]
    assert types[0] == "run" and types[-1] == "end", types
    assert run.one("run")["args"] == "baremark " + QUICK_OPTIONS
    system = run.one("system")
    assert system["clock_source"] in ("pit", "pit+pmtimer", "pmtimer") and system["tsc_hz"] > 0, system
    # SMBIOS was found by its anchor scan: QEMU's DIMM is listed
    assert run.of_type("dimm"), types
    # PCI through CF8/CFC: the q35 SATA controller is listed
    assert run.of_type("pci"), types
    assert run.of_type("mem_info") and run.of_type("mem_latency") and run.of_type("mem_bandwidth"), types
    # -smp 2: the application processor was started (test_bios_smp.py has more)
    assert run.one("mem_info")["cpus"] == 2
    assert [r for r in run.of_type("log") if r.get("where") == "cpus"] == [], run.of_type("log")
    end = run.end()
    assert end["status"] == "ok" and end["errors"] == 0, end


def test_bios_clock_mtrr_tsc_records_and_com2():
    """Issue 28 points 5, 6 and 8 on SeaBIOS: the TSC calibration (three
    PIT windows, the ACPI PM timer of the q35 FADT as reference), the MTRR
    coverage of RAM (SeaBIOS: write-back by default, the PCI window UC) and
    the AP's TSC against the boot CPU's are log records; with no SPCR, COM2
    (QEMU's second -serial) answers its scratch register and gets every
    record COM1 gets."""
    run = _quick_run()
    assert not run.timed_out, run.serial[-2000:]
    logs = {r["where"]: r["message"] for r in run.of_type("log") if r.get("where") in ("clock", "mtrr", "tsc")}
    assert set(logs) == {"clock", "mtrr", "tsc"}, run.of_type("log")
    assert "PIT windows:" in logs["clock"] and "ACPI PM timer" in logs["clock"], logs["clock"]
    system = run.one("system")
    tenths = (system["tsc_hz"] + 50000) // 100000
    assert ("TSC %d.%d MHz" % (tenths // 10, tenths % 10)) in logs["clock"], (logs["clock"], system["tsc_hz"])
    assert "of RAM above 1 MiB is write-back" in logs["mtrr"] and "default WB" in logs["mtrr"], logs["mtrr"]
    assert "agree with the boot CPU's" in logs["tsc"], logs["tsc"]
    serial = run.one("run")["serial"]
    assert serial["port"] == "0x3f8" and serial["also"] == "0x2f8", serial
    com2 = qemu.read_text(os.path.join(run.workdir, "com2.log"))
    assert qemu.parse_records(com2) == run.records, com2[-2000:]


def test_bios_exit_shutdown_powers_off():
    run = _quick_run()
    assert not run.timed_out
    assert run.returncode == 0, "QEMU should have powered off by itself (ACPI S5), got %r" % run.returncode


def test_bios_no_results_file_is_a_note():
    run = _quick_run()
    notes = [r for r in run.of_type("note") if r.get("where") == "results_file"]
    assert notes, run.records[:5]
    assert not any(r.get("where") == "results_file" for r in run.of_type("error"))


def test_bios_bad_option_gives_error_record():
    run = boot_bios("mem=off disk=sometimes", timeout=120)
    assert not run.timed_out, run.serial[-2000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == "options", errors
    assert "'disk'" in errors[0]["message"] and "'sometimes'" in errors[0]["message"], errors
    assert run.of_type("system") == [], "nothing may run after a bad option"
    end = run.end()
    assert end["status"] == "error" and "bad options" in end["note"], end


def test_bios_loader_words_are_not_options():
    """SYSLINUX and GRUB put BOOT_IMAGE= (and initrd=) first; they are the
    loader's, not baremark's."""
    run = boot_bios("BOOT_IMAGE=/baremark.bin mem=off disk=off exit=shutdown", timeout=120)
    assert not run.timed_out, run.serial[-2000:]
    assert run.one("run")["args"] == "baremark mem=off disk=off exit=shutdown"
    assert run.end()["status"] == "ok", run.end()


def _fields(run):
    out = {}
    for r in run.records:
        out.setdefault(r["type"], set()).update(r.keys())
    return out


def test_bios_records_have_the_uefi_records_fields():
    bios = _quick_run()
    uefi = _uefi_quick_run()
    assert not bios.timed_out and not uefi.timed_out
    bf, uf = _fields(bios), _fields(uefi)
    assert set(bf) - set(uf) <= {"log", "note"}, "record types only the BIOS build has: %r" % (set(bf) - set(uf))
    for t in ("run", "system", "dimm", "dimm_summary", "pci", "mem_info", "mem_latency", "mem_bandwidth", "end"):
        assert t in bf, "BIOS run lacks %s" % t
        assert bf[t] == uf[t], "%s: only BIOS %r, only UEFI %r" % (t, bf[t] - uf[t], uf[t] - bf[t])


def test_bios_cpu_exception_becomes_error_record_and_stop():
    """An NMI injected through the QEMU monitor goes through the IDT like any
    exception: an error record naming it, then a halt (no triple fault, so
    no reset: QEMU with -no-reboot would exit)."""
    state = {"sent": 0.0}

    def inject(text, monitor):
        if '"type":"run"' in text and not state["sent"]:
            qemu.monitor_command(monitor, "nmi")
            state["sent"] = time.time()
        return bool(state["sent"]) and ('"where":"cpu"' in text or time.time() - state["sent"] > 20) and \
            time.time() - state["sent"] > 3

    run = boot_bios("mem=quick disk=off exit=shutdown", timeout=120, on_serial=inject)
    assert state["sent"], run.serial[-2000:]
    assert run.returncode == -9, "QEMU must still be running (halted), not reset or powered off: %r" % run.returncode
    errors = [r for r in run.of_type("error") if r["where"] == "cpu"]
    assert len(errors) == 1, run.records[-5:]
    assert "CPU exception 2 (NMI)" in errors[0]["message"] and "rip 0x" in errors[0]["message"], errors
    assert run.of_type("end") == [], "nothing runs after the exception"


def test_bios_esc_from_the_i8042_stops_the_run():
    """Esc on the PS/2 keyboard (QEMU sendkey) during the latency sweep ends
    the run with the abort note and powers off (exit=shutdown)."""
    state = {"sent": 0.0}

    def press(text, monitor):
        if '"pattern":"full_random"' in text and not state["sent"]:
            qemu.monitor_command(monitor, "sendkey esc")
            state["sent"] = time.time()
        return False

    run = boot_bios("mem=quick disk=off mem_max=64M exit=shutdown", timeout=120, on_serial=press)
    assert state["sent"], "the sweep never started: " + run.serial[-2000:]
    end = run.end()
    assert end["status"] == "error" and "Esc" in end.get("note", ""), end
    assert run.of_type("mem_bandwidth") == []
    assert run.returncode == 0


def test_bios_esc_from_the_serial_console_stops_the_run():
    """Esc typed on COM2 (a BMC's Serial over LAN console, here a socket
    behind QEMU's second -serial) during the latency sweep ends the run as
    Esc on the keyboard does."""
    import socket
    state = {"sent": 0.0}
    sock_path = os.path.join(qemu.tempdir("baremark-bios-sol-"), "com2.sock")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def type_esc(text, monitor):
        if '"pattern":"full_random"' in text and not state["sent"]:
            conn.connect(sock_path)
            conn.sendall(b"\x1b")
            state["sent"] = time.time()
        return False

    try:
        run = boot_bios("mem=quick disk=off mem_max=64M exit=shutdown", timeout=120, on_serial=type_esc,
                        extra_args=["-chardev", "socket,id=sol,path=%s,server=on,wait=off" % sock_path,
                                    "-serial", "chardev:sol"])
    finally:
        conn.close()
    assert state["sent"], "the sweep never started: " + run.serial[-2000:]
    assert run.one("run")["serial"]["also"] == "0x2f8", run.one("run")["serial"]
    end = run.end()
    assert end["status"] == "error" and "Esc" in end.get("note", ""), end
    assert run.of_type("mem_bandwidth") == []


def test_bios_ram_above_4g_is_mapped_and_used():
    """6 GiB in two NUMA nodes: q35 puts node 1 wholly above 4 GiB, where
    head_bios.S maps nothing; the memory map built from E820 must let the
    NUMA matrix place and read a buffer there."""
    numa = ["-object", "memory-backend-ram,id=m0,size=3G", "-object", "memory-backend-ram,id=m1,size=3G",
            "-numa", "node,nodeid=0,cpus=0,memdev=m0", "-numa", "node,nodeid=1,cpus=1,memdev=m1"]
    run = boot_bios("mem=quick disk=off exit=shutdown", timeout=180, memory="6G", extra_args=numa)
    assert not run.timed_out, run.serial[-2000:]
    assert run.of_type("error") == [], run.of_type("error")
    to_high = [r for r in run.of_type("mem_numa") if r["to_node"] == 1]
    assert to_high and to_high[0]["latency_ns"] > 0, run.of_type("mem_numa")
    assert run.end()["status"] == "ok", run.end()


def _fat_disk_with_bin(workdir, extra_files=()):
    """A 16 MiB FAT disk (no partition table) holding baremark.bin."""
    img = os.path.join(workdir, "disk.img")
    subprocess.run(["mkfs.vfat", "-C", img, "16384"], check=True, capture_output=True)
    subprocess.run(["mcopy", "-i", img, BIN] + list(extra_files) + ["::"], check=True, capture_output=True)
    return img


def _boot_to_end(args):
    """Run QEMU (q35, SeaBIOS) with these extra arguments until it powers
    off; its serial records and exit status."""
    workdir = qemu.tempdir("baremark-loader-")
    serial = os.path.join(workdir, "serial.log")
    p = subprocess.run(["qemu-system-x86_64", "-machine", "q35", "-m", "1024", "-cpu", "max",
                        "-serial", "file:" + serial, "-display", "none", "-monitor", "none", "-net", "none",
                        "-no-reboot"] + args, capture_output=True, timeout=150)
    records = qemu.parse_records(qemu.read_text(serial))
    assert records and records[0]["type"] == "run", qemu.read_text(serial)[-2000:]
    return records, p.returncode


def test_bios_syslinux_loads_it_with_options():
    """The real loader path: a FAT disk with SYSLINUX (Debian's syslinux)
    whose LINUX entry loads baremark.bin with APPEND options (SYSLINUX adds
    BOOT_IMAGE= of its own). LINUX, not KERNEL: SYSLINUX takes a KERNEL
    ending in .bin for a boot sector."""
    workdir = qemu.tempdir("baremark-syslinux-")
    cfg = os.path.join(workdir, "syslinux.cfg")
    with open(cfg, "w") as f:
        f.write("DEFAULT baremark\nPROMPT 0\nTIMEOUT 0\nLABEL baremark\n  LINUX baremark.bin\n"
                "  APPEND mem=off disk=off exit=shutdown\n")
    img = _fat_disk_with_bin(workdir, [cfg])
    subprocess.run(["syslinux", "--install", img], check=True, capture_output=True)
    records, rc = _boot_to_end(["-drive", "file=%s,format=raw,if=ide" % img])
    assert records[0]["args"] == "baremark mem=off disk=off exit=shutdown", records[0]
    assert records[-1]["type"] == "end" and records[-1]["status"] == "ok", records[-1]
    assert rc == 0


def test_bios_grub_linux_uses_the_32bit_entry():
    """GRUB i386-pc (Debian's grub-pc-bin) `linux` starts baremark.bin
    through the 32-bit boot protocol: code32_start with its own zero page and
    E820 map, our real-mode setup skipped. GRUB's core image is started with
    -kernel through its lnxboot.img and reads baremark.bin from a FAT disk."""
    workdir = qemu.tempdir("baremark-grub-")
    img = _fat_disk_with_bin(workdir)
    early = os.path.join(workdir, "early.cfg")
    with open(early, "w") as f:
        f.write("set root=(hd0)\nlinux /baremark.bin mem=off disk=off exit=shutdown\nboot\n")
    core = os.path.join(workdir, "core.img")
    subprocess.run(["grub-mkimage", "-O", "i386-pc", "-o", core, "-p", "(hd0)/", "-c", early,
                    "biosdisk", "fat", "linux", "boot"], check=True, capture_output=True)
    grub = os.path.join(workdir, "grub.bin")
    with open(grub, "wb") as out:
        for part in ("/usr/lib/grub/i386-pc/lnxboot.img", core):
            with open(part, "rb") as f:
                out.write(f.read())
    records, rc = _boot_to_end(["-kernel", grub, "-drive", "file=%s,format=raw,if=ide" % img])
    assert records[0]["args"] == "baremark mem=off disk=off exit=shutdown", records[0]
    assert records[-1]["type"] == "end" and records[-1]["status"] == "ok", records[-1]
    assert rc == 0


def test_bios_pxe_through_ipxe_with_options():
    """SeaBIOS network boot: the NIC's iPXE ROM gets boot/baremark-bios.ipxe
    by DHCP/TFTP (QEMU user networking), and its `kernel` line loads
    baremark.bin with the options on that line."""
    workdir = qemu.tempdir("baremark-pxe-")
    with open(os.path.join(qemu.ROOT, "boot", "baremark-bios.ipxe")) as f:
        script = f.read()
    assert "kernel baremark.bin BOOTIF=01-${netX/mac:hexhyp} ip=${netX/ip} mem=quick disk=quick exit=shutdown" \
        in script
    with open(os.path.join(workdir, "boot.ipxe"), "w") as f:
        f.write(script.replace("mem=quick disk=quick", "mem=off disk=off"))
    subprocess.run(["cp", BIN, workdir], check=True)
    records, rc = _boot_to_end(["-netdev", "user,id=n0,tftp=%s,bootfile=boot.ipxe" % workdir,
                                "-device", "e1000,netdev=n0", "-boot", "n"])
    assert records[0]["args"] == "baremark mem=off disk=off exit=shutdown", records[0]
    # the loader words named the boot NIC (QEMU's default e1000 MAC, user networking's address)
    assert records[0]["mac"] == "52:54:00:12:34:56" and records[0]["ip"] == "10.0.2.15", records[0]
    assert records[-1]["type"] == "end" and records[-1]["status"] == "ok", records[-1]
    assert rc == 0


def test_bios_native_ahci_and_nvme_disks_are_measured():
    """The native drivers need no firmware: under SeaBIOS the q35 AHCI disk
    and an NVMe disk are found, identified and measured (read-only), and the
    INT 13h drive of the same disk is retired from the firmware path (a log
    record) once the native driver has its controller."""
    workdir = qemu.tempdir("baremark-biosdisk-")
    sata, nvme = os.path.join(workdir, "sata.img"), os.path.join(workdir, "nvme.img")
    for path in (sata, nvme):
        with open(path, "wb") as f:
            f.truncate(64 << 20)
    run = boot_bios("mem=off disk=quick time=100ms warmup=50ms exit=shutdown", timeout=240, extra_args=[
        "-drive", "if=none,id=d0,file=%s,format=raw" % sata, "-device", "ide-hd,drive=d0,bus=ide.0,serial=BIOSSATA",
        "-drive", "if=none,id=d1,file=%s,format=raw" % nvme, "-device", "nvme,drive=d1,serial=BIOSNVME"])
    assert not run.timed_out, run.serial[-2000:]
    disks = {d["serial"]: d for d in run.of_type("disk")}
    assert disks.get("BIOSSATA", {}).get("driver") == "ahci", run.of_type("disk")
    assert disks.get("BIOSNVME", {}).get("driver") == "nvme", run.of_type("disk")
    results = run.of_type("disk_result")
    for d in disks.values():
        mine = [r for r in results if r["disk"] == d["id"]]
        assert mine and all(r["ios"] > 0 and r["rw"] in ("read", "randread") for r in mine), results
    assert any(r.get("where") == "int13" and "no longer used through INT 13h" in r["message"]
               for r in run.of_type("log")), run.of_type("log")
    assert run.of_type("error") == [], run.of_type("error")
    assert run.end()["status"] == "ok"


def test_bios_write_refused_while_the_boot_disk_is_unknown():
    """On BIOS the boot drive is not known yet, so every disk counts as the
    boot disk: write=SERIAL is refused with an error record, the disk only
    read, and the image stays all zeros."""
    workdir = qemu.tempdir("baremark-bioswrite-")
    sata = os.path.join(workdir, "sata.img")
    with open(sata, "wb") as f:
        f.truncate(64 << 20)
    run = boot_bios("mem=off disk=quick time=100ms warmup=50ms write=BIOSSATA exit=shutdown", timeout=240, extra_args=[
        "-drive", "if=none,id=d0,file=%s,format=raw" % sata, "-device", "ide-hd,drive=d0,bus=ide.0,serial=BIOSSATA"])
    assert not run.timed_out, run.serial[-2000:]
    disk = run.one("disk")
    assert disk["boot"] is True and disk["writes"] is False, disk
    refused = [r for r in run.of_type("error") if r["where"] == disk["id"]]
    assert refused and "write=BIOSSATA refused" in refused[0]["message"], run.of_type("error")
    assert not [r for r in run.of_type("disk_result") if "write" in r["rw"]]
    with open(sata, "rb") as f:
        assert f.read().count(0) == 64 << 20, "the disk was written"


def test_bios_exit_reboot_resets_the_machine():
    """exit=reboot resets (CF9h): without -no-reboot the machine starts
    again and baremark prints a second run record."""
    run = boot_bios("mem=off disk=off exit=reboot", timeout=120, no_reboot=False,
                    on_serial=lambda text, monitor: text.count('"type":"run"') >= 2)
    # QEMU is stopped as soon as the second run record shows: it may be cut
    # off mid-line, so count it in the text, not among the parsed records.
    assert run.serial.count('"type":"run"') >= 2, run.serial[-2000:]
    assert run.records[0]["type"] == "run" and run.of_type("end")[0]["status"] == "ok", run.records
