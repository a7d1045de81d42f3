/* Per-I/O latency histogram: log-linear buckets, bounded memory.
 *
 * Values (nanoseconds) below 2^HIST_SUB_BITS have a bucket each; above,
 * every power-of-two range is cut into 2^HIST_SUB_BITS equal buckets, so a
 * bucket is never wider than 1/64 of the values it holds (1.6 %). Values at
 * or above 2^HIST_MAX_BITS ns (about 18 minutes) share the top bucket; the
 * exact minimum, maximum, count and sum are kept beside the buckets.
 * Pure code: no platform calls, unit-tested on the host. */
#ifndef BAREMARK_HISTOGRAM_H
#define BAREMARK_HISTOGRAM_H

#include "../lib/bmlib.h"

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 40
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct histogram {
    uint64_t count;
    uint64_t sum;            /* of all values, ns */
    uint64_t min, max;       /* exact */
    uint64_t buckets[HIST_BUCKETS];
};

void hist_reset(struct histogram *h);
void hist_add(struct histogram *h, uint64_t v);
/* dst += src (for the aggregate of several disks). */
void hist_merge(struct histogram *dst, const struct histogram *src);
/* The value below which pct percent of the samples fall (pct in 0..100):
 * the middle of the bucket that holds that rank, clamped to [min, max].
 * 0 for an empty histogram. */
uint64_t hist_percentile(const struct histogram *h, double pct);
/* Exact mean, 0 for an empty histogram. */
double hist_mean(const struct histogram *h);

/* Bucket geometry (exposed for the unit tests). */
unsigned hist_bucket_index(uint64_t v);
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_width(unsigned idx);

#endif
