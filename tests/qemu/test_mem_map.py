"""The measured memory map under QEMU (TCG): mem_region records cover all of
usable memory with -m 4096, regions stay inside one NUMA node on a two-node
guest, and the host build says it cannot place memory. Timings under TCG
measure the emulator: these tests check coverage and structure. mem_max and
mem_map_ms keep each region to a small buffer and a few milliseconds."""
import os
import subprocess

import qemu
from test_mem import NUMA_ARGS

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


def test_mem_map_host_build_says_what_it_cannot():
    binary = os.path.join(qemu.BUILD, "host", "baremark")
    p = subprocess.run([binary, "mem=quick", "disk=off", "mem_max=1M", "mem_map=quick", "mem_map_ms=10"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "cannot place memory at physical addresses" in p.stdout + p.stderr
    records = qemu.parse_records(p.stdout)
    assert not [r for r in records if r.get("type") in ("mem_region", "mem_map_summary")]
