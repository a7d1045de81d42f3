"""The other CPUs on the BIOS build: application processors started with
INIT-SIPI-SIPI from the ACPI MADT (efi/bios/cpus_bios.c) under SeaBIOS, so
the memory engine's all-CPU bandwidth, loaded latency and NUMA matrix and
the disk engine's multi-CPU jobs run as they do under UEFI, with records of
the same fields. An AP that never checks in is covered by the unit test
test_ap_start (QEMU cannot make a listed CPU that does not start)."""
import os

import marks
import qemu
from test_bios import boot_bios, _fields
from test_mem import check_common

OPTIONS = "mem=quick mem_max=1M disk=off exit=shutdown"
DISK_OPTIONS = "mem=quick mem_max=1M disk=quick time=100ms warmup=50ms driver=native exit=shutdown"
NUMA_2CPU = ["-object", "memory-backend-ram,id=m0,size=512M", "-object", "memory-backend-ram,id=m1,size=512M",
             "-numa", "node,nodeid=0,cpus=0,memdev=m0", "-numa", "node,nodeid=1,cpus=1,memdev=m1"]


def _nvme_pair(workdir):
    """Two 64 MiB NVMe disks: their -drive and -device strings."""
    a = qemu.make_disk(os.path.join(workdir, "a.img"), 64)
    b = qemu.make_disk(os.path.join(workdir, "b.img"), 64)
    return (["file=%s,if=none,id=A,format=raw" % a, "file=%s,if=none,id=B,format=raw" % b],
            ["nvme,drive=A,serial=CPUA", "nvme,drive=B,serial=CPUB"])


@marks.once
def _smp_run(smp):
    return boot_bios(OPTIONS, smp=smp, timeout=180)


@marks.once
def _numa_disk_run(firmware):
    """-smp 2 in two NUMA nodes (one CPU each) with two NVMe disks, booted
    by SeaBIOS (-kernel) or by OVMF (the stick): the same machine."""
    drives, devices = _nvme_pair(qemu.tempdir("baremark-bios-smp-"))
    if firmware == "bios":
        extra = NUMA_2CPU + sum((["-drive", d] for d in drives), []) + sum((["-device", d] for d in devices), [])
        return boot_bios(DISK_OPTIONS, smp=2, timeout=300, extra_args=extra)
    return qemu.boot(options=DISK_OPTIONS, smp=2, timeout=400, extra_args=NUMA_2CPU, drives=drives,
                     devices=devices)


def _ok(run):
    assert not run.timed_out, run.serial[-2000:]
    assert run.of_type("error") == [], run.of_type("error")
    assert run.end()["status"] == "ok", run.end()
    # All the CPUs started: no report about the others.
    assert [r for r in run.of_type("log") if r.get("where") == "cpus"] == [], run.of_type("log")


def test_bios_smp2_memory_records_on_one_and_all_cpus():
    run = _smp_run(2)
    _ok(run)
    check_common(run.of_type, 2)


def test_bios_smp4_memory_records_on_one_and_all_cpus():
    run = _smp_run(4)
    _ok(run)
    check_common(run.of_type, 4)
    assert run.one("system")["cpus"] == 4, run.one("system")


def test_bios_numa_two_nodes_gives_per_node_records():
    run = _numa_disk_run("bios")
    _ok(run)
    numa = run.of_type("mem_numa")
    assert sorted((r["from_node"], r["to_node"]) for r in numa) == [(0, 0), (0, 1), (1, 0), (1, 1)], numa
    for r in numa:
        assert r["threads"] == 1, r  # cpus=0 and cpus=1: node 1's CPU is the AP
        assert r["latency_ns"] > 0 and r["read_gbps"] > 0, r


def test_bios_all_disks_test_runs_on_two_cpus():
    run = _numa_disk_run("bios")
    _ok(run)
    results = run.of_type("disk_result")
    agg = [r for r in results if r["disk"] == "all" and r.get("concurrent") == 2]
    assert agg, [r["test"] for r in results]
    for r in agg:
        assert r["cpus"] == 2, r  # each disk on a CPU of its own: the AP drove one
        assert len(r["cpu_busy_pct"]) == 2 and r["ios"] > 0, r


def test_bios_rnd4k_q32t16_runs_on_four_cpus():
    """disk=full's RND4K-Q32T16 cuts its 16 queue pairs over the CPUs
    (plat_cpu_start/plat_cpu_wait on the APs, as test_disk_cpus under UEFI)."""
    workdir = qemu.tempdir("baremark-bios-t16-")
    disk = qemu.make_disk(os.path.join(workdir, "a.img"), 64)
    run = boot_bios("mem=off disk=full time=100ms warmup=50ms driver=native exit=shutdown", smp=4, timeout=400,
                    extra_args=["-drive", "file=%s,if=none,id=A,format=raw" % disk, "-device", "nvme,drive=A,serial=T16"])
    _ok(run)
    t16 = [r for r in run.of_type("disk_result") if r["test"] == "RND4K-Q32T16"]
    assert len(t16) == 1 and t16[0]["threads"] == 16 and t16[0]["ios"] > 0, t16
    assert t16[0]["cpus"] == 4 and len(t16[0]["cpu_busy_pct"]) == 4, t16


def test_bios_smp_records_have_the_uefi_records_fields():
    bios, uefi = _numa_disk_run("bios"), _numa_disk_run("uefi")
    _ok(bios)
    assert not uefi.timed_out, uefi.serial[-2000:]
    bf, uf = _fields(bios), _fields(uefi)
    for t in ("mem_info", "mem_bandwidth", "mem_loaded_latency", "mem_numa", "disk", "disk_result"):
        assert t in bf and t in uf, (t, sorted(bf), sorted(uf))
        assert bf[t] == uf[t], "%s: only BIOS %r, only UEFI %r" % (t, bf[t] - uf[t], uf[t] - bf[t])


def _monitor_output(sock_path, command):
    """One human-monitor command's output (qemu.monitor_command discards it)."""
    import socket
    import time
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sock_path)
    try:
        s.recv(4096)
        s.sendall((command + "\n").encode())
        time.sleep(1)
        return s.recv(65536).decode(errors="replace")
    finally:
        s.close()


def test_bios_64bit_bar_above_4g_is_mapped_uncached_on_demand():
    """An 8 GiB 64-bit BAR (ivshmem) does not fit SeaBIOS's 32-bit window,
    so it moves every 64-bit BAR above 4 GiB, the NVMe controller's too,
    where the BIOS build's page tables (RAM only, 1 GiB here) map nothing:
    plat_pci_map_bar must map it, or the driver's first register read is a
    page fault (a `cpu` error record and a halt)."""
    seen = {}

    def look(text, monitor):
        if '"type":"run"' in text and "pci" not in seen:
            seen["pci"] = _monitor_output(monitor, "info pci")
        return False

    workdir = qemu.tempdir("baremark-bios-bar-")
    disk = qemu.make_disk(os.path.join(workdir, "a.img"), 64)
    extra = ["-drive", "file=%s,if=none,id=A,format=raw" % disk, "-device", "nvme,drive=A,serial=HIGHBAR",
             "-object", "memory-backend-ram,id=big,size=8G", "-device", "ivshmem-plain,memdev=big"]
    run = boot_bios("mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown", timeout=180, extra_args=extra,
                    on_serial=look)
    # The NVMe BAR really is above 4 GiB (info pci: "BAR0: 64 bit memory at 0x...").
    pci = seen.get("pci", "")
    nvme = pci.split("1b36:0010")[1] if "1b36:0010" in pci else ""  # QEMU's NVMe controller
    bar0 = [line for line in nvme.splitlines() if "BAR0" in line]
    assert bar0 and int(bar0[0].split(" at ")[1].split()[0].rstrip("."), 16) >= 1 << 32, pci[-3000:]
    _ok(run)
    disks = [d for d in run.of_type("disk") if d["serial"] == "HIGHBAR"]
    assert disks and disks[0]["driver"] == "nvme", run.of_type("disk")
    assert [r for r in run.of_type("disk_result") if r["disk"] == disks[0]["id"] and r["ios"] > 0]


def test_bios_acpi_off_cpus_from_the_intel_mp_table():
    """ACPI switched off (i440FX, acpi=off: no RSDP, so no MADT and no PM
    timer): the CPUs come from SeaBIOS's Intel MP table (efi/mp/mptable.c),
    which lists the first CPU of each package, so two sockets of one core
    each. The cpus record says where they came from; both run."""
    run = boot_bios("mem=quick mem_max=1M disk=off exit=shutdown", smp="2,sockets=2,cores=1", timeout=120,
                    extra_args=["-machine", "pc,acpi=off"])
    assert not run.timed_out, run.serial[-2000:]
    assert run.of_type("error") == [], run.of_type("error")
    said = [r["message"] for r in run.of_type("log") if r.get("where") == "cpus"]
    assert said == ["legacy BIOS: no usable ACPI MADT: the CPUs are the Intel MP table's (MP 1.4, 2 listed)"], said
    assert run.one("mem_info")["cpus"] == 2, run.one("mem_info")
    # No FADT: no PM timer to cross-check the TSC against, and the record says so.
    clock = [r["message"] for r in run.of_type("log") if r.get("where") == "clock"]
    assert len(clock) == 1 and "no ACPI PM timer" in clock[0], clock
