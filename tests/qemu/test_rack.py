"""The rack recipe with real parts, as a datacenter has it: a plain DHCP
server (dnsmasq) in one network namespace, the boot server in another
(the sample boot/dnsmasq-baremark.conf as proxy-DHCP + TFTP, and nginx
from boot/nginx-baremark.conf receiving uploads), joined by a veth; QEMU on
a tap in the boot server's bridge. Two machines with different MACs boot,
one through the firmware's own PXE straight into baremark.efi, one through
the sample's chain (firmware PXE -> Debian's snponly.efi -> baremark.ipxe);
each gets the options of its own per-MAC file, the served limits.cfg, and
uploads its results. QEMU's user network (one server for everything, no
proxy) cannot show the proxy-DHCP server choice. Skipped, with a note, only
where network namespaces cannot be made."""
import ctypes
import json
import itertools
import os
import re
import shutil
import subprocess
import time

import qemu
from receiver import Nginx

DHCP_IP, BOOT_IP = "10.99.0.1", "10.99.0.2"
CLONE_NEWNET = 0x40000000
MAC_A, MAC_B = "52:54:00:99:00:0a", "52:54:00:99:00:0b"
_RACKS = itertools.count()


def _ip(*args):
    subprocess.run(["ip"] + list(args), check=True, capture_output=True)


class Rack:
    """Two namespaces: dhcp (vA, 10.99.0.1) and boot (bridge br0 with vB and
    tap0, 10.99.0.2)."""

    def __init__(self):
        # The test runner runs tests in threads of one process: the PID
        # alone would give two racks at once the same names.
        n = next(_RACKS)
        tag = "%d-%d" % (os.getpid(), n)
        self.ns_dhcp, self.ns_boot = "bmrack-dhcp-" + tag, "bmrack-boot-" + tag
        self.veth = "%d" % ((os.getpid() * 16 + n) % 1000000)   # interface names: 15 bytes at most
        self.dir = qemu.tempdir("baremark-rack-")
        self.tftp = os.path.join(self.dir, "tftp")
        os.makedirs(self.tftp)
        self.procs = []

    def up(self):
        _ip("netns", "add", self.ns_dhcp)
        _ip("netns", "add", self.ns_boot)
        va, vb = "bmrA" + self.veth, "bmrB" + self.veth
        _ip("link", "add", va, "type", "veth", "peer", "name", vb)
        _ip("link", "set", va, "netns", self.ns_dhcp, "name", "vA")
        _ip("link", "set", vb, "netns", self.ns_boot, "name", "vB")
        _ip("-n", self.ns_dhcp, "addr", "add", DHCP_IP + "/24", "dev", "vA")
        for dev in ("lo", "vA"):
            _ip("-n", self.ns_dhcp, "link", "set", dev, "up")
        _ip("-n", self.ns_boot, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.ns_boot, "tuntap", "add", "tap0", "mode", "tap")
        for dev in ("vB", "tap0"):
            _ip("-n", self.ns_boot, "link", "set", dev, "master", "br0")
        _ip("-n", self.ns_boot, "addr", "add", BOOT_IP + "/24", "dev", "br0")
        for dev in ("lo", "vB", "tap0", "br0"):
            _ip("-n", self.ns_boot, "link", "set", dev, "up")
        return self

    def down(self):
        for p in self.procs:
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        for ns in (self.ns_dhcp, self.ns_boot):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def spawn(self, ns, cmd, log):
        self.procs.append(subprocess.Popen(["ip", "netns", "exec", ns] + cmd, stdout=open(log, "w"),
                                           stderr=subprocess.STDOUT))

    def dhcp_server(self):
        """The site's ordinary DHCP server: addresses, and itself as next-server."""
        self.spawn(self.ns_dhcp, ["dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--user=root", "--port=0",
                                  "--interface=vA", "--bind-interfaces",
                                  "--dhcp-range=10.99.0.100,10.99.0.199,255.255.255.0,10m",
                                  "--dhcp-leasefile=" + os.path.join(self.dir, "dhcp.leases"), "--log-dhcp"],
                   os.path.join(self.dir, "dhcp.log"))

    def boot_server(self, ipxe=True, edit=None, name=None):
        """The sample proxy-DHCP + TFTP config with its three EDIT lines edited;
        ipxe=False takes the sample's own alternative (firmware PXE boots
        baremark.efi directly); edit(text) may change it further for a test.
        Returns the dnsmasq log's path."""
        text = open(os.path.join(qemu.ROOT, "boot", "dnsmasq-baremark.conf")).read()
        text = re.sub(r"(?m)^interface=\S+", "interface=br0", text)
        text = re.sub(r"(?m)^dhcp-range=\S+", "dhcp-range=10.99.0.0,proxy", text)
        text = re.sub(r"(?m)^tftp-root=\S+", "tftp-root=" + self.tftp, text)
        if not ipxe:
            text = re.sub(r"(?m)^pxe-service=tag:!ipxe.*$", "", text)
            text = re.sub(r"(?m)^dhcp-boot=tag:ipxe.*$", "", text)
            text = re.sub(r"(?m)^# (pxe-service=X86-64_EFI,\"baremark\",baremark.efi)", r"\1", text)
        if edit:
            text = edit(text)
        name = name or ("ipxe" if ipxe else "pxe")
        conf = os.path.join(self.dir, "dnsmasq-%s.conf" % name)
        with open(conf, "w") as f:
            f.write(text)
        self.spawn(self.ns_boot, ["dnsmasq", "--no-daemon", "--conf-file=" + conf, "--user=root",
                                  "--bind-interfaces", "--leasefile-ro", "--log-dhcp"],
                   os.path.join(self.dir, "boot-%s.log" % name))
        time.sleep(0.5)
        return os.path.join(self.dir, "boot-%s.log" % name)

    def serve(self, name, text):
        with open(os.path.join(self.tftp, name), "w") as f:
            f.write(text)


class _InNetns:
    """This thread (and what it starts) in a named network namespace."""

    def __init__(self, name):
        self.name = name
        self.libc = ctypes.CDLL(None, use_errno=True)

    def __enter__(self):
        self.back = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        fd = os.open("/run/netns/" + self.name, os.O_RDONLY)
        try:
            if self.libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + self.name)
        finally:
            os.close(fd)
        return self

    def __exit__(self, *exc):
        self.libc.setns(self.back, CLONE_NEWNET)
        os.close(self.back)


def _namespaces_possible():
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("dnsmasq"):
        return False
    probe = "bmrack-probe-%d-%d" % (os.getpid(), next(_RACKS))
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return ok


def _boot(rack, mac):
    net = ["-netdev", "tap,id=n0,ifname=tap0,script=no,downscript=no",
           "-device", "virtio-net-pci,netdev=n0,mac=%s,bootindex=0,romfile=" % mac]
    with _InNetns(rack.ns_boot):
        return qemu.boot(stick=False, net=net, timeout=240)


def _check_machine(run, srv, mac, time_s, limits_files):
    dashed = mac.replace(":", "-")
    assert not run.timed_out, run.serial[-4000:]
    r = run.one("run")
    assert r["config_files"] == ["baremark.cfg", "baremark-%s.cfg" % dashed] + limits_files, r
    assert r["config_file"].endswith("time=%d" % time_s), r
    notes = [n["message"] for n in run.of_type("note") if n["where"] == "config"]
    # the shared files came from the proxy, the wrong server was never asked
    assert not any("baremark.cfg: not found" in m or "limits.cfg: not found" in m for m in notes), notes
    assert any("per-machine files not found in" in m and "tftp://%s/" % BOOT_IP in m for m in notes), notes
    assert not any("did not answer" in m for m in notes), notes
    end = run.end()
    assert end["status"] == "ok" and end["verdict"] == "pass", end
    ups = run.of_type("upload")
    assert len(ups) == 1, ups
    assert ups[0]["ok"], (ups, srv.log())
    data = srv.read(ups[0]["file"])
    assert len(data) == ups[0]["bytes"]
    lines = data.decode().splitlines()
    assert '"config_files":["baremark.cfg","baremark-%s.cfg"' % dashed in lines[0], lines[0]
    assert lines[-1].startswith('{"type":"end"')
    # exactly the records the machine printed on serial, up to its end record
    types = [r["type"] for r in run.records]
    assert [json.loads(l) for l in lines] == run.records[:types.index("end") + 1]
    assert run.returncode == 0  # exit=shutdown from the served rack cfg


def test_rack_two_machines_firmware_pxe_and_ipxe():
    if not _namespaces_possible():
        print("NOTE test_rack: skipped, network namespaces cannot be created here (needs root, ip, dnsmasq)")
        return
    rack = Rack().up()
    try:
        rack.dhcp_server()
        shutil.copyfile(os.path.join(qemu.BUILD, "baremark.efi"), os.path.join(rack.tftp, "baremark.efi"))
        shutil.copyfile("/usr/lib/ipxe/snponly.efi", os.path.join(rack.tftp, "snponly.efi"))
        shutil.copyfile(os.path.join(qemu.ROOT, "boot", "baremark.ipxe"), os.path.join(rack.tftp, "baremark.ipxe"))
        with _InNetns(rack.ns_boot):
            srv = Nginx(listen=BOOT_IP).start()
        try:
            cfg = open(os.path.join(qemu.ROOT, "boot", "baremark-rack.cfg")).read()
            rack.serve("baremark.cfg", cfg + "mem=off\ndisk=off\nupload=http://%s:%d/results\nupload_timeout=6\n"
                      % (BOOT_IP, srv.port))
            rack.serve("limits.cfg", "* * min_mbps=1\n")
            rack.serve("baremark-%s.cfg" % MAC_A.replace(":", "-"), "time=7\n")
            rack.serve("limits-%s.cfg" % MAC_A.replace(":", "-"), "* * min_iops=7\n")
            rack.serve("baremark-%s.cfg" % MAC_B.replace(":", "-"), "time=9\n")

            # machine A: the firmware's PXE boots baremark.efi from the proxy's TFTP
            if os.environ.get("BAREMARK_RACK_ONLY") != "ipxe":
                rack.boot_server(ipxe=False)
                run_a = _boot(rack, MAC_A)
                rack.procs.pop().terminate()
                _check_machine(run_a, srv, MAC_A, 7, ["limits.cfg", "limits-%s.cfg" % MAC_A.replace(":", "-")])

            # machine B: the sample as shipped, firmware PXE -> snponly.efi -> baremark.ipxe
            rack.boot_server(ipxe=True)
            run_b = _boot(rack, MAC_B)
            _check_machine(run_b, srv, MAC_B, 9, ["limits.cfg"])
        finally:
            with _InNetns(rack.ns_boot):
                srv.stop()
    finally:
        rack.down()
