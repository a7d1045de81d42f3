"""The HTML report as a person sees it: pages rendered by headless Chromium
at 1024 px (DOM, PNG, A4 PDF) for a QEMU run (the page baremark wrote on
the stick), a burn-in run with failures and a run cut short (fixtures
rendered by build/host/baremark-html), and the fleet page of
tools/baremark-report --html. PNGs land in build/report-shots/ (the README's
screenshots in docs/img/ are copies of them).

One QEMU boot; the rest is host-only.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import qemu
import report_view
import marks
import testutil

ROOT = qemu.ROOT
BUILD = qemu.BUILD
SHOTS = os.path.join(BUILD, "report-shots")
TOOL = os.path.join(BUILD, "host", "baremark-html")
DATA = os.path.join(ROOT, "tests", "unit", "data")
FLEET = os.path.join(ROOT, "tests", "tools", "data")


def _shots():
    os.makedirs(SHOTS, exist_ok=True)
    return SHOTS


def _render_fixture(jsonl, name):
    out = os.path.join(_shots(), name + ".html")
    p = subprocess.run([TOOL, jsonl, out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return out, p.stderr


def test_report_written_on_the_stick_by_a_qemu_run():
    """test_disk_engine's switch configuration (two NVMe disks sharing one
    uplink) plus a small memory run, one boot for both tests
    (testutil.switch_run): the page is on the stick next to the .jsonl,
    and the serial log says how long it took to write."""
    run = testutil.switch_run()[0]
    assert not run.timed_out and run.of_type("end"), run.serial[-3000:]
    names = run.results_files()
    jsonl = [n for n in names if n.endswith(".jsonl")]
    assert len(jsonl) == 1, names
    page_name = jsonl[0][:-len(".jsonl")] + ".html"
    assert page_name in names, names
    text = run.read_file("::/baremark/results/" + page_name)
    m = re.search(r"report \\baremark\\results\\%s \(end of run\): (\d+) bytes in ([\d.]+) ms" % re.escape(page_name),
                  run.serial)
    assert m, "no report line on the console/serial"
    assert int(m.group(1)) == len(text.encode()), (m.group(0), len(text.encode()))
    with open(os.path.join(_shots(), "qemu-run.jsonl"), "w", encoding="utf-8") as f:
        f.write(run.read_file("::/baremark/results/" + jsonl[0]))
    page = os.path.join(_shots(), "qemu-run.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(_shots(), "qemu-run.timing"), "w") as f:
        f.write("%s bytes %s ms\n" % (m.group(1), m.group(2)))
    dom, _ = report_view.check_page(page, SHOTS, "qemu-run", pdf=True,
                                        shot_css="#machine,#messages,.cdm{display:none}")
    recs = run.records
    disks = [r for r in recs if r["type"] == "disk" and r["serial"].startswith("NVME")]
    assert {"machine", "pci", "disks", "memory", "all-disks"} <= dom.ids, dom.ids
    for d in disks:
        assert "disk-" + d["id"] in dom.ids
    lat = dom.charts_of("mem-latency")
    assert len(lat) == 1 and lat[0]["pts"] == len(run.of_type("mem_latency")), lat
    bw = dom.charts_of("mem-bandwidth")
    assert len(bw) == 1 and bw[0]["pts"] == len(run.of_type("mem_bandwidth")), bw
    assert len(dom.charts_of("latency-percentiles")) == len(disks)
    scaling = dom.charts_of("scaling")
    alls = [r for r in run.of_type("disk_result") if r["disk"] == "all"]
    assert len(scaling) == 1 and scaling[0]["pts"] == len(alls), (scaling, alls)
    if any(r.get("link") for r in alls):
        assert dom.classes.get("hmark") == 1, "the shared link's ceiling is drawn"
    assert dom.classes.get("vmark", 0) >= 1, "the cache sizes are marked"


@marks.host
def test_burnin_with_failures_shows_errors_verdicts_and_pass_statistics():
    jsonl = os.path.join(DATA, "report_burnin_fail.jsonl")
    recs = [json.loads(l) for l in open(jsonl)]
    page, _ = _render_fixture(jsonl, "burnin-fail")
    dom, text = report_view.check_page(page, SHOTS, "burnin-fail", pdf=True,
                                           shot_css="#machine,#disks,#all-disks,#memory{display:none}")
    assert {"messages", "burnin", "verdicts", "burnin-stats", "dimms"} <= dom.ids, dom.ids
    # Errors first, where nobody can miss them.
    assert text.index('id="messages"') < text.index('id="machine"')
    assert dom.classes.get("error") == sum(1 for r in recs if r["type"] == "error")
    verdicts = [r for r in recs if r["type"] == "verdict"]
    assert dom.classes.get("verdict") == len(verdicts)
    assert text.count('<tr class="verdict fail">') == sum(1 for v in verdicts if v["result"] == "fail") > 0
    stats = recs[-1]["tests"]
    assert dom.classes.get("range") == len(stats)
    summary = [r for r in recs if r["type"] == "dimm_summary"][-1]
    assert dom.classes.get("dimm-warning") == len(summary["warnings"]) > 0


@marks.host
def test_run_cut_short_still_renders_a_valid_page():
    src = os.path.join(DATA, "report_full.jsonl")
    data = open(src, "rb").read()
    cut = os.path.join(_shots(), "cut-short.jsonl")
    with open(cut, "wb") as f:
        f.write(data[: int(len(data) * 0.6)])  # mid-line, as a reset leaves it
    page, log = _render_fixture(cut, "cut-short")
    assert "1 unreadable lines skipped" in log, log
    dom, text = report_view.check_page(page, SHOTS, "cut-short", shot_css="#machine{display:none}")
    assert "unfinished" in dom.ids and "status" not in dom.ids
    assert "(1 unreadable lines skipped)" in text
    lines = [json.loads(l) for l in data[: int(len(data) * 0.6)].decode().splitlines()[:-1]]
    lat = dom.charts_of("mem-latency")
    assert lat and lat[0]["pts"] == sum(1 for r in lines if r["type"] == "mem_latency")


@marks.host
def test_fleet_page_and_machine_pages():
    out_dir = os.path.join(_shots(), "fleet")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    out = os.path.join(out_dir, "fleet.html")
    inputs = [os.path.join(FLEET, n) for n in ("node01.log", "node01.jsonl", "node02.log", "node03.log", "rack-b.log")]
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "baremark-report"), "-q", "--tag", r"(\S+): *$",
                        "--html", out] + inputs, capture_output=True, text=True, env=dict(os.environ, BAREMARK_HTML=TOOL))
    assert p.returncode == 1, p.stderr  # the fixtures hold flags
    dom, text = report_view.check_page(out, SHOTS, "fleet", pdf=True)
    assert dom.classes.get("machine") == 5 and dom.classes.get("flag") == 7, dom.classes
    for name in ("RX2-0002", "RX2-0003", "RX2-0004"):
        assert re.search(r'<tr class="flag"><td><a href="fleet-machines/%s.html">' % name, text), name
    # RX2-0004's slow disk stands out against the median.
    row = re.search(r'<tr class="machine">.*?RX2-0004.*?</tr>', text).group(0)
    assert 'class="n outlier"' in row
    links = [l for l in dom.links if "fleet-machines/" in l]
    assert len(set(links)) == 5, links
    for link in sorted(set(links)):
        assert not link.startswith(("/", "http")) and ".." not in link, link
        assert os.path.exists(os.path.join(out_dir, link)), link
    mdom, _ = report_view.check_page(os.path.join(out_dir, "fleet-machines", "RX2-0003.html"), SHOTS, "fleet-machine")
    assert mdom.classes.get("dimm-warning", 0) >= 1 and "dimms" in mdom.ids
