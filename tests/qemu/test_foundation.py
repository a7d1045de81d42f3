"""Foundation: the app boots from a USB stick under OVMF, applies options,
and writes the same records to serial and to the results file."""
import json

import marks
import qemu


def _file_records(run):
    names = [n for n in run.results_files() if n.endswith(".jsonl")]
    assert len(names) == 1, "expected one results file, got %r" % names
    text = run.read_file("::/baremark/results/" + names[0])
    return names[0], [json.loads(line) for line in text.splitlines() if line.strip()]


def test_serial_records_match_results_file():
    run = marks.shared_boot(options="mem=off disk=off", timeout=180)  # test_serial checks its port
    assert not run.timed_out, run.serial[-2000:]
    types = [r["type"] for r in run.records]
    assert types[0] == "run" and types[-1] == "end", types
    assert "system" in types
    run_rec = run.one("run")
    assert run_rec["schema"] == 1 and run_rec["version"]
    assert run_rec["time"][:2] == "20" and "T" in run_rec["time"]
    end = run.end()
    assert end["status"] == "ok" and end["errors"] == 0, end
    name, from_file = _file_records(run)
    assert from_file == run.records
    # YYYYMMDD-HHMMSS-<serial>.jsonl
    stamp = name.split("-")
    assert len(stamp[0]) == 8 and stamp[0].isdigit() and len(stamp[1]) == 6 and stamp[1].isdigit(), name
    # exit=wait (the default): once the files are closed the record channel says
    # the key is awaited (the harness stops QEMU there, not after its grace).
    tail = run.serial[run.serial.rindex('"type":"end"'):]
    assert "baremark: files closed, waiting for a key" in tail, tail[-2000:]
    assert run.seconds < 60, run.seconds


def test_bad_option_stops_run_with_named_error():
    run = qemu.boot(cfg="mem=off\ndisk=sometimes\n", timeout=180)
    assert not run.timed_out, run.serial[-2000:]
    errors = run.of_type("error")
    assert len(errors) == 1, errors
    msg = errors[0]["message"]
    assert errors[0]["where"] == "options"
    assert "line 2" in msg and "'disk'" in msg and "'sometimes'" in msg and "off, quick or full" in msg, msg
    assert run.of_type("system") == [] and run.of_type("disk") == [], "nothing may run after a bad option"
    end = run.end()
    assert end["status"] == "error" and "bad options" in end["note"]
    # the person at the screen sees it too (OVMF mirrors the console to serial)
    assert "ERROR options:" in run.serial


def test_exit_shutdown_ends_qemu():
    run = marks.shared_boot(options="mem=off disk=off exit=shutdown", timeout=180)  # test_one_stick reads its stick
    assert not run.timed_out
    assert run.end()["status"] == "ok"
    assert run.returncode == 0, "QEMU should have powered off by itself, got %r" % run.returncode
    # the results file was closed before the power-off
    _, from_file = _file_records(run)
    assert from_file[-1]["type"] == "end"


def test_serial_off_still_writes_results_file():
    run = qemu.boot(options="mem=off disk=off serial=off exit=shutdown", timeout=180)
    assert run.records == [], "no records may reach serial with serial=off"
    assert run.returncode == 0
    _, from_file = _file_records(run)
    assert [r["type"] for r in from_file][0] == "run" and from_file[-1]["type"] == "end"


def test_out_off_writes_no_file():
    run = qemu.boot(options="mem=off disk=off out=off exit=shutdown", timeout=180)
    assert run.end()["status"] == "ok"
    assert [n for n in run.results_files() if n.endswith(".jsonl")] == []


@marks.host
def test_bare_make_builds_the_application():
    # A new user types `make`: the default goal must be the EFI application,
    # not the first rule of the Makefile. Dry run into a fresh build folder.
    import os
    import subprocess
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(["make", "-n", "BUILD=" + tmp], cwd=root, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "objcopy" in p.stdout and tmp + "/baremark.efi" in p.stdout, p.stdout[-2000:]
