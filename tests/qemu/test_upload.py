"""upload=: a netbooted machine PUTs its results file to a real nginx
(boot/nginx-baremark.conf) reached from QEMU's user network (the host is
10.0.2.2); the server gets exactly the bytes of the results file on the
stick. With the server down: an error record, the run still ends, the
local file is intact."""
import os
import shutil
import subprocess

import qemu
from receiver import Nginx, free_port


def _tftp(cfg):
    d = qemu.tempdir("baremark-tftp-")
    shutil.copyfile(os.path.join(qemu.BUILD, "baremark.efi"), os.path.join(d, "baremark.efi"))
    with open(os.path.join(d, "baremark.cfg"), "w") as f:
        f.write(cfg)
    return d


def _boot(cfg):
    # romfile= keeps QEMU's iPXE ROM out: OVMF's own PXE client boots.
    tftp = _tftp(cfg)
    net = ["-netdev", "user,id=n0,tftp=%s,bootfile=baremark.efi" % tftp,
           "-device", "virtio-net-pci,netdev=n0,bootindex=0,romfile="]
    return qemu.boot(net=net, timeout=240)


def _stick_file(run):
    names = qemu.list_dir(run.stick, "::/rack")
    assert len(names) == 1 and names[0].endswith(".jsonl"), names
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    data = subprocess.run(["mtype", "-i", "%s@@%d" % (run.stick, qemu.ESP_OFFSET), "::/rack/" + names[0]],
                          capture_output=True, env=env, check=True).stdout
    return names[0], data


def test_upload_to_nginx_receives_exactly_the_stick_bytes():
    # a burn-in of two passes: one upload after each pass, one at the end
    with Nginx() as srv:
        run = _boot("mem=off\ndisk=off\npasses=2\nexit=shutdown\nout=BAREMARK:\\rack\n"
                    "upload=http://10.0.2.2:%d/results\n" % srv.port)
        received = srv.received()
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    assert len(ups) == 3 and all(u["ok"] and u["status"] in (201, 204) for u in ups), (ups, srv.log())
    assert [u.get("pass") for u in ups[:2]] == [1, 2], ups
    name, data = _stick_file(run)
    assert received == [name], (received, name)
    assert srv.read(name) == data
    assert ups[2]["bytes"] == len(data) and ups[2]["url"].endswith("/results/" + name)
    # the per-pass uploads are part of the results file; the final one is not
    assert data.decode().count('"type":"upload"') == 2
    assert data.decode().splitlines()[-1].startswith('{"type":"end"')
    assert run.returncode == 0


def test_upload_with_the_server_down_is_an_error_and_the_run_ends():
    port = free_port()  # nothing listens there
    run = _boot("mem=off\ndisk=off\nexit=shutdown\nout=BAREMARK:\\rack\n"
                "upload=http://10.0.2.2:%d/results\nupload_timeout=4\n" % port)
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    assert len(ups) == 1 and not ups[0]["ok"] and ups[0]["error"], ups
    errors = [e for e in run.of_type("error") if e.get("where") == "upload"]
    assert len(errors) == 1 and "local copies are kept" in errors[0]["message"], run.of_type("error")
    assert run.end()["status"] == "ok"  # the run itself went fine; the upload came after
    name, data = _stick_file(run)
    lines = data.decode().splitlines()
    assert lines[0].startswith('{"type":"run"') and lines[-1].startswith('{"type":"end"'), lines[-1]
    assert run.returncode == 0  # powered off as exit=shutdown says
