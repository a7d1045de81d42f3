"""Loading one uploaded results file (.jsonl) into the store, streaming.

The file is read from disk twice, one line at a time (a line longer than
MAX_LINE_BYTES is a bad line and is skipped without being held): first for
the run's identity (its `run` and `system` records), then to insert the
records in batches of BATCH. Memory is bounded whatever the file's size.

Idempotence: every record is keyed (run key, line number). A results file
only grows during a run (the firmware uploads the whole file so far: when
the run starts, after each pass, at the end), so line N is the same record
in every upload of one run; inserting with ON CONFLICT DO NOTHING makes a
retried or repeated upload add nothing, and a later one add only its new
lines. The whole upload is also keyed by its SHA-256 (see collect.py).

Identity (the contract is written out in docs/pending-30.md):
  run key      "id:" + the run record's `run_id` + "@" + machine key; without one (older firmware)
               "h:" + a hash of machine key, run time, version, args, the
               uploading address and the upload name: two machines with the
               same placeholder serial booted in the same second still differ.
  machine key  "uuid:" SMBIOS UUID (run record `smbios_uuid`, else the system
               record's `uuid`) unless missing or a placeholder (all 0 or all
               F); else "mac:" the boot NIC's MAC (`mac`); else "serial:" +
               serial + product + uploading address. Never the serial alone.
"""
import hashlib
import json
import re
import time

from . import extract
from .fleet import PLACEHOLDER_SERIALS, num, pass_of, sub, text, warnings_of

MAX_LINE_BYTES = 64 * 1024     # a record is at most 8 KiB (efi/record.h); anything longer is not one
BATCH = 2000
IDENTITY_SCAN_RECORDS = 256    # the run and system records come first; stop looking after this many

UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
MAC_RE = re.compile(r"^[0-9a-fA-F]{2}([:-]?[0-9a-fA-F]{2}){5}$")
RUN_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def norm_uuid(value):
    """An SMBIOS UUID in lower case with dashes, or '' when missing or a placeholder."""
    s = text(value).strip()
    if not UUID_RE.match(s):
        return ""
    h = s.replace("-", "").lower()
    if h in ("0" * 32, "f" * 32):
        return ""
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def norm_mac(value):
    """A MAC as aa:bb:cc:dd:ee:ff, or '' when missing, malformed or all zero."""
    s = text(value).strip()
    if not MAC_RE.match(s):
        return ""
    h = s.replace(":", "").replace("-", "").lower()
    if h in ("000000000000", "ffffffffffff"):
        return ""
    return ":".join(h[i:i + 2] for i in range(0, 12, 2))


def serial_ok(serial):
    """True for a serial number that names a machine (not a vendor placeholder)."""
    return text(serial).strip().lower() not in PLACEHOLDER_SERIALS


class Identity:
    """Who sent a run: from its run and system records, the upload name and the peer address."""

    def __init__(self, run_rec, sys_rec, peer, upload_name):
        rr, sy = run_rec or {}, sys_rec or {}
        self.run_id = text(rr.get("run_id")).strip()
        if self.run_id and not RUN_ID_RE.match(self.run_id):
            self.run_id = ""
        self.smbios_uuid = norm_uuid(rr.get("smbios_uuid")) or norm_uuid(sy.get("smbios_uuid")) or \
            norm_uuid(sy.get("uuid"))
        # The firmware names the SMBIOS serial system_serial in the run record (its `serial` key is
        # the serial-port plan, an object); older run records and the system record say serial.
        self.serial = (text(rr.get("system_serial")) or text(rr.get("serial")) or text(sy.get("serial"))).strip()
        self.mac = norm_mac(rr.get("mac")) or norm_mac(sy.get("mac"))
        self.ip = (text(rr.get("ip")) or text(sy.get("ip"))).strip()
        self.product = text(sy.get("product")).strip()
        self.peer = peer or ""
        self.upload_name = upload_name
        if self.smbios_uuid:
            self.machine_key = "uuid:" + self.smbios_uuid
        elif self.mac:
            self.machine_key = "mac:" + self.mac
        else:
            self.machine_key = "serial:%s|product:%s|peer:%s" % (self.serial, self.product, self.ip or self.peer)
        if serial_ok(self.serial):
            self.name, self.named_by = self.serial, "serial"
        elif self.product and serial_ok(self.product):
            self.name, self.named_by = self.product, "product"
        else:
            self.name = self.mac or self.smbios_uuid or self.ip or self.peer or upload_name
            self.named_by = "mac" if self.mac else "uuid" if self.smbios_uuid else "address"
        if self.run_id:
            # With the machine key: even two machines drawing the same run id stay apart.
            self.run_key = "id:%s@%s" % (self.run_id, self.machine_key)
        else:
            stem = upload_name.rsplit(".", 1)[0]
            basis = "\x1f".join([self.machine_key, text(rr.get("time")), text(rr.get("version")),
                                 text(rr.get("args")), self.ip or self.peer, stem])
            self.run_key = "h:" + hashlib.sha256(basis.encode("utf-8", "backslashreplace")).hexdigest()[:32]


def _lines(path):
    """(line number, text or None when too long) of each line of a file, one at a time."""
    with open(path, "rb") as f:
        n = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            n += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                # Skip the rest of the overlong line without holding it.
                while raw and not raw.endswith(b"\n"):
                    raw = f.readline(MAX_LINE_BYTES + 1)
                yield n, None
                continue
            yield n, raw.decode("utf-8", "replace").strip()


def _parse(line):
    """The record on one line, or (None, why)."""
    if line is None:
        return None, "line longer than %d bytes" % MAX_LINE_BYTES
    if not line:
        return None, ""
    if line[0] != "{":
        return None, "not a JSON object"
    try:
        obj = json.loads(line)
    except ValueError as e:  # json.JSONDecodeError, or text after the object
        return None, "bad JSON: %s" % getattr(e, "msg", e)
    except RecursionError:
        return None, "bad JSON: nested too deeply"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    why = extract._check_values(obj, line)  # values no baremark record holds (as the folder reader)
    if why:
        return None, why
    if not isinstance(obj.get("type"), str):
        return None, "no record type"
    return obj, None


def scan_identity(lines):
    """(run record, system record, records seen) from the start of the lines."""
    run_rec = sys_rec = None
    seen = 0
    for _, line in lines:
        rec, _ = _parse(line)
        if rec is None:
            continue
        seen += 1
        if rec["type"] == "run" and run_rec is None:
            run_rec = rec
        elif rec["type"] == "system" and sys_rec is None:
            sys_rec = rec
        if (run_rec and sys_rec) or seen >= IDENTITY_SCAN_RECORDS:
            break
    return run_rec, sys_rec, seen


def _mem_extra(rec):
    return " ".join("%s=%s" % (k, text(rec.get(k))) for k in _MEM_EXTRA if k in rec)


_MEM_EXTRA = ("node", "cpu_node", "mem_node", "from_node", "to_node", "load", "load_threads")


def _scalar_json(v):
    """A field kept as its JSON text (vendor/device/class may be numbers or strings)."""
    return None if v is None else json.dumps(v)


class _Rows:
    """The rows one upload adds, per table, flushed every BATCH records."""

    INSERTS = {
        "records": "INSERT INTO records (run_key, seq, type, pass, body) VALUES (?,?,?,?,?)",
        "disk": "INSERT INTO disk (run_key, seq, disk, driver, model, serial, firmware, lba_bytes, blocks, pci, "
                "link_gbps) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        "disk_result": "INSERT INTO disk_result (run_key, seq, pass, disk, model, serial, test, rw, bs, qd, is_all, "
                       "mbps, iops, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        "mem_latency": "INSERT INTO mem_latency (run_key, seq, pass, cpu, bytes, pattern, extra, ns) "
                       "VALUES (?,?,?,?,?,?,?,?)",
        "mem_bandwidth": "INSERT INTO mem_bandwidth (run_key, seq, pass, cpu, threads, op, extra, bytes, gbps) "
                         "VALUES (?,?,?,?,?,?,?,?,?)",
        "pci": "INSERT INTO pci (run_key, seq, bdf, vendor, device, class, speed_gts, width, max_speed_gts, "
               "max_width, downtrained, path) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        "dimm": "INSERT INTO dimm (run_key, seq, bank, locator, size_mb, mem_type, speed_mts, configured_mts, ranks, "
                "manufacturer, part, serial) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        "dimm_summary": "INSERT INTO dimm_summary (run_key, seq, populated, slots, total_mb, warnings) "
                        "VALUES (?,?,?,?,?,?)",
        "error": "INSERT INTO error (run_key, seq, pass, where_, message) VALUES (?,?,?,?,?)",
    }

    def __init__(self, store, run_key):
        self.store, self.run_key = store, run_key
        self.rows = {k: [] for k in self.INSERTS}
        self.pending = 0
        self.new = 0

    def flush(self):
        """Insert what is pending; count the records that were new."""
        st = self.store
        before = self._count()
        for table, rows in self.rows.items():
            if rows:
                st.executemany(self.INSERTS[table] + " ON CONFLICT (run_key, seq) DO NOTHING", rows)
                rows.clear()
        self.new += self._count() - before
        self.pending = 0

    def _count(self):
        cur = self.store.execute("SELECT COUNT(*) FROM records WHERE run_key = ?", (self.run_key,))
        return cur.fetchone()[0]


def _typed_rows(rows, k, seq, rec, disks, cpu):
    """The typed table row(s) of one record."""
    t = rec["type"]
    p = pass_of(rec)
    if t == "disk":
        d = text(rec.get("id"))
        disks[d] = (text(rec.get("model")).strip(), text(rec.get("serial")).strip())
        rows["disk"].append((k, seq, d, text(rec.get("driver")), disks[d][0], disks[d][1],
                             text(rec.get("firmware")).strip(), num(rec.get("lba_bytes")), num(rec.get("blocks")),
                             text(rec.get("pci")), num(rec.get("link_gbps"))))
    elif t == "disk_result":
        d = text(rec.get("disk"))
        if d == "all":
            members = rec.get("disks") if isinstance(rec.get("disks"), list) else []
            model, serial = ("all (%d disks)" % len(members) if members else "all"), ""
        else:
            model, serial = disks.get(d, ("", ""))
        lat = sub(rec, "lat_us")
        rows["disk_result"].append((k, seq, p, d, model, serial, text(rec.get("test")), text(rec.get("rw")),
                                    num(rec.get("bs")), num(rec.get("qd")), 1 if d == "all" else 0,
                                    num(rec.get("mbps")), num(rec.get("iops")), num(lat.get("mean")),
                                    num(lat.get("p50")), num(lat.get("p99")), num(lat.get("p999")),
                                    num(lat.get("max"))))
    elif t == "mem_latency":
        rows["mem_latency"].append((k, seq, p, cpu, num(rec.get("bytes")), text(rec.get("pattern")),
                                    _mem_extra(rec), num(rec.get("ns"))))
    elif t == "mem_bandwidth":
        rows["mem_bandwidth"].append((k, seq, p, cpu, num(rec.get("threads")), text(rec.get("op")),
                                      _mem_extra(rec), num(rec.get("bytes")), num(rec.get("gbps"))))
    elif t == "pci":
        link = sub(rec, "link")
        path = rec.get("path") if isinstance(rec.get("path"), list) else []
        down = link.get("downtrained")
        rows["pci"].append((k, seq, text(rec.get("bdf")), _scalar_json(rec.get("vendor")),
                            _scalar_json(rec.get("device")), _scalar_json(rec.get("class")),
                            num(link.get("speed_gts")), num(link.get("width")), num(link.get("max_speed_gts")),
                            num(link.get("max_width")), (1 if down else 0) if isinstance(down, bool) else None,
                            json.dumps([text(x) for x in path])))
    elif t == "dimm":
        rows["dimm"].append((k, seq, text(rec.get("bank")).strip(), text(rec.get("locator")).strip(),
                             num(rec.get("size_mb")), text(rec.get("mem_type")).strip(), num(rec.get("speed_mts")),
                             num(rec.get("configured_mts")), num(rec.get("ranks")),
                             text(rec.get("manufacturer")).strip(), text(rec.get("part")).strip(),
                             text(rec.get("serial")).strip()))
    elif t == "dimm_summary":
        total = None
        for name in ("total_mb", "size_mb", "total_size_mb"):
            total = num(rec.get(name))
            if total is not None:
                break
        rows["dimm_summary"].append((k, seq, num(rec.get("populated")), num(rec.get("slots")), total,
                                     json.dumps(warnings_of(rec))))
    elif t == "error":
        rows["error"].append((k, seq, p, text(rec.get("where")), text(rec.get("message"))))


class Loaded:
    """What loading one file did: records read, bad lines (first reasons), records new to the store."""

    def __init__(self):
        self.lines = self.records = self.bad = self.new = 0
        self.reasons = []
        self.identity = None


def load_file(store, path, peer, upload_name, now=None):
    """Load the records of one results file; returns a Loaded (records == 0: nothing
    was a record, the caller rejects the upload). The caller commits."""
    return load_lines(store, lambda: _lines(path), peer, upload_name, now)


def load_lines(store, lines, peer, upload_name, now=None):
    """load_file over lines() -> (line number, text) pairs, called twice (identity, then records)."""
    out = Loaded()
    run_rec, sys_rec, _ = scan_identity(lines())
    ident = Identity(run_rec, sys_rec, peer, upload_name)
    out.identity = ident
    k = ident.run_key
    rows = _Rows(store, k)
    disks, cpu = {}, text((sys_rec or {}).get("cpu")).strip()
    end = None
    max_pass = 0
    for seq, line in lines():
        out.lines = seq
        rec, why = _parse(line)
        if rec is None:
            if why:
                out.bad += 1
                if len(out.reasons) < 5:
                    out.reasons.append("line %d: %s" % (seq, why))
            continue
        out.records += 1
        if rec["type"] == "end":
            end = rec
        max_pass = max(max_pass, pass_of(rec))
        rows.rows["records"].append((k, seq, rec["type"], pass_of(rec), line))  # as the firmware wrote it
        _typed_rows(rows.rows, k, seq, rec, disks, cpu)
        rows.pending += 1
        if rows.pending >= BATCH:
            rows.flush()
    if out.records == 0:
        return out
    rows.flush()
    out.new = rows.new
    now = time.time() if now is None else now
    rr = run_rec or {}
    end = end or {}
    store.execute(
        "INSERT INTO runs (run_key, run_id, machine_key, name, named_by, smbios_uuid, serial, mac, ip, peer, "
        "product, cpu, cpus, version, time, args, first_seen, last_seen, records, passes, end_status, end_errors, "
        "end_note, uploads, upload_name) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
        "ON CONFLICT (run_key) DO UPDATE SET last_seen = excluded.last_seen, peer = excluded.peer, "
        "records = CASE WHEN excluded.records > runs.records THEN excluded.records ELSE runs.records END, "
        "passes = CASE WHEN excluded.passes > runs.passes THEN excluded.passes ELSE runs.passes END, "
        "end_status = COALESCE(excluded.end_status, runs.end_status), "
        "end_errors = COALESCE(excluded.end_errors, runs.end_errors), "
        "end_note = COALESCE(excluded.end_note, runs.end_note), uploads = runs.uploads + 1, "
        "upload_name = excluded.upload_name",
        (k, ident.run_id or None, ident.machine_key, ident.name, ident.named_by, ident.smbios_uuid or None,
         ident.serial or None, ident.mac or None, ident.ip or None, peer or None, ident.product or None, cpu or None,
         num((sys_rec or {}).get("cpus")), text(rr.get("version")) or None, text(rr.get("time")) or None,
         text(rr.get("args")), now, now, out.records, max_pass,
         (text(end.get("status")) or "missing") if end else None, num(end.get("errors")),
         text(end.get("note")) or None, 1, upload_name))
    return out
