"""scan=on, the surface scan, in one boot: two AHCI disks on two
controllers scanned at once, one with a blkdebug band of unreadable
sectors (QEMU fails every read that touches one of them with EIO, which
ich9-ahci reports as an ABRT taskfile error). The scan lists exactly that
band and reads on to the disk's end; the clean disk (64 GiB of QEMU's
null-co, which reads at tens of GB/s: the scan is long enough to time) has its scan rate set
against its own SEQ1M-Q8T1 of the same run (the scan's cost), and both the
HTML report and the results screen draw the curve and the map."""
import os

import marks
import qemu

BAND_FIRST = 20000
BAND_COUNT = 16
GOOD_MIB = 65536
BAD_MIB = 32
OPTIONS = "mem=off disk=quick time=100ms warmup=50ms driver=native exit=shutdown scan=on screen_dump=1"


@marks.once
def scan_run():
    work = qemu.tempdir(prefix="baremark-scan-")
    bad = qemu.make_disk(os.path.join(work, "bad.img"), BAD_MIB)
    rules = os.path.join(work, "band.conf")
    with open(rules, "w") as f:
        # One rule per sector: blkdebug fails a read that covers that sector.
        for s in range(BAND_FIRST, BAND_FIRST + BAND_COUNT):
            f.write('[inject-error]\nevent = "read_aio"\nerrno = "5"\nonce = "off"\nsector = "%d"\n\n' % s)
    # The added controller (00:03.0) is ahci0, q35's own (00:1f.2) ahci1:
    # on two controllers the two scans are polled on two CPUs, the first
    # disk's on the application processor (as SEQ1M-Q8T1 ran), the other's
    # on the boot processor beside the progress line.
    devices = ["ich9-ahci,id=ahci",
               "ide-hd,drive=g,bus=ahci.0,serial=SCANGOOD",
               "ide-hd,drive=b,bus=ide.2,serial=SCANBAD"]
    drives = ["if=none,id=g,driver=null-co,size=%dM,read-zeroes=on" % GOOD_MIB,
              "if=none,id=b,format=raw,file=blkdebug:%s:%s" % (rules, bad)]
    run = qemu.boot(options=OPTIONS, devices=devices, drives=drives, timeout=240)
    assert not run.timed_out, run.serial[-3000:]
    assert run.returncode == 0, run.serial[-3000:]
    return run


def _scans(run):
    return {r["disk"]: r for r in run.of_type("scan")}


def test_scan_lists_exactly_the_band_and_carries_on():
    run = scan_run()
    scans = _scans(run)
    assert sorted(scans) == ["ahci0p0", "ahci1p2"], scans
    bad = scans["ahci1p2"]
    assert bad["result"] == "unreadable", bad
    assert bad["scanned_blocks"] == bad["blocks"] == BAD_MIB * 2048, bad
    assert bad["bad_blocks"] == BAND_COUNT and bad["bad_ranges"] == 1, bad
    assert bad["bytes"] == (BAD_MIB * 2048 - BAND_COUNT) * 512, bad
    assert bad["buckets"]["error"] >= 1 and bad["rereads"] > 0, bad
    # MHDD's map: two parts of 16 reads; the band's (LBA 0-32767) shows
    # the failed read (6), the other the slowest bucket of its reads.
    assert bad["point_blocks"] == 32768 and len(bad["curve_worst"]) == len(bad["curve_mbps"]) == 2, bad
    assert bad["curve_worst"][0] == 6 and 0 <= bad["curve_worst"][1] <= 5, bad
    ranges = [r for r in run.of_type("scan_bad_range")]
    assert [(r["disk"], r["first_lba"], r["count"], r["last_lba"]) for r in ranges] == \
        [("ahci1p2", BAND_FIRST, BAND_COUNT, BAND_FIRST + BAND_COUNT - 1)], ranges
    assert "ABRT" in ranges[0]["error"], ranges[0]
    errors = [e for e in run.of_type("error") if "surface scan" in e["message"]]
    assert [e["where"] for e in errors] == ["ahci1p2"], errors
    assert "16 unreadable blocks in 1 range from LBA %d" % BAND_FIRST in errors[0]["message"], errors


def test_clean_disk_scan_rate_against_its_seq1m():
    run = scan_run()
    good = _scans(run)["ahci0p0"]
    assert good["result"] == "pass" and good["bad_blocks"] == 0, good
    assert good["bytes"] == GOOD_MIB << 20 and good["chunk_bytes"] == 1 << 20 and good["qd"] == 8, good
    assert sum(good["buckets"].values()) == GOOD_MIB and good["buckets"]["error"] == 0, good
    # 65536 reads in 100 points of 656 (the last shorter).
    assert len(good["curve_mbps"]) == 100 and good["point_blocks"] == 656 * 2048, good
    assert min(good["curve_mbps"]) > 0, good
    assert len(good["curve_worst"]) == 100 and all(0 <= w <= 5 for w in good["curve_worst"]), good
    seq = [r for r in run.of_type("disk_result")
           if r["disk"] == "ahci0p0" and r["test"] == "SEQ1M-Q8T1" and r["rw"] == "read" and "concurrent" not in r]
    assert len(seq) == 1, seq
    assert good["seq1m_mbps"] == seq[0]["mbps"], (good, seq)
    # The scan's cost, printed for the docs (docs/surface-scan.md). Not like
    # with like in this boot: SEQ1M-Q8T1 ran alone, the scan beside the band
    # disk's, whose every failed re-read costs a COMRESET (QEMU 7.2 keeps
    # PxSACT after PxCMD.ST is cleared, ahci_port_restart) with its 200 ms
    # settle spun on the other vCPU: about 12 s of one of the host's cores,
    # longer than the clean scan. The median of the curve's parts shows the
    # scan's own pace without those stretches. Under TCG both rates measure
    # the emulator and whatever else the host runs: figures to print, not
    # speeds to assert (speed targets live in benchmarks). What is checked
    # is that the record's ratio is the one its two rates give.
    bad = _scans(run)["ahci1p2"]
    parts = sorted(good["curve_mbps"])
    median = (parts[len(parts) // 2 - 1] + parts[len(parts) // 2]) / 2
    print("scan %.1f MB/s, SEQ1M-Q8T1 %.1f MB/s, %.1f%% (median part %.1f%%); beside the band disk's scan of "
          "%.1f s (%d re-reads) for the clean one's %.1f s" % (
              good["mbps"], good["seq1m_mbps"], good["vs_seq1m_pct"], 100 * median / good["seq1m_mbps"],
              bad["seconds"], bad["rereads"], good["seconds"]))
    assert good["mbps"] > 0 and good["seq1m_mbps"] > 0, good
    assert abs(good["vs_seq1m_pct"] - 100 * good["mbps"] / good["seq1m_mbps"]) < 0.1, good


def test_scan_drawn_on_the_screen_and_in_the_report():
    run = scan_run()
    screen = "\n".join(run.one("screen")["lines"])
    assert "Surface scan" in screen, screen
    assert "ahci1p2" in screen and "LBA %d" % BAND_FIRST in screen, screen
    pages = [n for n in run.results_files() if n.endswith(".html")]
    assert len(pages) == 1, run.results_files()
    page = run.read_file("::/baremark/results/" + pages[0])
    assert 'id="scan"' in page, page[:2000]
    assert "ahci1p2" in page and "%d" % BAND_FIRST in page
    assert page.count('class="scan-curve"') == 2, page.count('class="scan-curve"')
