"""From records to machines, and from machines to rows.

A run is the records from one `run` record to the next in one stream (a
file, or one tagged machine of a shared log); records seen before any `run`
record (a capture that started mid-run) form a run of their own. A run's
machine is named by its `system` record: the serial number, else the
product name, else the stream's tag or file name. A run without a `system`
record (cut off by a reset before the inventory) takes the name of the
nearest run in the same stream that has one.

Each machine is compared through one run: its last (latest `run` time,
then the order read), unless --all-runs asks for every run. The same run
read twice (a serial capture and the .jsonl file of the same run) counts
once. Burn-in records carry `pass`; rows fold the passes into their median
(or keep one row per pass with --by-pass).

Every accessor tolerates missing fields and wrong types: a value that is
not what the schema says is treated as absent, never as an error.
"""
import json
import math
import os
import statistics
from dataclasses import dataclass, field
from typing import List, Optional

# SMBIOS strings vendors leave in place of a real serial number.
PLACEHOLDER_SERIALS = {
    "", "none", "n/a", "na", "not specified", "not applicable", "not available", "unknown",
    "default string", "to be filled by o.e.m.", "system serial number", "chassis serial number",
    "serial number", "0", "00000000", "0000000000", "123456789", "0123456789", "1234567890", "xxxxxxxx",
}


def num(value):
    """A finite number from a record field, else None (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def text(value):
    """A string from a record field ('' when absent or not a scalar)."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def ident(value):
    """An ID field (PCI vendor, device, class): an integer or a string as
    given, else None (a list, an object, NaN would reach the JSON output)."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def sub(record, key):
    """A nested object field (e.g. lat_us, link), {} when absent or not an object."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def pass_of(record):
    """The burn-in pass number of a record, 0 when it has none."""
    p = num(record.get("pass"))
    return int(p) if p is not None and p >= 0 else 0


def median(values):
    """Median of the numbers among `values`, None when there are none."""
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


@dataclass
class Run:
    """The records of one run, where they came from and whose they are."""
    source: object            # extract.Source
    tag: Optional[str]
    order: int                # position in the order read, for "last run"
    first_line: int
    records: List[dict] = field(default_factory=list)
    machine: str = ""
    named_by: str = ""        # serial, product, tag or file
    label: str = ""           # the machine's name in tables (machine, or machine#N)
    runs_seen: int = 1
    duplicates: List[str] = field(default_factory=list)

    def _index(self):
        """The records by type, built once (rebuilt if records were added):
        row builders ask for the system record once per record."""
        idx = self.__dict__.get("_by_type")
        if idx is None or self.__dict__.get("_indexed") != len(self.records):
            idx = {}
            for r in self.records:
                kind = r.get("type")  # not a string: no type (an object would not even hash)
                idx.setdefault(kind if isinstance(kind, str) else None, []).append(r)
            self.__dict__["_by_type"], self.__dict__["_indexed"] = idx, len(self.records)
        return idx

    def of_type(self, kind):
        """The records of one type, in order."""
        return list(self._index().get(kind, ()))

    def first(self, kind):
        """The first record of a type, {} when there is none."""
        recs = self._index().get(kind)
        return recs[0] if recs else {}

    def last(self, kind):
        """The last record of a type, {} when there is none."""
        recs = self._index().get(kind)
        return recs[-1] if recs else {}

    @property
    def run_record(self):
        return self.first("run")

    @property
    def system(self):
        return self.first("system")

    @property
    def where(self):
        """Where the run was read: file name, the tag, the line it starts on."""
        name = os.path.basename(self.source.path) + ("[%s]" % self.tag if self.tag else "")
        return "%s:%d" % (name, self.first_line)

    def identity(self):
        """(name, how it was named) from the system record, or ('', '') without one."""
        sysrec = self.system
        serial = text(sysrec.get("serial")).strip()
        if serial.lower() not in PLACEHOLDER_SERIALS:
            return serial, "serial"
        product = text(sysrec.get("product")).strip()
        if product and product.lower() not in PLACEHOLDER_SERIALS:
            return product, "product"
        return "", ""

    def dedupe_key(self):
        """What two copies of one run share: machine, start time, version, args (None without a time)."""
        rr = self.run_record
        if not rr.get("time"):
            return None
        return (self.machine, text(rr.get("time")), text(rr.get("version")), text(rr.get("args")))


def split_runs(sources):
    """Every run in every source, in the order read, named after its machine."""
    runs = []
    for src in sources:
        streams = {}
        for f in src.found:
            streams.setdefault(f.tag, []).append(f)
        for tag, found in streams.items():
            stream_runs = []
            for f in found:
                if f.record.get("type") == "run" or not stream_runs:
                    stream_runs.append(Run(src, tag, len(runs) + len(stream_runs), f.line))
                stream_runs[-1].records.append(f.record)
            _name_stream(stream_runs, tag or src.name)
            runs.extend(stream_runs)
    return runs


def _name_stream(stream_runs, fallback):
    """Name each run of one stream; runs without a system record borrow a neighbour's name."""
    ids = [r.identity() for r in stream_runs]
    # The nearest named run after each run, then walk forwards keeping the
    # nearest named one before: linear in the runs of the stream.
    after = [None] * len(ids)
    nearest = None
    for i in range(len(ids) - 1, -1, -1):
        after[i] = nearest
        if ids[i][0]:
            nearest = ids[i]
    before = None
    for i, run in enumerate(stream_runs):
        name, how = ids[i]
        if not name:
            name, how = before or after[i] or (fallback, "file")
        else:
            before = ids[i]
        run.machine, run.named_by = name, how


def _same_run(a, b):
    """True when two runs are copies of one: same key, and one's records all in the other."""
    if a.dedupe_key() != b.dedupe_key():
        return False
    sa = {json.dumps(r, sort_keys=True) for r in a.records}
    sb = {json.dumps(r, sort_keys=True) for r in b.records}
    return sa <= sb or sb <= sa


def choose_runs(runs, all_runs=False):
    """One run per machine (its last), or every run; duplicates dropped; labels unique."""
    kept = []
    position = {}  # id(run) -> its index in kept
    by_key = {}
    for run in runs:
        key = run.dedupe_key()
        other = next((o for o in by_key.get(key, []) if _same_run(o, run)), None) if key else None
        if other is None:
            position[id(run)] = len(kept)
            kept.append(run)
            if key:
                by_key.setdefault(key, []).append(run)
            continue
        # Keep the fuller copy (a serial capture may have lost lines).
        if len(run.records) > len(other.records):
            kept[position[id(other)]] = run
            position[id(run)] = position.pop(id(other))
            by_key[key][by_key[key].index(other)] = run
            run.duplicates += [other.where] + other.duplicates
        else:
            other.duplicates.append(run.where)

    # Names that are not serial numbers are not unique across files: two
    # QEMU guests share a product name, two folders a file name. Qualify
    # those by where they were read.
    sources_of = {}
    for run in kept:
        sources_of.setdefault(run.machine, set()).add((run.source.path, run.tag))
    for run in kept:
        if run.named_by != "serial" and len(sources_of[run.machine]) > 1:
            where = run.source.name if run.named_by == "product" else run.source.path
            run.machine = "%s (%s)" % (run.machine, where + ("[%s]" % run.tag if run.tag else ""))

    by_machine = {}
    for run in kept:
        by_machine.setdefault(run.machine, []).append(run)
    chosen = []
    for machine, mruns in by_machine.items():
        for r in mruns:
            r.runs_seen = len(mruns)
        # Within one stream the later run is the later one whatever the
        # clock says (an RTC can be reset); between files only the run
        # time can tell.
        last_of_stream = {}
        for r in mruns:
            last_of_stream[(r.source.path, r.tag)] = r
        by_time = lambda r: (text(r.run_record.get("time")), r.order)
        if all_runs:
            mruns.sort(key=by_time)
            for i, r in enumerate(mruns):
                r.label = machine if len(mruns) == 1 else "%s#%d" % (machine, i + 1)
                chosen.append(r)
        else:
            last = max(last_of_stream.values(), key=by_time)
            last.label = machine
            chosen.append(last)
    chosen.sort(key=lambda r: r.label)
    return chosen


# ---- rows ---------------------------------------------------------------------------

def _fold(groups, key_fields, value_fields, by_pass):
    """Rows from records grouped by key: the median over passes of each value field."""
    rows = []
    for key, recs in groups.items():
        base = dict(zip(key_fields, key))
        if by_pass:
            per_pass = {}
            for rec in recs:
                per_pass.setdefault(pass_of(rec), []).append(rec)
            for p in sorted(per_pass):
                row = dict(base, **{"pass": p, "passes": 1})
                for name, get in value_fields:
                    row[name] = median(get(r) for r in per_pass[p])
                rows.append(row)
        else:
            row = dict(base, passes=len({pass_of(r) for r in recs}))
            for name, get in value_fields:
                row[name] = median(get(r) for r in recs)
            rows.append(row)
    return rows


def _group(runs, kind, key):
    """Records of one type grouped by (label,) + key(record), in order of first sight."""
    groups = {}
    for run in runs:
        for rec in run.of_type(kind):
            groups.setdefault((run.label,) + key(run, rec), []).append(rec)
    return groups


def disk_index(run):
    """The run's disk records by id (the last record wins)."""
    disks = {}
    for d in run.of_type("disk"):
        disks[text(d.get("id"))] = d
    return disks


DISK_RESULT_VALUES = [
    ("mbps", lambda r: num(r.get("mbps"))),
    ("iops", lambda r: num(r.get("iops"))),
    ("lat_mean_us", lambda r: num(sub(r, "lat_us").get("mean"))),
    ("lat_p50_us", lambda r: num(sub(r, "lat_us").get("p50"))),
    ("lat_p99_us", lambda r: num(sub(r, "lat_us").get("p99"))),
    ("lat_p999_us", lambda r: num(sub(r, "lat_us").get("p999"))),
    ("lat_max_us", lambda r: num(sub(r, "lat_us").get("max"))),
]


def disk_result_rows(runs, by_pass=False):
    """One row per machine + disk + test; aggregate records (disk 'all') kept apart."""
    indexes = {}

    def key(run, rec):
        disk = text(rec.get("disk"))
        if id(run) not in indexes:
            indexes[id(run)] = disk_index(run)
        if disk == "all":
            members = rec.get("disks") if isinstance(rec.get("disks"), list) else []
            model = "all (%d disks)" % len(members) if members else "all"
            serial = ""
        else:
            d = indexes[id(run)].get(disk, {})
            model, serial = text(d.get("model")).strip(), text(d.get("serial")).strip()
        return (disk, model, serial, text(rec.get("test")), text(rec.get("rw")),
                num(rec.get("bs")), num(rec.get("qd")))
    fields = ("machine", "disk", "model", "serial", "test", "rw", "bs", "qd")
    return _fold(_group(runs, "disk_result", key), fields, DISK_RESULT_VALUES, by_pass)


# Fields that, besides the schema's own, tell one memory measurement from
# another when present (NUMA matrix, loaded latency); values are compared
# only between equal keys.
MEM_EXTRA_KEYS = ("node", "cpu_node", "mem_node", "from_node", "to_node", "load", "load_threads")


def _mem_key(rec, number, name):
    """The identifying fields of a memory record (a number, a name), plus any NUMA/load fields."""
    extras = " ".join("%s=%s" % (k, text(rec.get(k))) for k in MEM_EXTRA_KEYS if k in rec)
    return (num(rec.get(number)), text(rec.get(name)), extras)


def mem_latency_rows(runs, by_pass=False):
    """One row per machine + working-set size + pattern (+ node/load fields)."""
    def key(run, rec):
        return (text(run.system.get("cpu")).strip(),) + _mem_key(rec, "bytes", "pattern")
    fields = ("machine", "cpu", "bytes", "pattern", "extra")
    values = [("ns", lambda r: num(r.get("ns")))]
    return _fold(_group(runs, "mem_latency", key), fields, values, by_pass)


def mem_bandwidth_rows(runs, by_pass=False):
    """One row per machine + operation + thread count (+ node/load fields)."""
    def key(run, rec):
        return (text(run.system.get("cpu")).strip(),) + _mem_key(rec, "threads", "op")
    fields = ("machine", "cpu", "threads", "op", "extra")
    values = [("bytes", lambda r: num(r.get("bytes"))), ("gbps", lambda r: num(r.get("gbps")))]
    return _fold(_group(runs, "mem_bandwidth", key), fields, values, by_pass)


def _last_by(run, kind, key):
    """The last record of a type per key: inventory repeated in every pass counts once."""
    out = {}
    for rec in run.of_type(kind):
        out[key(rec)] = rec
    return out


def pci_rows(runs):
    """One row per machine + PCI function, with its link."""
    rows = []
    for run in runs:
        for bdf, rec in _last_by(run, "pci", lambda r: text(r.get("bdf"))).items():
            link = sub(rec, "link")
            path = rec.get("path") if isinstance(rec.get("path"), list) else []
            down = link.get("downtrained")
            rows.append({
                "machine": run.label, "bdf": bdf, "vendor": ident(rec.get("vendor")),
                "device": ident(rec.get("device")), "class": ident(rec.get("class")),
                "speed_gts": num(link.get("speed_gts")), "width": num(link.get("width")),
                "max_speed_gts": num(link.get("max_speed_gts")), "max_width": num(link.get("max_width")),
                "downtrained": down if isinstance(down, bool) else None,
                "path": [text(p) for p in path],
            })
    return rows


DIMM_FIELDS = ("size_mb", "mem_type", "speed_mts", "configured_mts", "ranks", "manufacturer", "part", "serial")


def dimm_rows(runs):
    """One row per machine + memory slot (bank, locator), empty slots included."""
    rows = []
    for run in runs:
        slots = _last_by(run, "dimm", lambda r: (text(r.get("bank")).strip(), text(r.get("locator")).strip()))
        for (bank, locator), rec in slots.items():
            row = {"machine": run.label, "bank": bank, "locator": locator}
            for f in DIMM_FIELDS:
                row[f] = num(rec.get(f)) if f in ("size_mb", "speed_mts", "configured_mts", "ranks") else text(rec.get(f)).strip()
            rows.append(row)
    return rows


def warnings_of(rec):
    """The warnings of a dimm_summary record as strings, whatever shape they come in."""
    w = rec.get("warnings")
    if isinstance(w, str):
        return [w] if w.strip() else []
    if not isinstance(w, list):
        return []
    out = []
    for item in w:
        if isinstance(item, dict):
            item = item.get("message") or item.get("text") or item.get("warning") or \
                ", ".join("%s=%s" % (k, text(v)) for k, v in item.items())
        s = text(item).strip()
        if s:
            out.append(s)
    return out


def dimm_summary_rows(runs):
    """One row per machine: populated and total slots, total size, warnings."""
    rows = []
    for run in runs:
        rec = run.last("dimm_summary")
        if not rec:
            continue
        total = None
        for k in ("total_mb", "size_mb", "total_size_mb"):
            total = num(rec.get(k))
            if total is not None:
                break
        rows.append({"machine": run.label, "populated": num(rec.get("populated")), "slots": num(rec.get("slots")),
                     "total_mb": total, "warnings": warnings_of(rec)})
    return rows


def disk_rows(runs):
    """One row per machine + disk (the disk records: what was found where)."""
    rows = []
    for run in runs:
        for disk_id, rec in disk_index(run).items():
            rows.append({"machine": run.label, "disk": disk_id, "driver": text(rec.get("driver")),
                         "model": text(rec.get("model")).strip(), "serial": text(rec.get("serial")).strip(),
                         "firmware": text(rec.get("firmware")).strip(), "lba_bytes": num(rec.get("lba_bytes")),
                         "blocks": num(rec.get("blocks")), "pci": text(rec.get("pci")),
                         "link_gbps": num(rec.get("link_gbps"))})
    return rows


def error_rows(runs):
    """Every error record of the compared runs."""
    rows = []
    for run in runs:
        for rec in run.of_type("error"):
            rows.append({"machine": run.label, "pass": pass_of(rec) or None, "where": text(rec.get("where")),
                         "message": text(rec.get("message"))})
    return rows


def machine_rows(runs):
    """One row per compared run: who, where it was read, what ran, how it ended."""
    rows = []
    for run in runs:
        sysrec, rr, end = run.system, run.run_record, run.last("end")
        passes = {pass_of(r) for r in run.records} - {0}
        rows.append({
            "machine": run.label, "named_by": run.named_by,
            "source": run.where + ("".join(" = " + d for d in run.duplicates)),
            "product": text(sysrec.get("product")).strip(), "cpu": text(sysrec.get("cpu")).strip(),
            "cpus": num(sysrec.get("cpus")), "version": text(rr.get("version")), "time": text(rr.get("time")),
            "runs_seen": run.runs_seen, "records": len(run.records), "passes": max(passes) if passes else None,
            "status": text(end.get("status")) if end else "(no end)", "errors": num(end.get("errors")) if end else None,
        })
    return rows
