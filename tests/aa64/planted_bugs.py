#!/usr/bin/env python3
"""Planted bugs: each mutant of efi/mem/mem_kernels_aa64.S (one small change
inside one kernel, the kind a slip of the pen makes) is linked into
tests/aa64/test_mem_kernels_aa64.c and run under qemu-aarch64; the test must
fail on every one of them, and pass on the unchanged kernels.

usage: tests/aa64/planted_bugs.py [-v|--verbose]
Prints one line per mutant ("caught" or "MISSED") and exits 1 if any is
missed. tests/qemu/test_aa64_mem_kernels.py runs it in make check.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(ROOT, "efi", "mem", "mem_kernels_aa64.S")
TEST = os.path.join(ROOT, "tests", "aa64", "test_mem_kernels_aa64.c")
LIB_SRC = ["efi/mem/mem_cpu.c", "efi/mem/mem_chain.c", "efi/mem/mem_measure.c", "efi/mem/mem_team.c",
           "efi/mem/mem_machine_host.c", "efi/lib/bmlib.c"]
CC = os.environ.get("AA64_CC", "aarch64-linux-gnu-gcc")
CFLAGS = ["-std=gnu11", "-O2", "-Iefi", "-DBAREMARK_HOST", "-static", "-pthread"]

# (name, function, old text, new text): old must occur in that function's body.
MUTANTS = [
    ("chase: 31 loads a round", "mem_chase", ".rept 32", ".rept 31"),
    ("chase: follows the wrong word of the line", "mem_chase", "ldr x0, [x0]", "ldr x0, [x0, #8]"),
    ("chase_empty: loads", "mem_chase_empty", "subs x1, x1, #1", "ldr x2, [x0]\n    subs x1, x1, #1"),
    ("blocks: end rounded to 128, not 256 bytes", None, "and x4, \\len, #~255", "and x4, \\len, #~127"),
    ("lines: the tail's end not rounded down", None, "and x3, \\len, #~63", "and x3, \\len, #~15"),
    ("read_neon: 192-byte stride", "mem_read_neon",
     "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x0], #64", "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x0]"),
    ("read_neon: enters the block loop with no whole block", "mem_read_neon", "b.hs 3f", "b.hi 3f"),
    ("read_neon: tail loop one line too far", "mem_read_neon", "b.lo 4b", "b.ls 4b"),
    ("write_neon: a 32-byte hole in each block", "mem_write_neon",
     "stnp q0, q0, [x0, #224]", "stnp q0, q0, [x0, #192]"),
    ("write_neon: tail loop skips the end check", "mem_write_neon", "cmp x0, x3\n    b.hs 2f", "cmp x0, x3"),
    ("copy_neon: halves of a store pair swapped", "mem_copy_neon",
     "stnp q22, q23, [x0, #224]", "stnp q23, q22, [x0, #224]"),
    ("copy_neon: tail destination does not advance", "mem_copy_neon",
     "stnp q2, q3, [x0, #32]\n    add x0, x0, #64\n    cmp x1, x3", "stnp q2, q3, [x0, #32]\n    cmp x1, x3"),
    ("read_ldp: last pair 8 bytes short", "mem_read_ldp", "ldp x11, x12, [x0, #240]", "ldp x11, x12, [x0, #232]"),
    ("write_ldp: tail leaves the last 16 bytes", "mem_write_ldp",
     "stnp xzr, xzr, [x0, #48]\n    add x0, x0, #64", "add x0, x0, #64"),
    ("copy_ldp: registers of a pair swapped", "mem_copy_ldp",
     "stnp x9, x10, [x0, #\\off + 32]", "stnp x10, x9, [x0, #\\off + 32]"),
    ("copy_ldp: source advances 192 bytes a block", "mem_copy_ldp", "add x1, x1, #256", "add x1, x1, #192"),
]


def mutate(src, func, old, new):
    """src with old replaced by new once, inside func's body (or anywhere when func is None)."""
    if func is None:
        assert src.count(old) == 1, old
        return src.replace(old, new)
    start = src.index("\n%s:\n" % func)
    end = src.index(".size %s," % func, start)
    body = src[start:end]
    assert old in body, (func, old)
    return src[:start] + body.replace(old, new, 1) + src[end:]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300, **kw)


def main():
    ap = argparse.ArgumentParser(description="Every planted bug in the AArch64 kernels must fail their test.")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the first failed check of each mutant")
    verbose = ap.parse_args().verbose
    src = open(KERNELS).read()
    missed = 0
    with tempfile.TemporaryDirectory(prefix="baremark-aa64-mutants-") as tmp:
        # The test and the C it needs are compiled once; each mutant is
        # assembled and linked against them.
        objs = []
        for c in [TEST] + LIB_SRC:
            o = os.path.join(tmp, os.path.basename(c) + ".o")
            p = run([CC] + CFLAGS + ["-c", c, "-o", o])
            if p.returncode:
                print("cannot build %s:\n%s" % (c, p.stderr))
                return 2
            objs.append(o)

        def outcome(text, tag):
            s = os.path.join(tmp, tag + ".S")
            exe = os.path.join(tmp, tag)
            with open(s, "w") as f:
                f.write(text)
            p = run([CC] + CFLAGS + [s] + objs + ["-o", exe, "-lm"])
            if p.returncode:
                return None, "does not assemble: " + p.stderr.strip().splitlines()[-1]
            # The kernels' own tests: a mutant changes nothing else, and the
            # engine's tests (threads, waits) would only add time.
            p = run(["qemu-aarch64", exe, "-x", "test_engine_"])
            bad = [ln for ln in p.stdout.splitlines() if ln.startswith("not ok") or ln.startswith("# FAIL")]
            return p.returncode == 0 and not bad, (bad[0] if bad else "exit %d" % p.returncode)

        ok, why = outcome(src, "original")
        if not ok:
            print("the unchanged kernels fail their test: %s" % why)
            return 1
        print("original kernels: pass")
        # Two at a time: each is mostly a link and an emulator start.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            results = list(ex.map(lambda im: outcome(mutate(src, *im[1][1:]), "mutant%d" % im[0]),
                                  enumerate(MUTANTS)))
        for (name, _, _, _), (ok, why) in zip(MUTANTS, results):
            if ok is None:
                print("BROKEN  %s (%s)" % (name, why))
                missed += 1
            elif ok:
                print("MISSED  %s" % name)
                missed += 1
            else:
                print("caught  %s%s" % (name, (": " + why) if verbose else ""))
    print("%d of %d mutants caught" % (len(MUTANTS) - missed, len(MUTANTS)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
