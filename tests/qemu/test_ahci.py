"""AHCI driver under QEMU: ich9-ahci controllers (q35's built-in 00:1f.2 and
an added one), ATA disks found on the ports they sit on, ATAPI and empty
ports skipped, a 512e disk, NCQ keeping 32 commands in flight on a disk
with a fixed latency, and a disk that fails every read while the disks
beside it on the same controller finish their tests."""
import os

import qemu

# time=100ms warmup=50ms: 0.1 s windows after a 50 ms warm-up (each disk's four
# tests and the two all-disks ones); the 1 ms disk still does about 100 I/Os
# at QD1 in one.
OPTIONS = "mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown"
QUICK_TESTS = {"SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"}


def _results(run, disk_id):
    """The disk's own results (not the all-disks runs), by test name."""
    return {r["test"]: r for r in run.of_type("disk_result")
            if r["disk"] == disk_id and "concurrent" not in r}


def _disks(run):
    return {d["id"]: d for d in run.of_type("disk")}


def _finished(run):
    assert not run.timed_out, run.serial[-3000:]
    assert run.returncode == 0, "QEMU should power off by itself:\n" + run.serial[-3000:]


def test_ahci_builtin_controller_one_disk_on_port_2():
    work = qemu.tempdir(prefix="baremark-ahci-")
    img = qemu.make_disk(os.path.join(work, "d.img"), 64)
    # q35's own ICH9 AHCI at 00:1f.2; its bus ide.2 is SATA port 2.
    run = qemu.boot(options=OPTIONS, devices=["ide-hd,drive=d0,bus=ide.2,serial=AHCIONE,model=Baremark Test Disk"],
                    drives=["if=none,id=d0,format=raw,file=" + img], timeout=240)
    _finished(run)
    disks = _disks(run)
    assert list(disks) == ["ahci0p2"], disks
    d = disks["ahci0p2"]
    assert d["driver"] == "ahci" and d["path"] == "native" and d["pci"] == "0000:00:1f.2", d
    # IDENTIFY DEVICE: strings byte-swapped back, 48-bit capacity.
    assert d["model"] == "Baremark Test Disk" and d["serial"] == "AHCIONE" and d["firmware"], d
    assert d["lba_bytes"] == 512 and "phys_bytes" not in d and d["blocks"] == 64 * 2048, d
    assert d["link_gbps"] == 1.5, d  # QEMU reports a Gen1 link in PxSSTS.SPD
    assert d["max_qd"] == 32 and d["queues"] == 1 and d["max_transfer_bytes"] == 4 << 20, d
    results = _results(run, "ahci0p2")
    assert set(results) == QUICK_TESTS, results
    for r in results.values():
        assert r["ios"] > 0 and r["iops"] > 0, r
    # Five empty ports skipped quietly: no error, no note about them.
    assert run.of_type("error") == [], run.of_type("error")
    for port in (0, 1, 3, 4, 5):
        assert not [r for r in run.of_type("log")
                    if r.get("where") == "0000:00:1f.2" and r["message"].startswith("port %d:" % port)], port
    assert run.end()["status"] == "ok"


def test_ahci_four_disks_512e_cdrom_error_and_queue_depth():
    work = qemu.tempdir(prefix="baremark-ahci-")
    good = qemu.make_disk(os.path.join(work, "good.img"), 64)
    e512 = qemu.make_disk(os.path.join(work, "512e.img"), 64)
    bad = qemu.make_disk(os.path.join(work, "bad.img"), 64)
    rules = os.path.join(work, "blkdebug.conf")
    with open(rules, "w") as f:
        # Every read of this disk fails with EIO: the device answers with
        # an aborted command (ATA error register ABRT).
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
    devices = [
        "ich9-ahci,id=ahci",
        "ide-hd,drive=d0,bus=ahci.0,serial=AHCIGOOD",
        "ide-hd,drive=d1,bus=ahci.1,serial=AHCI512E,physical_block_size=4096",
        "ide-cd,drive=cd,bus=ahci.2",
        # port 3 stays empty
        "ide-hd,drive=d4,bus=ahci.4,serial=AHCIBAD",
        "ide-hd,drive=d5,bus=ahci.5,serial=AHCISLOW",
    ]
    drives = [
        "if=none,id=d0,format=raw,file=" + good,
        "if=none,id=d1,format=raw,file=" + e512,
        "if=none,id=cd",
        "if=none,id=d4,format=raw,file=blkdebug:%s:%s" % (rules, bad),
        # Each request takes 1 ms: only a queue that really holds many
        # commands at once can do better than 1000 IOPS.
        "if=none,id=d5,driver=null-co,size=1G,latency-ns=1000000,read-zeroes=on",
    ]
    run = qemu.boot(options=OPTIONS, devices=devices, drives=drives, timeout=300)
    _finished(run)

    # The added controller is ahci0 (00:03.0 comes before 00:1f.2); the CD
    # and the empty port have no disk record.
    disks = _disks(run)
    assert sorted(disks) == ["ahci0p0", "ahci0p1", "ahci0p4", "ahci0p5"], disks
    assert {d["serial"] for d in disks.values()} == {"AHCIGOOD", "AHCI512E", "AHCIBAD", "AHCISLOW"}
    assert "ATAPI device (signature eb140101) skipped" in run.serial
    assert disks["ahci0p1"]["lba_bytes"] == 512 and disks["ahci0p1"]["phys_bytes"] == 4096, disks["ahci0p1"]
    assert disks["ahci0p5"]["blocks"] == (1 << 30) // 512
    assert not any("cd" in n["message"].lower() for n in run.of_type("error")), "an ATAPI port is no error"

    # The failing disk: one error record, decoded from the ATA registers,
    # after the driver recovered the port (AHCI 1.3.1 section 6.2.2).
    errors = run.of_type("error")
    assert [e["where"] for e in errors] == ["ahci0p4"], errors
    assert "I/O error" in errors[0]["message"] and "ABRT" in errors[0]["message"], errors[0]
    # The recovery is a driver diagnostic: a log record naming the disk.
    logs = [r["message"] for r in run.of_type("log") if r.get("where") == "ahci0p4"]
    assert any(m.startswith("ABRT") and "recovering" in m for m in logs), logs
    atapi = [r for r in run.of_type("log") if r.get("where") == "0000:00:03.0" and "port 2: ATAPI" in r["message"]]
    assert atapi, run.of_type("log")
    assert _results(run, "ahci0p4") == {}

    # The disks beside it on the same controller finish every test, alone
    # and all together.
    for disk_id in ("ahci0p0", "ahci0p1", "ahci0p5"):
        results = _results(run, disk_id)
        assert set(results) == QUICK_TESTS, (disk_id, results)
    together = [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert {r["test"] for r in together} == {"ALL3-SEQ1M-Q8T1", "ALL3-RND4K-Q32T1"}, together
    for r in together:
        assert sorted(r["disks"]) == ["ahci0p0", "ahci0p1", "ahci0p5"], r
        assert r["ios"] > 0, r

    # NCQ: 32 commands in flight on the 1 ms disk beat one at a time by far.
    slow = _results(run, "ahci0p5")
    q1, q32 = slow["RND4K-Q1T1"]["iops"], slow["RND4K-Q32T1"]["iops"]
    assert q1 <= 1000, slow["RND4K-Q1T1"]
    assert q32 >= 4 * q1, "QD32 %d IOPS vs QD1 %d IOPS" % (q32, q1)
    assert run.end()["status"] == "error" and run.end()["errors"] == 1
