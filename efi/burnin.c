/* Burn-in statistics and verdicts. */
#include "burnin.h"
#include "platform.h"

struct series {
    struct record_metric id;   /* subject, test, unit, serial, model */
    unsigned n, kept;
    double min, max, sum, sumsq;
    float *values;             /* first BURNIN_MAX_VALUES values */
    /* limits: the worst figure against each bound and how often it failed */
    const struct limit *limit;
    unsigned failures;
    double worst_mbps, worst_iops, worst_lat_us;
};

static struct series *series;
static unsigned nseries;
static struct limit_set limits;

void burnin_start(const struct limit_set *ls)
{
    for (unsigned i = 0; i < nseries; i++)
        plat_free(series[i].values);
    if (!series)
        series = plat_alloc(sizeof(*series) * BURNIN_MAX_TESTS);
    else
        memset(series, 0, sizeof(*series) * BURNIN_MAX_TESTS);
    nseries = 0;
    if (ls)
        limits = *ls;
    else
        memset(&limits, 0, sizeof(limits));
}

/* The most specific limit for this disk and test: a named disk beats "*",
 * an exact test beats a pattern. */
static const struct limit *find_limit(const struct record_metric *m)
{
    const struct limit *best = NULL;
    int best_score = -1;

    for (unsigned i = 0; i < limits.count; i++) {
        const struct limit *l = &limits.items[i];
        int score = 0;
        if (!(limits_match(l->subject, m->subject) || limits_match(l->subject, m->serial) ||
              limits_match(l->subject, m->model)))
            continue;
        if (!limits_match(l->test, m->test))
            continue;
        score += strcmp(l->subject, "*") ? 2 : 0;
        score += strchr(l->test, '*') ? 0 : 1;
        if (score > best_score) {
            best = l;
            best_score = score;
        }
    }
    return best;
}

static struct series *find_series(const struct record_metric *m)
{
    for (unsigned i = 0; i < nseries; i++)
        if (!strcmp(series[i].id.subject, m->subject) && !strcmp(series[i].id.test, m->test))
            return &series[i];
    if (!series || nseries >= BURNIN_MAX_TESTS)
        return NULL;
    struct series *s = &series[nseries++];
    memset(s, 0, sizeof(*s));
    s->id = *m;
    s->values = plat_alloc(sizeof(float) * BURNIN_MAX_VALUES);
    s->limit = find_limit(m);
    return s;
}

void burnin_observe(const char *type, const struct record_metric *m)
{
    struct series *s = find_series(m);
    bool failed = false;

    (void)type;
    if (!s)
        return;
    if (s->n == 0 || m->value < s->min)
        s->min = m->value;
    if (s->n == 0 || m->value > s->max)
        s->max = m->value;
    s->sum += m->value;
    s->sumsq += m->value * m->value;
    if (s->values && s->kept < BURNIN_MAX_VALUES)
        s->values[s->kept++] = (float)m->value;
    if (s->limit) {
        const struct limit *l = s->limit;
        if (s->n == 0) {
            s->worst_mbps = m->value;
            s->worst_iops = m->iops;
            s->worst_lat_us = m->p99_us;
        }
        s->worst_mbps = MIN(s->worst_mbps, m->value);
        s->worst_iops = MIN(s->worst_iops, m->iops);
        s->worst_lat_us = MAX(s->worst_lat_us, m->p99_us);
        failed = (l->min_mbps > 0 && m->value < l->min_mbps) || (l->min_iops > 0 && m->iops < l->min_iops) ||
                 (l->max_lat_us > 0 && m->p99_us > l->max_lat_us);
        s->failures += failed;
    }
    s->n++;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sqrt_newton(double x)
{
    double r = x > 1 ? x : 1;
    if (x <= 0)
        return 0;
    for (int i = 0; i < 60; i++)
        r = 0.5 * (r + x / r);
    return r;
}

void burnin_series_stats(const double *values, unsigned n, struct burnin_stats *out)
{
    static double sorted[BURNIN_MAX_VALUES];
    double sum = 0, sumsq = 0, var;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return;
    if (n > BURNIN_MAX_VALUES)
        n = BURNIN_MAX_VALUES;
    memcpy(sorted, values, n * sizeof(double));
    qsort(sorted, n, sizeof(double), cmp_double);
    for (unsigned i = 0; i < n; i++) {
        sum += sorted[i];
        sumsq += sorted[i] * sorted[i];
    }
    out->n = n;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->median = bm_median_sorted(sorted, n);
    out->mean = sum / n;
    /* Sample standard deviation over the mean: the coefficient of variation. */
    var = n > 1 ? (sumsq - sum * sum / n) / (n - 1) : 0;
    out->cv = out->mean != 0 && var > 0 ? sqrt_newton(var) / out->mean : 0;
}

/* The statistics of one series: median over the kept values, the rest
 * over every value. */
static void series_stats(const struct series *s, struct burnin_stats *st)
{
    static double vals[BURNIN_MAX_VALUES];
    double var;

    for (unsigned i = 0; i < s->kept; i++)
        vals[i] = s->values[i];
    burnin_series_stats(vals, s->kept, st);
    st->n = s->n;
    st->min = s->min;
    st->max = s->max;
    st->mean = s->n ? s->sum / s->n : 0;
    var = s->n > 1 ? (s->sumsq - s->sum * s->sum / s->n) / (s->n - 1) : 0;
    st->cv = st->mean != 0 && var > 0 ? sqrt_newton(var) / st->mean : 0;
}

unsigned burnin_emit_verdicts(void)
{
    static struct record r;
    unsigned failed = 0;

    for (unsigned i = 0; i < nseries; i++) {
        const struct series *s = &series[i];
        const struct limit *l = s->limit;
        char human[256];
        if (!l)
            continue;
        failed += s->failures > 0;
        record_begin(&r, "verdict");
        json_str(&r.j, "disk", s->id.subject);
        json_str(&r.j, "test", s->id.test);
        json_str(&r.j, "result", s->failures ? "fail" : "pass");
        json_u64(&r.j, "passes", s->n);
        json_u64(&r.j, "failures", s->failures);
        json_obj_begin(&r.j, "limit");
        if (l->min_mbps > 0)
            json_num(&r.j, "min_mbps", l->min_mbps, 3);
        if (l->min_iops > 0)
            json_num(&r.j, "min_iops", l->min_iops, 3);
        if (l->max_lat_us > 0)
            json_num(&r.j, "max_lat_us", l->max_lat_us, 3);
        json_obj_end(&r.j);
        json_obj_begin(&r.j, "worst");
        json_num(&r.j, "mbps", s->worst_mbps, 2);
        json_num(&r.j, "iops", s->worst_iops, 1);
        json_num(&r.j, "p99_us", s->worst_lat_us, 2);
        json_obj_end(&r.j);
        snprintf(human, sizeof(human), "%s %-14s %-4s worst %.1f MB/s %.0f IOPS p99 %.1f us (%u of %u passes failed)",
                 s->id.subject, s->id.test, s->failures ? "FAIL" : "pass", s->worst_mbps, s->worst_iops,
                 s->worst_lat_us, s->failures, s->n);
        record_emit(&r, human);
    }
    return failed;
}

void burnin_add_summary(struct json *j)
{
    json_arr_begin(j, "tests");
    for (unsigned i = 0; i < nseries; i++) {
        const struct series *s = &series[i];
        struct burnin_stats st;
        /* Leave room to close the record: a summary cut short says so. */
        if (j->len + 512 > j->cap) {
            json_arr_end(j);
            json_bool(j, "tests_truncated", true);
            return;
        }
        series_stats(s, &st);
        json_obj_begin(j, NULL);
        json_str(j, "subject", s->id.subject);
        json_str(j, "test", s->id.test);
        json_str(j, "unit", s->id.unit);
        json_u64(j, "n", st.n);
        json_num(j, "min", st.min, 3);
        json_num(j, "median", st.median, 3);
        json_num(j, "max", st.max, 3);
        json_num(j, "cv", st.cv, 4);
        json_obj_end(j);
    }
    json_arr_end(j);
}
