"""A MegaRAID disk slowed until its commands time out (QEMU's throttle
block filter in a throttle-group limited to 3 I/Os per second, on one of
two megasas-gen2 disks): the run ends
within a bound, the other disk's results are normal, the slow disk's error
names the timeout and the recovery step that gave the command back (the
MFI ABORT, the ABORT TASK step), the log names the step and how long the
recovery took, and no byte of either disk changes.

The run sets io_timeout=5 (the default is Linux's 30 s), which also checks
that the option reaches the driver. The slow disk's first test
(SEQ1M-Q8T1) puts about 32 commands in flight at once (8 reads of 1 MiB,
each cut at the controller's 320 KiB), and at 3 I/Os per second the later
ones wait up to about 10 s: past the 5 s command timeout. The driver sends
an MFI ABORT (a log record); QEMU's cancel does not take back a request
the throttle holds, so the command comes back when the throttle lets it
through (each recovery ends then), and only then does the engine get it, as timed out ("no completion in 5000 ms;
back N ms later (ABORT TASK) ..."). With the default 30 s nothing would
time out at this rate (the test then fails); at 1 I/O per second, as this
test ran before io_timeout=, the throttle's queue took about 32 s to drain
whatever the timeout. One boot, about 25 s under TCG.

A third disk on the same controller fails every read (QEMU blkdebug, EIO):
its error names the first test and the decoded sense (QEMU turns EIO into
ABORTED COMMAND, I/O process terminated), as the NVMe, AHCI and MPT
blkdebug tests check for theirs, and the other disks are not disturbed.
"""
import os
import re
import time

import qemu
import testutil

# Boot, identification and the fast disk's quick tests (~15 s under TCG),
# the slow disk's SEQ1M-Q8T1 until its queue drains (~11 s at 3 IOPS, the
# 5 s timeouts and aborts within), then release.
BOUND_S = 300


def test_megasas_disk_slowed_past_its_timeout_is_reported_and_nothing_changes():
    work = qemu.tempdir(prefix="baremark-hbato-")
    fast, slow, bad = (qemu.make_disk(os.path.join(work, n), 32) for n in ("fast.img", "slow.img", "bad.img"))
    rules = os.path.join(work, "rules.cfg")
    with open(rules, "w") as f:
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
    before = {p: testutil.sha256(p) for p in (fast, slow, bad)}
    t0 = time.monotonic()
    run = qemu.boot(
        options="mem=off disk=quick time=1 io_timeout=5 driver=native exit=shutdown "
                "disks=MEGAFAST,MEGASLOW,MEGABAD",
        drives=["if=none,id=f0,format=raw,file=" + fast,
                "if=none,id=s0,driver=throttle,throttle-group=slow1,file.driver=raw,"
                "file.file.driver=file,file.file.filename=" + slow,
                "file=blkdebug:%s:%s,if=none,id=b0,format=raw" % (rules, bad)],
        devices=["megasas-gen2,id=gen2",
                 "scsi-hd,bus=gen2.0,scsi-id=0,drive=f0,serial=MEGAFAST",
                 "scsi-hd,bus=gen2.0,scsi-id=1,drive=s0,serial=MEGASLOW",
                 "scsi-hd,bus=gen2.0,scsi-id=2,drive=b0,serial=MEGABAD"],
        extra_args=("-object", "throttle-group,id=slow1,x-iops-total=3",
                    "-global", "usb-storage.serial=BOOTSTICK"), timeout=BOUND_S)
    took = time.monotonic() - t0
    if run.timed_out or not run.of_type("end"):
        testutil.fail_with_log(run, "no end record within %d s" % BOUND_S)
    assert took < BOUND_S, took
    disks = {d["serial"]: d for d in run.of_type("disk")}
    assert set(disks) >= {"MEGAFAST", "MEGASLOW", "MEGABAD"}, disks
    fast_id, slow_id = disks["MEGAFAST"]["id"], disks["MEGASLOW"]["id"]
    fast_results = [r for r in run.of_type("disk_result") if r["disk"] == fast_id and "concurrent" not in r]
    assert sorted(r["test"] for r in fast_results) == sorted(["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1",
                                                              "RND4K-Q1T1"]), fast_results
    assert all(r["ios"] > 0 for r in fast_results), fast_results
    errors = [e for e in run.of_type("error") if e["where"] == slow_id]
    assert errors, run.of_type("error")
    msg = " ".join(e["message"] for e in errors)
    # io_timeout=5 reached the driver: the deadline was 5 s, not 30 s.
    assert "no completion in 5000 ms" in msg, msg
    assert not [e for e in run.of_type("error") if e["where"] == fast_id], run.of_type("error")
    logs = " ".join(r.get("message", "") for r in run.of_type("log"))
    assert "timed out: ABORT TASK sent" in logs, logs
    assert "(ABORT TASK)" in msg, msg
    # The recovery is stepped from poll() and its record names the step
    # and what it took ("slot 30: recovery ended: ABORT TASK, 921 ms").
    assert re.search(r"recovery ended: ABORT TASK, \d+ ms", logs), logs
    # The disk whose reads fail: one error, its first test and the
    # decoded sense; no result.
    bad_id = disks["MEGABAD"]["id"]
    bad_errors = [e for e in run.of_type("error") if e["where"] == bad_id]
    assert len(bad_errors) == 1, run.of_type("error")
    assert "SEQ1M-Q8T1" in bad_errors[0]["message"] and "ABORTED COMMAND" in bad_errors[0]["message"], bad_errors
    assert not [r for r in run.of_type("disk_result") if r["disk"] == bad_id and "concurrent" not in r]
    after = {p: testutil.sha256(p) for p in (fast, slow, bad)}
    assert after == before
