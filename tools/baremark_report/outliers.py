"""Outliers: what a burn-in team has to look at, machine by machine.

Every rule compares a machine with its peers, never with a fixed figure:
the fleet is its own reference. Values are the median over burn-in passes.

  disk_mbps     a disk_result's MB/s under DISK_RATIO (0.5) x the median of the same test
  disk_p99      its p99 latency over LAT_RATIO (2.0) x the median of the same test
                "Same test" = same test name, rw, bs, qd; the peers are the disks of the
                same model when at least MIN_PEERS (3) of them ran it, else every disk that
                ran it (all models); aggregate results (disk "all") only meet each other.
                With fewer than MIN_PEERS results in all, nothing is compared.
  mem_latency   ns more than MEM_TOLERANCE (20%) above or below the median of the same
                size, pattern (and node/load fields); peers = machines with the same CPU
                brand string when there are MIN_PEERS of them, else all machines
  mem_bandwidth GB/s more than MEM_TOLERANCE off the median of the same op and threads
  pci_link      a link whose record says downtrained, or that runs slower or narrower
                than the fastest/widest link the fleet shows for the same function
                (vendor, device and BDF); one flag per physical link (a bridge and the
                device below it report the same link)
  dimm_empty    a slot (bank + locator) empty where most machines that report the slot
                (more than half) have it populated
  dimm_warning  every warning of a dimm_summary record
  end_status    an end record whose status is not "ok"
  no_end        a run without an end record: the machine never finished
  no_records    an input file with no record at all: baremark never ran there
"""
from dataclasses import dataclass, asdict

from .fleet import median, text

DISK_RATIO = 0.5
LAT_RATIO = 2.0
MEM_TOLERANCE = 0.2
MIN_PEERS = 3


@dataclass
class Limits:
    """The thresholds, adjustable from the command line."""
    disk_ratio: float = DISK_RATIO
    lat_ratio: float = LAT_RATIO
    mem_tolerance: float = MEM_TOLERANCE
    min_peers: int = MIN_PEERS


@dataclass
class Flag:
    """One finding: on which machine, what, the value, what it was compared with, the rule."""
    machine: str
    kind: str
    what: str
    value: str
    reference: str = ""
    rule: str = ""
    value_num: object = None
    reference_num: object = None

    def as_dict(self):
        return asdict(self)

    def line(self):
        """The flag as one line of the text report."""
        ref = "; %s" % self.reference if self.reference else ""
        rule = " [%s]" % self.rule if self.rule else ""
        return "%s: %s: %s%s%s" % (self.machine, self.what, self.value, ref, rule)


class Peers:
    """Peer medians of one value: per key and model, falling back to the whole key.

    Each peer group's median is computed once, the first time a row of the
    group asks for it: a fleet of N machines costs O(N log N), not O(N^2)."""

    def __init__(self, rows, key, model, value, min_peers):
        self.key, self.model, self.value, self.min_peers = key, model, value, min_peers
        self.by_key, self.by_model = {}, {}
        self._medians = {}
        for row in rows:
            v = row.get(value)
            if v is None:
                continue
            self.by_key.setdefault(key(row), []).append(v)
            m = model(row)
            if m:
                self.by_model.setdefault((key(row), m), []).append(v)

    median_fn = staticmethod(median)  # a test counts the calls through it

    def _median_of(self, group, values):
        """The median of one peer group, computed once."""
        if group not in self._medians:
            self._medians[group] = self.median_fn(values)
        return self._medians[group]

    def reference(self, row):
        """(median, which peers) for a row, or (None, '') when there are too few peers."""
        k, m = self.key(row), self.model(row)
        same = self.by_model.get((k, m), []) if m else []
        if len(same) >= self.min_peers:
            return self._median_of(("model", k, m), same), "same model, %d results" % len(same)
        everyone = self.by_key.get(k, [])
        if len(everyone) >= self.min_peers:
            return self._median_of(("all", k), everyone), "all models, %d results" % len(everyone)
        return None, ""

    def ratio(self, row):
        """The row's value over its peer median, None when not comparable."""
        med, _ = self.reference(row)
        v = row.get(self.value)
        if med in (None, 0) or v is None:
            return None
        return v / med


def fmt_value(v, unit=""):
    """A measured value for a flag line: 3 significant digits or so, then the unit."""
    if v is None:
        return "?"
    if isinstance(v, float) and not v.is_integer():
        s = "%.0f" % v if abs(v) >= 100 else ("%.1f" % v if abs(v) >= 10 else "%.3g" % v)
    else:
        s = "%d" % v
    return s + (" " + unit if unit else "")


def size_name(n):
    """Bytes as a power-of-two size (4 KiB, 256 MiB) when it is one, else bytes."""
    if n is None or (isinstance(n, float) and (n != n or abs(n) == float("inf"))):
        return ""  # int() raises on NaN and infinity
    n = int(n)
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n


# ---- peer groups per table ------------------------------------------------------------

def _disk_key(row):
    return (row.get("test"), row.get("rw"), row.get("bs"), row.get("qd"), row.get("disk") == "all")


def disk_peers(rows, limits):
    """Peers for MB/s and for p99 latency of disk_result rows."""
    model = lambda r: r.get("model")
    return (Peers(rows, _disk_key, model, "mbps", limits.min_peers),
            Peers(rows, _disk_key, model, "lat_p99_us", limits.min_peers))


def mem_latency_peers(rows, limits):
    key = lambda r: (r.get("bytes"), r.get("pattern"), r.get("extra"))
    return Peers(rows, key, lambda r: r.get("cpu"), "ns", limits.min_peers)


def mem_bandwidth_peers(rows, limits):
    key = lambda r: (r.get("op"), r.get("threads"), r.get("extra"))
    return Peers(rows, key, lambda r: r.get("cpu"), "gbps", limits.min_peers)


def pci_key(row):
    """The same function across machines: vendor, device and BDF."""
    return (text(row.get("vendor")), text(row.get("device")), row.get("bdf"))


def pci_fleet_best(rows):
    """Per function, the fastest speed and the widest width any machine's link runs at."""
    best = {}
    for row in rows:
        k = pci_key(row)
        s, w = best.get(k, (None, None))
        if row.get("speed_gts") is not None:
            s = max(s or 0, row["speed_gts"])
        if row.get("width") is not None:
            w = max(w or 0, row["width"])
        best[k] = (s, w)
    return best


def dimm_majority(rows):
    """Per slot (bank, locator): (machines with it populated, machines reporting its size)."""
    counts = {}
    for row in rows:
        size = row.get("size_mb")
        if size is None:
            continue
        k = (row.get("bank"), row.get("locator"))
        full, seen = counts.get(k, (0, 0))
        counts[k] = (full + (size > 0), seen + 1)
    return counts


# ---- the rules -----------------------------------------------------------------------------

def _disk_flags(rows, limits, peers):
    mbps, p99 = peers
    flags = []
    for row in rows:
        what = "disk %s %s %s" % (row.get("disk"), row.get("test"), row.get("rw"))
        if row.get("model"):
            what += " (%s)" % row["model"]
        med, peers = mbps.reference(row)
        v = row.get("mbps")
        if med is not None and v is not None and v < limits.disk_ratio * med:
            flags.append(Flag(row["machine"], "disk_mbps", what, fmt_value(v, "MB/s"),
                              "median %s (%s)" % (fmt_value(med, "MB/s"), peers),
                              "MB/s under %g x median" % limits.disk_ratio, v, med))
        med, peers = p99.reference(row)
        v = row.get("lat_p99_us")
        if med is not None and v is not None and v > limits.lat_ratio * med:
            flags.append(Flag(row["machine"], "disk_p99", what, "p99 " + fmt_value(v, "us"),
                              "median %s (%s)" % (fmt_value(med, "us"), peers),
                              "p99 latency over %g x median" % limits.lat_ratio, v, med))
    return flags


def _mem_flags(rows, peers, kind, value, unit, describe, tol):
    flags = []
    for row in rows:
        med, who = peers.reference(row)
        v = row.get(value)
        if med in (None, 0) or v is None or abs(v / med - 1) <= tol:
            continue
        off = (v / med - 1) * 100
        flags.append(Flag(row["machine"], kind, describe(row), "%s (%+.0f%%)" % (fmt_value(v, unit), off),
                          "median %s (%s)" % (fmt_value(med, unit), who),
                          "more than %g%% off the median" % (tol * 100), v, med))
    return flags


def _link_name(speed, width):
    return "%s GT/s x%s" % (fmt_value(speed), fmt_value(width))


def _pci_flags(rows):
    best = pci_fleet_best(rows)
    found = {}  # (machine, bdf) -> (row, Flag)
    for row in rows:
        s, w = row.get("speed_gts"), row.get("width")
        fs, fw = best[pci_key(row)]
        now = _link_name(s, w)
        ms, mw = row.get("max_speed_gts"), row.get("max_width")
        if row.get("downtrained"):
            ref = "capable of %s" % _link_name(ms, mw)
            # value_num/reference_num: the width when that is what is short, else the speed
            narrow = w is not None and mw is not None and w < mw
            flag = Flag(row["machine"], "pci_link", "PCIe link %s" % row["bdf"], now + ", downtrained", ref,
                        "link record says downtrained", w if narrow else s, mw if narrow else ms)
        elif (s is not None and fs is not None and s < fs) or (w is not None and fw is not None and w < fw):
            narrow = w is not None and fw is not None and w < fw
            flag = Flag(row["machine"], "pci_link", "PCIe link %s" % row["bdf"], now,
                        "fleet best %s" % _link_name(fs, fw),
                        "slower or narrower than the same function elsewhere", w if narrow else s,
                        fw if narrow else fs)
        else:
            continue
        found[(row["machine"], row["bdf"])] = (row, flag)
    # A bridge and the device below it both report the link between them:
    # fold the bridge's flag into the device's (the bridge one level up the
    # device's path, reporting the same speed and width).
    return fold_bridge_links(found)


def _dimm_flags(rows):
    counts = dimm_majority(rows)
    flags = []
    for row in rows:
        size = row.get("size_mb")
        full, seen = counts.get((row.get("bank"), row.get("locator")), (0, 0))
        if size == 0 and 2 * full > seen:
            slot = " ".join(x for x in (row.get("bank"), row.get("locator")) if x)
            flags.append(Flag(row["machine"], "dimm_empty", "DIMM slot %s" % slot, "empty",
                              "populated on %d of %d machines" % (full, seen),
                              "slot empty where most machines have it populated", 0, full))
    return flags


def _summary_flags(rows):
    return [Flag(row["machine"], "dimm_warning", "DIMM population", w, "", "dimm_summary warning")
            for row in rows for w in row.get("warnings") or []]


def _end_flags(runs):
    flags = []
    for run in runs:
        end = run.last("end")
        if not end:
            flags.append(Flag(run.label, "no_end", "run", "no end record",
                              "%d records from %s" % (len(run.records), run.where), "the machine never finished"))
        elif text(end.get("status")) != "ok":
            detail = "%s errors" % text(end.get("errors")) if end.get("errors") is not None else ""
            if end.get("note"):
                detail += ("; " if detail else "") + text(end.get("note"))
            flags.append(Flag(run.label, "end_status", "run", "status %s" % (text(end.get("status")) or "missing"),
                              detail, "end status not ok"))
    return flags


def all_peers(tables, limits):
    """The peer groups of the folded rows, built once for the flags and the
    "vs median" columns."""
    return {"disk": disk_peers(tables["disk_results"], limits),
            "mem_latency": mem_latency_peers(tables["mem_latency"], limits),
            "mem_bandwidth": mem_bandwidth_peers(tables["mem_bandwidth"], limits)}


def find_flags(runs, sources, tables, limits, peers=None):
    """Every flag, sorted by machine then kind. `tables` holds the folded rows by name."""
    peers = peers or all_peers(tables, limits)
    flags = []
    flags += _disk_flags(tables["disk_results"], limits, peers["disk"])
    flags += _mem_flags(tables["mem_latency"], peers["mem_latency"], "mem_latency",
                        "ns", "ns", lambda r: "memory latency %s %s%s" % (
                            size_name(r.get("bytes")), r.get("pattern"), " " + r["extra"] if r.get("extra") else ""),
                        limits.mem_tolerance)
    flags += _mem_flags(tables["mem_bandwidth"], peers["mem_bandwidth"],
                        "mem_bandwidth", "gbps", "GB/s", lambda r: "memory bandwidth %s %s thread(s)%s" % (
                            r.get("op"), fmt_value(r.get("threads")), " " + r["extra"] if r.get("extra") else ""),
                        limits.mem_tolerance)
    flags += _pci_flags(tables["pci"])
    flags += _dimm_flags(tables["dimms"])
    flags += _summary_flags(tables["dimm_summary"])
    flags += _end_flags(runs)
    for src in sources:
        if not src.found:
            flags.append(Flag(src.name, "no_records", "input %s" % src.path, "no records",
                              "%d lines, %d bad" % (src.lines, src.bad_count), "baremark never ran or the capture is empty"))
    flags.sort(key=lambda f: (f.machine, f.kind, f.what))
    return flags


def fold_bridge_links(found):
    """The link flags of {(machine, bdf): (row, flag)} with each bridge's flag folded into the
    device's below it (the bridge one level up the device's path, same speed and width): both
    ends report the one link between them. Used by the folder and the store reports."""
    merged = set()
    for (machine, bdf), (row, flag) in sorted(found.items(), key=lambda kv: -len(kv[1][0]["path"])):
        if (machine, bdf) in merged:
            continue
        for up in row["path"]:
            hit = found.get((machine, up))
            if hit and (machine, up) not in merged and len(hit[0]["path"]) == len(row["path"]) - 1 and \
                    (hit[0]["speed_gts"], hit[0]["width"]) == (row["speed_gts"], row["width"]):
                merged.add((machine, up))
                flag.what = "PCIe link %s - %s" % (up, bdf)
                break
    return [flag for k, (row, flag) in found.items() if k not in merged]
