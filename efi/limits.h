/* Pass/fail limits for disk results: from the options min_mbps=,
 * min_iops=, max_lat_us= and from \baremark\limits.cfg. */
#ifndef BAREMARK_LIMITS_H
#define BAREMARK_LIMITS_H

#include "lib/bmlib.h"

#define LIMITS_FILE_PATH "\\baremark\\limits.cfg"
#define LIMITS_MAX 64

/* One limit: which disks (id, serial or model; "*" any), which tests
 * (exact name, "PREFIX*", or "*"), and the bounds (0 = none). */
struct limit {
    char subject[48];
    char test[48];
    double min_mbps;
    double min_iops;
    double max_lat_us;     /* on the 99th percentile */
};

struct limit_set {
    unsigned count;
    struct limit items[LIMITS_MAX];
};

/* Parse "TEST:N[,TEST:N...]" or "N" (all tests) for one bound: key is
 * min_mbps, min_iops or max_lat_us. BM_EINVAL on a malformed value. */
int limits_parse_option(struct limit_set *ls, const char *key, const char *value);
/* Parse limits.cfg: lines "SUBJECT TEST key=N [key=N...]", '#' comments.
 * Errors name the line. */
int limits_parse_file(struct limit_set *ls, const char *text, char *err, size_t errlen);
/* The same for a file of another name (a per-machine file): errors name it.
 * A line for a DISK TEST pair already set changes only the bounds it names. */
int limits_parse_named(struct limit_set *ls, const char *name, const char *text, char *err, size_t errlen);
/* Does a pattern ("*", "PREFIX*", exact) match a name? */
bool limits_match(const char *pattern, const char *name);

#endif
