/* Disk benchmark: the run. Discovery once, then per pass every test of the
 * plan (plan.c) on each selected disk, the all-disks tests and verify=; the
 * engine (engine.c) drives the I/O, safety.c decides what may be written,
 * report.c builds the records and the screen table. */
#include "disk.h"
#include "discover.h"
#include "engine.h"
#include "links.h"
#include "health.h"
#include "plan.h"
#include "report.h"
#include "safety.h"
#include "scan.h"
#include "verify.h"
#include "../record.h"

/* A disk found at disk_open(), and what the run knows and has decided about it. */
struct disk_entry {
    struct bm_disk *d;
    bool selected;
    struct disk_write_decision w;
    struct disk_table table;
    bool stuck;           /* commands of a failed test never completed: nothing more is sent to it */
};

static struct disk_entry entries[BM_MAX_DISKS];
static unsigned nentries;
static struct disk_set set;

/* ---- Running ------------------------------------------------------------------------ */

/* A seed per disk and test: offsets and data differ between disks, tests and passes. */
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
    report_disk_failed(e->d, j);
    e->d->failed = true;
    if (j->stuck)
        e->stuck = true;
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
        } else if (!report_result(&job, 0)) {
            table_add(&e->table, &job);
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
    if (e->w.perm != WRITE_ALLOWED)
        return BM_OK;
    for (unsigned i = 0; i < n && !e->d->failed; i++) {
        struct disk_test w = tests[i];
        if (!disk_has_write_twin(&w))
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
    struct disk_test named;
    unsigned n = 0;
    int rc;

    disk_all_disks_name(&named, t, k);
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
                report_result(&jobs[i], n);
            else
                disk_failed(owner[i], &jobs[i]);
        }
        links_summarize(disks, n, &link);
        report_all_disks(jobs, n, &st, &link);
    }
    for (unsigned i = 0; i < n; i++)
        engine_job_free(&jobs[i]);
    return rc;
}

/* Does the disk's path run its one command at a time inside submit, so
 * it would hold the polling loop and every other disk with it? Only a
 * firmware path does (plain Block I/O, INT 13h): native drivers never wait
 * in submit or poll (blkdev.h), whatever their depth, so a disk without
 * NCQ on AHCI or an Apple 2001 NVMe runs beside the others. */
static bool disk_blocks_poller(const struct bm_disk *d)
{
    return d->max_qd < 2 && !(d->path && !strcmp(d->path, BM_PATH_NATIVE));
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
            if (disk_blocks_poller(entries[i].d)) {
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
    disk_all_disks_tests(tests);
    ui_text("all %u disks at once, spread over the CPUs:", n);
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

/* ---- The run ------------------------------------------------------------------------- */

/* Who may be written, decided for every disk found at once (serial twins
 * are found among them). */
static void decide_writes(const struct config *c, const struct plat_boot_location *boot,
                          const struct plat_boot_location *results)
{
    static struct disk_write_decision w[BM_MAX_DISKS];

    disk_decide_writes(c, set.list.disks, nentries, boot, results, w);
    for (unsigned i = 0; i < nentries; i++)
        entries[i].w = w[i];
}

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
        report_disk(entries[i].d, entries[i].selected, &entries[i].w);
    for (unsigned i = 0; i < nentries; i++)
        report_write_refused(entries[i].d, &entries[i].w);
    report_unmatched_options(c, set.list.disks, nentries, selected);
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
        if (e->w.perm != WRITE_ALLOWED) {
            if (!told)
                record_note(e->d->id, "verify= skipped: the disk is not listed in write=%s%s",
                            e->w.perm == WRITE_REFUSED ? " or a safety rule protects it: " : "",
                            e->w.perm == WRITE_REFUSED ? e->w.refusal : "");
            continue;
        }
        ui_progress("%s verify: writing and reading back %llu MB", e->d->id,
                    (unsigned long long)(c->verify_bytes / 1000000));
        rc = disk_verify(e->d, c->verify_bytes, seed_for(e->d, 0x7e51f), disk_stall_ns(c), &v);
        if (rc == BM_EABORT)
            break;
        report_verify(e->d, &v);
        if (v.status != BM_OK)
            e->d->failed = true;
        rc = BM_OK;
    }
    told = true;
    return rc;
}


/* SEQ1M-Q8T1's read MB/s on this disk in this pass (0: not run), what the scan's rate is set against. */
static double seq1m_read_mbps(const struct disk_entry *e)
{
    for (unsigned i = 0; i < e->table.nrows; i++)
        if (!strcmp(e->table.rows[i].test, "SEQ1M-Q8T1") && e->table.rows[i].have[0])
            return e->table.rows[i].mbps[0];
    return 0;
}

/* One engine run of the surface scan over the given disks at once. */
static int scan_group(const struct config *c, struct disk_entry **group, unsigned n)
{
    static struct bm_disk *disks[BM_MAX_DISKS];
    static uint64_t first[BM_MAX_DISKS], blocks[BM_MAX_DISKS];
    static struct disk_entry *owner[BM_MAX_DISKS];
    struct scan_result *res;
    char why[160];
    unsigned k = 0;
    int rc;

    for (unsigned i = 0; i < n; i++) {
        struct bm_disk *d = group[i]->d;
        if (scan_clip_range(c->scan_range_set, c->scan_first_lba, c->scan_last_lba, d->blocks, &first[k],
                            &blocks[k], why, sizeof(why)) != BM_OK) {
            record_note(d->id, "surface scan skipped: %s", why[0] ? why : "the disk has no blocks");
            continue;
        }
        if (why[0])
            record_note(d->id, "%s", why);
        disks[k] = d;
        owner[k] = group[i];
        k++;
    }
    if (k == 0)
        return BM_OK;
    res = plat_alloc((size_t)k * sizeof(*res));
    if (!res) {
        record_error(NULL, "surface scan not run: out of memory for its results");
        return BM_OK;
    }
    ui_text("surface scan: %u disk%s at once, read-only", k, k == 1 ? "" : "s");
    rc = disk_scan(disks, k, first, blocks, disk_stall_ns(c), res);
    if (rc == BM_OK)
        for (unsigned i = 0; i < k; i++)
            report_scan(disks[i], &res[i], seq1m_read_mbps(owner[i]));
    plat_free(res);
    return rc;
}

/* scan=on: every selected disk read front to back, all at once; a disk
 * whose firmware path runs one blocking command at a time is scanned alone
 * afterwards (it would hold the others back), and a disk whose commands
 * never completed is left alone. Read-only, so the write rules do not apply. */
static int scan_disks(const struct config *c)
{
    struct disk_entry *group[BM_MAX_DISKS];
    unsigned n = 0;
    int rc;

    for (unsigned i = 0; i < nentries; i++) {
        struct disk_entry *e = &entries[i];
        if (!e->selected)
            continue;
        if (e->stuck) {
            record_note(e->d->id, "surface scan skipped: commands of an earlier test never completed");
            continue;
        }
        if (!disk_blocks_poller(e->d))
            group[n++] = e;
    }
    if (n && (rc = scan_group(c, group, n)) != BM_OK)
        return rc;
    for (unsigned i = 0; i < nentries; i++) {
        struct disk_entry *e = &entries[i];
        if (e->selected && !e->stuck && disk_blocks_poller(e->d) && (rc = scan_group(c, &e, 1)) != BM_OK)
            return rc;
    }
    return BM_OK;
}

/* One pass of the workloads over the selected disks, then the all-disks
 * tests, then scan= and verify=. Returns BM_OK or BM_EABORT. */
int disk_pass_timed(const struct config *c, const struct engine_timing *tm)
{
    int rc = BM_OK;

    for (unsigned i = 0; i < nentries; i++)
        entries[i].table.nrows = 0;
    for (unsigned i = 0; i < nentries && rc == BM_OK && c->disk != LEVEL_OFF; i++) {
        struct disk_entry *e = &entries[i];
        if (!e->selected)
            continue;
        rc = run_disk(e, c, tm);
        table_print(&e->table, e->d);
    }
    if (rc == BM_OK && c->disk != LEVEL_OFF)
        rc = run_all_disks(c, tm);
    if (rc == BM_OK && c->scan)
        rc = scan_disks(c);
    if (rc == BM_OK && c->verify_bytes)
        rc = verify_disks(c);
    return rc == BM_EABORT ? BM_EABORT : BM_OK;
}

int disk_pass(const struct config *c)
{
    struct engine_timing tm;

    disk_timing_for(c, &tm);
    return disk_pass_timed(c, &tm);
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

int disk_run_timed(const struct config *c, const struct plat_boot_location *boot, const struct engine_timing *tm)
{
    int rc = disk_open(c, boot);

    if (rc == BM_OK)
        rc = disk_pass_timed(c, tm);
    disk_close();
    return rc == BM_EABORT ? BM_EABORT : BM_OK;
}

int disk_run(const struct config *c, const struct plat_boot_location *boot)
{
    struct engine_timing tm;

    disk_timing_for(c, &tm);
    return disk_run_timed(c, boot, &tm);
}
