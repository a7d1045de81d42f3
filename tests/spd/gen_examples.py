#!/usr/bin/env python3
"""Writes the example bus files of tests/spd/ (baremark-spd-sim's format,
drivers/smbus/smbus_sim.h): module images built from the JEDEC layouts as
tests/unit/test_spd_decode.c builds them, with their CRCs, on the buses
that broke the SPD reader (issue 26). Run from this directory."""


def crc16(b):
    crc = 0
    for x in b:
        crc ^= x << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xffff if crc & 0x8000 else (crc << 1) & 0xffff
    return crc


def put_crc(img, start, n, at):
    c = crc16(img[start:start + n])
    img[at], img[at + 1] = c & 0xff, c >> 8


def put_str(img, off, s, width):
    img[off:off + width] = (s.ljust(width)).encode()


def ddr4():
    """16 GB 2Rx8 DDR4-3200 RDIMM (Samsung), both pages."""
    img = bytearray(512)
    img[0:5] = bytes([0x23, 0x12, 0x0c, 0x01, 0x85])
    img[12], img[13], img[18] = 0x09, 0x0b, 5
    img[21], img[22] = 0xa0, 0x02
    img[24] = img[25] = img[26] = 110
    img[27], img[28] = 0x01, 0x00
    put_crc(img, 0, 126, 126)
    img[128] = 0x11
    put_crc(img, 128, 126, 254)
    img[320], img[321], img[323], img[324] = 0x80, 0xce, 0x19, 0x23
    img[325:329] = bytes([0x36, 0x1a, 0x2b, 0x3c])
    put_str(img, 329, "M393A2K43DB3-CWE", 20)
    img[350], img[351] = 0x80, 0xce
    return img


def ddr3():
    """8 GB 2Rx8 DDR3-1600 ECC UDIMM (Kingston)."""
    img = bytearray(256)
    img[0:5] = bytes([0x92, 0x11, 0x0b, 0x02, 0x04])
    img[7], img[8], img[9], img[10], img[11], img[12] = 0x09, 0x0b, 0x11, 1, 8, 10
    img[14] = 0xfc
    img[16] = img[18] = img[20] = 110
    img[21], img[22] = 0x11, 0x18
    img[117], img[118], img[120], img[121] = 0x01, 0x98, 0x15, 0x07
    img[122:126] = bytes([1, 2, 3, 4])
    put_crc(img, 0, 117, 126)
    put_str(img, 128, "KVR16E11/8", 18)
    return img


def ddr5(tck, t, cl_lo):
    """32 GB 2Rx8 DDR5 RDIMM (SK Hynix) at tCK ps, tAA = tRCD = tRP = t ps."""
    img = bytearray(1024)
    img[0:5] = bytes([0x30, 0x10, 0x12, 0x01, 0x04])
    img[6] = 0x20
    img[20], img[21] = tck & 0xff, tck >> 8
    for cl in range(cl_lo, cl_lo + 10, 2):
        k = (cl - 20) // 2
        img[24 + k // 8] |= 1 << (k % 8)
    for o in (30, 32, 34):
        img[o], img[o + 1] = t & 0xff, t >> 8
    img[36], img[37] = 0x00, 0x7d
    img[234], img[235] = 0x08, 0x32
    put_crc(img, 0, 510, 510)
    img[512], img[513], img[515], img[516] = 0x80, 0xad, 0x22, 0x45
    img[517:521] = bytes([0x80, 0x00, 0x12, 0x34])
    put_str(img, 521, "HMCG88MEBRA113N", 30)
    return img


def bytes_lines(addr, img):
    out = []
    for off in range(0, len(img), 16):
        chunk = img[off:off + 16]
        if any(chunk):
            out.append("bytes 0x%02x 0x%03x %s" % (addr, off, " ".join("%02x" % x for x in chunk)))
    return "\n".join(out)


def write(name, header, devices):
    with open(name, "w") as f:
        f.write(header.strip() + "\n")
        for line, img in devices:
            f.write(line + "\n")
            if img is not None:
                f.write(bytes_lines(int(line.split()[1], 16), img) + "\n")


write("ddr4-ee1004-page1-at-start.bus", """
# Two DDR4 RDIMMs whose EE1004s an earlier owner (Linux ee1004) left on
# page 1. Expect: page 0 selected (the devices read like DDR4 page 1),
# both pages read, page 1 put back and checked.
smbios ddr4 slots=4
ee1004-page 1""", [("device 0x50 ee1004", ddr4()), ("device 0x52 ee1004", ddr4())])

write("34c02-smbios-ddr4.bus", """
# SMBIOS says DDR4, but at 0x56 sits a DDR3 module's 34C02, which does not
# answer reads at 0x36: a write to 0x36 would set its permanent write
# protection. Expect: no write at all, the DDR3 image read.
smbios ddr4 slots=8
device 0x56 34c02 swp-read-nack""", [("device 0x56 34c02 swp-read-nack", ddr3())])

write("ee1004-select-nack.bus", """
# A DDR4 module whose EE1004 switches pages without acknowledging the
# select (EE1004-v allows it; Linux ee1004 checks the page by a read).
# Expect: both pages read, page 0 at the end.
smbios ddr4 slots=2
ee1004-select-nack""", [("device 0x51 ee1004", ddr4())])

write("page-query-busy.bus", """
# The first page query (receive byte at 0x36) loses arbitration to the BMC.
# Expect: asked again, page 0 found, both pages read, page 0 at the end
# (not "put back" to page 1).
smbios ddr4 slots=2
page-query-busy 1""", [("device 0x50 ee1004", ddr4())])

write("ddr5-hub-mr11-page3.bus", """
# A DDR5-6400 RDIMM whose SPD5118 hub starts on NVM page 3. Expect: all
# eight pages read in order, MR11 back on page 3; tAA 16.25 ns at tCK
# 312 ps decodes as CL52 (JESD400-5 rounding).
smbios ddr5 slots=2""", [("device 0x51 hub mr11=3", ddr5(312, 16250, 46))])

write("ddr5-6000.bus", """
# A DDR5-6000 RDIMM, tAA 16.000 ns at tCK 333 ps: CL48.
smbios ddr5 slots=2""", [("device 0x50 hub", ddr5(333, 16000, 40))])

write("ddr4-beside-blank-34c02.bus", """
# Found by fuzz_spdbus: a DDR4 module beside a blank 34C02 at 0x56 (no
# legacy key byte to give it away; it answers reads at 0x36 like an EE1004
# on page 0). Expect: no page select at all, DDR4 page 0 read, a note.
smbios ddr4 slots=8""", [("device 0x50 ee1004", ddr4()), ("device 0x56 34c02", None)])

write("imc-e5-ddr3-polling.bus", """
# Two DDR3 RDIMMs behind a Xeon E5 v2's memory controller SMBus, with the
# firmware's closed-loop thermal throttling polling their sensors. Expect:
# the polling paused (confirmed by a read) and each DIMM's 256 bytes read,
# SMBCNTL and SMBCMD written back exactly as found, no SBE left.
imc e5""", [("device 0x50 eeprom", ddr3()), ("device 0x54 eeprom", ddr3())])

write("imc-cltt-locked.bus", """
# The same bus with the poll enable locked by CLTT: it reads back set after
# the pause. Expect: no command at all, a note naming the controller,
# SMBCNTL as found.
imc e5 cltt-locked""", [("device 0x50 eeprom", ddr3())])

write("imc-scalable-ddr4-bmc-busy.bus", """
# A DDR4 RDIMM behind a Xeon Scalable (Skylake-SP) PCU SMBus, a BMC
# transaction in flight for 300 polls when baremark asks for the bus.
# Expect: waited for (within 50 ms), DDR4 page 0 read with a note (no page
# select on this path), SMB_CMD_CFG written back as found.
imc scalable bmc-busy=300""", [("device 0x51 ee1004", ddr4())])
