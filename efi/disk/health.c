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
static void human_line(char *buf, size_t len, const char *who, const char *when, const struct bm_health *h)
{
    size_t n = (size_t)snprintf(buf, len, "%s health %s:", who, when);

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

/* One health record: the disk's own, or (who not NULL) one member disk
 * of a RAID logical drive, named by the volume and the member.
 * recovered: the disk's commands completed with RECOVERED ERROR during
 * the run (its own record after the run). */
static void emit_record(const struct bm_disk *d, const char *when, const struct bm_member *who,
                        const struct bm_health *h, uint64_t recovered)
{
    static struct record r;
    char human[320], label[64];
    size_t n;

    record_begin(&r, "health");
    json_str(&r.j, "disk", d->id);
    if (who) {
        json_str(&r.j, "member", who->name);
        if (who->device_id >= 0)
            json_i64(&r.j, "member_device_id", who->device_id);
        if (who->serial[0])
            json_str(&r.j, "member_serial", who->serial);
    }
    json_str(&r.j, "when", when);
    json_str(&r.j, "source", h->source);
    opt_i64(&r.j, "temperature_c", h->temperature_c);
    opt_i64(&r.j, "critical_warning", h->critical_warning);
    opt_i64(&r.j, "percentage_used", h->percentage_used);
    opt_i64(&r.j, "media_errors", h->media_errors);
    opt_i64(&r.j, "power_on_hours", h->power_on_hours);
    opt_i64(&r.j, "power_cycles", h->power_cycles);
    opt_i64(&r.j, "unsafe_shutdowns", h->unsafe_shutdowns);
    opt_i64(&r.j, "data_read_bytes", h->data_read_bytes);
    opt_i64(&r.j, "data_written_bytes", h->data_written_bytes);
    opt_i64(&r.j, "link_errors", h->link_errors);
    if (h->smart_passed >= 0)
        json_bool(&r.j, "smart_passed", h->smart_passed == 1);
    if (h->nattrs) {
        json_arr_begin(&r.j, "attributes");
        for (unsigned i = 0; i < h->nattrs && i < ARRAY_SIZE(h->attrs); i++) {
            json_obj_begin(&r.j, NULL);
            json_u64(&r.j, "id", h->attrs[i].id);
            json_u64(&r.j, "value", h->attrs[i].value);
            json_u64(&r.j, "worst", h->attrs[i].worst);
            json_u64(&r.j, "threshold", h->attrs[i].threshold);
            json_u64(&r.j, "raw", h->attrs[i].raw);
            json_obj_end(&r.j);
        }
        json_arr_end(&r.j);
    }
    if (recovered)
        json_u64(&r.j, "recovered", recovered);
    if (who)
        snprintf(label, sizeof(label), "%s member %s", d->id, who->name);
    else
        snprintf(label, sizeof(label), "%s", d->id);
    human_line(human, sizeof(human), label, when, h);
    n = strlen(human);
    if (recovered && n < sizeof(human))
        snprintf(human + n, sizeof(human) - n, ", %llu command%s recovered by the drive during the run",
                 (unsigned long long)recovered, recovered == 1 ? "" : "s");
    record_emit(&r, human);
}

/* The member disks of a RAID logical drive, one record each; a member
 * that is not read gets a note and the others are still read. Returns
 * how many members were listed. */
static unsigned emit_members(struct bm_disk *d, const char *when)
{
    static struct bm_health h;
    struct bm_member who;
    unsigned i;
    int rc;

    for (i = 0; i < BM_MAX_MEMBERS; i++) {
        memset(&who, 0, sizeof(who));
        who.device_id = -1;
        bm_health_init(&h, "");
        rc = d->ops->member_health(d, i, &who, &h);
        if (rc == BM_ENODEV && !who.name[0])
            break;
        if (!who.name[0]) {
            record_note(d->id, "member disks' health %s the run not read: %s", when,
                        who.note[0] ? who.note : bm_strerror(rc));
            break;
        }
        if (rc != BM_OK) {
            record_note(d->id, "member %s (device id %d%s%s) health %s the run not read: %s", who.name,
                        (int)who.device_id, who.serial[0] ? ", serial " : "", who.serial, when,
                        who.note[0] ? who.note : bm_strerror(rc));
            continue;
        }
        emit_record(d, when, &who, &h, 0);
    }
    return i;
}

void disk_emit_health(struct bm_disk *d, const char *when)
{
    static struct bm_health h;
    unsigned members = 0;
    uint64_t recovered = !strcmp(when, "after") ? bm_disk_recovered(d) : 0;
    int rc;

    if ((!d->ops->health && !d->ops->member_health) || d->failed) {
        note_recovered(d, recovered);
        return;
    }
    rc = BM_ENOTSUP;
    if (d->ops->health) {
        bm_health_init(&h, "");
        rc = d->ops->health(d, &h);
    }
    if (rc == BM_OK)
        emit_record(d, when, NULL, &h, recovered);
    else {
        if (rc != BM_ENOTSUP)
            record_note(d->id, "health log %s the run not read: %s", when, bm_strerror(rc));
        note_recovered(d, recovered);
    }
    /* A RAID logical drive has no health log of its own; its member
     * disks do (read as smartctl -d megaraid,N reads them). */
    if (d->ops->member_health)
        members = emit_members(d, when);
    /* Nothing to read on this disk or path (a SCSI disk without LOG
     * SENSE, a volume whose members cannot be reached): said once, not
     * before and after. */
    if (rc == BM_ENOTSUP && !members && !strcmp(when, "before"))
        record_note(d->id, "no health log: the disk or its path has none to read");
}
