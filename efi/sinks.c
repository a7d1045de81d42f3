/* Sinks print what records give them and never format numbers. */
#include "sinks.h"
#include "platform.h"

/* ---- Screen ------------------------------------------------------------------ */

static bool progress_shown;

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
    plat_console_write(human);
    plat_console_write("\n");
}

static void console_text(struct sink *s, const char *human)
{
    (void)s;
    console_end_progress();
    plat_console_write(human);
    plat_console_write("\n");
}

static void console_progress(struct sink *s, const char *human)
{
    char line[96];

    (void)s;
    /* Pad to a fixed width so a shorter line hides the previous one. */
    snprintf(line, sizeof(line), "\r%-78.78s", human);
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
