"""The report pages as a person sees them: headless Chromium renders each
page at 1024 px to a DOM dump, a PNG and a PDF, and the checks read those.

The page itself has no script. To measure layout (does anything stick out
of a 1024-px window?) a copy of the page gets a small script appended that
writes the widest element's right edge into the DOM Chromium dumps; the
DOM it dumps is otherwise the page as written (the probe's own script is
left out of the checks).
"""
import html.parser
import os
import re
import shutil
import subprocess
import tempfile

CHROMIUM = "/usr/bin/chromium"
WIDTH = 1024
MEASURE = ("<script>addEventListener('load',function(){var w=0,n='';"
           "document.querySelectorAll('body *').forEach(function(e){var r=e.getBoundingClientRect();"
           "if(r.right>w){w=r.right;n=e.tagName+'.'+e.className;}});"
           "var m=document.createElement('pre');m.id='bm-measure';"
           "m.textContent=JSON.stringify({right:w,widest:n,scroll:document.documentElement.scrollWidth,"
           "height:document.documentElement.scrollHeight});document.body.appendChild(m);});</script>")


def chromium(args, timeout=120):
    """Run headless Chromium with a throwaway profile; its stdout."""
    profile = tempfile.mkdtemp(prefix="bm-chromium-")
    try:
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               "--disable-extensions", "--user-data-dir=" + profile] + args
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Dom(html.parser.HTMLParser):
    """The parts of a dumped DOM the checks count: charts and their points,
    elements by id and class, links, anything that would fetch."""

    def __init__(self, text):
        super().__init__()
        self.charts = []         # [{kind, points (attribute), pts (counted), width, series}]
        self.ids = set()
        self.classes = {}
        self.links = []
        self.fetching = []
        self._chart = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for c in (a.get("class") or "").split():
            self.classes[c] = self.classes.get(c, 0) + 1
        if tag == "svg" and "chart" in (a.get("class") or "").split():
            self._chart = {"kind": a.get("data-chart"), "points": int(a.get("data-points", -1)), "pts": 0,
                           "width": float(a.get("width", 0)), "series": []}
            self.charts.append(self._chart)
        if self._chart is not None:
            if "pt" in (a.get("class") or "").split() and not self._in_key:
                self._chart["pts"] += 1
            if tag == "g" and a.get("class") == "series":
                self._chart["series"].append((a.get("data-name"), int(a.get("data-points", 0))))
        if tag == "g" and a.get("class") == "key":
            self._in_key = True
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        for k in ("src", "srcset", "poster", "data"):
            if k in a:
                self.fetching.append("%s %s=%s" % (tag, k, a[k]))
        if tag in ("script", "link", "iframe", "object", "embed", "img", "base") and not a.get("data-bm-measure"):
            self.fetching.append(tag)

    _in_key = False

    def handle_endtag(self, tag):
        if tag == "svg":
            self._chart = None
        if tag == "g":
            self._in_key = False

    def charts_of(self, kind):
        return [c for c in self.charts if c["kind"] == kind]


def self_contained(text):
    """Nothing in the page text that a browser would fetch or run."""
    problems = []
    stripped = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    for pat in (r"https?:", r"<script", r"<link", r"<img", r"<iframe", r"\bsrc\s*=", r"@import",
                r"url\((?!#)", r"href\s*=\s*\"//", r"href\s*=\s*\"[a-z]+:"):
        if re.search(pat, stripped, re.I):
            problems.append(pat)
    return problems


def render(page, out_dir, name, pdf=False, screenshot_height=None, shot_css=None):
    """DOM of the page as written, layout measure at 1024 px, a PNG (and PDF).
    shot_css (e.g. "#machine{display:none}") brings a part of the page into
    the screenshot's first 1100 px. Returns (Dom, measure, png path, pdf path or None)."""
    import json
    with open(page, encoding="utf-8") as f:
        text = f.read()
    url = "file://" + os.path.abspath(page)
    probe = os.path.join(os.path.dirname(os.path.abspath(page)), ".measure-" + os.path.basename(page))
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", MEASURE.replace("<script>", "<script data-bm-measure=\"1\">") + "</body>"))
    try:
        out = chromium(["--window-size=%d,800" % WIDTH, "--dump-dom", "file://" + probe])
    finally:
        os.unlink(probe)
    dom = Dom(out)
    m = re.search(r'<pre id="bm-measure">(.*?)</pre>', out, re.S)
    measure = json.loads(html.unescape(m.group(1))) if m else None
    png = os.path.join(out_dir, name + ".png")
    # The top of the page (small enough for docs/img, under 200 KB).
    height = screenshot_height or min(int(measure["height"]) if measure else 1100, 1100)
    shot_url = url
    if shot_css:
        shot = os.path.join(out_dir, name + ".shot.html")
        with open(shot, "w", encoding="utf-8") as f:
            f.write(text.replace("</head>", "<style>%s</style></head>" % shot_css, 1))
        shot_url = "file://" + os.path.abspath(shot)
    chromium(["--window-size=%d,%d" % (WIDTH, height), "--screenshot=" + png, shot_url])
    if shot_css:
        os.unlink(shot)
    pdf_path = None
    if pdf:
        pdf_path = os.path.join(out_dir, name + ".pdf")
        chromium(["--no-pdf-header-footer", "--print-to-pdf=" + pdf_path, url])
    return dom, measure, png, pdf_path


def check_page(page, out_dir, name, pdf=False, shot_css=None):
    """The checks every page passes; returns (Dom, page text)."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>"), page
    assert not self_contained(text), (page, self_contained(text))
    dom, measure, png, pdf_path = render(page, out_dir, name, pdf, shot_css=shot_css)
    assert not dom.fetching, (page, dom.fetching)
    assert measure, "the layout probe did not run"
    assert measure["scroll"] <= WIDTH and measure["right"] <= WIDTH, (page, measure)
    for c in dom.charts:
        assert c["width"] <= WIDTH, c
        assert c["pts"] == c["points"], c  # the chart says how many points it drew, and drew them
    assert os.path.getsize(png) > 5000, png
    if pdf:
        with open(pdf_path, "rb") as f:
            data = f.read()
        assert data.startswith(b"%PDF") and len(data) > 10000, pdf_path
        # A4: 595 x 842 points
        assert re.search(rb"/MediaBox\s*\[\s*0 0 59[45](\.\d+)? 84[12](\.\d+)?\s*\]", data), "PDF is not A4"
    return dom, text
