"""SPD over SMBus under QEMU. q35 has an ICH9 SMBus (8086:2930) at
00:1f.3 with eight zeroed EEPROMs at 0x50-0x57 (hw/i386/pc_q35.c,
smbus_eeprom_init); OVMF leaves its host disabled (HOSTC 0), so the
default run says so in a note and spd=force runs the whole read path
(enable, INUSE semaphore, byte and word reads, restore). -machine pc has a
PIIX4 SMBus (8086:7113) at 00:01.3 that OVMF enables."""
import marks
import qemu


def spd_notes(run):
    return [r["message"] for r in run.of_type("note") if r.get("where") == "spd"]


def check_clean(run):
    assert not run.timed_out, run.serial[-3000:]
    assert run.end()["status"] == "ok", run.end()
    assert not run.of_type("error"), run.of_type("error")
    assert run.of_type("spd") == []          # empty EEPROMs decode to nothing
    assert run.one("dimm_summary")["warnings"] == []


def test_spd_q35_disabled_host_noted_and_forced_read_path():
    # The default run (spd=on) is test_foundation's and test_serial's boot
    # (q35, 1 GiB): the SPD note is one more thing read from it.
    run = marks.shared_boot(options="mem=off disk=off", timeout=180)
    check_clean(run)
    notes = spd_notes(run)
    assert any("0000:00:1f.3 (8086:2930) disabled by the firmware (HOSTC 0x00)" in n for n in notes), notes

    run = qemu.boot(options="mem=off disk=off out=off spd=force", memory_mib=1024, smp=1, timeout=120)
    check_clean(run)
    logs = [r["message"] for r in run.of_type("log") if r.get("where") == "0000:00:1f.3"]
    assert any(m.startswith("SMBus i801 (8086:2930) at I/O 0x") for m in logs), logs
    assert any("enabled for the SPD read (spd=force), restored afterwards" in m for m in logs), logs
    notes = spd_notes(run)
    assert any(n.startswith("no SPD data: 8 devices answer but hold no SPD image") and "0x50" in n and "0x57" in n
               for n in notes), notes


def test_spd_off_leaves_the_bus_alone():
    run = qemu.boot(options="mem=off disk=off out=off spd=off", memory_mib=1024, smp=1, timeout=120)
    check_clean(run)
    assert spd_notes(run) == ["SPD not read (spd=off)"]
    assert not [r for r in run.of_type("log") if r.get("where") == "0000:00:1f.3"]


def test_spd_pc_machine_piix4_read_path():
    run = qemu.boot(options="mem=off disk=off out=off", memory_mib=1024, smp=1, timeout=120,
                    extra_args=["-machine", "pc"])
    check_clean(run)
    logs = [r["message"] for r in run.of_type("log") if r.get("where") == "0000:00:01.3"]
    assert any(m.startswith("SMBus piix4 (8086:7113") for m in logs), logs
    notes = spd_notes(run)
    assert any(n.startswith("no SPD data: 8 devices answer") for n in notes), notes
