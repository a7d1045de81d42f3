/* The console on a BIOS PC: the VGA text screen at 0xB8000 (80x25, the
 * mode the BIOS left), scrolled by us, and Esc from the i8042 keyboard
 * controller. */
#include "bios_private.h"

#define VGA_TEXT 0xb8000
#define VGA_COLS 80
#define VGA_ROWS 25
#define VGA_ATTR 0x07                  /* light grey on black */
#define I8042_DATA 0x60
#define I8042_STATUS 0x64
#define I8042_OBF 0x01                 /* output buffer full */
#define I8042_AUXB 0x20                /* ... and the byte is from the mouse */
#define SCANCODE_ESC 0x01              /* set 1 make code, as the BIOS translates */
#define COM1 0x3f8

static volatile uint16_t *const vga = (volatile uint16_t *)VGA_TEXT;
static unsigned row, col;

static void vga_scroll(void)
{
    for (unsigned i = 0; i < VGA_COLS * (VGA_ROWS - 1); i++)
        vga[i] = vga[i + VGA_COLS];
    for (unsigned i = 0; i < VGA_COLS; i++)
        vga[VGA_COLS * (VGA_ROWS - 1) + i] = VGA_ATTR << 8 | ' ';
    row = VGA_ROWS - 1;
}

static void vga_putc(uint32_t cp)
{
    if (cp == '\n') {
        col = 0;
        if (++row >= VGA_ROWS)
            vga_scroll();
        return;
    }
    if (cp == '\r') {
        col = 0;
        return;
    }
    if (cp == '\t')
        cp = ' ';
    /* Code page 437 has ASCII; anything else is shown as '?'. */
    if (cp < 0x20 || cp >= 0x7f)
        cp = '?';
    if (col >= VGA_COLS)
        vga_putc('\n');
    vga[row * VGA_COLS + col++] = (uint16_t)(VGA_ATTR << 8 | cp);
}

void bios_console_init(void)
{
    row = col = 0;
    for (unsigned i = 0; i < VGA_COLS * VGA_ROWS; i++)
        vga[i] = VGA_ATTR << 8 | ' ';
}

void plat_console_write(const char *s)
{
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
    return aborted;
}

/* The VGA text console scrolls; cursor positioning and colours are not
 * offered, so the screen module writes plain scrolling text here. */
int plat_screen_open(struct plat_screen_info *info)
{
    memset(info, 0, sizeof(*info));
    info->cols = 80;
    info->rows = 25;
    info->mode = -1;
    info->modes = 1;
    return BM_OK;
}

void plat_screen_put(unsigned x, unsigned y, enum plat_colour colour, const char *utf8) {}

void plat_screen_park(unsigned y) {}

/* A key pressed on the i8042 keyboard: bytes already waiting are dropped,
 * then the first make code (bit 7 clear) from the keyboard, not the mouse.
 * As long as the person takes. */
void plat_wait_key(void)
{
    for (unsigned n = 0; n < 64 && (plat_inb(I8042_STATUS) & I8042_OBF); n++)
        (void)plat_inb(I8042_DATA);
    for (;;) {
        uint8_t st = plat_inb(I8042_STATUS);
        if (st & I8042_OBF) {
            uint8_t code = plat_inb(I8042_DATA);
            if (!(st & I8042_AUXB) && !(code & 0x80))
                return;
        }
        plat_delay_ns(1000000);
    }
}
