#!/usr/bin/env python3
"""Run baremark's memory benchmark (the Linux host build) next to established
tools on the same machine and print the figures side by side.

The tools are not Debian packages and this script never downloads them: give
it their binaries, or the source folders you fetched yourself, and it builds
them in a scratch folder:

  lmbench      lat_mem_rd -t (random chase latency), bw_mem rd/frd/cp/bcopy
               --lmbench-src DIR (the lmbench tree; needs libtirpc-dev) or
               --lat-mem-rd PATH --bw-mem PATH
  STREAM       Copy (OpenMP, one thread and all threads)
               --stream-src DIR (holding stream.c) or --stream PATH (built
               with -fopenmp and arrays of at least 4x the LLC)
  tinymembench random-read latency (with MADV_HUGEPAGE) and copy bandwidth
               --tinymembench-src DIR (its SIZE is set so the latency test
               reaches --size) or --tinymembench PATH

Conventions, so the columns compare like with like:
  - GB/s is 10^9 bytes/s everywhere.
  - copy counts read + written bytes (STREAM's convention). bw_mem cp/bcopy
    and tinymembench report bytes copied, so their figures are doubled.
  - latency is ns per dependent load at --size (default 256 MiB). baremark:
    full_random, best pass. lat_mem_rd -t: its own random chase (4 KiB pages
    unless transparent huge pages are set to "always"). tinymembench reports
    time on top of an L1 hit, so its column adds the L1 latency baremark
    measured at 4 KiB (shown separately).
  - each tool runs --repeat times, interleaved with the others; the best
    figure of each is kept (a busy machine only ever makes a run slower).

usage: membench_compare.py [--baremark build/host/baremark] [--size 256M]
         [--repeat 3] [--threads N] [tool options above] [--build-dir DIR]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KkMmGg]?)", text)
    if not m:
        raise argparse.ArgumentTypeError("a size like 256M")
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2).lower()]
    return int(m.group(1)) * mult


def run(cmd, env=None, timeout=3600):
    """Run a command; its stdout and stderr together (lmbench prints results to stderr)."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout)[-500:]))
    return p.stdout + p.stderr


# ---- Parsers: one per tool output (kept pure so they can be tested) ------------------

RECORD_RE = re.compile(r"BAREMARK (\{.*\})\s*$")


def parse_baremark(text, size):
    """Figures from baremark's records: full_random latency at `size`, the L1
    (4 KiB stride) latency, and read/copy GB/s by thread count."""
    out = {"latency": None, "l1": None, "bw": {}}
    for line in text.splitlines():
        m = RECORD_RE.search(line)
        if not m:
            continue
        r = json.loads(m.group(1))
        if r.get("type") == "mem_latency":
            if r["pattern"] == "full_random" and r["bytes"] == size:
                out["latency"] = r["ns"]
            if r["pattern"] == "stride" and r["bytes"] == 4096:
                out["l1"] = r["ns"]
        elif r.get("type") == "mem_bandwidth" and r["op"] in ("read", "copy"):
            out["bw"][(r["op"], r["threads"])] = r["gbps"]
        elif r.get("type") == "mem_info":
            out["info"] = r
    return out


def parse_lat_mem_rd(text, size):
    """lat_mem_rd prints "<MB> <ns>" per range; the line for `size`."""
    want = size / (1 << 20)
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                mb, ns = float(parts[0]), float(parts[1])
            except ValueError:
                continue
            if abs(mb - want) < 1e-3:
                return ns
    return None


def parse_bw_mem(text):
    """bw_mem prints "<MB> <MB/s>" (MB = 10^6 bytes); GB/s."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                return float(parts[1]) / 1000.0
            except ValueError:
                pass
    return None


def parse_stream(text):
    """STREAM's Copy best rate (MB/s, 10^6, read + write counted); GB/s."""
    m = re.search(r"^Copy:\s+([\d.]+)", text, re.M)
    return float(m.group(1)) / 1000.0 if m else None


def parse_tinymembench(text, size):
    """tinymembench: the best copy figure (MB/s of bytes copied, 10^6) and the
    single random read latency at `size` from the MADV_HUGEPAGE table (or the
    only table when it has just one)."""
    copy = None
    for m in re.finditer(r"^\s*(.*copy.*?)\s*:\s*([\d.]+) MB/s", text, re.M | re.I):
        v = float(m.group(2)) / 1000.0
        copy = v if copy is None else max(copy, v)
    lat = None
    tables = re.split(r"\nblock size : ", text)
    for t in tables[1:]:
        huge = "[MADV_HUGEPAGE]" in t.splitlines()[0]
        m = re.search(r"^\s*%d :\s*([\d.]+) ns" % size, t, re.M)
        if m and (huge or lat is None):
            lat = float(m.group(1))
    return copy, lat


# ---- Building the tools from their sources --------------------------------------------

def build_lmbench(src, out):
    s = os.path.join(src, "src") if os.path.isdir(os.path.join(src, "src")) else src
    libs = [os.path.join(s, f) for f in ("lib_mem.c", "lib_timing.c", "lib_stats.c", "lib_debug.c", "lib_sched.c",
                                         "getopt.c")]
    flags = ["-O2", "-w", "-I/usr/include/tirpc", "-DHAVE_socklen_t", "-DHAVE_DRAND48", "-DHAVE_SCHED_SETAFFINITY"]
    paths = {}
    for prog in ("lat_mem_rd", "bw_mem"):
        exe = os.path.join(out, prog)
        run(["gcc"] + flags + ["-o", exe, os.path.join(s, prog + ".c")] + libs + ["-ltirpc", "-lm"])
        paths[prog] = exe
    return paths["lat_mem_rd"], paths["bw_mem"]


def build_stream(src, out, size):
    exe = os.path.join(out, "stream")
    # Copy touches two arrays: each gets half of `size`.
    n = max(size // 16, 1 << 20)
    run(["gcc", "-O2", "-fopenmp", "-DSTREAM_ARRAY_SIZE=%d" % n, "-DNTIMES=20", "-o", exe,
         os.path.join(src, "stream.c")])
    return exe


def build_tinymembench(src, out, size):
    # Its latency test covers up to 2 * SIZE, a fixed #define: build a copy
    # with SIZE = size / 2 (which also sizes its copy buffers).
    work = os.path.join(out, "tinymembench-src")
    shutil.copytree(src, work, dirs_exist_ok=True)
    main = os.path.join(work, "main.c")
    text = open(main).read()
    text, n = re.subn(r"#define SIZE\s+\(.*\)", "#define SIZE (%d)" % (size // 2), text)
    if n != 1:
        raise RuntimeError("tinymembench main.c: no SIZE #define to set")
    open(main, "w").write(text)
    for o in glob.glob(os.path.join(work, "*.o")):
        os.unlink(o)
    # Fewer random reads per point than its default 10 million, so the
    # 256 MiB table takes a minute, not a quarter of an hour; still
    # seconds of reads per point, best of 5.
    run(["make", "-C", work, "-s", "CFLAGS=-DLATBENCH_COUNT=2000000 -DMAXREPEATS=5"])
    return os.path.join(work, "tinymembench")


# ---- The comparison ------------------------------------------------------------------------

def best(values):
    vals = [v for v in values if v is not None]
    return (min(vals), max(vals)) if vals else (None, None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baremark", default=os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"), "host",
                                                       "baremark"))
    ap.add_argument("--size", type=parse_size, default=256 << 20, help="working set per thread (256M)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--lat-mem-rd")
    ap.add_argument("--bw-mem")
    ap.add_argument("--stream")
    ap.add_argument("--tinymembench")
    ap.add_argument("--lmbench-src")
    ap.add_argument("--stream-src")
    ap.add_argument("--tinymembench-src")
    ap.add_argument("--build-dir")
    args = ap.parse_args()

    size, threads = args.size, args.threads
    build = args.build_dir or tempfile.mkdtemp(prefix="membench-tools-")
    os.makedirs(build, exist_ok=True)
    if args.lmbench_src and not (args.lat_mem_rd and args.bw_mem):
        args.lat_mem_rd, args.bw_mem = build_lmbench(args.lmbench_src, build)
    if args.stream_src and not args.stream:
        args.stream = build_stream(args.stream_src, build, size)
    if args.tinymembench_src and not args.tinymembench:
        args.tinymembench = build_tinymembench(args.tinymembench_src, build, size)

    mb = "%dM" % (size >> 20)
    res = {k: [] for k in ("bm", "lat_mem_rd", "stream1", "streamN", "rd1", "rdN", "frd1", "frdN", "cp1", "cpN",
                           "bcopy1", "bcopyN", "tmb")}
    for rep in range(args.repeat):
        print("pass %d of %d ..." % (rep + 1, args.repeat), file=sys.stderr, flush=True)
        res["bm"].append(parse_baremark(run([args.baremark, "mem=quick", "disk=off", "mem_max=" + mb]), size))
        if args.stream:
            res["stream1"].append(parse_stream(run([args.stream], env=dict(os.environ, OMP_NUM_THREADS="1"))))
            res["streamN"].append(parse_stream(run([args.stream], env=dict(os.environ,
                                                                            OMP_NUM_THREADS=str(threads)))))
        if args.bw_mem:
            half = "%dM" % (size >> 21)
            for op, sz in (("rd", mb), ("frd", mb), ("cp", half), ("bcopy", half)):
                res[op + "1"].append(parse_bw_mem(run([args.bw_mem, sz, op])))
                res[op + "N"].append(parse_bw_mem(run([args.bw_mem, "-P", str(threads), sz, op])))
        if args.lat_mem_rd and rep == 0:
            # Once: it sweeps every size from 512 bytes up (minutes), taking
            # the best of 5 runs of each itself.
            res["lat_mem_rd"].append(parse_lat_mem_rd(run([args.lat_mem_rd, "-t", "-N", "5", mb, "64"]), size))
        if args.tinymembench:
            res["tmb"].append(parse_tinymembench(run([args.tinymembench]), size))

    bm = res["bm"]
    bm_lat = best(r["latency"] for r in bm)[0]
    bm_l1 = best(r["l1"] for r in bm)[0]
    tmb_copy = best(c for c, _ in res["tmb"])[1]
    tmb_lat = best(l for _, l in res["tmb"])[0]

    def fmt(v, unit=""):
        return "%8.2f%s" % (v, unit) if v is not None else "%8s%s" % ("-", " " * len(unit))

    print("\nbaremark host build vs established tools, %s per thread, best of %d runs" % (mb, args.repeat))
    if bm and "info" in bm[0]:
        i = bm[0]["info"]
        print("baremark: %s kernels, LLC %d MiB per CPUID" % (i["isa"], i["llc_bytes"] >> 20))
    print("\nlatency at %s, ns per load" % mb)
    others = []
    if args.lat_mem_rd:
        v = best(res["lat_mem_rd"])[0]
        others.append(v)
        print("  lat_mem_rd -t              %s" % fmt(v))
    if args.tinymembench:
        adj = tmb_lat + bm_l1 if tmb_lat is not None and bm_l1 is not None else None
        others.append(adj)
        print("  tinymembench (hugepage)    %s   (%s reported + %s L1)" % (fmt(adj), fmt(tmb_lat).strip(),
                                                                          fmt(bm_l1).strip()))
    lowest = best(others)[0]
    print("  baremark full_random       %s" % fmt(bm_lat), end="")
    if lowest and bm_lat:
        print("   %+.1f%% vs the lowest tool" % (100.0 * (bm_lat / lowest - 1)))
    else:
        print()

    print("\nbandwidth, GB/s (copy counts read + written bytes)")
    print("  %-6s %-8s %9s %9s %9s %9s %9s %13s %8s" % ("op", "threads", "baremark", "STREAM", "bw_mem", "bw_mem",
                                                      "bw_mem", "tinymembench", "ratio"))
    print("  %-6s %-8s %9s %9s %9s %9s %9s %13s %8s" % ("", "", "", "Copy", "rd", "frd", "cp/bcopy", "copy",
                                                      "vs best"))
    for op in ("read", "copy"):
        for t, suffix in ((1, "1"), (threads, "N")):
            ours = best(r["bw"].get((op, t)) for r in bm)[1]
            stream = best(res["stream" + suffix])[1] if op == "copy" else None
            rd = best(res["rd" + suffix])[1] if op == "read" else None
            frd = best(res["frd" + suffix])[1] if op == "read" else None
            cp = None
            if op == "copy":
                cp = best([v * 2 for v in res["cp" + suffix] + res["bcopy" + suffix] if v is not None])[1]
            tmb = tmb_copy * 2 if op == "copy" and t == 1 and tmb_copy is not None else None
            top = best([stream, rd, frd, cp, tmb])[1]
            ratio = "%7.1f%%" % (100.0 * ours / top) if ours and top else "%8s" % "-"
            print("  %-6s %-8d %s %s %s %s %s %s     %s" % (op, t, fmt(ours, " "), fmt(stream, " "), fmt(rd, " "),
                                                           fmt(frd, " "), fmt(cp, " "), fmt(tmb, "     "), ratio))
    print("\n(the tools' sizes: lat_mem_rd %s, bw_mem rd/frd %s and cp/bcopy 2 x %dM per process, STREAM arrays "
          "of %dM each, tinymembench SIZE %dM)" % (mb, mb, size >> 21, size >> 21, size >> 21))
    return 0


if __name__ == "__main__":
    sys.exit(main())
