/* The report's output stream: a small buffer flushed through a write
 * function in chunks (the page is never held whole), HTML escaping for
 * every string that came from a record, and number formatting. */
#ifndef BAREMARK_HTML_OUT_H
#define BAREMARK_HTML_OUT_H

#include "lib/bmlib.h"

typedef int (*html_write_fn)(void *ctx, const void *data, size_t len);

#define HOUT_CHUNK 4096

struct hout {
    html_write_fn write;
    void *ctx;
    bool failed;             /* a write failed: the rest is dropped */
    uint64_t bytes;          /* bytes handed to write */
    size_t len;
    char buf[HOUT_CHUNK];
};

void ho_init(struct hout *o, html_write_fn write, void *ctx);
/* Markup the renderer wrote itself (never record text). */
void ho_raw(struct hout *o, const char *s);
void ho_fmt(struct hout *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text from a record: & < > " ' become entities, invalid UTF-8 and control
 * characters become U+FFFD, so no record can open a tag or an attribute. */
void ho_text(struct hout *o, const char *s);
/* Hand what is buffered to write; BM_OK or BM_EIO. */
int ho_flush(struct hout *o);

/* A table cell: record text (escaped); a number (class "n"). */
void html_td(struct hout *o, const char *text);
void html_td_num(struct hout *o, double v);
/* The note under a capped table, when dropped > 0: "<p class=cls>N more
 * what are in the .jsonl only (the page keeps K).</p>", without the
 * bracket when keeps is 0. */
void html_unkept(struct hout *o, const char *cls, unsigned dropped, const char *what, unsigned keeps);
/* A number with as many decimals as its size needs ("1234", "56.7", "0.89"). */
void ho_num(struct hout *o, double v);
/* A byte count as people write it: 4K, 1.5M, 2G (binary multiples). */
void fmt_bytes(char *dst, size_t cap, double bytes);
void fmt_num(char *dst, size_t cap, double v);
/* log2 without libm (the UEFI build has none). */
double hl_log2(double x);

#endif
