"""What several QEMU tests do the same way around a boot: a scratch folder per
test, a failure that shows the serial log's tail, waiting for a line of the
serial log (to press a key at the right moment)."""
import hashlib
import os
import subprocess
import time

import marks

import qemu


def cleaned(prefix):
    """Decorator: run the test in its own scratch folder (disk images, the QEMU
    work folder), removed by the test runner when it is done (BAREMARK_KEEP=1 keeps it)."""
    def wrap(fn):
        def wrapper():
            fn(qemu.tempdir(prefix=prefix))
        wrapper.__name__ = fn.__name__
        return wrapper
    return wrap


def fail_with_log(run, msg):
    """Fail with msg and the last 4000 characters of the run's serial log."""
    raise AssertionError(msg + "\n--- serial log tail ---\n" + run.serial[-4000:])


def wait_for_serial(workdir, marker, timeout):
    """Wait until workdir/serial.log holds marker (a str); False when timeout seconds pass first."""
    serial = os.path.join(workdir, "serial.log")
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open(serial, errors="replace") as f:
                if marker in f.read():
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.2)
    return False


def sha256(path):
    """The SHA-256 of a disk image, to prove a run left it untouched (or not)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def gpt_disk(path, size_mib):
    """A disk full of random data with a GPT and one partition on it."""
    qemu.make_disk(path, size_mib, fill="random")
    subprocess.run(["sgdisk", "--new=1:2048:0", "--typecode=1:8300", path], check=True, capture_output=True)
    return path


# Two NVMe controllers behind one PCIe switch: their traffic shares the
# switch's uplink, which the all-disks records name with its ceiling.
SWITCH = ["pcie-root-port,id=rp1,chassis=1,slot=1", "x3130-upstream,bus=rp1,id=up1",
          "xio3130-downstream,bus=up1,id=dn1,chassis=2,slot=0",
          "xio3130-downstream,bus=up1,id=dn2,chassis=3,slot=0"]
STICK_SERIAL = "BOOTSTICK"


@marks.once
def switch_run():
    """One boot for test_disk_engine's default read-only run through the
    firmware's drivers and test_report_html's page from a QEMU run: two
    NVMe disks (random data, a GPT) behind a PCIe switch, a small memory
    run, the stick with a serial of its own. Returns the run, the two
    images and their SHA-256 before the boot. (This module is imported
    once, so every test gets the same run; run_all.py loads each test
    module on its own.)"""
    work = qemu.tempdir(prefix="baremark-switch-")
    a, b = gpt_disk(os.path.join(work, "a.img"), 64), gpt_disk(os.path.join(work, "b.img"), 48)
    before = sha256(a), sha256(b)
    run = qemu.boot(options="mem=quick mem_max=1M disk=quick time=100ms warmup=50ms driver=firmware disks=NVME0001,NVME0002 "
                            "exit=shutdown",
                    drives=["if=none,id=n1,format=raw,file=" + a, "if=none,id=n2,format=raw,file=" + b],
                    devices=SWITCH + ["nvme,bus=dn1,drive=n1,serial=NVME0001", "nvme,bus=dn2,drive=n2,serial=NVME0002"],
                    extra_args=("-global", "usb-storage.serial=" + STICK_SERIAL), workdir=work, timeout=600)
    return run, (a, b), before
