"""Find baremark records in serial captures and .jsonl results files.

A serial capture from a console server is everything the machine wrote:
firmware output, ANSI escape sequences, CRs, the screen summary when the
firmware mirrors its console, lines wrapped or cut by a reset. A record is
`BAREMARK ` followed by a JSON object; the prefix may sit anywhere in the
line (a progress line or an escape sequence can precede it). In a .jsonl
results file each line is the bare object.

Nothing here raises on bad input: an object that does not parse is counted
as a bad line with its line number and the reason, and so is one holding
values no baremark record can hold (a lone UTF-16 surrogate in a string, a
number too large to compute with, nesting deeper than the writer's own
limit): those would break the medians or the output further on.

Everything is linear in the input: each character is scanned a bounded
number of times, a record is parsed once however many lines it is wrapped
over, and only the first MAX_BAD_KEPT bad lines of a file keep their text.
"""
import json
import os
import re
import sys
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

# How much of a bad line to keep for --verbose, and for how many bad lines
# per file (the rest are counted only: memory stays bounded per file).
SNIPPET_CHARS = 120
MAX_BAD_KEPT = 1000

# Values a record can hold. The firmware's JSON writer nests at most 16
# deep (efi/json.h JSON_MAX_DEPTH), writes integers that fit 64 bits and
# decimals up to 1e18 (larger ones become null); anything beyond is not
# from baremark and would overflow a median or a format.
MAX_DEPTH = 32
MAX_FLOAT = 1e18
SURROGATE_RE = re.compile("[\ud800-\udfff]")

# Text that may hold such a value: a run of 19+ digits, an exponent of two
# digits or more, a \\uD800-\\uDFFF escape. Only records whose text matches
# (or that have many brackets) are walked value by value.
SUSPECT_RE = re.compile(r"\d{19}|[eE]\+?\d\d|\\u[dD][89a-fA-F]")
_decoder = json.JSONDecoder()


def _bad_number(v):
    """Why a number is out of what baremark writes, or None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int) and not -(1 << 63) <= v < (1 << 64):
        return "bad value: integer of %d digits" % len(str(abs(v)))
    if isinstance(v, float) and v == v and abs(v) > MAX_FLOAT and abs(v) != float("inf"):
        return "bad value: number %.3g out of range" % v
    return None


def _check_values(obj, raw):
    """The reason a parsed record is unusable, or None. `raw` is its text:
    the walk over the values only runs when the text could hold a problem."""
    deep = raw.count("[") + raw.count("{") > MAX_DEPTH
    if not deep and not SUSPECT_RE.search(raw):
        return None
    stack = [(obj, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            if depth > MAX_DEPTH:
                return "bad value: nested deeper than %d" % MAX_DEPTH
            for k, x in v.items():
                if SURROGATE_RE.search(k):
                    return "bad value: lone surrogate in a key"
                stack.append((x, depth + 1))
        elif isinstance(v, list):
            if depth > MAX_DEPTH:
                return "bad value: nested deeper than %d" % MAX_DEPTH
            stack.extend((x, depth + 1) for x in v)
        elif isinstance(v, str):
            if SURROGATE_RE.search(v):
                return "bad value: lone surrogate in a string"
        elif isinstance(v, (int, float)):
            why = _bad_number(v)
            if why:
                return why
    return None


@dataclass(slots=True)
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
    bad: List[Bad] = field(default_factory=list)   # the first MAX_BAD_KEPT
    bad_count: int = 0                              # all of them
    parses: int = 0                                 # parse attempts (tests check it stays linear)

    def add_bad(self, line, reason, text):
        """Count a bad record; keep its details while under MAX_BAD_KEPT."""
        self.bad_count += 1
        if len(self.bad) < MAX_BAD_KEPT:
            self.bad.append(Bad(line, reason, _snippet(text)))


def clean_line(raw):
    """Text of one captured line without escape sequences or control characters."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if "\x1b" in text:
        text = ANSI_RE.sub("", text)
    return CONTROL_RE.sub("", text)


_OBJECT_START_RE = re.compile(r'\{[ \t\n\r]*["}]|\{[ \t\n\r]*$')

# The first window a record is parsed in (characters); it grows 8-fold
# while the parser stops for lack of text.
PARSE_WINDOW = 1024


def _parse_object(text, start, src=None):
    """Parse a JSON object at text[start]; return (object, end) or (None, reason).

    The parser is given a window of the text from `start`, not the whole
    line: a JSON error computes its line and column by scanning the text
    before it, so each bad start on a long line would cost the whole line
    before it. The window grows only while the parser ran out of text."""
    if src is not None:
        src.parses += 1
    # An object opens with a key or closes at once: tell garbage after a
    # prefix ("BAREMARK {BAREMARK {...") without raising from the parser.
    m = _OBJECT_START_RE.match(text, start)
    if m is None:
        if text[start:start + 1] != "{":
            return None, "not a JSON object"
        return None, "bad JSON: Expecting property name enclosed in double quotes"
    window = PARSE_WINDOW
    while True:
        stop = min(len(text), start + window)
        doc = text if (start == 0 and stop == len(text)) else text[start:stop]
        try:
            obj, end = _decoder.raw_decode(doc, 0)
            break
        except ValueError as e:  # json.JSONDecodeError is a ValueError
            msg = getattr(e, "msg", str(e))
            pos = getattr(e, "pos", 0)
            short = msg.startswith("Unterminated string") or pos >= len(doc) - 12
            if stop < len(text) and short:
                window *= 8
                continue
            return None, "bad JSON: %s" % msg
        except RecursionError:  # "[[[[..." nested deeper than the parser's stack
            return None, "bad JSON: nested too deeply"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    why = _check_values(obj, doc[:end])
    if why:
        return None, why
    return _shared_keys(obj), start + end


def _shared_keys(obj):
    """The record with its keys (and those of its nested objects) and its
    short strings interned: the parser makes new strings for every record,
    and a fleet's records are mostly keys and the same few words."""
    out = {}
    for k, v in obj.items():
        if v.__class__ is dict:
            v = {sys.intern(k2): v2 for k2, v2 in v.items()}
        elif v.__class__ is str and len(v) <= 16:
            v = sys.intern(v)  # "disk_result", "read", "nvme0n1", "ok"
        out[sys.intern(k)] = v
    return out


def _snippet(text):
    """A short, printable excerpt of a bad line (only that much is copied)."""
    return text if len(text) <= SNIPPET_CHARS else text[:SNIPPET_CHARS] + "..."


# The characters that open, close or quote in JSON text.
_STRUCTURE_RE = re.compile(r'[\\"{}\[\]]')


class _Closing:
    """Where a JSON object fed piece by piece closes: nesting depth and
    string state carried across pieces, each piece scanned once. Only when
    the object closes is it worth parsing."""

    def __init__(self):
        self.depth = 0
        self.in_string = False
        self.escaped = False  # a backslash ended the previous piece

    def feed(self, piece):
        """The index just past the closing brace within piece, or None."""
        skip_to = 1 if self.escaped and piece else 0
        if piece:
            self.escaped = False
        for m in _STRUCTURE_RE.finditer(piece, skip_to):
            p = m.start()
            if p < skip_to:
                continue
            c = piece[p]
            if self.in_string:
                if c == "\\":
                    skip_to = p + 2
                    if skip_to > len(piece):
                        self.escaped = True
                elif c == '"':
                    self.in_string = False
            elif c == '"':
                self.in_string = True
            elif c in "{[":
                self.depth += 1
            elif c in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return p + 1
        return None


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
            obj, end = _parse_object(text, start, src)
            if obj is not None:
                # The tag only for a record read: text before a bad start
                # is never searched again and again.
                src.found.append(Found(obj, lineno, _tag_of(tag_re, text[seg:m.start()])))
                pos = seg = end
                continue
            reason = end
            # Another record later on this line means this one was cut
            # short (two writers on one line, or a reset): no joining.
            # Neither when the object closes on its own line: more text
            # cannot mend it.
            closing = _Closing()
            if PREFIX_RE.search(text, start) is None and closing.feed(text[start:]) is None:
                tag_text = text[seg:m.start()]
                pieces, size, k, rest = [text[start:]], len(text) - start, last + 1, ""
                while k < n and k - last <= MAX_JOIN_LINES and size <= MAX_RECORD_CHARS:
                    # A line holding the next record can only hold the
                    # tail of this one before that record's prefix.
                    cut = lines[k].find(PREFIX)
                    piece = lines[k] if cut < 0 else lines[k][:cut]
                    pieces.append(piece)
                    size += len(piece)
                    if closing.feed(piece) is not None or cut >= 0:
                        # Parse once: when the object has closed, or when
                        # the next record starts (a last try).
                        joined = "".join(pieces)
                        obj, end = _parse_object(joined, 0, src)
                        rest = "" if cut < 0 else lines[k][cut:]
                        break
                    k += 1
                if obj is not None:
                    src.found.append(Found(obj, lineno, _tag_of(tag_re, tag_text)))
                    # Carry on after the object, on the last line joined.
                    text, pos, seg, last, lineno = joined[end:] + rest, 0, 0, k, k + 1
                    continue
            src.add_bad(lineno, reason, text[m.start():m.start() + SNIPPET_CHARS + 1])
            pos = start
        i = last + 1


def _scan_jsonl(lines, src, tag_re):
    """One bare object per line; a line with the serial prefix is read as serial."""
    for i, text in enumerate(lines):
        if PREFIX in text:
            sub = Source(src.path, src.name)
            _scan_serial([text], sub, tag_re)
            src.found.extend(Found(f.record, i + 1, f.tag) for f in sub.found)
            src.parses += sub.parses
            for b in sub.bad:
                src.add_bad(i + 1, b.reason, b.text)
            src.bad_count += sub.bad_count - len(sub.bad)
            continue
        body = text.strip()
        if not body:
            continue
        obj, end = _parse_object(body, 0, src)
        if obj is None:
            src.add_bad(i + 1, end, body[:SNIPPET_CHARS + 1])
        elif body[end:].strip():
            src.add_bad(i + 1, "text after the object", body[:SNIPPET_CHARS + 1])
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
