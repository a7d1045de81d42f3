/* Reading our own records back: the screen model gets each record as the
 * JSON text record.c wrote, and takes the few fields it shows from it. A
 * file of its own so that the model and the memory part of the model
 * (screen_model_memory.c) both use it without calling each other. */
#include "screen_private.h"

/* Where the value of "key" starts. Our records never put a key's text
 * inside a string value followed by ':' unescaped, so a plain search is
 * enough; nested keys (lat_us.p99) are unique in their record. */
const char *screen_json_value(const char *json, const char *key)
{
    char pat[48];
    const char *p;

    snprintf(pat, sizeof(pat), "\"%s\":", key);
    p = strstr(json, pat);
    return p ? p + strlen(pat) : NULL;
}

/* The JSON string at p (p at its opening quote) into out, cut to cap;
 * returns where the string ends (after its closing quote). */
const char *screen_json_read_string(const char *p, char *out, size_t cap)
{
    size_t n = 0;

    for (p++; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1]) {
            p++;
            ch = *p == 'n' || *p == 't' ? ' ' : *p;
            /* \uXXXX: only control characters are escaped that way. */
            if (*p == 'u') {
                ch = '?';
                for (int i = 0; i < 4 && p[1]; i++)
                    p++;
            }
        }
        if (n + 1 < cap)
            out[n++] = ch;
    }
    if (cap)
        out[n] = '\0';
    return *p ? p + 1 : p;
}

/* The string value of key into out (cut to cap, "" when absent); false when key has no string. */
bool screen_json_str(const char *json, const char *key, char *out, size_t cap)
{
    const char *p = screen_json_value(json, key);

    if (cap)
        out[0] = '\0';
    if (!p || *p != '"')
        return false;
    screen_json_read_string(p, out, cap);
    return true;
}

/* The number value of key into *out; false when key has no number. */
bool screen_json_num(const char *json, const char *key, double *out)
{
    const char *p = screen_json_value(json, key);
    double v = 0, scale = 1;
    bool neg = false, any = false, frac = false;

    if (!p)
        return false;
    if (*p == '-')
        neg = true, p++;
    for (; (*p >= '0' && *p <= '9') || *p == '.'; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        any = true;
        v = v * 10 + (*p - '0');
        if (frac)
            scale *= 10;
    }
    if (!any)
        return false;
    v /= scale;
    if (*p == 'e' || *p == 'E') {
        int e = 0, sign = 1;
        p++;
        if (*p == '-' || *p == '+')
            sign = *p++ == '-' ? -1 : 1;
        while (*p >= '0' && *p <= '9')
            e = e * 10 + (*p++ - '0');
        for (; e > 0; e--)
            v = sign > 0 ? v * 10 : v / 10;
    }
    *out = neg ? -v : v;
    return true;
}
