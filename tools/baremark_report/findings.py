"""The findings of a fleet: which machines share each finding.

A run's `finding` records (baremark's own conclusions, each with its
evidence: see the records docs) are counted per finding type across the
compared runs, so a reader sees "shared_ceiling: 12 machines" before any
table, and which machines they are. Nothing here draws a conclusion of its
own: a machine without finding records (an older baremark, a run cut off
before its end) simply has none, and the summary says how many runs had
no findings section at all.

Kept in a module of its own with two hooks (summary_rows, render_text /
render_html) so the report's other parts can change around it.
"""
import html as _html

from .fleet import text


def _machine_findings(run):
    """(type, severity, sentence) of each finding record of one run, deduplicated."""
    seen, out = set(), []
    for rec in run.of_type("finding"):
        kind = text(rec.get("finding")).strip()
        if not kind:
            continue
        sev = "warn" if text(rec.get("severity")) == "warn" else "info"
        sentence = text(rec.get("text")).strip()
        if (kind, sentence) in seen:
            continue
        seen.add((kind, sentence))
        out.append((kind, sev, sentence))
    return out


def summary_rows(runs):
    """One row per finding type: how many machines share it, which, the worst
    severity, one example sentence; warnings first, then by machine count."""
    by_kind = {}
    for run in runs:
        for kind, sev, sentence in _machine_findings(run):
            row = by_kind.setdefault(kind, {"finding": kind, "severity": "info", "machines": [],
                                            "example": sentence})
            if sev == "warn":
                row["severity"] = "warn"
            if run.label not in row["machines"]:
                row["machines"].append(run.label)
    rows = []
    for row in by_kind.values():
        rows.append({"finding": row["finding"], "severity": row["severity"], "count": len(row["machines"]),
                     "machines": sorted(row["machines"]), "example": row["example"]})
    rows.sort(key=lambda r: (r["severity"] != "warn", -r["count"], r["finding"]))
    return rows


def without_findings(runs):
    """Labels of the compared runs that carry no end record (their findings, written just
    before it, may be missing)."""
    return sorted(run.label for run in runs if not run.of_type("end"))


def render_text(rows, runs):
    """The findings block of the text report."""
    lines = ["FINDINGS: %d kind%s over %d machine%s" % (len(rows), "" if len(rows) == 1 else "s", len(runs),
                                                       "" if len(runs) == 1 else "s")]
    for r in rows:
        lines.append("  %-4s %-20s %d machine%s: %s" % (r["severity"], r["finding"], r["count"],
                                                       "" if r["count"] == 1 else "s", ", ".join(r["machines"])))
        lines.append("       e.g. %s" % r["example"])
    cut = without_findings(runs)
    if cut:
        lines.append("  (no end record, findings may be missing: %s)" % ", ".join(cut))
    return "\n".join(lines) + "\n"


def render_html(rows, runs):
    """The findings section of the fleet page."""
    e = _html.escape
    out = ['<section id="findings"><h2>Findings (%d)</h2>' % len(rows)]
    if rows:
        out.append('<table id="findings-table"><tr><th>finding</th><th>severity</th><th>machines</th>'
                   '<th>which</th><th>example</th></tr>')
        for r in rows:
            out.append('<tr class="finding %s"><td>%s</td><td>%s</td><td class="n">%d</td><td>%s</td><td>%s</td></tr>'
                       % (e(r["severity"]), e(r["finding"]), e(r["severity"]), r["count"],
                          e(", ".join(r["machines"])), e(r["example"])))
        out.append("</table>")
    else:
        out.append("<p>No machine's records carry a finding.</p>")
    cut = without_findings(runs)
    if cut:
        out.append('<p class="muted">No end record, findings may be missing: %s.</p>' % e(", ".join(cut)))
    out.append("</section>")
    return "".join(out)
