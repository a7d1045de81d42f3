"""Hostile options on the host build (build/host/baremark, no QEMU): the
command line is never cut, baremark.cfg with a NUL byte or a long line is
named, out= never leaves the results volume."""
import json
import os
import subprocess
import tempfile
import marks

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


@marks.host
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


@marks.host
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


@marks.host
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
        # the results file and its HTML report beside it, both inside the volume's results folder
        res = os.path.join("a", "b", "vol", "res") + os.sep
        assert sorted(os.path.splitext(w)[1] for w in written) == [".html", ".jsonl"], written
        assert all(w.startswith(res) for w in written), written


# Same-length replacements for SMBIOS strings: invalid UTF-8 (overlong,
# encoded surrogate, above U+10FFFF, truncated, stray bytes) and terminal
# controls (ESC sequences, C1 CSI raw and UTF-8-encoded), no NUL bytes.
HOSTILE_STRINGS = {
    b"Baremark Labs": b"\x1b[2J\xc0\xaf\xed\xa0\x80\xf4\x90",
    b"Inventory Rig": b"\x9b31m\xc2\x9b1m\x07\xe2\x82X\xff",
    b"INV-SERIAL-1": b"S\x1b]0;x\x07\xe2\x82\xac\xf0\x9f",
    b"D1MM-S3R": b"\xc3(\xa0\xa1\x7f\x01Z\xe9",
}


@marks.host
def test_hostile_device_strings_make_valid_records_and_a_clean_screen():
    data = open(os.path.join(ROOT, "tests", "unit", "data", "smbios_qemu_q35_2g.bin"), "rb").read()
    for old, new in HOSTILE_STRINGS.items():
        new = new.ljust(len(old), b"\x80")[:len(old)]
        assert old in data
        data = data.replace(old, new)
    with tempfile.TemporaryDirectory() as dmi:
        with open(os.path.join(dmi, "DMI"), "wb") as f:
            f.write(data)
        with open(os.path.join(dmi, "smbios_entry_point"), "wb") as f:
            f.write(b"_SM3_" + bytes([0, 0x18, 3, 2, 0]) + bytes(14))
        env = dict(os.environ, BAREMARK_HOST_DMI=dmi)
        env.pop("BAREMARK_HOST_VOLUME", None)
        p = subprocess.run([BINARY, "mem=off", "disk=off", "out=off"], capture_output=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    # Every record: strict UTF-8, parsed by Python's JSON, no raw control
    # characters anywhere in the line.
    out = p.stdout.decode("utf-8")  # strict: raises on any invalid sequence
    lines = [l for l in out.splitlines() if l.startswith("BAREMARK ")]
    records = [json.loads(l[len("BAREMARK "):]) for l in lines]
    for l in lines:
        assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in l), repr(l)
    system = [r for r in records if r["type"] == "system"][0]
    # (the SMBIOS parser keeps printable ASCII only; the JSON writer's own
    # UTF-8 handling is pinned in tests/unit/test_hostile_json.c)
    assert system["manufacturer"].startswith("?[2J") and system["serial"].startswith("S?]0;x"), system
    # The screen (stderr on the host build): valid UTF-8, no ESC, no C1.
    screen = p.stderr.decode("utf-8")
    assert "\x1b" not in screen and not any(0x80 <= ord(c) <= 0x9f for c in screen), repr(screen[:400])


@marks.host
def test_hostile_option_bytes_make_valid_records_and_a_clean_screen():
    # An option value is echoed in its error record and on the screen:
    # the record stays strict UTF-8 JSON, the screen gets no escape sequence.
    with tempfile.TemporaryDirectory() as vol:
        os.makedirs(os.path.join(vol, "baremark"))
        with open(os.path.join(vol, "baremark", "baremark.cfg"), "wb") as f:
            f.write(b"mem=off\ndisk=\xff\xc0\xaf\x1b[2J\xc2\x9b31m\xed\xa0\x80caf\xc3\xa9\n")
        env = dict(os.environ, BAREMARK_HOST_VOLUME=vol)
        p = subprocess.run([BINARY, "out=off"], capture_output=True, env=env, timeout=120)
    assert p.returncode == 2
    out = p.stdout.decode("utf-8")  # strict
    errors = [json.loads(l[len("BAREMARK "):]) for l in out.splitlines() if l.startswith("BAREMARK {")]
    errors = [r for r in errors if r["type"] == "error"]
    assert len(errors) == 1 and "\ufffd\ufffd\ufffd\x1b[2J\u009b31m" in errors[0]["message"], errors
    assert "caf\u00e9" in errors[0]["message"]
    for l in out.splitlines():
        assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in l), repr(l)
    screen = p.stderr.decode("utf-8")
    assert "\x1b" not in screen and not any(0x80 <= ord(c) <= 0x9f for c in screen), repr(screen[:400])
    assert "caf\u00e9" in screen
