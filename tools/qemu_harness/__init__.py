"""Boot baremark in QEMU (q35 + OVMF) and collect what it wrote.

Used by the integration tests (as `qemu`, tests/qemu/qemu.py), `make run` and
the tools/ benchmark scripts (`import qemu_harness`).
TCG by default: KVM cannot run OVMF on every machine (set BAREMARK_KVM=1
where it can).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"))
IMAGE = os.path.join(BUILD, "baremark.img")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
# Arm: QEMU virt with Debian's AAVMF (qemu-efi-aarch64), arch="aarch64" in boot().
AAVMF_CODE = "/usr/share/AAVMF/AAVMF_CODE.fd"
AAVMF_VARS = "/usr/share/AAVMF/AAVMF_VARS.fd"
ESP_OFFSET = 1024 * 1024  # boot/mkimage.sh puts the ESP at sector 2048
RECORD_RE = re.compile(r"BAREMARK (\{.*\})\s*$")
_TEMP_DIRS = []  # removed by cleanup() unless BAREMARK_KEEP=1


def tempdir(prefix="baremark-qemu-"):
    """A scratch folder for one test's images and logs; cleanup() removes it."""
    d = tempfile.mkdtemp(prefix=prefix)
    _TEMP_DIRS.append(d)
    return d


def cleanup():
    """Remove every scratch folder made through tempdir() (the test runner
    calls this when it is done; BAREMARK_KEEP=1 keeps them for a post-mortem)."""
    if os.environ.get("BAREMARK_KEEP") == "1":
        return
    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)


def parse_records(text):
    """Every record in a serial log, in order; lines that are not records
    (firmware noise) are skipped, broken JSON too."""
    out = []
    for line in text.splitlines():
        m = RECORD_RE.search(line)
        if not m:
            continue
        try:
            out.append(json.loads(m.group(1)))
        except ValueError:
            pass
    return out


class Run:
    """The outcome of one boot."""

    def __init__(self, serial, records, returncode, timed_out, seconds, workdir, stick):
        self.serial = serial
        self.records = records
        self.returncode = returncode
        self.timed_out = timed_out
        self.seconds = seconds
        self.workdir = workdir
        self.stick = stick

    def of_type(self, t):
        return [r for r in self.records if r.get("type") == t]

    def one(self, t):
        rs = self.of_type(t)
        assert len(rs) == 1, "expected one %s record, got %d" % (t, len(rs))
        return rs[0]

    def end(self):
        return self.one("end")

    def results_files(self):
        """Names of the files a UEFI run wrote in \\baremark\\results on the
        stick (not bios.jsonl and bios.html: make image preallocates them
        for BIOS runs)."""
        return [n for n in list_dir(self.stick, "::/baremark/results") if n not in ("bios.jsonl", "bios.html")]

    def read_file(self, path):
        return read_fat_file(self.stick, path)


def _mtools_target(img):
    return "%s@@%d" % (img, ESP_OFFSET)


def list_dir(img, path):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    p = subprocess.run(["mdir", "-b", "-i", _mtools_target(img), path], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return []
    return [os.path.basename(l.strip().rstrip("/")) for l in p.stdout.splitlines() if l.strip()]


def read_fat_file(img, path):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    p = subprocess.run(["mtype", "-i", _mtools_target(img), path], capture_output=True, env=env)
    if p.returncode != 0:
        raise FileNotFoundError(path + ": " + p.stderr.decode(errors="replace"))
    return p.stdout.decode(errors="replace")


def write_fat_file(img, path, text):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    with tempfile.NamedTemporaryFile("w", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        subprocess.run(["mcopy", "-o", "-i", _mtools_target(img), name, path], check=True, env=env,
                       capture_output=True)
    finally:
        os.unlink(name)


def make_disk(path, size_mib, fill=None):
    """A raw disk image; fill=None leaves it sparse (reads as zeros)."""
    with open(path, "wb") as f:
        f.truncate(size_mib * 1024 * 1024)
    if fill == "random":
        with open(path, "r+b") as f:
            f.write(os.urandom(size_mib * 1024 * 1024))
    return path


def boot(options=None, cfg=None, devices=(), drives=(), timeout=240, smp=2, memory_mib=1024,
         extra_args=(), workdir=None, keep=False, stream=False, machine_extra="", stick=True, net=None,
         monitor=None, on_serial=None, record_port=1, graphics=False, image=None, ovmf_code=None,
         ovmf_vars=None, arch="x86_64", until=None):
    """Boot a copy of build/baremark.img as a USB stick.

    options: the command line (written to a startup.nsh-free path: we pass it
      through \\baremark\\baremark.cfg when cfg is None, since OVMF's boot
      manager passes no load options). cfg: full text of baremark.cfg.
    devices: extra -device strings; drives: extra -drive strings.
    record_port: the COM port whose output is read as run.serial (1 or 2);
      with 2, COM1 goes to com1.log (run.com1) and COM2 is the captured one,
      as a BMC's Serial over LAN captures COM2 on many servers.
    graphics: a VGA display QEMU draws but shows nowhere (-display none
      -vga std instead of -nographic), for screendump through monitor=.
    image: the stick to copy (default build/baremark.img). ovmf_code/ovmf_vars:
      other firmware and variable-store templates (the Secure Boot ones; the
      vars file is copied, so a previous run's workdir/vars.fd carries its
      enrolled state into the next boot).
    arch: "aarch64" boots the same stick (its BOOTAA64.EFI) on QEMU virt
      with AAVMF under TCG, a Cortex-A57; records come through the PL011
      that the firmware's SPCR names.
    until: with monitor= or on_serial=, the harness keeps QEMU running
      end_grace (8) seconds after the end record for what the test still
      does (a key, screendumps); until() returning True after the end
      record says the test is done, and QEMU is stopped then.
    Returns a Run. The stick image stays in run.workdir while keep=True.
    """
    workdir = workdir or tempdir()
    stick_path = os.path.join(workdir, "stick.img") if stick else None
    if stick:
        shutil.copyfile(image or IMAGE, stick_path)
        if cfg is None and options is not None:
            cfg = "\n".join(options.split()) + "\n"
        if cfg is not None:
            write_fat_file(stick_path, "::/baremark/baremark.cfg", cfg)
    vars_copy = os.path.join(workdir, "vars.fd")
    aa64 = arch == "aarch64"
    shutil.copyfile(ovmf_vars or (AAVMF_VARS if aa64 else OVMF_VARS), vars_copy)
    serial = os.path.join(workdir, "serial.log")
    com1 = os.path.join(workdir, "com1.log") if record_port == 2 else serial

    cmd = ["qemu-system-x86_64", "-machine", "q35" + machine_extra, "-m", str(memory_mib), "-smp", str(smp),
           "-nographic", "-no-reboot", "-monitor", "none", "-serial", "file:" + com1,
           "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + (ovmf_code or OVMF_CODE),
           "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy,
           "-device", "qemu-xhci,id=xhci"]
    if aa64:
        cmd[0:3] = ["qemu-system-aarch64", "-machine", "virt" + machine_extra]
        i = cmd.index("if=pflash,format=raw,unit=0,readonly=on,file=" + (ovmf_code or OVMF_CODE))
        cmd[i] = "if=pflash,format=raw,unit=0,readonly=on,file=" + (ovmf_code or AAVMF_CODE)
    if graphics:
        i = cmd.index("-nographic")
        cmd[i:i + 1] = ["-display", "none", "-vga", "std"]
    if record_port == 2:
        cmd += ["-serial", "file:" + serial]
    if stick:
        cmd += ["-drive", "if=none,id=stick,format=raw,file=" + stick_path,
                "-device", "usb-storage,bus=xhci.0,drive=stick,removable=on,bootindex=%d" % (1 if net else 0)]
    if net:
        cmd += list(net)
    else:
        cmd += ["-net", "none"]
    if monitor:
        i = cmd.index("-monitor")
        cmd[i + 1] = "unix:%s,server,nowait" % monitor
    if aa64:
        cmd += ["-cpu", "cortex-a57"]
    elif os.environ.get("BAREMARK_KVM") == "1":
        cmd += ["-enable-kvm", "-cpu", "host"]
    else:
        cmd += ["-cpu", "max"]
    for d in drives:
        cmd += ["-drive", d]
    for d in devices:
        cmd += ["-device", d]
    cmd += list(extra_args)

    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    shown = [0]

    def show(text):
        if stream and len(text) > shown[0]:
            print(text[shown[0]:], end="", flush=True)
            shown[0] = len(text)

    def on_text(text):
        show(text)
        if on_serial:
            on_serial(text)
        return bool(until and '"type":"end"' in text and until())

    # The app ends by returning to the firmware, rebooting or shutting down.
    # -no-reboot turns a reboot into an exit; after a plain return the boot
    # manager moves on, so we stop QEMU once the end record is out (giving
    # the app a moment to close files and exit on its own).
    # A test watching the serial log (on_serial) or driving the monitor may
    # still act after the end record (a key, a screenshot of the firmware
    # after the return): it gets the whole grace.
    timed_out = wait_for_qemu(proc, serial, timeout, on_text=on_text, end_grace=8,
                              markers=() if on_serial or monitor else DONE_MARKERS)
    text = _read(serial)
    show(text)
    qemu_out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    if proc.returncode not in (0, None, -9) and qemu_out:
        text += "\n[qemu] " + qemu_out
    run = Run(text, parse_records(text), proc.returncode, timed_out, time.time() - t0, workdir, stick_path)
    run.com1 = _read(com1)
    return run


def monitor_command(sock_path, command):
    """Send one human-monitor command (e.g. "sendkey esc") to a QEMU started
    with monitor=PATH."""
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sock_path)
    try:
        s.recv(4096)  # banner
        s.sendall((command + "\n").encode())
        time.sleep(0.3)
        s.recv(4096)
    except OSError:
        pass
    finally:
        s.close()


# What the app prints once its files are closed and the machine is handed
# back (efi/main_uefi.c after plat_exit; efi/bios/exit_bios.c before it halts).
# With exit=wait (the default) the app says so once its files are closed and
# it waits for a key (efi/platform.h PLAT_WAIT_KEY_LINE): nothing more happens
# until one is pressed, so a test that presses none is done there.
DONE_MARKERS = ("baremark: back to the firmware", "baremark: finished; switch the machine off",
                "baremark: files closed, waiting for a key")


def wait_for_qemu(proc, serial, timeout, on_text=None, end_grace=None, markers=DONE_MARKERS):
    """Poll a QEMU process twice a second until it exits by itself; or
    on_text(serial log so far) returns True (QEMU is killed); or, with
    end_grace set, the end record is out and the app says it is done
    (DONE_MARKERS: killed at once) or end_grace seconds pass after the end
    record (killed); or timeout seconds pass (killed). markers=() keeps
    the whole grace. Returns whether it timed out."""
    t0 = time.time()
    end_at = None
    while True:
        try:
            proc.wait(timeout=0.5)
            return False
        except subprocess.TimeoutExpired:
            pass
        text = _read(serial)
        if on_text and on_text(text):
            break
        if end_grace is not None and '"type":"end"' in text and time.time() - t0 > 1:
            # The app says when its files are closed and it has handed
            # the machine back (UEFI: returned to the firmware, whose boot
            # manager would go on to its shell; BIOS: halted): no more
            # grace. Without the marker (an older image, records on COM2)
            # QEMU gets end_grace seconds to exit by itself.
            end_at = end_at or time.time()
            if any(m in text[text.rindex('"type":"end"'):] for m in markers):
                break
            if time.time() - end_at > end_grace:
                break
        if time.time() - t0 > timeout:
            proc.kill()
            proc.wait()
            return True
    proc.kill()
    proc.wait()
    return False


def read_text(path):
    """A log file as text so far ("" before QEMU created it)."""
    return _read(path)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except FileNotFoundError:
        return ""
