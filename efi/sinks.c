/* Sinks print what records give them and never format numbers. */
#include "sinks.h"
#include "platform.h"

/* ---- Screen ------------------------------------------------------------------ */

static bool progress_shown;

size_t sink_screen_text(char *dst, size_t cap, const char *src)
{
    size_t len = 0;

    if (!cap)
        return 0;
    while (src && *src) {
        uint32_t cp;
        size_t n = bm_utf8_next(src, &cp);
        bool bad = cp == BM_UTF8_INVALID || (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f);
        size_t out = bad ? 1 : n;

        if (len + out + 1 > cap)
            break;
        if (bad)
            dst[len] = '?';
        else
            memcpy(dst + len, src, n);
        len += out;
        src += n;
    }
    dst[len] = '\0';
    return len;
}

/* Device strings (models, serials, SMBIOS text) reach the screen inside
 * human lines: they go out through sink_screen_text, a piece at a time. */
static void console_write_safe(const char *s)
{
    char piece[256];

    while (s && *s) {
        size_t used = 0;
        /* Feed at most what fits, whole sequences only. */
        while (s[used] && used < sizeof(piece) - 8) {
            uint32_t cp;
            used += bm_utf8_next(s + used, &cp);
        }
        {
            char in[256];
            memcpy(in, s, used);
            in[used] = '\0';
            sink_screen_text(piece, sizeof(piece), in);
        }
        plat_console_write(piece);
        s += used;
    }
}

static void console_end_progress(void)
{
    if (progress_shown) {
        plat_console_write("\n");
        progress_shown = false;
    }
}

static void console_record(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)type;
    (void)json;
    if (!human)
        return;
    console_end_progress();
    console_write_safe(human);
    plat_console_write("\n");
}

static void console_text(struct sink *s, const char *human)
{
    (void)s;
    console_end_progress();
    console_write_safe(human);
    plat_console_write("\n");
}

static void console_progress(struct sink *s, const char *human)
{
    char safe[80], line[96];
    size_t n;

    (void)s;
    /* Pad to a fixed width so a shorter line hides the previous one. */
    n = sink_screen_text(safe, 79, human);
    snprintf(line, sizeof(line), "\r%s%*s", safe, n < 78 ? (int)(78 - n) : 0, "");
    plat_console_write(line);
    progress_shown = true;
}

static void console_close(struct sink *s)
{
    (void)s;
    console_end_progress();
}

struct sink *sink_console(void)
{
    static struct sink s = { "console", console_record, console_text, console_progress, console_close, NULL };
    progress_shown = false;
    return &s;
}

/* ---- Serial -------------------------------------------------------------------- */

static void serial_record(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)type;
    (void)human;
    /* Start on a fresh line: the firmware's own console output (mirrored
     * to the same port) may have left the cursor mid-line. */
    plat_serial_write("\r\n" RECORD_PREFIX, 2 + sizeof(RECORD_PREFIX) - 1);
    plat_serial_write(json, strlen(json));
    plat_serial_write("\r\n", 2);
}

struct sink *sink_serial(void)
{
    static struct sink s = { "serial", serial_record, NULL, NULL, NULL, NULL };
    return &s;
}

/* ---- Results file ---------------------------------------------------------------- */

static void file_record(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)type;
    (void)human;
    if (!s->ctx)
        return;
    /* Flush per record: a hang or power cut keeps everything before it. */
    if (plat_file_write(s->ctx, json, strlen(json)) != BM_OK || plat_file_write(s->ctx, "\n", 1) != BM_OK ||
        plat_file_flush(s->ctx) != BM_OK) {
        plat_file_close(s->ctx);
        s->ctx = NULL;
        plat_log("results file: write failed, file output stopped");
    }
}

static void file_close(struct sink *s)
{
    if (s->ctx) {
        plat_file_close(s->ctx);
        s->ctx = NULL;
    }
}

struct sink *sink_file(const char *path, char *why, size_t whylen)
{
    static struct sink s = { "file", file_record, NULL, NULL, file_close, NULL };
    void *f;

    f = plat_file_create(path);
    if (!f) {
        if (strchr(path, ':'))
            snprintf(why, whylen, "cannot create %s: no writable FAT volume with that label", path);
        else if (!plat_boot_volume_writable())
            snprintf(why, whylen,
                     "no writable boot volume (booted from %s); results go to screen and serial only "
                     "(out=LABEL:\\folder or out=*:\\folder writes to another FAT volume)",
                     plat_boot_source());
        else
            snprintf(why, whylen, "cannot create %s on the boot volume", path);
        return NULL;
    }
    s.ctx = f;
    return &s;
}
