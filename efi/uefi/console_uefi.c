/* The console: text out (ConOut) and the Esc key (ConIn). */
#include "uefi_private.h"

/* UTF-8 in, UCS-2 out (ConOut takes UCS-2): a byte at a time would turn
 * each byte of a sequence into its own character, and a C1 byte into a
 * terminal control. Characters beyond the BMP, invalid sequences and
 * control characters other than CR, LF and TAB are shown as '?'. */
void plat_console_write(const char *s)
{
    CHAR16 buf[256];
    size_t n = 0;

    while (*s) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        if (cp == '\n')
            buf[n++] = L'\r';
        if (cp == BM_UTF8_INVALID || cp > 0xffff || (cp < 0x20 && cp != '\n' && cp != '\r' && cp != '\t') ||
            (cp >= 0x7f && cp <= 0x9f))
            cp = '?';
        buf[n++] = (CHAR16)cp;
        if (n >= ARRAY_SIZE(buf) - 3) {
            buf[n] = 0;
            uefi_call_wrapper(bm_st->ConOut->OutputString, 2, bm_st->ConOut, buf);
            n = 0;
        }
    }
    buf[n] = 0;
    if (n)
        uefi_call_wrapper(bm_st->ConOut->OutputString, 2, bm_st->ConOut, buf);
}

#define SCAN_ESC_CODE 0x17

bool plat_abort_requested(void)
{
    static bool aborted;
    static uint64_t next_check;
    EFI_INPUT_KEY key;
    uint64_t now = plat_now_ns();

    /* ReadKeyStroke is slow on some firmware: look at most every 100 ms. */
    if (aborted || now < next_check)
        return aborted;
    next_check = now + 100000000ull;
    while (uefi_call_wrapper(bm_st->ConIn->ReadKeyStroke, 2, bm_st->ConIn, &key) == EFI_SUCCESS)
        if (key.ScanCode == SCAN_ESC_CODE || key.UnicodeChar == 0x1b)
            aborted = true;
    return aborted;
}

/* ---- The screen: text modes, positions and colours -------------------------------- */

static struct plat_screen_info screen;
static INT32 initial_mode = -1;  /* the mode the firmware had before plat_screen_open */

/* The UEFI text attribute of each portable colour (UEFI 2.10 section
 * 12.4.7, EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL.SetAttribute). */
static const UINTN colour_attr[PLAT_COLOUR_COUNT] = {
    [PLAT_COLOUR_NORMAL] = EFI_TEXT_ATTR(EFI_LIGHTGRAY, EFI_BLACK),
    [PLAT_COLOUR_TITLE] = EFI_TEXT_ATTR(EFI_WHITE, EFI_BLUE),
    [PLAT_COLOUR_LABEL] = EFI_TEXT_ATTR(EFI_LIGHTCYAN, EFI_BLACK),
    [PLAT_COLOUR_VALUE] = EFI_TEXT_ATTR(EFI_WHITE, EFI_BLACK),
    [PLAT_COLOUR_ERROR] = EFI_TEXT_ATTR(EFI_WHITE, EFI_RED),
    [PLAT_COLOUR_WARN] = EFI_TEXT_ATTR(EFI_YELLOW, EFI_BLACK),
    [PLAT_COLOUR_GOOD] = EFI_TEXT_ATTR(EFI_LIGHTGREEN, EFI_BLACK),
};

/* The largest mode by cells. QueryMode answers EFI_UNSUPPORTED for a
 * mode number below MaxMode that is not valid (EDK2 ConSplitterDxe
 * ConSplitterTextOutQueryMode: a mode not every console offers, e.g. a
 * graphics-only size while the serial terminal is also on ConOut). */
static int largest_mode(SIMPLE_TEXT_OUTPUT_INTERFACE *out, UINTN *cols, UINTN *rows, unsigned *valid)
{
    int best = -1;

    *cols = *rows = 0;
    *valid = 0;
    for (INT32 m = 0; m < out->Mode->MaxMode; m++) {
        UINTN c, r;
        if (uefi_call_wrapper(out->QueryMode, 4, out, (UINTN)m, &c, &r) != EFI_SUCCESS)
            continue;
        (*valid)++;
        if (c * r > *cols * *rows) {
            best = m;
            *cols = c;
            *rows = r;
        }
    }
    return best;
}

int plat_screen_open(struct plat_screen_info *info)
{
    SIMPLE_TEXT_OUTPUT_INTERFACE *out = bm_st->ConOut;
    UINTN cols, rows;
    int best;

    memset(&screen, 0, sizeof(screen));
    screen.mode = -1;
    if (!out || !out->Mode)
        goto plain;
    initial_mode = out->Mode->Mode;
    best = largest_mode(out, &cols, &rows, &screen.modes);
    if (best < 0)
        goto plain;
    if (best != out->Mode->Mode && uefi_call_wrapper(out->SetMode, 2, out, (UINTN)best) != EFI_SUCCESS) {
        /* Stay in the current mode, whatever its size. */
        best = out->Mode->Mode;
        if (uefi_call_wrapper(out->QueryMode, 4, out, (UINTN)best, &cols, &rows) != EFI_SUCCESS)
            goto plain;
    }
    screen.mode = best;
    screen.cols = (unsigned)cols;
    screen.rows = (unsigned)rows;
    screen.colour = uefi_call_wrapper(out->SetAttribute, 2, out, colour_attr[PLAT_COLOUR_NORMAL]) == EFI_SUCCESS;
    if (uefi_call_wrapper(out->ClearScreen, 1, out) != EFI_SUCCESS ||
        uefi_call_wrapper(out->SetCursorPosition, 3, out, 0, 0) != EFI_SUCCESS)
        goto plain;
    screen.positioning = true;
    /* A blinking cursor in the middle of the results helps nobody. */
    uefi_call_wrapper(out->EnableCursor, 2, out, FALSE);
    *info = screen;
    return BM_OK;
plain:
    screen.positioning = false;
    *info = screen;
    return BM_ENOTSUP;
}

void plat_screen_put(unsigned col, unsigned row, enum plat_colour colour, const char *s)
{
    SIMPLE_TEXT_OUTPUT_INTERFACE *out = bm_st->ConOut;
    CHAR16 buf[260];
    unsigned n = 0, last;

    if (!screen.positioning || row >= screen.rows || col >= screen.cols)
        return;
    /* The last cell of the last row would scroll the whole screen up on
     * most consoles (the cursor wraps to a row that does not exist). */
    last = row + 1 == screen.rows ? screen.cols - 1 : screen.cols;
    while (*s && col + n < last && n < ARRAY_SIZE(buf) - 1) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        if (cp == BM_UTF8_INVALID || cp > 0xffff || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            cp = '?';
        buf[n++] = (CHAR16)cp;
    }
    buf[n] = 0;
    if (!n)
        return;
    if (screen.colour)
        uefi_call_wrapper(out->SetAttribute, 2, out, colour_attr[colour < PLAT_COLOUR_COUNT ? colour : 0]);
    uefi_call_wrapper(out->SetCursorPosition, 3, out, (UINTN)col, (UINTN)row);
    uefi_call_wrapper(out->OutputString, 2, out, buf);
}

void plat_screen_park(unsigned row)
{
    SIMPLE_TEXT_OUTPUT_INTERFACE *out = bm_st->ConOut;

    if (!screen.positioning)
        return;
    if (screen.colour)
        uefi_call_wrapper(out->SetAttribute, 2, out, colour_attr[PLAT_COLOUR_NORMAL]);
    uefi_call_wrapper(out->SetCursorPosition, 3, out, 0, (UINTN)MIN(row, screen.rows - 1));
}

/* Hand the console back as the firmware (or the UEFI shell that started
 * us) had it: its colours and cursor, and, when the person has seen the
 * results (restore_mode: after exit=wait's key), its text mode. */
void uefi_console_restore(bool restore_mode)
{
    SIMPLE_TEXT_OUTPUT_INTERFACE *out = bm_st->ConOut;

    if (!screen.positioning)
        return;
    uefi_call_wrapper(out->SetAttribute, 2, out, colour_attr[PLAT_COLOUR_NORMAL]);
    uefi_call_wrapper(out->EnableCursor, 2, out, TRUE);
    if (restore_mode && initial_mode >= 0 && initial_mode != out->Mode->Mode)
        uefi_call_wrapper(out->SetMode, 2, out, (UINTN)initial_mode);
    else if (restore_mode)
        uefi_call_wrapper(out->ClearScreen, 1, out);
    screen.positioning = false;
}

/* Keys pressed during the run (Esc that was already acted on, stray
 * presses) are dropped first, so only a key pressed now ends the wait. */
void plat_wait_key(void)
{
    EFI_INPUT_KEY key;
    UINTN index;

    if (!bm_st->ConIn)
        return;
    while (uefi_call_wrapper(bm_st->ConIn->ReadKeyStroke, 2, bm_st->ConIn, &key) == EFI_SUCCESS)
        ;
    for (;;) {
        if (uefi_call_wrapper(bm_st->BootServices->WaitForEvent, 3, 1, &bm_st->ConIn->WaitForKey, &index) !=
            EFI_SUCCESS)
            return;
        if (uefi_call_wrapper(bm_st->ConIn->ReadKeyStroke, 2, bm_st->ConIn, &key) == EFI_SUCCESS)
            return;
    }
}
