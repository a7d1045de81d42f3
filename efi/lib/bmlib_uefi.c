/* The C library functions portable code needs, for the UEFI build.
 * memcpy and memset come from GNU-EFI's libefi. */
#include "bmlib.h"

void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;

    if (d == s || n == 0)
        return dst;
    if (d < s) {
        while (n--)
            *d++ = *s++;
    } else {
        d += n;
        s += n;
        while (n--)
            *--d = *--s;
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;

    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

void *memchr(const void *s, int c, size_t n)
{
    const uint8_t *p = s;
    for (; n; n--, p++)
        if (*p == (uint8_t)c)
            return (void *)p;
    return NULL;
}

size_t strlen(const char *s)
{
    const char *p = s;
    while (*p)
        p++;
    return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

int strcmp(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

char *strrchr(const char *s, int c)
{
    const char *last = NULL;
    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (!*s)
            return (char *)last;
    }
}

char *strstr(const char *h, const char *n)
{
    size_t nl = strlen(n);
    for (; *h; h++)
        if (strncmp(h, n, nl) == 0)
            return (char *)h;
    return nl == 0 ? (char *)h : NULL;
}

/* Shell sort: no recursion, no allocation, fine for the few thousand
 * elements baremark ever sorts (sample sets, inventories). */
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    uint8_t *b = base;
    uint8_t tmp[256];

    if (size > sizeof(tmp))
        return;
    for (size_t gap = n / 2; gap > 0; gap /= 2) {
        for (size_t i = gap; i < n; i++) {
            memcpy(tmp, b + i * size, size);
            size_t j = i;
            while (j >= gap && cmp(b + (j - gap) * size, tmp) > 0) {
                memcpy(b + j * size, b + (j - gap) * size, size);
                j -= gap;
            }
            memcpy(b + j * size, tmp, size);
        }
    }
}

/* ---- vsnprintf: the subset baremark uses --------------------------------------
 * %d %i %u %x %X %o %c %s %p %% and %f/%e-free doubles as %f, with flags '-',
 * '0', '+', ' ', width, precision (including '*'), and length h hh l ll z. */

struct out {
    char *buf;
    size_t cap, len;
};

static void put(struct out *o, char c)
{
    if (o->len + 1 < o->cap)
        o->buf[o->len] = c;
    o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
    int fill = width > (int)n ? width - (int)n : 0;

    if (!left && pad == '0' && n && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) {
        put(o, *s++);
        n--;
    }
    if (!left)
        while (fill-- > 0)
            put(o, pad);
    while (n--)
        put(o, *s++);
    if (left)
        while (fill-- > 0)
            put(o, ' ');
}

static size_t utoa(char *tmp, unsigned long long v, unsigned base, bool upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char rev[32];
    size_t n = 0, i = 0;

    do {
        rev[n++] = digits[v % base];
        v /= base;
    } while (v);
    while (n)
        tmp[i++] = rev[--n];
    return i;
}

static size_t ftoa(char *tmp, double v, int prec, char sign)
{
    size_t n = 0;
    unsigned long long ip;
    double frac, scale = 1;

    if (v != v) {
        memcpy(tmp, "nan", 3);
        return 3;
    }
    if (v < 0) {
        tmp[n++] = '-';
        v = -v;
    } else if (sign) {
        tmp[n++] = sign;
    }
    if (v > 1.8e19) {
        memcpy(tmp + n, "inf", 3);
        return n + 3;
    }
    if (prec > 12)
        prec = 12;
    for (int i = 0; i < prec; i++)
        scale *= 10;
    v += 0.5 / scale; /* round half up at the last printed digit */
    ip = (unsigned long long)v;
    frac = v - (double)ip;
    n += utoa(tmp + n, ip, 10, false);
    if (prec > 0) {
        tmp[n++] = '.';
        for (int i = 0; i < prec; i++) {
            frac *= 10;
            int d = (int)frac;
            if (d > 9)
                d = 9;
            tmp[n++] = (char)('0' + d);
            frac -= d;
        }
    }
    return n;
}

/* A conversion's flags ('-', '0', '+', ' '); returns what follows them. */
static const char *parse_flags(const char *fmt, bool *left, char *pad, char *sign)
{
    for (;; fmt++) {
        if (*fmt == '-')
            *left = true;
        else if (*fmt == '0')
            *pad = '0';
        else if (*fmt == '+')
            *sign = '+';
        else if (*fmt == ' ')
            *sign = *sign ? *sign : ' ';
        else
            return fmt;
    }
}

/* A conversion's length modifier: *lng 1 for 'l', 2 for "ll" and 'z'
 * ('h' is read and ignored); returns the conversion character. */
static const char *parse_length(const char *fmt, int *lng)
{
    for (;; fmt++) {
        if (*fmt == 'l')
            (*lng)++;
        else if (*fmt == 'z')
            *lng = 2;
        else if (*fmt != 'h')
            return fmt;
    }
}

int vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    struct out o = { buf, cap, 0 };

    for (; *fmt; fmt++) {
        bool left = false;
        char pad = ' ', sign = 0;
        int width = 0, prec = -1, lng = 0;
        char tmp[72];
        size_t n;

        if (*fmt != '%') {
            put(&o, *fmt);
            continue;
        }
        fmt = parse_flags(fmt + 1, &left, &pad, &sign);
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            fmt++;
        } else {
            while (*fmt >= '0' && *fmt <= '9')
                width = width * 10 + (*fmt++ - '0');
        }
        if (*fmt == '.') {
            fmt++;
            prec = 0;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                fmt++;
            } else {
                while (*fmt >= '0' && *fmt <= '9')
                    prec = prec * 10 + (*fmt++ - '0');
            }
        }
        fmt = parse_length(fmt, &lng);
        switch (*fmt) {
        case 'd':
        case 'i': {
            long long v = lng >= 2 ? va_arg(ap, long long) : lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
            unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            n = 0;
            if (v < 0)
                tmp[n++] = '-';
            else if (sign)
                tmp[n++] = sign;
            n += utoa(tmp + n, u, 10, false);
            put_padded(&o, tmp, n, width, left, pad);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            unsigned long long v = lng >= 2 ? va_arg(ap, unsigned long long)
                                 : lng == 1 ? va_arg(ap, unsigned long)
                                            : va_arg(ap, unsigned int);
            unsigned base = *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16;
            n = utoa(tmp, v, base, *fmt == 'X');
            put_padded(&o, tmp, n, width, left, pad);
            break;
        }
        case 'p': {
            tmp[0] = '0';
            tmp[1] = 'x';
            n = 2 + utoa(tmp + 2, (uintptr_t)va_arg(ap, void *), 16, false);
            put_padded(&o, tmp, n, width, left, ' ');
            break;
        }
        case 'c':
            tmp[0] = (char)va_arg(ap, int);
            put_padded(&o, tmp, 1, width, left, ' ');
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
            put_padded(&o, s, n, width, left, ' ');
            break;
        }
        case 'f':
        case 'g':
        case 'e':
            n = ftoa(tmp, va_arg(ap, double), prec < 0 ? 6 : prec, sign);
            put_padded(&o, tmp, n, width, left, pad);
            break;
        case '%':
            put(&o, '%');
            break;
        case '\0':
            fmt--;
            break;
        default:
            put(&o, '%');
            put(&o, *fmt);
            break;
        }
    }
    if (cap)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return (int)o.len;
}

int snprintf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
