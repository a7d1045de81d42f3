#!/usr/bin/env python3
"""Build tests/unit/data/acpi_machines.txt.gz from the linuxhw/ACPI
collection (acpidump output of real machines, with ACPICA's own decoding
beside each dump), for tests/unit/test_acpi_real.c.

For each machine whose dump and decoding are both in the repository, it
keeps the raw bytes of the FACP, HPET and MCFG tables (and, for servers
and a sample of desktops, the DSDT) and, as expectations, the values
ACPICA's disassembler printed for the fields efi/acpi.c reads, with the
choices efi/acpi.h documents applied to those printed values (X_ fields
over 32-bit ones, windows with a zero base or an end bus below the start
left out). The expectations therefore come from ACPICA's decoder, not from
our parser.

    python3 tests/tools/extract_acpi_machines.py REPO_GIT_DIR OUT.txt.gz

REPO_GIT_DIR: a clone of https://github.com/linuxhw/ACPI (its git
directory); the file written is text, one record a line:
    M <category/vendor/model/id>
    T <SIG> <hex>                      a table's bytes
    E FACP smi= enable= pm1a= pm1b= tmr= ext32= dsdt=
    E HPET base=<hex>|none
    E MCFG <base:seg:start:end> ...    (or just "E MCFG")
    E DSDT s5=<a>,<b>|none
"""
import gzip
import re
import subprocess
import sys

FIELD = re.compile(r"^\[([0-9A-F]{3,4})h (\d{4}) +([0-9A-F]+h?)\] +(.*?) : (\S+)")   # iasl prints the size as 4 or as 004h
SECTION = re.compile(r"^([A-Z0-9_!]{4})\n-{4}\n", re.M)
HEXLINE = re.compile(r"^\s+([0-9A-F]{4,8}): ((?:[0-9A-F]{2} )*[0-9A-F]{2})")


def blobs(git_dir):
    tree = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "HEAD"], capture_output=True, text=True,
                          check=True).stdout
    entries = {}
    for line in tree.splitlines():
        meta, path = line.split("\t", 1)
        entries[path] = meta.split()[2]
    return entries


class Reader:
    def __init__(self, git_dir):
        self.p = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)

    def get(self, sha):
        self.p.stdin.write((sha + "\n").encode())
        self.p.stdin.flush()
        head = self.p.stdout.readline().decode().split()
        if len(head) < 3 or head[1] == "missing":
            return None
        data = self.p.stdout.read(int(head[2]))
        self.p.stdout.read(1)
        return data.decode("latin-1")


def dump_tables(text):
    """acpidump's hex output: 'SIG @ 0xADDR' then offset: bytes lines."""
    tables, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^([A-Z0-9_!]{4}) @ 0x[0-9A-Fa-f]+", line)
        if m:
            cur = [m.group(1), bytearray()]
            tables.append(cur)
            continue
        m = HEXLINE.match(line)
        if m and cur is not None:
            cur[1] += bytes.fromhex(m.group(2).replace(" ", ""))
    return tables


def decoded_sections(text):
    out = {}
    marks = list(SECTION.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out.setdefault(m.group(1), []).append(text[m.end():end])
    return out


def fields(section):
    f = {}
    for line in section.splitlines():
        m = FIELD.match(line)
        if m:
            f[(int(m.group(2)), m.group(4).strip())] = m.group(5)
    return f


def hx(v):
    return int(v, 16)


def expect_facp(sec, length):
    f = fields(sec)
    tmr = hx(f.get((76, "PM Timer Block Address"), "0"))
    if length >= 220 and f.get((208, "Space ID")) == "01":
        x = hx(f.get((212, "Address"), "0"))
        if x and x <= 0xFFFF:
            tmr = x
    dsdt = hx(f.get((40, "DSDT Address"), "0"))
    if length >= 148 and hx(f.get((140, "DSDT Address"), "0")):
        dsdt = hx(f[(140, "DSDT Address")])
    ext32 = (hx(f.get((112, "Flags (decoded below)"), "0")) >> 8) & 1
    return "E FACP smi=%x enable=%x pm1a=%x pm1b=%x tmr=%x ext32=%d dsdt=%x" % (
        hx(f[(48, "SMI Command Port")]), hx(f[(52, "ACPI Enable Value")]),
        hx(f[(64, "PM1A Control Block Address")]), hx(f[(68, "PM1B Control Block Address")]), tmr, ext32, dsdt)


def expect_hpet(sec):
    f = fields(sec)
    if f.get((40, "Space ID")) != "00" or not hx(f.get((44, "Address"), "0")):
        return "E HPET base=none"
    return "E HPET base=%x" % hx(f[(44, "Address")])


def expect_mcfg(sec, length):
    f = fields(sec)
    wins = []
    for off in range(44, length - 15, 16):
        base = hx(f.get((off, "Base Address"), "0"))
        seg = hx(f.get((off + 8, "Segment Group Number"), "0"))
        start = hx(f.get((off + 10, "Start Bus Number"), "0"))
        end = hx(f.get((off + 11, "End Bus Number"), "0"))
        if (off, "Base Address") not in f:
            return None       # ACPICA printed something else: keep no expectation
        if base and end >= start:
            wins.append("%x:%x:%x:%x" % (base, seg, start, end))
    return " ".join(["E MCFG"] + wins)


# DSDTs kept small enough that the file stays a few hundred KiB.
DSDT_MAX = 160 * 1024

AML_INT = {"Zero": 0, "One": 1}


def expect_s5(sec):
    m = re.search(r"Name \(\\?_S5, Package \(0x[0-9A-F]+\)[^\n]*\n\s*\{\s*\n\s*([^,\n]+),\s*\n\s*([^,\n]+)[,\s]", sec)
    if not m:
        return "E DSDT s5=none" if "_S5" not in sec else None
    vals = []
    for v in (m.group(1).strip(), m.group(2).strip()):
        if v in AML_INT:
            vals.append(AML_INT[v])
        elif re.fullmatch(r"0x[0-9A-Fa-f]+", v):
            vals.append(int(v, 16))
        else:
            return None
    return "E DSDT s5=%d,%d" % tuple(vals)


def main():
    git_dir, out = sys.argv[1], sys.argv[2]
    entries = blobs(git_dir)
    rd = Reader(git_dir)
    n_mach = n_dsdt = desktops = 0
    with gzip.open(out, "wt", compresslevel=9) as o:
        for path in sorted(entries):
            if path.endswith(".bin") or path + ".bin" not in entries:
                continue
            dump = rd.get(entries[path + ".bin"])
            dec = rd.get(entries[path])
            if dump is None or dec is None:
                continue
            tables = dump_tables(dump)
            secs = decoded_sections(dec)
            want_dsdt = path.startswith("Server/") or (path.startswith("Desktop/") and desktops < 12)
            lines = []
            for sig in ("FACP", "HPET", "MCFG") + (("DSDT",) if want_dsdt else ()):
                got = [b for s, b in tables if s == sig]
                if len(got) != 1 or len(secs.get(sig, [])) != 1 or len(got[0]) < 36:
                    continue
                raw = bytes(got[0])
                length = int.from_bytes(raw[4:8], "little")
                if length != len(raw) or (sig == "DSDT" and length > DSDT_MAX):
                    continue
                try:
                    e = {"FACP": lambda: expect_facp(secs[sig][0], length),
                         "HPET": lambda: expect_hpet(secs[sig][0]),
                         "MCFG": lambda: expect_mcfg(secs[sig][0], length),
                         "DSDT": lambda: expect_s5(secs[sig][0])}[sig]()
                except KeyError:
                    e = None
                if e is None:
                    continue
                lines.append("T %s %s" % (sig, raw.hex()))
                lines.append(e)
                if sig == "DSDT":
                    n_dsdt += 1
            if lines:
                if want_dsdt and path.startswith("Desktop/"):
                    desktops += 1
                o.write("M %s\n" % path)
                o.write("\n".join(lines) + "\n")
                n_mach += 1
    print("%d machines, %d DSDTs -> %s" % (n_mach, n_dsdt, out))


if __name__ == "__main__":
    main()
