/* Records -> the report's bounded aggregates (html_data.h). */
#include "html_data.h"
#include "jscan.h"

const char *const hd_patterns[3] = { "stride", "page_random", "full_random" };

void html_data_init(struct html_data *d)
{
    memset(d, 0, sizeof(*d));
    for (unsigned i = 0; i < HD_MAX_NUMA; i++)
        for (unsigned k = 0; k < HD_MAX_NUMA; k++)
            d->numa_lat[i][k] = d->numa_bw[i][k] = -1;
}

unsigned html_data_pass_of(const char *json)
{
    return bm_double_to_u32(js_get_num(json, "pass", 0));
}

/* The next free entry of a capped table (zeroed), or NULL with the drop
 * counted when the table is full. */
static void *take(void *base, size_t size, unsigned *n, unsigned cap, unsigned *dropped)
{
    char *slot;

    if (*n >= cap) {
        (*dropped)++;
        return NULL;
    }
    slot = (char *)base + size * (*n)++;
    memset(slot, 0, size);
    return slot;
}

#define TAKE(d, tab, n, cap, dropped) take((d)->tab, sizeof((d)->tab[0]), &(d)->n, cap, &(d)->dropped)

#define STR(obj, key, field) js_get_str(obj, key, field, sizeof(field))
#define NUM(obj, key) js_get_num(obj, key, 0)

static void on_run(struct html_data *d, const char *j)
{
    STR(j, "version", d->version);
    STR(j, "time", d->time);
    STR(j, "args", d->args);
}

/* Burn-in statistics: one {subject, test, unit, n, min, median, max, cv}
 * per figure. */
static void on_end(struct html_data *d, const char *j)
{
    d->ended = true;
    STR(j, "status", d->status);
    STR(j, "note", d->end_note);
    STR(j, "verdict", d->verdict);
    d->seconds = NUM(j, "seconds");
    d->errors = NUM(j, "errors");
    d->passes = NUM(j, "passes");
    d->failed_limits = NUM(j, "failed_limits");
    for (const char *e = js_first(js_get(j, "tests")); e; e = js_next(e)) {
        struct hd_stat *s = TAKE(d, stats, nstats, HD_MAX_STATS, dropped_stats);
        if (!s)
            continue;
        STR(e, "subject", s->subject);
        STR(e, "test", s->test);
        STR(e, "unit", s->unit);
        s->n = NUM(e, "n");
        s->min = NUM(e, "min");
        s->median = NUM(e, "median");
        s->max = NUM(e, "max");
        s->cv = NUM(e, "cv");
    }
}

static void on_system(struct html_data *d, const char *j)
{
    char vendor[40], version[32], date[16];

    d->has_system = true;
    STR(j, "manufacturer", d->manufacturer);
    STR(j, "product", d->product);
    STR(j, "serial", d->serial);
    STR(j, "cpu", d->cpu);
    STR(j, "firmware", d->firmware);
    STR(j, "bios_vendor", vendor);
    STR(j, "bios_version", version);
    STR(j, "bios_date", date);
    snprintf(d->bios, sizeof(d->bios), "%s %s %s", vendor, version, date);
    d->cpus = NUM(j, "cpus");
    d->sockets = NUM(j, "sockets");
    d->cores = NUM(j, "cores");
    d->l1d = NUM(j, "l1d_bytes");
    d->l2 = NUM(j, "l2_bytes");
    d->l3 = NUM(j, "l3_bytes");
}

static void on_dimm(struct html_data *d, const char *j)
{
    struct hd_dimm *m = TAKE(d, dimms, ndimms, HD_MAX_DIMMS, dropped_dimms);

    if (!m)
        return;
    STR(j, "locator", m->locator);
    STR(j, "bank", m->bank);
    STR(j, "mem_type", m->mem_type);
    STR(j, "manufacturer", m->manufacturer);
    STR(j, "part", m->part);
    m->size_mb = js_get_num(j, "size_mb", -1);
    m->speed_mts = NUM(j, "speed_mts");
    m->configured_mts = NUM(j, "configured_mts");
}

/* An spd record onto its slot's row (by locator), or a row of its own. */
static void on_spd(struct html_data *d, const char *j)
{
    char locator[40] = "", module_type[16], addr[16];
    struct hd_dimm *m = NULL;

    STR(j, "locator", locator);
    for (unsigned i = 0; locator[0] && i < d->ndimms && !m; i++)
        if (!strcmp(d->dimms[i].locator, locator) && !d->dimms[i].has_spd)
            m = &d->dimms[i];
    if (!m) {
        m = TAKE(d, dimms, ndimms, HD_MAX_DIMMS, dropped_dimms);
        if (!m)
            return;
        STR(j, "address", addr);
        snprintf(m->locator, sizeof(m->locator), "SPD %s", addr);
        m->no_slot = true;
        m->size_mb = NUM(j, "size_mb");
        STR(j, "mem_type", m->mem_type);
    }
    m->has_spd = true;
    STR(j, "mem_type", m->spd_type);
    STR(j, "module_type", module_type);
    if (!strcmp(module_type, "FB-DIMM") || !m->spd_type[0])
        bm_strlcpy(m->spd_type, module_type, sizeof(m->spd_type));
    else if (module_type[0])
        snprintf(m->spd_type + strlen(m->spd_type), sizeof(m->spd_type) - strlen(m->spd_type), " %s", module_type);
    STR(j, "part", m->spd_part);
    STR(j, "smbios_disagrees", m->spd_differs);
    STR(j, "amb_vendor", m->amb_vendor);
    m->spd_mts = NUM(j, "speed_mts");
    m->cl = NUM(j, "cl");
    m->trcd = NUM(j, "trcd");
    m->trp = NUM(j, "trp");
    m->spd_ranks = NUM(j, "ranks");
}

/* A region again (a later burn-in pass) replaces the earlier one. */
static void on_mem_region(struct html_data *d, const char *j)
{
    double idx = NUM(j, "index");
    struct hd_region *r = NULL;

    for (unsigned i = 0; i < d->nregions && !r; i++)
        if (d->regions[i].index == idx)
            r = &d->regions[i];
    if (!r && !(r = TAKE(d, regions, nregions, HD_MAX_REGIONS, dropped_regions)))
        return;
    memset(r, 0, sizeof(*r));
    r->index = idx;
    r->base = NUM(j, "base");
    r->bytes = NUM(j, "bytes");
    r->node = js_get_num(j, "node", -1);
    r->gbps = js_get_num(j, "read_gbps", -1);
    r->measured = r->gbps >= 0;
    r->latency_ns = NUM(j, "latency_ns");
    r->slow = js_true(js_get(j, "slow"));
    STR(j, "reason", r->reason);
}

static void on_mem_map_summary(struct html_data *d, const char *j)
{
    d->has_map_summary = true;
    STR(j, "verdict", d->map_verdict);
    d->map_seconds = NUM(j, "seconds");
    d->map_seconds_per_gib = NUM(j, "seconds_per_gib");
    for (const char *e = js_first(js_get(j, "slow_regions")); e; e = js_next(e)) {
        double idx;
        for (unsigned i = 0; js_num(e, &idx) && i < d->nregions; i++)
            if (d->regions[i].index == idx)
                d->regions[i].slow = true;
    }
}

static void on_dimm_summary(struct html_data *d, const char *j)
{
    d->has_dimm_summary = true;
    d->populated = NUM(j, "populated");
    d->slots = NUM(j, "slots");
    d->total_mb = NUM(j, "total_mb");
    d->nwarn = 0;
    for (const char *e = js_first(js_get(j, "warnings")); e && d->nwarn < HD_MAX_WARN; e = js_next(e))
        js_str(e, d->warnings[d->nwarn++], HD_STR);
}

static void on_pci(struct html_data *d, const char *j)
{
    struct hd_pci *p = TAKE(d, pci, npci, HD_MAX_PCI, dropped_pci);
    const char *link = js_get(j, "link");
    size_t len = 0;

    if (!p)
        return;
    STR(j, "bdf", p->bdf);
    STR(j, "vendor", p->vendor);
    STR(j, "device", p->device);
    STR(j, "kind", p->kind);
    STR(j, "port_type", p->port_type);
    p->ceiling_mbps = NUM(j, "path_ceiling_mbps");
    p->has_link = link && *link == '{';
    if (p->has_link) {
        p->speed_gts = NUM(link, "speed_gts");
        p->width = NUM(link, "width");
        p->max_speed_gts = NUM(link, "max_speed_gts");
        p->max_width = NUM(link, "max_width");
        p->mbps = NUM(link, "mbps");
        p->downtrained = js_true(js_get(link, "downtrained"));
    }
    for (const char *e = js_first(js_get(j, "path")); e; e = js_next(e)) {
        char hop[24];
        js_str(e, hop, sizeof(hop));
        if (len + strlen(hop) + 4 >= sizeof(p->path))
            break;
        len += (size_t)snprintf(p->path + len, sizeof(p->path) - len, "%s%s", len ? " > " : "", hop);
    }
}

static void on_message(struct html_data *d, const char *type, const char *j)
{
    struct hd_msg *m;

    if (type[0] == 'e')
        d->nerror_records++;
    m = TAKE(d, msgs, nmsgs, HD_MAX_MSGS, dropped_msgs);
    if (!m)
        return;
    bm_strlcpy(m->type, type, sizeof(m->type));
    STR(j, "where", m->where);
    STR(j, "message", m->message);
    m->pass = html_data_pass_of(j);
}

static struct hd_disk *find_disk(struct html_data *d, const char *id)
{
    for (unsigned i = 0; i < d->ndisks; i++)
        if (strcmp(d->disks[i].id, id) == 0)
            return &d->disks[i];
    return NULL;
}

static void on_disk(struct html_data *d, const char *j)
{
    char id[24];
    struct hd_disk *k;

    STR(j, "id", id);
    if (find_disk(d, id))
        return;
    k = TAKE(d, disks, ndisks, HD_MAX_DISKS, dropped_disks);
    if (!k)
        return;
    bm_strlcpy(k->id, id, sizeof(k->id));
    STR(j, "model", k->model);
    STR(j, "serial", k->serial);
    STR(j, "driver", k->driver);
    STR(j, "pci", k->pci);
    k->bytes = NUM(j, "bytes");
}

static void read_result(struct hd_result *r, const char *j)
{
    const char *link = js_get(j, "link");

    memset(r, 0, sizeof(*r));
    STR(j, "test", r->test);
    STR(j, "rw", r->rw);
    r->bs = NUM(j, "bs");
    r->qd = NUM(j, "qd");
    r->threads = NUM(j, "threads");
    r->mbps = NUM(j, "mbps");
    r->iops = NUM(j, "iops");
    r->mean_us = NUM(j, "lat_us.mean");
    r->p50_us = NUM(j, "lat_us.p50");
    r->p99_us = NUM(j, "lat_us.p99");
    r->p999_us = NUM(j, "lat_us.p999");
    r->max_us = NUM(j, "lat_us.max");
    r->concurrent = NUM(j, "concurrent");
    if (link && *link == '{') {
        char ws[16], hop[20];
        r->ceiling_mbps = NUM(link, "ceiling_mbps");
        STR(link, "width_speed", ws);
        STR(link, "hop", hop);
        snprintf(r->link, sizeof(r->link), "%s link at %s", ws, hop);
    }
}

/* A result replaces the one of the same test and direction (a later pass). */
static struct hd_result *result_slot(struct hd_result *tab, unsigned *n, unsigned cap, unsigned *dropped,
                                     const char *j)
{
    char test[32], rw[12];

    STR(j, "test", test);
    STR(j, "rw", rw);
    for (unsigned i = 0; i < *n; i++)
        if (strcmp(tab[i].test, test) == 0 && strcmp(tab[i].rw, rw) == 0)
            return &tab[i];
    return take(tab, sizeof(*tab), n, cap, dropped);
}

static void on_disk_result(struct html_data *d, const char *j)
{
    char id[24];
    struct hd_disk *k;
    struct hd_result *r;

    STR(j, "disk", id);
    if (strcmp(id, "all") == 0) {
        r = result_slot(d->all, &d->nall, HD_MAX_ALL, &d->dropped_all, j);
    } else {
        k = find_disk(d, id);
        if (!k) {
            d->dropped_disks += d->ndisks >= HD_MAX_DISKS;
            return;
        }
        r = result_slot(k->tests, &k->ntests, HD_MAX_TESTS, &k->dropped_tests, j);
    }
    if (r)
        read_result(r, j);
}

/* A point replaces the one at the same x (a later pass). */
static void put_point(struct hd_point *tab, unsigned *n, unsigned cap, unsigned *dropped, double x, double y)
{
    for (unsigned i = 0; i < *n; i++) {
        if (tab[i].x == x) {
            tab[i].y = y;
            return;
        }
    }
    if (*n >= cap) {
        (*dropped)++;
        return;
    }
    tab[*n].x = x;
    tab[*n].y = y;
    (*n)++;
}

static void on_mem_latency(struct html_data *d, const char *j)
{
    char pattern[16];

    STR(j, "pattern", pattern);
    for (unsigned p = 0; p < 3; p++)
        if (strcmp(pattern, hd_patterns[p]) == 0)
            put_point(d->lat[p], &d->nlat[p], HD_MAX_LAT, &d->dropped_lat, NUM(j, "bytes"), NUM(j, "ns"));
}

static void on_mem_bandwidth(struct html_data *d, const char *j)
{
    char op[8];
    double threads = NUM(j, "threads");
    struct hd_bw *b = NULL;

    STR(j, "op", op);
    for (unsigned i = 0; i < d->nbw && !b; i++)
        if (strcmp(d->bw[i].op, op) == 0 && d->bw[i].threads == threads)
            b = &d->bw[i];
    if (!b) {
        b = TAKE(d, bw, nbw, HD_MAX_BW, dropped_bw);
        if (!b)
            return;
        bm_strlcpy(b->op, op, sizeof(b->op));
        b->threads = threads;
    }
    b->gbps = NUM(j, "gbps");
}

static void on_mem_numa(struct html_data *d, const char *j)
{
    double from = NUM(j, "from_node"), to = NUM(j, "to_node");

    if (!(from >= 0 && to >= 0 && from < HD_MAX_NUMA && to < HD_MAX_NUMA)) { /* NaN too: cast below */
        d->dropped_numa++;
        return;
    }
    d->numa_lat[(int)from][(int)to] = NUM(j, "latency_ns");
    d->numa_bw[(int)from][(int)to] = NUM(j, "read_gbps");
    if ((unsigned)from + 1 > d->numa_nodes)
        d->numa_nodes = (unsigned)from + 1;
    if ((unsigned)to + 1 > d->numa_nodes)
        d->numa_nodes = (unsigned)to + 1;
}

static void on_verdict(struct html_data *d, const char *j)
{
    struct hd_verdict *v = TAKE(d, verdicts, nverdicts, HD_MAX_VERDICTS, dropped_verdicts);

    if (!v)
        return;
    STR(j, "disk", v->disk);
    STR(j, "test", v->test);
    STR(j, "result", v->result);
    v->passes = NUM(j, "passes");
    v->failures = NUM(j, "failures");
}

/* A finding: its sentence, subjects and numbers as text for the block. */
static void on_finding(struct html_data *d, const char *j)
{
    struct hd_finding *f = TAKE(d, findings, nfindings, HD_MAX_FINDINGS, dropped_findings);
    const char *nums;
    size_t n = 0;

    if (!f)
        return;
    STR(j, "finding", f->type);
    STR(j, "severity", f->severity);
    STR(j, "text", f->text);
    for (const char *e = js_first(js_get(j, "subjects")); e && n < sizeof(f->subjects); e = js_next(e)) {
        char s[48];
        js_str(e, s, sizeof(s));
        n += (size_t)snprintf(f->subjects + n, sizeof(f->subjects) - n, "%s%s", n ? ", " : "", s);
    }
    /* The numbers object: "name value" pairs as written. */
    nums = js_get(j, "numbers");
    n = 0;
    if (nums && *nums == '{') {
        const char *p = nums + 1;
        while (*p && *p != '}' && n < sizeof(f->numbers)) {
            char key[32];
            double v;
            const char *val;
            while (*p == ' ' || *p == ',')
                p++;
            if (*p != '"' || !js_str(p, key, sizeof(key)))
                break;
            val = js_skip(p);
            if (!val || *val != ':')
                break;
            val++;
            if (js_num(val, &v))
                n += (size_t)snprintf(f->numbers + n, sizeof(f->numbers) - n, "%s%s %g", n ? ", " : "", key, v);
            p = js_skip(val);
            if (!p)
                break;
        }
    }
}

/* A disk's scan (a later burn-in pass's replaces it, its ranges too). */
static const char *const scan_bucket_keys[7] = { "lt5ms", "lt20ms", "lt50ms", "lt150ms", "lt500ms", "slower", "error" };

static struct hd_scan *scan_of(struct html_data *d, const char *disk)
{
    for (unsigned i = 0; i < d->nscans; i++)
        if (!strcmp(d->scans[i].disk, disk))
            return &d->scans[i];
    return NULL;
}

static void on_scan(struct html_data *d, const char *j)
{
    char disk[24];
    const char *curve, *buckets = js_get(j, "buckets");
    struct hd_scan *s;

    STR(j, "disk", disk);
    if (!(s = scan_of(d, disk)) && !(s = TAKE(d, scans, nscans, HD_MAX_SCANS, dropped_scans)))
        return;
    memset(s, 0, sizeof(*s));
    bm_strlcpy(s->disk, disk, sizeof(s->disk));
    STR(j, "result", s->result);
    STR(j, "error", s->error);
    s->first_lba = NUM(j, "first_lba");
    s->blocks = NUM(j, "blocks");
    s->lba_bytes = NUM(j, "lba_bytes");
    s->scanned_blocks = NUM(j, "scanned_blocks");
    s->point_blocks = NUM(j, "point_blocks");
    s->mbps = NUM(j, "mbps");
    s->min_mbps = NUM(j, "min_mbps");
    s->max_mbps = NUM(j, "max_mbps");
    s->seq1m_mbps = NUM(j, "seq1m_mbps");
    s->seconds = NUM(j, "seconds");
    s->bytes = NUM(j, "bytes");
    s->rereads = NUM(j, "rereads");
    s->bad_blocks = NUM(j, "bad_blocks");
    s->bad_ranges = NUM(j, "bad_ranges");
    for (unsigned b = 0; b < 7 && buckets; b++)
        s->buckets[b] = NUM(buckets, scan_bucket_keys[b]);
    curve = js_get(j, "curve_mbps");
    for (const char *e = curve ? js_first(curve) : NULL; e && s->npoints < HD_MAX_SCAN_POINTS; e = js_next(e))
        if (!js_num(e, &s->curve_mbps[s->npoints++]))
            s->curve_mbps[s->npoints - 1] = 0;
    curve = js_get(j, "curve_worst");
    for (const char *e = curve ? js_first(curve) : NULL; e && s->nworst < HD_MAX_SCAN_POINTS; e = js_next(e)) {
        double w;
        s->worst[s->nworst++] = js_num(e, &w) && w >= 0 && w <= 6 ? (int)w : -1;
    }
}

static void on_scan_bad_range(struct html_data *d, const char *j)
{
    char disk[24];
    struct hd_scan *s;

    STR(j, "disk", disk);
    if (!(s = scan_of(d, disk)))
        return;
    if (s->nbad == HD_MAX_SCAN_BAD) {
        s->dropped_bad++;
        return;
    }
    s->bad[s->nbad].first_lba = NUM(j, "first_lba");
    s->bad[s->nbad].count = NUM(j, "count");
    STR(j, "error", s->bad[s->nbad].error);
    s->nbad++;
}

void html_data_feed(struct html_data *d, const char *type, const char *j)
{
    unsigned pass = html_data_pass_of(j);

    d->records++;
    if (pass > d->last_pass)
        d->last_pass = pass;
    if (!strcmp(type, "run"))
        on_run(d, j);
    else if (!strcmp(type, "end"))
        on_end(d, j);
    else if (!strcmp(type, "system"))
        on_system(d, j);
    else if (!strcmp(type, "dimm"))
        on_dimm(d, j);
    else if (!strcmp(type, "dimm_summary"))
        on_dimm_summary(d, j);
    else if (!strcmp(type, "spd"))
        on_spd(d, j);
    else if (!strcmp(type, "mem_region"))
        on_mem_region(d, j);
    else if (!strcmp(type, "mem_map_summary"))
        on_mem_map_summary(d, j);
    else if (!strcmp(type, "pci"))
        on_pci(d, j);
    else if (!strcmp(type, "error") || !strcmp(type, "note"))
        on_message(d, type, j);
    else if (!strcmp(type, "finding"))
        on_finding(d, j);
    else if (!strcmp(type, "disk"))
        on_disk(d, j);
    else if (!strcmp(type, "disk_result"))
        on_disk_result(d, j);
    else if (!strcmp(type, "mem_info"))
        STR(j, "isa", d->mem_isa);
    else if (!strcmp(type, "mem_latency"))
        on_mem_latency(d, j);
    else if (!strcmp(type, "mem_bandwidth"))
        on_mem_bandwidth(d, j);
    else if (!strcmp(type, "mem_loaded_latency"))
        put_point(d->loaded, &d->nloaded, HD_MAX_LOADED, &d->dropped_loaded, NUM(j, "load_gbps"), NUM(j, "ns"));
    else if (!strcmp(type, "mem_numa"))
        on_mem_numa(d, j);
    else if (!strcmp(type, "verdict"))
        on_verdict(d, j);
    else if (!strcmp(type, "scan"))
        on_scan(d, j);
    else if (!strcmp(type, "scan_bad_range"))
        on_scan_bad_range(d, j);
}
