"""Marks for tests in tests/qemu that need no QEMU (run_all.py --host, part of `make check`),
and the module-level shared boots (once, shared_boot)."""
import threading
import time

# Seconds the current thread spent waiting for a boot another test was
# making (run_all.py subtracts them from the test's time): the test that
# boots carries the boot's cost in the durations, the ones that only read
# its results count as short and are started last, when it is done,
# instead of holding a worker of the pool idle while it boots.
_WAITED = threading.local()


def waited_seconds():
    """Seconds this thread waited on other tests' shared boots so far."""
    return getattr(_WAITED, "seconds", 0.0)


def _locked(lock):
    """Acquire lock, counting the time as waited (the holder is booting)."""
    t0 = time.monotonic()
    lock.acquire()
    _WAITED.seconds = waited_seconds() + time.monotonic() - t0


def host(fn):
    """Mark a test that runs on this machine only (host build, tools, files): no QEMU boot."""
    fn.host_test = True
    return fn


def once(fn):
    """A module-level shared run: the first caller boots, every other test that
    checks a different thing of the same run gets that run. Unlike
    functools.lru_cache, callers from the parallel pool that arrive while the
    boot is under way wait for it instead of booting a second machine."""
    import functools

    lock = threading.Lock()
    memo = {}

    @functools.wraps(fn)
    def shared(*args):
        _locked(lock)
        try:
            if args not in memo:
                memo[args] = fn(*args)
            return memo[args]
        finally:
            lock.release()
    return shared


_SHARED_LOCK = threading.Lock()
_SHARED = {}


def shared_boot(**kwargs):
    """qemu.boot(**kwargs), booted once for every test of any module that asks
    for the very same machine and options and only reads what the run left
    (records, serial log, the stick's files): each checks a different thing."""
    import qemu

    key = tuple(sorted(kwargs.items()))
    with _SHARED_LOCK:
        entry = _SHARED.setdefault(key, {"lock": threading.Lock()})
    _locked(entry["lock"])
    try:
        if "run" not in entry:
            entry["run"] = qemu.boot(**kwargs)
        return entry["run"]
    finally:
        entry["lock"].release()
