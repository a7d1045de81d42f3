/* The health record: what the drive says about itself. */
#include "health.h"
#include "../record.h"

/* A field the drive does not report stays out of the record. */
static void opt_i64(struct json *j, const char *key, int64_t v)
{
    if (v >= 0)
        json_i64(j, key, v);
}

/* The screen line: only what the drive reported. */
static void human_line(char *buf, size_t len, const struct bm_disk *d, const char *when, const struct bm_health *h)
{
    size_t n = (size_t)snprintf(buf, len, "%s health %s:", d->id, when);

    if (h->critical_warning > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " CRITICAL WARNING 0x%02x,", h->critical_warning);
    if (h->smart_passed == 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " SMART FAILING,");
    if (h->temperature_c >= 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %d C,", h->temperature_c);
    if (h->media_errors >= 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %lld media errors,", (long long)h->media_errors);
    if (h->percentage_used >= 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %d%% used,", h->percentage_used);
    if (h->power_on_hours >= 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %lld power-on hours,", (long long)h->power_on_hours);
    if (h->link_errors > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %lld link errors,", (long long)h->link_errors);
    if (h->nattrs && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %u SMART attributes,", h->nattrs);
    if (n > 0 && n < len && buf[n - 1] == ',')
        buf[n - 1] = '\0';
}

/* A disk with no health record after the run still says how many of its
 * commands the drive completed after correcting an error. */
static void note_recovered(const struct bm_disk *d, uint64_t recovered)
{
    if (recovered)
        record_note(d->id, "%llu command%s completed after the drive corrected an error (recovered, counted as done)",
                    (unsigned long long)recovered, recovered == 1 ? "" : "s");
}

void disk_emit_health(struct bm_disk *d, const char *when)
{
    static struct record r;
    static struct bm_health h;
    char human[320];
    bool after = !strcmp(when, "after");
    uint64_t recovered = after ? bm_disk_recovered(d) : 0;
    size_t n;
    int rc;

    if (!d->ops->health || d->failed) {
        note_recovered(d, recovered);
        return;
    }
    bm_health_init(&h, "");
    rc = d->ops->health(d, &h);
    if (rc == BM_ENOTSUP) {
        /* Nothing to read on this disk or path (a RAID logical drive, a
         * SCSI disk without LOG SENSE): said once, not before and after. */
        if (!strcmp(when, "before"))
            record_note(d->id, "no health log: the disk or its path has none to read");
        note_recovered(d, recovered);
        return;
    }
    if (rc != BM_OK) {
        record_note(d->id, "health log %s the run not read: %s", when, bm_strerror(rc));
        note_recovered(d, recovered);
        return;
    }
    record_begin(&r, "health");
    json_str(&r.j, "disk", d->id);
    json_str(&r.j, "when", when);
    json_str(&r.j, "source", h.source);
    opt_i64(&r.j, "temperature_c", h.temperature_c);
    opt_i64(&r.j, "critical_warning", h.critical_warning);
    opt_i64(&r.j, "percentage_used", h.percentage_used);
    opt_i64(&r.j, "media_errors", h.media_errors);
    opt_i64(&r.j, "power_on_hours", h.power_on_hours);
    opt_i64(&r.j, "power_cycles", h.power_cycles);
    opt_i64(&r.j, "unsafe_shutdowns", h.unsafe_shutdowns);
    opt_i64(&r.j, "data_read_bytes", h.data_read_bytes);
    opt_i64(&r.j, "data_written_bytes", h.data_written_bytes);
    opt_i64(&r.j, "link_errors", h.link_errors);
    if (h.smart_passed >= 0)
        json_bool(&r.j, "smart_passed", h.smart_passed == 1);
    if (h.nattrs) {
        json_arr_begin(&r.j, "attributes");
        for (unsigned i = 0; i < h.nattrs && i < ARRAY_SIZE(h.attrs); i++) {
            json_obj_begin(&r.j, NULL);
            json_u64(&r.j, "id", h.attrs[i].id);
            json_u64(&r.j, "value", h.attrs[i].value);
            json_u64(&r.j, "worst", h.attrs[i].worst);
            json_u64(&r.j, "threshold", h.attrs[i].threshold);
            json_u64(&r.j, "raw", h.attrs[i].raw);
            json_obj_end(&r.j);
        }
        json_arr_end(&r.j);
    }
    if (recovered)
        json_u64(&r.j, "recovered", recovered);
    human_line(human, sizeof(human), d, when, &h);
    n = strlen(human);
    if (recovered && n < sizeof(human))
        snprintf(human + n, sizeof(human) - n, ", %llu command%s recovered by the drive during the run",
                 (unsigned long long)recovered, recovered == 1 ? "" : "s");
    record_emit(&r, human);
}
