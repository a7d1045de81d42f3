"""--html: the fleet page and one page per machine, self-contained (inline
CSS and SVG, no script, nothing fetched; links between the pages are
relative).

The fleet page (OUT.html) shows the flags first, then one row per machine
with its headline figures against the fleet median (outliers marked in
bold with a frame, not only in colour), and links each machine to its own
page in OUT-machines/NAME.html. Machine pages are drawn by the same C
renderer baremark runs at the end of a run (build/host/baremark-html,
built by `make host`): the tool writes the machine's records as a .jsonl
and hands it over.
"""
import html
import json
import os
import re
import subprocess
import tempfile
from . import findings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RENDERER_HELP = "build it with `make host` in the baremark tree (or set BAREMARK_HTML to its path)"

CSS = (
    "body{font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;padding:8px 16px;"
    "max-width:960px}h1{font-size:22px}h2{font-size:18px;border-bottom:2px solid #333;margin:22px 0 8px}"
    "table{border-collapse:collapse;margin:6px 0;max-width:100%}"
    "td,th{border:1px solid #999;padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}"
    "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".outlier{font-weight:bold;background:#fde8e8;outline:2px solid #b22222}.muted{color:#555}"
    "td.name{white-space:nowrap}.banner{border:3px double #b22222;padding:6px 10px;font-weight:bold}"
    "@media print{@page{size:A4;margin:12mm}body{max-width:none;padding:0;font-size:11px}"
    "table{break-inside:avoid}}"
)


def renderer_path():
    """The C renderer: $BAREMARK_HTML, else build/host/baremark-html of this tree."""
    env = os.environ.get("BAREMARK_HTML")
    if env:
        return env
    build = os.environ.get("BAREMARK_BUILD", "build")
    return os.path.join(ROOT, build, "host", "baremark-html")


def _e(value):
    return html.escape("" if value is None else str(value), quote=True)


def _fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        a = abs(v)
        if a != a or a == float("inf"):  # int() below raises on NaN and infinity
            return ""
        return "%.0f" % v if a >= 100 or v == int(v) else "%.1f" % v if a >= 10 else "%.2f" % v
    return str(v)


def _file_name(label, used):
    """A file name for a machine page: safe characters, unique."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", label)[:80].strip(".") or "machine"
    name, n = base, 1
    while name.lower() in used:
        n += 1
        name = "%s-%d" % (base, n)
    used.add(name.lower())
    return name + ".html"


def write_machine_pages(runs, out_path, err):
    """One page per run; returns {run label: relative link} (empty when the renderer is missing)."""
    tool = renderer_path()
    if not os.access(tool, os.X_OK):
        err.write("baremark-report: --html: no machine pages: %s is missing; %s\n" % (tool, RENDERER_HELP))
        return {}
    folder = os.path.splitext(out_path)[0] + "-machines"
    os.makedirs(folder, exist_ok=True)
    links, used = {}, set()
    for run in runs:
        name = _file_name(run.label, used)
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as tmp:
            for rec in run.records:
                tmp.write(json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n")
        try:
            p = subprocess.run([tool, tmp.name, os.path.join(folder, name)], capture_output=True, text=True)
        finally:
            os.unlink(tmp.name)
        if p.returncode == 0:
            links[run.label] = os.path.basename(folder) + "/" + name
        else:
            err.write("baremark-report: --html: %s: %s" % (run.label, p.stderr))
    return links


# Headline figures: (column title, table, row filter, value field, ratio field, is an outlier).
def _headlines(shown, limits):
    cols = []
    disk_rows = [r for r in shown["disk_results"] if r.get("disk") != "all"]
    seen = list(dict.fromkeys((r.get("test"), r.get("rw")) for r in disk_rows))  # in order of first sight
    preferred = [k for k in seen if k[0] in ("SEQ1M-Q8T1", "RND4K-Q32T1")] or seen[:2]
    for test, rw in preferred[:3]:
        rows = [r for r in disk_rows if (r.get("test"), r.get("rw")) == (test, rw)]
        cols.append(("%s %s MB/s" % (test, rw), rows, "mbps", "mbps_vs_median",
                     lambda x: x is not None and x < limits.disk_ratio))
        cols.append(("%s %s p99 \u00b5s" % (test, rw), rows, "lat_p99_us", "p99_vs_median",
                     lambda x: x is not None and x > limits.lat_ratio))
    lat = [r for r in shown["mem_latency"] if r.get("pattern") == "full_random" and not r.get("extra")]
    if lat:
        biggest = max(r.get("bytes") or 0 for r in lat)
        cols.append(("memory latency full_random %d MiB, ns" % (biggest // (1 << 20)),
                     [r for r in lat if r.get("bytes") == biggest], "ns", "ns_vs_median",
                     lambda x: x is not None and abs(x - 1) > limits.mem_tolerance))
    bw = [r for r in shown["mem_bandwidth"] if r.get("op") == "read" and not r.get("extra")]
    if bw:
        cols.append(("memory read GB/s, all CPUs", [r for r in bw if r.get("threads") and r["threads"] > 1], "gbps",
                     "gbps_vs_median", lambda x: x is not None and abs(x - 1) > limits.mem_tolerance))
    return cols


def _ratio_bar(ratio):
    """A small bar: the machine's value over the median (the tick at 1x, the bar up to 2x)."""
    if ratio is None:
        return ""
    w = max(0.0, min(2.0, ratio)) * 40
    return ('<svg class="ratio" width="84" height="12" viewBox="0 0 84 12"><rect x="2" y="3" width="%.1f" '
            'height="6" fill="#555"/><line x1="42" x2="42" y1="0" y2="12" stroke="#b22222" stroke-width="2"/>'
            '</svg>' % w)


def _by_machine(rows, value_key):
    """The rows holding value_key, per machine, in one pass: each machine's cell then reads only its own
    rows (scanning every row for every machine made the page quadratic in the fleet)."""
    out = {}
    for r in rows:
        if r.get(value_key) is not None:
            out.setdefault(r.get("machine"), []).append(r)
    return out


def _headline_cell(rows_of, machine, value_key, ratio_key, is_out):
    """The machine's figure (its worst disk when it has several) with its ratio to the median."""
    mine = rows_of.get(machine, ())
    if not mine:
        return '<td class="muted">-</td>'
    pick = mine[0]
    for r in mine:
        if is_out(r.get(ratio_key)):
            pick = r
    ratio = pick.get(ratio_key)
    cls = "n outlier" if is_out(ratio) else "n"
    who = " (%s)" % _e(pick["disk"]) if len(mine) > 1 and "disk" in pick else ""
    rtxt = " <span class=\"muted\">%.2f&times;</span>" % ratio if ratio is not None else ""
    return '<td class="%s" data-ratio="%s">%s%s%s %s</td>' % (cls, "" if ratio is None else "%.3f" % ratio,
                                                            _e(_fmt(pick[value_key])), who, rtxt, _ratio_bar(ratio))


def fleet_page(shown, flags, limits, links, runs=()):
    """The fleet page's HTML text."""
    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
           'content="width=device-width,initial-scale=1"><title>baremark fleet report</title><style>%s</style>'
           '</head>\n<body>\n<h1>baremark fleet report</h1>' % CSS]
    machines = shown["machines"]
    out.append("<p>%d machines, %d flags. Each figure is compared with the median of its peers (ratio shown; the "
               "bar's tick is the median). Marked cells are outliers by the rules of baremark-report --help.</p>"
               % (len(machines), len(flags)))
    out.append(findings.render_html(shown.get("findings", []), runs))
    out.append('<section id="flags"><h2>Flags (%d)</h2>' % len(flags))
    if flags:
        out.append('<table id="flags-table"><tr><th>machine</th><th>kind</th><th>what</th><th>value</th>'
                   '<th>compared with</th><th>rule</th></tr>')
        for f in flags:
            link = links.get(f.machine)
            name = '<a href="%s">%s</a>' % (_e(link), _e(f.machine)) if link else _e(f.machine)
            out.append('<tr class="flag"><td>%s</td><td>%s</td><td>%s</td><td class="outlier">%s</td><td>%s</td>'
                       '<td>%s</td></tr>' % (name, _e(f.kind), _e(f.what), _e(f.value), _e(f.reference), _e(f.rule)))
        out.append("</table>")
    else:
        out.append("<p>No flags: every machine is within the limits of its peers.</p>")
    out.append("</section>")
    cols = [(title, _by_machine(rows, vk), vk, rk, isout) for title, rows, vk, rk, isout in _headlines(shown, limits)]
    out.append('<section id="machines"><h2>Machines against the fleet median</h2><table id="headlines"><tr>'
               '<th>machine</th><th>status</th>')
    out.extend("<th>%s</th>" % _e(c[0]) for c in cols)
    out.append("</tr>")
    for m in machines:
        label = m["machine"]
        link = links.get(label)
        name = '<a class="machine-link" href="%s">%s</a>' % (_e(link), _e(label)) if link else _e(label)
        status = m.get("status") or ""
        out.append('<tr class="machine"><td class="name">%s<br><span class="muted">%s</span></td><td class="%s">%s</td>'
                   % (name, _e(m.get("product")), "" if status == "ok" else "outlier", _e(status)))
        out.extend(_headline_cell(rows, label, vk, rk, isout) for _, rows, vk, rk, isout in cols)
        out.append("</tr>")
    out.append("</table></section>")
    if not links and machines:
        out.append('<p class="banner">The machine pages were not written: %s.</p>' % _e(RENDERER_HELP))
    out.append('<footer><p class="muted">Written by baremark-report from the records it was given; those '
               'files are the source of truth.</p></footer>\n</body></html>\n')
    return "".join(out)


def write_fleet_html(path, runs, shown, flags, limits, err):
    """OUT.html and OUT-machines/*.html; returns 0, or 2 when OUT.html cannot be written."""
    links = write_machine_pages(runs, path, err) if runs else {}
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(fleet_page(shown, flags, limits, links, runs))
    except OSError as e:
        err.write("baremark-report: --html %s: %s\n" % (path, e.strerror or e))
        return 2
    return 0
