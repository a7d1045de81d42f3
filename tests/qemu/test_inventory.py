"""Inventory under QEMU q35 + OVMF: the system record, QEMU's DIMMs as
its SMBIOS tables describe them, a server-like DIMM population fed to QEMU
as raw SMBIOS type 17 structures, and the pci records of the built-in AHCI
controller and of an NVMe controller behind a PCIe root port.

QEMU 7.2 cannot show a downtrained link: its endpoints advertise x1 2.5 GT/s
and a root port's Link Status is the minimum of its own capability and the
endpoint's status (hw/pci/pcie.c, pcie_sync_bridge_lnk), so a link there
always runs at what both ends support. The unit tests (test_pcie.c) cover
downtraining on synthetic config spaces; here we check that a port set with
x-speed/x-width reports those capabilities and that the link is not called
downtrained."""
import os
import shutil
import struct

import qemu

# ---- SMBIOS type 17 structures, built per DSP0134 3.6 section 7.18 ------------


def smbios_type17(handle, locator, bank, size_mb, speed=0, configured=0, ranks=0, mem_type=0x1A,
                  manufacturer="", part="", serial="", extended_speed=False):
    """One Memory Device structure of the 3.3+ length (0x5C), with its
    string set. size_mb 0 = empty slot; 32767 MB and more go to Extended
    Size; extended_speed puts the speeds in the 3.3 32-bit fields."""
    strings = []

    def s(text):
        if not text:
            return 0
        strings.append(text.encode())
        return len(strings)

    if size_mb == 0:
        size, ext_size = 0, 0
    elif size_mb >= 0x7FFF:
        size, ext_size = 0x7FFF, size_mb
    else:
        size, ext_size = size_mb, 0
    sp, csp = (0xFFFF, 0xFFFF) if extended_speed else (speed, configured)
    body = struct.pack("<BBH", 17, 0x5C, handle)
    body += struct.pack("<HHHHH", 0x1000, 0xFFFE, 72 if size_mb else 0xFFFF, 64 if size_mb else 0xFFFF, size)
    body += struct.pack("<BB", 0x09, 0)                     # form factor DIMM, no device set
    body += struct.pack("<BB", s(locator), s(bank))
    body += struct.pack("<BHH", mem_type, 0x2080 if size_mb else 0x0002, sp)  # registered, synchronous
    body += struct.pack("<BBBB", s(manufacturer), s(serial), 0, s(part))
    body += struct.pack("<BIH", ranks, ext_size, csp)
    body += struct.pack("<HHH", 1200, 1200, 1200 if size_mb else 0)   # voltages, mV
    body += struct.pack("<BHB", 0x03, 0x0004, 0)             # DRAM, volatile, no firmware string
    body += struct.pack("<HHHH", 0, 0, 0, 0)                 # module / controller ids
    body += struct.pack("<QQQQ", 0, size_mb << 20, 0, 0)     # non-volatile, volatile, cache, logical
    body += struct.pack("<II", speed if extended_speed else 0, configured if extended_speed else 0)
    assert len(body) == 0x5C, len(body)
    tail = b"".join(x + b"\0" for x in strings) + b"\0" if strings else b"\0\0"
    return body + tail


# A two-socket board with four channels of two slots each, Supermicro-style
# locators. Populated to break every rule the summary checks: channel P1/A
# has two DIMMs where the others have one, one DIMM is smaller, slower and
# single-rank, all run below their rated speed, one is 64 GB (Extended
# Size) and one states its speeds in the 3.3 extended fields.
SERVER_DIMMS = []
for sock in (1, 2):
    for ch in "ABCD":
        for slot in (1, 2):
            loc = "P%d-DIMM%s%d" % (sock, ch, slot)
            bank = "P%d_Node%d_Channel%d_Dimm%d" % (sock - 1, sock - 1, "ABCD".index(ch), slot - 1)
            d = dict(locator=loc, bank=bank, size_mb=0, manufacturer="NO DIMM", part="NO DIMM", serial="NO DIMM")
            if slot == 1:
                d.update(size_mb=16384, speed=3200, configured=2933, ranks=2, manufacturer="Samsung",
                         part="M393A2K43DB3-CWE", serial="%08X" % (0x1A2B0000 + len(SERVER_DIMMS)))
            if loc == "P1-DIMMA2":
                d.update(size_mb=8192, speed=2666, configured=2666, ranks=1, manufacturer="Micron",
                         part="18ASF1G72PZ-2G6", serial="0BADC0DE")
            if loc == "P2-DIMMD1":
                d.update(size_mb=65536, part="M393A8G40AB2-CWE", ranks=2)
            if loc == "P2-DIMMC1":
                d.update(extended_speed=True)
            SERVER_DIMMS.append(d)


def write_smbios_files(workdir, dimms):
    paths = []
    for i, d in enumerate(dimms):
        path = os.path.join(workdir, "t17-%02d.bin" % i)
        with open(path, "wb") as f:
            f.write(smbios_type17(0x1100 + i, **d))
        paths.append(path)
    return paths


def pci_by_bdf(run):
    return {r["bdf"]: r for r in run.of_type("pci")}


ROOT_PORT = "0000:00:10.0"
AHCI = "0000:00:1f.2"
NULL_DRIVE = "driver=null-co,size=64M,read-zeroes=on,if=none,id=nv"


def test_inventory_qemu_dimm_identity_and_storage_links():
    """-m 2048 gives one 2048 MB "DIMM 0" in QEMU's SMBIOS; the -smbios
    strings come back in the system and dimm records; the built-in AHCI and
    an NVMe behind a root port come back as pci records."""
    mem_mib = 2048
    run = qemu.boot(options="mem=off disk=off out=off", memory_mib=mem_mib, smp=2, timeout=120,
                    devices=["pcie-root-port,id=rp1,chassis=1,slot=1,bus=pcie.0,addr=0x10",
                             "nvme,bus=rp1,serial=INV1,drive=nv"],
                    drives=[NULL_DRIVE],
                    extra_args=["-smbios", "type=1,manufacturer=Baremark Labs,product=Inventory Rig,serial=INV-SERIAL-1",
                                "-smbios", "type=2,manufacturer=Baremark Labs,product=Test Board,serial=BOARD-7",
                                "-smbios", "type=17,manufacturer=QEMU Memory,part=QM-2G,serial=D1MM-S3R,speed=2933"])
    shutil.rmtree(run.workdir, ignore_errors=True)
    assert not run.timed_out, run.serial[-3000:]
    assert run.end()["status"] == "ok", run.end()

    sysrec = run.one("system")
    assert sysrec["manufacturer"] == "Baremark Labs"
    assert sysrec["product"] == "Inventory Rig"
    assert sysrec["serial"] == "INV-SERIAL-1"
    assert sysrec["baseboard"] == "Baremark Labs Test Board"
    assert sysrec["baseboard_serial"] == "BOARD-7"
    assert sysrec["cpus"] == 2
    assert sysrec["tsc_hz"] > 0
    assert sysrec["cpu"]
    assert sysrec["l1d_bytes"] > 0 and sysrec["l2_bytes"] >= sysrec["l1d_bytes"]
    assert "OVMF" in sysrec["bios_vendor"]
    assert sysrec["processors"] and sysrec["processors"][0]["populated"]

    # QEMU builds one type 17 device per 16 GiB (hw/smbios/smbios.c), named
    # "DIMM <n>", of memory type RAM, with the configured speed = the speed.
    dimms = run.of_type("dimm")
    assert len(dimms) == 1, dimms
    d = dimms[0]
    assert d["locator"] == "DIMM 0"
    assert d["size_mb"] == mem_mib
    assert d["mem_type"] == "RAM"
    assert d["speed_mts"] == 2933 and d["configured_mts"] == 2933
    assert d["ranks"] == 0  # QEMU leaves the rank unknown
    assert (d["manufacturer"], d["part"], d["serial"]) == ("QEMU Memory", "QM-2G", "D1MM-S3R")

    summary = run.one("dimm_summary")
    assert run.records.index(summary) > run.records.index(d)
    assert summary["slots"] == 1 and summary["populated"] == 1
    assert summary["total_mb"] == mem_mib
    assert summary["channels"] is None and "DIMM 0" in summary["channels_note"]
    assert summary["warnings"] == []

    pci = pci_by_bdf(run)
    ahci = pci[AHCI]
    assert ahci["class"] == "0x010601" and ahci["vendor"] == "0x8086" and ahci["device"] == "0x2922"
    assert ahci["kind"] == "storage"
    assert ahci["link"] is None and ahci["link_note"]
    assert ahci["path"] == []
    assert ahci["path_ceiling_mbps"] is None

    nvmes = [r for r in pci.values() if r["class"] == "0x010802"]
    assert len(nvmes) == 1, pci
    nvme = nvmes[0]
    assert nvme["port_type"] == "endpoint"
    assert nvme["path"] == [ROOT_PORT]
    link = nvme["link"]
    assert (link["speed_gts"], link["width"]) == (2.5, 1)
    assert (link["max_speed_gts"], link["max_width"]) == (2.5, 1)
    # pcie-root-port defaults: x-speed=16, x-width=32.
    assert (link["partner_max_speed_gts"], link["partner_max_width"]) == (16, 32)
    assert link["downtrained"] is False
    assert link["mbps"] == 250
    assert nvme["path_ceiling_mbps"] == 250

    rp = pci[ROOT_PORT]
    assert rp["kind"] == "bridge" and rp["port_type"] == "root_port" and rp["class"] == "0x060400"
    assert (rp["link"]["max_speed_gts"], rp["link"]["max_width"]) == (16, 32)
    assert (rp["link"]["speed_gts"], rp["link"]["width"]) == (2.5, 1)
    assert rp["path"] == []
    # Bridges come before what is behind them.
    order = [r["bdf"] for r in run.of_type("pci")]
    assert order.index(ROOT_PORT) < order.index(nvme["bdf"])


def channel_of(locator):
    """"P1-DIMMA1" -> "P1/A" (the board layout this test builds)."""
    sock, rest = locator.split("-")
    return "%s/%s" % (sock, rest[len("DIMM")])


def test_inventory_server_dimm_population_and_port_caps():
    """QEMU given a two-socket board's type 17 structures (16 slots, 9
    populated, badly): every slot is a dimm record, and the dimm_summary
    counts channels and warns about each population mistake. The root port
    set to x4 8 GT/s reports that capability."""
    workdir = qemu.tempdir("baremark-inv-")
    extra = []
    for path in write_smbios_files(workdir, SERVER_DIMMS):
        extra += ["-smbios", "file=" + path]
    try:
        run = qemu.boot(options="mem=off disk=off out=off", memory_mib=1024, smp=2, timeout=120, extra_args=extra,
                        devices=["pcie-root-port,id=rp1,chassis=1,slot=1,bus=pcie.0,addr=0x10,x-speed=8,x-width=4",
                                 "nvme,bus=rp1,serial=INV2,drive=nv"],
                        drives=[NULL_DRIVE])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    shutil.rmtree(run.workdir, ignore_errors=True)
    assert not run.timed_out, run.serial[-3000:]
    assert run.end()["status"] == "ok", run.end()

    dimms = run.of_type("dimm")
    assert [d["locator"] for d in dimms] == [d["locator"] for d in SERVER_DIMMS]
    for rec, want in zip(dimms, SERVER_DIMMS):
        assert rec["bank"] == want["bank"]
        assert rec["size_mb"] == want["size_mb"], (rec, want)
        assert rec["manufacturer"] == want["manufacturer"]
        assert rec["part"] == want["part"]
        assert rec["serial"] == want["serial"]
        if want["size_mb"]:
            assert rec["mem_type"] == "DDR4"
            assert rec["speed_mts"] == want["speed"] and rec["configured_mts"] == want["configured"], rec
            assert rec["ranks"] == want["ranks"]

    populated = [d for d in SERVER_DIMMS if d["size_mb"]]
    s = run.one("dimm_summary")
    assert s["slots"] == len(SERVER_DIMMS)
    assert s["populated"] == len(populated)
    assert s["total_mb"] == sum(d["size_mb"] for d in populated)
    want_channels = {}
    for d in SERVER_DIMMS:
        c = want_channels.setdefault(channel_of(d["locator"]), [0, 0])
        c[0] += 1
        c[1] += 1 if d["size_mb"] else 0
    got_channels = {c["name"]: [c["slots"], c["populated"]] for c in s["channels"]}
    assert got_channels == want_channels
    # Channels are balanced per socket (P1/A has 2 DIMMs, P2/D the 64 GB
    # one), and the sockets hold different amounts.
    assert s["grouping"] == "channel"
    kinds = ["unbalanced channels", "mixed sizes", "mixed rated speeds", "mixed ranks",
             "configured speed below rated", "sockets differ"]
    for kind in kinds:
        assert any(w.startswith(kind) for w in s["warnings"]), (kind, s["warnings"])
    assert all(any(w.startswith(k) for k in kinds) for w in s["warnings"]), s["warnings"]
    assert sum(w.startswith("unbalanced channels") for w in s["warnings"]) == 2, s["warnings"]

    rp = pci_by_bdf(run)[ROOT_PORT]
    assert (rp["link"]["max_speed_gts"], rp["link"]["max_width"]) == (8, 4)
    assert (rp["link"]["speed_gts"], rp["link"]["width"]) == (2.5, 1)
    # The endpoint's x1 2.5 GT/s is the link's ceiling: not downtrained
    # (see the module docstring for why QEMU 7.2 cannot show one).
    assert rp["link"]["downtrained"] is False
