"""The measured memory map under QEMU (TCG): mem_region records cover all of
usable memory with -m 4096, regions stay inside one NUMA node on a two-node
guest, and the host build says it cannot place memory. Timings under TCG
measure the emulator: these tests check coverage and structure. mem_max and
mem_map_ms keep each region to a small buffer and a few milliseconds."""
import os
import re
import subprocess
import threading
import time

import qemu
from test_mem import NUMA_ARGS
import marks

OPTIONS = "mem=quick disk=off mem_max=1M mem_map=full mem_map_ms=20 exit=shutdown"


def check_map(run):
    """Regions ascending, not overlapping, each measured inside itself or
    listed with a reason; the summary adds them up. Returns (regions, summary)."""
    regions = run.of_type("mem_region")
    summary = run.one("mem_map_summary")
    assert regions, run.serial[-2000:]
    assert [r["index"] for r in regions] == list(range(len(regions)))
    for a, b in zip(regions, regions[1:]):
        assert a["end"] <= b["base"], (a, b)
    for r in regions:
        assert 0 < r["bytes"] <= r["end"] - r["base"], r
        if r["latency_ns"] is None:
            assert r["reason"], r
            continue
        assert r["base"] <= r["buffer_base"] and r["buffer_base"] + r["buffer_bytes"] <= r["end"], r
        assert r["latency_ns"] > 0 and r["read_gbps"] > 0 and r["threads"] >= 1, r
        assert 0 <= r["latency_cpu"] < 4, r
    assert summary["regions"] == len(regions)
    assert summary["covered_bytes"] == sum(r["bytes"] for r in regions) == summary["ram_bytes"], summary
    assert summary["measured"] == sum(r["latency_ns"] is not None for r in regions)
    assert summary["measured"] >= len(regions) - 1, regions  # at most the firmware's own region is full
    assert summary["seconds"] > 0 and summary["seconds_per_gib"] > 0, summary
    assert summary["slow_regions"] == [r["index"] for r in regions if r.get("slow")]
    assert "memory map:" in run.serial
    return regions, summary


def test_mem_map_covers_all_usable_memory_4g():
    run = qemu.boot(options=OPTIONS, smp=2, memory_mib=4096, timeout=300)
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.of_type("error")
    regions, summary = check_map(run)
    # Usable RAM is -m 4096 less what the platform reserves (legacy VGA
    # hole, firmware reserved and runtime pages, ACPI tables).
    assert 3900 << 20 <= summary["ram_bytes"] <= 4096 << 20, summary
    assert 8 <= len(regions) <= 9, regions
    assert regions[-1]["end"] > 1 << 32  # q35 puts the top 2 GiB above 4 GiB
    assert all(r["node"] is None for r in regions)


def test_mem_map_two_numa_nodes():
    run = qemu.boot(options=OPTIONS, smp=4, memory_mib=1024, extra_args=NUMA_ARGS, timeout=300)
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.of_type("error")
    regions, summary = check_map(run)
    assert {r["node"] for r in regions} == {0, 1}, regions
    # Node 0 holds the first 512 MiB: no region crosses into node 1.
    for r in regions:
        assert (r["end"] <= 512 << 20) == (r["node"] == 0), r
        # Latency is chased by a CPU of the region's node (cpus=0-1, 2-3).
        if r["latency_ns"] is not None:
            assert r["latency_cpu"] // 2 == r["node"], r
    assert 1000 << 20 <= summary["ram_bytes"] <= 1024 << 20, summary


@marks.host
def test_mem_map_host_build_says_what_it_cannot():
    binary = os.path.join(qemu.BUILD, "host", "baremark")
    p = subprocess.run([binary, "mem=quick", "disk=off", "mem_max=1M", "mem_map=quick", "mem_map_ms=10"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "cannot place memory at physical addresses" in p.stdout + p.stderr
    records = qemu.parse_records(p.stdout)
    assert not [r for r in records if r.get("type") in ("mem_region", "mem_map_summary")]


def test_mem_map_chart_on_the_results_screen_4g():
    """-m 4096 mem_map=quick on the fixed layout: the chart's title and one
    bar line per region in the screen module's own grid (screen_dump=1),
    the DIMM table above it; a screendump of the display for people
    (BAREMARK_SCREENSHOT=path.png keeps it)."""
    from test_screen import read_ppm, write_png
    workdir = qemu.tempdir()
    sock = os.path.join(workdir, "monitor.sock")
    shot = os.path.join(workdir, "final.ppm")

    def dump_at_end():
        serial = os.path.join(workdir, "serial.log")
        t0 = time.time()
        while time.time() - t0 < 300:
            if os.path.exists(serial) and b'"type":"end"' in open(serial, "rb").read():
                break
            time.sleep(0.5)
        time.sleep(2)
        qemu.monitor_command(sock, "screendump " + shot)

    t = threading.Thread(target=dump_at_end, daemon=True)
    t.start()
    run = qemu.boot(options="mem=quick disk=off mem_max=1M mem_map=quick mem_map_ms=20 screen_dump=1", smp=2,
                    memory_mib=4096, workdir=workdir, monitor=sock, graphics=True, timeout=300,
                    until=lambda: not t.is_alive())  # the screendump is taken: stop QEMU
    t.join(timeout=20)
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.of_type("error")
    regions = run.of_type("mem_region")
    assert 8 <= len(regions) <= 9, regions
    lines = run.one("screen")["lines"]
    text = "\n".join(lines)
    title = [i for i, l in enumerate(lines) if l.startswith(" Memory map: %d regions" % len(regions))]
    assert title, text
    bars = lines[title[0] + 1:title[0] + 1 + len(regions)]
    for r, line in zip(regions, bars):
        assert line.split()[0] == str(r["index"]), (r, line)
        if r["latency_ns"] is None:
            assert "not measured" in line, line
        else:
            # (the screen reads the record's decimal text itself: compare to a rounding step)
            shown = float(re.search(r"([0-9.]+) GB/s", line).group(1))
            assert abs(shown - r["read_gbps"]) <= 0.006 and "#" in line, (r, line)
    # The fastest region's bar is the longest.
    fastest = max((r for r in regions if r["read_gbps"]), key=lambda r: r["read_gbps"])
    assert max(l.count("#") for l in bars) == bars[regions.index(fastest)].count("#"), bars
    # QEMU's one SMBIOS DIMM, no SPD (q35's SMBus is left off by OVMF).
    assert any(l.startswith("  DIMM 0") and "| -" in l for l in lines), text
    assert os.path.exists(shot), "no screendump"
    w, h, rgb = read_ppm(shot)
    png = os.environ.get("BAREMARK_SCREENSHOT") or os.path.join(workdir, "mem_map.png")
    write_png(png, w, h, rgb)
