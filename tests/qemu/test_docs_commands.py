"""Every shell command shown in README.md and docs/*.md works as written on a
fresh clone (after the builds `make check` and `make test` do first).

What counts as a command: each line of a code block (indented by four spaces
or fenced) whose first word is `make`, a file of the repository (tools/...,
build/...) or a program on PATH; and each inline `code` span that is such a
command with arguments (`make image SB_SHIM=1`, `tools/baremark-report
--html`). Other blocks (configuration files, the layout tree, tables, iPXE
lines) are text, and are counted as such.

How each is checked, quickly:
- `make ...`: `make -n ...` (a dry run: the targets and variables exist,
  nothing is built; `make run` and `make test` included).
- a tool of the repository (tools/..., build/host/...): its `--help`, and
  every long option the command uses must be one the tool lists; a command
  whose inputs exist here (build/host/baremark-html on a results file) runs.
- a pipeline on records (grep ... serial.log | cut ...) runs on a sample.
- a program on PATH (objdump, dd, dnsmasq, nginx ...): it must be installed;
  it runs when its inputs exist and it writes nothing.
Commands that must not run here (they write a block device, start a server
on the site's network, need hardware, or run for many minutes) carry a
marker on the line before their block: <!-- docs-cmd: skip (reason) -->;
they are reported as skipped with that reason, never dropped silently.
"""
import concurrent.futures
import glob
import os
import re
import shlex
import shutil
import subprocess

import marks
import qemu

HOST = True  # nothing here boots QEMU (run_all.py --host, make check)

ROOT = qemu.ROOT
SKIP_RE = re.compile(r"<!--\s*docs-cmd:\s*skip\s*\((.+?)\)\s*-->")
PLACEHOLDER_RE = re.compile(r"\.\.\.|<[a-z][^>]*>|\bSERIAL\b|/dev/sdX")


def doc_files():
    """README.md and every docs/*.md."""
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def first_word(cmd):
    """The program a command line starts with ('' when it does not split)."""
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        return ""
    return words[0] if words else ""


def is_command(word):
    """make, a file of the repository, or a program on PATH."""
    if not word:
        return False
    if word == "make":
        return True
    if "/" in word and not word.startswith("/"):
        return word.split("/")[0] in ("tools", "build", "tests", "boot")
    return shutil.which(word) is not None


def blocks(path):
    """(line number, lines, skip reason) of each code block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        skip = None
        for back in (1, 2):
            if i - back >= 0:
                m = SKIP_RE.search(lines[i - back])
                if m:
                    skip = m.group(1)
        if line.lstrip().startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            out.append((i + 2, lines[i + 1:j], skip))
            i = j + 1
            continue
        indent = len(line) - len(line.lstrip())
        if line.strip() and indent >= 4 and (i == 0 or not lines[i - 1].strip() or SKIP_RE.search(lines[i - 1])):
            j = i
            body = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) >= indent):
                body.append(lines[j][indent:])
                j += 1
            while body and not body[-1].strip():
                body.pop()
            out.append((i + 1, body, skip))
            i = j
            continue
        i += 1
    return out


def inline_commands(path):
    """(line number, command) of inline `code` spans that are commands with arguments."""
    out = []
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"`([^`\n]+)`", text):
        span = m.group(1).strip()
        word = first_word(span)
        if " " in span and (word == "make" or word.startswith(("tools/", "build/host/"))):
            out.append((text.count("\n", 0, m.start()) + 1, span))
    return out


def collect():
    """Every command shown: (where, command, skip reason), and the text blocks' count."""
    commands, text_blocks = [], 0
    for path in doc_files():
        name = os.path.relpath(path, ROOT)
        for lineno, body, skip in blocks(path):
            cmds = [l.strip() for l in body if l.strip() and not l.strip().startswith("#")]
            if not cmds or not is_command(first_word(cmds[0])):
                text_blocks += 1
                continue
            pending, start = "", 0
            for offset, l in enumerate(body):
                if not l.strip() or (l.strip().startswith("#") and not pending):
                    continue
                if not pending:
                    start = offset
                line = l.strip()
                if line.endswith("\\"):  # a command continued on the next line, as a shell reads it
                    pending += line[:-1].rstrip() + " "
                    continue
                commands.append(("%s:%d" % (name, lineno + start), pending + line, skip))
                pending = ""
            if pending:
                commands.append(("%s:%d" % (name, lineno + start), pending.strip(), skip))
        for lineno, span in inline_commands(path):
            commands.append(("%s:%d" % (name, lineno), span, None))
    return commands, text_blocks


def strip_comment(cmd):
    """The command without its trailing '# ...' remark."""
    return re.sub(r"\s+#\s.*$", "", cmd)


def help_text(tool):
    """A repository tool's --help output."""
    p = subprocess.run([os.path.join(ROOT, tool), "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, "%s --help exits %d: %s" % (tool, p.returncode, p.stderr[-500:])
    return p.stdout + p.stderr


def check_make(cmd):
    """make -n with the same targets and variables: they exist, nothing is built."""
    args = shlex.split(strip_comment(cmd))[1:]
    p = subprocess.run(["make", "-n", "--no-print-directory"] + args, capture_output=True, text=True,
                       timeout=120, cwd=ROOT)
    assert p.returncode == 0, "`%s` as make -n: %s" % (cmd, (p.stdout + p.stderr)[-800:])


def check_tool(cmd, workdir):
    """A repository tool: it is there, and knows every long option used; run when its inputs exist."""
    words = shlex.split(strip_comment(cmd).split(">")[0])
    tool = words[0]
    assert os.path.exists(os.path.join(ROOT, tool)), "%s: no such file" % tool
    if tool.startswith("build/host/"):
        assert os.access(os.path.join(ROOT, tool), os.X_OK), tool
        if tool == "build/host/baremark-html":
            # Placeholders become a real results file: the command as written, on it.
            src = os.path.join(workdir, "run.jsonl")
            with open(src, "w") as f:
                f.write('{"type":"run","version":"docs","schema":1,"args":"baremark"}\n')
                f.write('{"type":"end","status":"ok","errors":0,"seconds":1}\n')
            args = [src if a.endswith(".jsonl") else os.path.join(workdir, os.path.basename(a)) for a in words[1:]]
            p = subprocess.run([os.path.join(ROOT, tool)] + args, capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, "%s: %s" % (cmd, p.stderr[-500:])
            assert "<html" in open(args[1]).read().lower(), cmd
        if tool == "build/host/baremark":
            # A full run takes minutes on a busy machine: the options as written, then help,
            # which stops after they were read (a bad one is an error naming it).
            p = subprocess.run([os.path.join(ROOT, tool)] + words[1:] + ["help", "exit=return"], capture_output=True,
                               text=True, timeout=60, stdin=subprocess.DEVNULL)
            assert p.returncode == 0 and '"type":"error"' not in p.stdout, (cmd, p.stdout[-500:], p.stderr[-500:])
            return "options read"
        return "ran" if tool == "build/host/baremark-html" else "exists"
    helptext = help_text(tool)
    for w in words[1:]:
        if w.startswith("--"):
            opt = w.split("=")[0]
            assert opt in helptext, "`%s`: %s does not list %s" % (cmd, tool, opt)
    return "options checked"


def check_pipeline(cmd, workdir):
    """The records recipe on a sample serial log."""
    with open(os.path.join(workdir, "serial.log"), "w") as f:
        f.write('firmware noise\nBAREMARK {"type":"run","schema":1}\nmore noise\n')
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=30, cwd=workdir)
    assert p.returncode == 0 and p.stdout.strip() == '{"type":"run","schema":1}', (cmd, p.stdout, p.stderr)


def check_system(cmd):
    """A program on PATH: installed; objdump on a built object runs (it writes nothing)."""
    word = first_word(cmd)
    assert shutil.which(word), "`%s`: %s is not installed (make deps)" % (cmd, word)
    if word == "objdump":
        obj = [w for w in shlex.split(cmd.split("|")[0]) if w.endswith(".o")][0]
        if os.path.exists(os.path.join(ROOT, obj)):
            p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60, cwd=ROOT)
            assert p.returncode == 0 and "mem_chase" in p.stdout, (cmd, p.stderr[-300:])
            return "ran"
    return "installed"


@marks.host
def test_every_command_in_readme_and_docs_works_as_written():
    commands, text_blocks = collect()
    assert any(c == "make run" or c.startswith("make run ") for _, c, _ in commands), "README shows `make run`"
    assert any(c.startswith("make test") for _, c, _ in commands), "README shows `make test`"
    workdir = qemu.tempdir(prefix="baremark-docs-")
    outcome = {}
    # The dry runs first, each different one once and four at a time (make reads
    # the whole Makefile for each: the slow part of this test).
    dry = sorted({strip_comment(c) for _, c, skip in commands if not skip and first_word(c) == "make"})
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        list(ex.map(check_make, dry))
    try:
        for where, cmd, skip in commands:
            word = first_word(cmd)
            if skip:
                outcome.setdefault("skipped (marked)", []).append("%s `%s`: %s" % (where, cmd, skip))
            elif word == "make":
                outcome.setdefault("make -n", []).append(where)
            elif PLACEHOLDER_RE.search(re.sub(r"'[^']*'", "", strip_comment(cmd))) and word != "build/host/baremark-html":
                # Names to fill in (SERIAL, <server>, ...): the tool and its options are still checked.
                if word.startswith(("tools/", "build/")):
                    check_tool(re.sub(r"<[^>]*>", "X", cmd), workdir)
                outcome.setdefault("placeholders: tool checked", []).append("%s `%s`" % (where, cmd))
            elif word.startswith(("tools/", "build/", "tests/", "boot/")):
                outcome.setdefault("tool: " + check_tool(cmd, workdir), []).append(where)
            elif "|" in cmd and "serial.log" in cmd:
                check_pipeline(cmd, workdir)
                outcome.setdefault("ran on a sample", []).append(where)
            else:
                outcome.setdefault("program " + check_system(cmd), []).append(where)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("NOTE test_docs_commands: %d commands, %d text blocks" % (len(commands), text_blocks))
    for kind, items in sorted(outcome.items()):
        print("NOTE   %s: %d" % (kind, len(items)))
        if kind.startswith("skipped") or kind.startswith("placeholders"):
            for item in items:
                print("NOTE     " + item)
    assert len(commands) >= 20, commands


@marks.host
def test_docs_command_extraction_finds_blocks_markers_and_spans():
    """The extractor itself, on a small document: a command block, a marked
    one, a text block, a fenced block and an inline command."""
    d = qemu.tempdir(prefix="baremark-docs-x-")
    try:
        path = os.path.join(d, "x.md")
        with open(path, "w") as f:
            f.write("Intro.\n\n    make host\n    make -n test\n\nText `make image SB_SHIM=1` and `build/baremark.img`.\n\n"
                    "<!-- docs-cmd: skip (writes a disk) -->\n\n    dd if=a of=/dev/sdX\n\nA config:\n\n"
                    "    upload=http://x\n\n```sh\nmake bench\n```\n")
        found = blocks(path)
        assert [(n, b) for n, b, _ in found] == [(3, ["make host", "make -n test"]), (10, ["dd if=a of=/dev/sdX"]),
                                                 (14, ["upload=http://x"]), (17, ["make bench"])], found
        assert [s for _, _, s in found] == [None, "writes a disk", None, None], found
        assert inline_commands(path) == [(6, "make image SB_SHIM=1")]
        assert not is_command(first_word("upload=http://x"))
    finally:
        shutil.rmtree(d, ignore_errors=True)
