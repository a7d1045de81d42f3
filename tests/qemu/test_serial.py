"""serial=auto: records go where the firmware's console redirection goes
(ACPI SPCR, else the console's device path, else COM1), and the run record
says which port and why."""
import os
import struct

import marks
import qemu


def _spcr_body(path, interface_type=0x00, space=1, access=1, address=0x2F8, baud_code=7):
    """An SPCR table body (QEMU's -acpitable writes the 36-byte header):
    revision 2 layout, 80 bytes in all."""
    body = struct.pack("<B3x", interface_type)
    body += struct.pack("<BBBBQ", space, 8 if access != 3 else 32, 0, access, address)   # GAS
    body += struct.pack("<BBIBBBBBB", 1, 3, 0, baud_code, 0, 1, 0, 0, 0)  # 8259 IRQ 3, 8N1, VT100
    body += struct.pack("<HHBBBIBI", 0xFFFF, 0xFFFF, 0, 0, 0, 0, 0, 0)   # not a PCI UART
    assert len(body) == 80 - 36, len(body)
    with open(path, "wb") as f:
        f.write(body)
    return path


def test_serial_auto_without_spcr_records_on_com1():
    # QEMU's q35 publishes no SPCR: OVMF's console path names COM1.
    run = marks.shared_boot(options="mem=off disk=off", timeout=180)  # test_foundation checks its records
    assert not run.timed_out, run.serial[-2000:]
    ser = run.one("run")["serial"]
    assert ser["port"] == "0x3f8", ser
    # OVMF's ConOut holds PciRoot/Pci(1F,0)/Serial(0)/Uart: the port is read
    # from that device's Super I/O resources, not guessed from its UID.
    assert ser["source"] == "console", ser
    assert "at I/O 0x3f8 (Super I/O resources)" in ser["detail"], ser
    assert "no SPCR table" in ser.get("passed_over", ""), ser
    assert run.end()["status"] == "ok"


def test_serial_auto_follows_spcr_to_com2():
    work = qemu.tempdir()
    body = _spcr_body(os.path.join(work, "spcr.bin"))
    run = qemu.boot(options="mem=off disk=off", timeout=180, workdir=work, record_port=2,
                    extra_args=["-acpitable", "sig=SPCR,rev=2,data=" + body])
    assert not run.timed_out, (run.serial + run.com1)[-2000:]
    ser = run.one("run")["serial"]
    assert ser == dict(ser, port="0x2f8", source="spcr", baud=115200), ser
    assert "I/O port 0x2f8" in ser["detail"]
    assert run.end()["status"] == "ok"
    assert qemu.parse_records(run.com1) == [], "records must not go to COM1 when SPCR names COM2"


def test_serial_spcr_with_redirection_off_falls_back_to_com1():
    # Firmware with console redirection disabled keeps the table, address 0.
    work = qemu.tempdir()
    body = _spcr_body(os.path.join(work, "spcr.bin"), address=0, baud_code=0)
    run = qemu.boot(options="mem=off disk=off", timeout=180, workdir=work,
                    extra_args=["-acpitable", "sig=SPCR,rev=2,data=" + body])
    assert not run.timed_out, run.serial[-2000:]
    ser = run.one("run")["serial"]
    assert ser["port"] == "0x3f8", ser
    assert "address 0" in ser["passed_over"], ser


def test_serial_option_overrides_spcr():
    work = qemu.tempdir()
    body = _spcr_body(os.path.join(work, "spcr.bin"))
    run = qemu.boot(options="mem=off disk=off serial=com1", timeout=180, workdir=work,
                    extra_args=["-acpitable", "sig=SPCR,rev=2,data=" + body])
    assert not run.timed_out, run.serial[-2000:]
    ser = run.one("run")["serial"]
    assert ser["port"] == "0x3f8" and ser["source"] == "option", ser


def test_serial_spcr_port_without_uart_falls_back():
    # SPCR names COM3 (0x3e8), where q35 has no UART: the scratch test
    # fails, the console's COM1 is used, and the record says why.
    work = qemu.tempdir()
    body = _spcr_body(os.path.join(work, "spcr.bin"), address=0x3E8)
    run = qemu.boot(options="mem=off disk=off", timeout=180, workdir=work,
                    extra_args=["-acpitable", "sig=SPCR,rev=2,data=" + body])
    assert not run.timed_out, run.serial[-2000:]
    ser = run.one("run")["serial"]
    assert ser["port"] == "0x3f8" and ser["source"] == "console", ser
    assert "spcr names 0x3e8, but no UART answers there" in ser["passed_over"], ser
