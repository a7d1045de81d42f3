"""Command line: read the inputs, build the tables, find the flags, print."""
import argparse
import json
import os
import re
import sys

from . import extract, findings, fleet, html, outliers, tables
from .store import StoreError

DESCRIPTION = """\
Compare baremark results from many machines: serial captures from a console
server (one file per machine) and/or baremark .jsonl results files. Prints a
table per kind of result comparing the machines, then the outliers ("flags").
"""

EPILOG = """\
inputs:
  FILE is a serial capture or a .jsonl results file; a folder means every file
  in it (-r: and in its sub-folders); - reads standard input. HTML reports
  (.html, .htm: the uploaded machine pages) are not captures and are skipped. A record is a line holding
  "BAREMARK " and a JSON object; the prefix may sit anywhere on the line (after
  escape sequences, a progress line, a tag). ANSI escape sequences and control
  characters are removed first; a record wrapped onto following lines is joined
  again. An object that does not parse (cut by a reset, two writers on one
  line), or that holds values no baremark record can hold (a lone surrogate,
  an integer beyond 64 bits, a number beyond 1e18, nesting deeper than 32), is
  skipped and counted per file (the "bad" column; --verbose lists the first
  1000 lines of each file with the reason). Files ending .jsonl/.json, or holding bare {...} lines and no prefix,
  are read as one JSON object per line.

machines, runs and passes:
  A run is the records from one "run" record to the next. Its machine is named
  by its "system" record: the serial number, else the product name (qualified
  by the file when two files share it), else the --tag value or the file name.
  A run cut off before its system record takes the name of its neighbours in
  the same file. Each machine is compared through its last run (the last in
  its file; between files, the latest run time); --all-runs compares every
  run (machine#1, machine#2, ... in run-time order). The same run read twice (serial capture and .jsonl) counts
  once. Records with "pass": N are burn-in passes; a row shows the median over
  the passes (--by-pass: one row per pass). Unknown record types and missing
  fields are ignored.

  A shared log holding several machines needs a tag on each line telling them
  apart: --tag REGEX is searched in the text before "BAREMARK" (from the start
  of the line, or from the end of the previous record on the same line) and
  its first group (or whole match) names the machine's stream. Examples:
    --tag '^\\[([^]]+)\\]'   for "[rack2-node07] BAREMARK {...}"
    --tag '(\\S+): *$'       for syslog "Mar 12 03:14:07 consrv node07: BAREMARK {...}"
  Lines where the tag is not found form one more stream. Without --tag a file
  is one stream: records of two machines interleaved without tags cannot be
  told apart (a run then holds whatever its lines hold).

tables (--tables NAME,...; default all):
  files          per input: format, lines, records, bad records, runs
  machines       per machine: how it was named, where read, product, cpu,
                 version, run time, runs seen, records, passes, end status
  disks          disk records: id, driver, model, serial, firmware, lba, pci
  disk_results   one row per machine + disk + test: MB/s, IOPS, latency mean,
                 p50, p99, p99.9, max (us), and MB/s and p99 vs the peer median
  mem_latency    per machine + size + pattern: ns, vs the median
  mem_bandwidth  per machine + op + threads: GB/s, vs the median
  pci            per machine + PCI function: link speed/width, its maximum,
                 downtrained, the fleet's best link for the same function
  dimms          per machine + slot (bank, locator): size, type, speeds, part,
                 and on how many machines the slot is populated
  dimm_summary   populated/slots, total size, warnings
  errors         error records
  flags          the outliers (also printed as a list at the end)

flags (outliers; each compares a machine with its peers, never a fixed figure):
  disk_mbps      MB/s under --disk-ratio (0.5) x the median of the same test
                 (test name, rw, bs, qd) on disks of the same model, when at
                 least --min-peers (3) such disks ran it; otherwise across all
                 disks that ran it whatever their model (so in a mixed fleet a
                 lone model is compared with everyone). Aggregate results
                 (disk "all") are compared only with other aggregates.
  disk_p99       p99 latency over --lat-ratio (2.0) x that median
  mem_latency    ns more than --mem-tolerance (20%) above or below the median
                 of the same size and pattern (machines with the same CPU brand
                 when there are --min-peers of them, else all)
  mem_bandwidth  GB/s more than --mem-tolerance off the median of the same op
                 and thread count (same peers rule)
  pci_link       a link its record marks downtrained, or slower/narrower than
                 the best link the fleet shows for the same function (vendor,
                 device, BDF); a bridge and the device below it reporting the
                 same link make one flag
  dimm_empty     a slot (bank + locator) empty where more than half of the
                 machines reporting that slot have it populated
  dimm_warning   each warning of a dimm_summary record
  end_status     an end record whose status is not "ok"
  no_end         no end record: the machine never finished
  no_records     an input without any record: baremark never ran there
  Disk and memory values are medians over burn-in passes; with fewer than
  --min-peers values to compare, those rules flag nothing (no median to trust).

output:
  default        aligned text tables, then the flags as a list
  --format csv   CSV on standard output (one table: plain CSV; several: each
                 after a "# table NAME" line, separated by a blank line)
  --format json  (or --json) one JSON document: "limits" (the thresholds),
                 "tables" (each selected table as a list of rows), "flags"
  --csv DIR      also write DIR/NAME.csv for every selected table (header-only
                 when empty), raw values at full precision
  -q             only the flags
  --html OUT.html also write the fleet page (flags, each machine's headline
                 figures against the fleet median, outliers marked) and one
                 page per machine in OUT-machines/, linked from it; pages are
                 self-contained (no script, nothing fetched). Machine pages
                 come from build/host/baremark-html (`make host`; or
                 BAREMARK_HTML=path), the renderer baremark itself runs

the store (--db, instead of FILEs):
  --db sqlite:PATH | postgresql://...  reads what baremark-collect stored: the
                 same tables and flags, computed in SQL (one run per machine:
                 the latest by run time; --all-runs: every run). The files
                 table lists each compared run's stored upload.
  --expected FILE  one MAC (aa:bb:cc:dd:ee:ff) or serial per line ('#'
                 comments): the "expected" table shows each as never
                 reported, started (running, or silent when nothing came for
                 --silent-after seconds, default 3600, and no end record),
                 failed (end status not ok) or passed; machines that reported
                 without being listed follow as "not expected". Flags:
  never_reported an expected machine with no upload at all
  silent         a started run with no end record and nothing for --silent-after s

exit status: 0 no flags, 1 flags, 2 usage error (bad option, unreadable file).

examples:
  baremark-report /var/log/conserver/rack2-*.log
  baremark-report --csv out/ --tables disk_results,pci results/*.jsonl
  baremark-report --format csv --tables flags rack.log > flags.csv
"""


class _Parser(argparse.ArgumentParser):
    """argparse writing help and usage errors to the streams main() was given."""
    out = err = None

    def _print_message(self, message, file=None):
        if message:
            stream = self.err if file is sys.stderr else self.out
            (stream or file or sys.stderr).write(message)


def build_parser(out=None, err=None):
    """The option parser; --help documents the tool."""
    ap = _Parser(prog="baremark-report", description=DESCRIPTION, epilog=EPILOG,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.out, ap.err = out, err
    ap.add_argument("inputs", nargs="*", metavar="FILE", help="serial capture, .jsonl file, folder, or - (stdin)")
    ap.add_argument("-r", "--recursive", action="store_true", help="read folders and their sub-folders")
    ap.add_argument("--db", metavar="URL", help="read the store: sqlite:PATH or postgresql://... (no FILEs)")
    ap.add_argument("--expected", metavar="FILE", help="with --db: MACs or serials of the machines that should report")
    ap.add_argument("--silent-after", type=float, default=3600, metavar="S",
                    help="with --expected: a run without an end and quiet this long is silent (%(default)s)")
    ap.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output on stdout (text)")
    ap.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    ap.add_argument("--csv", metavar="DIR", help="write one CSV file per table into DIR")
    ap.add_argument("--tables", metavar="LIST", default="all", help="comma-separated tables to show (all)")
    ap.add_argument("--html", metavar="OUT.html", help="write the fleet page and a page per machine")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the flags")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list unreadable records, duplicate and earlier runs on stderr")
    ap.add_argument("--by-pass", action="store_true", help="one row per burn-in pass instead of the median")
    ap.add_argument("--all-runs", action="store_true", help="compare every run, not only each machine's last")
    ap.add_argument("--tag", metavar="REGEX", help="split shared logs into machines by this tag")
    ap.add_argument("--input-format", choices=("auto", "serial", "jsonl"), default="auto",
                    help="how to read the inputs (auto: by name and content)")
    ap.add_argument("--disk-ratio", type=float, default=outliers.DISK_RATIO, metavar="R",
                    help="flag MB/s under R x median (%(default)s)")
    ap.add_argument("--lat-ratio", type=float, default=outliers.LAT_RATIO, metavar="R",
                    help="flag p99 latency over R x median (%(default)s)")
    ap.add_argument("--mem-tolerance", type=float, default=outliers.MEM_TOLERANCE, metavar="F",
                    help="flag memory results more than F off the median (%(default)s)")
    ap.add_argument("--min-peers", type=int, default=outliers.MIN_PEERS, metavar="N",
                    help="compare only with at least N values (%(default)s)")
    return ap


class UsageError(Exception):
    """Bad options or unreadable inputs: exit status 2."""


# Files next to the captures that are not captures: the uploaded HTML reports.
NOT_CAPTURES = (".html", ".htm")


def _folder_files(folder, recursive):
    """The files of a folder, sorted (hidden ones and sub-folders' contents only with recursive)."""
    if not recursive:
        return [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                if not n.startswith(".") and os.path.isfile(os.path.join(folder, n))]
    out = []
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(os.path.join(top, n) for n in sorted(files) if not n.startswith("."))
    return out


def _input_paths(inputs, recursive=False):
    """The files to read: folders expanded (sorted), HTML reports skipped, duplicates dropped."""
    paths, seen = [], set()
    for item in inputs:
        if item == "-":
            candidates = ["-"]
        elif os.path.isdir(item):
            candidates = [p for p in _folder_files(item, recursive) if not p.lower().endswith(NOT_CAPTURES)]
        elif os.path.isfile(item):
            if item.lower().endswith(NOT_CAPTURES):
                continue
            candidates = [item]
        else:
            raise UsageError("%s: no such file or folder" % item)
        for p in candidates:
            real = p if p == "-" else os.path.realpath(p)
            if real not in seen:
                seen.add(real)
                paths.append(p)
    return paths


def read_sources(paths, fmt, tag_re):
    """Extract records from every input."""
    sources = []
    for p in paths:
        try:
            if p == "-":
                sources.append(extract.extract_bytes(sys.stdin.buffer.read(), "stdin", fmt, tag_re))
            else:
                sources.append(extract.extract_file(p, fmt, tag_re))
        except OSError as e:
            raise UsageError("%s: %s" % (p, e.strerror or e))
    return sources


def build_tables(runs, sources, all_runs_seen, limits, by_pass):
    """Every table's rows (annotated with peer medians) and the flags."""
    folded = {
        "disk_results": fleet.disk_result_rows(runs),
        "mem_latency": fleet.mem_latency_rows(runs),
        "mem_bandwidth": fleet.mem_bandwidth_rows(runs),
        "pci": fleet.pci_rows(runs),
        "dimms": fleet.dimm_rows(runs),
        "dimm_summary": fleet.dimm_summary_rows(runs),
    }
    peers = outliers.all_peers(folded, limits)
    flags = outliers.find_flags(runs, sources, folded, limits, peers)
    shown = dict(folded)
    if by_pass:
        shown["disk_results"] = fleet.disk_result_rows(runs, True)
        shown["mem_latency"] = fleet.mem_latency_rows(runs, True)
        shown["mem_bandwidth"] = fleet.mem_bandwidth_rows(runs, True)

    # "vs median" columns, against the medians the flags used.
    mbps, p99 = peers["disk"]
    for r in shown["disk_results"]:
        r["mbps_vs_median"], r["p99_vs_median"] = mbps.ratio(r), p99.ratio(r)
    lat = peers["mem_latency"]
    for r in shown["mem_latency"]:
        r["ns_vs_median"] = lat.ratio(r)
    bw = peers["mem_bandwidth"]
    for r in shown["mem_bandwidth"]:
        r["gbps_vs_median"] = bw.ratio(r)
    best = outliers.pci_fleet_best(folded["pci"])
    for r in shown["pci"]:
        r["fleet_speed_gts"], r["fleet_width"] = best[outliers.pci_key(r)]
    counts = outliers.dimm_majority(folded["dimms"])
    for r in shown["dimms"]:
        full, seen = counts.get((r.get("bank"), r.get("locator")), (0, 0))
        r["populated_on"] = "%d/%d" % (full, seen) if seen else ""

    runs_per_source = {}
    for run in all_runs_seen:
        runs_per_source[run.source.path] = runs_per_source.get(run.source.path, 0) + 1
    shown["files"] = [{"file": s.path, "format": s.fmt, "lines": s.lines, "records": len(s.found),
                       "bad": s.bad_count, "runs": runs_per_source.get(s.path, 0)} for s in sources]
    shown["machines"] = fleet.machine_rows(runs)
    shown["disks"] = fleet.disk_rows(runs)
    shown["errors"] = fleet.error_rows(runs)
    shown["flags"] = [f.as_dict() for f in flags]
    shown["findings"] = findings.summary_rows(runs)
    return shown, flags


def _selected(spec):
    """The table names --tables asks for, in display order."""
    if spec in ("", "all"):
        return list(tables.ORDER)
    names = [n.strip() for n in spec.split(",") if n.strip()]
    valid = tables.ORDER + tables.DB_ONLY
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise UsageError("unknown table %s (tables: %s)" % (", ".join(unknown), ", ".join(valid)))
    return [n for n in valid if n in names]


def _verbose(sources, all_runs_seen, chosen, err):
    """Bad lines, duplicate runs and runs not compared, for a person on stderr."""
    for s in sources:
        for b in s.bad:
            err.write("%s:%d: %s: %s\n" % (s.path, b.line, b.reason, b.text))
        if s.bad_count > len(s.bad):
            err.write("%s: %d more bad record(s) not listed\n" % (s.path, s.bad_count - len(s.bad)))
    picked = {id(r) for r in chosen}
    copies = set()
    for run in all_runs_seen:
        for d in run.duplicates:
            copies.add(d)
            err.write("%s: same run as %s, read once\n" % (d, run.where))
    for run in all_runs_seen:
        if id(run) not in picked and run.where not in copies:
            err.write("%s: earlier run of %s, not compared (--all-runs compares it)\n" % (run.where, run.machine))


def main(argv=None, out=None, err=None):
    """Run the tool; returns the exit status (0 no flags, 1 flags, 2 usage error)."""
    # A file name that is not UTF-8 must not end the report on output.
    for stream in (sys.stdout, sys.stderr):
        if out is None or err is None:
            try:
                stream.reconfigure(errors="backslashreplace")
            except (AttributeError, ValueError):
                pass
    out = out or sys.stdout
    err = err or sys.stderr
    ap = build_parser(out, err)
    try:
        args = ap.parse_args(argv)
        if not args.inputs and not args.db:
            ap.error("the following arguments are required: FILE (or --db URL)")
    except SystemExit as e:  # argparse exits 2 on bad options, 0 on --help
        return e.code if isinstance(e.code, int) else 2
    try:
        names = _selected(args.tables)
        tag_re = None
        if args.tag:
            try:
                tag_re = re.compile(args.tag)
            except re.error as e:
                raise UsageError("--tag: bad regular expression: %s" % e)
        if not (0 < args.disk_ratio and 0 < args.lat_ratio and 0 <= args.mem_tolerance and args.min_peers >= 1):
            raise UsageError("thresholds must be positive and --min-peers at least 1")
        if args.db and args.inputs:
            raise UsageError("--db reads the store: give no FILE with it")
        if args.expected and not args.db:
            raise UsageError("--expected needs --db")
        if args.db:
            from . import dbreport
            if args.db.startswith("sqlite:") and not os.path.isfile(args.db[len("sqlite:"):]):
                raise UsageError("%s: no such store file" % args.db)
            expected = None
            if args.expected:
                try:
                    expected = dbreport.read_expected(args.expected)
                except OSError as e:
                    raise UsageError("--expected %s: %s" % (args.expected, e.strerror or e))
                if "expected" not in names and args.tables in ("", "all"):
                    names.insert(names.index("flags"), "expected")
        else:
            fmt = None if args.input_format == "auto" else args.input_format
            sources = read_sources(_input_paths(args.inputs, args.recursive), fmt, tag_re)
        if args.csv:
            try:
                os.makedirs(args.csv, exist_ok=True)
            except OSError as e:
                raise UsageError("--csv %s: %s" % (args.csv, e.strerror or e))
    except UsageError as e:
        err.write("baremark-report: %s\n" % e)
        return 2

    limits = outliers.Limits(args.disk_ratio, args.lat_ratio, args.mem_tolerance, args.min_peers)
    if args.db:
        return _db_report(args, names, limits, expected, out, err)
    all_runs_seen = fleet.split_runs(sources)
    chosen = fleet.choose_runs(all_runs_seen, args.all_runs)
    shown, flags = build_tables(chosen, sources, all_runs_seen, limits, args.by_pass)

    for s in sources:
        if s.bad_count:
            err.write("baremark-report: %s: %d record(s) could not be read%s\n"
                      % (s.path, s.bad_count, "" if args.verbose else " (--verbose lists them)"))
    if args.verbose:
        _verbose(sources, all_runs_seen, chosen, err)

    if args.csv:
        try:
            for name in names:
                with open(os.path.join(args.csv, name + ".csv"), "w", newline="", encoding="utf-8",
                          errors="backslashreplace") as f:
                    f.write(tables.csv_text(name, shown[name]))
        except OSError as e:
            err.write("baremark-report: --csv %s: %s\n" % (args.csv, e.strerror or e))
            return 2

    if args.html and html.write_fleet_html(args.html, chosen, shown, flags, limits, err) != 0:
        return 2

    if args.format == "json":
        doc = {"limits": limits.__dict__, "flags": shown["flags"], "findings": shown["findings"],
               "tables": {n: tables.json_rows(n, shown[n]) for n in names if n != "flags"}}
        json.dump(doc, out, indent=1, sort_keys=False)
        out.write("\n")
    elif args.format == "csv":
        wanted = ["flags"] if args.quiet else names
        parts = [n for n in wanted if shown[n] or len(wanted) == 1]
        for i, n in enumerate(parts):
            if len(parts) > 1:
                out.write("%s# table %s\n" % ("\n" if i else "", n))
            out.write(tables.csv_text(n, shown[n]))
    else:
        out.write(findings.render_text(shown["findings"], chosen))
        if not args.quiet:
            for n in names:
                if n != "flags" and shown[n]:
                    out.write(tables.render_text(n, shown[n]) + "\n")
        out.write("FLAGS: %d\n" % len(flags))
        for f in flags:
            out.write("  %s\n" % f.line())
    return 1 if flags else 0


class _StoredRun:
    """A compared run of the store, for its machine page: label and records (read when needed)."""

    def __init__(self, rep, label):
        self.rep, self.label = rep, label

    @property
    def records(self):
        return self.rep.run_records(self.label)

    def of_type(self, kind):
        """The records of one type, in order (as fleet.Run.of_type), read from the store."""
        return [r for r in self.records if isinstance(r, dict) and r.get("type") == kind]


def _db_report(args, names, limits, expected, out, err):
    """--db: the tables and flags from the store, streamed table by table."""
    from . import dbreport
    from .store import open_store
    try:
        st = open_store(args.db, create=False)
    except StoreError as e:
        err.write("baremark-report: %s\n" % e)
        return 2
    try:
        rep = dbreport.DbReport(st, limits, args.all_runs, args.by_pass, expected, args.silent_after)
        flags = rep.flags()
        flag_rows = [f.as_dict() for f in flags]

        def rows(n):
            return iter(flag_rows) if n == "flags" else rep.rows(n)

        if args.csv:
            try:
                for name in names:
                    with open(os.path.join(args.csv, name + ".csv"), "w", newline="", encoding="utf-8",
                              errors="backslashreplace") as f:
                        tables.csv_stream(name, rows(name), f)
            except OSError as e:
                err.write("baremark-report: --csv %s: %s\n" % (args.csv, e.strerror or e))
                return 2
        if args.html:
            shown = {n: list(rep.rows(n)) for n in ("machines", "disk_results", "mem_latency", "mem_bandwidth")}
            runs = [_StoredRun(rep, m["machine"]) for m in shown["machines"]]
            shown["findings"] = findings.summary_rows(runs)
            if html.write_fleet_html(args.html, runs, shown, flags, limits, err) != 0:
                return 2
        if args.format == "json":
            out.write('{"limits": %s, "flags": %s, "tables": {' % (json.dumps(limits.__dict__), json.dumps(flag_rows)))
            first = True
            for n in names:
                if n == "flags":
                    continue
                out.write('%s\n "%s": [' % ("" if first else ",", n))
                first = False
                for i, r in enumerate(rows(n)):
                    out.write(("," if i else "") + "\n  " + json.dumps(tables.json_rows(n, [r])[0]))
                out.write("]")
            out.write("}}\n")
        elif args.format == "csv":
            wanted = ["flags"] if args.quiet else names
            for i, n in enumerate(wanted):
                if len(wanted) > 1:
                    out.write("%s# table %s\n" % ("\n" if i else "", n))
                tables.csv_stream(n, rows(n), out)
        else:
            if not args.quiet:
                for n in names:
                    if n == "flags":
                        continue
                    lines = tables.render_text_lines(n, lambda n=n: rows(n))
                    head = [next(lines), next(lines)]
                    first = next(lines, None)
                    if first is None:
                        continue  # an empty table is left out, as in folder mode
                    out.write(head[0] + "\n" + head[1] + "\n" + first + "\n")
                    for line in lines:
                        out.write(line + "\n")
                    out.write("\n")
            out.write("FLAGS: %d\n" % len(flags))
            for f in flags:
                out.write("  %s\n" % f.line())
    except st.errors as e:
        err.write("baremark-report: %s: %s\n" % (args.db, str(e).strip()))
        return 2
    finally:
        st.close()
    return 1 if flags else 0
