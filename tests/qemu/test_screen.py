"""The results screen under QEMU with a VGA display (TCG): screendumps of
the display through the monitor during and after a run with the default
exit=wait, checked without OCR: the text mode is the largest the console
offers (the text reaches beyond the 80x25 box), the final picture stays
(identical dumps seconds after the end record, QEMU still running), a key
hands the display back to the firmware, and the screen module's own grid
(screen_dump=1) holds the summary and the line saying where the results
went. One boot."""
import os
import struct
import threading
import time
import zlib

import qemu

OPTIONS = "mem=quick mem_max=1M disk=quick time=100ms warmup=50ms screen_dump=1"
FONT_W, FONT_H = 8, 19  # EDK2 GraphicsConsole's glyphs (EFI_GLYPH_WIDTH x EFI_GLYPH_HEIGHT)
TITLE_BLUE = (0x00, 0x00, 0x98)  # EFI_BLUE as GraphicsConsole paints it (mTextColorMap)


def read_ppm(path):
    """(width, height, rgb bytes) of a binary PPM as QEMU's screendump writes it."""
    with open(path, "rb") as f:
        data = f.read()
    magic, w, h, maxval, pixels = data.split(maxsplit=4)
    assert magic == b"P6" and maxval == b"255", path
    w, h = int(w), int(h)
    return w, h, pixels[:w * h * 3]


def write_png(path, w, h, rgb):
    """An RGB PNG from raw pixels (no imaging library needed)."""
    raw = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))

    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def lit_box(w, h, rgb):
    """The smallest box holding every pixel that is not black: (x0, y0, x1, y1)."""
    xs, ys = [], []
    for y in range(0, h, 2):
        row = rgb[y * w * 3:(y + 1) * w * 3]
        if row.strip(b"\0"):
            ys.append(y)
            first = len(row) - len(row.lstrip(b"\0"))
            last = len(row.rstrip(b"\0"))
            xs += [first // 3, (last - 1) // 3]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def has_colour(w, h, rgb, colour, y0, y1):
    """Is there a pixel of exactly this colour in rows y0..y1?"""
    px = bytes(colour)
    for y in range(max(0, y0), min(h, y1)):
        row = rgb[y * w * 3:(y + 1) * w * 3]
        i = row.find(px)
        while i >= 0:
            if i % 3 == 0:
                return True
            i = row.find(px, i + 1)
    return False


class Shots:
    """Screendumps: one while the run goes on, two a few seconds after the
    end record (the harness stops QEMU when they are taken, or 8 s after
    it), then a key and one more."""

    def __init__(self, workdir, sock):
        self.workdir, self.sock = workdir, sock
        self.paths = {}
        self.serial = os.path.join(workdir, "serial.log")
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def dump(self, name):
        path = os.path.join(self.workdir, name + ".ppm")
        qemu.monitor_command(self.sock, "screendump " + path)
        for _ in range(20):
            if os.path.exists(path) and os.path.getsize(path) > 100:
                self.paths[name] = path
                return
            time.sleep(0.1)

    def text(self):
        try:
            with open(self.serial, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def run(self):
        t0 = time.time()
        while time.time() - t0 < 300:
            text = self.text()
            if "during" not in self.paths and '"type":"disk_result"' in text:
                self.dump("during")
            if '"type":"end"' in text:
                break
            time.sleep(0.2)
        time.sleep(1.5)
        self.dump("final1")
        time.sleep(2.0)
        self.dump("final2")
        qemu.monitor_command(self.sock, "sendkey ret")
        time.sleep(2.5)
        self.dump("after_key")


def test_results_screen_stays_and_shows_the_summary():
    workdir = qemu.tempdir()
    disk = qemu.make_disk(os.path.join(workdir, "nvme.img"), 64)
    sock = os.path.join(workdir, "monitor.sock")
    shots = Shots(workdir, sock)
    run = qemu.boot(options=OPTIONS, drives=["if=none,id=D,format=raw,file=" + disk],
                    devices=["nvme,drive=D,serial=SCREEN1"], workdir=workdir, monitor=sock, graphics=True,
                    timeout=300, until=lambda: not shots.thread.is_alive())  # every screendump taken
    shots.thread.join(timeout=20)
    assert not run.timed_out, run.serial[-3000:]
    end = run.end()
    assert end["status"] == "ok", run.of_type("error")
    # exit=wait: QEMU was still running when the harness stopped it.
    assert run.returncode == -9, run.returncode

    # The largest text mode, said in the run record.
    scr = run.one("run")["screen"]
    assert scr["layout"] == "fixed", scr
    assert scr["modes"] >= 2 and scr["cols"] * scr["rows"] > 80 * 25, scr

    # The end record and the flushed, closed results file came before the wait.
    types = [r["type"] for r in run.records]
    assert types.index("end") < types.index("screen"), types[-5:]
    names = sorted(run.results_files())
    assert len(names) == 2 and names[1] == names[0][:-len(".html")] + ".jsonl", names
    # the HTML report beside it was written whole before the wait too
    assert run.read_file("::/baremark/results/" + names[0]).rstrip().endswith("</html>")
    lines = run.read_file("::/baremark/results/" + names[1]).splitlines()
    # (screen_dump's record comes after the end record, in the file too)
    lines = [l for l in lines if '"type":"screen"' not in l]
    assert '"type":"end"' in lines[-1], lines[-1:]

    # The screen module's own grid: the summary, and where the results went.
    grid = run.one("screen")
    assert (grid["cols"], grid["rows"]) == (scr["cols"], scr["rows"]), grid
    text = "\n".join(grid["lines"])
    assert grid["lines"][0].startswith(" baremark "), grid["lines"][0]
    assert "Status  finished: ok, 0 errors" in text, text
    assert "nvme0n1  QEMU NVMe Ctrl  SCREEN1  (native)" in text, text
    for test in ("SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"):
        assert any(l.startswith(" " + test + " ") for l in grid["lines"]), (test, text)
    # mem_max=1M stays in the caches: L1 to L3, and no DRAM figure that is not one.
    assert " Latency L1 32K " in text and " L3 1M " in text and "DRAM" not in text, text
    assert "GB/s, 1 CPU | 2 CPUs" in text, text
    where, key = grid["lines"][-2:]
    assert where == " Results: \\baremark\\results\\%s (+ .html report)" % names[1], where
    assert key == " Press any key to return to the firmware.", key

    # The display: a picture during the run and the same one after the end.
    for name in ("during", "final1", "final2", "after_key"):
        assert name in shots.paths, (name, shots.paths)
    w, h, final = read_ppm(shots.paths["final1"])
    _, _, final2 = read_ppm(shots.paths["final2"])
    _, _, during = read_ppm(shots.paths["during"])
    _, _, after_key = read_ppm(shots.paths["after_key"])
    assert final == final2, "the results screen did not stay"
    assert during != final, "the screen did not change from the run to its end"
    assert after_key != final, "a key did not hand the display back to the firmware"
    # The text fills the mode's box, wider or taller than an 80x25 one.
    box = lit_box(w, h, final)
    assert box, "a black screen"
    x0, y0, x1, y1 = box
    assert x1 - x0 + 1 > 80 * FONT_W or y1 - y0 + 1 > 25 * FONT_H, (box, scr)
    assert x1 - x0 + 1 <= scr["cols"] * FONT_W and y1 - y0 + 1 <= scr["rows"] * FONT_H, (box, scr)
    # The title bar, in blue, on the first text row.
    assert has_colour(w, h, final, TITLE_BLUE, y0, y0 + FONT_H), "no blue title bar"
    # Black around the text, where the firmware's menu paints grey.
    assert final[:3] == b"\0\0\0" and (w, h) == read_ppm(shots.paths["during"])[:2], (w, h)

    out = os.environ.get("BAREMARK_SCREENSHOT")
    if out:
        write_png(out, w, h, final)
