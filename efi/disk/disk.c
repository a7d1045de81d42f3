/* Disk benchmark: discovery, the per-disk workloads, the all-disks tests,
 * their records and the screen. The engine (engine.c) drives the I/O. */
#include "disk.h"
#include "discover.h"
#include "engine.h"
#include "links.h"
#include "health.h"
#include "safety.h"
#include "verify.h"
#include "../record.h"
#include "../../drivers/fwblk/fwblk.h"

#define DISK_MAX_TESTS 48
#define DISK_STALL_NS 60000000000ull

/* The screen's summary of one disk: a row per test, read and write side by
 * side, like CrystalDiskMark's window. */
struct table_row {
    char test[24];
    bool have[2];            /* [0] read, [1] write */
    double mbps[2], iops[2], p99_us[2];
};

struct disk_entry {
    struct bm_disk *d;
    bool selected;
    struct disk_facts facts;
    enum write_perm perm;
    char refusal[200];
    struct table_row rows[DISK_MAX_TESTS];
    unsigned nrows;
};

static struct disk_entry entries[BM_MAX_DISKS];
static unsigned nentries;
static struct disk_set set;
static uint64_t test_warmup_ns, test_measure_ns;

void disk_set_test_timing(uint64_t warmup_ns, uint64_t measure_ns)
{
    test_warmup_ns = warmup_ns;
    test_measure_ns = measure_ns;
}

/* time= seconds measured, after a warm-up of a fifth of that (0.25 to
 * 2 s): enough for caches and queues to fill, short enough not to double
 * the run. */
static void timing_for(const struct config *c, struct engine_timing *t)
{
    t->measure_ns = (uint64_t)c->time_s * 1000000000ull;
    t->warmup_ns = t->measure_ns / 5;
    t->warmup_ns = MAX(t->warmup_ns, 250000000ull);
    t->warmup_ns = MIN(t->warmup_ns, 2000000000ull);
    if (test_measure_ns) {
        t->measure_ns = test_measure_ns;
        t->warmup_ns = test_warmup_ns;
    }
    t->stall_ns = DISK_STALL_NS;
}

/* ---- The tests ---------------------------------------------------------------- */

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
static bool has_write_twin(const struct disk_test *t)
{
    return !(t->random && t->bs == 4096 && t->threads == 1 && t->qd != 1 && t->qd != 32);
}

/* ---- Records --------------------------------------------------------------------- */

static void emit_disk_record(const struct disk_entry *e)
{
    static struct record r;
    const struct bm_disk *d = e->d;
    char human[320];
    const char *dp = fwblk_device_path(d);
    double gb = (double)d->blocks * d->lba_bytes / 1e9;

    record_begin(&r, "disk");
    json_str(&r.j, "id", d->id);
    json_str(&r.j, "driver", d->driver);
    json_str(&r.j, "path", d->path);
    json_str(&r.j, "model", d->model);
    json_str(&r.j, "serial", d->serial);
    json_str(&r.j, "firmware", d->firmware);
    json_u64(&r.j, "lba_bytes", d->lba_bytes);
    if (d->phys_bytes && d->phys_bytes != d->lba_bytes)
        json_u64(&r.j, "phys_bytes", d->phys_bytes);
    json_u64(&r.j, "blocks", d->blocks);
    json_u64(&r.j, "bytes", d->blocks * d->lba_bytes);
    json_str(&r.j, "pci", d->pci);
    if (d->link_gbps > 0)
        json_num(&r.j, "link_gbps", d->link_gbps, 1);
    json_u64(&r.j, "queues", d->nqueues);
    json_u64(&r.j, "max_qd", d->max_qd);
    json_u64(&r.j, "max_transfer_bytes", d->max_transfer_bytes);
    if (dp[0])
        json_str(&r.j, "device_path", dp);
    json_arr_begin(&r.j, "quirks");
    for (const char *q = d->quirks; *q;) {
        char name[sizeof(d->quirks)];
        const char *comma = strchr(q, ',');
        size_t l = comma ? (size_t)(comma - q) : strlen(q);
        memcpy(name, q, l);
        name[l] = '\0';
        json_str(&r.j, NULL, name);
        q += l + (q[l] == ',');
    }
    json_arr_end(&r.j);
    json_bool(&r.j, "boot", e->facts.boot);
    json_bool(&r.j, "selected", e->selected);
    json_bool(&r.j, "writes", e->perm == WRITE_ALLOWED && e->selected);
    snprintf(human, sizeof(human), "disk %s: %s%s%s, %.1f GB, %u-byte blocks, %s path (%s)%s%s%s%s", d->id,
             d->model[0] ? d->model : "(no model)", d->serial[0] ? " serial " : " (no serial)", d->serial, gb,
             d->lba_bytes, d->path, d->driver, d->pci[0] ? " at " : "", d->pci, e->facts.boot ? ", boot disk" : "",
             !e->selected ? ", not selected" : e->perm == WRITE_ALLOWED ? ", WRITE tests allowed" : ", read-only");
    record_emit(&r, human);
}

/* The lat_us object: mean and percentiles of a histogram, in microseconds. */
static void emit_lat(struct json *j, const struct histogram *h)
{
    json_obj_begin(j, "lat_us");
    json_num(j, "mean", hist_mean(h) / 1e3, 1);
    json_num(j, "p50", (double)hist_percentile(h, 50) / 1e3, 1);
    json_num(j, "p99", (double)hist_percentile(h, 99) / 1e3, 1);
    json_num(j, "p999", (double)hist_percentile(h, 99.9) / 1e3, 1);
    json_num(j, "max", (double)h->max / 1e3, 1);
    json_obj_end(j);
}

/* The fields every disk_result shares, per disk or for "all". qd and
 * threads are what ran (per disk: after its limits; for "all": as named,
 * each disk's own record says what it ran). */
static void result_fields(struct record *r, const struct disk_test *t, uint32_t qd, uint32_t threads, uint64_t ios,
                          double seconds, double mbps, double iops, const struct histogram *h)
{
    json_str(&r->j, "test", t->name);
    json_str(&r->j, "rw", engine_rw_name(t));
    json_u64(&r->j, "bs", t->bs);
    json_u64(&r->j, "qd", qd);
    json_u64(&r->j, "threads", threads);
    json_num(&r->j, "seconds", seconds, 3);
    json_u64(&r->j, "ios", ios);
    json_num(&r->j, "mbps", mbps, 1);
    json_num(&r->j, "iops", iops, 0);
    emit_lat(&r->j, h);
}

/* The headline figure for burn-in statistics and limits. Writes are named
 * "<test>-write" there, so a limit on SEQ1M-Q8T1 means the read. */
static void attach_metric(struct record *r, const char *subject, const struct disk_test *t, double mbps, double iops,
                          double p99_us, const struct bm_disk *d)
{
    char name[40];

    snprintf(name, sizeof(name), "%s%s", t->name, t->op == BM_IO_WRITE ? "-write" : "");
    record_metric(r, subject, name, "MB/s", mbps);
    record_metric_disk(r, iops, p99_us, d ? d->serial : "", d ? d->model : "");
}

/* A disk's result. A test in which no I/O completed inside the window
 * (each one took longer than time=) gets a note instead of a record of
 * zeros; returns BM_ENODEV then. */
static int emit_result_record(const struct disk_job *j, unsigned concurrent)
{
    static struct record r;
    char human[256];
    double mbps = j->seconds > 0 ? (double)j->bytes / j->seconds / 1e6 : 0;
    double iops = j->seconds > 0 ? (double)j->ios / j->seconds : 0;

    if (!j->ios) {
        record_note(j->disk->id, "%s %s: no I/O completed within the %.1f s measured; raise time= to measure it",
                    j->test.name, engine_rw_name(&j->test), j->seconds);
        return BM_ENODEV;
    }

    record_begin(&r, "disk_result");
    json_str(&r.j, "disk", j->disk->id);
    result_fields(&r, &j->test, j->qd, j->nq, j->ios, j->seconds, mbps, iops, j->hist);
    attach_metric(&r, j->disk->id, &j->test, mbps, iops, (double)hist_percentile(j->hist, 99) / 1e3, j->disk);
    if (j->pieces > 1)
        json_u64(&r.j, "split", j->pieces);
    if (j->note[0])
        json_str(&r.j, "note", j->note);
    if (concurrent)
        json_u64(&r.j, "concurrent", concurrent);
    snprintf(human, sizeof(human), "%s %-13s %-9s %9.1f MB/s %9.0f IOPS  lat p50 %.0f us p99 %.0f us%s%s%s",
             j->disk->id, j->test.name, engine_rw_name(&j->test), mbps, iops,
             (double)hist_percentile(j->hist, 50) / 1e3, (double)hist_percentile(j->hist, 99) / 1e3,
             concurrent ? " (with the other disks)" : "", j->note[0] ? " - " : "", j->note);
    record_emit(&r, human);
    return BM_OK;
}

/* The disk "all" record of an all-disks test: the sum over the disks that finished. */
static void emit_aggregate_record(const struct disk_job *jobs, unsigned n, const struct engine_run_stats *st,
                                  const struct link_summary *link)
{
    static struct record r;
    static struct histogram h;
    char human[400];
    uint64_t ios = 0;
    const struct disk_job *first = NULL;
    unsigned ok = 0;
    double seconds = 0, mbps = 0, iops = 0;

    /* The sum of the disks' rates (their windows are the same unless one
     * had to be kept open for a first I/O). */
    hist_reset(&h);
    for (unsigned i = 0; i < n; i++) {
        const struct disk_job *j = &jobs[i];
        if (j->status != BM_OK || !j->ios)
            continue;
        if (!first)
            first = j;
        ok++;
        ios += j->ios;
        seconds = MAX(seconds, j->seconds);
        mbps += (double)j->bytes / j->seconds / 1e6;
        iops += (double)j->ios / j->seconds;
        hist_merge(&h, j->hist);
    }
    if (!first)
        return;
    record_begin(&r, "disk_result");
    json_str(&r.j, "disk", "all");
    json_arr_begin(&r.j, "disks");
    for (unsigned i = 0; i < n; i++)
        if (jobs[i].status == BM_OK && jobs[i].ios)
            json_str(&r.j, NULL, jobs[i].disk->id);
    json_arr_end(&r.j);
    result_fields(&r, &first->test, first->test.qd, first->test.threads, ios, seconds, mbps, iops, &h);
    attach_metric(&r, "all", &first->test, mbps, iops, (double)hist_percentile(&h, 99) / 1e3, NULL);
    json_u64(&r.j, "concurrent", ok);
    json_num(&r.j, "core_busy_pct", st->core_busy_pct, 1);
    if (link->known) {
        json_obj_begin(&r.j, "link");
        json_str(&r.j, "hop", link->hop);
        json_str(&r.j, "width_speed", link->link);
        json_u64(&r.j, "disks_behind", link->disks_behind);
        json_num(&r.j, "ceiling_mbps", link->ceiling_mbps, 0);
        json_num(&r.j, "used_pct", link->ceiling_mbps > 0 ? 100.0 * mbps / link->ceiling_mbps : 0, 1);
        json_obj_end(&r.j);
    }
    snprintf(human, sizeof(human),
             "all %-13s %-9s %9.1f MB/s %9.0f IOPS  lat p99 %.0f us  (%u disk%s, one core %.0f%% busy)",
             first->test.name, engine_rw_name(&first->test), mbps, iops, (double)hist_percentile(&h, 99) / 1e3, ok,
             ok == 1 ? "" : "s", st->core_busy_pct);
    record_emit(&r, human);
    if (link->known)
        ui_text("  %s: %.2f of %.2f GB/s", link->text, mbps / 1e3, link->ceiling_mbps / 1e3);
    /* One core polls every disk: when it is nearly always busy, it, not
     * the disks, may be what stops the aggregate from growing. */
    if (st->core_busy_pct > 90)
        ui_text("  the polling core was %.0f%% busy: one core may be the limit here", st->core_busy_pct);
}

/* ---- The screen table --------------------------------------------------------------- */

static void table_add(struct disk_entry *e, const struct disk_job *j)
{
    struct table_row *row = NULL;
    int w = j->test.op == BM_IO_WRITE;

    for (unsigned i = 0; i < e->nrows; i++)
        if (!strcmp(e->rows[i].test, j->test.name))
            row = &e->rows[i];
    if (!row) {
        if (e->nrows >= DISK_MAX_TESTS)
            return;
        row = &e->rows[e->nrows++];
        memset(row, 0, sizeof(*row));
        bm_strlcpy(row->test, j->test.name, sizeof(row->test));
    }
    row->have[w] = true;
    row->mbps[w] = j->seconds > 0 ? (double)j->bytes / j->seconds / 1e6 : 0;
    row->iops[w] = j->seconds > 0 ? (double)j->ios / j->seconds : 0;
    row->p99_us[w] = (double)hist_percentile(j->hist, 99) / 1e3;
}

/* One read or write cell of the screen table. */
static void table_cell(char *buf, size_t len, const struct table_row *row, int w)
{
    if (!row->have[w])
        snprintf(buf, len, "%28s", "-");
    else
        snprintf(buf, len, "%9.1f %9.0f %8.0f", row->mbps[w], row->iops[w], row->p99_us[w]);
}

/* The screen table of one disk, once its tests are done. */
static void print_table(const struct disk_entry *e)
{
    char r[40], w[40];

    if (!e->nrows)
        return;
    ui_text("%s", "");
    ui_text("%s  %s  %s", e->d->id, e->d->model, e->d->serial);
    ui_text("%-13s %28s   %28s", "", "read: MB/s      IOPS  p99 us", "write: MB/s     IOPS  p99 us");
    for (unsigned i = 0; i < e->nrows; i++) {
        table_cell(r, sizeof(r), &e->rows[i], 0);
        table_cell(w, sizeof(w), &e->rows[i], 1);
        ui_text("%-13s %s   %s", e->rows[i].test, r, w);
    }
    ui_text("%s", "");
}

/* ---- Running ------------------------------------------------------------------------ */

static uint64_t seed_for(const struct bm_disk *d, unsigned salt)
{
    uint64_t h = plat_now_ns() ^ ((uint64_t)salt << 32);

    for (const char *p = d->id; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h;
}

/* A disk that failed: say so, and skip it from now on. */
static void disk_failed(struct disk_entry *e, const struct disk_job *j)
{
    record_error(e->d->id, "%s %s (%s%s%s%s) failed: %s; the disk is skipped for the rest of the run", j->test.name,
                 engine_rw_name(&j->test), e->d->model, e->d->serial[0] ? ", serial " : "", e->d->serial,
                 !strcmp(j->disk->path, BM_PATH_FIRMWARE) ? ", firmware path" : "", j->detail);
    e->d->failed = true;
}

/* One test on one disk. Returns BM_EABORT on Esc, else BM_OK. */
static int run_one(struct disk_entry *e, const struct disk_test *t, const struct engine_timing *tm, unsigned salt)
{
    struct disk_job job;
    char why[160], label[80];
    int rc;

    rc = engine_job_prepare(&job, e->d, t, seed_for(e->d, salt), why, sizeof(why));
    if (rc == BM_ENOTSUP) {
        record_note(e->d->id, "%s %s skipped: %s", t->name, engine_rw_name(t), why);
        return BM_OK;
    }
    if (rc != BM_OK) {
        record_error(e->d->id, "%s %s not run: %s", t->name, engine_rw_name(t), why);
        return BM_OK;
    }
    snprintf(label, sizeof(label), "%.23s %.23s %s", e->d->id, t->name, engine_rw_name(t));
    rc = engine_run(&job, 1, tm, label, NULL);
    if (rc == BM_OK) {
        if (job.status != BM_OK) {
            disk_failed(e, &job);
        } else if (!emit_result_record(&job, 0)) {
            table_add(e, &job);
        }
    }
    engine_job_free(&job);
    return rc;
}

/* Every test of the level on one disk: reads, then writes if allowed. */
static int run_disk(struct disk_entry *e, const struct config *c, const struct engine_timing *tm)
{
    struct disk_test tests[DISK_MAX_TESTS];
    unsigned n = disk_build_tests(c->disk, tests, DISK_MAX_TESTS);
    unsigned salt = 0;
    int rc;

    for (unsigned i = 0; i < n && !e->d->failed; i++)
        if ((rc = run_one(e, &tests[i], tm, salt++)) != BM_OK)
            return rc;
    if (e->perm != WRITE_ALLOWED)
        return BM_OK;
    for (unsigned i = 0; i < n && !e->d->failed; i++) {
        struct disk_test w = tests[i];
        if (!has_write_twin(&w))
            continue;
        w.op = BM_IO_WRITE;
        if ((rc = run_one(e, &w, tm, salt++)) != BM_OK)
            return rc;
    }
    return BM_OK;
}

/* One all-disks test over the first k of the given disks. */
static int run_group(struct disk_entry **group, unsigned k, const struct disk_test *t, const struct engine_timing *tm,
                     unsigned salt)
{
    static struct disk_job jobs[BM_MAX_DISKS];
    struct bm_disk *disks[BM_MAX_DISKS];
    struct disk_entry *owner[BM_MAX_DISKS];
    struct engine_run_stats st;
    struct link_summary link;
    char why[160], label[96];
    struct disk_test named = *t;
    unsigned n = 0;
    int rc;

    /* "ALL3-SEQ1M-Q8T1": a disk's result with two others running is not
     * the same test as its result alone (limits, burn-in statistics and
     * the fleet report key on the name). */
    {
        char name[48];
        snprintf(name, sizeof(name), "ALL%u-%.23s", k, t->name);
        bm_strlcpy(named.name, name, sizeof(named.name));
    }
    t = &named;
    for (unsigned i = 0; i < k; i++) {
        struct disk_entry *e = group[i];
        if (e->d->failed)
            continue;
        rc = engine_job_prepare(&jobs[n], e->d, t, seed_for(e->d, salt), why, sizeof(why));
        if (rc != BM_OK) {
            record_note(e->d->id, "%s %s with the other disks skipped: %s", t->name, engine_rw_name(t), why);
            continue;
        }
        owner[n] = e;
        disks[n] = e->d;
        n++;
    }
    if (n == 0)
        return BM_OK;
    snprintf(label, sizeof(label), "all %u disks %.23s", n, t->name);
    rc = engine_run(jobs, n, tm, label, &st);
    if (rc == BM_OK) {
        for (unsigned i = 0; i < n; i++) {
            if (jobs[i].status == BM_OK)
                emit_result_record(&jobs[i], n);
            else
                disk_failed(owner[i], &jobs[i]);
        }
        links_summarize(disks, n, &link);
        emit_aggregate_record(jobs, n, &st, &link);
    }
    for (unsigned i = 0; i < n; i++)
        engine_job_free(&jobs[i]);
    return rc;
}

/* The all-disks tests: sequential and 4 KiB random reads on every selected
 * disk at once; full adds the scaling series over 1, 2, ... N disks. */
static int run_all_disks(const struct config *c, const struct engine_timing *tm)
{
    struct disk_entry *group[BM_MAX_DISKS];
    struct disk_test tests[2];
    unsigned n = 0;
    int rc;

    for (unsigned i = 0; i < nentries; i++)
        if (entries[i].selected && !entries[i].d->failed) {
            /* A disk that runs one blocking command at a time would stall
             * the polling loop, and every other disk with it. */
            if (entries[i].d->max_qd < 2) {
                record_note(entries[i].d->id, "left out of the all-disks tests: its path (%s) runs one blocking "
                            "command at a time, which would hold the other disks back", entries[i].d->driver);
                continue;
            }
            group[n++] = &entries[i];
        }
    if (n < 2) {
        ui_text("all-disks tests: they need two disks or more (%u left)", n);
        return BM_OK;
    }
    disk_build_tests(LEVEL_QUICK, tests, 1);           /* SEQ1M-Q8T1 */
    {
        struct disk_test all[4];
        disk_build_tests(LEVEL_QUICK, all, 4);
        tests[1] = all[2];                              /* RND4K-Q32T1 */
    }
    ui_text("all %u disks at once, driven from one core:", n);
    for (unsigned i = 0; i < n; i++) {
        char line[160];
        links_describe_disk(group[i]->d, line, sizeof(line));
        if (line[0])
            ui_text("  %s %s", group[i]->d->id, line);
    }
    for (unsigned t = 0; t < 2; t++) {
        unsigned from = c->disk == LEVEL_FULL ? 1 : n;
        for (unsigned k = from; k <= n; k++)
            if ((rc = run_group(group, k, &tests[t], tm, 1000 + t * 100 + k)) != BM_OK)
                return rc;
    }
    return BM_OK;
}

/* ---- Safety -------------------------------------------------------------------------- */

/* Is the disk an NVMe namespace (natively, or as the firmware's device
 * path names it)? Namespaces share their controller's serial. */
static bool is_nvme_namespace(const struct bm_disk *d)
{
    return !strcmp(d->driver, "nvme") || strstr(fwblk_device_path(d), "/NVMe(") != NULL;
}

static void decide_writes(const struct config *c, const struct plat_boot_location *boot,
                          const struct plat_boot_location *results)
{
    for (unsigned i = 0; i < nentries; i++) {
        struct disk_entry *e = &entries[i];
        int fw = fwblk_boot_disk(e->d);
        enum boot_answer ans = fw < 0 ? BOOT_UNKNOWN : fw ? BOOT_YES : BOOT_NO;

        /* Another disk with this serial: write= names a serial, and could
         * mean either (the first one found is named in the refusal). */
        e->facts.serial_twin = NULL;
        for (unsigned k = 0; k < nentries && !e->facts.serial_twin; k++)
            if (k != i && disk_serials_clash(e->d, is_nvme_namespace(e->d), entries[k].d,
                                             is_nvme_namespace(entries[k].d)))
                e->facts.serial_twin = entries[k].d->id;

        e->facts.boot = disk_holds_boot(e->d, boot, ans);
        /* The results volume may be another one (out=LABEL:\path). The
         * firmware's exact answer is about the boot volume only, so this
         * one is matched by controller and port (a location without a port
         * protects every disk on its controller). */
        e->facts.results = results->has_volume && disk_holds_boot(e->d, results, BOOT_UNKNOWN);
        e->facts.results_by_controller = e->facts.results && !results->has_port;
        e->facts.read_only = fwblk_read_only(e->d);
        e->perm = disk_write_permission(c, e->d->serial, &e->facts, e->refusal, sizeof(e->refusal));
    }
}

/* Error records for writes refused by a safety rule, notes for write= serials nobody has. */
static void report_refusals(const struct config *c)
{
    for (unsigned i = 0; i < nentries; i++) {
        struct disk_entry *e = &entries[i];
        if (e->perm == WRITE_REFUSED)
            record_error(e->d->id, "write=%s refused: %s (%s); the disk is only read", e->d->serial, e->refusal,
                         e->d->model);
    }
    /* A serial in write= that matches no disk is worth knowing: a typo
     * would otherwise look like a read-only run by choice. */
    for (unsigned k = 0; k < c->write.count; k++) {
        bool found = false;
        for (unsigned i = 0; i < nentries && !found; i++)
            found = !strcmp(entries[i].d->serial, c->write.items[k]);
        if (!found)
            record_note("disk", "write=%s: no disk has this serial; nothing is written to it", c->write.items[k]);
    }
}

/* ---- The run ------------------------------------------------------------------------- */

/* Discovery, disk records, refusals and the health logs before the work.
 * Once per run: burn-in passes reuse what it found. */
int disk_open(const struct config *c, const struct plat_boot_location *boot)
{
    unsigned selected = 0;
    struct plat_boot_location results;

    plat_results_location(&results);
    disk_discover(c, boot, &results, &set);
    nentries = 0;
    for (unsigned i = 0; i < set.list.count && i < BM_MAX_DISKS; i++) {
        struct disk_entry *e = &entries[nentries++];
        memset(e, 0, sizeof(*e));
        e->d = set.list.disks[i];
        e->selected = config_disk_selected(c, e->d->id, e->d->serial);
        selected += e->selected;
    }
    decide_writes(c, boot, &results);
    for (unsigned i = 0; i < nentries; i++)
        emit_disk_record(&entries[i]);
    report_refusals(c);
    for (unsigned k = 0; k < c->disks.count; k++) {
        bool found = false;
        for (unsigned i = 0; i < nentries && !found; i++)
            found = !strcmp(entries[i].d->id, c->disks.items[k]) || !strcmp(entries[i].d->serial, c->disks.items[k]);
        if (!found)
            record_note("disk", "disks=%s: no disk has this id or serial", c->disks.items[k]);
    }
    if (!nentries)
        record_note("disk", "no disks found (driver=%s)",
                    c->driver == DRIVER_AUTO ? "auto" : c->driver == DRIVER_NATIVE ? "native" : "firmware");
    else if (!selected)
        record_note("disk", "disks= selects none of the %u disks found", nentries);
    for (unsigned i = 0; i < nentries; i++)
        if (entries[i].selected)
            disk_emit_health(entries[i].d, "before");
    return BM_OK;
}

/* verify=: write, read back and compare a range of every disk that may
 * be written; a disk that may not gets a note once. */
static int verify_disks(const struct config *c)
{
    static bool told;
    int rc = BM_OK;

    for (unsigned i = 0; i < nentries && rc != BM_EABORT; i++) {
        struct disk_entry *e = &entries[i];
        struct verify_result v;
        if (!e->selected || e->d->failed)
            continue;
        if (e->perm != WRITE_ALLOWED) {
            if (!told)
                record_note(e->d->id, "verify= skipped: the disk is not listed in write=%s%s",
                            e->perm == WRITE_REFUSED ? " or a safety rule protects it: " : "",
                            e->perm == WRITE_REFUSED ? e->refusal : "");
            continue;
        }
        ui_progress("%s verify: writing and reading back %llu MB", e->d->id,
                    (unsigned long long)(c->verify_bytes / 1000000));
        rc = disk_verify(e->d, c->verify_bytes, seed_for(e->d, 0x7e51f), &v);
        if (rc == BM_EABORT)
            break;
        verify_emit_record(e->d, &v);
        if (v.status != BM_OK || v.bad_blocks) {
            record_error(e->d->id, "verify failed: %llu bad block%s from LBA %llu%s%s",
                         (unsigned long long)v.bad_blocks, v.bad_blocks == 1 ? "" : "s",
                         (unsigned long long)(v.nbad_listed ? v.bad_lba[0] : v.first_lba),
                         v.status != BM_OK ? "; " : "", v.status != BM_OK ? v.detail : "");
            if (v.status != BM_OK)
                e->d->failed = true;
        }
        rc = BM_OK;
    }
    told = true;
    return rc;
}

/* One pass of the workloads over the selected disks, then the all-disks
 * tests, then verify=. Returns BM_OK or BM_EABORT. */
int disk_pass(const struct config *c)
{
    struct engine_timing tm;
    int rc = BM_OK;

    timing_for(c, &tm);
    for (unsigned i = 0; i < nentries; i++)
        entries[i].nrows = 0;
    for (unsigned i = 0; i < nentries && rc == BM_OK; i++) {
        struct disk_entry *e = &entries[i];
        if (!e->selected)
            continue;
        rc = run_disk(e, c, &tm);
        print_table(e);
    }
    if (rc == BM_OK)
        rc = run_all_disks(c, &tm);
    if (rc == BM_OK && c->verify_bytes)
        rc = verify_disks(c);
    return rc == BM_EABORT ? BM_EABORT : BM_OK;
}

/* Health logs after the work, then every controller back to the firmware. */
void disk_close(void)
{
    for (unsigned i = 0; i < nentries; i++)
        if (entries[i].selected)
            disk_emit_health(entries[i].d, "after");
    disk_release(&set);
    nentries = 0;
}

int disk_run(const struct config *c, const struct plat_boot_location *boot)
{
    int rc = disk_open(c, boot);

    if (rc == BM_OK)
        rc = disk_pass(c);
    disk_close();
    return rc == BM_EABORT ? BM_EABORT : BM_OK;
}
