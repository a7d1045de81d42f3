/* The disk benchmark's records and screen table (see report.h). */
#include "report.h"
#include "../record.h"
#include "../../drivers/fwblk/fwblk.h"

/* ---- Records --------------------------------------------------------------------- */

/* The disk record (see report.h). */
void report_disk(const struct bm_disk *d, bool selected, const struct disk_write_decision *w)
{
    static struct record r;
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
    if (d->link_port_max_gbps > 0)
        json_num(&r.j, "link_port_max_gbps", d->link_port_max_gbps, 1);
    if (d->link_drive_max_gbps > 0)
        json_num(&r.j, "link_drive_max_gbps", d->link_drive_max_gbps, 1);
    json_u64(&r.j, "queues", d->nqueues);
    json_u64(&r.j, "max_qd", d->max_qd);
    json_u64(&r.j, "max_transfer_bytes", d->max_transfer_bytes);
    if (d->chunk_bytes)
        json_u64(&r.j, "chunk_bytes", d->chunk_bytes);
    if (d->opt_transfer_bytes)
        json_u64(&r.j, "opt_transfer_bytes", d->opt_transfer_bytes);
    if (d->align_lba)
        json_u64(&r.j, "align_lba", d->align_lba);
    if (d->pi_type)
        json_u64(&r.j, "pi_type", d->pi_type);
    if (d->wwn[0])
        json_str(&r.j, "wwn", d->wwn);
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
    json_bool(&r.j, "boot", w->facts.boot);
    json_bool(&r.j, "selected", selected);
    json_bool(&r.j, "writes", w->perm == WRITE_ALLOWED && selected);
    snprintf(human, sizeof(human), "disk %s: %s%s%s, %.1f GB, %u-byte blocks, %s path (%s)%s%s%s%s", d->id,
             d->model[0] ? d->model : "(no model)", d->serial[0] ? " serial " : " (no serial)", d->serial, gb,
             d->lba_bytes, d->path, d->driver, d->pci[0] ? " at " : "", d->pci, w->facts.boot ? ", boot disk" : "",
             !selected ? ", not selected" : w->perm == WRITE_ALLOWED ? ", WRITE tests allowed" : ", read-only");
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

/* Where a result ran: how many CPUs, and each one's busy share of the
 * measured window (a CPU may have driven other disks' queues too). */
static void cpu_fields(struct record *r, unsigned cpus, const double *busy_pct, unsigned listed)
{
    json_u64(&r->j, "cpus", cpus);
    json_arr_begin(&r->j, "cpu_busy_pct");
    for (unsigned i = 0; i < MIN(cpus, listed); i++)
        json_num(&r->j, NULL, busy_pct[i], 1);
    json_arr_end(&r->j);
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
int report_result(const struct disk_job *j, unsigned concurrent)
{
    static struct record r;
    char human[320], recovered[48] = "";
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
    if (j->cpus)
        cpu_fields(&r, j->cpus, j->cpu_busy_pct, ENGINE_JOB_CPUS);
    if (j->pieces > 1)
        json_u64(&r.j, "split", j->pieces);
    if (j->note[0])
        json_str(&r.j, "note", j->note);
    if (concurrent)
        json_u64(&r.j, "concurrent", concurrent);
    if (j->recovered) {
        json_u64(&r.j, "recovered", j->recovered);
        snprintf(recovered, sizeof(recovered), ", %llu recovered by the drive", (unsigned long long)j->recovered);
    }
    snprintf(human, sizeof(human), "%s %-13s %-9s %9.1f MB/s %9.0f IOPS  lat p50 %.0f us p99 %.0f us%s%s%s%s",
             j->disk->id, j->test.name, engine_rw_name(&j->test), mbps, iops,
             (double)hist_percentile(j->hist, 50) / 1e3, (double)hist_percentile(j->hist, 99) / 1e3,
             concurrent ? " (with the other disks)" : "", recovered, j->note[0] ? " - " : "", j->note);
    record_emit(&r, human);
    return BM_OK;
}

/* The disk "all" record of an all-disks test: the sum over the disks that finished. */
void report_all_disks(const struct disk_job *jobs, unsigned n, const struct engine_run_stats *st,
                      const struct link_summary *link)
{
    static struct record r;
    static struct histogram h;
    char human[400];
    uint64_t ios = 0, recovered = 0;
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
        recovered += j->recovered;
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
    if (recovered)
        json_u64(&r.j, "recovered", recovered);
    json_num(&r.j, "core_busy_pct", st->core_busy_pct, 1);
    cpu_fields(&r, st->cpus, st->cpu_busy_pct, ENGINE_MAX_CPUS);
    if (link->known) {
        json_obj_begin(&r.j, "link");
        json_str(&r.j, "hop", link->hop);
        json_str(&r.j, "width_speed", link->link);
        json_u64(&r.j, "disks_behind", link->disks_behind);
        json_num(&r.j, "ceiling_mbps", link->ceiling_mbps, 0);
        json_num(&r.j, "used_pct", link->ceiling_mbps > 0 ? 100.0 * mbps / link->ceiling_mbps : 0, 1);
        if (link->chipset_uplink) {
            json_bool(&r.j, "chipset_uplink", true);
            json_str(&r.j, "text", link->text);
        }
        json_bool(&r.j, "emulated", link->emulated);
        json_obj_end(&r.j);
    }
    snprintf(human, sizeof(human),
             "all %-13s %-9s %9.1f MB/s %9.0f IOPS  lat p99 %.0f us  (%u disk%s, %u CPU%s, busiest %.0f%% busy)",
             first->test.name, engine_rw_name(&first->test), mbps, iops, (double)hist_percentile(&h, 99) / 1e3, ok,
             ok == 1 ? "" : "s", st->cpus, st->cpus == 1 ? "" : "s", st->core_busy_pct);
    record_emit(&r, human);
    if (link->known)
        ui_text("  %s: %.2f of %.2f GB/s", link->text, mbps / 1e3, link->ceiling_mbps / 1e3);
    /* A polling CPU that is nearly always busy, not the disks, may be
     * what stops the aggregate from growing. */
    if (st->core_busy_pct > 90)
        ui_text("  the busiest polling CPU was %.0f%% busy: the CPUs may be the limit here", st->core_busy_pct);
}

/* Error records for writes refused by a safety rule. */
void report_write_refused(const struct bm_disk *d, const struct disk_write_decision *w)
{
    if (w->perm == WRITE_REFUSED)
        record_error(d->id, "write=%s refused: %s (%s); the disk is only read", d->serial, w->refusal, d->model);
}

/* Notes for what the options name and no disk has. */
void report_unmatched_options(const struct config *c, struct bm_disk *const *disks, unsigned n, unsigned selected)
{
    /* A serial in write= that matches no disk is worth knowing: a typo
     * would otherwise look like a read-only run by choice. */
    for (unsigned k = 0; k < c->write.count; k++) {
        bool found = false;
        for (unsigned i = 0; i < n && !found; i++)
            found = !strcmp(disks[i]->serial, c->write.items[k]);
        if (!found)
            record_note("disk", "write=%s: no disk has this serial; nothing is written to it", c->write.items[k]);
    }
    for (unsigned k = 0; k < c->disks.count; k++) {
        bool found = false;
        for (unsigned i = 0; i < n && !found; i++)
            found = !strcmp(disks[i]->id, c->disks.items[k]) || !strcmp(disks[i]->serial, c->disks.items[k]);
        if (!found)
            record_note("disk", "disks=%s: no disk has this id or serial", c->disks.items[k]);
    }
    if (!n)
        record_note("disk", "no disks found (driver=%s)",
                    c->driver == DRIVER_AUTO ? "auto" : c->driver == DRIVER_NATIVE ? "native" : "firmware");
    else if (!selected)
        record_note("disk", "disks= selects none of the %u disks found", n);
}

/* A disk that failed: say so (the caller skips it from now on). */
void report_disk_failed(const struct bm_disk *d, const struct disk_job *j)
{
    record_error(d->id, "%s %s (%s%s%s%s) failed: %s; the disk is skipped for the rest of the run", j->test.name,
                 engine_rw_name(&j->test), d->model, d->serial[0] ? ", serial " : "", d->serial,
                 !strcmp(j->disk->path, BM_PATH_FIRMWARE) ? ", firmware path" : "", j->detail);
}

/* The scan record and its unreadable ranges (see report.h). */
void report_scan(const struct bm_disk *d, const struct scan_result *s, double seq1m_mbps)
{
    static struct record r;
    char human[320];
    double lo = 0, hi = 0;
    bool stopped = s->status != BM_OK, bad = s->bad_blocks > 0;

    for (unsigned i = 0; i < s->npoints; i++) {
        if (i == 0 || s->curve_mbps[i] < lo)
            lo = s->curve_mbps[i];
        if (s->curve_mbps[i] > hi)
            hi = s->curve_mbps[i];
    }
    record_begin(&r, "scan");
    json_str(&r.j, "disk", d->id);
    json_str(&r.j, "result", stopped ? "stopped" : bad ? "unreadable" : "pass");
    json_u64(&r.j, "first_lba", s->first_lba);
    json_u64(&r.j, "blocks", s->blocks);
    json_u64(&r.j, "lba_bytes", d->lba_bytes);
    json_u64(&r.j, "scanned_blocks", s->scanned_blocks);
    json_u64(&r.j, "chunk_bytes", s->chunk_bytes);
    json_u64(&r.j, "qd", SCAN_QD);
    json_u64(&r.j, "bytes", s->read_bytes);
    json_num(&r.j, "seconds", s->seconds, 3);
    json_num(&r.j, "mbps", s->mbps, 1);
    if (seq1m_mbps > 0) {
        json_num(&r.j, "seq1m_mbps", seq1m_mbps, 1);
        json_num(&r.j, "vs_seq1m_pct", 100.0 * s->mbps / seq1m_mbps, 1);
    }
    json_num(&r.j, "min_mbps", lo, 1);
    json_num(&r.j, "max_mbps", hi, 1);
    json_u64(&r.j, "point_blocks", s->point_blocks);
    json_arr_begin(&r.j, "curve_mbps");
    for (unsigned i = 0; i < s->npoints; i++)
        json_num(&r.j, NULL, s->curve_mbps[i], 1);
    json_arr_end(&r.j);
    /* Per part the slowest bucket of its reads, as an index into "buckets"
     * (0 lt5ms .. 5 slower, 6 error; -1: no read ended there). */
    json_arr_begin(&r.j, "curve_worst");
    for (unsigned i = 0; i < s->npoints; i++)
        json_i64(&r.j, NULL, s->part_worst[i]);
    json_arr_end(&r.j);
    json_obj_begin(&r.j, "buckets");
    for (unsigned b = 0; b < SCAN_NBUCKETS; b++)
        json_u64(&r.j, scan_bucket_names[b], s->buckets[b]);
    json_u64(&r.j, "error", s->errors);
    json_obj_end(&r.j);
    json_u64(&r.j, "rereads", s->rereads);
    json_u64(&r.j, "reread_errors", s->reread_errors);
    json_u64(&r.j, "bad_ranges", s->nbad + s->bad_unlisted);
    json_u64(&r.j, "bad_ranges_unlisted", s->bad_unlisted);
    json_u64(&r.j, "bad_blocks", s->bad_blocks);
    if (stopped)
        json_str(&r.j, "error", s->detail);
    snprintf(human, sizeof(human), "%s surface scan %s: %.1f MB/s (%.1f-%.1f) over %llu MB, %llu unreadable block%s%s%s",
             d->id, stopped ? "STOPPED" : bad ? "found unreadable blocks" : "passed", s->mbps, lo, hi,
             (unsigned long long)(s->scanned_blocks * d->lba_bytes / 1000000), (unsigned long long)s->bad_blocks,
             s->bad_blocks == 1 ? "" : "s", stopped ? " - " : "", stopped ? s->detail : "");
    record_emit(&r, human);

    for (unsigned i = 0; i < s->nbad; i++) {
        const struct scan_bad_range *b = &s->bad[i];
        record_begin(&r, "scan_bad_range");
        json_str(&r.j, "disk", d->id);
        json_u64(&r.j, "first_lba", b->first_lba);
        json_u64(&r.j, "count", b->count);
        json_u64(&r.j, "last_lba", b->first_lba + b->count - 1);
        json_str(&r.j, "error", b->error);
        snprintf(human, sizeof(human), "%s unreadable: LBA %llu-%llu (%llu block%s): %s", d->id,
                 (unsigned long long)b->first_lba, (unsigned long long)(b->first_lba + b->count - 1),
                 (unsigned long long)b->count, b->count == 1 ? "" : "s", b->error);
        record_emit(&r, human);
    }
    if (bad)
        record_error(d->id, "surface scan: %llu unreadable block%s in %u range%s from LBA %llu",
                     (unsigned long long)s->bad_blocks, s->bad_blocks == 1 ? "" : "s", s->nbad + s->bad_unlisted,
                     s->nbad + s->bad_unlisted == 1 ? "" : "s",
                     (unsigned long long)(s->nbad ? s->bad[0].first_lba : s->first_lba));
    if (stopped)
        record_error(d->id, "surface scan stopped after %llu of %llu blocks: %s",
                     (unsigned long long)s->scanned_blocks, (unsigned long long)s->blocks, s->detail);
}

/* ---- The screen table --------------------------------------------------------------- */

/* A finished job into its row: reads and writes of one test share a row. */
void table_add(struct disk_table *t, const struct disk_job *j)
{
    struct disk_table_row *row = NULL;
    int w = j->test.op == BM_IO_WRITE;

    for (unsigned i = 0; i < t->nrows; i++)
        if (!strcmp(t->rows[i].test, j->test.name))
            row = &t->rows[i];
    if (!row) {
        if (t->nrows >= DISK_MAX_TESTS)
            return;
        row = &t->rows[t->nrows++];
        memset(row, 0, sizeof(*row));
        bm_strlcpy(row->test, j->test.name, sizeof(row->test));
    }
    row->have[w] = true;
    row->mbps[w] = j->seconds > 0 ? (double)j->bytes / j->seconds / 1e6 : 0;
    row->iops[w] = j->seconds > 0 ? (double)j->ios / j->seconds : 0;
    row->p99_us[w] = (double)hist_percentile(j->hist, 99) / 1e3;
}

/* One read or write cell of the screen table. */
static void table_cell(char *buf, size_t len, const struct disk_table_row *row, int w)
{
    if (!row->have[w])
        snprintf(buf, len, "%28s", "-");
    else
        snprintf(buf, len, "%9.1f %9.0f %8.0f", row->mbps[w], row->iops[w], row->p99_us[w]);
}

/* The screen table of one disk, once its tests are done. */
void table_print(const struct disk_table *t, const struct bm_disk *d)
{
    char r[40], w[40];

    if (!t->nrows)
        return;
    ui_text("%s", "");
    ui_text("%s  %s  %s", d->id, d->model, d->serial);
    ui_text("%-13s %28s   %28s", "", "read: MB/s      IOPS  p99 us", "write: MB/s     IOPS  p99 us");
    for (unsigned i = 0; i < t->nrows; i++) {
        table_cell(r, sizeof(r), &t->rows[i], 0);
        table_cell(w, sizeof(w), &t->rows[i], 1);
        ui_text("%-13s %s   %s", t->rows[i].test, r, w);
    }
    ui_text("%s", "");
}

/* ---- verify= ------------------------------------------------------------------------ */

/* The verify record, then an error record naming the first bad LBA. */
void report_verify(const struct bm_disk *d, const struct verify_result *v)
{
    static struct record r;
    char human[256];
    bool ok = v->status == BM_OK && v->bad_blocks == 0;

    record_begin(&r, "verify");
    json_str(&r.j, "disk", d->id);
    json_str(&r.j, "result", ok ? "pass" : "fail");
    json_u64(&r.j, "first_lba", v->first_lba);
    json_u64(&r.j, "blocks", v->blocks);
    json_u64(&r.j, "bytes", v->blocks * d->lba_bytes);
    json_u64(&r.j, "bad_blocks", v->bad_blocks);
    json_arr_begin(&r.j, "bad_lba");
    for (unsigned i = 0; i < v->nbad_listed; i++)
        json_u64(&r.j, NULL, v->bad_lba[i]);
    json_arr_end(&r.j);
    if (v->status != BM_OK)
        json_str(&r.j, "error", v->detail);
    json_num(&r.j, "seconds", v->seconds, 3);
    snprintf(human, sizeof(human), "%s verify %s: %llu MB at LBA %llu, %llu bad block%s%s%s", d->id,
             ok ? "passed" : "FAILED", (unsigned long long)(v->blocks * d->lba_bytes / 1000000),
             (unsigned long long)v->first_lba, (unsigned long long)v->bad_blocks, v->bad_blocks == 1 ? "" : "s",
             v->status != BM_OK ? " - " : "", v->status != BM_OK ? v->detail : "");
    record_emit(&r, human);
    if (!ok)
        record_error(d->id, "verify failed: %llu bad block%s from LBA %llu%s%s", (unsigned long long)v->bad_blocks,
                     v->bad_blocks == 1 ? "" : "s",
                     (unsigned long long)(v->nbad_listed ? v->bad_lba[0] : v->first_lba),
                     v->status != BM_OK ? "; " : "", v->status != BM_OK ? v->detail : "");
}
