"""The results screen on a BIOS PC: baremark.bin under SeaBIOS draws the
same fixed layout as the UEFI build, straight into the VGA text buffer at
0xB8000 (mode 3, 80x25). Checked three ways on one boot with exit=wait and
screen_dump=1: the text buffer read through the QEMU monitor holds exactly
the screen module's grid (the `screen` record) with the title bar's colour;
QEMU's screendump of the display shows the blue title bar and stays the
same while baremark waits; a key ends the wait (a reset, which -no-reboot
turns into QEMU's exit). Set BAREMARK_SCREENSHOT=PATH.png to keep the
picture."""
import os
import re
import socket
import time

import qemu
from test_bios import boot_bios
from test_screen import has_colour, lit_box, read_ppm, write_png

# time=100ms warmup=50ms: the checks are the screen's layout and colours, whatever figures it shows.
OPTIONS = "mem=quick mem_max=1M disk=quick time=100ms warmup=50ms exit=wait screen_dump=1"
COLS, ROWS = 80, 25
FONT_W, FONT_H = 9, 16  # QEMU's VGA text rendering of mode 3: 720x400
ATTR_TITLE = 0x1f       # white on blue
ATTR_LABEL = 0x0b       # light cyan on black
VGA_BLUE = (0x00, 0x00, 0xa8)  # the VGA BIOS's colour 1 (6-bit 2Ah), as QEMU draws it


def vga_cells(sock_path, timeout=20):
    """The 80x25 text buffer at 0xB8000 as (character, attribute) rows, read
    with the monitor's xp (qemu.monitor_command drops the answer)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(sock_path)
    try:
        data = b""
        while b"(qemu)" not in data:
            data += s.recv(65536)
        s.sendall(b"xp /%dhx 0xb8000\n" % (COLS * ROWS))
        words, t0 = [], time.time()
        while len(words) < COLS * ROWS and time.time() - t0 < timeout:
            data += s.recv(65536)
            # answer lines: "00000000000b8000: 0x0720 0x0720 ..."
            words = [int(w, 16) for line in re.findall(rb"(?m)^[0-9a-f]{8,16}: (.*)$", data)
                     for w in re.findall(rb"0x([0-9a-f]{4})", line)]
    finally:
        s.close()
    assert len(words) == COLS * ROWS, data[-500:]
    return [[(w & 0xff, w >> 8) for w in words[r * COLS:(r + 1) * COLS]] for r in range(ROWS)]


def test_bios_results_screen_is_the_fixed_layout_in_vga_text():
    workdir = qemu.tempdir("baremark-biosscreen-")
    disk = qemu.make_disk(os.path.join(workdir, "nvme.img"), 64)
    state = {}

    def look(text, monitor):
        if state or '"type":"end"' not in text:
            return False
        # the screen record follows the end record; then baremark waits for a key
        for _ in range(40):
            if '"type":"screen"' in qemu.read_text(os.path.join(os.path.dirname(monitor), "serial.log")):
                break
            time.sleep(0.25)
        time.sleep(1.0)
        for name in ("final1", "final2"):
            path = os.path.join(workdir, name + ".ppm")
            qemu.monitor_command(monitor, "screendump " + path)
            for _ in range(20):
                if os.path.exists(path) and os.path.getsize(path) > 100:
                    break
                time.sleep(0.1)
            state[name] = path
            time.sleep(2.0)
        state["cells"] = vga_cells(monitor)
        state["key"] = time.time()
        qemu.monitor_command(monitor, "sendkey ret")
        return False

    run = boot_bios(OPTIONS, timeout=300, on_serial=look, extra_args=[
        "-drive", "if=none,id=D,format=raw,file=" + disk, "-device", "nvme,drive=D,serial=BIOSSCR1"])
    assert state.get("key"), run.serial[-3000:]
    assert not run.timed_out, run.serial[-3000:]
    # exit=wait: the key reset the machine (-no-reboot: QEMU exits by itself)
    assert run.returncode == 0, "a key should end the wait with a reset: %r" % run.returncode
    assert run.end()["status"] == "ok", run.of_type("error")

    scr = run.one("run")["screen"]
    assert scr == {"layout": "fixed", "mode": 3, "cols": COLS, "rows": ROWS, "modes": 1}, scr
    grid = run.one("screen")
    assert (grid["cols"], grid["rows"]) == (COLS, ROWS), grid
    assert grid["lines"][0].startswith(" baremark "), grid["lines"][0]
    text = "\n".join(grid["lines"])
    assert "Status  finished: ok, 0 errors" in text, text
    assert "nvme0n1  QEMU NVMe Ctrl  BIOSSCR1  (native)" in text, text
    assert grid["lines"][-1] == " Press any key to restart the machine.", grid["lines"][-1]

    # The text buffer is the grid, character for character.
    cells = state["cells"]
    shown = ["".join(chr(c) for c, _ in row).rstrip() for row in cells]
    assert shown == grid["lines"], "\n".join(a + "\n" + b for a, b in zip(shown, grid["lines"]) if a != b)
    # ... in the layout's colours: the title bar and the status line white
    # on blue across the whole row, the field names cyan, nothing blinking.
    status = grid["lines"].index(next(l for l in grid["lines"] if l.startswith(" Status ")))
    assert {a for _, a in cells[0]} == {ATTR_TITLE}, cells[0]
    assert {a for _, a in cells[status]} == {ATTR_TITLE}, cells[status]
    assert cells[1][1] == (ord("S"), ATTR_LABEL), cells[1][:8]  # "System"
    assert not any(a & 0x80 for row in cells for _, a in row)

    # The display: the same picture seconds apart, the title bar blue.
    w, h, final = read_ppm(state["final1"])
    _, _, final2 = read_ppm(state["final2"])
    assert (w, h) == (COLS * FONT_W, ROWS * FONT_H), (w, h)
    assert final == final2, "the results screen did not stay"
    assert lit_box(w, h, final), "a black screen"
    assert has_colour(w, h, final, VGA_BLUE, 0, FONT_H), "no blue title bar"
    assert has_colour(w, h, final, VGA_BLUE, status * FONT_H, (status + 1) * FONT_H), "no blue status line"
    assert not has_colour(w, h, final, VGA_BLUE, FONT_H, 2 * FONT_H), "blue on the System line"
    png = os.environ.get("BAREMARK_SCREENSHOT") or os.path.join(workdir, "bios-screen.png")
    write_png(png, w, h, final)
    print("NOTE test_bios_screen: picture in " + png)
