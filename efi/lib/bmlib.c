/* Portable helpers shared by both builds. */
#include "bmlib.h"

char *bm_strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n;

    if (cap == 0)
        return dst;
    n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
    return dst;
}

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

int bm_strcasecmp(const char *a, const char *b)
{
    while (*a && ascii_lower((unsigned char)*a) == ascii_lower((unsigned char)*b)) {
        a++;
        b++;
    }
    return ascii_lower((unsigned char)*a) - ascii_lower((unsigned char)*b);
}

int bm_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool bm_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = 10;

    if (!s || !*s)
        return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s)
            return false;
    }
    for (; *s; s++) {
        int d = bm_hex_digit(*s);
        if (d < 0 || (unsigned)d >= base)
            return false;
        if (v > (UINT64_MAX - d) / base)
            return false; /* overflow */
        v = v * base + d;
    }
    *out = v;
    return true;
}

char *bm_trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        *--end = '\0';
    return s;
}

void bm_copy_padded(char *dst, size_t cap, const void *src, size_t len)
{
    const uint8_t *p = src;
    size_t start = 0, end = len, n = 0;

    if (cap == 0)
        return;
    while (start < end && (p[start] == ' ' || p[start] == 0))
        start++;
    while (end > start && (p[end - 1] == ' ' || p[end - 1] == 0))
        end--;
    for (size_t i = start; i < end && n + 1 < cap; i++)
        dst[n++] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
    dst[n] = '\0';
}

bool bm_path_has_dot_part(const char *path)
{
    const char *p = path;

    while (*p) {
        bool only_dots = true, dot = false;
        const char *start = p;
        for (; *p && *p != '\\' && *p != '/'; p++) {
            dot |= *p == '.';
            only_dots &= *p == '.' || *p == ' ';
        }
        if (p > start && only_dots && dot)
            return true;
        if (*p)
            p++;
    }
    return false;
}

size_t bm_utf8_next(const char *s, uint32_t *cp)
{
    const uint8_t *p = (const uint8_t *)s;
    uint8_t lo = 0x80, hi = 0xbf; /* the range the second byte must fall in */
    size_t need, i;
    uint32_t v;

    if (p[0] < 0x80) {
        *cp = p[0];
        return p[0] ? 1 : 0;
    }
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        need = 1;
        v = p[0] & 0x1f;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        need = 2;
        v = p[0] & 0x0f;
        if (p[0] == 0xe0)
            lo = 0xa0; /* overlong below U+0800 */
        else if (p[0] == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        need = 3;
        v = p[0] & 0x07;
        if (p[0] == 0xf0)
            lo = 0x90; /* overlong below U+10000 */
        else if (p[0] == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        /* A lone continuation byte, C0/C1 (always overlong) or F5..FF. */
        *cp = BM_UTF8_INVALID;
        return 1;
    }
    for (i = 1; i <= need; i++) {
        uint8_t b = p[i];
        if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf)) {
            *cp = BM_UTF8_INVALID;
            return i;
        }
        v = (v << 6) | (b & 0x3f);
    }
    *cp = v;
    return need + 1;
}

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64 expands one seed into the four words xoshiro needs. */
void bm_rng_seed(struct bm_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

uint64_t bm_rng_next(struct bm_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

/* Lemire's multiply-shift with rejection: unbiased for any n. */
uint64_t bm_rng_below(struct bm_rng *r, uint64_t n)
{
    unsigned __int128 m;
    uint64_t lo;

    if (n == 0)
        return 0;
    m = (unsigned __int128)bm_rng_next(r) * n;
    lo = (uint64_t)m;
    if (lo < n) {
        uint64_t threshold = -n % n;
        while (lo < threshold) {
            m = (unsigned __int128)bm_rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

size_t bm_utf8_put(char *dst, uint32_t cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | (cp >> 6));
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | (cp >> 12));
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | (cp >> 18));
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

size_t bm_utf8_put_bmp(char *dst, uint32_t cp)
{
    return bm_utf8_put(dst, cp > 0xffff ? '?' : cp);
}

double bm_median_sorted(const double *v, unsigned n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bm_sort_median(double *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        double x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    return bm_median_sorted(v, n);
}

int bm_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
