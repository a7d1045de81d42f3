/* Record assembly and fan-out to the sinks. */
#include "record.h"
#include "platform.h"

#define MAX_SINKS 6

static struct sink *sinks[MAX_SINKS];
static unsigned nsinks;
static unsigned nerrors;
static unsigned current_pass;

void sinks_reset(void)
{
    nsinks = 0;
    nerrors = 0;
    current_pass = 0;
}

int sinks_add(struct sink *s)
{
    if (nsinks >= MAX_SINKS)
        return BM_ENOSPC;
    sinks[nsinks++] = s;
    return BM_OK;
}

void sinks_close(void)
{
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->close)
            sinks[i]->close(sinks[i]);
    nsinks = 0;
}

void record_set_pass(unsigned pass)
{
    current_pass = pass;
}

void record_begin(struct record *r, const char *type)
{
    bm_strlcpy(r->type, type, sizeof(r->type));
    json_init(&r->j, r->buf, sizeof(r->buf));
    json_obj_begin(&r->j, NULL);
    json_str(&r->j, "type", type);
    if (current_pass)
        json_u64(&r->j, "pass", current_pass);
}

void record_emit(struct record *r, const char *human)
{
    while (r->j.depth > 0)
        json_obj_end(&r->j);
    if (r->j.overflow) {
        /* Never emit a cut object: scripts would choke on it. */
        json_init(&r->j, r->buf, sizeof(r->buf));
        json_obj_begin(&r->j, NULL);
        json_str(&r->j, "type", "error");
        json_str(&r->j, "where", r->type);
        json_str(&r->j, "message", "record too large, dropped");
        json_obj_end(&r->j);
        nerrors++;
    }
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->record)
            sinks[i]->record(sinks[i], r->type, json_text(&r->j), human);
}

static void emit_message(const char *type, const char *label, const char *where, const char *fmt, va_list ap)
{
    static struct record r; /* records are large; keep them off the stack */
    char msg[512], human[640];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    record_begin(&r, type);
    json_str(&r.j, "where", where);
    json_str(&r.j, "message", msg);
    snprintf(human, sizeof(human), "%s %s: %s", label, where, msg);
    record_emit(&r, human);
}

void record_error(const char *where, const char *fmt, ...)
{
    va_list ap;

    nerrors++;
    va_start(ap, fmt);
    emit_message("error", "ERROR", where, fmt, ap);
    va_end(ap);
}

void record_note(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit_message("note", "note", where, fmt, ap);
    va_end(ap);
}

unsigned record_error_count(void)
{
    return nerrors;
}

void ui_text(const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->text)
            sinks[i]->text(sinks[i], text);
}

void ui_progress(const char *fmt, ...)
{
    char text[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->progress)
            sinks[i]->progress(sinks[i], text);
}
