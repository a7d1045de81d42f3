/* Shared helpers for the libFuzzer harnesses (tests/fuzz/README.md). */
#ifndef BAREMARK_FUZZ_H
#define BAREMARK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a NUL-terminated string in an allocation of exactly n + 1
 * bytes (ASan sees any read past it). */
static inline char *fuzz_cstr(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

/* The input copied into a zeroed buffer of exactly cap bytes (parsers of
 * fixed-size device pages read all of it). */
static inline uint8_t *fuzz_page(const uint8_t *data, size_t n, size_t cap)
{
    uint8_t *p = calloc(1, cap);
    memcpy(p, data, n < cap ? n : cap);
    return p;
}

/* Strict UTF-8 (RFC 3629) with no C0/DEL/C1 code points; returns 1 if so. */
static inline int fuzz_utf8_clean(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], len, cp;
        if (c < 0x80)
            len = 1, cp = c;
        else if ((c & 0xe0) == 0xc0)
            len = 2, cp = c & 0x1f;
        else if ((c & 0xf0) == 0xe0)
            len = 3, cp = c & 0x0f;
        else if ((c & 0xf8) == 0xf0)
            len = 4, cp = c & 0x07;
        else
            return 0;
        if (i + len > n)
            return 0;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
            return 0;
        i += len;
    }
    return 1;
}

#endif
