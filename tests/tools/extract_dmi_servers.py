#!/usr/bin/env python3
"""Extract the memory population of real servers from the linuxhw/DMI collection.

linuxhw/DMI (https://github.com/linuxhw/DMI) holds dmidecode outputs of
machines probed by hw-probe users, one file per machine under
<Form factor>/<Vendor>/<Model family>/<Model>/<id>. This script reads every
file under Server/ of a git clone (at a commit you name) and writes one
compact text fixture, tests/unit/data/dmi_servers.txt.gz, that the unit test
tests/unit/test_dimm_real.c runs through dimm_locator_parse() and
dimm_summarize().

Per machine (tab-separated lines, fields as dmidecode printed them):
  M  <path below Server/>  <SMBIOS version "2.6">  <system manufacturer>  <product>
  P  <socket designation>  <1 populated / 0 not>
  D  <locator>  <bank>  <size MB, 0 empty, -1 unknown>  <type>  <speed MT/s>
     <configured speed>  <"clock" when dmidecode called it "Configured Clock
     Speed" (SMBIOS < 3.1), "mem" for "Configured Memory Speed", "-" absent>  <manufacturer>
     <form factor>  <rank>

usage: extract_dmi_servers.py GITDIR [COMMIT] [OUT]
  e.g. extract_dmi_servers.py /path/to/DMI/.git 57b21bc6fd
"""
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "unit", "data", "dmi_servers.txt.gz")


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def blocks(text):
    """(type, {field: value}) for every structure of a dmidecode dump."""
    cur_type, fields = None, {}
    for line in text.splitlines():
        m = re.match(r"Handle 0x[0-9A-Fa-f]+, DMI type (\d+),", line)
        if m:
            if cur_type is not None:
                yield cur_type, fields
            cur_type, fields = int(m.group(1)), {}
            continue
        m = re.match(r"^\t([^\t:][^:]*): ?(.*)$", line)
        if m and cur_type is not None and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2).strip()
    if cur_type is not None:
        yield cur_type, fields


def clean(s):
    return (s or "").replace("\t", " ").strip()


def size_mb(s):
    s = clean(s)
    m = re.match(r"(\d+)\s*(kB|KB|MB|GB|TB)", s)
    if not m:
        return -1 if s.lower().startswith("unknown") else 0
    v = int(m.group(1))
    return {"kB": max(1, v // 1024), "KB": max(1, v // 1024), "MB": v, "GB": v * 1024, "TB": v * 1024 * 1024}[m.group(2)]


def speed(s):
    m = re.match(r"(\d+)", clean(s))
    return int(m.group(1)) if m else 0


def machine(path, text):
    m = re.search(r"^SMBIOS (\d+\.\d+)", text, re.M)
    ver = m.group(1) if m else "0.0"
    out, system = [], {}
    for t, f in blocks(text):
        if t == 1 and not system:
            system = f
        elif t == 4:
            status = f.get("Status", "")
            out.append("P\t%s\t%d" % (clean(f.get("Socket Designation")), 1 if status.startswith("Populated") else 0))
        elif t == 17:
            conf_key = "Configured Memory Speed" if "Configured Memory Speed" in f else "Configured Clock Speed"
            conf_name = {"Configured Memory Speed": "mem", "Configured Clock Speed": "clock"}.get(conf_key)
            if conf_key not in f:
                conf_name = "-"
            out.append("\t".join([
                "D", clean(f.get("Locator")), clean(f.get("Bank Locator")), str(size_mb(f.get("Size"))),
                clean(f.get("Type")), str(speed(f.get("Speed"))), str(speed(f.get(conf_key))),
                conf_name, clean(f.get("Manufacturer")),
                clean(f.get("Form Factor")), clean(f.get("Rank"))]))
    head = "M\t%s\t%s\t%s\t%s" % (path, ver, clean(system.get("Manufacturer")), clean(system.get("Product Name")))
    return [head] + out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gitdir = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else "HEAD"
    out = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_OUT
    commit = git(gitdir, "rev-parse", commit).decode().strip()
    paths = [p for p in git(gitdir, "ls-tree", "-r", "--name-only", commit, "Server/").decode().splitlines() if p]
    lines = ["# linuxhw/DMI %s Server/: %d machines (tests/tools/extract_dmi_servers.py)" % (commit, len(paths))]
    for p in sorted(paths):
        text = git(gitdir, "show", "%s:%s" % (commit, p)).decode("utf-8", "replace")
        lines += machine(p[len("Server/"):], text)
    with gzip.GzipFile(out, "wb", mtime=0) as g:
        g.write(("\n".join(lines) + "\n").encode())
    print("%s: %d machines" % (out, len(paths)))


if __name__ == "__main__":
    main()
