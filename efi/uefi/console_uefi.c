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
