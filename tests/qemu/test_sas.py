"""SAS HBA drivers under QEMU + OVMF: MegaRAID (megasas-gen2, megasas), LSI
MPT (mptsas1068) and the firmware SCSI pass-thru fallback (virtio-scsi,
which has no native driver).

Two boots, shared by the tests below (each about 30 s under TCG):
  - MegaRAID: megasas-gen2 with three disks (one with 4096-byte blocks, two
    with a fixed 200 us latency) and megasas with one, driver=native;
  - MPT + pass-thru: mptsas1068 with four disks (two fixed-latency, one
    plain with a 128 KiB maximum transfer in its block limits page and a
    world wide name, one failing every read) and a virtio-scsi disk,
    driver=auto.
Every boot here runs time=100ms warmup=50ms: the checks are about which
commands, disks and errors there are, and the fixed-latency disks' QD32/QD1
ratio, which a 100 ms window (500 commands at QD1 on a 200 us disk) settles
as well as a second does.
"""
import os
import re

import marks
import qemu

LATENCY_NS = 200000
MPT2_MAX_IO = 128 * 1024
VSCSI0_MAX_IO = 256 * 1024  # VPD B0h: the pass-thru runs 1 MiB as 4 commands
MPT2_WWN = "0x5000c500a1b2c3d4"
STICK = ("-global", "usb-storage.serial=BOOTSTICK")
QUICK_TESTS = ["SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"]


def null_drive(drive_id, size="1G", latency=True):
    """A null-co disk: reads return zeros after a fixed latency."""
    return "driver=null-co,size=%s,%sread-zeroes=on,if=none,id=%s" % (
        size, "latency-ns=%d," % LATENCY_NS if latency else "", drive_id)


# Each configuration boots once per test session and every test reads the
# same Run; the two boot apart (a lock each), so a test of one never waits
# for the other's boot.
@marks.once
def megasas_run():
    work = qemu.tempdir(prefix="baremark-sas-")
    g0, g2 = qemu.make_disk(os.path.join(work, "g0.img"), 32), qemu.make_disk(os.path.join(work, "m0.img"), 32)
    return qemu.boot(
        options="mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown disks=MEGA0,MEGA1,MEGA2,MEGA3",
        drives=["if=none,id=g0,format=raw,file=" + g0, null_drive("g1"), null_drive("g2"),
                "if=none,id=m0,format=raw,file=" + g2],
        devices=["megasas-gen2,id=gen2",
                 "scsi-hd,bus=gen2.0,scsi-id=0,drive=g0,serial=MEGA0",
                 "scsi-hd,bus=gen2.0,scsi-id=1,drive=g1,serial=MEGA1,logical_block_size=4096,"
                 "physical_block_size=4096",
                 "scsi-hd,bus=gen2.0,scsi-id=2,drive=g2,serial=MEGA2",
                 "megasas,id=gen1",
                 "scsi-hd,bus=gen1.0,scsi-id=0,drive=m0,serial=MEGA3"],
        extra_args=STICK, timeout=300)


@marks.once
def mpt_run():
    work = qemu.tempdir(prefix="baremark-sas-")
    plain, bad, vs = (qemu.make_disk(os.path.join(work, n), 32) for n in ("plain.img", "bad.img", "vs.img"))
    rules = os.path.join(work, "rules.cfg")
    with open(rules, "w") as f:
        f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\n')
    return qemu.boot(
        options="mem=off disk=quick time=100ms warmup=50ms driver=auto exit=shutdown disks=MPT0,MPT1,MPT2,MPTBAD,VSCSI0",
        drives=[null_drive("t0"), null_drive("t1"), "if=none,id=t2,format=raw,file=" + plain,
                "file=blkdebug:%s:%s,if=none,id=t3,format=raw" % (rules, bad),
                "if=none,id=v0,format=raw,file=" + vs],
        devices=["mptsas1068,id=mpt",
                 "scsi-hd,bus=mpt.0,scsi-id=0,drive=t0,serial=MPT0",
                 "scsi-hd,bus=mpt.0,scsi-id=1,drive=t1,serial=MPT1,logical_block_size=4096,"
                 "physical_block_size=4096",
                 "scsi-hd,bus=mpt.0,scsi-id=2,drive=t2,serial=MPT2,max_io_size=%d,opt_io_size=65536,wwn=%s"
                 % (MPT2_MAX_IO, MPT2_WWN),
                 "scsi-hd,bus=mpt.0,scsi-id=5,drive=t3,serial=MPTBAD",
                 "virtio-scsi-pci,id=vs",
                 "scsi-hd,bus=vs.0,scsi-id=3,drive=v0,serial=VSCSI0,max_io_size=%d" % VSCSI0_MAX_IO],
        extra_args=STICK, timeout=300)


def fail_with_log(run, msg):
    raise AssertionError(msg + "\n--- serial log tail ---\n" + run.serial[-5000:])


def ended(run):
    if run.timed_out or not run.of_type("end"):
        fail_with_log(run, "no end record")
    return run


def disk_by_serial(run, serial):
    ds = [d for d in run.of_type("disk") if d["serial"] == serial]
    if len(ds) != 1:
        fail_with_log(run, "expected one disk with serial %s: %s" % (serial, run.of_type("disk")))
    return ds[0]


def results(run, disk_id):
    return {r["test"]: r for r in run.of_type("disk_result") if r["disk"] == disk_id and "concurrent" not in r}


def check_quick_results(run, d):
    rs = results(run, d["id"])
    assert sorted(rs) == sorted(QUICK_TESTS), (d["id"], sorted(rs))
    for r in rs.values():
        assert r["ios"] > 0 and r["iops"] > 0, r
        assert 0 < r["lat_us"]["p50"] <= r["lat_us"]["max"], r
    return rs


def check_deep_queue(run, serial):
    """A fixed-latency disk: the device time per command is the same at any
    depth, so 32 commands in flight must give many times the IOPS of 1."""
    rs = results(run, disk_by_serial(run, serial)["id"])
    q1, q32 = rs["RND4K-Q1T1"]["iops"], rs["RND4K-Q32T1"]["iops"]
    assert q32 >= 4 * q1, "%s: QD32 %d IOPS vs QD1 %d IOPS" % (serial, q32, q1)
    # QD1 is bounded by the latency itself: at most one command per 200 us.
    assert q1 <= 1e9 / LATENCY_NS * 1.05, (serial, q1)


def test_megasas_finds_logical_drives_on_both_generations():
    run = ended(megasas_run())
    gen2 = [disk_by_serial(run, s) for s in ("MEGA0", "MEGA1", "MEGA2")]
    gen1 = disk_by_serial(run, "MEGA3")
    for d in gen2 + [gen1]:
        assert d["driver"] == "megasas" and d["path"] == "native", d
        assert d["model"] == "QEMU QEMU HARDDISK", d
        assert d["max_qd"] >= 32, d
    # one controller each: ids megasas<ctrl>d<target>
    assert {d["id"] for d in gen2} == {"megasas0d0", "megasas0d1", "megasas0d2"} or \
        {d["id"] for d in gen2} == {"megasas1d0", "megasas1d1", "megasas1d2"}, gen2
    assert gen1["id"] in ("megasas0d0", "megasas1d0") and gen1["pci"] != gen2[0]["pci"], gen1
    assert gen2[0]["lba_bytes"] == 512 and gen2[0]["blocks"] == 32 * 2048, gen2[0]
    assert gen2[1]["lba_bytes"] == 4096 and gen2[1]["blocks"] == (1 << 30) // 4096, gen2[1]


def test_megasas_logical_drive_members_are_asked_for_their_health():
    """A logical drive's members come from the controller's configuration
    and are asked through PD pass-through frames, before and after the run.
    QEMU makes each scsi-hd one logical drive over itself, with device id
    (SCSI id << 8) | LUN: the member of SCSI id 0 answers INQUIRY (its
    serial reaches the note) but, like every scsi-hd, has no LOG SENSE; the
    others' device ids do not fit the frame's one-byte target id. Either
    way one note per step names the member, and no health record is
    made up."""
    run = ended(megasas_run())
    for serial, scsi_id in (("MEGA0", 0), ("MEGA1", 1), ("MEGA2", 2), ("MEGA3", 0)):
        d = disk_by_serial(run, serial)
        notes = [n["message"] for n in run.of_type("note") if n["where"] == d["id"] and "member" in n["message"]]
        pd = "member pd%d (device id %d" % (scsi_id << 8, scsi_id << 8)
        assert len(notes) == 2 and all(n.startswith(pd) for n in notes), (serial, notes)
        assert any("before the run" in n for n in notes) and any("after the run" in n for n in notes), notes
        if scsi_id == 0:
            assert all("serial " + serial in n and "LOG SENSE" in n for n in notes), notes
        else:
            assert all("does not fit" in n for n in notes), notes
        assert not [h for h in run.of_type("health") if h["disk"] == d["id"]], run.of_type("health")


def test_megasas_every_disk_gets_the_quick_tests():
    run = ended(megasas_run())
    for s in ("MEGA0", "MEGA1", "MEGA2", "MEGA3"):
        check_quick_results(run, disk_by_serial(run, s))
    assert not run.of_type("error"), run.of_type("error")
    assert run.end()["status"] == "ok", run.end()


def test_megasas_qd32_many_times_qd1_on_fixed_latency_disks():
    run = ended(megasas_run())
    check_deep_queue(run, "MEGA1")  # 4096-byte blocks
    check_deep_queue(run, "MEGA2")


def test_megasas_aggregate_over_all_disks():
    run = ended(megasas_run())
    ids = {disk_by_serial(run, s)["id"] for s in ("MEGA0", "MEGA1", "MEGA2", "MEGA3")}
    agg = [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert agg, "no aggregate result"
    for r in agg:
        assert set(r["disks"]) == ids, r
        assert r["ios"] > 0, r


def test_mpt_finds_every_target():
    run = ended(mpt_run())
    ds = {s: disk_by_serial(run, s) for s in ("MPT0", "MPT1", "MPT2", "MPTBAD")}
    for s, d in ds.items():
        assert d["driver"] == "mpt" and d["path"] == "native", d
        assert d["max_qd"] >= 32, d
    assert [ds[s]["id"] for s in ("MPT0", "MPT1", "MPT2", "MPTBAD")] == ["mpt0t0", "mpt0t1", "mpt0t2", "mpt0t5"]
    assert ds["MPT1"]["lba_bytes"] == 4096 and ds["MPT0"]["lba_bytes"] == 512
    for s in ("MPT0", "MPT1", "MPT2"):
        check_quick_results(run, ds[s])


def test_mpt_qd32_many_times_qd1_on_fixed_latency_disks():
    run = ended(mpt_run())
    check_deep_queue(run, "MPT0")
    check_deep_queue(run, "MPT1")


def test_mpt_disk_with_read_errors_is_reported_while_the_others_finish():
    run = ended(mpt_run())
    bad = disk_by_serial(run, "MPTBAD")
    errors = [e for e in run.of_type("error") if e["where"] == bad["id"]]
    assert len(errors) == 1, run.of_type("error")
    msg = errors[0]["message"]
    # The SCSI status came back through an address reply and its sense
    # data was decoded (QEMU turns EIO into ABORTED COMMAND, I/O process
    # terminated).
    assert "SEQ1M-Q8T1" in msg and "ABORTED COMMAND" in msg, msg
    assert not results(run, bad["id"])
    for s in ("MPT0", "MPT1", "MPT2", "VSCSI0"):
        assert sorted(results(run, disk_by_serial(run, s)["id"])) == sorted(QUICK_TESTS), s
    assert run.end()["status"] == "error" and run.end()["errors"] == 1, run.end()


def test_scsi_passthru_drives_a_controller_without_native_driver():
    run = ended(mpt_run())
    d = disk_by_serial(run, "VSCSI0")  # exactly one: Block I/O does not add it again
    assert d["driver"] == "scsi_passthru" and d["path"] == "firmware", d
    assert d["id"].startswith("scsi") and d["max_qd"] == 1, d
    assert d["lba_bytes"] == 512 and d["blocks"] == 32 * 2048, d
    # A LUN of 256 KiB per command still takes 1 MiB requests: the parts
    # run one after another, so SEQ1M runs unsplit by the engine.
    assert d["max_transfer_bytes"] == 1 << 20, d
    logs = [x["message"] for x in run.of_type("log") if "%u KiB per command, requests of 1024 KiB"
            % (VSCSI0_MAX_IO // 1024) in x["message"]]
    assert len(logs) == 1, [x["message"] for x in run.of_type("log")]
    rs = check_quick_results(run, d)
    assert "split" not in rs["SEQ1M-Q8T1"], rs["SEQ1M-Q8T1"]


def test_megasas_jbod_system_drive_is_written_and_verified_through_passthrough_frames():
    """megasas-gen2 in JBOD mode (use_jbod=on) lists no logical drive and
    exposes its disk as a system physical drive: it must become a disk,
    driven by SCSI pass-through frames, and a write run with verify= must
    land the data on that disk and read it back intact."""
    import hashlib
    work = qemu.tempdir("baremark-sas-")
    img = qemu.make_disk(os.path.join(work, "jbod.img"), 32)
    before = hashlib.sha256(open(img, "rb").read()).hexdigest()
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown disks=JBOD0 write=JBOD0 "
                            "verify=1M",
                    drives=["if=none,id=j0,format=raw,file=" + img],
                    devices=["megasas-gen2,id=jb,use_jbod=on", "scsi-hd,bus=jb.0,scsi-id=0,drive=j0,serial=JBOD0"],
                    extra_args=STICK, timeout=300)
    ended(run)
    assert run.of_type("error") == [], run.of_type("error")
    d = disk_by_serial(run, "JBOD0")
    assert d["driver"] == "megasas" and d["path"] == "native" and d["writes"], d
    assert d["bytes"] == 32 << 20 and d["lba_bytes"] == 512, d
    rs = results(run, d["id"])
    for t in QUICK_TESTS:
        assert rs[t]["ios"] > 0, rs[t]
    writes = [r for r in run.of_type("disk_result") if r["disk"] == d["id"] and r["rw"] in ("write", "randwrite")]
    assert len(writes) == len(QUICK_TESTS), writes
    (v,) = [r for r in run.of_type("verify") if r["disk"] == d["id"]]
    assert v["result"] == "pass" and v["bad_blocks"] == 0, v
    assert hashlib.sha256(open(img, "rb").read()).hexdigest() != before, "the writes never reached the disk"



def test_reads_past_2tib_use_16_byte_commands_on_both_hbas_past_128gib_on_ahci():
    """3 TiB disks (more than 2^32 blocks) behind megasas-gen2 (LD frames
    carry the LBA's high word; QEMU turns them into READ(16)) and
    mptsas1068 (our READ(16)), a 200 GiB AHCI disk (past LBA28's 128 GiB)
    and a 3 TiB NVMe namespace: QEMU's own trace of the commands it
    received shows reads far above the 32-bit (28-bit) limit, and no
    10-byte read on the big SCSI disks, where its LBA field would wrap."""
    work = qemu.tempdir("baremark-sas-")
    trace = os.path.join(work, "trace.log")
    big = 3 << 40
    run = qemu.boot(options="mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown disks=BIGMR,BIGMPT,BIGSATA,BIGNV",
                    drives=[null_drive("mr", "3T", False), null_drive("mp", "3T", False),
                            null_drive("sa", "200G", False), null_drive("nv", "3T", False)],
                    devices=["megasas-gen2,id=mr", "scsi-hd,bus=mr.0,scsi-id=2,drive=mr,serial=BIGMR",
                             "mptsas1068,id=mpt", "scsi-hd,bus=mpt.0,scsi-id=3,drive=mp,serial=BIGMPT",
                             "ich9-ahci,id=ahci", "ide-hd,bus=ahci.0,drive=sa,serial=BIGSATA",
                             "nvme,drive=nv,serial=BIGNV"],
                    extra_args=STICK + ("-trace", "scsi_req_parsed_lba", "-trace", "process_ncq_command",
                                        "-trace", "pci_nvme_read", "-D", trace),
                    workdir=work, timeout=300)
    ended(run)
    assert run.of_type("error") == [], run.of_type("error")
    for serial, size in (("BIGMR", big), ("BIGMPT", big), ("BIGSATA", 200 << 30), ("BIGNV", big)):
        d = disk_by_serial(run, serial)
        assert d["path"] == "native" and d["bytes"] == size and d["lba_bytes"] == 512, d
        assert sorted(results(run, d["id"])) == sorted(QUICK_TESTS), (serial, sorted(results(run, d["id"])))
    scsi = {2: {}, 3: {}}   # target -> opcode -> highest LBA
    ncq, nvme = [], []
    with open(trace, errors="replace") as f:
        for line in f:
            m = re.search(r"scsi_req_parsed_lba target (\d+) lun \d+ tag \d+ command (\d+) lba (\d+)", line)
            if m and int(m.group(1)) in scsi:
                ops = scsi[int(m.group(1))]
                ops[int(m.group(2))] = max(ops.get(int(m.group(2)), 0), int(m.group(3)))
            m = re.search(r"process_ncq_command .*NCQ op 0x60 on sectors \[(\d+),", line)
            if m:
                ncq.append(int(m.group(1)))
            m = re.search(r"pci_nvme_read .* lba 0x([0-9a-f]+)", line)
            if m:
                nvme.append(int(m.group(1), 16))
    blocks = big // 512
    for target, ops in scsi.items():
        # READ(16) (0x88) reaching the top quarter; READ(10) (0x28) never
        assert ops.get(0x88, 0) >= blocks * 3 // 4 and 0x28 not in ops, (target, ops)
    assert ncq and max(ncq) >= (200 << 30) // 512 * 3 // 4 > 1 << 28, (len(ncq), max(ncq or [0]))
    assert nvme and max(nvme) >= blocks * 3 // 4, (len(nvme), max(nvme or [0]))


def test_scsi_block_limits_cap_transfers_and_name_the_wwn():
    """VPD B0h as Linux reads it: a LUN whose maximum transfer is 128 KiB
    gets no larger command (the 1 MiB tests run split, with no error); its optimal
    transfer and the NAA designator of VPD 83h reach the disk record.
    QEMU's scsi-hd has no LOG SENSE: one note says so, no health record."""
    run = ended(mpt_run())
    d = disk_by_serial(run, "MPT2")
    assert d["max_transfer_bytes"] == MPT2_MAX_IO, d
    assert d["opt_transfer_bytes"] == 65536, d
    assert d["wwn"] == "naa." + MPT2_WWN[2:], d
    assert "pi_type" not in d and "align_lba" not in d, d
    rs = check_quick_results(run, d)
    assert rs["SEQ1M-Q8T1"]["mbps"] > 0, rs["SEQ1M-Q8T1"]
    assert not [e for e in run.of_type("error") if e["where"] == d["id"]], run.of_type("error")
    notes = [n["message"] for n in run.of_type("note") if n["where"] == d["id"] and "health" in n["message"]]
    assert len(notes) == 1 and "no health log" in notes[0], run.of_type("note")
    assert not [h for h in run.of_type("health") if h["disk"] == d["id"]], run.of_type("health")
