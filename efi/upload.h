/* upload=: the results file PUT to an HTTP server at the end of the run and
 * after every burn-in pass, as <URL>/<results file name> (and the HTML
 * report, <name>.html, when one was written next to it). The bytes sent
 * are exactly those of the results file: a sink keeps a copy of every line
 * the file gets, so a machine without a writable volume uploads them too. */
#ifndef BAREMARK_UPLOAD_H
#define BAREMARK_UPLOAD_H

#include "config.h"
#include "record.h"

/* Start collecting: name is the results file's name ("20261201-120000-
 * SERIAL.jsonl"), folder the results folder (for the HTML report; may be
 * NULL). Returns the sink to add next to the file sink. */
struct sink *upload_begin(const struct config *c, const char *folder, const char *name);

/* PUT what was collected so far; emits an `upload` record (and an error
 * record when it failed) on the sinks installed now. Bounded by
 * upload_timeout=, retried with back-off. BM_OK or the last error. */
int upload_now(void);

/* Retry delays in milliseconds, doubling from 500 ms, for attempt 1.. */
uint32_t upload_backoff_ms(unsigned attempt);

#endif
