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


def _stick_file(run, ext=".jsonl"):
    """The results file (or, with ext=".html", its report) in \\rack on the stick."""
    names = qemu.list_dir(run.stick, "::/rack")
    assert sorted(os.path.splitext(n)[1] for n in names) == [".html", ".jsonl"], names
    name = [n for n in names if n.endswith(ext)][0]
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    data = subprocess.run(["mtype", "-i", "%s@@%d" % (run.stick, qemu.ESP_OFFSET), "::/rack/" + name],
                          capture_output=True, env=env, check=True).stdout
    return name, data


def test_upload_to_nginx_receives_exactly_the_stick_bytes():
    # a burn-in of two passes: one upload after each pass, one at the end
    with Nginx() as srv:
        run = _boot("mem=off\ndisk=off\npasses=2\nexit=shutdown\nout=BAREMARK:\\rack\n"
                    "upload=http://10.0.2.2:%d/results\n" % srv.port)
        received = srv.received()
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    assert all(u["ok"] and u["status"] in (201, 204) for u in ups), (ups, srv.log())
    jsonl = [u for u in ups if u["file"].endswith(".jsonl")]
    html = [u for u in ups if u["file"].endswith(".html")]
    # the results file after each pass and at the end; its report whenever one was written
    assert [u.get("pass") for u in jsonl] == [1, 2, None], ups
    assert len(jsonl) + len(html) == len(ups) and html and "pass" not in html[-1], ups
    name, data = _stick_file(run)
    hname, hdata = _stick_file(run, ".html")
    assert sorted(received) == sorted([name, hname]), (received, name, hname)
    assert srv.read(name) == data and srv.read(hname) == hdata
    assert jsonl[-1]["bytes"] == len(data) and jsonl[-1]["url"].endswith("/results/" + name)
    assert html[-1]["bytes"] == len(hdata) and hdata.rstrip().endswith(b"</html>")
    # the per-pass uploads are part of the results file; the final ones are not
    assert data.decode().count('"type":"upload"') == sum(1 for u in ups if "pass" in u)
    assert data.decode().splitlines()[-1].startswith('{"type":"end"')
    assert run.returncode == 0


def test_upload_with_the_server_down_is_an_error_and_the_run_ends():
    port = free_port()  # nothing listens there
    run = _boot("mem=off\ndisk=off\nexit=shutdown\nout=BAREMARK:\\rack\n"
                "upload=http://10.0.2.2:%d/results\nupload_timeout=4\n" % port)
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    # the results file's upload fails in time and says why; the report is not tried after it
    assert len(ups) == 1 and ups[0]["file"].endswith(".jsonl") and not ups[0]["ok"] and ups[0]["error"], ups
    errors = [e for e in run.of_type("error") if e.get("where") == "upload"]
    assert len(errors) == 1 and "local copies are kept" in errors[0]["message"], run.of_type("error")
    assert run.end()["status"] == "ok"  # the run itself went fine; the upload came after
    name, data = _stick_file(run)
    lines = data.decode().splitlines()
    assert lines[0].startswith('{"type":"run"') and lines[-1].startswith('{"type":"end"'), lines[-1]
    assert run.returncode == 0  # powered off as exit=shutdown says
