"""Tables: rows -> aligned text, CSV and JSON.

A table is a name, a title and columns; each column names a row field, its
header and how text output shows it. CSV and JSON carry the raw values (full
precision, every column, header-only when empty) so scripts get a stable
shape; text output rounds, and leaves out columns empty in every row.
"""
import csv
import io
import json
import tempfile

from .outliers import size_name


def _num(fmt):
    """A formatter for numbers: the printf format, '' for missing values."""
    return lambda v: "" if v is None else fmt % v


def _pct(v):
    return "" if v is None else "%.0f%%" % (v * 100)


def _plain(v):
    if v.__class__ is str:
        return v
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and v.is_integer():
        return "%d" % v
    if isinstance(v, float):
        return "%.3g" % v if abs(v) < 10 else "%.1f" % v
    if isinstance(v, list):
        return "; ".join(_plain(x) for x in v)
    return str(v)


def _hex(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return "%04x" % v
    return _plain(v)


def _size(v):
    return size_name(v) if v is not None else ""


def _path(v):
    return " < ".join(v) if isinstance(v, list) else _plain(v)


# name, title, [(field, header, formatter)], sort key
SPECS = {
    "files": ("Input files", [
        ("file", "file", _plain), ("format", "format", _plain), ("lines", "lines", _plain),
        ("records", "records", _plain), ("bad", "bad", _plain), ("runs", "runs", _plain)], None),
    "machines": ("Machines (one run each; the last run unless --all-runs)", [
        ("machine", "machine", _plain), ("named_by", "named by", _plain), ("source", "source", _plain),
        ("product", "product", _plain), ("cpu", "cpu", _plain), ("cpus", "cpus", _plain),
        ("version", "version", _plain), ("time", "run time", _plain), ("runs_seen", "runs", _plain),
        ("records", "records", _plain), ("passes", "passes", _plain), ("status", "status", _plain),
        ("errors", "errors", _plain)], None),
    "disks": ("Disks", [
        ("machine", "machine", _plain), ("disk", "disk", _plain), ("driver", "driver", _plain),
        ("model", "model", _plain), ("serial", "serial", _plain), ("firmware", "firmware", _plain),
        ("lba_bytes", "lba", _plain), ("blocks", "blocks", _plain), ("pci", "pci", _plain),
        ("link_gbps", "link Gb/s", _plain)], None),
    "disk_results": ("Disk results (vs median: of the same test on peer disks)", [
        ("machine", "machine", _plain), ("disk", "disk", _plain), ("model", "model", _plain),
        ("serial", "serial", _plain), ("test", "test", _plain), ("rw", "rw", _plain), ("bs", "bs", _plain),
        ("qd", "qd", _plain), ("pass", "pass", _plain), ("passes", "passes", _plain),
        ("mbps", "MB/s", _num("%.1f")), ("mbps_vs_median", "vs median", _pct), ("iops", "IOPS", _num("%.0f")),
        ("lat_mean_us", "mean us", _plain), ("lat_p50_us", "p50 us", _plain), ("lat_p99_us", "p99 us", _plain),
        ("p99_vs_median", "p99 vs median", _pct), ("lat_p999_us", "p99.9 us", _plain),
        ("lat_max_us", "max us", _plain)],
        lambda r: (r["test"], r["rw"], r["bs"] or 0, r["qd"] or 0, r["machine"], r["disk"], r.get("pass") or 0)),
    "mem_latency": ("Memory latency (vs median: of the same size and pattern)", [
        ("machine", "machine", _plain), ("cpu", "cpu", _plain), ("bytes", "size", _size),
        ("pattern", "pattern", _plain), ("extra", "where", _plain), ("pass", "pass", _plain),
        ("passes", "passes", _plain), ("ns", "ns", _num("%.1f")), ("ns_vs_median", "vs median", _pct)],
        lambda r: (r["pattern"], r["bytes"] or 0, r["extra"], r["machine"], r.get("pass") or 0)),
    "mem_bandwidth": ("Memory bandwidth (vs median: of the same op and threads)", [
        ("machine", "machine", _plain), ("cpu", "cpu", _plain), ("op", "op", _plain),
        ("threads", "threads", _plain), ("extra", "where", _plain), ("pass", "pass", _plain),
        ("passes", "passes", _plain), ("bytes", "buffer", _size), ("gbps", "GB/s", _num("%.2f")),
        ("gbps_vs_median", "vs median", _pct)],
        lambda r: (r["op"], r["threads"] or 0, r["extra"], r["machine"], r.get("pass") or 0)),
    "pci": ("PCIe links (fleet best: the fastest/widest the same function runs elsewhere)", [
        ("machine", "machine", _plain), ("bdf", "bdf", _plain), ("vendor", "vendor", _hex),
        ("device", "device", _hex), ("class", "class", _hex), ("speed_gts", "GT/s", _plain),
        ("width", "width", _plain), ("max_speed_gts", "max GT/s", _plain), ("max_width", "max width", _plain),
        ("downtrained", "downtrained", _plain), ("fleet_speed_gts", "fleet GT/s", _plain),
        ("fleet_width", "fleet width", _plain), ("path", "path", _path)],
        lambda r: (r["bdf"], r["machine"])),
    "dimms": ("DIMM slots (populated on: machines with the slot populated / reporting it)", [
        ("machine", "machine", _plain), ("bank", "bank", _plain), ("locator", "locator", _plain),
        ("size_mb", "MB", _plain), ("populated_on", "populated on", _plain), ("mem_type", "type", _plain),
        ("speed_mts", "MT/s", _plain), ("configured_mts", "conf MT/s", _plain), ("ranks", "ranks", _plain),
        ("manufacturer", "manufacturer", _plain), ("part", "part", _plain), ("serial", "serial", _plain)],
        lambda r: (r["bank"], r["locator"], r["machine"])),
    "dimm_summary": ("DIMM population", [
        ("machine", "machine", _plain), ("populated", "populated", _plain), ("slots", "slots", _plain),
        ("total_mb", "total MB", _plain), ("warnings", "warnings", _plain)], None),
    "errors": ("Error records", [
        ("machine", "machine", _plain), ("pass", "pass", _plain), ("where", "where", _plain),
        ("message", "message", _plain)], None),
    "expected": ("Expected machines (--expected; --db only)", [
        ("entry", "expected", _plain), ("kind", "by", _plain), ("status", "status", _plain),
        ("machine", "machine", _plain), ("mac", "mac", _plain), ("serial", "serial", _plain),
        ("last_seen", "last upload", _plain), ("runs", "runs", _plain), ("records", "records", _plain),
        ("passes", "passes", _plain), ("detail", "detail", _plain)], None),
    "flags": ("Flags", [
        ("machine", "machine", _plain), ("kind", "kind", _plain), ("what", "what", _plain),
        ("value", "value", _plain), ("reference", "reference", _plain), ("rule", "rule", _plain),
        ("value_num", "value_num", _plain), ("reference_num", "reference_num", _plain)], None),
}

# The order tables appear in; every name is a valid --tables entry.
ORDER = ["files", "machines", "disks", "disk_results", "mem_latency", "mem_bandwidth", "pci", "dimms",
         "dimm_summary", "errors", "flags"]


# Tables only the store can fill (--db), valid --tables entries there.
DB_ONLY = ["expected"]


def sorted_rows(name, rows):
    """The rows in the order the table shows them."""
    key = SPECS[name][2]
    if key is None:
        return list(rows)
    return sorted(rows, key=lambda r: tuple("" if x is None else x for x in key(r)))


def render_text(name, rows):
    """An aligned text table with its title; columns empty in every row are left out."""
    rows = sorted_rows(name, rows)
    return "\n".join(render_text_lines(name, lambda: rows)) + "\n"


def render_text_lines(name, rows_factory):
    """The lines of an aligned text table over rows already in display order.
    The rows are read once: their cells go to a temporary file while the
    widths are measured, and the lines are drawn from it, so the rows can come
    from a query and are never held all at once."""
    title, columns, _ = SPECS[name]
    n = len(columns)
    widths = [len(h) for _, h, _ in columns]
    filled = [False] * n
    numeric = [True] * n
    beyond_one = [False] * n  # a passes column worth showing: some value other than 1
    spool = tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogatepass")
    fields = [(i, f, fmt) for i, (f, _, fmt) in enumerate(columns)]
    dump = json.JSONEncoder(ensure_ascii=False).encode
    for r in rows_factory():
        cells = []
        for i, f, fmt in fields:
            c = fmt(r.get(f))
            cells.append(c)
            if c:
                filled[i] = True
                if len(c) > widths[i]:
                    widths[i] = len(c)
                if c != "1":
                    beyond_one[i] = True
            if numeric[i] and not _looks_numeric(c):
                numeric[i] = False
        spool.write(dump(cells))
        spool.write("\n")
    spool.seek(0)
    keep = [i for i in range(n) if filled[i]]
    if name == "disk_results" or name.startswith("mem_"):
        keep = [i for i in keep if columns[i][0] != "passes" or beyond_one[i]]

    def line(values):
        out = [v.rjust(widths[i]) if numeric[i] else v.ljust(widths[i]) for v, i in zip(values, keep)]
        return "  ".join(out).rstrip()

    yield "== %s ==" % title
    yield line([columns[i][1] for i in keep])
    with spool:
        for text in spool:
            cells = json.loads(text)
            yield line([cells[i] for i in keep])


def _looks_numeric(s):
    """True for cells that read as numbers (right-aligned): 12, 3.5, 98%, 4 KiB."""
    if s == "":
        return True
    t = s.rstrip("%").replace(" KiB", "").replace(" MiB", "").replace(" GiB", "").replace(" B", "")
    try:
        float(t)
        return True
    except ValueError:
        return False


def _raw(v):
    """A value as CSV text: full precision, lists joined by '; ', booleans as true/false."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return "%d" % v
    if isinstance(v, list):
        return "; ".join(_raw(x) for x in v)
    return str(v)


def csv_text(name, rows):
    """The table as CSV: a header line with the field names, then one line per row."""
    columns = SPECS[name][1]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([f for f, _, _ in columns])
    for r in sorted_rows(name, rows):
        w.writerow([_raw(r.get(f)) for f, _, _ in columns])
    return buf.getvalue()


def csv_stream(name, rows, out):
    """CSV of rows already in display order, written as they come."""
    columns = SPECS[name][1]
    w = csv.writer(out, lineterminator="\n")
    w.writerow([f for f, _, _ in columns])
    for r in rows:
        w.writerow([_raw(r.get(f)) for f, _, _ in columns])


def json_rows(name, rows):
    """The rows as plain dicts with every column (for --format json)."""
    columns = SPECS[name][1]
    return [{f: r.get(f) for f, _, _ in columns} for r in sorted_rows(name, rows)]
