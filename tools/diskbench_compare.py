#!/usr/bin/env python3
"""Put baremark's disk figures next to Linux fio's, on the same emulated
device in the same QEMU configuration.

Under TCG the timings measure the emulator, not a drive, so only ratios
taken in one configuration mean anything: this script boots, one after the
other, (a) a small Linux guest running fio on the device, (b) baremark with
driver=native and (c) baremark with driver=firmware, all with the same
machine (q35, -smp 2, 1 GiB RAM), the same raw disk image and the same
-drive/-device lines, and prints the figures side by side. It prints
figures; it asserts nothing.

Linux gets its best configuration: mitigations=off tsc=reliable, the
block queue without scheduler or merging, and fio with libaio, io_uring
and (NVMe) io_uring with polled completions on nvme.poll_queues; the best
of these per test is the ratio's denominator. --rounds N repeats every
side N times, interleaved (fio, native, firmware, fio, ...), and reports
the median and the spread; the load average and a calibration loop taken
before every boot say when the machine was too busy to trust the figures.

    tools/diskbench_compare.py [--device nvme,ahci,megasas-gen2,mptsas] [--rounds 3] [--time 10]
    tools/diskbench_compare.py --latency-sweep [--latency-ns 200000]
    tools/diskbench_compare.py --fixed-latency [--latency-ns 1000000]

--fixed-latency runs the fio/native/firmware comparison on a null-co disk
that answers every request after --latency-ns, as a real drive takes time
per request: the plain image answers almost at once, so there the figures
measure how fast the emulator takes commands rather than how many a path
keeps in flight.

Runs as root (it installs linux-image-amd64, fio and busybox-static with
apt-get when they are missing, like `make run` installs its packages).
See docs/compare-fio.md.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from diskbench_rounds import (SIDES, calibration_loop_s, load_notes, median_linux, median_results,  # noqa: E402
                              run_order)
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"))
BENCH = os.path.join(BUILD, "bench")
sys.path.insert(0, os.path.join(HERE, "linux-guest"))

DISK_SERIAL = "BENCH0001"
DRIVE_ID = "bench"
# Linux ignores a disk on QEMU's mptsas1068 whose SAS address is 0 (scsi-hd
# without wwn=); both guests get the same line, so baremark sees the same WWN.
SAS_WWN = "0x5000c50015ea71ac"

COMPARE_TESTS = ("RND4K-Q32T1", "RND4K-Q1T1", "SEQ1M-Q8T1")
SWEEP_FIO_TESTS = tuple("RND4K-Q%dT1" % q for q in (1, 2, 4, 8, 16, 32))
MARK_BEGIN = "BENCH-FIO-JSON-BEGIN"
MARK_END = "BENCH-FIO-JSON-END"


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


# ---- configuration (pure) --------------------------------------------------------------

def device_args(kind, drive_id=DRIVE_ID, serial=DISK_SERIAL):
    """The -device strings that put drive_id on a controller of this kind;
    both guests get exactly these."""
    if kind == "nvme":
        return ["nvme,drive=%s,serial=%s" % (drive_id, serial)]
    if kind == "ahci":
        # Port 0 of the q35 chipset's own ICH9 AHCI (00:1f.2), like a PCH SATA port.
        return ["ide-hd,bus=ide.0,drive=%s,serial=%s" % (drive_id, serial)]
    if kind in ("megasas", "megasas-gen2"):
        return ["%s,id=hba" % kind, "scsi-hd,bus=hba.0,drive=%s,serial=%s" % (drive_id, serial)]
    if kind == "mptsas":
        return ["mptsas1068,id=hba", "scsi-hd,bus=hba.0,drive=%s,serial=%s,wwn=%s" % (drive_id, serial, SAS_WWN)]
    raise ValueError("unknown device type %r" % kind)


DEVICE_TYPES = ("nvme", "ahci", "megasas", "megasas-gen2", "mptsas")


def drive_arg(image=None, latency_ns=None, size_mib=1024, drive_id=DRIVE_ID):
    """The -drive string: a raw image file, or a null-co disk that answers
    every request after latency_ns (reads return zeros)."""
    if latency_ns is not None:
        return "driver=null-co,size=%dM,latency-ns=%d,read-zeroes=on,if=none,id=%s" % (size_mib, latency_ns,
                                                                                         drive_id)
    return "if=none,id=%s,format=raw,file=%s" % (drive_id, image)


def parse_test_name(name):
    """'RND4K-Q32T1' -> {'rw': 'randread', 'bs': 4096, 'bs_text': '4k', 'qd': 32}; the CrystalDiskMark
    names baremark uses. Only T1 (one queue) tests have a fio twin here."""
    m = re.match(r"^(SEQ|RND)(\d+)([KM])-Q(\d+)T1$", name)
    if not m:
        raise ValueError("not a SEQ<n>{K,M}-Q<n>T1 or RND<n>{K,M}-Q<n>T1 test name: %r" % name)
    kind, num, unit, qd = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
    return {"rw": "randread" if kind == "RND" else "read", "bs": num * (1024 if unit == "K" else 1 << 20),
            "bs_text": "%d%s" % (num, unit.lower()), "qd": qd}


# The Linux guest's best configuration, found by measuring (docs/compare-fio.md): no speculation mitigations (retpolines and RSB filling
# cost every system call and interrupt), and tsc=reliable, because the TSC
# watchdog of a guest on a loaded TCG host marks the TSC unstable and falls
# back to HPET, whose every read is an emulated MMIO access, while fio reads
# the clock several times per I/O.
LINUX_KERNEL_ARGS = "mitigations=off tsc=reliable"
# fio engines the guest runs per test (tools/linux-guest/init): io_uring
# with registered buffers and file; on NVMe also io_uring with polled
# completions (hipri=1) on the poll queues nvme.poll_queues= gives it.
LINUX_VARIANTS = ("libaio", "io_uring")
NVME_POLL_VARIANT = "io_uring_poll"


def linux_variants(kind, wanted=None):
    """The fio engines to run on this device kind: those asked for (all by
    default), without polled io_uring where the driver has no poll queues."""
    known = LINUX_VARIANTS + (NVME_POLL_VARIANT,)
    wanted = list(wanted) if wanted else list(known)
    for v in wanted:
        if v not in known:
            raise ValueError("unknown fio variant %r (known: %s)" % (v, ", ".join(known)))
    return [v for v in wanted if v != NVME_POLL_VARIANT or kind == "nvme"]


# Polled io_uring only for requests the block layer does not split: on
# Debian 12's 6.1 kernel a polled SEQ1M-Q8T1 on QEMU's NVMe (MDTS 512 KiB,
# so every 1 MiB read is two requests) never completed (fio hung until
# the guest's timeout, measured), so the larger tests run without it.
POLL_MAX_BS = 128 << 10


def test_variants(test, variants):
    """The engines one test runs with (polled io_uring only up to POLL_MAX_BS)."""
    bs = parse_test_name(test)["bs"]
    return [v for v in variants if v != NVME_POLL_VARIANT or bs <= POLL_MAX_BS]


def fio_job_param(tests, variants=("libaio",)):
    """The bm.jobs= kernel parameter the guest's /init turns into fio
    sections, NAME@ENGINE, every engine of a test before the next test."""
    parts = []
    for t in tests:
        p = parse_test_name(t)
        for v in test_variants(t, variants):
            parts.append("%s:%s:%s:%d:%s" % (t, p["rw"], p["bs_text"], p["qd"], v))
    return "bm.jobs=" + ",".join(parts)


def kernel_cmdline(tests, runtime, ramp, extra="", variants=("libaio",), smp=2):
    words = ["console=ttyS0", "loglevel=3", "panic=-1"] + extra.split()
    if NVME_POLL_VARIANT in variants:
        # One poll queue per CPU, as many as fio threads could use (Linux
        # nvme_setup_io_queues() takes them from the I/O queue count).
        words.append("nvme.poll_queues=%d" % smp)
    return " ".join(words + [fio_job_param(tests, variants), "bm.runtime=%d" % runtime, "bm.ramp=%d" % ramp])


def machine_args(smp=2, memory_mib=1024, kvm=False, cpu=None):
    """What qemu_harness.boot() gives baremark, minus OVMF and the stick.
    cpu=None keeps QEMU's default CPU model, as the plain guest that the
    tool's guest is measured against (docs/compare-fio.md);
    the device model does not depend on it, and -cpu max was not faster."""
    args = ["-machine", "q35", "-m", str(memory_mib), "-smp", str(smp), "-nographic", "-no-reboot",
            "-monitor", "none", "-net", "none", "-device", "qemu-xhci,id=xhci"]
    if kvm:
        args += ["-enable-kvm", "-cpu", "host"]
    elif cpu:
        args += ["-cpu", cpu]
    return args


def linux_qemu_cmd(kernel, initrd, cmdline, drive, devices, serial_path, smp=2, memory_mib=1024, kvm=False,
                   cpu=None):
    cmd = ["qemu-system-x86_64"] + machine_args(smp, memory_mib, kvm, cpu)
    cmd += ["-serial", "file:" + serial_path, "-kernel", kernel, "-initrd", initrd, "-append", cmdline,
            "-drive", drive]
    for d in devices:
        cmd += ["-device", d]
    return cmd


def baremark_options(driver, disk_mode, seconds, serial=DISK_SERIAL):
    return "mem=off disk=%s time=%d driver=%s disks=%s exit=shutdown" % (disk_mode, seconds, driver, serial)


# ---- parsing (pure) ---------------------------------------------------------------------------

def guest_lines(serial_text):
    """The guest /init's own status lines ("BENCH-GUEST ...")."""
    return [l.split("BENCH-GUEST ", 1)[1].strip() for l in serial_text.replace("\r", "").splitlines()
            if "BENCH-GUEST " in l]


def guest_disk(lines):
    """{'name', 'bytes', 'lba_bytes'} from the guest's "disk NAME bytes N
    lba_bytes N" line, or None."""
    for l in lines:
        m = re.match(r"^disk (\S+) bytes (\d+) lba_bytes (\d+)$", l)
        if m:
            return {"name": m.group(1), "bytes": int(m.group(2)), "lba_bytes": int(m.group(3))}
    return None


def extract_fio_json(serial_text):
    """fio's JSON from between the markers the guest prints; None when the
    guest never got there. fio may print notes before the object, so the
    object is taken from the first '{' to the last '}'."""
    text = serial_text.replace("\r", "")
    start = text.find(MARK_BEGIN + "\n")
    if start < 0:
        return None
    end = text.find(MARK_END, start)
    if end < 0:
        return None
    body = text[start + len(MARK_BEGIN) + 1:end]
    first, last = body.find("{"), body.rfind("}")
    if first < 0 or last < first:
        return None
    return json.loads(body[first:last + 1])


def _percentile(pct_table, key):
    v = pct_table.get(key)
    return None if v is None else v / 1e3


def fio_results(fio):
    """fio JSON -> {job name: {iops, mbps, bs, qd, lat_us{mean,p50,p99,p999,max}}}, read side only.
    MB/s are 10^6 bytes/s like baremark's; latency is fio's total (submit to
    completion) mean and max, and completion-latency percentiles."""
    out = {}
    for job in fio.get("jobs", []):
        r = job["read"]
        opts = job.get("job options", {})
        clat = r.get("clat_ns", {})
        pct = clat.get("percentile", {})
        lat = r.get("lat_ns", {})
        entry = {
            "iops": r["iops"],
            "mbps": r["bw_bytes"] / 1e6,
            "ios": r.get("total_ios"),
            "seconds": r.get("runtime", 0) / 1e3,
            "lat_us": {"mean": lat.get("mean", 0) / 1e3, "p50": _percentile(pct, "50.000000"),
                       "p99": _percentile(pct, "99.000000"), "p999": _percentile(pct, "99.900000"),
                       "max": lat.get("max", 0) / 1e3},
        }
        if job.get("error"):
            entry["error"] = job["error"]
        test, _, variant = job["jobname"].partition("@")
        entry["test"], entry["variant"] = test, variant or opts.get("ioengine", "libaio")
        try:
            p = parse_test_name(test)
            entry["bs"], entry["qd"] = p["bs"], p["qd"]
        except ValueError:
            entry["qd"] = int(opts.get("iodepth", 0) or 0)
        out[job["jobname"]] = entry
    return out


def fio_by_variant(results):
    """fio_results() (jobs named TEST@ENGINE) -> {engine: {test: result}}."""
    out = {}
    for r in (results or {}).values():
        out.setdefault(r["variant"], {})[r["test"]] = r
    return out


def best_linux(by_variant, test):
    """(engine, result) of the Linux variant with the most IOPS at this
    test (the ratios' denominator), or (None, None). A variant that failed
    (fio error) does not count."""
    best = (None, None)
    for v in sorted(by_variant or {}):
        r = by_variant[v].get(test)
        if r is None or r.get("error") or r.get("iops") is None:
            continue
        if best[1] is None or r["iops"] > best[1]["iops"]:
            best = (v, r)
    return best


def baremark_disk(records, serial=DISK_SERIAL):
    """The disk record of the benchmark disk (by serial), or None."""
    for r in records:
        if r.get("type") == "disk" and r.get("serial") == serial:
            return r
    return None


def baremark_results(records, serial=DISK_SERIAL):
    """(disk record, {test: disk_result}) for the benchmark disk: the tests it
    ran alone (records of the all-disks tests carry 'concurrent')."""
    disk = baremark_disk(records, serial)
    if disk is None:
        return None, {}
    out = {}
    for r in records:
        if r.get("type") == "disk_result" and r.get("disk") == disk.get("id") and "concurrent" not in r:
            out[r["test"]] = r
    return disk, out


def baremark_errors(records):
    return ["%s: %s" % (r.get("where"), r.get("message")) for r in records if r.get("type") == "error"]


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def _field(results, test, key):
    r = results.get(test) if results else None
    return None if r is None else r.get(key)


def summary_rows(device, tests, native, firmware, linux):
    """One row per test of one device: native, firmware, every Linux
    variant ({engine: {test: result}}), the best Linux variant and the two
    ratios the issue asks for (native/firmware, native/best Linux). IOPS
    for every test; the table shows MB/s for sequential ones."""
    rows = []
    for t in tests:
        variant, best = best_linux(linux, t)
        row = {"device": device, "test": t, "native": _side(native, t), "firmware": _side(firmware, t),
               "linux": {v: _side(linux[v], t) for v in sorted(linux or {})},
               "best_linux_variant": variant, "best_linux": _side({t: best} if best else None, t)}
        row["native_over_firmware"] = _ratio(_field(native, t, "iops"), _field(firmware, t, "iops"))
        row["native_over_best_linux"] = _ratio(_field(native, t, "iops"), best and best.get("iops"))
        rows.append(row)
    return rows


def round_ratios(rows, rounds):
    """Add to each summary row the two ratios of every round on its own
    (rounds: {"fio": [by variant], "native": [...], "firmware": [...]} of
    the row's device, one entry per round): on a shared machine a ratio
    taken within one round means more than a ratio of medians."""
    n = max([len(rounds.get(s) or []) for s in SIDES] + [0])
    for r in rows:
        r["round_ratios"] = []
        for k in range(n):
            def pick(side):
                lst = rounds.get(side) or []
                return lst[k] if k < len(lst) else None
            one = summary_rows(r["device"], [r["test"]], pick("native"), pick("firmware"), pick("fio"))[0]
            r["round_ratios"].append({"native_over_firmware": one["native_over_firmware"],
                                      "native_over_best_linux": one["native_over_best_linux"],
                                      "best_linux_variant": one["best_linux_variant"]})
    return rows


def format_round_ratios(rows):
    """The ratios round by round, under the summary table."""
    lines = [["device", "test", "native/fw by round", "native/Linux by round"]]
    for r in rows:
        rr = r.get("round_ratios") or []
        lines.append([r["device"], r["test"], " ".join(_x(x["native_over_firmware"]) for x in rr),
                      " ".join(_x(x["native_over_best_linux"]) for x in rr)])
    return _columns(lines)


def _side(results, test):
    r = results.get(test) if results else None
    if r is None:
        return None
    out = {k: r.get(k) for k in ("iops", "mbps", "qd", "lat_us")}
    for k in ("iops_rounds", "iops_spread"):
        if k in r:
            out[k] = r[k]
    return out


def sweep_rows(latency_ns, native, fio=None):
    """RND4K-Q<n>T1 results in queue-depth order, next to what a device that
    answers every request after latency_ns allows (qd / latency), and the
    depth each side really kept: by Little's law the mean number of requests
    in flight is IOPS x mean latency, whatever the emulator's own latency."""
    rows = []
    names = set(t for t in (native or {}) if re.match(r"^RND4K-Q\d+T1$", t))
    names |= set(t for t in (fio or {}) if re.match(r"^RND4K-Q\d+T1$", t))
    for t in sorted(names, key=lambda n: parse_test_name(n)["qd"]):
        qd = _field(native, t, "qd") or parse_test_name(t)["qd"]
        predicted = qd * 1e9 / latency_ns
        row = {"test": t, "qd": qd, "predicted_iops": predicted}
        for side, res in (("native", native), ("fio", fio)):
            iops = _field(res, t, "iops")
            lat = _field(res, t, "lat_us") or {}
            row[side + "_iops"] = iops
            row[side + "_of_predicted"] = _ratio(iops, predicted)
            row[side + "_mean_us"] = lat.get("mean")
            row[side + "_in_flight"] = None if iops is None or lat.get("mean") is None else iops * lat["mean"] / 1e6
        rows.append(row)
    return rows


# ---- formatting (pure) ---------------------------------------------------------------------------

def _num(v, digits=0):
    if v is None:
        return "-"
    return ("{:,.%df}" % digits).format(v)


def _x(v):
    return "-" if v is None else "%.2fx" % v


def _figure(side, test):
    """The cell of one side: IOPS, or MB/s for a sequential test, with the
    spread over rounds when there were several."""
    if not side:
        return "-"
    seq = parse_test_name(test)["rw"] == "read"
    text = _num(side.get("mbps"), 0) if seq else _num(side.get("iops"))
    if side.get("iops_spread") is not None:
        text += " ±%.0f%%" % (50 * side["iops_spread"])
    return text


def format_summary(rows):
    """The one table of a run: per device and test, native, firmware, each
    Linux fio variant, the best Linux variant, and the ratios."""
    variants = sorted(set(v for r in rows for v in r["linux"]),
                      key=lambda v: (LINUX_VARIANTS + (NVME_POLL_VARIANT,)).index(v)
                      if v in LINUX_VARIANTS + (NVME_POLL_VARIANT,) else 99)
    head = ["device", "test", "unit", "native", "firmware"] + ["fio " + v for v in variants] + \
        ["best Linux", "native/fw", "native/Linux"]
    lines = [head]
    for r in rows:
        unit = "MB/s" if parse_test_name(r["test"])["rw"] == "read" else "IOPS"
        cells = [r["device"], r["test"], unit, _figure(r["native"], r["test"]), _figure(r["firmware"], r["test"])]
        cells += [_figure(r["linux"].get(v), r["test"]) for v in variants]
        cells += [r["best_linux_variant"] or "-", _x(r["native_over_firmware"]), _x(r["native_over_best_linux"])]
        lines.append(cells)
    return _columns(lines) + "".join("note: %s\n" % n for n in table_notes(rows))


def table_notes(rows):
    """Where a side ran a test at another queue depth than its name says
    (a driver or firmware path that caps the depth)."""
    notes = []
    for r in rows:
        want = parse_test_name(r["test"])["qd"]
        sides = [("native", r["native"]), ("firmware", r["firmware"])]
        sides += [("fio " + v, x) for v, x in sorted(r["linux"].items())]
        for name, side in sides:
            qd = (side or {}).get("qd")
            if qd is not None and qd != want:
                notes.append("%s: %s ran %s at queue depth %d" % (r["device"], name, r["test"], qd))
    return notes


def format_sweep(rows, latency_ns):
    head = ["test", "qd", "predicted IOPS", "native IOPS", "of pred.", "mean us", "in flight", "fio IOPS",
            "of pred.", "mean us", "in flight"]
    lines = [head]
    for r in rows:
        cells = [r["test"], str(r["qd"]), _num(r["predicted_iops"])]
        for side in ("native", "fio"):
            cells += [_num(r[side + "_iops"]), _pct(r[side + "_of_predicted"]), _num(r[side + "_mean_us"]),
                      _num(r[side + "_in_flight"], 1)]
        lines.append(cells)
    return ("predicted = qd / %g us per request; in flight = IOPS x mean latency (Little's law), the queue depth"
            " really kept\n" % (latency_ns / 1e3)) + _columns(lines)


def _pct(v):
    return "-" if v is None else "%.0f%%" % (100 * v)


def _columns(lines):
    widths = [max(len(l[i]) for l in lines) for i in range(len(lines[0]))]
    out = []
    for n, l in enumerate(lines):
        out.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(l)))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


# ---- running (QEMU) ------------------------------------------------------------------------------

def ensure_disk_image(size_mib):
    """build/bench/disk-<size>M.img full of random data, made once: an
    allocated file (not sparse), so both guests read real blocks through the
    host page cache."""
    path = os.path.join(BENCH, "disk-%dM.img" % size_mib)
    if os.path.isfile(path) and os.path.getsize(path) == size_mib << 20:
        return path
    log("writing %d MiB of random data to %s" % (size_mib, path))
    os.makedirs(BENCH, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for _ in range(size_mib):
            f.write(os.urandom(1 << 20))
    os.replace(tmp, path)
    return path


def build_baremark_image():
    env = dict(os.environ)
    if "BAREMARK_BUILD" in env:
        env["BUILD"] = env["BAREMARK_BUILD"]
    log("make image")
    p = subprocess.run(["make", "--no-print-directory", "image"], cwd=ROOT, env=env, stdout=sys.stderr,
                       stderr=sys.stderr)
    if p.returncode != 0:
        raise SystemExit("make image failed")


def run_linux_fio(guest, tests, runtime, ramp, drive, devices, label, kvm, disk_bytes, kernel_args="",
                  variants=("libaio",), cpu=None):
    kernel, initrd, _ = guest
    serial_path = os.path.join(BENCH, "logs", label + ".serial.log")
    os.makedirs(os.path.dirname(serial_path), exist_ok=True)
    if os.path.exists(serial_path):
        os.unlink(serial_path)
    cmd = linux_qemu_cmd(kernel, initrd, kernel_cmdline(tests, runtime, ramp, kernel_args, variants), drive,
                         devices, serial_path, kvm=kvm, cpu=cpu)
    # above the guest's own fio limit (init: 3x the plan + 60 s) plus a slow boot
    timeout = 360 + len(tests) * len(variants) * (runtime + ramp) * 3
    log("Linux fio %s: %s (%d s each, %d s ramp)" % ("/".join(variants), ", ".join(tests), runtime, ramp))
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        qemu_out = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        qemu_out = "timed out after %d s" % timeout
    with open(serial_path, errors="replace") as f:
        serial = f.read()
    fio = extract_fio_json(serial)
    lines = guest_lines(serial)
    info = {"guest": lines, "seconds": round(time.time() - t0, 1), "serial_log": serial_path,
            "disk": guest_disk(lines)}
    if info["disk"] and info["disk"]["bytes"] != disk_bytes:
        log("Linux fio: the guest's disk has %d bytes, not %d: is it the benchmark disk?"
            % (info["disk"]["bytes"], disk_bytes))
    if fio is None:
        log("Linux fio: no fio JSON on the serial console; guest said: %s; qemu: %s; log %s"
            % ("; ".join(info["guest"]) or "nothing", qemu_out.strip()[-500:], serial_path))
        return None, info
    info["fio_version"] = fio.get("fio version")
    return fio_results(fio), info


def run_baremark(driver, disk_mode, seconds, drive, devices, label, ntests):
    import qemu_harness as qemu
    workdir = os.path.join(BENCH, "run-" + label)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    options = baremark_options(driver, disk_mode, seconds)
    log("baremark %s" % options)
    run = qemu.boot(options=options, drives=[drive], devices=devices, smp=2, memory_mib=1024,
                    timeout=240 + ntests * (seconds + 5) * 3, workdir=workdir)
    disk, results = baremark_results(run.records)
    info = {"seconds": round(run.seconds, 1), "serial_log": os.path.join(workdir, "serial.log"),
            "errors": baremark_errors(run.records), "timed_out": run.timed_out}
    if disk:
        info["disk"] = {k: disk.get(k) for k in ("id", "driver", "path", "model", "pci", "queues", "max_qd")}
    else:
        log("baremark %s: no disk with serial %s (errors: %s); log %s"
            % (driver, DISK_SERIAL, "; ".join(info["errors"]) or "none", info["serial_log"]))
    if run.timed_out:
        log("baremark %s: timed out; log %s" % (driver, info["serial_log"]))
    return results, info


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="nvme",
                    help="a device type, or several comma-separated into one table (%s)" % ", ".join(DEVICE_TYPES))
    ap.add_argument("--time", type=int, help="measured seconds per test (default 10; 3 with --latency-sweep)")
    ap.add_argument("--ramp", type=int, default=2, help="fio ramp_time, excluded like baremark's warm-up")
    ap.add_argument("--tests", default=None,
                    help="comma-separated test names (default %s)" % ",".join(COMPARE_TESTS))
    ap.add_argument("--disk-mib", type=int, default=1024)
    ap.add_argument("--skip", default="", help="comma-separated sides to leave out: fio, native, firmware")
    ap.add_argument("--rounds", type=int, default=1,
                    help="repeat every side this many times, interleaved, and report the median and spread")
    ap.add_argument("--latency-sweep", action="store_true",
                    help="null-co disk with a fixed latency: baremark disk=full RND4K-Q<n>T1 vs qd/latency")
    ap.add_argument("--fixed-latency", action="store_true",
                    help="compare on a null-co disk with a fixed per-request latency (--latency-ns, default 1 ms)")
    ap.add_argument("--latency-ns", type=int, default=None,
                    help="null-co latency (default 200000 for --latency-sweep, 1000000 for --fixed-latency)")
    ap.add_argument("--fio-variants", default=None,
                    help="fio engines to run (default all: libaio,io_uring and, on NVMe, io_uring_poll)")
    ap.add_argument("--kernel-args", default=LINUX_KERNEL_ARGS,
                    help="Linux kernel parameters (default %r; '' for the kernel's defaults)" % LINUX_KERNEL_ARGS)
    ap.add_argument("--linux-cpu", default=None, help="-cpu for the Linux guest (default: QEMU's default model)")
    ap.add_argument("--no-build", action="store_true", help="use build/baremark.img as it is")
    ap.add_argument("--json", action="store_true", help="print only a JSON summary on stdout")
    args = ap.parse_args(argv)
    args.devices = [d for d in args.device.split(",") if d]
    bad = [d for d in args.devices if d not in DEVICE_TYPES]
    if bad or not args.devices:
        ap.error("--device takes %s; not %s" % (", ".join(DEVICE_TYPES), ",".join(bad) or "nothing"))
    args.skip = set(s for s in args.skip.split(",") if s)
    bad = args.skip - set(SIDES)
    if bad:
        ap.error("--skip takes fio, native, firmware; not " + ",".join(sorted(bad)))
    if args.latency_sweep and args.fixed_latency:
        ap.error("--latency-sweep and --fixed-latency are two different runs")
    if args.latency_ns is None:
        args.latency_ns = 1000000 if args.fixed_latency else 200000
    try:
        for d in args.devices:
            linux_variants(d, args.fio_variants and args.fio_variants.split(","))
    except ValueError as e:
        ap.error(str(e))
    return args


def run_all(args, guest, drive, tests, seconds, disk_mode, kvm):
    """Every boot of run_order(); returns ({device: {side: [per round]}},
    {device: {side: [run info]}}, [load samples])."""
    results = {d: {s: [] for s in SIDES} for d in args.devices}
    info = {d: {s: [] for s in SIDES} for d in args.devices}
    samples = []
    ntests_bm = 30 if disk_mode == "full" else 4
    order = [x for x in run_order(args.devices, args.rounds) if x[2] not in args.skip]
    for n, dev, side in order:
        tag = "%s-%s%s" % (dev, side, "" if args.rounds == 1 else "-r%d" % (n + 1))
        devices = device_args(dev)
        sample = {"run": tag, "load": [round(os.getloadavg()[0], 2)], "calib_s": calibration_loop_s()}
        if side == "fio":
            variants = linux_variants(dev, args.fio_variants and args.fio_variants.split(","))
            res, i = run_linux_fio(guest, tests, seconds, args.ramp, drive, devices, "linux-" + tag, kvm,
                                   args.disk_mib << 20, args.kernel_args, variants, args.linux_cpu)
            res = fio_by_variant(res)
        else:
            res, i = run_baremark(side, disk_mode, seconds, drive, devices, tag, ntests_bm)
        sample["load"].append(round(os.getloadavg()[0], 2))
        samples.append(sample)
        i["load"] = sample["load"]
        results[dev][side].append(res)
        info[dev][side].append(i)
    return results, info, samples


def print_run_info(info):
    for dev, sides in info.items():
        for i in sides["fio"][:1]:
            d = i.get("disk") or {}
            print("  %s fio: /dev/%s, %s bytes, %s" % (dev, d.get("name"), d.get("bytes"), i.get("fio_version")))
        for side in ("native", "firmware"):
            for n, i in enumerate(sides[side]):
                if i.get("disk") and n == 0:
                    d = i["disk"]
                    print("  %s %s: %s %s via %s/%s" % (dev, side, d.get("id"), d.get("model"), d.get("driver"),
                                                        d.get("path")))
                elif not i.get("disk"):
                    print("  %s %s: found no disk with serial %s%s" % (dev, side, DISK_SERIAL,
                                                                       " (timed out)" if i.get("timed_out") else ""))
                for e in i.get("errors", []):
                    print("  %s %s error: %s" % (dev, side, e))


def main(argv=None):
    args = parse_args(argv)
    kvm = os.environ.get("BAREMARK_KVM") == "1"
    skip = args.skip
    if args.latency_sweep:
        # OVMF's NVMe/AHCI drivers keep about one request in flight: no curve to show
        skip.add("firmware")
        seconds = args.time or 3
        tests = args.tests.split(",") if args.tests else list(SWEEP_FIO_TESTS)
        drive = drive_arg(latency_ns=args.latency_ns, size_mib=args.disk_mib)
        disk_mode = "full"
    else:
        seconds = args.time or 10
        tests = args.tests.split(",") if args.tests else list(COMPARE_TESTS)
        drive = drive_arg(latency_ns=args.latency_ns, size_mib=args.disk_mib) if args.fixed_latency else None
        disk_mode = "quick"
    for t in tests:
        parse_test_name(t)

    guest = None
    if "fio" not in skip:
        import build_guest
        guest = build_guest.build(os.path.join(BENCH, "linux"), log=log)
    if {"native", "firmware"} - skip and not args.no_build:
        build_baremark_image()
    if drive is None:
        drive = drive_arg(image=ensure_disk_image(args.disk_mib))

    results, info, samples = run_all(args, guest, drive, tests, seconds, disk_mode, kvm)
    ncpu = os.cpu_count() or 1
    summary = {
        "devices": args.devices,
        "qemu": {"machine": "q35", "smp": 2, "memory_mib": 1024, "accel": "kvm" if kvm else "tcg",
                 "drive": drive, "linux_cpu": args.linux_cpu or "default",
                 "devices": {d: device_args(d) for d in args.devices}},
        "seconds_per_test": seconds,
        "rounds": args.rounds,
        "order": ["%s %s" % (dev, side) for n, dev, side in run_order(args.devices, 1) if side not in skip],
        "load": samples,
        "load_notes": load_notes(samples, ncpu),
        "runs": info,
    }
    if guest:
        summary["linux_kernel"] = guest[2]
        summary["kernel_args"] = args.kernel_args
    if args.fixed_latency or args.latency_sweep:
        summary["latency_ns"] = args.latency_ns
    rows, got_any = [], False
    for dev in args.devices:
        native, firmware = (median_results(results[dev][s]) for s in ("native", "firmware"))
        linux = median_linux(results[dev]["fio"])
        got_any = got_any or bool(native or firmware or any(linux.values()))
        if args.latency_sweep:
            best = {t: best_linux(linux, t)[1] for t in tests}
            summary.setdefault("sweep", {})[dev] = sweep_rows(args.latency_ns, native,
                                                              {t: r for t, r in best.items() if r})
        else:
            rows += round_ratios(summary_rows(dev, tests, native, firmware, linux), results[dev])
    if not args.latency_sweep:
        summary["results"] = rows
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        what = "null-co, %d us per request" % (args.latency_ns // 1000) if args.latency_sweep or args.fixed_latency \
            else "%d MiB raw image" % args.disk_mib
        linux = ", Linux %s (%s)" % (guest[2], args.kernel_args or "no extra args") if guest else ""
        print("%s (%s), q35 -smp 2, %s, %d s per test, %d round%s%s" % (
            ",".join(args.devices), what, "KVM" if kvm else "TCG", seconds, args.rounds,
            "" if args.rounds == 1 else "s", linux))
        print_run_info(info)
        if args.latency_sweep:
            for dev in args.devices:
                print("%s:" % dev)
                print(format_sweep(summary["sweep"][dev], args.latency_ns), end="")
        else:
            print(format_summary(rows), end="")
            if args.rounds > 1:
                print(format_round_ratios(rows), end="")
        for n in summary["load_notes"]:
            print("load: " + n)
    # Figures are printed, not judged; a run where no side produced any is a failure of the tool.
    return 0 if got_any else 1


if __name__ == "__main__":
    sys.exit(main())
