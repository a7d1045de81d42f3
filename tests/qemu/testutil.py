"""What several QEMU tests do the same way around a boot: a scratch folder per
test, a failure that shows the serial log's tail, waiting for a line of the
serial log (to press a key at the right moment)."""
import hashlib
import os
import time

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
