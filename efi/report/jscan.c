/* The report's JSON reader: field look-up in one record, strings, numbers. */
#include "jscan.h"

static const char *ws(const char *p)
{
    while (p && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* After the string whose opening quote is at p, or NULL when it never ends. */
static const char *skip_string(const char *p)
{
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!p[1])
                return NULL;
            p++;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

const char *js_skip(const char *p)
{
    unsigned depth = 0;

    p = ws(p);
    if (!p || !*p)
        return NULL;
    if (*p == '"')
        return skip_string(p);
    if (*p != '{' && *p != '[') {
        /* A number or a literal: up to the next delimiter. */
        const char *s = p;
        while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
            p++;
        return p == s ? NULL : p;
    }
    /* Nested containers, iteratively: count brackets outside strings. */
    for (; *p; p++) {
        if (*p == '"') {
            p = skip_string(p);
            if (!p)
                return NULL;
            p--;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (--depth == 0)
                return p + 1;
        }
    }
    return NULL;
}

/* Does the string at p (a key) equal the n bytes of key? Keys baremark
 * writes never hold escapes. */
static bool key_is(const char *p, const char *key, size_t n)
{
    return p[0] == '"' && strncmp(p + 1, key, n) == 0 && p[1 + n] == '"';
}

static const char *get_one(const char *obj, const char *key, size_t n)
{
    const char *p = ws(obj);

    if (!p || *p != '{')
        return NULL;
    p = ws(p + 1);
    while (p && *p == '"') {
        bool match = key_is(p, key, n);
        p = skip_string(p);
        p = ws(p);
        if (!p || *p != ':')
            return NULL;
        p = ws(p + 1);
        if (match)
            return *p ? p : NULL;
        p = ws(js_skip(p));
        if (!p || *p != ',')
            return NULL;
        p = ws(p + 1);
    }
    return NULL;
}

const char *js_get(const char *obj, const char *key)
{
    const char *dot;

    while (obj && (dot = strchr(key, '.')) != NULL) {
        obj = get_one(obj, key, (size_t)(dot - key));
        key = dot + 1;
    }
    return obj ? get_one(obj, key, strlen(key)) : NULL;
}

const char *js_first(const char *arr)
{
    const char *p = ws(arr);

    if (!p || *p != '[')
        return NULL;
    p = ws(p + 1);
    return (*p && *p != ']') ? p : NULL;
}

const char *js_next(const char *elem)
{
    const char *p = ws(js_skip(elem));

    if (!p || *p != ',')
        return NULL;
    p = ws(p + 1);
    return (*p && *p != ']') ? p : NULL;
}

/* \uXXXX at p (after the backslash-u): the code unit, or -1. */
static long hex4(const char *p)
{
    long v = 0;

    for (int i = 0; i < 4; i++) {
        int h = bm_hex_digit(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* One character of the string body at *pp: its code point (or a raw byte
 * when raw is set), advancing *pp. false at the closing quote or a fault. */
static bool string_char(const char **pp, uint32_t *cp, bool *raw)
{
    const char *p = *pp;
    static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";

    *raw = false;
    if (!*p || *p == '"')
        return false;
    if (*p != '\\') {
        *cp = (uint8_t)*p;
        *raw = true;
        *pp = p + 1;
        return true;
    }
    if (p[1] == 'u') {
        long v = hex4(p + 2);
        if (v < 0)
            return false;
        p += 6;
        if (v >= 0xd800 && v < 0xdc00 && p[0] == '\\' && p[1] == 'u') {
            long lo = hex4(p + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
                v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
        }
        *cp = (v >= 0xd800 && v < 0xe000) ? 0xfffd : (uint32_t)v;
        *pp = p;
        return true;
    }
    for (int i = 0; esc_in[i]; i++) {
        if (p[1] == esc_in[i]) {
            *cp = (uint8_t)esc_out[i];
            *pp = p + 2;
            return true;
        }
    }
    return false;
}

bool js_str(const char *v, char *out, size_t cap)
{
    const char *p = ws(v);
    size_t len = 0;

    if (!cap)
        return false;
    out[0] = '\0';
    if (!p || *p != '"')
        return false;
    p++;
    for (;;) {
        uint32_t cp;
        bool raw;
        char enc[4];
        size_t n;

        if (!string_char(&p, &cp, &raw))
            break;
        if (raw && cp >= 0x80) {
            /* A raw UTF-8 byte: keep whole sequences only (cut below). */
            enc[0] = (char)cp;
            n = 1;
        } else {
            if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
                cp = '?';
            n = bm_utf8_put(enc, cp);
        }
        if (len + n + 1 > cap)
            break;
        memcpy(out + len, enc, n);
        len += n;
    }
    out[len] = '\0';
    {
        /* Never end inside a multi-byte sequence the cap cut short. */
        size_t i = 0, good = 0;
        while (i < len) {
            uint32_t c;
            size_t k = bm_utf8_next(out + i, &c);
            if (c == BM_UTF8_INVALID && i + k >= len)
                break;
            i += k;
            good = i;
        }
        out[good] = '\0';
    }
    return true;
}

bool js_num(const char *v, double *out)
{
    const char *p = ws(v);
    double x = 0, scale = 1;
    bool neg = false, digits = false;
    int ex = 0, exsign = 1;

    if (!p)
        return false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p >= '0' && *p <= '9'; p++, digits = true)
        x = x * 10 + (*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits = true)
            x += (*p - '0') * (scale /= 10);
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            exsign = *p++ == '-' ? -1 : 1;
        for (; *p >= '0' && *p <= '9' && ex < 400; p++)
            ex = ex * 10 + (*p - '0');
        for (; ex > 0; ex--)
            x = exsign > 0 ? x * 10 : x / 10;
    }
    if (!(x <= 1e300)) /* overflowed to infinity: not a number JSON can mean here */
        return false;
    *out = neg ? -x : x;
    return true;
}

bool js_true(const char *v)
{
    const char *p = ws(v);
    return p && strncmp(p, "true", 4) == 0;
}

void js_get_str(const char *obj, const char *key, char *out, size_t cap)
{
    if (!js_str(js_get(obj, key), out, cap) && cap)
        out[0] = '\0';
}

double js_get_num(const char *obj, const char *key, double dflt)
{
    double v;
    return js_num(js_get(obj, key), &v) ? v : dflt;
}
