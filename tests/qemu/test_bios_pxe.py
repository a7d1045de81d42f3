"""BIOS PXE with the rack's real parts (test_rack.py's namespaces: a plain
DHCP server, and the boot server running the sample
boot/dnsmasq-baremark.conf as proxy-DHCP + TFTP): a SeaBIOS machine boots
from its NIC (`-boot n`, e1000), gets Debian's undionly.kpxe, which asks
again as iPXE and gets boot/baremark-bios.ipxe, whose `kernel baremark.bin
OPTIONS` line starts baremark with those options.

QEMU's NIC ROM is itself iPXE (Debian's ipxe-qemu): it sends option 175
like undionly.kpxe, byte for byte the same DHCP request, so the sample
would hand it the script at once (right for a NIC with an iPXE ROM). To
make it play a vendor PXE ROM, the boot server first runs the sample
without its option-175 line (the ROM's iPXE identity goes unseen: it gets
the x86PC menu entry, undionly.kpxe); once undionly.kpxe has been sent it is
restarted with the sample exactly as shipped, which answers undionly's own
DHCP. (Reloading a dhcp-hostsfile by SIGHUP instead crashed Debian's dnsmasq
2.90 with a general protection fault.) The same config still boots a UEFI
machine: that is test_rack's test, run against the sample as changed here."""
import os
import shutil
import subprocess
import time

import qemu
import test_rack
from test_bios import BIN

MAC_BIOS = "52:54:00:99:00:0c"
OPTIONS = "mem=off disk=off exit=shutdown"


def _without_option_175(text):
    """The sample as a vendor PXE ROM sees it: no client is iPXE."""
    assert "dhcp-match=set:ipxe,175\n" in text
    return text.replace("dhcp-match=set:ipxe,175\n", "")


def _serve_bios(rack):
    shutil.copyfile("/usr/lib/ipxe/undionly.kpxe", os.path.join(rack.tftp, "undionly.kpxe"))
    shutil.copyfile(BIN, os.path.join(rack.tftp, "baremark.bin"))
    with open(os.path.join(qemu.ROOT, "boot", "baremark-bios.ipxe")) as f:
        script = f.read()
    assert "kernel baremark.bin BOOTIF=01-${netX/mac:hexhyp} ip=${netX/ip} mem=quick disk=quick exit=shutdown" in script
    rack.serve("baremark-bios.ipxe", script.replace("mem=quick disk=quick exit=shutdown", OPTIONS))


def _boot_bios_pxe(rack, rom_log, switch=True, timeout=240):
    workdir = qemu.tempdir("baremark-biospxe-")
    serial = os.path.join(workdir, "serial.log")
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-m", "1024", "-cpu", "max", "-display", "none",
           "-serial", "file:" + serial, "-monitor", "none", "-no-reboot", "-boot", "n",
           "-netdev", "tap,id=n0,ifname=tap0,script=no,downscript=no",
           "-device", "e1000,netdev=n0,mac=" + MAC_BIOS]
    state = {}

    def sample_as_shipped(_text):
        # undionly.kpxe went out: from now on the client is what it says.
        if switch and not state and "undionly.kpxe to " in qemu.read_text(rom_log):
            vendor_stage = rack.procs.pop()
            vendor_stage.terminate()
            vendor_stage.wait(timeout=5)
            state["log"] = rack.boot_server(name="ipxe")
        return False

    t0 = time.time()
    with test_rack._InNetns(rack.ns_boot):
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timed_out = qemu.wait_for_qemu(proc, serial, timeout, on_text=sample_as_shipped, end_grace=5)
    text = qemu.read_text(serial)
    run = qemu.Run(text, qemu.parse_records(text), proc.returncode, timed_out, time.time() - t0, workdir, None)
    return run, qemu.read_text(rom_log) + (qemu.read_text(state["log"]) if state else "")


def test_bios_pxe_undionly_chain_from_the_sample_dnsmasq():
    _check_chain(vendor_rom=True)


def test_bios_pxe_nic_with_ipxe_rom_gets_the_script_at_once():
    """A NIC whose ROM is iPXE (QEMU's, as it is) needs no undionly.kpxe:
    the shipped sample hands it baremark-bios.ipxe straight away."""
    _check_chain(vendor_rom=False)


def _check_chain(vendor_rom):
    if not test_rack._namespaces_possible():
        print("NOTE test_bios_pxe: skipped, network namespaces cannot be created here (needs root, ip, dnsmasq)")
        return
    rack = test_rack.Rack().up()
    try:
        rack.dhcp_server()
        _serve_bios(rack)
        if vendor_rom:
            first_log = rack.boot_server(edit=_without_option_175, name="vendor-rom")
        else:
            first_log = rack.boot_server(name="ipxe")
        run, served = _boot_bios_pxe(rack, first_log, switch=vendor_rom)
        assert not run.timed_out, (run.serial[-3000:], served[-3000:])
        # the chain, in the order the boot server sent the files
        sent = [l.split("/")[-1].split(" ")[0] for l in served.splitlines() if "dnsmasq-tftp: sent" in l]
        chain = ["baremark-bios.ipxe", "baremark.bin"]
        assert sent == (["undionly.kpxe"] + chain if vendor_rom else chain), sent
        # the script's kernel line reached the run, and exit=shutdown powered off
        assert run.one("run")["args"] == "baremark " + OPTIONS, run.one("run")
        # iPXE filled in the boot NIC: the run record names it (BOOTIF=, ip= words)
        r = run.one("run")
        assert r["mac"] == MAC_BIOS and r["ip"].startswith("10.99.0.1"), r
        assert len(r["run_id"]) == 32, r
        end = run.end()
        assert end["status"] == "ok" and end["errors"] == 0, end
        assert run.returncode == 0, "QEMU should have powered off by itself (ACPI S5): %r" % run.returncode
    finally:
        rack.down()
