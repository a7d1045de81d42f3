/* Log-linear latency histogram (see histogram.h for the bucket layout). */
#include "histogram.h"

/* An empty histogram (min starts high so the first value sets it). */
void hist_reset(struct histogram *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

/* The smallest value a bucket holds. */
uint64_t hist_bucket_low(unsigned idx)
{
    unsigned group = idx / HIST_SUB;

    if (group == 0)
        return idx;
    return (uint64_t)(HIST_SUB + idx % HIST_SUB) << (group - 1);
}

/* How many values a bucket holds. */
uint64_t hist_bucket_width(unsigned idx)
{
    unsigned group = idx / HIST_SUB;

    return group == 0 ? 1 : 1ull << (group - 1);
}

/* Add another histogram's counts. */
void hist_merge(struct histogram *dst, const struct histogram *src)
{
    if (!src->count)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

/* Nearest-rank percentile, to the middle of its bucket. */
uint64_t hist_percentile(const struct histogram *h, double pct)
{
    uint64_t rank, seen = 0, v;
    double exact;

    if (!h->count)
        return 0;
    if (!(pct > 0)) /* NaN too: it would reach the cast below */
        return h->min;
    if (pct >= 100)
        return h->max;
    /* The nearest-rank definition: the smallest sample with at least pct
     * percent of the samples at or below it. */
    exact = pct / 100.0 * (double)h->count;
    rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    if (rank == 0)
        rank = 1;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen < rank)
            continue;
        if (i == HIST_BUCKETS - 1 && h->max >= hist_bucket_low(i))
            return h->max; /* the open-ended top bucket */
        v = hist_bucket_low(i) + (hist_bucket_width(i) - 1) / 2;
        if (v < h->min)
            v = h->min;
        if (v > h->max)
            v = h->max;
        return v;
    }
    return h->max;
}

/* Exact mean of the values added. */
double hist_mean(const struct histogram *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}
