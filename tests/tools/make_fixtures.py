#!/usr/bin/env python3
"""Build the captured-log fixtures for tools/baremark-report's tests.

Writes tests/tools/data/: serial captures of five machines of one model as a
console server would log them, the results file of one of them, and
expected.json: for every file, the records (line, tag, object) an extractor
must find and the lines holding records it cannot read. Deterministic
(seeded), so running it again rewrites the same bytes.

The fleet (serial numbers RX2-0001..0005, product RX-2200):
  RX2-0001  node01.log + node01.jsonl: the same run, two burn-in passes
  RX2-0002  node02.log: its NVMe link trained at x2 of x4 (downtrained); a
            record wrapped at 80 columns; a progress line before a record
  RX2-0003  node03.log: a first run cut by a reset mid-record, then a full
            run with DIMM slot D1 empty (and the summary's warning); firmware
            text spliced into one record
  RX2-0004  rack-b.log (shared syslog of a console server, lines tagged
  RX2-0005  "consrv node04:" / "consrv node05:", interleaved): RX2-0004's
            SATA disk on a 3 Gb/s link runs sequential tests at 45% and
            twice the latency; one RX2-0005 record truncated by the server
Everything else is the same model, within +-2%.

usage: make_fixtures.py [OUTDIR]   (default: tests/tools/data next to this file)
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

OVMF_CLEAR = "\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01H\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01H"
POST_NOISE = [
    OVMF_CLEAR + "\x1b[0m\x1b[37m\x1b[40m",
    "BdsDxe: loading Boot0002 \"UEFI PXEv4 (MAC:3CECEF1A2B3C)\" from "
    "PciRoot(0x0)/Pci(0x1C,0x0)/Pci(0x0,0x0)/MAC(3CECEF1A2B3C,0x1)/IPv4(0.0.0.0,0x0,DHCP,0.0.0.0,0.0.0.0,0.0.0.0)",
    "BdsDxe: starting Boot0002 \"UEFI PXEv4 (MAC:3CECEF1A2B3C)\" from "
    "PciRoot(0x0)/Pci(0x1C,0x0)/Pci(0x0,0x0)/MAC(3CECEF1A2B3C,0x1)/IPv4(0.0.0.0,0x0,DHCP,0.0.0.0,0.0.0.0,0.0.0.0)",
    "",
    ">>Start PXE over IPv4.",
    "  Station IP address is 10.20.3.41",
    "",
    "  Server IP address is 10.20.0.2",
    "  NBP filename is baremark.efi",
    "  NBP filesize is 184320 Bytes",
    " Downloading NBP file...",
    "",
    "  Succeed to download NBP file.",
    "\x1b[0m\x1b[37m\x1b[40mbaremark 0.3.0 - disk and memory benchmark",
]
RESET_NOISE = [
    "\x1b[0m\x1b[2J\x1b[1;1H\x1b[?25l",
    "ACME RX-2200 BIOS 2.1.4  (C) ACME Corp.",
    "Press <F2> to enter Setup, <F11> Boot Menu, <F12> PXE boot",
    "\x1b[5;1HInitializing memory... \x1b[1m\x1b[32mOK\x1b[0m",
    "PROGRESS CODE: V03051001 I0",
]

NVME_MODEL, SATA_MODEL = "ACME N300 3.84TB", "ACME S200 480GB"
# test, rw, bs, qd, nominal MB/s for the NVMe and the SATA SSD
TESTS = [
    ("SEQ1M-Q8T1", "read", 1 << 20, 8, 3400.0, 540.0),
    ("SEQ1M-Q1T1", "read", 1 << 20, 1, 2100.0, 480.0),
    ("RND4K-Q32T1", "randread", 4096, 32, 650.0, 390.0),
    ("RND4K-Q1T1", "randread", 4096, 1, 55.0, 38.0),
]
LAT_SIZES = [4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20, 256 << 20]
LAT_NS = {"stride": [1.2, 1.2, 3.1, 4.0, 6.5, 8.0, 9.0],
          "page_random": [1.2, 1.3, 4.4, 11.0, 28.0, 42.0, 48.0],
          "full_random": [1.2, 1.3, 4.5, 12.0, 35.0, 85.0, 105.0]}
BANDWIDTH = [("read", 1, 14.2), ("write", 1, 10.1), ("copy", 1, 11.3),
             ("read", 32, 121.0), ("write", 32, 82.5), ("copy", 32, 90.4)]
SLOTS = [("P0 CHANNEL %s" % ch, "DIMM_%s%d" % (ch, n)) for n in (1, 2) for ch in "ABCD"]


class Machine:
    """One server's run as records, with what is wrong with it."""

    def __init__(self, n, rng, passes=0, nvme_link_width=4, sata_seq_factor=1.0, sata_link=6.0, empty_slot=None):
        self.n, self.rng, self.passes = n, rng, passes
        self.serial = "RX2-%04d" % n
        self.nvme_link_width, self.sata_seq_factor, self.sata_link = nvme_link_width, sata_seq_factor, sata_link
        self.empty_slot = empty_slot

    def j(self, v, digits=1):
        """A nominal value with this machine's +-2% spread."""
        return round(v * self.rng.uniform(0.98, 1.02), digits)

    def inventory(self, minute=None):
        """run, system, dimm, dimm_summary, pci and disk records."""
        recs = [
            {"type": "run", "version": "0.3.0", "schema": 1, "args": "",
             "config_file": "disk=quick mem=quick" + (" passes=%d" % self.passes if self.passes else ""),
             "time": "2025-03-12T03:%02d:%02d" % (10 + self.n if minute is None else minute, self.rng.randrange(60))},
            {"type": "system", "cpu": "Intel(R) Xeon(R) Gold 6326 CPU @ 2.90GHz", "cpus": 32,
             "tsc_hz": 2900000000 + self.rng.randrange(-50000, 50000), "firmware": "ACME 2.1.4",
             "manufacturer": "ACME", "product": "RX-2200", "serial": self.serial, "baseboard": "RXB-2"},
        ]
        populated = 0
        for bank, loc in SLOTS:
            full = loc.endswith("1") and loc != self.empty_slot
            populated += full
            recs.append({"type": "dimm", "locator": loc, "bank": bank, "size_mb": 32768 if full else 0,
                         "mem_type": "DDR4" if full else "", "speed_mts": 3200 if full else 0,
                         "configured_mts": 3200 if full else 0, "ranks": 2 if full else 0,
                         "manufacturer": "Hynix" if full else "", "part": "HMA84GR7DJR4N-XN" if full else "",
                         "serial": "%08X" % self.rng.getrandbits(32) if full else ""})
        warnings = []
        if self.empty_slot:
            warnings.append("unbalanced channels: P0 CHANNEL %s has no DIMM, the others have 1" % self.empty_slot[5])
        recs.append({"type": "dimm_summary", "populated": populated, "slots": len(SLOTS),
                     "total_mb": populated * 32768, "channels": {"P0 CHANNEL %s" % c: int(
                         "DIMM_%s1" % c != self.empty_slot) for c in "ABCD"}, "warnings": warnings})
        w = self.nvme_link_width
        recs += [
            {"type": "pci", "bdf": "0000:00:01.0", "vendor": "8086", "device": "347a", "class": "060400",
             "link": {"speed_gts": 8.0, "width": w, "max_speed_gts": 8.0, "max_width": 16, "downtrained": w < 4},
             "path": []},
            {"type": "pci", "bdf": "0000:01:00.0", "vendor": "1c5c", "device": "2849", "class": "010802",
             "link": {"speed_gts": 8.0, "width": w, "max_speed_gts": 8.0, "max_width": 4, "downtrained": w < 4},
             "path": ["0000:00:01.0"]},
            {"type": "pci", "bdf": "0000:00:17.0", "vendor": "8086", "device": "a352", "class": "010601",
             "path": []},
            {"type": "disk", "id": "nvme0n1", "driver": "nvme", "model": NVME_MODEL, "serial": "N300%06d" % (7100 + self.n),
             "firmware": "1.2.0", "lba_bytes": 512, "blocks": 7501476528, "pci": "0000:01:00.0"},
            {"type": "disk", "id": "sata0", "driver": "ahci", "model": SATA_MODEL, "serial": "S200%06d" % (3300 + self.n),
             "firmware": "SCV10142", "lba_bytes": 512, "blocks": 937703088, "pci": "0000:00:17.0",
             "link_gbps": self.sata_link},
        ]
        return recs

    def disk_result(self, disk, test, rw, bs, qd, mbps, lat_factor=1.0):
        """A disk_result whose IOPS and latencies follow from MB/s and queue depth."""
        mbps = self.j(mbps)
        iops = mbps * 1e6 / bs
        mean = qd / iops * 1e6 * lat_factor
        return {"type": "disk_result", "disk": disk, "test": test, "rw": rw, "bs": bs, "qd": qd, "seconds": 5,
                "mbps": mbps, "iops": round(iops), "lat_us": {
                    "mean": round(mean, 1), "p50": round(mean * 0.98, 1), "p99": round(mean * 1.3, 1),
                    "p999": round(mean * 1.6, 1), "max": round(mean * 2.5, 1)}}

    def benchmarks(self, p=0):
        """One pass of memory and disk results (stamped with the pass when burn-in runs)."""
        recs = []
        for pattern, curve in LAT_NS.items():
            for size, ns in zip(LAT_SIZES, curve):
                recs.append({"type": "mem_latency", "bytes": size, "pattern": pattern, "ns": self.j(ns, 2),
                             "spread_ns": round(ns * 0.01, 2)})
        for op, threads, gbps in BANDWIDTH:
            recs.append({"type": "mem_bandwidth", "op": op, "threads": threads, "bytes": 128 << 20,
                         "gbps": self.j(gbps, 2)})
        # Gen3 x2 caps the NVMe near 1850 MB/s.
        cap = 1850.0 if self.nvme_link_width < 4 else 1e9
        for test, rw, bs, qd, nvme, sata in TESTS:
            got = min(nvme, cap)
            recs.append(self.disk_result("nvme0n1", test, rw, bs, qd, got))
            f = self.sata_seq_factor if test.startswith("SEQ") else 1.0
            recs.append(self.disk_result("sata0", test, rw, bs, qd, sata * f))
        if p:
            for r in recs:
                r["pass"] = p
        return recs

    def run(self):
        """Every record of a complete run."""
        recs = self.inventory()
        for p in range(1, self.passes + 1) if self.passes else [0]:
            recs += self.benchmarks(p)
        end = {"type": "end", "status": "ok", "errors": 0, "seconds": 412 + self.rng.randrange(30)}
        if self.passes:
            end["pass"] = self.passes
            end["passes"] = self.passes
        return recs + [end]


def human(rec):
    """The screen line the firmware mirrors to serial for some records, or None."""
    t = rec["type"]
    if t == "disk_result":
        return "%-8s %-12s %-8s %9.1f MB/s %9d IOPS" % (rec["disk"], rec["test"], rec["rw"], rec["mbps"], rec["iops"])
    if t == "dimm" and rec["size_mb"]:
        return "%s %s: %d MB %s %d MT/s" % (rec["bank"], rec["locator"], rec["size_mb"], rec["mem_type"], rec["speed_mts"])
    if t == "end":
        return "baremark finished: %s, %d errors, %d s" % (rec["status"], rec["errors"], rec["seconds"])
    return None


def dumps(rec):
    return json.dumps(rec, separators=(",", ":"))


class Log:
    """A capture being written: lines (without the line end) and what an extractor must find."""

    def __init__(self, eol="\r\n"):
        self.lines, self.found, self.bad, self.eol = [], [], [], eol

    def text(self, s):
        self.lines.append(s)

    def record(self, rec, before="", tag=None):
        """A record line as baremark's serial sink writes it, maybe after noise on the same line."""
        self.lines.append(before + "BAREMARK " + dumps(rec))
        self.found.append([len(self.lines), tag, rec])

    def broken(self, s):
        """A line holding a record nobody can read (cut, or spliced with other output)."""
        self.lines.append(s)
        self.bad.append(len(self.lines))

    def data(self):
        return (self.eol.join(self.lines) + self.eol).encode()


def serial_run(log, recs, progress=False, wrap=None):
    """Write a run the way a serial console sees it: record lines, mirrored screen lines, progress."""
    for rec in recs:
        before = ""
        if progress and rec["type"] == "disk_result":
            # The screen's progress line (CR-overwritten) mirrored without a newline.
            log.text("\r  %s %s %s  3 s / 5 s  %.0f MB/s" % (rec["disk"], rec["test"], rec["rw"], rec["mbps"]))
            if rec["test"] == "RND4K-Q1T1":
                before = "\x1b[24;1H\x1b[0m  %s %s  5 s / 5 s \x1b[K" % (rec["disk"], rec["test"])
        if wrap and wrap(rec):
            line = "BAREMARK " + dumps(rec)
            log.lines.append(line[:80])
            log.found.append([len(log.lines), None, rec])
            log.lines.append(line[80:])
        else:
            log.record(rec, before)
        h = human(rec)
        if h:
            log.text(h)


def build(outdir):
    """Write every fixture file and expected.json into outdir."""
    rng = random.Random(20250312)
    m1 = Machine(1, rng, passes=2)
    m2 = Machine(2, rng, nvme_link_width=2)
    m3 = Machine(3, rng, empty_slot="DIMM_D1")
    m4 = Machine(4, rng, sata_seq_factor=0.45, sata_link=3.0)
    m5 = Machine(5, rng)
    expected = {}

    def save(name, log):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(log.data())
        expected[name] = {"records": log.found, "bad": log.bad}

    # node01: a burn-in run on serial, and its results file (same run).
    recs1 = m1.run()
    log = Log()
    for s in POST_NOISE:
        log.text(s)
    serial_run(log, recs1, progress=True)
    log.text("\x1b[0m")
    save("node01.log", log)
    jl = Log(eol="\n")
    for rec in recs1:
        jl.lines.append(dumps(rec))
        jl.found.append([len(jl.lines), None, rec])
    save("node01.jsonl", jl)

    # node02: downtrained NVMe link; the long root-port record wrapped at 80 columns.
    log = Log()
    for s in POST_NOISE:
        log.text(s)
    serial_run(log, m2.run(), progress=True,
               wrap=lambda r: r["type"] == "pci" and r["bdf"] == "0000:00:01.0")
    save("node02.log", log)

    # node03: first boot reset mid-record, then a full run; firmware text spliced into one record.
    log = Log()
    for s in POST_NOISE:
        log.text(s)
    first = m3.inventory(minute=2)
    serial_run(log, first[:6])
    cut = "BAREMARK " + dumps(first[6])
    log.broken(cut[:37])  # the reset
    for s in RESET_NOISE + POST_NOISE:
        log.text(s)
    recs3 = m3.run()
    victim = next(i for i, r in enumerate(recs3) if r["type"] == "mem_latency" and r["bytes"] == 16 << 20)
    serial_run(log, recs3[:victim])
    whole = "BAREMARK " + dumps(recs3[victim])
    log.broken(whole[:40] + "PROGRESS CODE: V03020003 I0" + whole[40:])
    serial_run(log, recs3[victim + 1:])
    save("node03.log", log)

    # rack-b: a console server's shared syslog for node04 and node05, interleaved by line.
    log = Log(eol="\n")
    streams = []
    for tag, m in (("node04", m4), ("node05", m5)):
        sub = Log()
        for s in POST_NOISE[4:]:
            sub.text(s)
        serial_run(sub, m.run())
        streams.append((tag, sub))
    cut_at = next(i for i, l in enumerate(streams[1][1].lines) if '"mem_bandwidth"' in l)
    pos = [0, 0]
    clock = 3 * 3600 + 14 * 60
    while pos[0] < len(streams[0][1].lines) or pos[1] < len(streams[1][1].lines):
        k = rng.randrange(2)
        if pos[k] >= len(streams[k][1].lines):
            k = 1 - k
        tag, sub = streams[k]
        i = pos[k]
        pos[k] += 1
        clock += rng.randrange(2)
        stamp = "Mar 12 %02d:%02d:%02d consrv %s: " % (clock // 3600, clock // 60 % 60, clock % 60, tag)
        text = sub.lines[i]
        entry = next((f for f in sub.found if f[0] == i + 1), None)
        if k == 1 and i == cut_at:
            log.broken(stamp + text[:61])  # the console server dropped the rest
        elif entry:
            log.lines.append(stamp + text)
            log.found.append([len(log.lines), tag, entry[2]])
        else:
            log.text(stamp + text.replace("\x1b", "#033"))  # syslog escapes ESC
    save("rack-b.log", log)

    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data")
    os.makedirs(out, exist_ok=True)
    build(out)
