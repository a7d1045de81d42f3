/* upload=: the results PUT to an HTTP server when the run starts (the
 * inventory and options), after every burn-in pass and at the end (also
 * when bad options stopped the run), each time whole so far, as
 * <URL>/<base>.<stage>.jsonl, where base is run_ident_upload_base() and
 * stage "started", "pass<N>" or "final" (and the HTML report, as
 * <base>.final.html, at the end when one was written). A later stage
 * holds everything an earlier one did: a collector keeps the latest per
 * run id (docs/netboot.md, the upload contract). Every request carries
 * "Authorization: Bearer <upload_token>" when a token is set,
 * "X-Baremark-Run-Id" and "X-Baremark-Stage". The bytes sent are exactly
 * those of the results file: a sink keeps a copy of every line the file
 * gets, so a machine without a writable volume uploads them too. */
#ifndef BAREMARK_UPLOAD_H
#define BAREMARK_UPLOAD_H

#include "config.h"
#include "record.h"
#include "run_ident.h"

enum upload_stage { UPLOAD_STARTED, UPLOAD_PASS, UPLOAD_FINAL };

/* Start collecting: local_name is the results file's name ("20261201-
 * 120000-SERIAL.jsonl", for its HTML report's name), folder the results
 * folder (may be NULL), id and compact_time name the uploads. Returns the
 * sink to add next to the file sink, NULL when upload= is off. */
struct sink *upload_begin(const struct config *c, const char *folder, const char *local_name,
                          const struct run_ident *id, const char *compact_time);

/* "<base>.<stage>.<ext>" (stage: started, pass<N>, final). Returns its
 * length, 0 when it does not fit. */
size_t upload_name(char *dst, size_t cap, const char *base, enum upload_stage stage, unsigned pass, const char *ext);

/* PUT what was collected so far as that stage; emits an `upload` record
 * (and an error record when it failed) on the sinks installed now. Bounded
 * by upload_timeout=, retried with back-off. BM_OK or the last error. */
int upload_now(enum upload_stage stage, unsigned pass);

/* Retry delays in milliseconds, doubling from 500 ms, for attempt 1.. */
uint32_t upload_backoff_ms(unsigned attempt);

#endif
