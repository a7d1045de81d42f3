"""upload=: a netbooted machine PUTs its results file to a real nginx
(boot/nginx-baremark.conf) reached from QEMU's user network (the host is
10.0.2.2), as <time>-<serial>-<mac>-<run id>.<stage>.jsonl: when it starts,
after each pass and at the end; the final upload holds exactly the bytes of
the results file on the stick, each earlier one a beginning of it. The
served upload_token= is in no record, no serial line, no file. With the
server down: error records, the run still ends, the local file is intact.
cfg_required=1 without a served baremark.cfg: the error is uploaded and
the configured exit taken. On the host build (no QEMU): bad options still
upload their error with the token, and two machines with one serial and no
MAC started together upload under two names. (The token check of the real
collector, 401 for a wrong one, is test_rack's.)"""
import json
import os
import re
import shutil
import subprocess

import marks
import qemu
from receiver import Nginx, free_port


def _tftp(cfg):
    d = qemu.tempdir("baremark-tftp-")
    shutil.copyfile(os.path.join(qemu.BUILD, "baremark.efi"), os.path.join(d, "baremark.efi"))
    with open(os.path.join(d, "baremark.cfg"), "w") as f:
        f.write(cfg)
    return d


TOKEN = "rack7-Upl0ad_t0ken~x"
QEMU_MAC = "52:54:00:12:34:56"     # QEMU's default NIC address
NAME_RE = re.compile(r"^(\d{8}-\d{6})-([A-Za-z0-9._-]+)-([0-9a-f]{12}|nomac)-([0-9a-f]{32})\.(started|pass\d+|final)\."
                     r"(jsonl|html)$")


def _boot(cfg):
    # romfile= keeps QEMU's iPXE ROM out: OVMF's own PXE client boots.
    tftp = _tftp(cfg)
    net = ["-netdev", "user,id=n0,tftp=%s,bootfile=baremark.efi" % tftp,
           "-device", "virtio-net-pci,netdev=n0,bootindex=0,romfile="]
    return qemu.boot(net=net, timeout=240)


def _unique_keys(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)


def _no_token_anywhere(run, *blobs):
    """The token in no serial line (records and firmware noise) and no file."""
    assert TOKEN not in run.serial, [l for l in run.serial.splitlines() if TOKEN in l]
    for b in blobs:
        assert TOKEN.encode() not in b


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
    # a burn-in of two passes: started, one upload after each pass, one at the end
    with Nginx() as srv:
        run = _boot("mem=off\ndisk=off\npasses=2\nexit=shutdown\nout=BAREMARK:\\rack\n"
                    "upload=http://10.0.2.2:%d/results\nupload_token=%s\n" % (srv.port, TOKEN))
        received = srv.received()
        stored = {n: srv.read(n) for n in received}
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    assert all(u["ok"] and u["status"] in (201, 204) for u in ups), (ups, srv.log())
    jsonl = [u for u in ups if u["file"].endswith(".jsonl")]
    html = [u for u in ups if u["file"].endswith(".html")]
    # visible from the start, after each pass, at the end; the report at the end
    assert [u["stage"] for u in jsonl] == ["started", "pass1", "pass2", "final"], ups
    assert [u.get("pass") for u in jsonl] == [None, 1, 2, None], ups
    assert len(html) == 1 and html[0]["stage"] == "final" and len(jsonl) + 1 == len(ups), ups
    # the identity: a run id, the NIC that booted and its address, in the names too
    r = run.one("run")
    assert re.match(r"^[0-9a-f]{32}$", r["run_id"]) and r["run_id_source"] in ("rdseed", "rdrand", "tsc_jitter"), r
    assert r["mac"] == QEMU_MAC and r["ip"] == "10.0.2.15", r
    assert r["system_serial"] == run.one("system")["serial"] and r["smbios_uuid"] == run.one("system")["uuid"], r
    assert run.end()["run_id"] == r["run_id"]
    for u in ups:
        m = NAME_RE.match(u["file"])
        assert m and m.group(3) == QEMU_MAC.replace(":", "") and m.group(4) == r["run_id"], u["file"]
        assert m.group(5) == u["stage"], u
    name, data = _stick_file(run)
    hname, hdata = _stick_file(run, ".html")
    assert sorted(received) == sorted(u["file"] for u in ups), (received, ups)
    final = jsonl[-1]["file"]
    assert stored[final] == data and stored[html[0]["file"]] == hdata
    assert jsonl[-1]["bytes"] == len(data) and jsonl[-1]["url"].endswith("/results/" + final)
    assert html[0]["bytes"] == len(hdata) and hdata.rstrip().endswith(b"</html>")
    # each earlier upload is the results file as it was then
    for u in jsonl[:-1]:
        assert data.startswith(stored[u["file"]]) and len(stored[u["file"]]) == u["bytes"], u
    # every record of the file has each key once (the identity added to the run record too)
    for line in data.decode().splitlines():
        json.loads(line, object_pairs_hook=_unique_keys)
    # the started and per-pass uploads are part of the results file; the final ones are not
    assert data.decode().count('"type":"upload"') == 3
    assert data.decode().splitlines()[-1].startswith('{"type":"end"')
    # the token: hidden in the options shown, nowhere on serial, in the files or the report
    assert "upload_token=(hidden)" in r["config_file"], r
    _no_token_anywhere(run, data, hdata, *stored.values())
    assert run.returncode == 0


def test_upload_with_the_server_down_is_an_error_and_the_run_ends():
    port = free_port()  # nothing listens there
    run = _boot("mem=off\ndisk=off\nexit=shutdown\nout=BAREMARK:\\rack\n"
                "upload=http://10.0.2.2:%d/results\nupload_timeout=4\n" % port)
    assert not run.timed_out, run.serial[-3000:]
    ups = run.of_type("upload")
    # the started and final uploads fail in time and say why; the report is not tried after them
    assert [u["stage"] for u in ups] == ["started", "final"], ups
    assert all(u["file"].endswith(".jsonl") and not u["ok"] and u["error"] for u in ups), ups
    errors = [e for e in run.of_type("error") if e.get("where") == "upload"]
    assert len(errors) == 2 and all("local copies are kept" in e["message"] for e in errors), run.of_type("error")
    # the machine was not visible: the run says so (the started upload's error is in it)
    assert run.end()["status"] == "error" and run.end()["errors"] == 1, run.end()
    name, data = _stick_file(run)
    lines = data.decode().splitlines()
    assert lines[0].startswith('{"type":"run"') and lines[-1].startswith('{"type":"end"'), lines[-1]
    assert run.returncode == 0  # powered off as exit=shutdown says


def test_cfg_required_without_a_served_cfg_uploads_its_error():
    # iPXE chains with the options; the TFTP folder has no baremark.cfg
    with Nginx() as srv:
        d = qemu.tempdir("baremark-tftp-")
        shutil.copyfile(os.path.join(qemu.BUILD, "baremark.efi"), os.path.join(d, "baremark.efi"))
        with open(os.path.join(d, "baremark.ipxe"), "w") as f:
            f.write("#!ipxe\nchain baremark.efi cfg_required=1 exit=shutdown upload=http://10.0.2.2:%d/results "
                    "upload_token=%s\n" % (srv.port, TOKEN))
        net = ["-netdev", "user,id=n0,tftp=%s,bootfile=baremark.ipxe" % d,
               "-device", "virtio-net-pci,netdev=n0,bootindex=0"]
        run = qemu.boot(stick=False, net=net, timeout=240)
        received = srv.received()
        stored = {n: srv.read(n) for n in received}
    assert not run.timed_out, run.serial[-3000:]
    errors = [e for e in run.of_type("error") if e["where"] == "config"]
    assert len(errors) == 1 and "cfg_required=1 and baremark.cfg was not found" in errors[0]["message"], errors
    assert "tftp://10.0.2.2/" in errors[0]["message"], errors
    end = run.end()
    assert end["status"] == "error" and "cfg_required" in end["note"], end
    assert run.of_type("system") == [] and run.of_type("disk_result") == []   # nothing was run
    ups = run.of_type("upload")
    assert len(ups) == 1 and ups[0]["ok"] and ups[0]["stage"] == "final", (ups, srv.log())
    assert received == [ups[0]["file"]], received
    lines = [json.loads(l) for l in stored[received[0]].decode().splitlines()]
    assert [l["type"] for l in lines] == [rec["type"] for rec in run.records[:len(lines)]], lines
    assert lines[0]["type"] == "run" and lines[-1]["type"] == "end" and lines[-1]["status"] == "error", lines
    assert any(l["type"] == "error" and l["where"] == "config" for l in lines), lines
    assert "upload_token=(hidden)" in lines[0]["args"], lines[0]
    _no_token_anywhere(run, *stored.values())
    assert run.returncode == 0  # the configured exit (shutdown) was taken


# ---- the same on the host build (build/host/baremark, no QEMU) ------------------------------------

HOST_BINARY = os.path.join(qemu.ROOT, os.environ.get("BAREMARK_BUILD", "build"), "host", "baremark")


class _Receiver:
    """A receiver that keeps each PUT (path, headers, body) and, like
    baremark-collect, answers 401 unless the rack's token came."""

    def __init__(self):
        import http.server
        import threading
        got = self.got = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_PUT(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                got.append((self.path, dict(self.headers), body))
                ok = self.headers.get("Authorization") == "Bearer " + TOKEN
                self.send_response(201 if ok else 401)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


def _host_run(volume, args, mac="52:54:00:aa:bb:0c"):
    env = dict(os.environ, BAREMARK_HOST_VOLUME=volume, BAREMARK_HOST_MAC=mac, BAREMARK_HOST_IP="10.99.0.177")
    return subprocess.Popen([HOST_BINARY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _records(out):
    return [json.loads(l[len("BAREMARK "):]) for l in out.decode().splitlines() if l.startswith("BAREMARK {")]


@marks.host
def test_bad_options_still_upload_their_error_with_the_token():
    rcv = _Receiver()
    try:
        vol = qemu.tempdir("baremark-hostvol-")
        os.makedirs(os.path.join(vol, "baremark"))
        with open(os.path.join(vol, "baremark", "baremark.cfg"), "w") as f:
            f.write("upload=http://127.0.0.1:%d/r\nupload_token=%s\nupload_timeout=5\nmem=fast\n" % (rcv.port, TOKEN))
        p = _host_run(vol, ["out=off"])
        out, err = p.communicate(timeout=60)
    finally:
        rcv.close()
    recs = _records(out)
    assert p.returncode == 2, recs
    assert any(r["type"] == "error" and "'mem'" in r["message"] for r in recs), recs
    assert len(rcv.got) == 1, rcv.got
    path, headers, body = rcv.got[0]
    name = path.rsplit("/", 1)[-1]
    m = NAME_RE.match(name)
    assert path.startswith("/r/") and m and m.group(5) == "final" and m.group(3) == "525400aabb0c", path
    assert headers["Authorization"] == "Bearer " + TOKEN and headers["X-Baremark-Stage"] == "final", headers
    lines = [json.loads(l) for l in body.decode().splitlines()]
    assert [l["type"] for l in lines if l["type"] != "note"] == ["run", "error", "end"], lines
    assert lines[0]["run_id"] == m.group(4) == headers["X-Baremark-Run-Id"], (lines[0], headers)
    assert lines[0]["mac"] == "52:54:00:aa:bb:0c" and lines[0]["ip"] == "10.99.0.177", lines[0]
    assert lines[-1]["status"] == "error" and lines[-1]["note"] == "bad options: nothing was run", lines[-1]
    assert [r["ok"] for r in recs if r["type"] == "upload"] == [True], recs
    assert TOKEN.encode() not in out + err + body


@marks.host
def test_two_placeholder_serial_machines_in_the_same_second_upload_under_two_names():
    # The host build's SMBIOS is the same for both: one serial, one UUID; no
    # MAC either. Started together, they share the clock's second too.
    rcv = _Receiver()
    try:
        vol = qemu.tempdir("baremark-hostvol-")
        os.makedirs(os.path.join(vol, "baremark"))
        with open(os.path.join(vol, "baremark", "baremark.cfg"), "w") as f:
            f.write("upload=http://127.0.0.1:%d/r\nupload_token=%s\nmem=off\ndisk=off\n" % (rcv.port, TOKEN))
        procs = [_host_run(vol, ["out=off"], mac="") for _ in range(2)]
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        rcv.close()
    assert [p.returncode for p in procs] == [0, 0], outs
    names = sorted(path.rsplit("/", 1)[-1] for path, _, _ in rcv.got)
    assert len(names) == 4 and len(set(names)) == 4, names       # started + final each
    parsed = [NAME_RE.match(n) for n in names]
    assert all(parsed) and {m.group(3) for m in parsed} == {"nomac"}, names
    assert len({m.group(2) for m in parsed}) == 1, names            # the same serial
    assert len({m.group(4) for m in parsed}) == 2, names            # two run ids
    assert all(h["Authorization"] == "Bearer " + TOKEN for _, h, _ in rcv.got)
