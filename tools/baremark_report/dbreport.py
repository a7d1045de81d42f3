"""The report from the store (--db): the same tables and flags as folder mode,
computed in SQL, for SQLite and PostgreSQL alike.

Every step is a statement over whole tables (joins on keys, GROUP BY,
window functions), so the work grows as N log N in the records and Python
holds one batch of rows at a time:
  chosen      one run per machine key (its latest), or every run (--all-runs),
              labelled by serial (qualified by MAC/UUID/address when two
              machines share it)
  f_*         rows folded over burn-in passes: the median of each value
              (ROW_NUMBER over the group, the middle one or two averaged)
  p_*         per folded row, the median of its peers (same test / size / op,
              same model or CPU when MIN_PEERS of them, else all) and how many
  flags       the rows outside the limits, the same rules and words as outliers.py
  expected    --expected FILE: each listed MAC or serial with its latest run:
              never reported, started (running or silent), failed, passed
"""
import json
import re
import time

from .fleet import text
from . import outliers
from .outliers import Flag, fmt_value, size_name

SILENT_AFTER_S = 3600

# The median of `value` per `part` over the rows of `src` (rows without a value left out),
# and how many values it was taken over.
MEDIAN_SQL = """SELECT {part} AS g, AVG(v) AS m, MAX(cnt) AS n FROM (
  SELECT {part}, {value} AS v, ROW_NUMBER() OVER (PARTITION BY {part} ORDER BY {value}) AS rn,
         COUNT(*) OVER (PARTITION BY {part}) AS cnt
  FROM {src} WHERE {value} IS NOT NULL{where}) x
WHERE 2 * rn IN (cnt, cnt + 1, cnt + 2) GROUP BY {part}"""


def _median(src, part, value, where=""):
    return MEDIAN_SQL.format(src=src, part=part, value=value, where=(" AND " + where) if where else "")


class DbReport:
    """The report's temporary tables and the rows and flags read from them."""

    def __init__(self, store, limits, all_runs=False, by_pass=False, expected=None, silent_after=SILENT_AFTER_S,
                 now=None):
        self.st, self.limits, self.all_runs, self.by_pass = store, limits, all_runs, by_pass
        self.expected = expected
        self.silent_after = silent_after
        self.now = time.time() if now is None else now
        self.c = store.collate
        self._chosen()
        self._folded()
        self._peers()
        self._last_inventory()
        if expected is not None:
            self._expected(expected)

    # ---- runs ---------------------------------------------------------------------------------

    def _chosen(self):
        st = self.st
        st.temp_table("mk", """
            SELECT machine_key, name, qual, cnt_name FROM (
              SELECT machine_key, name, COALESCE(mac, smbios_uuid, ip, peer, machine_key) AS qual,
                     ROW_NUMBER() OVER (PARTITION BY machine_key ORDER BY COALESCE(time, '') DESC,
                                        first_seen DESC) AS rn,
                     1 AS cnt_name
              FROM runs) x WHERE rn = 1""")
        st.temp_table("mk2", """SELECT machine_key, CASE WHEN COUNT(*) OVER (PARTITION BY name) > 1
                                  THEN name || ' (' || qual || ')' ELSE name END AS base FROM mk""")
        st.temp_table("chosen", """
            SELECT r.run_key, r.machine_key, CASE WHEN x.runs_seen > 1 AND %d = 1
                       THEN x.base || '#' || CAST(x.runs_seen - x.rn + 1 AS TEXT) ELSE x.base END AS label,
                   x.runs_seen, x.rn
            FROM runs r JOIN (
              SELECT r2.run_key, m.base,
                     ROW_NUMBER() OVER (PARTITION BY r2.machine_key ORDER BY COALESCE(r2.time, '') DESC,
                                        r2.first_seen DESC) AS rn,
                     COUNT(*) OVER (PARTITION BY r2.machine_key) AS runs_seen
              FROM runs r2 JOIN mk2 m ON m.machine_key = r2.machine_key) x ON x.run_key = r.run_key
            WHERE x.rn = 1 OR %d = 1""" % (int(self.all_runs), int(self.all_runs)))
        st.execute("CREATE INDEX IF NOT EXISTS chosen_run ON chosen (run_key)")
        st.execute("CREATE INDEX IF NOT EXISTS chosen_label ON chosen (label)")  # a machine page's records

    # ---- passes folded --------------------------------------------------------------------------

    FOLDS = {
        # name: (source table, group columns, value columns)
        "disk_results": ("disk_result", ["disk", "model", "serial", "test", "rw", "bs", "qd", "is_all"],
                         ["mbps", "iops", "lat_mean_us", "lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_max_us"]),
        "mem_latency": ("mem_latency", ["cpu", "bytes", "pattern", "extra"], ["ns"]),
        "mem_bandwidth": ("mem_bandwidth", ["cpu", "threads", "op", "extra"], ["bytes", "gbps"]),
    }

    def _fold(self, name, by_pass):
        """Temp table f_NAME (or fp_NAME per pass): one row per machine + key, medians over passes."""
        src, groups, values = self.FOLDS[name]
        st = self.st
        j, f = ("jp_" if by_pass else "j_") + name, ("fp_" if by_pass else "f_") + name
        order = ", ".join(["c.label" + self.c] + ["t.%s%s" % (g, self.c if g in ("disk", "model", "serial", "test",
                                                                               "rw", "cpu", "pattern", "extra", "op")
                                                              else "") for g in groups]
                          + (["t.pass"] if by_pass else []))
        # nrec: the records of the row's group. A group of one record (no burn-in) is its own
        # median; only groups of several go through the median's window sort.
        st.temp_table(j, "SELECT c.label AS machine, t.*, DENSE_RANK() OVER (ORDER BY %s) AS gid, "
                         "COUNT(*) OVER (PARTITION BY %s) AS nrec "
                         "FROM %s t JOIN chosen c ON c.run_key = t.run_key" % (order, order, src))
        cols = ", ".join("MIN(%s) AS %s" % (g, g) for g in groups)
        passes = "MIN(pass) AS pass, 1 AS passes" if by_pass else "COUNT(DISTINCT pass) AS passes"
        ones = ", ".join("MIN(%s) AS one%d" % (v, i) for i, v in enumerate(values))
        sel = ["g.gid", "g.machine"] + ["g.%s" % x for x in groups] + (["g.pass"] if by_pass else []) + \
            ["g.passes"] + ["CASE WHEN g.nrec = 1 THEN g.one%d ELSE m%d.m END AS %s" % (i, i, v)
                            for i, v in enumerate(values)]
        joins = " ".join("LEFT JOIN (%s) m%d ON m%d.g = g.gid" % (_median(j, "gid", v, "nrec > 1"), i, i)
                         for i, v in enumerate(values))
        st.temp_table(f, "SELECT %s FROM (SELECT gid, MIN(machine) AS machine, %s, %s, %s, MAX(nrec) AS nrec "
                         "FROM %s GROUP BY gid) g %s" % (", ".join(sel), cols, passes, ones, j, joins))
        st.execute("CREATE INDEX IF NOT EXISTS %s_gid ON %s (gid)" % (f, f))

    def _folded(self):
        for name in self.FOLDS:
            self._fold(name, False)
            if self.by_pass:
                self._fold(name, True)

    # ---- peer medians -------------------------------------------------------------------------

    def _peer(self, out, src, value, keys, model):
        """Temp table out(gid, ref, n, same): each row's peer median for value."""
        k = ", ".join(keys)
        self.st.temp_table("pv", "SELECT gid, %s AS v, %s AS model, DENSE_RANK() OVER (ORDER BY %s) AS kg, "
                                 "DENSE_RANK() OVER (ORDER BY %s, %s) AS mg FROM %s WHERE %s IS NOT NULL"
                           % (value, model, k, k, model, src, value))
        mp = self.limits.min_peers
        self.st.temp_table(out, """
            SELECT pv.gid,
                   CASE WHEN pv.model <> '' AND km.n >= {mp} THEN km.m WHEN ka.n >= {mp} THEN ka.m END AS ref,
                   CASE WHEN pv.model <> '' AND km.n >= {mp} THEN km.n WHEN ka.n >= {mp} THEN ka.n END AS n,
                   CASE WHEN pv.model <> '' AND km.n >= {mp} THEN 1 ELSE 0 END AS same
            FROM pv JOIN ({ka}) ka ON ka.g = pv.kg JOIN ({km}) km ON km.g = pv.mg""".format(
            mp=int(mp), ka=_median("pv", "kg", "v"), km=_median("pv", "mg", "v")))
        self.st.execute("CREATE INDEX IF NOT EXISTS %s_gid ON %s (gid)" % (out, out))

    def _peers(self):
        dk = ["test", "rw", "bs", "qd", "is_all"]
        self._peer("p_mbps", "f_disk_results", "mbps", dk, "model")
        self._peer("p_p99", "f_disk_results", "lat_p99_us", dk, "model")
        self._peer("p_ns", "f_mem_latency", "ns", ["bytes", "pattern", "extra"], "cpu")
        self._peer("p_gbps", "f_mem_bandwidth", "gbps", ["op", "threads", "extra"], "cpu")

    # ---- inventory: the last record per key -------------------------------------------------------

    def _last_inventory(self):
        st = self.st
        for name, src, key in (("l_pci", "pci", "bdf"), ("l_dimm", "dimm", "bank, locator"),
                               ("l_disk", "disk", "disk"), ("l_dimm_summary", "dimm_summary", "run_key")):
            st.temp_table(name, "SELECT * FROM (SELECT c.label AS machine, t.*, ROW_NUMBER() OVER "
                                "(PARTITION BY t.run_key, %s ORDER BY t.seq DESC) AS rn FROM %s t "
                                "JOIN chosen c ON c.run_key = t.run_key) x WHERE rn = 1" % (
                                    ", ".join("t." + k.strip() for k in key.split(",")), src))
        st.temp_table("pci_best", "SELECT vendor, device, bdf, MAX(speed_gts) AS fs, MAX(width) AS fw "
                                  "FROM l_pci GROUP BY vendor, device, bdf")
        st.temp_table("dimm_counts", "SELECT bank, locator, SUM(CASE WHEN size_mb > 0 THEN 1 ELSE 0 END) AS full_, "
                                     "COUNT(*) AS seen FROM l_dimm WHERE size_mb IS NOT NULL GROUP BY bank, locator")

    # ---- expected machines ----------------------------------------------------------------------

    def _expected(self, entries):
        st = self.st
        st.execute("DROP TABLE IF EXISTS expected")
        st.execute("CREATE TEMP TABLE expected (pos BIGINT, entry TEXT, kind TEXT, key TEXT)")
        st.executemany("INSERT INTO expected (pos, entry, kind, key) VALUES (?,?,?,?)",
                       [(i, e, k, key) for i, (e, k, key) in enumerate(entries)])
        st.execute("CREATE INDEX expected_key ON expected (kind, key)")
        st.execute("CREATE INDEX expected_pos ON expected (pos)")
        # One lookup per entry through the index on (kind, key): an OR across both kinds would scan
        # the whole list for every run.
        st.temp_table("exp_runs", """
            SELECT * FROM (
              SELECT r.pos, r.run_key, ROW_NUMBER() OVER (PARTITION BY r.pos ORDER BY COALESCE(r.time, '') DESC,
                                                         r.last_seen DESC) AS rn
              FROM (
                SELECT e.pos, r.run_key, r.time, r.last_seen FROM expected e JOIN runs r
                  ON e.kind = 'mac' AND r.mac = e.key
                UNION ALL
                SELECT e.pos, r.run_key, r.time, r.last_seen FROM expected e JOIN runs r
                  ON e.kind = 'serial' AND r.serial = e.key
              ) r) x WHERE rn = 1""")
        st.execute("CREATE INDEX exp_runs_pos ON exp_runs (pos)")

    def expected_rows(self):
        """One row per expected entry (in file order), then machines that reported without being listed."""
        sa = float(self.silent_after)
        rows = self.st.query("""
            SELECT e.entry, e.kind, c.label, r.name, r.end_status, r.end_errors, r.last_seen, r.first_seen,
                   r.records, r.passes, r.mac, r.serial,
                   (SELECT COUNT(*) FROM runs r3 WHERE r3.machine_key = r.machine_key) AS runs
            FROM expected e LEFT JOIN exp_runs x ON x.pos = e.pos LEFT JOIN runs r ON r.run_key = x.run_key
            LEFT JOIN chosen c ON c.run_key = r.run_key
            ORDER BY e.pos""")
        for r in rows:
            yield self._expected_row(r, sa)
        extra = self.st.query("""
            SELECT c.label, r.mac, r.serial, r.end_status, r.last_seen FROM chosen c JOIN runs r
              ON r.run_key = c.run_key
            WHERE NOT EXISTS (SELECT 1 FROM expected e WHERE e.kind = 'mac' AND e.key = r.mac)
              AND NOT EXISTS (SELECT 1 FROM expected e WHERE e.kind = 'serial' AND e.key = r.serial)
            ORDER BY c.label%s""" % self.c)
        for r in extra:
            yield {"entry": "", "kind": "", "machine": r["label"], "status": "not expected", "mac": r["mac"] or "",
                   "serial": r["serial"] or "", "last_seen": _iso(r["last_seen"]), "records": None,
                   "passes": None, "runs": None, "detail": "reported but not in the --expected list"}

    def _expected_row(self, r, silent_after):
        base = {"entry": r["entry"], "kind": r["kind"], "machine": r["label"] or "", "mac": r["mac"] or "",
                "serial": r["serial"] or "", "last_seen": _iso(r["last_seen"]), "records": r["records"],
                "passes": r["passes"] or None, "runs": r["runs"] if r["records"] is not None else None}
        if r["records"] is None:
            base.update(status="never reported", detail="no upload from this machine")
        elif r["end_status"] is None:
            age = self.now - r["last_seen"]
            if age > silent_after:
                base.update(status="started, silent",
                            detail="no end record; nothing for %.0f min (--silent-after %.0f s)" % (age / 60,
                                                                                                   silent_after))
            else:
                base.update(status="started, running", detail="no end record yet; last upload %.0f s ago" % age)
        elif r["end_status"] == "ok":
            base.update(status="passed", detail="")
        else:
            base.update(status="failed", detail="end status %s, %s errors" % (r["end_status"],
                                                                               text(r["end_errors"]) or "?"))
        return base

    # ---- tables --------------------------------------------------------------------------------

    def rows(self, name):
        """The rows of one table, in display order, fetched in batches."""
        c = self.c
        st = self.st
        if name == "files":
            return st.query("""SELECT u.name AS file, u.kind AS format, u.lines, u.records, u.bad, 1 AS runs
                               FROM chosen c JOIN runs r ON r.run_key = c.run_key
                               JOIN uploads u ON u.raw_path = r.raw_path ORDER BY c.label%s""" % c)
        if name == "machines":
            return (_machine_row(r) for r in st.query(
                """SELECT c.label AS machine, r.named_by, r.upload_name, r.peer, r.mac, r.product, r.cpu, r.cpus,
                          r.version, r.time, c.runs_seen, r.records, r.passes, r.end_status, r.end_errors
                   FROM chosen c JOIN runs r ON r.run_key = c.run_key ORDER BY c.label%s""" % c))
        if name == "disks":
            return st.query("""SELECT machine, disk, driver, model, serial, firmware, lba_bytes, blocks, pci, link_gbps
                               FROM l_disk ORDER BY machine%s, seq""" % c)
        if name == "disk_results":
            f = "fp_disk_results" if self.by_pass else "f_disk_results"
            # The "vs median" columns compare each row with the peers of its folded row.
            return (_clean(r, ("gid", "is_all", "ref_mbps", "ref_p99", "fgid")) for r in st.query(
                """SELECT t.*, CASE WHEN a.ref <> 0 THEN t.mbps / a.ref END AS mbps_vs_median,
                          CASE WHEN b.ref <> 0 THEN t.lat_p99_us / b.ref END AS p99_vs_median
                   FROM {f} t {fj} LEFT JOIN p_mbps a ON a.gid = {g} LEFT JOIN p_p99 b ON b.gid = {g}
                   ORDER BY t.test{c}, t.rw{c}, COALESCE(t.bs, 0), COALESCE(t.qd, 0), t.machine{c}, t.disk{c}
                   {p}""".format(f=f, c=c, p=", t.pass" if self.by_pass else "",
                                 fj=self._fold_join("disk_results"), g=self._fold_gid())))
        if name in ("mem_latency", "mem_bandwidth"):
            lat = name == "mem_latency"
            f = ("fp_" if self.by_pass else "f_") + name
            v, p, col = ("ns", "p_ns", "ns_vs_median") if lat else ("gbps", "p_gbps", "gbps_vs_median")
            order = ("COALESCE(t.bytes, 0), t.pattern%s" % c) if lat else ("t.op%s, COALESCE(t.threads, 0)" % c)
            return (_clean(r, ("gid", "fgid")) for r in st.query(
                """SELECT t.*, CASE WHEN a.ref <> 0 THEN t.{v} / a.ref END AS {col}
                   FROM {f} t {fj} LEFT JOIN {p} a ON a.gid = {g}
                   ORDER BY {order}, t.extra{c}, t.machine{c}{pp}""".format(
                    v=v, col=col, f=f, p=p, order=order, c=c, pp=", t.pass" if self.by_pass else "",
                    fj=self._fold_join(name), g=self._fold_gid())))
        if name == "pci":
            return (_pci_row(r) for r in st.query(
                """SELECT l.*, b.fs AS fleet_speed_gts, b.fw AS fleet_width FROM l_pci l
                   JOIN pci_best b ON b.vendor IS NOT DISTINCT FROM l.vendor AND b.device IS NOT DISTINCT FROM l.device
                                  AND b.bdf IS NOT DISTINCT FROM l.bdf
                   ORDER BY l.bdf{c}, l.machine{c}""".format(c=c)))
        if name == "dimms":
            return (_dimm_row(r) for r in st.query(
                """SELECT l.*, d.full_, d.seen FROM l_dimm l LEFT JOIN dimm_counts d ON d.bank = l.bank
                   AND d.locator = l.locator ORDER BY l.bank{c}, l.locator{c}, l.machine{c}""".format(c=c)))
        if name == "dimm_summary":
            return ({"machine": r["machine"], "populated": r["populated"], "slots": r["slots"],
                     "total_mb": r["total_mb"], "warnings": json.loads(r["warnings"] or "[]")}
                    for r in st.query("SELECT * FROM l_dimm_summary ORDER BY machine%s" % c))
        if name == "errors":
            return ({"machine": r["label"], "pass": r["pass"] or None, "where": r["where_"], "message": r["message"]}
                    for r in st.query("""SELECT c.label, e.pass, e.where_, e.message FROM error e
                                         JOIN chosen c ON c.run_key = e.run_key ORDER BY c.label%s, e.seq""" % c))
        if name == "expected":
            return self.expected_rows() if self.expected is not None else iter(())
        raise KeyError(name)

    def _fold_join(self, name):
        """With --by-pass, each per-pass row finds its folded row (for the peer median)."""
        if not self.by_pass:
            return ""
        _, groups, _ = self.FOLDS[name]
        on = " AND ".join("ff.%s IS NOT DISTINCT FROM t.%s" % (g, g) for g in groups)
        return "JOIN (SELECT gid AS fgid, machine AS fm, %s FROM f_%s) ff ON ff.fm = t.machine AND %s" % (
            ", ".join(groups), name, on)

    def _fold_gid(self):
        return "ff.fgid" if self.by_pass else "t.gid"

    # ---- flags ---------------------------------------------------------------------------------

    def flags(self):
        """Every flag, as Flag objects sorted like folder mode's."""
        lim = self.limits
        st = self.st
        out = []
        disk_sql = """SELECT t.machine, t.disk, t.test, t.rw, t.model, t.{v} AS v, p.ref, p.n, p.same
                      FROM f_disk_results t JOIN {p} p ON p.gid = t.gid
                      WHERE p.ref IS NOT NULL AND t.{v} IS NOT NULL AND t.{v} {op} ? * p.ref"""
        for r in st.query(disk_sql.format(v="mbps", p="p_mbps", op="<"), (lim.disk_ratio,)):
            out.append(Flag(r["machine"], "disk_mbps", _disk_what(r), fmt_value(r["v"], "MB/s"),
                            "median %s (%s)" % (fmt_value(r["ref"], "MB/s"), _who(r)),
                            "MB/s under %g x median" % lim.disk_ratio, r["v"], r["ref"]))
        for r in st.query(disk_sql.format(v="lat_p99_us", p="p_p99", op=">"), (lim.lat_ratio,)):
            out.append(Flag(r["machine"], "disk_p99", _disk_what(r), "p99 " + fmt_value(r["v"], "us"),
                            "median %s (%s)" % (fmt_value(r["ref"], "us"), _who(r)),
                            "p99 latency over %g x median" % lim.lat_ratio, r["v"], r["ref"]))
        mem_sql = """SELECT t.*, t.{v} AS v, p.ref, p.n, p.same FROM {f} t JOIN {p} p ON p.gid = t.gid
                     WHERE p.ref IS NOT NULL AND p.ref <> 0 AND t.{v} IS NOT NULL
                       AND ABS(t.{v} / p.ref - 1) > ?"""
        tol = lim.mem_tolerance
        for kind, f, v, p, unit, desc in (
                ("mem_latency", "f_mem_latency", "ns", "p_ns", "ns", lambda r: "memory latency %s %s%s" % (
                    size_name(r["bytes"]), r["pattern"], " " + r["extra"] if r["extra"] else "")),
                ("mem_bandwidth", "f_mem_bandwidth", "gbps", "p_gbps", "GB/s",
                 lambda r: "memory bandwidth %s %s thread(s)%s" % (r["op"], fmt_value(_int(r["threads"])),
                                                                   " " + r["extra"] if r["extra"] else ""))):
            for r in st.query(mem_sql.format(v=v, f=f, p=p), (tol,)):
                off = (r["v"] / r["ref"] - 1) * 100
                out.append(Flag(r["machine"], kind, desc(r), "%s (%+.0f%%)" % (fmt_value(r["v"], unit), off),
                                "median %s (%s)" % (fmt_value(r["ref"], unit), _who(r, "results")),
                                "more than %g%% off the median" % (tol * 100), r["v"], r["ref"]))
        out += self._pci_flags()
        for r in st.query("""SELECT l.machine, l.bank, l.locator, d.full_, d.seen FROM l_dimm l
                             JOIN dimm_counts d ON d.bank = l.bank AND d.locator = l.locator
                             WHERE l.size_mb = 0 AND 2 * d.full_ > d.seen"""):
            slot = " ".join(x for x in (r["bank"], r["locator"]) if x)
            out.append(Flag(r["machine"], "dimm_empty", "DIMM slot %s" % slot, "empty",
                            "populated on %d of %d machines" % (r["full_"], r["seen"]),
                            "slot empty where most machines have it populated", 0, r["full_"]))
        for r in st.query("SELECT machine, warnings FROM l_dimm_summary WHERE warnings <> '[]'"):
            for w in json.loads(r["warnings"]):
                out.append(Flag(r["machine"], "dimm_warning", "DIMM population", w, "", "dimm_summary warning"))
        for r in st.query("""SELECT c.label, r.end_status, r.end_errors, r.end_note, r.records, r.upload_name
                             FROM chosen c JOIN runs r ON r.run_key = c.run_key
                             WHERE r.end_status IS NULL OR r.end_status <> 'ok'"""):
            if r["end_status"] is None:
                out.append(Flag(r["label"], "no_end", "run", "no end record",
                                "%d records from %s" % (r["records"], r["upload_name"]), "the machine never finished"))
            else:
                detail = "%s errors" % text(_int(r["end_errors"])) if r["end_errors"] is not None else ""
                if r["end_note"]:
                    detail += ("; " if detail else "") + r["end_note"]
                out.append(Flag(r["label"], "end_status", "run", "status %s" % r["end_status"], detail,
                                "end status not ok"))
        if self.expected is not None:
            for r in self.expected_rows():
                if r["status"] == "never reported":
                    out.append(Flag(r["entry"], "never_reported", "expected machine", "never reported",
                                    "listed by %s in --expected" % r["kind"], "no upload from an expected machine"))
                elif r["status"] == "started, silent":
                    out.append(Flag(r["machine"] or r["entry"], "silent", "run", "started, then silent",
                                    r["detail"], "no upload for --silent-after seconds and no end record"))
        out.sort(key=lambda f: (f.machine, f.kind, f.what))
        return out

    def _pci_flags(self):
        """Links downtrained or below the fleet's best, a bridge's flag folded into its device's
        (the same rule as outliers._pci_flags, over the flagged links only)."""
        found = {}
        for r in self.st.query("""SELECT l.*, b.fs, b.fw FROM l_pci l JOIN pci_best b
                                    ON b.vendor IS NOT DISTINCT FROM l.vendor
                                   AND b.device IS NOT DISTINCT FROM l.device AND b.bdf IS NOT DISTINCT FROM l.bdf
                                  WHERE l.downtrained = 1 OR l.speed_gts < b.fs OR l.width < b.fw"""):
            s, w, fs, fw = r["speed_gts"], r["width"], r["fs"], r["fw"]
            ms, mw = r["max_speed_gts"], r["max_width"]
            now = "%s GT/s x%s" % (fmt_value(s), fmt_value(w))
            path = json.loads(r["path"] or "[]")
            if r["downtrained"] == 1:
                narrow = w is not None and mw is not None and w < mw
                flag = Flag(r["machine"], "pci_link", "PCIe link %s" % r["bdf"], now + ", downtrained",
                            "capable of %s GT/s x%s" % (fmt_value(ms), fmt_value(mw)),
                            "link record says downtrained", w if narrow else s, mw if narrow else ms)
            else:
                narrow = w is not None and fw is not None and w < fw
                flag = Flag(r["machine"], "pci_link", "PCIe link %s" % r["bdf"], now,
                            "fleet best %s GT/s x%s" % (fmt_value(fs), fmt_value(fw)),
                            "slower or narrower than the same function elsewhere", w if narrow else s,
                            fw if narrow else fs)
            found[(r["machine"], r["bdf"])] = ({"path": path, "speed_gts": s, "width": w}, flag)
        return outliers.fold_bridge_links(found)

    def run_records(self, label):
        """The records of the chosen run with this label (for its machine page)."""
        for r in self.st.query("""SELECT x.body FROM records x JOIN chosen c ON c.run_key = x.run_key
                                  WHERE c.label = ? ORDER BY x.seq""", (label,)):
            yield json.loads(r["body"])


def _int(v):
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _who(r, what="results"):
    return "%s, %d %s" % ("same model" if r["same"] else "all models", r["n"], what)


def _disk_what(r):
    what = "disk %s %s %s" % (r["disk"], r["test"], r["rw"])
    return what + (" (%s)" % r["model"] if r["model"] else "")


def _clean(r, drop):
    for k in drop:
        r.pop(k, None)
    r.pop("run_key", None)
    for k in ("bs", "qd", "bytes", "threads"):
        if k in r:
            r[k] = _int(r[k])
    return r


def _iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) if t is not None else ""


def _machine_row(r):
    return {"machine": r["machine"], "named_by": r["named_by"],
            "source": "%s from %s" % (r["upload_name"] or "?", r["peer"] or "?"),
            "product": r["product"] or "", "cpu": r["cpu"] or "", "cpus": _int(r["cpus"]),
            "version": r["version"] or "", "time": r["time"] or "", "runs_seen": r["runs_seen"],
            "records": r["records"], "passes": r["passes"] or None,
            "status": r["end_status"] if r["end_status"] is not None else "(no end)",
            "errors": _int(r["end_errors"])}


def _pci_row(r):
    down = r["downtrained"]
    return {"machine": r["machine"], "bdf": r["bdf"],
            "vendor": json.loads(r["vendor"]) if r["vendor"] else None,
            "device": json.loads(r["device"]) if r["device"] else None,
            "class": json.loads(r["class"]) if r["class"] else None,
            "speed_gts": r["speed_gts"], "width": _int(r["width"]), "max_speed_gts": r["max_speed_gts"],
            "max_width": _int(r["max_width"]), "downtrained": None if down is None else bool(down),
            "path": json.loads(r["path"] or "[]"), "fleet_speed_gts": r["fleet_speed_gts"],
            "fleet_width": _int(r["fleet_width"])}


def _dimm_row(r):
    row = {k: r[k] for k in ("machine", "bank", "locator", "mem_type", "manufacturer", "part", "serial")}
    for k in ("size_mb", "speed_mts", "configured_mts", "ranks"):
        row[k] = _int(r[k])
    row["populated_on"] = "%d/%d" % (r["full_"], r["seen"]) if r["seen"] else ""
    return row


MAC_LINE_RE = re.compile(r"^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$")


def read_expected(path):
    """The --expected file: one MAC or serial per line (a word; '#' starts a comment).
    Returns [(entry, kind, key)]."""
    from .ingest import norm_mac
    out, seen = [], set()
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            word = line.split("#", 1)[0].strip().split()
            if not word:
                continue
            entry = word[0]
            if MAC_LINE_RE.match(entry):
                kind, key = "mac", norm_mac(entry)
            else:
                kind, key = "serial", entry
            if (kind, key) not in seen:
                seen.add((kind, key))
                out.append((entry, kind, key))
    return out
