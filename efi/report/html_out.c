/* Streaming, escaping HTML output (html_out.h). */
#include "html_out.h"
#include "platform.h"

void ho_init(struct hout *o, html_write_fn write, void *ctx)
{
    o->write = write;
    o->ctx = ctx;
    o->failed = false;
    o->bytes = 0;
    o->len = 0;
}

int ho_flush(struct hout *o)
{
    if (o->len && !o->failed) {
        if (o->write(o->ctx, o->buf, o->len) != BM_OK)
            o->failed = true;
        else
            o->bytes += o->len;
    }
    o->len = 0;
    return o->failed ? BM_EIO : BM_OK;
}

static void put(struct hout *o, const char *s, size_t n)
{
    while (n) {
        size_t room = sizeof(o->buf) - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
        if (o->len == sizeof(o->buf))
            ho_flush(o);
    }
}

void ho_raw(struct hout *o, const char *s)
{
    put(o, s, strlen(s));
}

void ho_fmt(struct hout *o, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n > 0)
        put(o, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void ho_text(struct hout *o, const char *s)
{
    while (s && *s) {
        uint32_t cp;
        size_t n = bm_utf8_next(s, &cp);
        const char *ent = NULL;

        switch (cp) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&#39;"; break;
        default:
            if (cp == BM_UTF8_INVALID || (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f))
                ent = "\xef\xbf\xbd"; /* U+FFFD */
        }
        if (ent)
            ho_raw(o, ent);
        else
            put(o, s, n);
        s += n;
    }
}

void fmt_num(char *dst, size_t cap, double v)
{
    double a = v < 0 ? -v : v;

    if (a >= 100 || a == 0 || (a < 1e15 && v == (double)(int64_t)v))
        snprintf(dst, cap, "%.0f", v);
    else if (a >= 10)
        snprintf(dst, cap, "%.1f", v);
    else if (a >= 0.1)
        snprintf(dst, cap, "%.2f", v);
    else
        snprintf(dst, cap, "%.3f", v);
}

void ho_num(struct hout *o, double v)
{
    char b[40];
    fmt_num(b, sizeof(b), v);
    ho_raw(o, b);
}

void fmt_bytes(char *dst, size_t cap, double bytes)
{
    static const char units[] = "KMGTP";
    double v = bytes;
    int u = -1;

    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u < 0) {
        snprintf(dst, cap, "%.0f", bytes);
        return;
    }
    /* Past 1024P (2^60 bytes) no size is real, and the integer test below
     * would cast a double beyond uint64_t (undefined, infinity included). */
    if (v >= 1024) {
        snprintf(dst, cap, "out of range");
        return;
    }
    if (v == (double)(uint64_t)v)
        snprintf(dst, cap, "%.0f%c", v, units[u]);
    else
        snprintf(dst, cap, "%.1f%c", v, units[u]);
}

double hl_log2(double x)
{
    double e = 0, m = x, t, t2, sum = 0, term;

    if (!(x > 0))
        return 0;
    while (m >= 2) {
        m /= 2;
        e++;
    }
    while (m < 1) {
        m *= 2;
        e--;
    }
    /* ln(m) = 2 atanh((m-1)/(m+1)), m in [1,2): the series converges fast. */
    t = (m - 1) / (m + 1);
    t2 = t * t;
    term = t;
    for (int k = 1; k < 40; k += 2) {
        sum += term / k;
        term *= t2;
    }
    return e + 2 * sum / 0.69314718055994530942;
}

/* A table cell: record text, escaped; a number, right-aligned. */
void html_td(struct hout *o, const char *text)
{
    ho_raw(o, "<td>");
    ho_text(o, text);
    ho_raw(o, "</td>");
}

void html_unkept(struct hout *o, const char *cls, unsigned dropped, const char *what, unsigned keeps)
{
    if (!dropped)
        return;
    ho_fmt(o, "<p class=\"%s\">%u more %s are in the .jsonl only", cls, dropped, what);
    if (keeps)
        ho_fmt(o, " (the page keeps %u)", keeps);
    ho_raw(o, ".</p>");
}

void html_td_num(struct hout *o, double v)
{
    ho_raw(o, "<td class=\"n\">");
    ho_num(o, v);
    ho_raw(o, "</td>");
}
