/* The test plan (see plan.h). */
#include "plan.h"
#include "../time_units.h"

/* Commands in flight and no completion for this long: the disk is dead.
 * At least twice io_timeout=, so a driver's timed-out command is reported
 * and its recovery (an NVMe Abort's 10 s and the reset, an AHCI COMRESET,
 * an HBA's task management ladder) has run before the disk is given up:
 * with the default 30 s that is 60 s, 30 s for the recovery. */
#define DISK_STALL_NS (60ull * NS_PER_S)

/* time= measured (seconds, or milliseconds with time=Nms), after a warm-up
 * of warmup= or, by default, a fifth of time= (0.25 to 2 s): enough for
 * caches and queues to fill, short enough not to double the run. */
void disk_timing_for(const struct config *c, struct engine_timing *t)
{
    t->measure_ns = (uint64_t)c->time_ms * NS_PER_MS;
    if (c->warmup_given) {
        t->warmup_ns = (uint64_t)c->warmup_ms * NS_PER_MS;
    } else {
        t->warmup_ns = t->measure_ns / 5;
        t->warmup_ns = MAX(t->warmup_ns, 250 * NS_PER_MS);
        t->warmup_ns = MIN(t->warmup_ns, 2 * NS_PER_S);
    }
    t->stall_ns = disk_stall_ns(c);
}

uint64_t disk_stall_ns(const struct config *c)
{
    return MAX(DISK_STALL_NS, 2ull * c->io_timeout_s * NS_PER_S);
}

/* "512", "4K", "1M", "8M" */
static void size_label(char *buf, size_t len, uint32_t bytes)
{
    if (bytes >= (1u << 20) && !(bytes % (1u << 20)))
        snprintf(buf, len, "%uM", bytes >> 20);
    else if (bytes >= 1024 && !(bytes % 1024))
        snprintf(buf, len, "%uK", bytes >> 10);
    else
        snprintf(buf, len, "%u", bytes);
}

/* Append a read test of this shape, named like CrystalDiskMark ("SEQ1M-Q8T1") or ATTO ("BS64K-Q4"). */
static void add_test(struct disk_test *out, unsigned *n, bool random, uint32_t bs, uint32_t qd, uint32_t threads,
                     const char *prefix)
{
    struct disk_test *t;
    char sz[12];

    if (*n >= DISK_MAX_TESTS)
        return;
    t = &out[(*n)++];
    memset(t, 0, sizeof(*t));
    t->op = BM_IO_READ;
    t->random = random;
    t->bs = bs;
    t->qd = qd;
    t->threads = threads;
    size_label(sz, sizeof(sz), bs);
    if (prefix)
        snprintf(t->name, sizeof(t->name), "%.3s%.6s-Q%u", prefix, sz, qd % 10000);
    else
        snprintf(t->name, sizeof(t->name), "%s%.6s-Q%uT%u", random ? "RND" : "SEQ", sz, qd % 10000, threads % 100);
}

/* The read tests of a level, in run order. quick: CrystalDiskMark's
 * default four. full adds the ATTO-style block-size sweep (sequential,
 * QD4), the queue-depth sweep of 4 KiB random reads (the latency-vs-depth
 * curve; depths quick already ran are not repeated), and RND4K-Q32T16. */
unsigned disk_build_tests(enum bm_level level, struct disk_test *out, unsigned max)
{
    struct disk_test all[DISK_MAX_TESTS];
    unsigned n = 0;

    add_test(all, &n, false, 1u << 20, 8, 1, NULL);
    add_test(all, &n, false, 1u << 20, 1, 1, NULL);
    add_test(all, &n, true, 4096, 32, 1, NULL);
    add_test(all, &n, true, 4096, 1, 1, NULL);
    if (level == LEVEL_FULL) {
        for (uint32_t bs = 512; bs <= (8u << 20); bs *= 2)
            add_test(all, &n, false, bs, 4, 1, "BS");
        for (uint32_t qd = 1; qd <= 256; qd *= 2)
            if (qd != 1 && qd != 32)
                add_test(all, &n, true, 4096, qd, 1, NULL);
        add_test(all, &n, true, 4096, 32, 16, NULL);
    }
    n = MIN(n, max);
    memcpy(out, all, n * sizeof(*out));
    return n;
}

/* Which tests are also run as writes: all but the queue-depth sweep. */
bool disk_has_write_twin(const struct disk_test *t)
{
    return !(t->random && t->bs == 4096 && t->threads == 1 && t->qd != 1 && t->qd != 32);
}

/* Sequential and 4 KiB random reads, the first and third quick tests. */
void disk_all_disks_tests(struct disk_test out[2])
{
    struct disk_test quick[4];

    disk_build_tests(LEVEL_QUICK, quick, 4);
    out[0] = quick[0];                              /* SEQ1M-Q8T1 */
    out[1] = quick[2];                              /* RND4K-Q32T1 */
}

/* "ALL3-SEQ1M-Q8T1": a disk's result with two others running is not the
 * same test as its result alone (limits, burn-in statistics and the fleet
 * report key on the name). */
void disk_all_disks_name(struct disk_test *named, const struct disk_test *t, unsigned k)
{
    char name[48];

    *named = *t;
    snprintf(name, sizeof(name), "ALL%u-%.23s", k, t->name);
    bm_strlcpy(named->name, name, sizeof(named->name));
}

/* How many timed tests one pass runs (see plan.h), for the time left on
 * the screen: what disk_pass() will run, from the same plan. */
unsigned disk_plan_test_count(const struct config *c, unsigned disks, unsigned writable, unsigned all_disks)
{
    struct disk_test tests[DISK_MAX_TESTS];
    unsigned n, twins = 0, count;

    if (c->disk == LEVEL_OFF || !disks)
        return 0;
    n = disk_build_tests(c->disk, tests, DISK_MAX_TESTS);
    for (unsigned i = 0; i < n; i++)
        twins += disk_has_write_twin(&tests[i]);
    count = disks * n + writable * twins;
    /* run_all_disks: both workloads on all k disks (full: k = 1..n). */
    if (all_disks >= 2)
        count += 2 * (c->disk == LEVEL_FULL ? all_disks : 1);
    return count;
}

double disk_plan_test_seconds(const struct config *c)
{
    struct engine_timing t;

    disk_timing_for(c, &t);
    return (double)(t.warmup_ns + t.measure_ns) / 1e9;
}
