"""Memory benchmark under QEMU (TCG): every record type, bandwidth on one and
all CPUs, all three latency patterns at every size, the NUMA matrix on a
two-node guest, and the host build printing the same records.

Timings under TCG measure the emulator; these tests check structure and
consistency, not speed. mem_max keeps each boot to a few seconds of work."""
import json
import os
import socket
import subprocess
import threading
import time

import qemu
import testutil
import marks

MEM_MAX = 1 << 20  # mem_max=1M: latency 4 KiB..1 MiB, 1 MiB bandwidth buffers
# The -smp 2 quick memory run, one boot for this file's checks of its
# records and test_bios's comparison of their fields with the BIOS build's.
UEFI_QUICK = dict(options="mem=quick disk=off mem_max=1M exit=shutdown", smp=2, timeout=150)
PATTERNS = ("stride", "page_random", "full_random")
NUMA_ARGS = [
    "-object", "memory-backend-ram,id=m0,size=512M",
    "-object", "memory-backend-ram,id=m1,size=512M",
    "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
    "-numa", "node,nodeid=1,cpus=2-3,memdev=m1",
]


def latency_sizes(max_bytes):
    """The working sets the engine promises (mem_latency_sizes): 4 KiB, then
    1x and 1.5x every power of two from 8 KiB, then max itself."""
    last = max_bytes // 4096 * 4096
    out = [4096]
    p = 8192
    while p <= last:
        out.append(p)
        if p + p // 2 <= last:
            out.append(p + p // 2)
        p *= 2
    if out[-1] < last:
        out.append(last)
    return out


def check_common(records_of, cpus):
    """What every memory run must hold, whatever the machine."""
    info = records_of("mem_info")
    assert len(info) == 1, info
    info = info[0]
    assert info["latency_max_bytes"] == MEM_MAX and info["bandwidth_bytes"] == MEM_MAX, info
    assert info["capped_by"] == "mem_max", info
    assert info["cpus"] == cpus, info

    # All three patterns at every size, each once, with a sane spread.
    lat = records_of("mem_latency")
    seen = {(r["bytes"], r["pattern"]) for r in lat}
    want = {(b, p) for b in latency_sizes(MEM_MAX) for p in PATTERNS}
    assert seen == want, sorted(want - seen)
    assert len(lat) == len(want)
    for r in lat:
        assert 0 < r["ns"] <= r["ns_median"] <= r["ns_max"], r
        assert r["passes"] == info["latency_passes"] and r["loads"] > 0, r

    # read, write and copy on one thread and on all of them.
    bw = records_of("mem_bandwidth")
    threads = (1, cpus) if cpus > 1 else (1,)
    got = sorted((r["op"], r["threads"]) for r in bw)
    assert got == sorted((op, t) for op in ("read", "write", "copy") for t in threads), got
    for r in bw:
        assert r["bytes"] == MEM_MAX and r["isa"] == info["isa"], r
        assert r["gbps"] >= r["gbps_median"] >= r["gbps_min"] > 0, r
        assert r["nontemporal"] == (r["op"] != "read"), r

    # Loaded latency: the idle baseline, then every other CPU reading.
    loaded = records_of("mem_loaded_latency")
    if cpus == 1:
        assert loaded == []
        return info
    assert [r["load_threads"] for r in loaded] == [0] + [cpus - 1] * (len(loaded) - 1), loaded
    assert len(loaded) >= 3
    assert loaded[0]["load_gbps"] == 0
    assert loaded[1]["delay_ns"] > 0 and loaded[-1]["delay_ns"] == 0, loaded
    for r in loaded:
        assert 0 < r["ns"] <= r["ns_median"] <= r["ns_max"] and r["load_gbps"] >= 0, r
    # A reader can be starved by the host while an emulated CPU is timed,
    # so only ask that the load showed up somewhere.
    assert max(r["load_gbps"] for r in loaded) > 0, loaded
    return info


def test_mem_smp2_bandwidth_latency_and_loaded():
    run = marks.shared_boot(**UEFI_QUICK)
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.of_type("error")
    info = check_common(run.of_type, 2)
    # The firmware leaves AVX off; QEMU's -cpu max has it (TCG since QEMU
    # 7.2), so wide kernels running at all shows that we enabled it.
    assert info["isa"] in ("avx", "avx512"), info
    # One CPU, one proximity domain: no NUMA matrix.
    assert run.of_type("mem_numa") == []


def test_mem_numa_two_nodes_gives_2x2_matrix():
    run = qemu.boot(options="mem=quick disk=off mem_max=1M exit=shutdown", smp=4, memory_mib=1024,
                    extra_args=NUMA_ARGS, timeout=180)
    assert not run.timed_out, run.serial[-2000:]
    assert run.end()["status"] == "ok", run.of_type("error")
    numa = run.of_type("mem_numa")
    assert sorted((r["from_node"], r["to_node"]) for r in numa) == [(0, 0), (0, 1), (1, 0), (1, 1)], numa
    for r in numa:
        assert r["threads"] == 2, r  # cpus=0-1 and cpus=2-3
        assert r["latency_ns"] > 0 and r["read_gbps"] > 0, r
        assert r["latency_ns"] <= r["latency_ns_median"] <= r["latency_ns_max"], r
        assert r["latency_bytes"] == MEM_MAX and r["bandwidth_bytes"] == MEM_MAX, r
    # The matrix is printed for people too.
    assert "NUMA latency" in run.serial


def test_mem_host_build_prints_the_same_records():
    """build/host/baremark runs the same engine and kernels on Linux."""
    binary = os.path.join(qemu.BUILD, "host", "baremark")
    p = subprocess.run([binary, "mem=quick", "disk=off", "mem_max=1M"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    records = qemu.parse_records(p.stdout)

    def of_type(t):
        return [r for r in records if r.get("type") == t]

    cpus = os.cpu_count()
    check_common(of_type, cpus)
    assert of_type("end")[0]["status"] == "ok"
    if cpus > 1:
        # Real threads: readers with no delay stream more than readers that
        # wait 20 us after every 64 KiB.
        loaded = of_type("mem_loaded_latency")
        assert loaded[-1]["load_gbps"] > loaded[1]["load_gbps"], loaded
    # The latency table is on the screen (stderr on the host).
    assert "full_random" in p.stderr and "memory read" in p.stderr


def chase_loop(obj):
    """The instructions of mem_chase's timed loop, from objdump: from the
    jump target of its backward branch to that branch."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True,
                          check=True).stdout
    body = text.split("<mem_chase>:", 1)[1].split("\n\n", 1)[0]
    insns = []
    for line in body.splitlines():
        addr, _, rest = line.strip().partition(":")
        if rest.strip():
            insns.append((int(addr, 16), " ".join(rest.split())))
    back = [(a, i) for a, i in insns if i.startswith("jne ") and int(i.split()[1], 16) < a]
    assert len(back) == 1, insns
    start, end = int(back[0][1].split()[1], 16), back[0][0]
    return [i for a, i in insns if start <= a <= end]


@marks.host
def test_mem_chase_loop_holds_only_the_dependent_loads():
    """What the CPU times is 32 dependent loads and the loop branch, in both
    builds (the same assembly source, checked in the objects built)."""
    objs = [os.path.join(qemu.BUILD, "uefi", "efi", "mem", "mem_kernels.S.o"),
            os.path.join(qemu.BUILD, "host", "obj", "efi", "mem", "mem_kernels.S.o")]
    for obj in objs:
        loop = chase_loop(obj)
        assert loop[:32] == ["mov (%rax),%rax"] * 32, (obj, loop)
        assert loop[32] == "dec %rsi" and loop[33].startswith("jne ") and len(loop) == 34, (obj, loop)


def press_esc_when(workdir, sock_path, marker, pressed, timeout=120):
    """Watch the serial log; once `marker` shows, press Esc through QEMU's
    monitor (a PS/2 key the firmware's console reads) and note the time."""
    if not testutil.wait_for_serial(workdir, marker, timeout):
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall(b"sendkey esc\n")
        pressed.append(time.time())
        time.sleep(0.5)


def test_mem_esc_stops_the_memory_benchmark_promptly():
    """Esc during the latency sweep: the run ends at once with the abort
    note, before the sweep is done and before any bandwidth figure."""
    workdir = qemu.tempdir(prefix="baremark-memesc-")
    sock_path = os.path.join(workdir, "monitor.sock")
    pressed = []
    # 64 MiB keeps TCG busy in the sweep for far longer than the test waits.
    watcher = threading.Thread(target=press_esc_when,
                               args=(workdir, sock_path, '"pattern":"full_random"', pressed))
    watcher.start()
    run = qemu.boot(options="mem=quick disk=off mem_max=64M exit=shutdown", smp=2, timeout=120, workdir=workdir,
                    extra_args=["-monitor", "unix:%s,server=on,wait=off" % sock_path])
    returned = time.time()
    watcher.join()
    assert pressed, "the sweep never started: " + run.serial[-2000:]
    end = run.end()
    assert end["status"] == "error" and "Esc" in end.get("note", ""), end
    assert run.of_type("mem_bandwidth") == []
    lat = run.of_type("mem_latency")
    assert 0 < len(lat) < len(latency_sizes(64 << 20)) * 3, len(lat)
    # Stopped between two measurements: the end record, and QEMU's exit
    # (exit=shutdown), follow the key within seconds.
    assert returned - pressed[0] < 15, returned - pressed[0]


def load_compare_tool():
    import importlib.util
    path = os.path.join(qemu.ROOT, "tools", "membench_compare.py")
    spec = importlib.util.spec_from_file_location("membench_compare", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@marks.host
def test_membench_compare_reads_each_tools_output():
    """The comparison script's parsers on output in each tool's own format
    (lmbench and tinymembench printf formats, STREAM's table, our records)."""
    mc = load_compare_tool()
    size = 256 << 20

    def close(a, b):
        return a is not None and abs(a - b) < 1e-9

    lat = '"stride=64\n0.00049 1.133\n128.00000 270.500\n256.00000 278.170\n\n'
    assert close(mc.parse_lat_mem_rd(lat, size), 278.17)
    assert mc.parse_lat_mem_rd(lat, 512 << 20) is None
    assert close(mc.parse_bw_mem("268.44 24120.64\n"), 24.12064)
    stream = ("Function    Best Rate MB/s  Avg time     Min time     Max time\n"
              "Copy:           41391.2     0.105     0.103     0.110\n"
              "Scale:          30000.0     0.105     0.103     0.110\n")
    assert close(mc.parse_stream(stream), 41.3912)
    tmb = ("%s%-52s : %8.1f MB/s (%.1f%%)\n" % (" ", "C copy backwards", 9000.0, 0.5)
           + "%s%-52s : %8.1f MB/s\n" % (" ", "SSE2 nontemporal copy", 19381.0)
           + "%s%-52s : %8.1f MB/s\n" % (" ", "SSE2 copy (from framebuffer)", 99999.0)
           + "%s%-52s : %8.1f MB/s\n" % (" ", "SSE2 fill", 30000.0)
           + "\nblock size : single random read / dual random read, [MADV_NOHUGEPAGE]\n"
           + "%10d : %6.1f ns          /  %6.1f ns \n" % (size, 301.2, 350.0)
           + "\nblock size : single random read / dual random read, [MADV_HUGEPAGE]\n"
           + "%10d : %6.1f ns          /  %6.1f ns \n" % (1024, 0.0, 0.0)
           + "%10d : %6.1f ns          /  %6.1f ns \n" % (size, 245.4, 290.0))
    copy, tlat = mc.parse_tinymembench(tmb, size)
    assert close(copy, 19.381) and close(tlat, 245.4)
    records = "\n".join("BAREMARK " + json.dumps(r) for r in (
        {"type": "mem_info", "isa": "avx", "llc_bytes": 1 << 25},
        {"type": "mem_latency", "bytes": 4096, "pattern": "stride", "ns": 1.1},
        {"type": "mem_latency", "bytes": size, "pattern": "full_random", "ns": 95.5},
        {"type": "mem_latency", "bytes": size, "pattern": "page_random", "ns": 50.0},
        {"type": "mem_bandwidth", "op": "read", "threads": 1, "gbps": 12.5},
        {"type": "mem_bandwidth", "op": "copy", "threads": 8, "gbps": 80.0},
        {"type": "mem_bandwidth", "op": "write", "threads": 1, "gbps": 9.0}))
    bm = mc.parse_baremark("firmware noise\n" + records + "\n", size)
    assert bm["latency"] == 95.5 and bm["l1"] == 1.1
    assert bm["bw"] == {("read", 1): 12.5, ("copy", 8): 80.0}
