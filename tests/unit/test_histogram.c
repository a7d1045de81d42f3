/* The latency histogram against known distributions: every percentile
 * within half a bucket of the exact value, the mean exact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/disk/histogram.h"

static struct histogram h;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted samples. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double pct)
{
    double exact = pct / 100.0 * (double)n;
    uint64_t rank = (uint64_t)exact;
    if ((double)rank < exact)
        rank++;
    if (rank == 0)
        rank = 1;
    return sorted[rank - 1];
}

/* Fill the histogram with the samples and compare every percentile the
 * records report (and a few more) with the exact ones. */
static void check_against_exact(uint64_t *v, size_t n)
{
    static const double pcts[] = { 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99 };
    double sum = 0;

    hist_reset(&h);
    for (size_t i = 0; i < n; i++) {
        hist_add(&h, v[i]);
        sum += (double)v[i];
    }
    qsort(v, n, sizeof(*v), cmp_u64);
    assert_int_equal(h.count, n);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(h.max, v[n - 1]);
    assert_true(fabs(hist_mean(&h) - sum / (double)n) <= 1e-6 * sum / (double)n + 1e-9);
    for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
        uint64_t want = exact_percentile(v, n, pcts[i]);
        uint64_t got = hist_percentile(&h, pcts[i]);
        uint64_t width = hist_bucket_width(hist_bucket_index(want));
        uint64_t err = got > want ? got - want : want - got;
        if (err > width / 2) {
            print_error("p%g: got %llu want %llu (bucket width %llu)\n", pcts[i], (unsigned long long)got,
                        (unsigned long long)want, (unsigned long long)width);
            fail();
        }
        /* and relative to the value: never more than 1/128 off */
        assert_true((double)err <= (double)want / 128.0 + 1.0);
    }
}

static void test_bucket_geometry_covers_every_value(void **state)
{
    unsigned prev = 0;
    (void)state;

    /* Every value lies in its bucket, buckets never overlap, widths stay
     * within 1/64 of the values they hold. */
    for (uint64_t v = 0; v < (1ull << 40); v = v < 4096 ? v + 1 : v + v / 97 + 1) {
        unsigned i = hist_bucket_index(v);
        uint64_t lo = hist_bucket_low(i), w = hist_bucket_width(i);
        assert_true(i < HIST_BUCKETS);
        assert_true(lo <= v && v < lo + w);
        assert_true(i >= prev);
        if (v >= HIST_SUB)
            assert_true(w * HIST_SUB <= lo);
        prev = i;
    }
    for (unsigned i = 1; i < HIST_BUCKETS; i++)
        assert_int_equal(hist_bucket_low(i), hist_bucket_low(i - 1) + hist_bucket_width(i - 1));
}

static void test_values_beyond_range_go_to_top_bucket(void **state)
{
    (void)state;
    hist_reset(&h);
    hist_add(&h, 1ull << 50);
    hist_add(&h, 5);
    assert_int_equal(hist_bucket_index(1ull << 50), HIST_BUCKETS - 1);
    assert_int_equal(h.max, 1ull << 50);
    assert_int_equal(hist_percentile(&h, 100), 1ull << 50);
    assert_int_equal(hist_percentile(&h, 99), 1ull << 50);
    assert_int_equal(hist_percentile(&h, 50), 5);
}

static void test_empty_histogram_reports_zero(void **state)
{
    (void)state;
    hist_reset(&h);
    assert_int_equal(hist_percentile(&h, 50), 0);
    assert_true(hist_mean(&h) == 0.0);
}

static void test_constant_distribution_is_exact(void **state)
{
    (void)state;
    hist_reset(&h);
    for (int i = 0; i < 10000; i++)
        hist_add(&h, 123457);
    assert_int_equal(hist_percentile(&h, 50), 123457);
    assert_int_equal(hist_percentile(&h, 99.9), 123457);
    assert_true(hist_mean(&h) == 123457.0);
}

static void test_uniform_distribution_percentiles(void **state)
{
    size_t n = 200000;
    uint64_t *v = malloc(n * sizeof(*v));
    struct bm_rng r;
    (void)state;

    bm_rng_seed(&r, 42);
    for (size_t i = 0; i < n; i++)
        v[i] = 1000 + bm_rng_below(&r, 1000000);
    check_against_exact(v, n);
    /* The uniform's median is where it should be, within a bucket. */
    assert_true(llabs((long long)hist_percentile(&h, 50) - 501000) < 501000 / 64 + 2000);
    free(v);
}

static void test_exponential_distribution_percentiles(void **state)
{
    size_t n = 200000;
    uint64_t *v = malloc(n * sizeof(*v));
    struct bm_rng r;
    double mean = 100000.0; /* 100 us in ns */
    (void)state;

    bm_rng_seed(&r, 7);
    for (size_t i = 0; i < n; i++) {
        double u = ((double)(bm_rng_next(&r) >> 11) + 0.5) / 9007199254740992.0;
        v[i] = (uint64_t)(-log(u) * mean);
    }
    check_against_exact(v, n);
    /* Its p99 is mean * ln(100) = 460.5 us, to a few percent. */
    assert_true(fabs((double)hist_percentile(&h, 99) - mean * log(100.0)) < 0.05 * mean * log(100.0));
    free(v);
}

static void test_small_values_are_exact(void **state)
{
    uint64_t v[64];
    (void)state;
    for (int i = 0; i < 64; i++)
        v[i] = (uint64_t)(63 - i);
    check_against_exact(v, 64);
    assert_int_equal(hist_percentile(&h, 50), 31);
}

static void test_merge_equals_adding_everything(void **state)
{
    static struct histogram a, b, all;
    struct bm_rng r;
    (void)state;

    hist_reset(&a);
    hist_reset(&b);
    hist_reset(&all);
    bm_rng_seed(&r, 3);
    for (int i = 0; i < 5000; i++) {
        uint64_t x = bm_rng_below(&r, 1u << 24), y = 100 + bm_rng_below(&r, 1000);
        hist_add(&a, x);
        hist_add(&b, y);
        hist_add(&all, x);
        hist_add(&all, y);
    }
    hist_merge(&a, &b);
    assert_memory_equal(&a, &all, sizeof(all));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_geometry_covers_every_value),
        cmocka_unit_test(test_values_beyond_range_go_to_top_bucket),
        cmocka_unit_test(test_empty_histogram_reports_zero),
        cmocka_unit_test(test_constant_distribution_is_exact),
        cmocka_unit_test(test_uniform_distribution_percentiles),
        cmocka_unit_test(test_exponential_distribution_percentiles),
        cmocka_unit_test(test_small_values_are_exact),
        cmocka_unit_test(test_merge_equals_adding_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
