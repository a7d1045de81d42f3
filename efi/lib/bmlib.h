/* The small C library baremark uses on both builds.
 *
 * On the host this is glibc; on UEFI, bmlib_uefi.c provides the same names,
 * so portable code is written once against ordinary C. */
#ifndef BAREMARK_BMLIB_H
#define BAREMARK_BMLIB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef BAREMARK_HOST
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *h, const char *n);
int vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
int snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

/* A double as an unsigned integer, saturating: NaN and anything below 1
 * give 0, anything past the type's range its maximum. A plain C cast of a
 * double the type cannot hold is undefined behaviour (C11 6.3.1.4), and
 * JSON records and firmware tables can hold any double. */
static inline uint64_t bm_double_to_u64(double v)
{
    if (!(v >= 1))
        return 0;
    return v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
}

/* The same for 32 bits. */
static inline uint32_t bm_double_to_u32(double v)
{
    if (!(v >= 1))
        return 0;
    return v >= 4294967296.0 ? UINT32_MAX : (uint32_t)v;
}

/* Bounded string copy that always terminates; returns dst. */
char *bm_strlcpy(char *dst, const char *src, size_t cap);
/* Case-insensitive compare of ASCII strings. */
int bm_strcasecmp(const char *a, const char *b);
/* Parse an unsigned decimal or 0x-hex number; the whole string must be used.
 * Returns true on success. */
bool bm_parse_u64(const char *s, uint64_t *out);
/* The value of an ASCII hex digit (0-9, a-f, A-F), or -1. */
int bm_hex_digit(char c);
/* Trim ASCII spaces at both ends, in place; returns s. */
char *bm_trim(char *s);
/* Copy a fixed-width, space-padded ASCII field (IDENTIFY, INQUIRY, SMBIOS)
 * into a C string, dropping padding and non-printable bytes. */
void bm_copy_padded(char *dst, size_t cap, const void *src, size_t len);
/* Does a path ('\\' or '/' separated) have a part made only of dots and
 * spaces ("..", ".", ". .")? Such a part names a parent or the folder
 * itself (FAT drops trailing dots and spaces), so it can leave the folder
 * a path is meant to stay in. */
bool bm_path_has_dot_part(const char *path);
/* Decode one UTF-8 sequence at s (NUL-terminated) as RFC 3629 defines it:
 * no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
 * U+10FFFF. Returns the bytes consumed (at least 1 unless *s is NUL) and
 * the code point in *cp, or BM_UTF8_INVALID for an invalid or truncated
 * sequence, whose length is then its maximal valid prefix (Unicode 15
 * section 3.9 "U+FFFD substitution of maximal subparts"). */
#define BM_UTF8_INVALID 0xffffffffu
size_t bm_utf8_next(const char *s, uint32_t *cp);
/* A code point (at most U+10FFFF) as UTF-8 into dst (room for 4 bytes, no
 * NUL written). Returns the bytes written. */
size_t bm_utf8_put(char *dst, uint32_t cp);
/* A code point of the Basic Multilingual Plane as UTF-8 into dst (room for
 * 3 bytes, no NUL written); anything above U+FFFF becomes '?'. Returns the
 * bytes written. */
size_t bm_utf8_put_bmp(char *dst, uint32_t cp);
/* The median of v[0..n) sorted ascending (n >= 1): the middle value, or
 * the mean of the middle two. */
double bm_median_sorted(const double *v, unsigned n);
/* Sort v[0..n) ascending in place (insertion sort: the handful of passes
 * or regions a median is taken of) and return bm_median_sorted(). */
double bm_sort_median(double *v, unsigned n);
/* qsort() order of two uint64_t. */
int bm_cmp_u64(const void *a, const void *b);
/* 64-bit PRNG (xoshiro256**), deterministic from its seed. */
struct bm_rng {
    uint64_t s[4];
};
void bm_rng_seed(struct bm_rng *r, uint64_t seed);
uint64_t bm_rng_next(struct bm_rng *r);
/* Uniform integer in [0, n). */
uint64_t bm_rng_below(struct bm_rng *r, uint64_t n);

#endif
