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


def by_type(run, t):
    return run.of_type(t)


def pci_by_bdf(run):
    return {r["bdf"]: r for r in run.of_type("pci")}
