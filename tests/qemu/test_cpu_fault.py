"""Real CPU exceptions. On the BIOS platform: the test build
(`make bios-testhooks`, BAREMARK_TEST_HOOKS) knows test_fault=ud|gp|pf|de,
which raises that exception after the inventory (and mc: a machine check's
registers, then a BIOS call) from an instruction whose
address it says first in a `log` record. The IDT (efi/bios/idt_bios.c) must
turn each into one `error` record naming the exception, that rip (and, for
a page fault, cr2) and a halt, never a triple fault (QEMU with -no-reboot
would exit). The release image refuses the option like any unknown key.

UEFI has no handler of ours: the firmware's own exception handler (EDK2
CpuExceptionHandlerLib) prints its register dump on the serial port and
stops the machine in a dead loop; no record is written. That was seen by
hand with build/testhooks/baremark.efi (`make efi-testhooks`) on the stick
and `test_fault=ud`; it is OVMF's behaviour, not ours, so no test here
waits the minute and a half for it."""
import os
import re
import shutil
import subprocess
import time

import qemu
import test_bios
from test_bios_screen import vga_cells

TESTHOOKS_BIN = os.path.join(qemu.BUILD, "testhooks", "baremark.bin")
EXPECTED = {"ud": "CPU exception 6 (#UD invalid opcode)", "de": "CPU exception 0 (#DE divide error)",
            "gp": "CPU exception 13 (#GP general protection)", "pf": "CPU exception 14 (#PF page fault)"}


def _testhooks_bin():
    """Build (or bring up to date) the test image; make does nothing when it is current."""
    subprocess.run(["make", "-C", qemu.ROOT, "--no-print-directory", "bios-testhooks"], check=True,
                   capture_output=True, timeout=1800)
    return TESTHOOKS_BIN


def _fault_run(kind):
    state = {}

    def stop_when_halted(text, monitor):
        # the error record is out; give it 3 s to show that the machine stays halted
        if '"where":"cpu"' in text:
            state.setdefault("t", time.time())
            if time.time() - state["t"] > 3:
                state["cells"] = vga_cells(monitor)
                return True
        return False

    run = test_bios.boot_bios("mem=off disk=off exit=shutdown test_fault=" + kind, timeout=120,
                              on_serial=stop_when_halted, binary=_testhooks_bin())
    run.screen = ["".join(chr(c) for c, _ in row) for row in state.get("cells", [])]
    return run


def _check_fault(kind):
    run = _fault_run(kind)
    assert not run.timed_out, run.serial[-2000:]
    assert run.returncode == -9, "QEMU must still be running (halted), not reset or off: %r" % run.returncode
    said = [r for r in run.of_type("log") if r.get("where") == "test_fault"]
    assert len(said) == 1, run.records[-5:]
    rip = re.search(r"at rip (0x[0-9a-f]+)", said[0]["message"]).group(1)
    errors = [r for r in run.of_type("error") if r["where"] == "cpu"]
    assert len(errors) == 1, run.records[-5:]
    msg = errors[0]["message"]
    assert msg.startswith(EXPECTED[kind]) and ("at rip %s," % rip) in msg and msg.endswith(": stopped"), (msg, rip)
    assert run.of_type("end") == [], "nothing runs after the exception"
    assert "execution went on" not in run.serial
    # the results screen stays above, the message takes the bottom rows
    assert run.screen and run.screen[0].startswith(" baremark "), run.screen
    assert msg[:60] in "".join(run.screen[-2:]), (msg, run.screen[-2:])
    return msg


def test_bios_fault_invalid_opcode_is_an_error_record_with_its_rip():
    _check_fault("ud")


def test_bios_fault_divide_error_is_an_error_record_with_its_rip():
    _check_fault("de")


def test_bios_fault_general_protection_is_an_error_record_with_its_rip():
    msg = _check_fault("gp")
    assert "error code 0x0," in msg, msg


def test_bios_fault_page_fault_names_the_address():
    msg = _check_fault("pf")
    # a read (error code bit 1 clear) of a page not present (bit 0 clear), at cr2
    assert "error code 0x0," in msg and msg.endswith("cr2 0x7ffffffff000: stopped"), msg


MC_BANK1 = "CPU exception 18 (#MC machine check (MCG_STATUS 0x4; bank 1 status 0xb600000000000000 addr 0x12345000)"


def _one_machine_check(run):
    """The halted run's one cpu error record, a machine check naming bank 1; its message."""
    assert not run.timed_out, run.serial[-2000:]
    assert run.returncode == -9, "QEMU must still be running (halted), not reset: %r" % run.returncode
    errors = [r for r in run.of_type("error") if r["where"] == "cpu"]
    assert len(errors) == 1, run.serial[-2000:]
    msg = errors[0]["message"]
    assert msg.startswith(MC_BANK1), msg
    assert run.of_type("end") == [], "nothing runs after the machine check"
    return msg


def test_bios_machine_check_during_a_bios_call_is_still_reported():
    """In real mode a machine check goes to the BIOS's vector 18 (SeaBIOS: a
    bare IRET), not to our IDT; without the MCG_STATUS.MCIP check after each
    BIOS call (efi/bios/idt_bios.c, mc_check_after_call) the run went on
    as if nothing happened. test_fault=mc leaves the registers as such a
    machine check does, then makes a BIOS call."""
    run = _fault_run("mc")
    msg = _one_machine_check(run)
    assert msg.startswith(MC_BANK1 + ") during BIOS INT 12h AX="), msg
    assert msg.endswith(": stopped"), msg
    assert "execution went on" not in run.serial


def test_bios_release_image_refuses_test_fault():
    run = test_bios.boot_bios("mem=off disk=off exit=shutdown test_fault=ud", timeout=120)
    assert not run.timed_out, run.serial[-2000:]
    errors = run.of_type("error")
    assert len(errors) == 1 and errors[0]["where"] == "options" and "test_fault" in errors[0]["message"], errors
    assert run.end()["status"] == "error" and "bad options" in run.end()["note"], run.end()
    assert not [r for r in run.of_type("log") if r.get("where") == "test_fault"]


def test_bios_machine_check_is_an_error_record_naming_the_bank():
    """The machine check lands wherever the CPU is when the monitor's
    command arrives: in our code (the #MC gate) or during a BIOS call (the
    check after it); either way one record names the bank. CR4.MCE is set
    (efi/bios/idt_bios.c): a machine check QEMU injects (monitor `mce`: an uncorrected error, VAL|UC|EN|ADDRV|PCC, in bank 1 with an
    address) reaches the #MC gate and becomes one error record that names
    the bank, its status and address, and the machine halts. With CR4.MCE
    clear QEMU shuts the CPU down ("CPU is not in MCE mode": a triple fault;
    with -no-reboot QEMU exits) and nothing is written."""
    state = {}

    def inject_then_stop(text, monitor):
        if "t_inject" not in state and '"type":"system"' in text:
            state["t_inject"] = time.time()
            qemu.monitor_command(monitor, "mce 0 1 0xb600000000000000 0x4 0x12345000 0")
        if '"where":"cpu"' in text:
            state.setdefault("t", time.time())
            return time.time() - state["t"] > 2
        return False

    run = test_bios.boot_bios("mem=quick disk=off exit=shutdown", timeout=120, on_serial=inject_then_stop)
    _one_machine_check(run)
