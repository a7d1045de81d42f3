/* The console on a BIOS PC: the VGA text screen the BIOS left (mode 3,
 * 80x25 at 0xB8000, or what the BIOS data area says), as scrolling text
 * and as the results screen's fixed layout (plat_screen_*), and Esc from
 * the i8042 keyboard controller or typed on the records' serial port (a
 * BMC's Serial over LAN console on a headless server). */
#include "bios_private.h"
#include "../fw/fw_private.h"

#define VGA_TEXT_COLOUR 0xb8000        /* modes 0-3: colour text */
#define VGA_TEXT_MONO 0xb0000          /* mode 7: monochrome text */
#define VGA_TEXT_BYTES 0x8000          /* the text window's 32 KiB */
/* The BIOS data area, where INT 10h keeps the mode it set (as Linux
 * arch/x86/boot/video.c store_mode_params() reads the rows). */
#define BDA_VIDEO_MODE 0x449           /* u8 */
#define BDA_VIDEO_COLS 0x44a           /* u16 */
#define BDA_VIDEO_ROWS_M1 0x484        /* u8: rows - 1 (EGA and later) */
#define VGA_MODE_MONO 7
#define VGA_MISC_READ 0x3cc            /* Miscellaneous Output, read port */
#define VGA_MISC_IOAS 0x01             /* CRTC at 3D4h/3D5h, else 3B4h/3B5h */
#define VGA_CRTC_COLOUR 0x3d4
#define VGA_CRTC_MONO 0x3b4
#define CRTC_CURSOR_START 0x0a
#define CRTC_CURSOR_DISABLE 0x20       /* Cursor Start bit 5 */
#define CRTC_CURSOR_HI 0x0e            /* cursor location, in cells */
#define CRTC_CURSOR_LO 0x0f
#define VGA_ATTR 0x07                  /* light grey on black */
#define I8042_DATA 0x60
#define I8042_STATUS 0x64
#define I8042_OBF 0x01                 /* output buffer full */
#define I8042_AUXB 0x20                /* ... and the byte is from the mouse */
#define SCANCODE_ESC 0x01              /* set 1 make code, as the BIOS translates */
#define COM1 0x3f8
#define ASCII_ESC 0x1b

static struct {
    volatile uint16_t *cells;
    unsigned cols, rows;
    int mode;                          /* the BIOS video mode */
    uint16_t crtc;                     /* CRTC index port */
    bool layout;                       /* plat_screen_open drew the fixed layout */
} vga;
static unsigned row, col;              /* the scrolling text's position */

/* The text attribute (VGA: bits 3:0 foreground, 6:4 background) of each
 * portable colour; the same values as UEFI's EFI_TEXT_ATTR, whose colour
 * numbers are the VGA's. */
static const uint8_t colour_attr[PLAT_COLOUR_COUNT] = {
    [PLAT_COLOUR_NORMAL] = 0x07, [PLAT_COLOUR_TITLE] = 0x1f, [PLAT_COLOUR_LABEL] = 0x0b,
    [PLAT_COLOUR_VALUE] = 0x0f,  [PLAT_COLOUR_ERROR] = 0x4f, [PLAT_COLOUR_WARN] = 0x0e,
    [PLAT_COLOUR_GOOD] = 0x0a,
};
/* Mode 7 knows only underline, bright and reverse video. */
static const uint8_t mono_attr[PLAT_COLOUR_COUNT] = {
    [PLAT_COLOUR_NORMAL] = 0x07, [PLAT_COLOUR_TITLE] = 0x70, [PLAT_COLOUR_LABEL] = 0x07,
    [PLAT_COLOUR_VALUE] = 0x0f,  [PLAT_COLOUR_ERROR] = 0x70, [PLAT_COLOUR_WARN] = 0x0f,
    [PLAT_COLOUR_GOOD] = 0x0f,
};

/* The few non-ASCII characters worth showing, in code page 437 (the VGA
 * BIOS font); anything else is '?'. */
static const struct {
    uint16_t cp;
    uint8_t glyph;
} cp437[] = {
    { 0x00b0, 0xf8 }, { 0x00b1, 0xf1 }, { 0x00b5, 0xe6 }, { 0x03bc, 0xe6 }, { 0x00b7, 0xfa },
    { 0x00e4, 0x84 }, { 0x00f6, 0x94 }, { 0x00fc, 0x81 }, { 0x00c4, 0x8e }, { 0x00d6, 0x99 },
    { 0x00dc, 0x9a }, { 0x00df, 0xe1 }, { 0x00e9, 0x82 }, { 0x2264, 0xf3 }, { 0x2265, 0xf2 },
    { 0x2500, 0xc4 }, { 0x2502, 0xb3 }, { 0x2588, 0xdb }, { 0x2591, 0xb0 }, { 0x2592, 0xb1 },
    { 0x2593, 0xb2 },
};

static uint8_t glyph_of(uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7f)
        return (uint8_t)cp;
    for (unsigned i = 0; i < ARRAY_SIZE(cp437); i++)
        if (cp437[i].cp == cp)
            return cp437[i].glyph;
    return '?';
}

/* A CRTC register through the index/data pair, as Linux vgacon's
 * write_vga() programs the cursor. */
static void crtc_write(uint8_t reg, uint8_t v)
{
    plat_outb(vga.crtc, reg);
    plat_outb((uint16_t)(vga.crtc + 1), v);
}

static uint8_t crtc_read(uint8_t reg)
{
    plat_outb(vga.crtc, reg);
    return plat_inb((uint16_t)(vga.crtc + 1));
}

/* The cursor to a cell (CRTC 0Eh/0Fh hold its offset in cells, Linux
 * vgacon_cursor()), or hidden by Cursor Start's disable bit: a blinking
 * block in the middle of the results helps nobody. */
static void vga_cursor_at(unsigned r, unsigned c)
{
    unsigned pos = r * vga.cols + c;

    crtc_write(CRTC_CURSOR_HI, (uint8_t)(pos >> 8));
    crtc_write(CRTC_CURSOR_LO, (uint8_t)pos);
}

static void vga_cursor_show(bool on)
{
    uint8_t start = crtc_read(CRTC_CURSOR_START);

    crtc_write(CRTC_CURSOR_START, on ? start & ~CRTC_CURSOR_DISABLE : start | CRTC_CURSOR_DISABLE);
}

static void vga_clear(void)
{
    for (unsigned i = 0; i < vga.cols * vga.rows; i++)
        vga.cells[i] = VGA_ATTR << 8 | ' ';
}

static void vga_scroll(void)
{
    for (unsigned i = 0; i < vga.cols * (vga.rows - 1); i++)
        vga.cells[i] = vga.cells[i + vga.cols];
    for (unsigned i = 0; i < vga.cols; i++)
        vga.cells[vga.cols * (vga.rows - 1) + i] = VGA_ATTR << 8 | ' ';
    row = vga.rows - 1;
}

static void vga_putc(uint32_t cp)
{
    if (cp == '\n') {
        col = 0;
        /* Below the layout the last row is reused, not scrolled. */
        if (++row >= vga.rows && vga.layout)
            row = vga.rows - 1;
        else if (row >= vga.rows)
            vga_scroll();
        return;
    }
    if (cp == '\r') {
        col = 0;
        return;
    }
    if (cp == '\t')
        cp = ' ';
    if (col >= vga.cols)
        vga_putc('\n');
    vga.cells[row * vga.cols + col++] = (uint16_t)(VGA_ATTR << 8 | glyph_of(cp));
}

/* The text mode the BIOS left: its number, and its size from the BIOS data
 * area when that is sane (a 40-column mode, 80x50 with the 8x8 font, ...).
 * A graphics mode (a loader's splash) is not drawn on: 80x25 is assumed at
 * 0xB8000, where the plain text then goes unseen, and no layout is drawn. */
static uint8_t bda_read(uintptr_t addr)
{
    /* Low memory is identity mapped; the compiler must not take the
     * address for a null pointer. */
    __asm__("" : "+r"(addr));
    return *(const volatile uint8_t *)addr;
}

static void vga_detect(void)
{
    unsigned cols = bda_read(BDA_VIDEO_COLS) | bda_read(BDA_VIDEO_COLS + 1) << 8;
    unsigned rows = bda_read(BDA_VIDEO_ROWS_M1) + 1u;

    vga.mode = bda_read(BDA_VIDEO_MODE) & 0x7f;
    vga.cells = (volatile uint16_t *)(uintptr_t)(vga.mode == VGA_MODE_MONO ? VGA_TEXT_MONO : VGA_TEXT_COLOUR);
    vga.cols = cols >= 40 && cols <= 255 ? cols : 80;
    vga.rows = rows >= 25 && rows <= 100 ? rows : 25;
    if (vga.cols * vga.rows * 2 > VGA_TEXT_BYTES) {
        vga.cols = 80;
        vga.rows = 25;
    }
    vga.crtc = plat_inb(VGA_MISC_READ) & VGA_MISC_IOAS ? VGA_CRTC_COLOUR : VGA_CRTC_MONO;
}

void bios_console_init(void)
{
    vga_detect();
    row = col = 0;
    vga_clear();
}

/* The rows a text takes from column 0 (its last newline opens none). */
static unsigned text_rows(const char *s)
{
    unsigned rows = 1, c = 0;

    while (*s) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        if (cp == '\n' && *s)
            rows++, c = 0;
        else if (cp != '\n' && cp != '\r' && ++c > vga.cols)
            rows++, c = 1;
    }
    return rows;
}

/* With the layout on screen, plain text (plat_log, a message at exit, a
 * CPU exception) takes the bottom rows it needs, cleared first, so the
 * layout above stays where it was instead of scrolling away; the layout
 * goes on drawing (a row it redraws covers the text again, as on UEFI). */
void plat_console_write(const char *s)
{
    if (vga.layout) {
        unsigned need = MIN(text_rows(s), vga.rows);
        if (!*s || !strcmp(s, "\n"))
            return;
        for (unsigned i = (vga.rows - need) * vga.cols; i < vga.rows * vga.cols; i++)
            vga.cells[i] = VGA_ATTR << 8 | ' ';
        row = vga.rows - need;
        col = 0;
    }
    while (*s) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        vga_putc(cp);
    }
}

/* The screen, and COM1 by polling its transmitter a bounded number of
 * times: for a message when the record sinks may not be there. */
void bios_console_emergency(const char *s)
{
    plat_console_write(s);
    for (; *s; s++) {
        for (unsigned spin = 0; spin < 100000 && !(plat_inb(COM1 + 5) & 0x20); spin++)
            ;
        plat_outb(COM1, (uint8_t)*s);
    }
}

/* Esc typed on the serial port: an ESC byte not followed at once by '['
 * or 'O' (what a terminal sends for an arrow or function key, ECMA-48
 * CSI and SS3). At most 16 bytes a call. */
static bool serial_esc(void)
{
    static bool esc_pending;
    uint8_t b;
    bool seen = false;

    for (unsigned n = 0; n < 16 && fw_serial_read(&b); n++) {
        if (esc_pending && b != '[' && b != 'O')
            seen = true;
        esc_pending = b == ASCII_ESC;
    }
    /* A lone ESC with nothing after it in this poll is Esc. */
    if (esc_pending) {
        seen = true;
        esc_pending = false;
    }
    return seen;
}

bool plat_abort_requested(void)
{
    static bool aborted;
    static uint64_t next_check;
    uint64_t now = plat_now_ns();

    /* At most every 10 ms, and at most a few bytes each time. */
    if (!aborted && bios_esc_seen())
        aborted = true;         /* pressed during an INT 13h call (realmode_bios.c) */
    if (aborted || now < next_check)
        return aborted;
    next_check = now + 10000000ull;
    for (unsigned n = 0; n < 16; n++) {
        uint8_t st = plat_inb(I8042_STATUS);
        if (!(st & I8042_OBF))
            break;
        if (plat_inb(I8042_DATA) == SCANCODE_ESC && !(st & I8042_AUXB))
            aborted = true;
    }
    if (serial_esc())
        aborted = true;
    return aborted;
}

/* The fixed layout straight into the text buffer: the mode the BIOS set
 * (no INT 10h here to change it), cleared, the cursor hidden. */
int plat_screen_open(struct plat_screen_info *info)
{
    bool text = vga.mode <= 3 || vga.mode == VGA_MODE_MONO;

    memset(info, 0, sizeof(*info));
    info->cols = vga.cols;
    info->rows = vga.rows;
    info->mode = vga.mode;
    info->modes = 1;
    if (!text)
        return BM_ENOTSUP;
    vga_clear();
    vga_cursor_show(false);
    row = col = 0;
    vga.layout = true;
    info->positioning = true;
    info->colour = vga.mode != VGA_MODE_MONO;
    return BM_OK;
}

void plat_screen_put(unsigned x, unsigned y, enum plat_colour colour, const char *utf8)
{
    const uint8_t *attrs = vga.mode == VGA_MODE_MONO ? mono_attr : colour_attr;
    uint16_t attr = attrs[colour < PLAT_COLOUR_COUNT ? colour : PLAT_COLOUR_NORMAL];

    if (!vga.layout || y >= vga.rows)
        return;
    while (*utf8 && x < vga.cols) {
        uint32_t cp;
        utf8 += bm_utf8_next(utf8, &cp);
        vga.cells[y * vga.cols + x++] = (uint16_t)(attr << 8 | glyph_of(cp));
    }
}

/* Plain text written after the layout (a message at exit) starts on this
 * row, where the cursor would be. */
void plat_screen_park(unsigned y)
{
    if (!vga.layout)
        return;
    row = MIN(y, vga.rows - 1);
    col = 0;
    vga_cursor_at(row, col);
}

/* A key pressed on the i8042 keyboard or typed on the serial port: bytes
 * already waiting are dropped, then the first make code (bit 7 clear) from
 * the keyboard, not the mouse, or any byte from the serial port. As long
 * as the person takes. */
void plat_wait_key(void)
{
    uint8_t b;

    for (unsigned n = 0; n < 64 && (plat_inb(I8042_STATUS) & I8042_OBF); n++)
        (void)plat_inb(I8042_DATA);
    for (unsigned n = 0; n < 64 && fw_serial_read(&b); n++)
        ;
    for (;;) {
        uint8_t st = plat_inb(I8042_STATUS);
        if (st & I8042_OBF) {
            uint8_t code = plat_inb(I8042_DATA);
            if (!(st & I8042_AUXB) && !(code & 0x80))
                return;
        }
        if (fw_serial_read(&b))
            return;
        plat_delay_ns(1000000);
    }
}
