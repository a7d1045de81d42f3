"""The AArch64 memory kernels (efi/mem/mem_kernels_aa64.S), checked on this
x86 machine: the timed chase loop as assembled, and the planted-bug run
(tests/aa64/planted_bugs.py: every mutated kernel fails
tests/aa64/test_mem_kernels_aa64.c under qemu-aarch64). The test binary
itself runs with the unit tests (make aa64-mem-kernels)."""
import os
import subprocess
import sys

import marks
import qemu

HOST = True  # no system emulator: cross tools and qemu-aarch64 user mode only

OBJ = os.path.join(qemu.BUILD, "aa64", "obj", "mem_kernels_aa64.o")


def chase_loop(obj):
    """The instructions of mem_chase's loop, from the target of its backward
    branch to that branch (aarch64-linux-gnu-objdump)."""
    text = subprocess.run(["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                          text=True, check=True).stdout
    body = text.split("<mem_chase>:", 1)[1].split("\n\n", 1)[0]
    insns = []
    for line in body.splitlines():
        addr, _, rest = line.strip().partition(":")
        if rest.strip():
            insns.append((int(addr, 16), " ".join(rest.split())))
    back = [(a, i) for a, i in insns if i.startswith("b.ne ") and int(i.split()[1], 16) < a]
    assert len(back) == 1, insns
    start, end = int(back[0][1].split()[1], 16), back[0][0]
    return [i for a, i in insns if start <= a <= end]


@marks.host
def test_aa64_chase_loop_holds_only_the_dependent_loads():
    """What the Arm CPU times: 32 loads, each from the address the previous
    one returned, then the loop's subs and b.ne."""
    subprocess.run(["make", "--no-print-directory", OBJ[len(qemu.ROOT) + 1:]], cwd=qemu.ROOT, check=True,
                   capture_output=True)
    loop = chase_loop(OBJ)
    assert loop[:32] == ["ldr x0, [x0]"] * 32, loop
    assert loop[32] == "subs x1, x1, #0x1" and loop[33].startswith("b.ne ") and len(loop) == 34, loop


@marks.host
def test_aa64_kernels_planted_bugs_are_caught():
    """Each of the planted bugs (a wrong stride, a hole, a swapped pair, a
    loop one line too far, a chase round of 31 loads...) makes the kernels'
    test fail; the unchanged kernels pass."""
    p = subprocess.run([sys.executable, os.path.join(qemu.ROOT, "tests", "aa64", "planted_bugs.py")],
                       capture_output=True, text=True, cwd=qemu.ROOT, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "original kernels: pass" in p.stdout and "MISSED" not in p.stdout, p.stdout
