/* Burn-in: per-test statistics across passes, and limits that turn disk
 * results into pass/fail. Fed by the records' metrics through the record
 * observer, so the engines know nothing of it. */
#ifndef BAREMARK_BURNIN_H
#define BAREMARK_BURNIN_H

#include "json.h"
#include "limits.h"
#include "record.h"

/* Values kept per test for the median; passes beyond it still count in
 * min, max, mean and CV. */
#define BURNIN_MAX_VALUES 4096
#define BURNIN_MAX_TESTS 512

/* Start collecting (clears all statistics) with these limits. */
void burnin_start(const struct limit_set *ls);
/* The observer to pass to record_set_observer(). */
void burnin_observe(const char *type, const struct record_metric *m);
/* Emit one `verdict` record per disk and test that has a limit; returns
 * how many failed. */
unsigned burnin_emit_verdicts(void);
/* Add the per-test statistics across passes to a record being built:
 * "tests": [{subject, test, unit, n, min, median, max, cv}]. */
void burnin_add_summary(struct json *j);

/* Statistics of one series, for tests: */
struct burnin_stats {
    unsigned n;
    double min, median, max, mean, cv;
};
void burnin_series_stats(const double *values, unsigned n, struct burnin_stats *out);

#endif
