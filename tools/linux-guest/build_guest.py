#!/usr/bin/env python3
"""Build the small Linux guest that runs fio for tools/diskbench_compare.py.

Everything comes from Debian packages installed on this machine (installed
with apt-get when missing): the kernel of linux-image-amd64 (/boot/vmlinuz-*),
busybox-static, fio and the shared libraries ldd names for it, and the kernel
modules for the disk controllers QEMU emulates (nvme, ahci, megaraid_sas,
mptsas, sd_mod and whatever modules.dep says they need). Nothing downloaded
is kept in the repository; the output lives in build/bench/linux/ and is
rebuilt only when an input changes.

usage: build_guest.py [OUTDIR]      (default build/bench/linux)
"""
import hashlib
import json
import lzma
import gzip
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INIT_SCRIPT = os.path.join(HERE, "init")

GUEST_PACKAGES = ("linux-image-amd64", "fio", "busybox-static")
# The drivers for every device type the comparison offers; modules.dep adds
# the rest (nvme-core, libahci, libata, scsi_mod, mptbase, mptscsih, ...).
GUEST_MODULES = ("nvme", "ahci", "megaraid_sas", "mptsas", "sd_mod")
FIO = "/usr/bin/fio"
BUSYBOX = "/bin/busybox"


# ---- packages ------------------------------------------------------------------

def missing_packages(packages, query=None):
    """The packages dpkg does not list as installed."""
    query = query or _dpkg_installed
    return [p for p in packages if not query(p)]


def _dpkg_installed(package):
    p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return p.returncode == 0 and "install ok installed" in p.stdout


def ensure_packages(packages=GUEST_PACKAGES, log=print):
    """Install the missing ones with apt-get (as root, like `make run`), saying
    what is installed."""
    missing = missing_packages(packages)
    if not missing:
        return []
    if os.geteuid() != 0:
        raise SystemExit("run as root to install: " + " ".join(missing))
    log("installing Debian packages: " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing, check=True, env=env)
    return missing


# ---- kernel and modules -----------------------------------------------------------

def _version_key(version):
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", version)]


def find_kernel(boot="/boot", modules_root="/lib/modules"):
    """(version, vmlinuz path) of the newest installed kernel that has a
    module tree, i.e. the one linux-image-amd64 pulled in."""
    found = []
    for name in os.listdir(boot) if os.path.isdir(boot) else []:
        if name.startswith("vmlinuz-"):
            version = name[len("vmlinuz-"):]
            if os.path.isfile(os.path.join(modules_root, version, "modules.dep")):
                found.append(version)
    if not found:
        raise SystemExit("no /boot/vmlinuz-* with a matching %s/<version>: is linux-image-amd64 installed?"
                         % modules_root)
    version = max(found, key=_version_key)
    return version, os.path.join(boot, "vmlinuz-" + version)


def module_name(path):
    """Kernel module name of a .ko path: basename without the (compressed)
    suffix, '-' folded to '_' as modprobe does."""
    base = os.path.basename(path)
    base = re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", base)
    return base.replace("-", "_")


def parse_modules_dep(text):
    """modules.dep text -> {name: (path, [dependency paths])}."""
    table = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        path, deps = line.split(":", 1)
        path = path.strip()
        table[module_name(path)] = (path, deps.split())
    return table


def module_load_order(dep_text, wanted):
    """Paths of the wanted modules and everything they depend on, each after
    its dependencies (depth-first over modules.dep). Unknown names raise."""
    table = parse_modules_dep(dep_text)
    by_path = {path: name for name, (path, _) in table.items()}
    order, state = [], {}

    def visit(name, chain):
        if state.get(name) == "done":
            return
        if state.get(name) == "visiting":
            raise ValueError("dependency loop: " + " -> ".join(chain + [name]))
        if name not in table:
            raise ValueError("module %s is not in modules.dep" % name)
        state[name] = "visiting"
        path, deps = table[name]
        for dep in deps:
            visit(by_path.get(dep, module_name(dep)), chain + [name])
        state[name] = "done"
        order.append(path)

    for name in wanted:
        visit(name.replace("-", "_"), [])
    return order


def read_module(path):
    """A module's bytes, decompressed when the distribution ships .ko.xz,
    .ko.gz or .ko.zst (busybox insmod wants a plain ELF)."""
    if path.endswith(".xz"):
        with lzma.open(path) as f:
            return f.read()
    if path.endswith(".gz"):
        with gzip.open(path) as f:
            return f.read()
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    with open(path, "rb") as f:
        return f.read()


# ---- shared libraries ------------------------------------------------------------------

def parse_ldd(text):
    """Absolute paths of the libraries (and the ELF interpreter) in ldd
    output; the vDSO has no file and is skipped."""
    paths = []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"\S+\s+=>\s+(/\S+)\s+\(", line)
        if m:
            paths.append(m.group(1))
            continue
        m = re.match(r"(/\S+)\s+\(", line)
        if m:
            paths.append(m.group(1))
        elif "=> not found" in line:
            raise ValueError("ldd: " + line)
    return paths


def library_closure(binary):
    p = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True)
    return parse_ldd(p.stdout)


# ---- cpio (newc) -------------------------------------------------------------------------

class Cpio:
    """Writes a newc ("070701") cpio archive, the format the kernel unpacks
    as an initramfs (Documentation/driver-api/early-userspace/buffer-format.rst):
    a 110-byte ASCII header, the name with its NUL, padding to 4 bytes, the
    data, padding to 4 bytes; a TRAILER!!! entry ends it."""

    def __init__(self, f):
        self.f = f
        self.ino = 1
        self.dirs = set()

    def _entry(self, name, mode, data=b"", nlink=1, rdev=(0, 0)):
        name_bytes = name.encode() + b"\0"
        # ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_bytes), 0]
        header = b"070701" + b"".join(b"%08X" % v for v in fields)
        self.ino += 1
        self.f.write(header + name_bytes)
        self.f.write(b"\0" * (-(len(header) + len(name_bytes)) % 4))
        self.f.write(data)
        self.f.write(b"\0" * (-len(data) % 4))

    def add_dir(self, name):
        name = name.strip("/")
        if not name or name in self.dirs:
            return
        self.add_dir(os.path.dirname(name))
        self.dirs.add(name)
        self._entry(name, 0o040755, nlink=2)

    def add_file(self, name, data, mode=0o644):
        name = name.strip("/")
        self.add_dir(os.path.dirname(name))
        self._entry(name, 0o100000 | mode, data)

    def add_symlink(self, name, target):
        name = name.strip("/")
        self.add_dir(os.path.dirname(name))
        self._entry(name, 0o120777, target.encode())

    def add_node(self, name, mode, major, minor):
        """A device node (the kernel needs /dev/console before devtmpfs is up)."""
        name = name.strip("/")
        self.add_dir(os.path.dirname(name))
        self._entry(name, mode, rdev=(major, minor))

    def finish(self):
        self._entry("TRAILER!!!", 0, nlink=1)


# ---- the build -----------------------------------------------------------------------------

def _file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _package_version(package):
    p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return p.stdout.strip()


def build(outdir=None, log=print, install=True):
    """Make OUTDIR/vmlinuz and OUTDIR/initramfs.cpio (uncompressed: TCG is
    slow at decompressing, and QEMU loads the file straight into guest RAM).
    Returns (vmlinuz, initramfs, kernel version)."""
    outdir = outdir or os.path.join(ROOT, os.environ.get("BAREMARK_BUILD", "build"), "bench", "linux")
    if install:
        ensure_packages(log=log)
    version, vmlinuz = find_kernel()
    key = {
        "kernel": version,
        "fio": _package_version("fio"),
        "busybox": _package_version("busybox-static"),
        "init": _file_digest(INIT_SCRIPT),
        "builder": _file_digest(os.path.abspath(__file__)),
        "modules": list(GUEST_MODULES),
    }
    out_kernel = os.path.join(outdir, "vmlinuz")
    out_initrd = os.path.join(outdir, "initramfs.cpio")
    stamp = os.path.join(outdir, "stamp.json")
    try:
        with open(stamp) as f:
            if json.load(f) == key and os.path.isfile(out_kernel) and os.path.isfile(out_initrd):
                return out_kernel, out_initrd, version
    except (OSError, ValueError):
        pass

    log("building the Linux fio guest (kernel %s, %s) in %s" % (version, key["fio"], outdir))
    os.makedirs(outdir, exist_ok=True)
    shutil.copyfile(vmlinuz, out_kernel)
    moddir = os.path.join("/lib/modules", version)
    with open(os.path.join(moddir, "modules.dep")) as f:
        order = module_load_order(f.read(), GUEST_MODULES)

    tmp = out_initrd + ".tmp"
    with open(tmp, "wb") as f:
        cpio = Cpio(f)
        for d in ("dev", "proc", "sys", "tmp", "bin", "sbin", "usr/bin", "usr/sbin", "modules"):
            cpio.add_dir(d)
        cpio.add_node("dev/console", 0o020600, 5, 1)
        cpio.add_file("init", open(INIT_SCRIPT, "rb").read(), 0o755)
        cpio.add_file("bin/busybox", open(BUSYBOX, "rb").read(), 0o755)
        cpio.add_file("usr/bin/fio", open(FIO, "rb").read(), 0o755)
        for lib in library_closure(FIO):
            # Stored under the name the loader looks for, with the content of
            # whatever the symlink points at.
            cpio.add_file(lib, open(os.path.realpath(lib), "rb").read(), 0o755)
        for i, rel in enumerate(order):
            cpio.add_file("modules/%02d-%s.ko" % (i, module_name(rel)), read_module(os.path.join(moddir, rel)))
        cpio.finish()
    os.replace(tmp, out_initrd)
    with open(stamp, "w") as f:
        json.dump(key, f, indent=1)
    log("  %d modules: %s" % (len(order), " ".join(module_name(p) for p in order)))
    log("  initramfs %.1f MB" % (os.path.getsize(out_initrd) / 1e6))
    return out_kernel, out_initrd, version


if __name__ == "__main__":
    k, i, v = build(sys.argv[1] if len(sys.argv) > 1 else None)
    print("kernel %s\n%s\n%s" % (v, k, i))
