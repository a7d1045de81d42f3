"""The disk benchmark through the firmware path (driver=firmware), under
QEMU + OVMF: OVMF's NVMe and AHCI drivers give Block I/O disks, so these
tests do not depend on baremark's native drivers.

Each test boots once (about 30 s under TCG, most of it OVMF); disks are
small and time=1 keeps the workloads short.
"""
import hashlib
import os
import subprocess
import tempfile

import qemu

STICK_SERIAL = "BOOTSTICK"
STICK = ("-global", "usb-storage.serial=" + STICK_SERIAL)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def gpt_disk(path, size_mib):
    """A disk full of random data with a GPT and one partition on it."""
    qemu.make_disk(path, size_mib, fill="random")
    subprocess.run(["sgdisk", "--new=1:2048:0", "--typecode=1:8300", path], check=True, capture_output=True)
    return path


def records_for(run, disk):
    return [r for r in run.of_type("disk_result") if r["disk"] == disk]


def disk_by_serial(run, serial):
    ds = [d for d in run.of_type("disk") if d["serial"] == serial]
    assert len(ds) == 1, "expected one disk with serial %s: %s" % (serial, run.of_type("disk"))
    return ds[0]


def check_result_fields(r):
    for k in ("disk", "test", "rw", "bs", "qd", "threads", "seconds", "ios", "mbps", "iops", "lat_us"):
        assert k in r, "disk_result without %s: %s" % (k, r)
    lat = r["lat_us"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"], r
    assert r["ios"] > 0 and r["mbps"] > 0 and r["iops"] > 0, r
    assert abs(r["iops"] - r["ios"] / r["seconds"]) <= 1, r
    assert abs(r["mbps"] - r["ios"] * r["bs"] / r["seconds"] / 1e6) <= 0.1 + r["mbps"] * 1e-3, r


def fail_with_log(run, msg):
    raise AssertionError(msg + "\n--- serial log tail ---\n" + run.serial[-4000:])


def test_default_run_reads_nvme_and_ahci_and_leaves_data_alone():
    work = tempfile.mkdtemp(prefix="baremark-disk-")
    nvme, sata = gpt_disk(os.path.join(work, "nvme.img"), 64), gpt_disk(os.path.join(work, "sata.img"), 48)
    before = sha256(nvme), sha256(sata)
    run = qemu.boot(options="mem=off disk=quick time=1 driver=firmware disks=NVME0001,SATA0001 exit=shutdown",
                    drives=["if=none,id=n1,format=raw,file=" + nvme, "if=none,id=s1,format=raw,file=" + sata],
                    devices=["nvme,drive=n1,serial=NVME0001", "ide-hd,bus=ide.0,drive=s1,serial=SATA0001"],
                    extra_args=STICK, timeout=240)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    assert run.end()["status"] == "ok", run.end()
    # The data disks are untouched by a default (read-only) run.
    assert (sha256(nvme), sha256(sata)) == before

    n = disk_by_serial(run, "NVME0001")
    s = disk_by_serial(run, "SATA0001")
    stick = disk_by_serial(run, STICK_SERIAL)
    # Identity from NVMe Identify Controller and ATA IDENTIFY, size from Block I/O.
    assert n["model"] == "QEMU NVMe Ctrl" and n["driver"] == "blockio2" and n["path"] == "firmware", n
    assert n["lba_bytes"] == 512 and n["blocks"] == 64 * 2048 and n["bytes"] == 64 << 20, n
    assert s["model"] == "QEMU HARDDISK" and s["blocks"] == 48 * 2048 and s["pci"] == "0000:00:1f.2", s
    assert stick["boot"] is True and stick["selected"] is False and n["boot"] is False
    assert n["writes"] is False and s["writes"] is False

    quick = ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"]
    for d in (n, s):
        alone = [r for r in records_for(run, d["id"]) if "concurrent" not in r]
        assert [r["test"] for r in alone] == quick, alone
        assert [r["rw"] for r in alone] == ["read", "read", "randread", "randread"], alone
        for r in alone:
            check_result_fields(r)
        assert [r["qd"] for r in alone] == [8, 1, 32, 1], alone
    assert not records_for(run, stick["id"])

    # Both disks at once: a record per disk plus one for "all".
    agg = [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert [r["test"] for r in agg] == ["SEQ1M-Q8T1", "RND4K-Q32T1"], agg
    for r in agg:
        assert sorted(r["disks"]) == sorted([n["id"], s["id"]]) and r["concurrent"] == 2, r
        check_result_fields(r)
        per_disk = [x for x in run.of_type("disk_result")
                    if x.get("concurrent") == 2 and x["disk"] != "all" and x["test"] == r["test"]]
        assert len(per_disk) == 2, per_disk
        assert r["ios"] == sum(x["ios"] for x in per_disk), (r, per_disk)
        assert 0 <= r["core_busy_pct"] <= 100


def test_write_run_writes_named_disk_and_refuses_boot_stick():
    work = tempfile.mkdtemp(prefix="baremark-disk-")
    target, other = gpt_disk(os.path.join(work, "target.img"), 32), gpt_disk(os.path.join(work, "other.img"), 32)
    k4 = qemu.make_disk(os.path.join(work, "k4.img"), 16)
    before_target, before_other = sha256(target), sha256(other)
    with open(target, "rb") as f:
        original = f.read()
    run = qemu.boot(options="mem=off disk=quick time=1 driver=firmware exit=shutdown disks=WRITEME "
                            "write=WRITEME," + STICK_SERIAL,
                    drives=["if=none,id=t,format=raw,file=" + target, "if=none,id=o,format=raw,file=" + other,
                            "if=none,id=k,format=raw,file=" + k4],
                    devices=["nvme,drive=t,serial=WRITEME", "nvme,drive=o,serial=KEEPME",
                             "nvme,id=n4k,serial=FOURK",
                             "nvme-ns,bus=n4k,drive=k,nsid=1,logical_block_size=4096,physical_block_size=4096"],
                    extra_args=STICK, timeout=240)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    stick = disk_by_serial(run, STICK_SERIAL)
    t = disk_by_serial(run, "WRITEME")
    assert stick["boot"] is True and stick["writes"] is False
    assert t["writes"] is True
    # write= naming the boot stick is refused, loudly, and the run says so.
    refusals = [e for e in run.of_type("error") if e["where"] == stick["id"]]
    assert len(refusals) == 1 and "refused" in refusals[0]["message"], run.of_type("error")
    assert run.end()["status"] == "error" and run.end()["errors"] == 1, run.end()
    assert not [r for r in run.of_type("disk_result") if r["disk"] == stick["id"]]

    # A 4 KiB-sector namespace is seen with its real geometry.
    k = disk_by_serial(run, "FOURK")
    assert k["lba_bytes"] == 4096 and k["blocks"] == 16 * 256, k

    writes = [r for r in records_for(run, t["id"]) if r["rw"] in ("write", "randwrite")]
    assert [r["test"] for r in writes] == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"], writes
    for r in writes:
        check_result_fields(r)

    # The named disk was really written, with data that is neither zeros
    # nor one block repeated; the other disk was not touched.
    assert sha256(other) == before_other
    assert sha256(target) != before_target
    with open(target, "rb") as f:
        now = f.read()
    changed = [now[i:i + 512] for i in range(0, len(now), 512) if now[i:i + 512] != original[i:i + 512]]
    assert len(changed) > 1000, len(changed)
    assert not any(b == bytes(512) for b in changed)
    assert len(set(changed)) == len(changed)


def test_disk_with_read_errors_fails_alone():
    work = tempfile.mkdtemp(prefix="baremark-disk-")
    bad, good = qemu.make_disk(os.path.join(work, "bad.img"), 16, fill="random"), \
        qemu.make_disk(os.path.join(work, "good.img"), 16, fill="random")
    rules = os.path.join(work, "rules.cfg")
    with open(rules, "w") as f:
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
    run = qemu.boot(options="mem=off disk=quick time=1 driver=firmware exit=shutdown disks=BADDISK,GOODDISK",
                    drives=["file=blkdebug:%s:%s,if=none,id=b,format=raw" % (rules, bad),
                            "if=none,id=g,format=raw,file=" + good],
                    devices=["nvme,drive=b,serial=BADDISK", "nvme,drive=g,serial=GOODDISK"],
                    extra_args=STICK, timeout=240)
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    b, g = disk_by_serial(run, "BADDISK"), disk_by_serial(run, "GOODDISK")
    errors = [e for e in run.of_type("error") if e["where"] == b["id"]]
    assert len(errors) == 1, run.of_type("error")
    msg = errors[0]["message"]
    assert "SEQ1M-Q8T1" in msg and "BADDISK" in msg and "EFI_DEVICE_ERROR" in msg, msg
    assert not records_for(run, b["id"])
    assert [r["test"] for r in records_for(run, g["id"])] == ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1",
                                                              "RND4K-Q1T1"]
    assert run.end()["status"] == "error" and run.end()["errors"] == 1, run.end()
