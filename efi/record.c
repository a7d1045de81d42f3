/* Record assembly and fan-out to the sinks. */
#include "record.h"
#include "platform.h"

#define MAX_SINKS 6

static struct sink *sinks[MAX_SINKS];
static unsigned nsinks;
static unsigned nerrors;
static unsigned current_pass;
static record_observer_fn observer;
static record_json_observer_fn json_observer;

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

int sinks_replace(struct sink *old, struct sink *s)
{
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i] == old) {
            sinks[i] = s;
            return BM_OK;
        }
    return BM_ENODEV;
}

void sinks_close(void)
{
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->close)
            sinks[i]->close(sinks[i]);
    nsinks = 0;
    observer = NULL;
    json_observer = NULL;
    plat_set_diag_sink(NULL);
}

void record_set_pass(unsigned pass)
{
    current_pass = pass;
}

void record_set_observer(record_observer_fn fn)
{
    observer = fn;
}

void record_set_json_observer(record_json_observer_fn fn)
{
    json_observer = fn;
}

void record_metric(struct record *r, const char *subject, const char *test, const char *unit, double value)
{
    r->metric.set = true;
    bm_strlcpy(r->metric.subject, subject, sizeof(r->metric.subject));
    bm_strlcpy(r->metric.test, test, sizeof(r->metric.test));
    bm_strlcpy(r->metric.unit, unit, sizeof(r->metric.unit));
    r->metric.value = value;
}

void record_metric_disk(struct record *r, double iops, double p99_us, const char *serial, const char *model)
{
    r->metric.iops = iops;
    r->metric.p99_us = p99_us;
    bm_strlcpy(r->metric.serial, serial ? serial : "", sizeof(r->metric.serial));
    bm_strlcpy(r->metric.model, model ? model : "", sizeof(r->metric.model));
}

void record_begin(struct record *r, const char *type)
{
    bm_strlcpy(r->type, type, sizeof(r->type));
    memset(&r->metric, 0, sizeof(r->metric));
    json_init(&r->j, r->buf, sizeof(r->buf));
    json_obj_begin(&r->j, NULL);
    json_str(&r->j, "type", type);
    if (current_pass)
        json_u64(&r->j, "pass", current_pass);
}

/* A record a sink emits while another is on its way to the sinks (a
 * platform's results file saying a write failed, from inside the file
 * sink) is held and sent on once that one has reached every sink: the
 * record buffers are static, so sending it at once would change the first
 * record under the sinks after it. Held records carry no metric. */
#define HELD_MAX 4
struct held_record {
    char type[24];
    char json[RECORD_MAX_BYTES];
    char human[1024];
    bool has_human;
};
static struct held_record held[HELD_MAX];
static unsigned held_n, held_dropped, emit_depth;

static void hold_record(struct record *r, const char *human)
{
    struct held_record *h;

    if (held_n >= HELD_MAX) {
        held_dropped++;
        return;
    }
    h = &held[held_n++];
    bm_strlcpy(h->type, r->type, sizeof(h->type));
    bm_strlcpy(h->json, json_text(&r->j), sizeof(h->json));
    h->has_human = human != NULL;
    bm_strlcpy(h->human, human ? human : "", sizeof(h->human));
}

static void emit_held(void)
{
    static struct held_record out;

    while (held_n) {
        out = held[0];
        memmove(&held[0], &held[1], (held_n - 1) * sizeof(held[0]));
        held_n--;
        for (unsigned i = 0; i < nsinks; i++)
            if (sinks[i]->record)
                sinks[i]->record(sinks[i], out.type, out.json, out.has_human ? out.human : NULL);
        if (json_observer)
            json_observer(out.type, out.json);
    }
    if (held_dropped) {
        plat_log("%u records emitted from inside a sink were dropped (more than %u at once)", held_dropped, HELD_MAX);
        held_dropped = 0;
    }
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
        r->metric.set = false;
        nerrors++;
    }
    if (emit_depth) {
        hold_record(r, human);
        return;
    }
    emit_depth++;
    for (unsigned i = 0; i < nsinks; i++)
        if (sinks[i]->record)
            sinks[i]->record(sinks[i], r->type, json_text(&r->j), human);
    if (observer && r->metric.set)
        observer(r->type, &r->metric);
    if (json_observer)
        json_observer(r->type, json_text(&r->j));
    emit_held();
    emit_depth--;
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

static void emit_error(const char *where, const char *fmt, va_list ap)
{
    nerrors++;
    emit_message("error", "ERROR", where, fmt, ap);
}

void record_error(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit_error(where, fmt, ap);
    va_end(ap);
}

/* For a fault handler that halts next: a fault can land while a record
 * is being emitted (a sink drawing the screen), and a record made then is
 * held until that emission ends, which it never will. This one goes out
 * at once, past the interrupted one (whose depth is put back, should it
 * ever resume). */
void record_error_halting(const char *where, const char *fmt, ...)
{
    unsigned depth = emit_depth;
    va_list ap;

    emit_depth = 0;
    va_start(ap, fmt);
    emit_error(where, fmt, ap);
    va_end(ap);
    emit_depth = depth;
}

void record_note(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit_message("note", "note", where, fmt, ap);
    va_end(ap);
}

void record_log(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit_message("log", "log", where, fmt, ap);
    va_end(ap);
}

void record_diag_sink(const char *where, const char *message)
{
    record_log(where, "%s", message);
}

unsigned record_error_count(void)
{
    return nerrors;
}

void ui_text(const char *fmt, ...)
{
    static char text[4096]; /* the help text is longer than a screen line */
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
