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
