"""Netboot: the firmware's own PXE client and iPXE both start baremark from
a TFTP server, and the options served with it take effect."""
import os
import shutil

import qemu


def _tftp_dir(files):
    d = qemu.tempdir("baremark-tftp-")
    shutil.copyfile(os.path.join(qemu.BUILD, "baremark.efi"), os.path.join(d, "baremark.efi"))
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return d


def _net(tftp, bootfile, rom=True):
    nic = "virtio-net-pci,netdev=n0,bootindex=0" + ("" if rom else ",romfile=")
    return ["-netdev", "user,id=n0,tftp=%s,bootfile=%s" % (tftp, bootfile), "-device", nic]


def test_firmware_pxe_applies_served_config():
    # romfile= keeps QEMU's iPXE ROM out: OVMF's own PXE client boots.
    tftp = _tftp_dir({"baremark.cfg": "# served by the boot server\nmem=off\ndisk=off\ntime=7\nexit=shutdown\n"})
    run = qemu.boot(stick=False, net=_net(tftp, "baremark.efi", rom=False), timeout=240)
    assert not run.timed_out, run.serial[-3000:]
    r = run.one("run")
    assert r["config_file"] == "mem=off disk=off time=7 exit=shutdown", r
    # the served options took effect: nothing ran, and the machine powered off
    assert run.of_type("disk_result") == [] and run.of_type("mem_latency") == []
    assert run.returncode == 0
    notes = [n for n in run.of_type("note") if n["where"] == "results_file"]
    assert notes and "pxe" in notes[0]["message"], run.of_type("note")
    assert run.end()["status"] == "ok"


def test_ipxe_script_chains_with_options():
    script = "#!ipxe\nchain baremark.efi mem=off disk=off time=9 exit=shutdown\n"
    tftp = _tftp_dir({"baremark.ipxe": script})
    run = qemu.boot(stick=False, net=_net(tftp, "baremark.ipxe"), timeout=240)
    assert not run.timed_out, run.serial[-3000:]
    r = run.one("run")
    assert "mem=off disk=off time=9 exit=shutdown" in r["args"], r
    assert run.returncode == 0
    assert run.end()["status"] == "ok"


def test_ipxe_fetched_config_and_results_on_a_labelled_stick():
    # iPXE serves files it fetched (imgfetch) through a read-only file system;
    # out=LABEL:\folder sends the results file to a stick left in the machine.
    script = "#!ipxe\nimgfetch baremark.cfg\nchain baremark.efi disk=off exit=shutdown\n"
    tftp = _tftp_dir({"baremark.ipxe": script,
                      "baremark.cfg": "mem=off\nout=BAREMARK:\\rack\\results\n"})
    run = qemu.boot(net=_net(tftp, "baremark.ipxe"), timeout=240)
    assert not run.timed_out, run.serial[-3000:]
    assert run.one("run")["config_file"] == "mem=off out=BAREMARK:\\rack\\results"
    assert run.of_type("error") == [], run.of_type("error")
    names = qemu.list_dir(run.stick, "::/rack/results")
    jsonl = [n for n in names if n.endswith(".jsonl")]
    # the results file and its HTML report beside it
    assert len(jsonl) == 1 and sorted(names) == sorted(jsonl + [jsonl[0][:-len(".jsonl")] + ".html"]), names
    text = qemu.read_fat_file(run.stick, "::/rack/results/" + jsonl[0])
    assert [l for l in text.splitlines() if l.strip()][-1].startswith('{"type":"end"')
