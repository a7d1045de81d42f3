"""Marks for tests in tests/qemu that need no QEMU (run_all.py --host, part of `make check`)."""


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
    import threading

    lock = threading.Lock()
    memo = {}

    @functools.wraps(fn)
    def shared(*args):
        with lock:
            if args not in memo:
                memo[args] = fn(*args)
            return memo[args]
    return shared


_SHARED_LOCK = None
_SHARED = {}


def shared_boot(**kwargs):
    """qemu.boot(**kwargs), booted once for every test of any module that asks
    for the very same machine and options and only reads what the run left
    (records, serial log, the stick's files): each checks a different thing."""
    import threading

    import qemu

    global _SHARED_LOCK
    if _SHARED_LOCK is None:
        _SHARED_LOCK = threading.Lock()
    key = tuple(sorted(kwargs.items()))
    with _SHARED_LOCK:
        entry = _SHARED.setdefault(key, {"lock": threading.Lock()})
    with entry["lock"]:
        if "run" not in entry:
            entry["run"] = qemu.boot(**kwargs)
        return entry["run"]
