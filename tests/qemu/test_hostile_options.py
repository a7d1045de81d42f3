"""Hostile options on the host build (build/host/baremark, no QEMU): the
command line is never cut, baremark.cfg with a NUL byte or a long line is
named, out= never leaves the results volume."""
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"), "host", "baremark")


def _run(args, volume=None):
    env = dict(os.environ)
    env.pop("BAREMARK_HOST_VOLUME", None)
    if volume:
        env["BAREMARK_HOST_VOLUME"] = volume
    p = subprocess.run([BINARY] + args, capture_output=True, env=env, timeout=120)
    records = [json.loads(l[len("BAREMARK "):]) for l in p.stdout.decode("utf-8").splitlines()
               if l.startswith("BAREMARK {")]
    return p.returncode, records


def _errors(records):
    return [r["message"] for r in records if r.get("type") == "error"]


def test_hostile_long_command_line_is_checked_to_its_end():
    # The old host build joined argv into 512 bytes: a bad option past
    # the cut was never seen and the run ended "ok".
    filler = ["time=1"] * 120
    status, recs = _run(["mem=off", "disk=off", "out=off"] + filler + ["time=never"])
    assert status == 2, recs
    assert any("'time'" in m for m in _errors(recs)), recs
    status, recs = _run(["mem=off", "out=off"] + filler + ["disk=off"])
    assert status == 0 and recs[-1]["status"] == "ok", recs
    run = recs[0]
    assert run["type"] == "run" and run["args"].endswith("disk=off"), run
    # Longer than the limit: refused whole, the limit named.
    status, recs = _run(["mem=off", "disk=off", "out=off"] + ["time=1"] * 700)
    assert status == 2 and any("command line too long" in m and "at most 4095" in m for m in _errors(recs)), recs


def test_hostile_config_file_nul_and_long_lines_are_named():
    with tempfile.TemporaryDirectory() as vol:
        os.makedirs(os.path.join(vol, "baremark"))
        cfg = os.path.join(vol, "baremark", "baremark.cfg")
        with open(cfg, "wb") as f:
            f.write(b"mem=off\n# comment\ndisk=off\x00time=never\n")
        status, recs = _run(["out=off"], vol)
        assert status == 2 and any("baremark.cfg line 3: a NUL byte" in m for m in _errors(recs)), recs
        with open(cfg, "wb") as f:
            f.write(b"mem=off\ndisks=" + b"a" * 19994 + b"\n")
        status, recs = _run(["out=off"], vol)
        assert status == 2 and any("line 2: line too long (20000 bytes" in m for m in _errors(recs)), recs


def test_hostile_out_cannot_leave_the_results_volume():
    with tempfile.TemporaryDirectory() as top:
        vol = os.path.join(top, "a", "b", "vol")
        os.makedirs(vol)
        for out in ("../..", "..\\..\\x", "\\baremark\\..\\..\\..\\y", "LABEL:\\..\\z"):
            status, recs = _run(["mem=off", "disk=off", "out=" + out], vol)
            assert status == 2, (out, recs)
            assert any("no . or .. in the path" in m for m in _errors(recs)), (out, recs)
        status, recs = _run(["mem=off", "disk=off", "out=\\res"], vol)
        assert status == 0, recs
        written = [os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs]
        assert len(written) == 1 and written[0].startswith(os.path.join("a", "b", "vol", "res") + os.sep), written
