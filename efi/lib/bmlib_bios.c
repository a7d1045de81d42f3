/* The C library for the BIOS build: the UEFI build's (it uses no firmware),
 * plus memcpy and memset, which GNU-EFI's libefi gives that build. */
#include "bmlib_uefi.c"

void *memcpy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;

    while (n--)
        *d++ = *s++;
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;

    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}
