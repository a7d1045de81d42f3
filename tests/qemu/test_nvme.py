"""Native NVMe driver under QEMU's emulated NVMe controller (1b36:0010),
driven by the real disk engine with driver=native.

Every boot also logs QEMU's guest errors: the NVMe model reports malformed
PRPs, doorbell writes and queue commands there, so a clean log is part of
each test.

time=300ms warmup=50ms: the checks are about namespaces, errors and queue
depth; on the 2 ms disk a 300 ms window still holds 150 commands at QD1 and
thousands at QD32, so the IOPS bounds and ratio hold as with 1 s (a 100 ms
window held a single 4K read once, the host stalling QEMU 150 ms: 0 MB/s). The split test keeps
time=1: its MB/s = IOPS x 1 MiB check compares two rounded figures, which
a window of one or two 1 MiB reads (128 commands each) does not settle."""
import os
import re
import shutil

import qemu

QUICK_READS = {"SEQ1M-Q8T1": "read", "SEQ1M-Q1T1": "read", "RND4K-Q32T1": "randread", "RND4K-Q1T1": "randread"}
BDF_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
LATENCY_NS = 2000000  # the fixed per-request latency of the null-co disk


def _boot(workdir, drives, devices, options="mem=off disk=quick time=300ms warmup=50ms driver=native"):
    log = os.path.join(workdir, "qemu-guest-errors.log")
    run = qemu.boot(options=options, drives=drives, devices=devices, timeout=300, workdir=workdir,
                    extra_args=["-d", "guest_errors", "-D", log])
    assert not run.timed_out, run.serial[-3000:]
    with open(log, errors="replace") as f:
        nvme_complaints = [l for l in f if "nvme" in l.lower()]
    assert not nvme_complaints, "QEMU's NVMe model logged guest errors:\n" + "".join(nvme_complaints[:20])
    return run


def _disks_by_serial(run):
    out = {}
    for d in run.of_type("disk"):
        out.setdefault(d["serial"], []).append(d)
    return out


def _results(run, disk_id):
    return {r["test"]: r for r in run.of_type("disk_result") if r["disk"] == disk_id}


def _assert_quick_reads(run, disk_id):
    got = _results(run, disk_id)
    for test, rw in QUICK_READS.items():
        assert test in got, "%s: no %s result in %r" % (disk_id, test, sorted(got))
        r = got[test]
        assert r["rw"] == rw, r
        assert r["ios"] > 0 and r["iops"] > 0 and r["mbps"] > 0, r
        assert 0 < r["lat_us"]["p50"] <= r["lat_us"]["max"], r


def test_512_and_4k_namespaces_and_two_namespaces_on_one_controller():
    """Also, on the second controller (which offers CAP.CSS bit 6, so CC.CSS
    = 110b): a namespace formatted with type 1 protection information in 8
    bytes of metadata (ms=8,pi=1), measured with PRACT; and a zoned one,
    named in a note and not measured."""
    workdir = qemu.tempdir(prefix="baremark-nvme-")
    try:
        a = qemu.make_disk(os.path.join(workdir, "a.img"), 64)
        b = qemu.make_disk(os.path.join(workdir, "b.img"), 32)
        c = qemu.make_disk(os.path.join(workdir, "c.img"), 16)
        p = qemu.make_disk(os.path.join(workdir, "p.img"), 16)
        z = qemu.make_disk(os.path.join(workdir, "z.img"), 16)
        run = _boot(workdir,
                    drives=["file=%s,if=none,id=A,format=raw" % a,
                            "file=%s,if=none,id=B,format=raw" % b,
                            "file=%s,if=none,id=C,format=raw" % c,
                            "file=%s,if=none,id=P,format=raw" % p,
                            "file=%s,if=none,id=Z,format=raw" % z],
                    devices=["nvme,drive=A,serial=NV512",
                             "nvme,id=nc,serial=NVTWO",
                             "nvme-ns,bus=nc,drive=B,nsid=1,logical_block_size=4096,physical_block_size=4096",
                             "nvme-ns,bus=nc,drive=C,nsid=2",
                             "nvme-ns,bus=nc,drive=P,nsid=3,ms=8,pi=1",
                             "nvme-ns,bus=nc,drive=Z,nsid=4,zoned=true,zoned.zone_size=4M"])
        assert run.of_type("error") == [], run.of_type("error")
        assert run.end()["status"] == "ok", run.end()
        disks = _disks_by_serial(run)
        assert sorted(disks) == ["NV512", "NVTWO"], disks

        (one,) = disks["NV512"]
        assert re.match(r"^nvme\d+n1$", one["id"]), one
        assert one["lba_bytes"] == 512 and one["blocks"] == 64 * 1024 * 1024 // 512, one
        assert "pi_type" not in one, one

        two = sorted(disks["NVTWO"], key=lambda d: d["id"])
        assert len(two) == 3, two
        ctrl = re.match(r"^(nvme\d+)n1$", two[0]["id"])
        assert ctrl and two[1]["id"] == ctrl.group(1) + "n2", two
        assert two[2]["id"] == ctrl.group(1) + "n3", two
        assert ctrl.group(1) != one["id"][:-2], "controllers must be numbered apart"
        assert two[0]["lba_bytes"] == 4096 and two[0]["blocks"] == 32 * 1024 * 1024 // 4096, two[0]
        assert two[1]["lba_bytes"] == 512 and two[1]["blocks"] == 16 * 1024 * 1024 // 512, two[1]
        assert two[0]["pci"] == two[1]["pci"] == two[2]["pci"] != one["pci"]
        # ms=8,pi=1: 512-byte blocks, 8 bytes of PI the controller inserts and strips
        assert two[2]["lba_bytes"] == 512 and two[2]["pi_type"] == 1, two[2]
        # the zoned namespace is named, not measured
        notes = [n["message"] for n in run.of_type("note") if n.get("where") == two[0]["pci"]]
        assert any("namespace 4 skipped: zoned namespace: not measured" in n for n in notes), notes

        for d in [one] + two:
            assert d["driver"] == "nvme" and d["path"] == "native", d
            assert d["model"] == "QEMU NVMe Ctrl" and d["firmware"], d
            assert BDF_RE.match(d["pci"]), d
            # QEMU: 64 queue pairs, MQES 2047, MDTS 7 (512 KiB)
            assert d["queues"] == 16 and d["max_qd"] == 1024, d
            assert d["max_transfer_bytes"] == 512 * 1024, d
            assert d["bytes"] == d["blocks"] * d["lba_bytes"]
            _assert_quick_reads(run, d["id"])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def test_queue_is_kept_full_on_a_fixed_latency_disk():
    """null-co answers every request after LATENCY_NS: QD1 can do at most
    1/latency IOPS, QD32 up to 32 times that. Many times QD1's IOPS at QD32
    means 32 commands really were in flight at once."""
    workdir = qemu.tempdir(prefix="baremark-nvme-")
    try:
        run = _boot(workdir,
                    drives=["driver=null-co,size=1G,latency-ns=%d,read-zeroes=on,if=none,id=L" % LATENCY_NS],
                    devices=["nvme,drive=L,serial=NVLAT"])
        assert run.of_type("error") == [], run.of_type("error")
        (d,) = _disks_by_serial(run)["NVLAT"]
        got = _results(run, d["id"])
        q1, q32 = got["RND4K-Q1T1"], got["RND4K-Q32T1"]
        latency_us = LATENCY_NS / 1000.0
        bound_q1 = 1e9 / LATENCY_NS
        # Nothing completes faster than the device's latency...
        assert q1["lat_us"]["p50"] >= 0.95 * latency_us, q1
        assert q32["lat_us"]["p50"] >= 0.95 * latency_us, q32
        # ...so the IOPS are bounded by what the queue depth allows...
        assert q1["iops"] <= 1.05 * bound_q1, q1
        assert q32["iops"] <= 1.05 * 32 * bound_q1, q32
        # ...and a full queue reaches many times QD1.
        assert q32["iops"] >= 8 * q1["iops"], (q1["iops"], q32["iops"])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def test_read_error_is_reported_with_its_nvme_status():
    """A namespace whose reads fail (blkdebug EIO -> QEMU's Unrecovered Read
    Error) gives an error record with the decoded status; a healthy NVMe disk
    in the same run still finishes."""
    workdir = qemu.tempdir(prefix="baremark-nvme-")
    try:
        bad = qemu.make_disk(os.path.join(workdir, "bad.img"), 16)
        good = qemu.make_disk(os.path.join(workdir, "good.img"), 16)
        rules = os.path.join(workdir, "blkdebug.conf")
        with open(rules, "w") as f:
            f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
        run = _boot(workdir,
                    drives=["file=blkdebug:%s:%s,if=none,id=E,format=raw" % (rules, bad),
                            "file=%s,if=none,id=G,format=raw" % good],
                    devices=["nvme,drive=E,serial=NVERR", "nvme,drive=G,serial=NVGOOD"])
        disks = _disks_by_serial(run)
        (bad_disk,), (good_disk,) = disks["NVERR"], disks["NVGOOD"]
        errors = [e for e in run.of_type("error") if e["where"] == bad_disk["id"]]
        assert errors, run.of_type("error")
        assert "SCT 2h SC 81h: Unrecovered Read Error" in errors[0]["message"], errors[0]
        _assert_quick_reads(run, good_disk["id"])
        assert run.end()["status"] == "error"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def test_split_transfers_and_controllers_nobody_can_drive():
    """A controller limited to 8 KiB per command (MDTS 1) still runs the
    1 MiB tests, each split into commands but counted as one I/O; a
    namespace formatted with metadata, a SCSI controller neither we nor
    OVMF drive, and the namespaces past the 32 we take from one controller
    are each named in a note instead of silently missing."""
    workdir = qemu.tempdir(prefix="baremark-nvme-")
    try:
        s = qemu.make_disk(os.path.join(workdir, "s.img"), 32)
        m = qemu.make_disk(os.path.join(workdir, "m.img"), 16)
        l = qemu.make_disk(os.path.join(workdir, "l.img"), 16)
        run = _boot(workdir,
                    drives=["file=%s,if=none,id=S,format=raw" % s,
                            "file=%s,if=none,id=M,format=raw" % m,
                            "file=%s,if=none,id=L,format=raw" % l] +
                           ["driver=null-co,size=1M,read-zeroes=on,if=none,id=X%d" % i for i in range(1, 35)],
                    # the unusable controller first: its failed probe must not use up nvme0
                    devices=["nvme,id=nm,serial=NVMETA", "nvme-ns,bus=nm,drive=M,ms=8,mset=1",
                             "nvme,id=ns,serial=NVSPLIT,mdts=1,max_ioqpairs=1", "nvme-ns,bus=ns,drive=S",
                             "lsi53c895a,id=lsi", "scsi-hd,bus=lsi.0,drive=L,serial=LSI0",
                             "nvme,id=nx,serial=NVMANYNS"] +
                            ["nvme-ns,bus=nx,drive=X%d,nsid=%d" % (i, i) for i in range(1, 35)],
                    options="mem=off disk=quick time=1 disks=NVSPLIT")  # time=1: see the module docstring
        assert run.end()["status"] == "ok", run.end()
        (d,) = _disks_by_serial(run)["NVSPLIT"]
        assert d["path"] == "native" and d["max_transfer_bytes"] == 8192 and d["queues"] == 1, d
        assert d["id"] == "nvme0n1", d
        _assert_quick_reads(run, d["id"])
        seq = _results(run, d["id"])["SEQ1M-Q8T1"]
        assert seq["bs"] == 1 << 20, seq
        # one I/O per 1 MiB, not per 8 KiB command: MB/s == IOPS x 1 MiB
        assert abs(seq["mbps"] - seq["iops"] * seq["bs"] / 1e6) <= 0.02 * seq["mbps"] + 0.1, seq

        notes = {}
        for n in run.of_type("note"):
            notes.setdefault(n["where"], []).append(n["message"])
        pci = {p["device"]: p["bdf"] for p in run.of_type("pci")}
        lsi = " | ".join(notes.get(pci["0x0012"], []))
        assert "1000:0012" in lsi and "no disk found" in lsi and "no driver" in lsi, notes
        many = _disks_by_serial(run)["NVMANYNS"]
        assert {x["id"].split("n")[-1] for x in many} == {str(i) for i in range(1, 33)}, many
        many_note = " | ".join(notes.get(many[0]["pci"], []))
        assert "32 of 34 namespaces used" in many_note and "at most 32" in many_note, notes
        meta_bdf = [p["bdf"] for p in run.of_type("pci")
                    if p["device"] == "0x0010" and p["bdf"] not in (d["pci"], many[0]["pci"])]
        assert len(meta_bdf) == 1, run.of_type("pci")
        meta = " | ".join(notes.get(meta_bdf[0], []))
        assert "metadata" in meta and "no disk found" in meta, notes
        assert "NVMETA" not in _disks_by_serial(run), "a metadata namespace must not be benchmarked"
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
