"""Findings under QEMU, one boot for the seeds' scenarios QEMU can build:
an NVMe in a Gen2 x4 root port (x-speed=5,x-width=4: the Z370's chipset
slot), two NVMe disks behind one PCIe switch (x3130-upstream +
xio3130-downstream), three AHCI disks on q35's built-in controller (the
ICH9's, behind its DMI) and two NUMA nodes.

QEMU enforces no link's bandwidth and its NUMA nodes share the host's
memory: the run must read and record every link, place every controller
(CPU or chipset side) and then say that links are not enforced instead of
concluding from them. The findings come first in the HTML report."""
import os

import qemu

NUMA_ARGS = [
    "-object", "memory-backend-ram,id=m0,size=512M",
    "-object", "memory-backend-ram,id=m1,size=512M",
    "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
    "-numa", "node,nodeid=1,cpus=2-3,memdev=m1",
]
SERIALS = ["NVMESLOT", "NVMESW01", "NVMESW02", "SATA0001", "SATA0002", "SATA0003"]
DEVICES = [
    # Gen2 x4 slot on the root complex.
    "pcie-root-port,id=rp0,chassis=1,slot=1,bus=pcie.0,addr=0x10,x-speed=5,x-width=4",
    "nvme,bus=rp0,drive=n0,serial=NVMESLOT",
    # A switch: root port, upstream port, two downstream ports.
    "pcie-root-port,id=rp1,chassis=2,slot=2,bus=pcie.0,addr=0x11", "x3130-upstream,bus=rp1,id=up1",
    "xio3130-downstream,bus=up1,id=dn1,chassis=3,slot=0", "xio3130-downstream,bus=up1,id=dn2,chassis=4,slot=0",
    "nvme,bus=dn1,drive=n1,serial=NVMESW01", "nvme,bus=dn2,drive=n2,serial=NVMESW02",
    # Three SATA disks on the ICH9's AHCI (00:1f.2).
    "ide-hd,drive=s0,bus=ide.0,serial=SATA0001", "ide-hd,drive=s1,bus=ide.1,serial=SATA0002",
    "ide-hd,drive=s2,bus=ide.2,serial=SATA0003",
]


def test_qemu_links_placed_and_recorded_but_not_concluded_from():
    work = qemu.tempdir(prefix="baremark-findings-")
    drives = []
    for name in ("n0", "n1", "n2", "s0", "s1", "s2"):
        img = qemu.make_disk(os.path.join(work, name + ".img"), 32)
        drives.append("if=none,id=%s,format=raw,file=%s" % (name, img))
    run = qemu.boot(options="mem=quick mem_max=1M disk=quick time=100ms warmup=50ms disks=%s screen_dump=1 exit=shutdown" % ",".join(SERIALS),
                    drives=drives, devices=DEVICES, smp=4, memory_mib=1024, extra_args=NUMA_ARGS, workdir=work,
                    timeout=900)
    assert not run.timed_out and run.of_type("end"), run.serial[-3000:]

    # The chipset: q35's ICH9 by its IDs, emulated, DMI x4 from the table.
    cs = run.of_type("chipset")
    assert len(cs) == 1, cs
    cs = cs[0]
    assert cs["known"] and cs["emulated"], cs
    assert "QEMU q35" in cs["name"] and cs["uplink"] == "DMI x4" and cs["uplink_mbps"] == 1000, cs
    assert "does not enforce" in cs["note"], cs

    disks = {d["serial"]: d for d in run.of_type("disk") if d["serial"] in SERIALS}
    assert sorted(disks) == sorted(SERIALS), list(disks)
    pci = {p["bdf"]: p for p in run.of_type("pci")}

    # The Gen2 x4 slot: the NVMe's partner (the port) reports 5 GT/s x4.
    slot_nvme = pci[disks["NVMESLOT"]["pci"]]
    assert slot_nvme["attach"] == "cpu", slot_nvme
    assert slot_nvme["link"]["partner_max_speed_gts"] == 5.0 and slot_nvme["link"]["partner_max_width"] == 4, slot_nvme
    port = pci[slot_nvme["path"][0]]
    assert port["port_type"] == "root_port" and port["link"]["max_speed_gts"] == 5.0, port

    # The switch: both NVMe disks behind downstream, upstream and root port.
    for s in ("NVMESW01", "NVMESW02"):
        p = pci[disks[s]["pci"]]
        assert p["attach"] == "cpu", p
        kinds = [pci[b]["port_type"] for b in p["path"]]
        assert kinds == ["switch_downstream", "switch_upstream", "root_port"], kinds

    # The AHCI disks: on the chipset's own controller, SATA port maximum recorded.
    sata = pci[disks["SATA0001"]["pci"]]
    assert sata["bdf"] == "0000:00:1f.2" and sata["attach"] == "chipset", sata
    assert sata["attach_why"] == "a chipset function" and sata["chipset_uplink_mbps"] == 1000, sata
    assert sata["ceiling_mbps"] == 1000 and sata["ceiling_by"] == "chipset_uplink", sata
    assert slot_nvme["ceiling_by"] == "pcie_link", slot_nvme
    for s in ("SATA0001", "SATA0002", "SATA0003"):
        d = disks[s]
        # QEMU's hw/ide/ahci.c sets CAP.ISS to Gen1.
        assert d.get("link_port_max_gbps") == 1.5, d

    # The all-disks results: a shared link is named, and marked emulated.
    alls = [r for r in run.of_type("disk_result") if r["disk"] == "all" and r.get("link")]
    assert alls, [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert all(r["link"]["emulated"] is True for r in alls), alls

    # Findings: links not enforced, said once, with the readings; nothing
    # concluded from a link, NUMA left alone with a note.
    finds = run.of_type("finding")
    kinds = [f["finding"] for f in finds]
    assert kinds.count("links_not_enforced") == 1, finds
    f = finds[kinds.index("links_not_enforced")]
    assert f["severity"] == "info" and "Links are not enforced on this emulated machine" in f["text"], f
    # Device ends: the slot's NVMe, the switch's upstream port, its two NVMe.
    assert f["numbers"]["links"] == 4 and "aggregate_mbps" in f["numbers"], f
    for k in ("shared_ceiling", "slot_limit", "downtrained_link", "chipset_attached", "hba_vs_chipset",
              "numa_remote"):
        assert k not in kinds, (k, finds)
    notes = [n["message"] for n in run.of_type("note") if n["where"] == "findings"]
    assert any("the nodes are emulated" in n for n in notes), notes
    assert len(run.of_type("mem_numa")) == 4

    # The findings come before anything else the end record follows.
    types = [r["type"] for r in run.records]
    assert types.index("finding") < types.index("end")

    # The results screen: the findings under the title, above the system.
    screen = run.of_type("screen")
    if screen:  # a text console without cursor positioning has no fixed screen
        lines = screen[-1]["lines"]
        top = [i for i, l in enumerate(lines) if l.strip().startswith("Findings:")]
        sysrow = [i for i, l in enumerate(lines) if l.strip().startswith("System")]
        assert top and sysrow and top[0] < sysrow[0], lines[:12]
        assert "Links are not enforced" in lines[top[0] + 1], lines[:12]

    # The HTML report on the stick: the Findings block before any table.
    names = run.results_files()
    page = [n for n in names if n.endswith(".html")]
    assert len(page) == 1, names
    text = run.read_file("::/baremark/results/" + page[0])
    assert '<section id="findings">' in text
    assert text.index('<section id="findings">') < text.index("<table"), text[:2000]
    assert 'data-finding="links_not_enforced"' in text
