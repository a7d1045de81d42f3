"""Find baremark records in serial captures and .jsonl results files.

A serial capture from a console server is everything the machine wrote:
firmware output, ANSI escape sequences, CRs, the screen summary when the
firmware mirrors its console, lines wrapped or cut by a reset. A record is
`BAREMARK ` followed by a JSON object; the prefix may sit anywhere in the
line (a progress line or an escape sequence can precede it). In a .jsonl
results file each line is the bare object.

Nothing here raises on bad input: an object that does not parse is counted
as a bad line with its line number and the reason.
"""
import json
import os
import re
from dataclasses import dataclass, field
from typing import List, Optional

PREFIX = "BAREMARK"
# The prefix, any spaces, then the opening brace of the object.
PREFIX_RE = re.compile(r"BAREMARK +(?=\{)")

# ECMA-48 escape sequences: CSI (ESC [ ... final byte, e.g. "\x1b[2J",
# "\x1b[01;01H", "\x1b[=3h"), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC
# strings, character-set selection (ESC ( B) and the two-byte escapes.
# JSON text never holds a raw ESC (strings must escape it as \u001b), so
# removing these cannot damage a record.
ANSI_RE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[()*+\-./][ -~]"
    r"|[ -/]*[0-~])?"
)
# Control characters other than TAB: CR from CRLF line ends and progress
# lines, BEL, BS, NUL padding from a console server. Raw control
# characters are not valid inside JSON text either.
CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")

# A record wrapped by a console at a fixed width continues on the next
# lines; join at most this many (a record is at most 8 KiB, see
# efi/record.h RECORD_MAX_BYTES, so 80-column wrapping needs up to ~100).
MAX_JOIN_LINES = 128
MAX_RECORD_CHARS = 16384

# How much of a bad line to keep for --verbose.
SNIPPET_CHARS = 120

_decoder = json.JSONDecoder()


@dataclass
class Found:
    """One record: the parsed object, the line it starts on, the tag of the
    shared-log stream it came from (None unless --tag is used)."""
    record: dict
    line: int
    tag: Optional[str] = None


@dataclass
class Bad:
    """A record that could not be read: line number, why, and its text."""
    line: int
    reason: str
    text: str


@dataclass
class Source:
    """One input file (or stdin) and what was found in it."""
    path: str
    name: str
    fmt: str = "serial"
    lines: int = 0
    found: List[Found] = field(default_factory=list)
    bad: List[Bad] = field(default_factory=list)


def clean_line(raw):
    """Text of one captured line without escape sequences or control characters."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if "\x1b" in text:
        text = ANSI_RE.sub("", text)
    return CONTROL_RE.sub("", text)


def _parse_object(text, start):
    """Parse a JSON object at text[start]; return (object, end) or (None, reason)."""
    try:
        obj, end = _decoder.raw_decode(text, start)
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        return None, "bad JSON: %s" % getattr(e, "msg", str(e))
    except RecursionError:  # "[[[[..." nested deeper than the parser's stack
        return None, "bad JSON: nested too deeply"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    return obj, end


def _snippet(text):
    """A short, printable excerpt of a bad line."""
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + "..."


def _tag_of(tag_re, text_before):
    """The machine tag of a shared-log line: the regex's first group, else the whole match."""
    if tag_re is None:
        return None
    m = tag_re.search(text_before)
    if not m:
        return None
    tag = m.group(1) if m.groups() and m.group(1) is not None else m.group(0)
    return tag.strip() or None


def _scan_serial(lines, src, tag_re):
    """Every `BAREMARK {...}` in the cleaned lines, joining wrapped records."""
    i = 0
    n = len(lines)
    while i < n:
        # text: what is left to scan; it ends on physical line `last`.
        text, lineno, last = lines[i], i + 1, i
        pos = seg = 0  # seg: where the text that may hold the next tag starts
        while True:
            m = PREFIX_RE.search(text, pos)
            if not m:
                break
            start = m.end()
            tag = _tag_of(tag_re, text[seg:m.start()])
            obj, end = _parse_object(text, start)
            if obj is not None:
                src.found.append(Found(obj, lineno, tag))
                pos = seg = end
                continue
            reason = end
            # Another record later on this line means this one was cut
            # short (two writers on one line, or a reset): no joining.
            if PREFIX_RE.search(text, start) is None:
                joined, k, rest = text[start:], last + 1, ""
                while k < n and k - last <= MAX_JOIN_LINES and len(joined) <= MAX_RECORD_CHARS:
                    # A line holding the next record can only hold the
                    # tail of this one before that record's prefix.
                    cut = lines[k].find(PREFIX)
                    joined += lines[k] if cut < 0 else lines[k][:cut]
                    obj, end = _parse_object(joined, 0)
                    if obj is not None or cut >= 0:
                        rest = "" if cut < 0 else lines[k][cut:]
                        break
                    k += 1
                if obj is not None:
                    src.found.append(Found(obj, lineno, tag))
                    # Carry on after the object, on the last line joined.
                    text, pos, seg, last, lineno = joined[end:] + rest, 0, 0, k, k + 1
                    continue
            src.bad.append(Bad(lineno, reason, _snippet(text[m.start():])))
            pos = start
        i = last + 1


def _scan_jsonl(lines, src, tag_re):
    """One bare object per line; a line with the serial prefix is read as serial."""
    for i, text in enumerate(lines):
        if PREFIX in text:
            sub = Source(src.path, src.name)
            _scan_serial([text], sub, tag_re)
            src.found.extend(Found(f.record, i + 1, f.tag) for f in sub.found)
            src.bad.extend(Bad(i + 1, b.reason, b.text) for b in sub.bad)
            continue
        body = text.strip()
        if not body:
            continue
        obj, end = _parse_object(body, 0)
        if obj is None:
            src.bad.append(Bad(i + 1, end, _snippet(body)))
        elif body[end:].strip():
            src.bad.append(Bad(i + 1, "text after the object", _snippet(body)))
        else:
            src.found.append(Found(obj, i + 1, None))


def guess_format(name, data):
    """'jsonl' for results files (by name, or bare objects and no prefix), else 'serial'."""
    lower = name.lower()
    if lower.endswith(".jsonl") or lower.endswith(".json"):
        return "jsonl"
    head = data[:65536]
    if (PREFIX + " ").encode() in head:
        return "serial"
    for raw in head.split(b"\n"):
        text = clean_line(raw).strip()
        if text:
            return "jsonl" if text.startswith("{") else "serial"
    return "serial"


def display_name(path):
    """The file name without folders and without a .log/.txt/.jsonl ending."""
    base = os.path.basename(path) or path
    for ext in (".jsonl", ".json", ".log", ".txt", ".cap", ".serial"):
        if base.lower().endswith(ext) and len(base) > len(ext):
            return base[: -len(ext)]
    return base


def extract_bytes(data, path="<data>", fmt=None, tag_re=None):
    """A Source holding every record in `data` (bytes), in order."""
    src = Source(path, display_name(path))
    src.fmt = fmt or guess_format(path, data)
    lines = [clean_line(raw) for raw in data.split(b"\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the newline ending the last line does not start another
    src.lines = len(lines)
    if src.fmt == "jsonl":
        _scan_jsonl(lines, src, tag_re)
    else:
        _scan_serial(lines, src, tag_re)
    return src


def extract_file(path, fmt=None, tag_re=None):
    """A Source for one file; OSError is left to the caller (a usage error)."""
    with open(path, "rb") as f:
        data = f.read()
    return extract_bytes(data, path, fmt, tag_re)
