/* Results upload over HTTP PUT (upload.h). */
#include "upload.h"
#include "http.h"
#include "platform.h"

#define UPLOAD_MAX_BYTES (64u << 20)    /* a results file larger than this is not uploaded */
#define UPLOAD_HTML_MAX (16u << 20)
#define UPLOAD_ATTEMPTS_MAX 8

static struct {
    bool on;
    struct http_url url;
    const char *url_text;
    const char *token;                  /* upload_token=, "" when none */
    uint32_t timeout_s;
    char base[RUN_UPLOAD_NAME_MAX];     /* run_ident_upload_base() */
    char run_id[RUN_ID_HEX + 1];
    char html_path[256];                /* on the results volume; "" when there is no folder */
    char *buf;
    size_t len, cap;
    bool overflow;
} up;

/* Overwrite a buffer that held the token; volatile so the compiler keeps
 * the stores although the buffer is not read again. */
static void wipe(void *p, size_t n)
{
    volatile uint8_t *b = p;

    while (n--)
        *b++ = 0;
}

/* The copy of the results file: each record's JSON and a line end, as the
 * file sink writes them (sinks.c file_record). */
static void copy_append(const char *data, size_t n)
{
    if (up.overflow || !n)
        return;
    if (up.len + n > up.cap) {
        size_t cap = up.cap ? up.cap : 256 * 1024;
        char *nb;
        while (cap < up.len + n)
            cap *= 2;
        if (cap > UPLOAD_MAX_BYTES || !(nb = plat_alloc(cap))) {
            up.overflow = true;
            return;
        }
        if (up.len)
            memcpy(nb, up.buf, up.len);
        plat_free(up.buf);
        up.buf = nb;
        up.cap = cap;
    }
    memcpy(up.buf + up.len, data, n);
    up.len += n;
}

static void copy_record(struct sink *s, const char *type, const char *json, const char *human)
{
    copy_append(json, strlen(json));
    copy_append("\n", 1);
}

struct sink *upload_begin(const struct config *c, const char *folder, const char *local_name,
                          const struct run_ident *id, const char *compact_time)
{
    static struct sink s = { "upload", copy_record, NULL, NULL, NULL, NULL };
    const char *dot = strrchr(local_name, '.');

    plat_free(up.buf);
    memset(&up, 0, sizeof(up));
    if (!c->upload[0] || http_url_parse(c->upload, &up.url) != BM_OK ||
        !run_ident_upload_base(up.base, sizeof(up.base), id, compact_time))
        return NULL;
    up.on = true;
    up.url_text = c->upload;
    up.token = c->upload_token;
    up.timeout_s = c->upload_timeout_s ? c->upload_timeout_s : 30;
    bm_strlcpy(up.run_id, id->run_id, sizeof(up.run_id));
    if (folder)
        snprintf(up.html_path, sizeof(up.html_path), "%s\\%.*s.html", folder,
                 (int)(dot ? dot - local_name : (long)strlen(local_name)), local_name);
    return &s;
}

/* "started", "pass3", "final". */
static void stage_text(char *dst, size_t cap, enum upload_stage stage, unsigned pass)
{
    if (stage == UPLOAD_STARTED)
        bm_strlcpy(dst, "started", cap);
    else if (stage == UPLOAD_PASS)
        snprintf(dst, cap, "pass%u", pass);
    else
        bm_strlcpy(dst, "final", cap);
}

size_t upload_name(char *dst, size_t cap, const char *base, enum upload_stage stage, unsigned pass, const char *ext)
{
    char st[24];
    int n;

    stage_text(st, sizeof(st), stage, pass);
    n = snprintf(dst, cap, "%s.%s.%s", base, st, ext);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            dst[0] = '\0';
        return 0;
    }
    return (size_t)n;
}

uint32_t upload_backoff_ms(unsigned attempt)
{
    uint32_t ms = 500;

    for (unsigned i = 1; i < attempt && ms < 8000; i++)
        ms *= 2;
    return ms;
}

struct put_result {
    int status;                         /* HTTP status, 0 when none came */
    unsigned attempts;
    double seconds;
    char why[160];
};

/* One file, retried with back-off until it is taken, refused for good
 * (4xx) or upload_timeout= is over. The head carries the token: it lives
 * only in this frame's buffers and is wiped before returning. */
static bool put_file(const char *name, const char *stage, const char *body, size_t len, struct put_result *res)
{
    char head[1024], resp[1024], extra[320];
    uint64_t t0 = plat_now_ns(), deadline = t0 + (uint64_t)up.timeout_s * 1000000000ull;
    size_t head_len;
    bool ok = false;

    /* The contract with the collector: docs/netboot.md, the upload contract. */
    snprintf(extra, sizeof(extra), "%s%s%sX-Baremark-Run-Id: %s\r\nX-Baremark-Stage: %s\r\n",
             up.token[0] ? "Authorization: Bearer " : "", up.token, up.token[0] ? "\r\n" : "", up.run_id, stage);
    head_len = http_put_head(head, sizeof(head), &up.url, name, len, extra);
    wipe(extra, sizeof(extra));
    memset(res, 0, sizeof(*res));
    if (!head_len) {
        bm_strlcpy(res->why, "request too long", sizeof(res->why));
        return false;
    }
    while (!ok && res->attempts < UPLOAD_ATTEMPTS_MAX) {
        long n;
        uint64_t wait_ns;

        res->attempts++;
        res->why[0] = '\0';
        n = plat_tcp_exchange(up.url.ip, up.url.port, head, head_len, body, len, resp, sizeof(resp) - 1, deadline,
                              res->why, sizeof(res->why));
        if (n >= 0) {
            int st = http_response_status(resp, (size_t)n);
            res->status = st > 0 ? st : 0;
            ok = st >= 200 && st < 300;
            if (st < 0)
                snprintf(res->why, sizeof(res->why), "no HTTP status line in the %ld bytes the server sent", n);
            else if (!ok)
                snprintf(res->why, sizeof(res->why), "the server answered HTTP %d", st);
            if (st >= 400 && st < 500)
                break;               /* refused: asking again changes nothing */
        } else if (!res->why[0]) {
            bm_strlcpy(res->why, bm_strerror((int)n), sizeof(res->why));
        }
        wait_ns = (uint64_t)upload_backoff_ms(res->attempts) * 1000000ull;
        if (ok || plat_now_ns() + wait_ns >= deadline)
            break;
        plat_delay_ns(wait_ns);
    }
    res->seconds = (double)(plat_now_ns() - t0) / 1e9;
    wipe(head, sizeof(head));
    return ok;
}

/* The upload record (and an error record when it failed). */
static void emit_upload(const char *name, const char *stage, size_t bytes, bool ok, const struct put_result *res)
{
    static struct record r;
    char url[HTTP_URL_MAX + 100], human[640];

    snprintf(url, sizeof(url), "%s%s%s", up.url_text, up.url_text[strlen(up.url_text) - 1] == '/' ? "" : "/", name);
    record_begin(&r, "upload");
    json_str(&r.j, "url", url);
    json_str(&r.j, "file", name);
    json_str(&r.j, "stage", stage);
    json_u64(&r.j, "bytes", bytes);
    json_bool(&r.j, "ok", ok);
    if (res->status)
        json_u64(&r.j, "status", (uint64_t)res->status);
    if (!ok)
        json_str(&r.j, "error", res->why);
    json_u64(&r.j, "attempts", res->attempts);
    json_num(&r.j, "seconds", res->seconds, 3);
    if (ok)
        snprintf(human, sizeof(human), "upload: PUT %s: done, HTTP %d (%lu bytes, %.1f s)", url, res->status,
                 (unsigned long)bytes, res->seconds);
    else
        snprintf(human, sizeof(human), "upload: PUT %s FAILED: %s (%u attempt%s, %.1f s)", url, res->why,
                 res->attempts, res->attempts == 1 ? "" : "s", res->seconds);
    record_emit(&r, human);
    if (!ok)
        record_error("upload", "PUT %s failed after %u attempt%s: %s; the local copies are kept", url, res->attempts,
                     res->attempts == 1 ? "" : "s", res->why);
}

int upload_now(enum upload_stage stage, unsigned pass)
{
    struct put_result res;
    char name[RUN_UPLOAD_NAME_MAX + 24], html_name[RUN_UPLOAD_NAME_MAX + 24], st[24];
    bool ok;
    long n;
    char *html;

    if (!up.on)
        return BM_OK;
    stage_text(st, sizeof(st), stage, pass);
    upload_name(name, sizeof(name), up.base, stage, pass, "jsonl");
    if (up.overflow) {
        memset(&res, 0, sizeof(res));
        snprintf(res.why, sizeof(res.why), "the results are larger than %u MiB", UPLOAD_MAX_BYTES >> 20);
        emit_upload(name, st, up.len, false, &res);
        return BM_ENOSPC;
    }
    ok = put_file(name, st, up.buf ? up.buf : "", up.len, &res);
    emit_upload(name, st, up.len, ok, &res);
    /* The HTML report is whole only at the end (the sinks wrote it on close). */
    if (!ok || stage != UPLOAD_FINAL || !up.html_path[0] || !(html = plat_alloc(UPLOAD_HTML_MAX)))
        return ok ? BM_OK : BM_EIO;
    n = plat_results_file_read(up.html_path, html, UPLOAD_HTML_MAX);
    if (n >= 0) {
        bool hok;
        upload_name(html_name, sizeof(html_name), up.base, stage, pass, "html");
        hok = put_file(html_name, st, html, (size_t)n, &res);
        emit_upload(html_name, st, (size_t)n, hok, &res);
        ok = ok && hok;
    }
    plat_free(html);
    return ok ? BM_OK : BM_EIO;
}
