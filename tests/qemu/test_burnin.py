"""Burn-in: passes over disks found once, health logs before and after,
verify= on writable disks (and a disk that loses its writes), limits that
turn results into verdicts, per-test statistics in the end record."""
import os

import qemu


def test_two_passes_with_verify_health_and_limits():
    work = qemu.tempdir("baremark-burnin-")
    good = qemu.make_disk(os.path.join(work, "good.img"), 64)
    # null-co drops every write and reads back zeros: a disk that loses data
    sata = qemu.make_disk(os.path.join(work, "sata.img"), 32)
    drives = ["file=%s,if=none,id=G,format=raw" % good,
              "driver=null-co,size=64M,read-zeroes=on,if=none,id=L",
              "file=%s,if=none,id=S,format=raw" % sata]
    devices = ["nvme,drive=G,serial=GOODDISK", "nvme,drive=L,serial=LOSSY",
               "ide-hd,drive=S,bus=ide.0,serial=SATADISK"]  # q35's built-in AHCI
    options = ("mem=off disk=quick time=100ms warmup=50ms driver=native passes=2 write=GOODDISK,LOSSY verify=2M "
               "min_mbps=SEQ1M-Q8T1:0.001 max_lat_us=RND4K-Q1T1:0.5 exit=shutdown")
    run = qemu.boot(options=options, drives=drives, devices=devices, timeout=600, workdir=work)
    assert not run.timed_out, run.serial[-3000:]
    # the HTML report is rewritten when pass 2 starts (a reset then leaves pass 1's page), and at the end
    assert run.serial.count(".html (after a pass)") == 1 and run.serial.count(".html (end of run)") == 1
    disks = {d["serial"]: d["id"] for d in run.of_type("disk")}
    assert sorted(disks) == ["GOODDISK", "LOSSY", "SATADISK"], \
        "disks are found once, not per pass: %r" % run.of_type("disk")
    good_id, lossy_id, sata_id = disks["GOODDISK"], disks["LOSSY"], disks["SATADISK"]

    # every pass's results are numbered
    passes = {(r["disk"], r.get("pass")) for r in run.of_type("disk_result") if r["test"] == "SEQ1M-Q8T1"
              and r["rw"] == "read"}
    assert passes == {(d, p) for d in (good_id, lossy_id, sata_id) for p in (1, 2)}, passes

    # the drive's own health log brackets the run
    health = [(h["disk"], h["when"]) for h in run.of_type("health")]
    assert sorted(health) == sorted([(d, w) for d in (good_id, lossy_id, sata_id) for w in ("before", "after")]), \
        health
    ata = next(x for x in run.of_type("health") if x["disk"] == sata_id and x["when"] == "after")
    assert ata["source"] == "ata_smart" and ata["attributes"], ata
    assert ata["smart_passed"] is True, ata
    h = next(x for x in run.of_type("health") if x["disk"] == good_id and x["when"] == "after")
    assert h["source"] == "nvme_smart_log" and h["temperature_c"] > 0, h
    before = next(x for x in run.of_type("health") if x["disk"] == good_id and x["when"] == "before")
    assert h["data_written_bytes"] > before.get("data_written_bytes", 0), (before, h)

    # verify: the real disk passes both times, the one that drops writes fails
    v = {(x["disk"], x["pass"]): x for x in run.of_type("verify")}
    assert set(v) == {(good_id, 1), (good_id, 2), (lossy_id, 1), (lossy_id, 2)}, sorted(v)  # SATADISK: not in write=
    assert v[(good_id, 1)]["result"] == "pass" and v[(good_id, 2)]["bad_blocks"] == 0
    assert v[(good_id, 1)]["bytes"] == 2 * 1024 * 1024
    bad = v[(lossy_id, 1)]
    assert bad["result"] == "fail" and bad["bad_blocks"] == bad["blocks"] > 0, bad
    assert v[(lossy_id, 2)]["result"] == "fail"  # checked again each pass, somewhere else
    assert bad["bad_lba"][0] == bad["first_lba"], bad
    assert any(e["where"] == lossy_id and "verify failed" in e["message"] for e in run.of_type("error"))

    # limits: a generous bound passes, an impossible one fails
    verdicts = {(x["disk"], x["test"]): x for x in run.of_type("verdict")}
    assert verdicts[(good_id, "SEQ1M-Q8T1")]["result"] == "pass"
    assert verdicts[(good_id, "RND4K-Q1T1")]["result"] == "fail"
    assert verdicts[(good_id, "RND4K-Q1T1")]["failures"] == 2
    end = run.end()
    assert end["status"] == "error" and end["verdict"] == "fail" and end["passes"] == 2, end
    summary = {(t["subject"], t["test"]): t for t in end["tests"]}
    seq = summary[(good_id, "SEQ1M-Q8T1")]
    assert seq["n"] == 2 and seq["min"] <= seq["median"] <= seq["max"] and seq["unit"] == "MB/s", seq
    assert run.returncode == 0, "exit=shutdown still powers off after a failed verdict"


def test_duration_repeats_passes_until_the_time_is_up():
    work = qemu.tempdir("baremark-duration-")
    disk = qemu.make_disk(os.path.join(work, "d.img"), 32)
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms driver=native duration=6s exit=shutdown",
                    drives=["file=%s,if=none,id=D,format=raw" % disk], devices=["nvme,drive=D,serial=DUR1"],
                    timeout=600, workdir=work)
    assert not run.timed_out, run.serial[-3000:]
    end = run.end()
    seq = sorted(r["pass"] for r in run.of_type("disk_result") if r["test"] == "SEQ1M-Q8T1")
    # every pass ran the whole workload, numbered from 1, and passes kept
    # starting until 6 s had gone by (a started pass finishes). A pass here
    # is about 1.5 s (four 0.15 s workloads with time=100ms warmup=50ms, the
    # health logs), so 6 s still makes at least two.
    assert end["passes"] >= 2 and seq == list(range(1, end["passes"] + 1)), (end["passes"], seq)
    assert end["seconds"] >= 6, end
    per_pass = end["seconds"] / end["passes"]
    assert end["seconds"] < 6 + 2 * per_pass + 15, end
    assert len(run.of_type("disk")) == 1 and end["status"] == "ok"
