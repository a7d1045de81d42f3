"""Hostile options on the UEFI build under OVMF: a command line longer
than the old 511-byte cut is read to its end (through iPXE, which passes
load options), a NUL byte in baremark.cfg names its line, and out= with a
'..' part is refused before anything runs."""
import qemu
from test_netboot import _net, _tftp_dir


def test_hostile_uefi_long_command_line_read_to_its_end():
    # ~700 bytes: the old build cut it at 511 and never saw time=never.
    line = "mem=off disk=off exit=shutdown " + "time=9 " * 100 + "time=never"
    tftp = _tftp_dir({"baremark.ipxe": "#!ipxe\nchain baremark.efi %s\n" % line})
    run = qemu.boot(stick=False, net=_net(tftp, "baremark.ipxe"), timeout=240)
    assert not run.timed_out, run.serial[-3000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and "'never'" in errors[0]["message"] and "'time'" in errors[0]["message"], errors
    assert run.one("run")["args"].endswith("time=never"), run.one("run")
    assert run.end()["status"] == "error"


def test_hostile_uefi_config_nul_byte_and_out_dotdot_are_refused():
    run = qemu.boot(cfg="mem=off\ndisk=off\x00exit=shutdown\n", timeout=180)
    assert not run.timed_out, run.serial[-2000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and "baremark.cfg line 2: a NUL byte" in errors[0]["message"], errors
    run = qemu.boot(cfg="mem=off\ndisk=off\nout=\\baremark\\..\\..\\x\n", timeout=180)
    assert not run.timed_out, run.serial[-2000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and "no . or .. in the path" in errors[0]["message"], errors
    assert not [n for n in run.results_files() if n.endswith(".jsonl")]
