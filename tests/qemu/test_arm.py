"""AArch64: the one stick's BOOTAA64.EFI on QEMU virt + AAVMF (Debian
qemu-efi-aarch64), TCG, a Cortex-A57 (docs/arm.md).

ONE boot, shared by every test below: an NVMe, an AHCI (ich9-ahci on the
virt PCIe bus), a megasas and an mptsas disk, each measured by the native
driver; the memory benchmark; the records through the PL011 that the
firmware's SPCR names (serial=auto); the results screen (screen_dump=1) and
the end record; the results file and HTML report on the stick; the second
core started through PSCI (AAVMF has no MP services) for the memory records
on 2 CPUs. time=100ms warmup=50ms: every disk check is that the driver measured
something (iops > 0), not how much.
"""
import re

import marks
import qemu

DISKS = {"ARMNV0": "nvme", "ARMSATA0": "ahci", "ARMMEGA0": "megasas", "ARMMPT0": "mpt"}
QUICK_TESTS = ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"]


def _drive(drive_id):
    # A 1 GiB disk that reads zeros, no file: only the drivers' path is measured.
    return "driver=null-co,size=1G,read-zeroes=on,if=none,id=" + drive_id


def arm_run():
    return marks.shared_boot(
        arch="aarch64",
        options="mem=quick mem_max=1M disk=quick time=100ms warmup=50ms driver=native exit=shutdown screen_dump=1 "
                "disks=" + ",".join(DISKS),
        drives=tuple(_drive(d) for d in ("nv", "sa", "mg", "mp")),
        devices=("nvme,drive=nv,serial=ARMNV0",
                 "ich9-ahci,id=ahci", "ide-hd,bus=ahci.0,drive=sa,serial=ARMSATA0",
                 "megasas,id=mega", "scsi-hd,bus=mega.0,drive=mg,serial=ARMMEGA0",
                 "mptsas1068,id=mpt", "scsi-hd,bus=mpt.0,drive=mp,serial=ARMMPT0"),
        timeout=240)


def test_arm_boots_to_the_end_record_with_records_on_the_spcr_pl011():
    run = arm_run()
    assert not run.timed_out, run.serial[-3000:]
    assert run.end()["status"] == "ok", (run.end(), run.of_type("error"))
    serial = run.one("run")["serial"]
    # QEMU virt's SPCR: interface type 0x03 (PL011) at 0x9000000.
    assert serial["source"] == "spcr" and serial["port"] == "pl011:0x9000000", serial
    assert "PL011" in serial["detail"], serial


def test_arm_system_record_from_midr_clidr_and_the_generic_timer():
    s = arm_run().one("system")
    assert s["cpu"].startswith("ARM Cortex-A57"), s["cpu"]
    assert s["cpu_vendor"] == "ARM"
    # CNTFRQ_EL0 (62.5 MHz on QEMU virt), checked against Stall().
    assert s["clock_source"] == "cntfrq" and s["tsc_hz"] == 62500000, (s["clock_source"], s["tsc_hz"])
    # QEMU's Cortex-A57 CCSIDR values: 32 KiB L1D, 48 KiB L1I, 2 MiB L2, 64-byte lines.
    assert (s["l1d_bytes"], s["l1i_bytes"], s["l2_bytes"], s["cache_line_bytes"]) == (32768, 49152, 2097152, 64), s


def test_arm_four_controllers_measured_natively():
    run = arm_run()
    disks = {d["serial"]: d for d in run.of_type("disk") if d["serial"] in DISKS}
    assert sorted(disks) == sorted(DISKS), [(d["id"], d["serial"]) for d in run.of_type("disk")]
    for serial, driver in DISKS.items():
        d = disks[serial]
        assert d["driver"] == driver and d["path"] == "native", d
        done = {r["test"] for r in run.of_type("disk_result") if r["disk"] == d["id"] and r.get("iops", 0) > 0}
        assert set(QUICK_TESTS) <= done, (d["id"], done)


def test_arm_memory_records():
    run = arm_run()
    info = run.one("mem_info")
    assert run.of_type("mem_latency") and run.of_type("mem_bandwidth"), [r["type"] for r in run.records][:40]
    assert all(r["ns"] > 0 for r in run.of_type("mem_latency"))
    # Debian 12's AAVMF has no EFI MP services protocol: the second core is
    # started through PSCI CPU_ON (said on the console) and runs its share.
    assert "no EFI MP services protocol: 1 more core started through PSCI CPU_ON" in run.serial, run.serial[:3000]
    assert run.one("system")["cpus"] == 2 and info["cpus"] == 2, info
    both = [r for r in run.of_type("mem_bandwidth") if r["threads"] == 2]
    assert {r["op"] for r in both} == {"read", "write", "copy"} and all(r["gbps"] > 0 for r in both), both
    # exit=shutdown after the cores were turned off again (PSCI CPU_OFF): QEMU powered off by itself.
    assert run.returncode == 0, run.returncode


def test_arm_results_screen_file_and_report_on_the_stick():
    run = arm_run()
    grid = run.one("screen")
    text = "\n".join(grid["lines"])
    assert "Status  finished: ok, 0 errors" in text, text
    for row in (r"nvme\d+n1 +QEMU NVMe Ctrl", r"ahci\d+p0 +QEMU HARDDISK", r"megasas\d+d0 +QEMU", r"mpt\d+t0 +QEMU"):
        assert re.search(r"(?m)^ " + row, text), (row, text)
    assert " CPU     ARM Cortex-A57" in text, text
    names = sorted(run.results_files())
    assert len(names) == 2 and names[1].endswith(".jsonl") and names[0].endswith(".html"), names
    assert run.read_file("::/baremark/results/" + names[0]).rstrip().endswith("</html>")
