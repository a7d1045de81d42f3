"""The pure parts of tools/diskbench_compare.py and tools/linux-guest/build_guest.py:
parsing fio's JSON off a serial console, picking baremark's records, the
ratios, the module load order, ldd output and the initramfs cpio format.
No QEMU, no fio, no kernel: these run in well under a second."""

HOST = True  # no test here boots QEMU: all run in `make check` (run_all.py --host)
import io
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "linux-guest"))

import build_guest  # noqa: E402
import diskbench_compare as dc  # noqa: E402


def fio_job(name, iops, bs, runtime_ms=10000, p50_ns=30000, p99_ns=90000, p999_ns=150000):
    """A job as fio 3.33 writes it with --output-format=json (the fields the
    script reads, plus some it must ignore)."""
    ios = int(iops * runtime_ms / 1000)
    return {
        "jobname": name, "groupid": 0, "error": 0,
        "job options": {"rw": "randread", "bs": "4k", "iodepth": "32"},
        "read": {"io_bytes": ios * bs, "bw_bytes": int(iops * bs), "bw": int(iops * bs / 1024), "iops": iops,
                 "runtime": runtime_ms, "total_ios": ios,
                 "slat_ns": {"min": 1, "max": 2, "mean": 1.5},
                 "clat_ns": {"min": 1000, "max": 900000, "mean": 40000.0,
                             "percentile": {"1.000000": 10000, "50.000000": p50_ns, "99.000000": p99_ns,
                                            "99.900000": p999_ns, "99.990000": 800000}},
                 "lat_ns": {"min": 1200, "max": 901000, "mean": 41000.0}},
        "write": {"iops": 0.0, "bw_bytes": 0},
    }


FIO_OUTPUT = {"fio version": "fio-3.33", "jobs": [
    fio_job("RND4K-Q32T1@libaio", 27000.5, 4096),
    fio_job("RND4K-Q1T1@libaio", 6900.0, 4096),
    fio_job("SEQ1M-Q8T1@libaio", 6200.0, 1 << 20),
]}


def serial_log_with(fio_text):
    """What the guest's console looks like: SeaBIOS noise, CRLF line ends,
    status lines, a fio note before the JSON, the markers."""
    lines = ["SeaBIOS (version 1.16.2-debian-1.16.2-1)", "Booting from ROM...",
             "BENCH-GUEST kernel 6.1.0-57-amd64 cmdline console=ttyS0", "BENCH-GUEST disk nvme0n1 bytes 1073741824 lba_bytes 512",
             "BENCH-GUEST fio exit 0", dc.MARK_BEGIN, "note: both iodepth >= 1 and synchronous I/O engine"]
    lines += fio_text.splitlines() + [dc.MARK_END, "[   13.9] reboot: Power down"]
    return "\r\n".join(lines) + "\r\n"


def test_fio_json_found_between_markers_despite_console_noise():
    serial = serial_log_with(json.dumps(FIO_OUTPUT, indent=1))
    assert dc.extract_fio_json(serial) == FIO_OUTPUT
    assert dc.guest_lines(serial)[:2] == ["kernel 6.1.0-57-amd64 cmdline console=ttyS0", "disk nvme0n1 bytes 1073741824 lba_bytes 512"]
    assert dc.guest_disk(dc.guest_lines(serial)) == {"name": "nvme0n1", "bytes": 1 << 30, "lba_bytes": 512}


def test_fio_json_missing_when_guest_stopped_early():
    assert dc.extract_fio_json("BENCH-GUEST error no disk appeared within 60 s\r\n") is None
    # begun but cut off (QEMU killed mid-print)
    assert dc.extract_fio_json(dc.MARK_BEGIN + "\r\n{\"jobs\": [\r\n") is None
    assert dc.guest_disk(["kernel 6.1"]) is None


def test_fio_results_read_side_in_baremark_units():
    res = dc.fio_results(FIO_OUTPUT)
    assert sorted(res) == ["RND4K-Q1T1@libaio", "RND4K-Q32T1@libaio", "SEQ1M-Q8T1@libaio"]
    res = dc.fio_by_variant(res)["libaio"]
    q32 = res["RND4K-Q32T1"]
    assert q32["iops"] == 27000.5 and q32["qd"] == 32 and q32["bs"] == 4096
    assert q32["test"] == "RND4K-Q32T1" and q32["variant"] == "libaio"
    assert abs(q32["mbps"] - 27000 * 4096 / 1e6) < 0.01  # MB/s = 10^6 bytes/s, as in baremark
    assert q32["seconds"] == 10.0 and q32["ios"] == 270005
    assert q32["lat_us"] == {"mean": 41.0, "p50": 30.0, "p99": 90.0, "p999": 150.0, "max": 901.0}
    seq = res["SEQ1M-Q8T1"]
    assert seq["qd"] == 8 and seq["bs"] == 1 << 20 and abs(seq["mbps"] - 6200 * 1.048576) < 0.01


def test_test_names_map_to_fio_jobs():
    assert dc.parse_test_name("RND4K-Q32T1") == {"rw": "randread", "bs": 4096, "bs_text": "4k", "qd": 32}
    assert dc.parse_test_name("SEQ1M-Q8T1") == {"rw": "read", "bs": 1 << 20, "bs_text": "1m", "qd": 8}
    for bad in ("RND4K-Q32T16", "BS4K-Q4", "rnd4k-q1t1"):
        try:
            dc.parse_test_name(bad)
        except ValueError:
            continue
        raise AssertionError("accepted " + bad)
    assert dc.fio_job_param(["RND4K-Q32T1", "SEQ1M-Q8T1"]) == \
        "bm.jobs=RND4K-Q32T1:randread:4k:32:libaio,SEQ1M-Q8T1:read:1m:8:libaio"
    cmdline = dc.kernel_cmdline(["RND4K-Q1T1"], 10, 2)
    assert "console=ttyS0" in cmdline and "bm.runtime=10" in cmdline and "bm.ramp=2" in cmdline
    assert " mitigations=off nokaslr " in dc.kernel_cmdline(["RND4K-Q1T1"], 10, 2, "mitigations=off nokaslr")


def test_linux_variants_polled_io_uring_only_on_nvme():
    assert dc.linux_variants("nvme") == ["libaio", "io_uring", "io_uring_poll"]
    for kind in ("ahci", "megasas-gen2", "mptsas"):
        assert dc.linux_variants(kind) == ["libaio", "io_uring"], kind
    assert dc.linux_variants("ahci", ["io_uring_poll", "libaio"]) == ["libaio"]
    try:
        dc.linux_variants("nvme", ["spdk"])
    except ValueError as e:
        assert "spdk" in str(e)
    else:
        raise AssertionError("an unknown fio engine must be refused")
    # every engine of a test, then the next test; poll queues only when polled io_uring runs
    cmd = dc.kernel_cmdline(["RND4K-Q32T1", "RND4K-Q1T1"], 5, 1, dc.LINUX_KERNEL_ARGS, dc.linux_variants("nvme"))
    assert "bm.jobs=RND4K-Q32T1:randread:4k:32:libaio,RND4K-Q32T1:randread:4k:32:io_uring," \
        "RND4K-Q32T1:randread:4k:32:io_uring_poll,RND4K-Q1T1:randread:4k:1:libaio," in cmd, cmd
    assert " nvme.poll_queues=2 " in cmd
    # a polled 1 MiB read (split in two on QEMU's NVMe) hung the 6.1 guest: sequential runs unpolled
    cmd = dc.kernel_cmdline(["SEQ1M-Q8T1"], 5, 1, "", dc.linux_variants("nvme"))
    assert "bm.jobs=SEQ1M-Q8T1:read:1m:8:libaio,SEQ1M-Q8T1:read:1m:8:io_uring " in cmd, cmd
    assert "nvme.poll_queues" not in dc.kernel_cmdline(["RND4K-Q1T1"], 5, 1, "", dc.linux_variants("ahci"))


def test_linux_guest_best_configuration_by_default():
    args = dc.parse_args([])
    # the two that made the tool's guest slow (hpet clocksource, retpolines)
    assert "mitigations=off" in args.kernel_args.split() and "tsc=reliable" in args.kernel_args.split()
    assert args.linux_cpu is None and args.devices == ["nvme"]
    cmd = dc.linux_qemu_cmd("k", "i", "", "d", [], "s")
    assert "-cpu" not in cmd, "QEMU's default CPU model, as the plain guest"
    assert "max" in dc.linux_qemu_cmd("k", "i", "", "d", [], "s", cpu="max")
    assert dc.parse_args(["--device", "nvme,ahci,megasas-gen2,mptsas"]).devices == \
        ["nvme", "ahci", "megasas-gen2", "mptsas"]
    for bad in (["--device", "nvme,scsi"], ["--fio-variants", "sync"], ["--skip", "linux"]):
        try:
            dc.parse_args(bad)
        except SystemExit:
            continue
        raise AssertionError("accepted %r" % bad)


def test_both_guests_get_the_same_device_lines():
    for kind in dc.DEVICE_TYPES:
        devs = dc.device_args(kind)
        assert any("drive=bench" in d and "serial=" + dc.DISK_SERIAL in d for d in devs), (kind, devs)
    assert dc.device_args("ahci") == ["ide-hd,bus=ide.0,drive=bench,serial=BENCH0001"]
    assert dc.device_args("mptsas")[0] == "mptsas1068,id=hba" and "wwn=0x5" in dc.device_args("mptsas")[1]
    img = dc.drive_arg(image="/tmp/d.img")
    assert img == "if=none,id=bench,format=raw,file=/tmp/d.img"
    null = dc.drive_arg(latency_ns=200000, size_mib=1024)
    assert "driver=null-co" in null and "latency-ns=200000" in null and "size=1024M" in null
    cmd = dc.linux_qemu_cmd("vmlinuz", "initrd", "console=ttyS0", img, dc.device_args("nvme"), "/tmp/s.log")
    assert cmd[cmd.index("-smp") + 1] == "2" and cmd[cmd.index("-machine") + 1] == "q35"
    assert cmd[cmd.index("-drive") + 1] == img and "nvme,drive=bench,serial=BENCH0001" in cmd
    assert "-enable-kvm" not in cmd and "-enable-kvm" in dc.linux_qemu_cmd("k", "i", "", img, [], "s", kvm=True)
    assert dc.baremark_options("native", "quick", 10) == \
        "mem=off disk=quick time=10 driver=native disks=BENCH0001 exit=shutdown"


def result(disk, test, iops, qd, bs=4096, **extra):
    r = {"type": "disk_result", "disk": disk, "test": test, "rw": "randread", "bs": bs, "qd": qd,
         "seconds": 10, "mbps": iops * bs / 1e6, "iops": iops,
         "lat_us": {"mean": 1, "p50": 1, "p99": 2, "p999": 3, "max": 4}}
    r.update(extra)
    return r


RECORDS = [
    {"type": "run", "schema": 1},
    {"type": "disk", "id": "fw0", "driver": "blockio", "path": "firmware", "serial": "1-0000:00:02.0-1"},
    {"type": "disk", "id": "nvme0n1", "driver": "nvme", "path": "native", "serial": "BENCH0001"},
    result("fw0", "RND4K-Q32T1", 900, 1),
    result("nvme0n1", "RND4K-Q32T1", 30000, 32),
    result("nvme0n1", "RND4K-Q1T1", 7000, 1),
    result("nvme0n1", "RND4K-Q32T1", 15000, 32, concurrent=2),
    result("all", "RND4K-Q32T1", 30000, 32, concurrent=2),
    {"type": "error", "where": "nvme0n1", "message": "read timed out"},
    {"type": "end", "status": "error"},
]


def test_baremark_results_of_the_benchmark_disk_only():
    disk, res = dc.baremark_results(RECORDS)
    assert disk["id"] == "nvme0n1"
    assert sorted(res) == ["RND4K-Q1T1", "RND4K-Q32T1"]
    assert res["RND4K-Q32T1"]["iops"] == 30000, "the all-disks record (concurrent) must not replace it"
    assert dc.baremark_errors(RECORDS) == ["nvme0n1: read timed out"]
    assert dc.baremark_results(RECORDS, serial="NOPE") == (None, {})


FIO_VARIANTS = {"fio version": "fio-3.33", "jobs": [
    fio_job("RND4K-Q32T1@libaio", 27000.5, 4096),
    fio_job("RND4K-Q32T1@io_uring", 29000.0, 4096),
    fio_job("RND4K-Q32T1@io_uring_poll", 31000.0, 4096),
    fio_job("RND4K-Q1T1@libaio", 6900.0, 4096),
    fio_job("RND4K-Q1T1@io_uring", 6500.0, 4096),
    fio_job("RND4K-Q1T1@io_uring_poll", 9000.0, 4096),
    fio_job("SEQ1M-Q8T1@libaio", 6200.0, 1 << 20),
    fio_job("SEQ1M-Q8T1@io_uring", 6300.0, 1 << 20),
]}


def test_best_linux_is_the_fastest_variant_per_test():
    linux = dc.fio_by_variant(dc.fio_results(FIO_VARIANTS))
    assert sorted(linux) == ["io_uring", "io_uring_poll", "libaio"]
    assert dc.best_linux(linux, "RND4K-Q32T1")[0] == "io_uring_poll"
    assert dc.best_linux(linux, "SEQ1M-Q8T1")[0] == "io_uring", "a variant that did not run a test is skipped"
    linux["io_uring_poll"]["RND4K-Q1T1"]["error"] = 95  # EOPNOTSUPP: hipri without poll queues
    assert dc.best_linux(linux, "RND4K-Q1T1")[0] == "libaio", "a failed variant must not be the denominator"
    assert dc.best_linux(linux, "RND4K-Q8T1") == (None, None) and dc.best_linux({}, "RND4K-Q1T1") == (None, None)


def test_summary_table_per_device_with_best_linux_ratios():
    linux = dc.fio_by_variant(dc.fio_results(FIO_VARIANTS))
    _, native = dc.baremark_results(RECORDS)
    firmware = {"RND4K-Q32T1": result("fw1", "RND4K-Q32T1", 1550, 1)}
    rows = dc.summary_rows("nvme", ["RND4K-Q32T1", "RND4K-Q1T1", "SEQ1M-Q8T1"], native, firmware, linux)
    rows += dc.summary_rows("ahci", ["RND4K-Q32T1"], {"RND4K-Q32T1": result("sda", "RND4K-Q32T1", 20000, 32)},
                            None, {"libaio": {"RND4K-Q32T1": {"iops": 10000.0, "qd": 32}}})
    q32, q1, seq, ahci = rows
    assert q32["best_linux_variant"] == "io_uring_poll" and q32["best_linux"]["iops"] == 31000.0
    assert abs(q32["native_over_best_linux"] - 30000 / 31000) < 1e-9
    assert abs(q32["native_over_firmware"] - 30000 / 1550) < 1e-9
    assert q1["native_over_best_linux"] == 7000 / 9000 and q1["firmware"] is None
    assert q1["native_over_firmware"] is None
    assert seq["native"] is None and seq["native_over_best_linux"] is None and seq["best_linux_variant"] == "io_uring"
    assert ahci["device"] == "ahci" and ahci["native_over_best_linux"] == 2.0 and ahci["firmware"] is None
    table = dc.format_summary(rows)
    lines = table.splitlines()
    assert lines[0].split() == ["device", "test", "unit", "native", "firmware", "fio", "libaio", "fio", "io_uring",
                                "fio", "io_uring_poll", "best", "Linux", "native/fw", "native/Linux"], lines[0]
    assert len(lines) == 2 + 4 + 1, table
    assert lines[2].split() == ["nvme", "RND4K-Q32T1", "IOPS", "30,000", "1,550", "27,000", "29,000", "31,000",
                                "io_uring_poll", "19.35x", "0.97x"], lines[2]
    assert lines[4].split()[:3] == ["nvme", "SEQ1M-Q8T1", "MB/s"] and "6,606" in lines[4], lines[4]
    assert lines[5].split() == ["ahci", "RND4K-Q32T1", "IOPS", "20,000", "-", "10,000", "-", "-", "libaio", "-",
                                "2.00x"], lines[5]
    assert lines[6] == "note: nvme: firmware ran RND4K-Q32T1 at queue depth 1", table
    json.dumps(rows)  # the --json summary must serialise


def test_latency_sweep_compares_with_queue_depth_over_latency():
    native = {"RND4K-Q%dT1" % q: result("nvme0n1", "RND4K-Q%dT1" % q, iops, q)
              for q, iops in ((1, 4800), (2, 9500), (4, 18000), (32, 40000))}
    native["RND4K-Q4T1"]["lat_us"]["mean"] = 210.0
    native["SEQ1M-Q8T1"] = result("nvme0n1", "SEQ1M-Q8T1", 100, 8)
    fio = {"RND4K-Q1T1": {"iops": 4500, "qd": 1}, "RND4K-Q8T1": {"iops": 30000, "qd": 8, "lat_us": {"mean": 250}}}
    rows = dc.sweep_rows(200000, native, fio)
    assert [r["qd"] for r in rows] == [1, 2, 4, 8, 32], "sorted by depth, both sides' tests, no SEQ"
    assert [r["predicted_iops"] for r in rows] == [5000, 10000, 20000, 40000, 160000]
    assert rows[0]["native_of_predicted"] == 0.96 and rows[3]["native_iops"] is None
    assert rows[3]["fio_of_predicted"] == 0.75 and rows[4]["native_of_predicted"] == 0.25
    # Little's law: 18000 IOPS x 210 us = 3.78 requests in flight on average
    assert abs(rows[2]["native_in_flight"] - 3.78) < 1e-9 and rows[3]["fio_in_flight"] == 7.5
    assert rows[0]["fio_in_flight"] is None and rows[3]["native_in_flight"] is None
    text = dc.format_sweep(rows, 200000)
    assert text.startswith("predicted = qd / 200 us per request") and "96%" in text and "25%" in text
    assert " 3.8 " in text and "7.5" in text, text


def test_median_of_rounds_keeps_one_whole_run():
    runs = [{"T": {"iops": 3, "mbps": 30}}, {"T": {"iops": 1, "mbps": 10}}, {"T": {"iops": 2, "mbps": 20}}, None]
    med = dc.median_results(runs)
    assert med["T"]["iops"] == 2 and med["T"]["mbps"] == 20 and med["T"]["iops_rounds"] == [1, 2, 3]
    assert med["T"]["iops_spread"] == 1.0  # (3 - 1) / 2
    assert dc.median_results([None]) == {}
    assert dc.median_results([{"T": {"iops": 5}}]) == {"T": {"iops": 5}}
    # Linux: the median per engine, then the best engine of the medians
    rounds = [{"libaio": {"T": {"iops": 10}}, "io_uring": {"T": {"iops": 30}}},
              {"libaio": {"T": {"iops": 20}}, "io_uring": {"T": {"iops": 5}}},
              {"libaio": {"T": {"iops": 15}}, "io_uring": {"T": {"iops": 12}}}, None]
    med = dc.median_linux(rounds)
    assert med["libaio"]["T"]["iops"] == 15 and med["io_uring"]["T"]["iops"] == 12
    assert dc.best_linux(med, "T")[0] == "libaio", "one lucky round must not make a variant the best"
    assert dc.median_linux([None, None]) == {}


def test_ratios_round_by_round():
    rounds = {"fio": [{"libaio": {"T": {"iops": 100}}, "io_uring": {"T": {"iops": 200}}},
                      {"libaio": {"T": {"iops": 50}}}, None],
              "native": [{"T": {"iops": 400}}, {"T": {"iops": 25}}, {"T": {"iops": 30}}],
              "firmware": [{"T": {"iops": 800}}, {"T": {"iops": 50}}]}
    rows = dc.round_ratios([{"device": "nvme", "test": "T"}], rounds)
    rr = rows[0]["round_ratios"]
    assert [x["native_over_firmware"] for x in rr] == [0.5, 0.5, None]
    assert [x["native_over_best_linux"] for x in rr] == [2.0, 0.5, None]
    assert [x["best_linux_variant"] for x in rr] == ["io_uring", "libaio", None]
    text = dc.format_round_ratios(rows)
    assert text.splitlines()[2].split() == ["nvme", "T", "0.50x", "0.50x", "-", "2.00x", "0.50x", "-"], text


def test_rounds_interleave_every_side_of_every_device():
    order = dc.run_order(["nvme", "ahci"], 2)
    assert order == [(0, "nvme", "fio"), (0, "nvme", "native"), (0, "nvme", "firmware"),
                     (0, "ahci", "fio"), (0, "ahci", "native"), (0, "ahci", "firmware"),
                     (1, "nvme", "fio"), (1, "nvme", "native"), (1, "nvme", "firmware"),
                     (1, "ahci", "fio"), (1, "ahci", "native"), (1, "ahci", "firmware")]
    assert dc.run_order(["ahci"], 1, ("native",)) == [(0, "ahci", "native")]


def test_load_note_says_when_the_machine_was_busy():
    quiet = [{"load": [0.5, 0.8], "calib_s": 0.020}, {"load": [0.9, 1.1], "calib_s": 0.022}]
    notes = dc.load_notes(quiet, 2)
    assert len(notes) == 1 and notes[0].startswith("machine quiet: load average at most 1.1 on 2 CPUs"), notes
    loaded = [{"load": [6.5, 9.1], "calib_s": 0.020}, {"load": [7.0, 8.0], "calib_s": 0.021}]
    notes = dc.load_notes(loaded, 2)
    assert len(notes) == 1 and notes[0].startswith("machine loaded: 1-minute load average 6.5 to 9.1 on 2 CPUs")
    drift = [{"load": [0.5, 0.5], "calib_s": 0.020}, {"load": [1.0, 1.0], "calib_s": 0.050}]
    notes = dc.load_notes(drift, 2)
    assert notes == ["machine speed drifted: a fixed calibration loop took 20 to 50 ms between boots (2.5x)"], notes
    assert dc.load_notes([], 2) == []
    assert dc.calibration_loop_s(1000) > 0


MODULES_DEP = """kernel/drivers/nvme/host/nvme.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz kernel/lib/crc64.ko.xz
kernel/drivers/nvme/host/nvme-core.ko.xz: kernel/lib/crc64.ko.xz
kernel/lib/crc64.ko.xz:
kernel/drivers/scsi/scsi_common.ko.xz:
kernel/drivers/scsi/scsi_mod.ko.xz: kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/ata/ahci.ko.xz: kernel/drivers/ata/libahci.ko.xz kernel/drivers/ata/libata.ko.xz \
kernel/drivers/scsi/scsi_mod.ko.xz kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/ata/libahci.ko.xz: kernel/drivers/ata/libata.ko.xz kernel/drivers/scsi/scsi_mod.ko.xz \
kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/ata/libata.ko.xz: kernel/drivers/scsi/scsi_mod.ko.xz kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/scsi/sd_mod.ko.xz: kernel/drivers/scsi/scsi_mod.ko.xz kernel/drivers/scsi/scsi_common.ko.xz
"""


def test_modules_load_after_their_dependencies_once_each():
    order = build_guest.module_load_order(MODULES_DEP, ["nvme", "ahci", "sd_mod"])
    names = [build_guest.module_name(p) for p in order]
    assert sorted(names) == sorted(set(names)), names
    assert set(names) == {"nvme", "nvme_core", "crc64", "ahci", "libahci", "libata", "scsi_mod", "scsi_common",
                          "sd_mod"}
    table = build_guest.parse_modules_dep(MODULES_DEP)
    for path in order:
        for dep in table[build_guest.module_name(path)][1]:
            assert order.index(dep) < order.index(path), (dep, path)
    assert build_guest.module_name("kernel/drivers/nvme/host/nvme-core.ko.zst") == "nvme_core"
    try:
        build_guest.module_load_order(MODULES_DEP, ["megaraid_sas"])
    except ValueError as e:
        assert "megaraid_sas" in str(e)
    else:
        raise AssertionError("a module missing from modules.dep must be an error")


def test_ldd_output_gives_library_paths():
    text = ("\tlinux-vdso.so.1 (0x00007ffd1e9f0000)\n"
            "\tlibaio.so.1 => /lib/x86_64-linux-gnu/libaio.so.1 (0x00007f30b4f0a000)\n"
            "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f30b4d29000)\n"
            "\t/lib64/ld-linux-x86-64.so.2 (0x00007f30b4f3b000)\n")
    assert build_guest.parse_ldd(text) == ["/lib/x86_64-linux-gnu/libaio.so.1", "/lib/x86_64-linux-gnu/libc.so.6",
                                           "/lib64/ld-linux-x86-64.so.2"]
    try:
        build_guest.parse_ldd("\tlibnbd.so.0 => not found\n")
    except ValueError:
        pass
    else:
        raise AssertionError("a missing library must be an error")


def read_newc(data):
    """A minimal newc reader, written from the format description, to check
    the writer: [(name, mode, rdev major, rdev minor, data)]."""
    out, pos = [], 0
    while True:
        assert data[pos:pos + 6] == b"070701", (pos, data[pos:pos + 6])
        f = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        mode, size, rmaj, rmin, namesize = f[1], f[6], f[9], f[10], f[11]
        name = data[pos + 110:pos + 110 + namesize - 1].decode()
        assert data[pos + 110 + namesize - 1] == 0
        pos += 110 + namesize
        pos += -pos % 4
        body = data[pos:pos + size]
        pos += size
        pos += -pos % 4
        if name == "TRAILER!!!":
            assert pos == len(data)
            return out
        out.append((name, mode, rmaj, rmin, body))


def test_cpio_newc_archive_the_kernel_can_unpack():
    buf = io.BytesIO()
    c = build_guest.Cpio(buf)
    c.add_node("dev/console", 0o020600, 5, 1)
    c.add_file("init", b"#!/bin/busybox sh\n", 0o755)
    c.add_file("lib/x86_64-linux-gnu/libc.so.6", b"\x7fELF" + b"x" * 13)
    c.add_symlink("sbin/init", "/init")
    c.finish()
    data = buf.getvalue()
    assert len(data) % 4 == 0
    entries = read_newc(data)
    names = [e[0] for e in entries]
    # every parent directory comes before what it holds, once
    assert names == ["dev", "dev/console", "init", "lib", "lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu/libc.so.6",
                     "sbin", "sbin/init"], names
    by = {e[0]: e for e in entries}
    assert by["dev/console"][1:4] == (0o020600, 5, 1)
    assert by["init"][1] == 0o100755 and by["init"][4] == b"#!/bin/busybox sh\n"
    assert by["lib/x86_64-linux-gnu/libc.so.6"][4] == b"\x7fELF" + b"x" * 13
    assert by["sbin/init"][1] == 0o120777 and by["sbin/init"][4] == b"/init"
    assert by["dev"][1] == 0o040755


def test_missing_packages_asks_dpkg_per_package():
    installed = {"fio"}
    assert build_guest.missing_packages(("linux-image-amd64", "fio", "busybox-static"),
                                        query=lambda p: p in installed) == ["linux-image-amd64", "busybox-static"]
