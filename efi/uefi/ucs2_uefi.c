/* Text between the firmware's UCS-2 and our ASCII. */
#include "uefi_private.h"

void uefi_ucs2_to_ascii(char *dst, size_t cap, const CHAR16 *src, size_t max_chars)
{
    size_t n = 0;
    for (size_t i = 0; src && i < max_chars && src[i] && n + 1 < cap; i++)
        dst[n++] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
    if (cap)
        dst[n] = '\0';
}

void uefi_ascii_to_ucs2(CHAR16 *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (; *src && n + 1 < cap; src++)
        dst[n++] = (CHAR16)(*src == '/' ? '\\' : *src);
    dst[n] = 0;
}
