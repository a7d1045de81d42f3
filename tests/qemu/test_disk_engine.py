"""The disk benchmark through the firmware path (driver=firmware), under
QEMU + OVMF: OVMF's NVMe and AHCI drivers give Block I/O disks, so these
tests do not depend on baremark's native drivers.

Each test boots once (about 30 s under TCG, most of it OVMF); disks are
small and time=100ms warmup=50ms keeps the workloads short.
"""
import json
import os
import socket
import threading
import time

import qemu
import testutil

STICK_SERIAL = testutil.STICK_SERIAL
STICK = ("-global", "usb-storage.serial=" + STICK_SERIAL)


sha256 = testutil.sha256


gpt_disk = testutil.gpt_disk


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
    # MB/s is not asserted above 0: one 4K read in a 0.1 s window that the
    # host stalled is 0.04 MB/s, shown as 0.0; it must match the I/Os.
    assert r["ios"] > 0 and r["iops"] > 0, r
    assert abs(r["iops"] - r["ios"] / r["seconds"]) <= 1, r
    assert abs(r["mbps"] - r["ios"] * r["bs"] / r["seconds"] / 1e6) <= 0.1 + r["mbps"] * 1e-3, r


cleaned = testutil.cleaned("baremark-disk-")
fail_with_log = testutil.fail_with_log


SWITCH = testutil.SWITCH


def test_default_run_reads_disks_behind_a_switch_and_leaves_data_alone():
    # One boot with test_report_html (which renders its page; its small
    # memory run changes nothing here): testutil.switch_run.
    run, (a, b), before = testutil.switch_run()
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    assert run.end()["status"] == "ok", run.end()
    # The data disks are untouched by a default (read-only) run.
    assert (sha256(a), sha256(b)) == before

    n1, n2 = disk_by_serial(run, "NVME0001"), disk_by_serial(run, "NVME0002")
    stick = disk_by_serial(run, STICK_SERIAL)
    # Identity from NVMe Identify Controller, size from Block I/O.
    assert n1["model"] == "QEMU NVMe Ctrl" and n1["driver"] == "blockio2" and n1["path"] == "firmware", n1
    assert n1["lba_bytes"] == 512 and n1["blocks"] == 64 * 2048 and n1["bytes"] == 64 << 20, n1
    assert n2["blocks"] == 48 * 2048, n2
    assert stick["boot"] is True and stick["selected"] is False and n1["boot"] is False
    assert n1["writes"] is False and n2["writes"] is False

    quick = ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"]
    for d in (n1, n2):
        alone = [r for r in records_for(run, d["id"]) if "concurrent" not in r]
        assert [r["test"] for r in alone] == quick, alone
        assert [r["rw"] for r in alone] == ["read", "read", "randread", "randread"], alone
        for r in alone:
            check_result_fields(r)
        assert [r["qd"] for r in alone] == [8, 1, 32, 1], alone
    assert not records_for(run, stick["id"])

    # Both disks at once: a record per disk plus one for "all".
    agg = [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert [r["test"] for r in agg] == ["ALL2-SEQ1M-Q8T1", "ALL2-RND4K-Q32T1"], agg
    pci = {p["bdf"]: p for p in run.of_type("pci")}
    for r in agg:
        assert sorted(r["disks"]) == sorted([n1["id"], n2["id"]]) and r["concurrent"] == 2, r
        check_result_fields(r)
        per_disk = [x for x in run.of_type("disk_result") if x["disk"] != "all" and x["test"] == r["test"]]
        assert len(per_disk) == 2 and all(x["concurrent"] == 2 for x in per_disk), per_disk
        assert r["ios"] == sum(x["ios"] for x in per_disk), (r, per_disk)
        assert 0 <= r["core_busy_pct"] <= 100
        # The shared hop is on both controllers' paths (as the inventory's
        # pci records give them), with that link's ceiling.
        link = r["link"]
        assert link["disks_behind"] == 2, link
        assert link["hop"] in pci[n1["pci"]]["path"] and link["hop"] in pci[n2["pci"]]["path"], (link, pci)
        assert link["ceiling_mbps"] == pci[link["hop"]]["link"]["mbps"], (link, pci[link["hop"]])


@cleaned
def test_write_run_writes_named_disk_and_refuses_boot_stick(work):
    target, other = gpt_disk(os.path.join(work, "target.img"), 32), gpt_disk(os.path.join(work, "other.img"), 32)
    k4 = qemu.make_disk(os.path.join(work, "k4.img"), 16)
    before_target, before_other = sha256(target), sha256(other)
    with open(target, "rb") as f:
        original = f.read()
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms driver=firmware exit=shutdown disks=WRITEME "
                            "write=WRITEME," + STICK_SERIAL,
                    drives=["if=none,id=t,format=raw,file=" + target, "if=none,id=o,format=raw,file=" + other,
                            "if=none,id=k,format=raw,file=" + k4],
                    devices=["nvme,drive=t,serial=WRITEME", "nvme,drive=o,serial=KEEPME",
                             "nvme,id=n4k,serial=FOURK",
                             "nvme-ns,bus=n4k,drive=k,nsid=1,logical_block_size=4096,physical_block_size=4096"],
                    extra_args=STICK, workdir=work, timeout=240)
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


@cleaned
def test_disk_with_read_errors_fails_alone(work):
    bad, good = qemu.make_disk(os.path.join(work, "bad.img"), 16, fill="random"), \
        gpt_disk(os.path.join(work, "good.img"), 16)
    before = sha256(good)
    rules = os.path.join(work, "rules.cfg")
    with open(rules, "w") as f:
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms driver=firmware exit=shutdown disks=BADDISK,GOODDISK",
                    drives=["file=blkdebug:%s:%s,if=none,id=b,format=raw" % (rules, bad),
                            "if=none,id=g,format=raw,file=" + good],
                    devices=["nvme,drive=b,serial=BADDISK", "ide-hd,bus=ide.0,drive=g,serial=GOODDISK"],
                    extra_args=STICK, workdir=work, timeout=240)
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
    # the HTML report puts the error at the top
    page = [n for n in run.results_files() if n.endswith(".html")]
    assert len(page) == 1, page
    text = run.read_file("::/baremark/results/" + page[0])
    assert '<div class="msg error"><b>ERROR</b> %s: SEQ1M-Q8T1' % b["id"] in text
    assert text.index('id="messages"') < text.index('id="machine"')
    # The AHCI disk through OVMF's ATA driver: ATA IDENTIFY strings, q35's
    # built-in controller, and its data untouched.
    assert g["model"] == "QEMU HARDDISK" and g["pci"] == "0000:00:1f.2" and g["blocks"] == 16 * 2048, g
    assert sha256(good) == before


def _press_esc_after(workdir, marker, sock_path, sent, timeout=200):
    """Once marker shows up in the serial log, press Esc on the emulated
    PS/2 keyboard through QMP (OVMF reads it as console input)."""
    if not testutil.wait_for_serial(workdir, marker, timeout):
        return
    time.sleep(0.7)  # well inside the next test's measured window
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    f = s.makefile("rw")
    f.readline()
    for cmd in ({"execute": "qmp_capabilities"},
                {"execute": "send-key", "arguments": {"keys": [{"type": "qcode", "data": "esc"}]}}):
        f.write(json.dumps(cmd) + "\n")
        f.flush()
        f.readline()
    sent.append(time.time())
    s.close()


@cleaned
def test_esc_stops_the_disk_run_cleanly(work):
    disk = qemu.make_disk(os.path.join(work, "d.img"), 32, fill="random")
    sock = os.path.join(work, "qmp.sock")
    sent = []
    presser = threading.Thread(target=_press_esc_after, args=(work, '"type":"disk_result"', sock, sent))
    presser.start()
    run = qemu.boot(options="mem=off disk=quick time=3 driver=firmware exit=shutdown disks=ESCDISK",
                    drives=["if=none,id=d,format=raw,file=" + disk], devices=["nvme,drive=d,serial=ESCDISK"],
                    extra_args=STICK + ("-qmp", "unix:%s,server=on,wait=off" % sock), workdir=work, timeout=200)
    presser.join()
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    assert sent, "Esc was never sent"
    end = run.end()
    # The test under way is abandoned (no record for it), the run ends at
    # once with the abort noted, and nothing was reported broken.
    assert end["status"] == "error" and "Esc" in end.get("note", ""), end
    assert not run.of_type("error"), run.of_type("error")
    results = run.of_type("disk_result")
    assert [r["test"] for r in results] == ["SEQ1M-Q8T1"], results
    assert end["seconds"] < 3 * (3 + 1) + 2, end
    # the HTML report is written after Esc too, with the abort on it
    page = [n for n in run.results_files() if n.endswith(".html")]
    assert len(page) == 1 and "(end of run)" in run.serial, page
    assert "aborted by Esc" in run.read_file("::/baremark/results/" + page[0])
