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
/* dst += src (for the aggregate of several disks). */
void hist_merge(struct histogram *dst, const struct histogram *src);
/* The value below which pct percent of the samples fall (pct in 0..100):
 * the middle of the bucket that holds that rank, clamped to [min, max].
 * 0 for an empty histogram. */
uint64_t hist_percentile(const struct histogram *h, double pct);
/* Exact mean, 0 for an empty histogram. */
double hist_mean(const struct histogram *h);

/* Bucket geometry (exposed for the unit tests). */
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_width(unsigned idx);

/* Bucket for a value. Below 2^HIST_SUB_BITS the value is its own index;
 * above, the top HIST_SUB_BITS+1 significant bits pick the bucket, so group
 * g >= 1 holds [2^(g+5), 2^(g+6)) in buckets 2^(g-1) wide. Inline, no
 * loop: it runs once per I/O. */
static inline unsigned hist_bucket_index(uint64_t v)
{
    unsigned msb, shift;

    if (v < HIST_SUB)
        return (unsigned)v;
    msb = 63u - (unsigned)__builtin_clzll(v);
    if (msb >= HIST_MAX_BITS)
        return HIST_BUCKETS - 1;
    shift = msb - HIST_SUB_BITS;
    return (shift + 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

/* Count one value (once per I/O: inline). */
static inline void hist_add(struct histogram *h, uint64_t v)
{
    h->buckets[hist_bucket_index(v)]++;
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

#endif
