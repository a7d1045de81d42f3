"""Secure Boot: `make image SB_KEY=... SB_CERT=...` signs baremark for a db that
trusts the key, and SB_SHIM=1 lays out the stick for machines that trust only
Microsoft's keys (shim + MokManager + the certificate to enroll).

Firmware: Debian's snakeoil Secure Boot OVMF (PK, KEK and db hold the key the
ovmf package ships as /usr/share/ovmf/PkKek-1-snakeoil.{key,pem}, password
"snakeoil" per /usr/share/doc/ovmf/README.Debian) and the Microsoft-keys
variable store OVMF_VARS_4M.ms.fd. Both need q35 with SMM and a secure pflash.
"""
import os
import re
import subprocess
import time

import qemu
import marks

OVMF = "/usr/share/OVMF/"
SNAKEOIL = (OVMF + "OVMF_CODE_4M.snakeoil.fd", OVMF + "OVMF_VARS_4M.snakeoil.fd")
MICROSOFT = (OVMF + "OVMF_CODE_4M.ms.fd", OVMF + "OVMF_VARS_4M.ms.fd")
SNAKEOIL_KEY = "/usr/share/ovmf/PkKek-1-snakeoil.key"
SNAKEOIL_CERT = "/usr/share/ovmf/PkKek-1-snakeoil.pem"
SNAKEOIL_PASSWORD = "snakeoil"
SHIM_DIR = "/usr/lib/shim"
ROOT = qemu.ROOT
# Secure Boot OVMF builds stop without SMM; the variable store must be the
# SMM-protected ("secure") flash.
SECURE = {"machine_extra": ",smm=on", "extra_args": ["-global", "driver=cfi.pflash01,property=secure,value=on"]}
ANSI_RE = re.compile(r"\x1b\[[0-9;=?]*[A-Za-z]")


def _screen_text(serial):
    """OVMF mirrors the text console to serial with ANSI cursor moves and box
    characters; keep the words."""
    return re.sub(r"[^\x20-\x7e\n]", " ", ANSI_RE.sub(" ", serial))


def _mkimage(out, **env):
    """boot/mkimage.sh on the built baremark.efi, with SB_* settings in env."""
    e = dict(os.environ, SB_KEY="", SB_CERT="", SB_SHIM="")
    e.update(env)
    return subprocess.run(["bash", os.path.join(ROOT, "boot/mkimage.sh"), os.path.join(qemu.BUILD, "baremark.efi"),
                           os.path.join(ROOT, "boot/baremark.cfg"), out],
                          env=e, capture_output=True, text=True)


def _snakeoil_key(workdir):
    """The snakeoil key without its pass phrase, so sbsign does not ask."""
    key = os.path.join(workdir, "snakeoil.key")
    subprocess.run(["openssl", "pkey", "-in", SNAKEOIL_KEY, "-passin", "pass:" + SNAKEOIL_PASSWORD, "-out", key],
                   check=True, capture_output=True)
    return key


def _own_key(workdir):
    """A fresh self-signed pair, as `make sb-key` makes (no firmware trusts it)."""
    key, cert = os.path.join(workdir, "own.key"), os.path.join(workdir, "own.crt")
    subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "30",
                    "-subj", "/CN=baremark test MOK/", "-keyout", key, "-out", cert], check=True, capture_output=True)
    return key, cert


def _mtools(img, *args):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    return subprocess.run([args[0], "-i", "%s@@%d" % (img, qemu.ESP_OFFSET)] + list(args[1:]),
                          env=env, capture_output=True, check=True)


def _fat_bytes(img, path):
    return _mtools(img, "mtype", path).stdout


def _sbverify(path, cert=None):
    args = ["sbverify"] + (["--cert", cert] if cert else ["--list"]) + [path]
    return subprocess.run(args, capture_output=True, text=True)


@marks.host
def test_shim_stick_layout_and_signatures():
    """No boot: what each setting puts on the stick."""
    wd = qemu.tempdir()
    key, cert = _own_key(wd)
    # shim loads only images with SBAT metadata (rhboot/shim verify_sbat_section)
    sections = subprocess.run(["objdump", "-h", os.path.join(qemu.BUILD, "baremark.efi")],
                              capture_output=True, text=True, check=True).stdout
    assert " .sbat " in sections, sections

    plain = os.path.join(wd, "plain.img")
    assert _mkimage(plain).returncode == 0
    efi = os.path.join(wd, "plain.efi")
    with open(efi, "wb") as f:
        f.write(_fat_bytes(plain, "::/EFI/BOOT/BOOTX64.EFI"))
    listed = _sbverify(efi)
    assert "No signature table present" in listed.stderr + listed.stdout

    shim = os.path.join(wd, "shim.img")
    p = _mkimage(shim, SB_KEY=key, SB_CERT=cert, SB_SHIM="1")
    assert p.returncode == 0, p.stderr
    with open(os.path.join(SHIM_DIR, "shimx64.efi.signed"), "rb") as f:
        assert _fat_bytes(shim, "::/EFI/BOOT/BOOTX64.EFI") == f.read()
    with open(os.path.join(SHIM_DIR, "mmx64.efi.signed"), "rb") as f:
        assert _fat_bytes(shim, "::/EFI/BOOT/mmx64.efi") == f.read()
    # no fallback: shim would run it instead of baremark
    assert "fbx64.efi" not in qemu.list_dir(shim, "::/EFI/BOOT")
    second = os.path.join(wd, "grubx64.efi")
    with open(second, "wb") as f:
        f.write(_fat_bytes(shim, "::/EFI/BOOT/grubx64.efi"))
    assert _sbverify(second, cert).returncode == 0
    der = subprocess.run(["openssl", "x509", "-in", cert, "-outform", "DER"], capture_output=True, check=True).stdout
    assert _fat_bytes(shim, "::/baremark/baremark-mok.cer") == der

    # shim without a key, or a key without its certificate, is refused
    p = _mkimage(os.path.join(wd, "bad.img"), SB_SHIM="1")
    assert p.returncode != 0 and "SB_SHIM=1 needs SB_KEY" in p.stderr, p.stderr
    p = _mkimage(os.path.join(wd, "bad.img"), SB_KEY=key)
    assert p.returncode != 0 and "go together" in p.stderr, p.stderr


def test_snakeoil_firmware_refuses_unsigned_stick_then_runs_signed_one():
    """One boot, two sticks: the plain `make image` stick first (refused), then
    the one signed with the snakeoil key (runs, with Secure Boot on)."""
    wd = qemu.tempdir()
    signed = os.path.join(wd, "signed.img")
    p = _mkimage(signed, SB_KEY=_snakeoil_key(wd), SB_CERT=SNAKEOIL_CERT)
    assert p.returncode == 0, p.stderr
    qemu.write_fat_file(signed, "::/baremark/baremark.cfg", "mem=off\ndisk=off\n")
    run = qemu.boot(options="mem=off disk=off", ovmf_code=SNAKEOIL[0], ovmf_vars=SNAKEOIL[1], timeout=400,
                    workdir=wd, drives=["if=none,id=signed,format=raw,file=" + signed],
                    devices=["usb-storage,bus=xhci.0,drive=signed,removable=on,bootindex=1"], **SECURE)
    assert not run.timed_out, run.serial[-2000:]
    # BdsDxe: failed to load Boot0001 "UEFI QEMU QEMU USB HARDDRIVE ..." from ...USB(0x0,0x0): Access Denied
    refused = re.search(r"failed to load Boot\w+ \"[^\"]*USB HARDDRIVE[^\n]*USB\(0x0,0x0\): Access Denied", run.serial)
    assert refused, run.serial[-3000:]
    started = re.search(r"starting Boot\w+ \"[^\"]*USB HARDDRIVE[^\n]*USB\(0x1,0x0\)", run.serial)
    assert started and started.start() > refused.start(), run.serial[-3000:]
    assert run.serial.index("BAREMARK {") > started.start(), "a record before the signed stick started"
    assert [n for n in run.results_files() if n.endswith(".jsonl")] == [], "the unsigned stick ran"
    assert run.end()["status"] == "ok", run.end()
    assert run.one("system")["secure_boot"] == "on"
    assert run.one("run")["config_file"] == "mem=off disk=off"
    # (not bios.jsonl: make image preallocates it for BIOS runs)
    assert [n for n in qemu.list_dir(signed, "::/baremark/results") if n.endswith(".jsonl") and n != "bios.jsonl"], \
        "no results file on the signed stick"


class _KeyScript:
    """Drives a text-mode firmware screen through the QEMU monitor: each step
    waits for a regex on the console (mirrored to serial) after the previous
    step's match, then presses keys; ("pick", NAME) moves the cursor to NAME in
    the file list MokManager shows and presses Enter."""

    def __init__(self, monitor, steps):
        self.monitor, self.steps, self.done, self.pos = monitor, steps, 0, 0

    def _settle(self, quiet=0.6, longest=3.0):
        """Wait until the firmware has drawn the rest of the screen: the
        console (mirrored to serial) quiet for `quiet` seconds, at most
        `longest` (a fixed 1.5 s before: most screens are out sooner)."""
        t0 = time.time()
        size, since = -1, t0
        while time.time() - t0 < longest:
            try:
                now = os.path.getsize(self.serial_path)
            except OSError:
                now = -1
            if now != size:
                size, since = now, time.time()
            elif time.time() - since >= quiet:
                return
            time.sleep(0.1)

    def __call__(self, serial):
        if self.done == len(self.steps):
            return
        pattern, keys = self.steps[self.done]
        text = _screen_text(serial)
        m = re.search(pattern, text[self.pos:])
        if not m:
            return
        self.pos += m.end()
        self._settle()  # the rest of the screen
        if isinstance(keys, tuple):
            # the list follows the header; redraws repeat it, the first pass is complete
            text = _screen_text(qemu._read(self.serial_path))
            names = text[text.rfind("Enrolling it") + len("Enrolling it"):].split()
            keys = ["down"] * names.index(keys[1]) + ["ret"]
        for k in keys:
            qemu.monitor_command(self.monitor, "sendkey " + k)
        self.done += 1


def test_shim_stick_enrolls_mok_then_runs_baremark():
    """Microsoft keys only: shim (Microsoft-signed) starts, refuses baremark
    (signed with our own key) and opens MokManager; we enroll
    \\baremark\\baremark-mok.cer from the stick ("Enroll key from disk"), the
    machine resets, and on the next boot shim starts baremark, which finds its
    cfg and writes its results on the stick."""
    wd = qemu.tempdir()
    key, cert = _own_key(wd)
    img = os.path.join(wd, "shim.img")
    p = _mkimage(img, SB_KEY=key, SB_CERT=cert, SB_SHIM="1")
    assert p.returncode == 0, p.stderr

    first = os.path.join(wd, "first")
    os.makedirs(first)
    mon = os.path.join(first, "monitor.sock")
    script = _KeyScript(mon, [
        (r"Verification failed: \(0x1A\) Security Violation", ["ret"]),
        (r"Press any key to perform MOK management", ["ret"]),
        (r"Enroll hash from disk", ["down", "ret"]),
        (r"Enrolling it\s+BAREMARK", ["ret"]),
        (r"EFI/\s+baremark/", ("pick", "baremark/")),
        (r"results/", ("pick", "baremark-mok.cer")),
        (r"View key 0\s+Continue", ["down", "ret"]),
        (r"Enroll the key\(s\)\?\s+No\s+Yes", ["down", "ret"]),
        # back in the menu, which now offers the reset that applies the key
        (r"Perform MOK management\s+Reboot", ["ret"]),
    ])
    script.serial_path = os.path.join(first, "serial.log")
    run = qemu.boot(options="mem=off disk=off", image=img, ovmf_code=MICROSOFT[0], ovmf_vars=MICROSOFT[1],
                    timeout=600, workdir=first, monitor=mon, on_serial=script, **SECURE)
    screen = _screen_text(run.serial)
    assert "Verification failed: (0x1A) Security Violation" in screen, screen[-3000:]
    assert "Shim UEFI key management" in screen, screen[-3000:]
    assert script.done == len(script.steps), "MokManager stopped at step %d: %s" % (script.done, screen[-3000:])
    assert not run.timed_out, screen[-3000:]
    assert run.records == [], "baremark ran before its key was enrolled"

    # the reset after enrollment ended QEMU (-no-reboot); boot again with that variable store
    second = os.path.join(wd, "second")
    os.makedirs(second)
    run = qemu.boot(options="mem=off disk=off", image=run.stick, ovmf_code=MICROSOFT[0],
                    ovmf_vars=os.path.join(first, "vars.fd"), timeout=600, workdir=second, **SECURE)
    assert not run.timed_out, _screen_text(run.serial)[-3000:]
    assert run.end()["status"] == "ok", run.end()
    assert run.one("system")["secure_boot"] == "on"
    # shim hands its own (empty) load options on: no stray command line
    assert run.one("run")["config_file"] == "mem=off disk=off" and run.one("run")["args"] == ""
    assert [n for n in run.results_files() if n.endswith(".jsonl")], "no results file on the stick"
