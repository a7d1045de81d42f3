/* Records are the product: every result is one JSON object.
 *
 * A record builder (one function per record type, in the module that owns
 * the data) starts a record, adds fields through the json writer, and emits
 * it with an optional human-readable line for the screen. record_emit() hands
 * the finished object to every sink: the serial sink prints
 * "BAREMARK {json}", the file sink appends "{json}\n" and flushes, the
 * console sink prints the human text. Sinks never format numbers. */
#ifndef BAREMARK_RECORD_H
#define BAREMARK_RECORD_H

#include "json.h"

#define RECORD_PREFIX "BAREMARK "
#define RECORD_MAX_BYTES 32768
#define RECORD_SCHEMA 1

/* A figure a record carries, for consumers that compare runs (burn-in
 * statistics and limits): what was measured (subject: a disk id or "mem"),
 * which test, the headline value and its unit, and for disk tests the IOPS
 * and the 99th-percentile latency. */
struct record_metric {
    bool set;
    char subject[48];
    char test[48];
    char unit[8];          /* "MB/s", "GB/s", "ns" */
    double value;
    double iops;           /* 0 when not a disk test */
    double p99_us;         /* 0 when not a disk test */
    char serial[48];       /* disk tests: other names limits may use */
    char model[48];
};

struct record {
    char type[24];
    struct json j;
    struct record_metric metric;
    char buf[RECORD_MAX_BYTES];
};

/* A destination for records. */
struct sink {
    const char *name;
    /* A finished record: type, its JSON text, and the human text (may be NULL). */
    void (*record)(struct sink *s, const char *type, const char *json, const char *human);
    /* Free text for people only: tables, progress, notes. */
    void (*text)(struct sink *s, const char *human);
    /* Transient progress line (overwritten by the next); may be NULL. */
    void (*progress)(struct sink *s, const char *human);
    void (*close)(struct sink *s);
    void *ctx;
};

void sinks_reset(void);
int sinks_add(struct sink *s);
void sinks_close(void);
/* Put s where old was (the results screen taking the plain console's place). */
int sinks_replace(struct sink *old, struct sink *s);

/* Begin a record: {"type":"<type>" ... Further fields go through r->j. */
void record_begin(struct record *r, const char *type);
/* Finish and send to all sinks. human may be NULL (nothing on screen). */
void record_emit(struct record *r, const char *human);

/* The error record: where (component or device), message. Counted. */
void record_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* record_error for a fault handler that halts next: out at once even when
 * the fault interrupted another record's emission. */
void record_error_halting(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
unsigned record_error_count(void);
/* The note record: something a reader should know that is not a failure
 * (no writable boot volume, a skipped device). Not counted as an error. */
void record_note(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The log record: a driver's diagnostic (plat_diag), for readers of the
 * serial log and the results file. Not counted as an error. */
void record_log(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* plat_diag's sink: every driver diagnostic becomes a log record. */
void record_diag_sink(const char *where, const char *message);

/* Human-only output (tables, notes) and progress. */
void ui_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ui_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fields stamped on every following record (e.g. burn-in "pass"), 0 = none. */
void record_set_pass(unsigned pass);

/* Attach the headline figure to a record being built (see struct record_metric). */
void record_metric(struct record *r, const char *subject, const char *test, const char *unit, double value);
void record_metric_disk(struct record *r, double iops, double p99_us, const char *serial, const char *model);
/* One observer sees every emitted record's metric (after the sinks). */
typedef void (*record_observer_fn)(const char *type, const struct record_metric *m);
void record_set_observer(record_observer_fn fn);
/* One observer sees every emitted record's JSON text (after the sinks):
 * the findings collect their evidence through it (findings.h). */
typedef void (*record_json_observer_fn)(const char *type, const char *json);
void record_set_json_observer(record_json_observer_fn fn);

#endif
