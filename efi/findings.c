/* Findings from the records' evidence (see findings.h). */
#include "findings.h"
#include "record.h"
#include "report/jscan.h"

#define EV_PCI 96
#define EV_DISKS 64
#define EV_PATH 16
#define EV_DIMMS 128
#define EV_CHANNELS 64
#define EV_NUMA 64

/* A share of a ceiling at which an aggregate counts as "at the ceiling". */
#define AT_CEILING_PCT 80.0
/* Above the ceiling by more than this, the link reading contradicts the measurement. */
#define ABOVE_CEILING_PCT 103.0

struct ev_pci {
    char bdf[16];
    char port_type[24];
    char attach[12];
    bool storage;
    unsigned subclass;       /* class bits 15:8 */
    bool has_link, partner, downtrained;
    double speed, width, max_speed, max_width, pmax_speed, pmax_width, mbps;
    unsigned npath;
    char path[EV_PATH][16];
    double path_ceiling;     /* 0 = none */
};

struct ev_disk {
    char id[24];
    char driver[16];
    char pci[16];
    double link, port_max, drive_max;
    double best_seq_mbps;    /* best sequential read alone; 0 = none */
};

struct ev_all {
    bool set;
    char test[32];
    unsigned ndisks;
    char disks[FINDING_MAX_SUBJECTS][24];
    double mbps;
    char hop[16], width_speed[32], text[160];
    double ceiling, used_pct;
    unsigned behind;
    bool chipset_uplink, emulated;
};

struct ev_dimm {
    char locator[32];
    bool populated;
    char mem_type[20];
    double speed, configured;
};

struct ev_channel {
    char name[40];
    unsigned populated, slots;
};

struct ev_numa {
    unsigned from, to;
    double ns;
};

static struct {
    bool chipset_seen, chipset_known, chipset_emulated;
    char chipset_name[80], uplink[32], chipset_note[200];
    double uplink_mbps;
    bool system_qemu;
    unsigned npci, ndisks, ndimms, nchannels, nnuma;
    struct ev_pci pci[EV_PCI];
    struct ev_disk disks[EV_DISKS];
    struct ev_all all;       /* the all-disks result nearest its link's ceiling */
    struct ev_dimm dimms[EV_DIMMS];
    bool summary_seen, channels_known;
    char channels_note[128];
    struct ev_channel channels[EV_CHANNELS];
    char dimm_warnings[8][160];
    unsigned ndimm_warnings;
    struct ev_numa numa[EV_NUMA];
    bool map_seen;
    unsigned map_slow;
    double map_worst_ratio, map_median_ns;
    char map_verdict[200];
    double mem_latency_ns;   /* the largest block's random-chase latency */
    double mem_latency_bytes;
} ev;

void findings_reset(void)
{
    memset(&ev, 0, sizeof(ev));
}

/* ---- Evidence from the records ---------------------------------------------------------- */

static void see_chipset(const char *j)
{
    ev.chipset_seen = true;
    ev.chipset_known = js_true(js_get(j, "known"));
    ev.chipset_emulated = js_true(js_get(j, "emulated"));
    js_get_str(j, "name", ev.chipset_name, sizeof(ev.chipset_name));
    js_get_str(j, "uplink", ev.uplink, sizeof(ev.uplink));
    js_get_str(j, "note", ev.chipset_note, sizeof(ev.chipset_note));
    ev.uplink_mbps = js_get_num(j, "uplink_mbps", 0);
}

/* 0..15 for a hex digit, 0 otherwise. */
static unsigned hex_digit(char c)
{
    return c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 0;
}

static void see_pci(const char *j)
{
    struct ev_pci *p;
    const char *link, *path;
    char cls[16];

    if (ev.npci >= EV_PCI)
        return;
    p = &ev.pci[ev.npci++];
    memset(p, 0, sizeof(*p));
    js_get_str(j, "bdf", p->bdf, sizeof(p->bdf));
    js_get_str(j, "port_type", p->port_type, sizeof(p->port_type));
    js_get_str(j, "attach", p->attach, sizeof(p->attach));
    {
        char kind[16];
        js_get_str(j, "kind", kind, sizeof(kind));
        p->storage = !strcmp(kind, "storage");
    }
    /* "0x010802": base, sub, prog-if. */
    js_get_str(j, "class", cls, sizeof(cls));
    p->subclass = strlen(cls) == 8 ? (unsigned)(hex_digit(cls[4]) << 4 | hex_digit(cls[5])) : 0xff;
    link = js_get(j, "link");
    if (link && *link == '{') {
        p->has_link = true;
        p->speed = js_get_num(link, "speed_gts", 0);
        p->width = js_get_num(link, "width", 0);
        p->max_speed = js_get_num(link, "max_speed_gts", 0);
        p->max_width = js_get_num(link, "max_width", 0);
        p->pmax_speed = js_get_num(link, "partner_max_speed_gts", 0);
        p->pmax_width = js_get_num(link, "partner_max_width", 0);
        p->partner = p->pmax_speed > 0 || p->pmax_width > 0;
        p->downtrained = js_true(js_get(link, "downtrained"));
        p->mbps = js_get_num(link, "mbps", 0);
    }
    path = js_get(j, "path");
    for (const char *e = js_first(path); e && p->npath < EV_PATH; e = js_next(e))
        js_str(e, p->path[p->npath++], sizeof(p->path[0]));
    p->path_ceiling = js_get_num(j, "path_ceiling_mbps", 0);
}

static struct ev_disk *disk_by_id(const char *id)
{
    for (unsigned i = 0; i < ev.ndisks; i++)
        if (!strcmp(ev.disks[i].id, id))
            return &ev.disks[i];
    return NULL;
}

static void see_disk(const char *j)
{
    struct ev_disk *d;
    char id[24];

    js_get_str(j, "id", id, sizeof(id));
    if (disk_by_id(id) || ev.ndisks >= EV_DISKS)
        return;
    d = &ev.disks[ev.ndisks++];
    memset(d, 0, sizeof(*d));
    bm_strlcpy(d->id, id, sizeof(d->id));
    js_get_str(j, "driver", d->driver, sizeof(d->driver));
    js_get_str(j, "pci", d->pci, sizeof(d->pci));
    d->link = js_get_num(j, "link_gbps", 0);
    d->port_max = js_get_num(j, "link_port_max_gbps", 0);
    d->drive_max = js_get_num(j, "link_drive_max_gbps", 0);
}

static void see_disk_result(const char *j)
{
    char disk[24], rw[16], test[32];
    double mbps = js_get_num(j, "mbps", 0);
    const char *link;

    js_get_str(j, "disk", disk, sizeof(disk));
    js_get_str(j, "rw", rw, sizeof(rw));
    js_get_str(j, "test", test, sizeof(test));
    if (strcmp(disk, "all")) {
        struct ev_disk *d = disk_by_id(disk);
        /* A disk's best sequential read on its own (not with the others). */
        if (d && !js_get(j, "concurrent") && !strcmp(rw, "read") && !strncmp(test, "SEQ", 3) &&
            mbps > d->best_seq_mbps)
            d->best_seq_mbps = mbps;
        return;
    }
    link = js_get(j, "link");
    if (!link || *link != '{')
        return;
    {
        double used = js_get_num(link, "used_pct", 0);
        if (ev.all.set && used <= ev.all.used_pct)
            return;
        memset(&ev.all, 0, sizeof(ev.all));
        ev.all.set = true;
        ev.all.used_pct = used;
    }
    ev.all.mbps = mbps;
    bm_strlcpy(ev.all.test, test, sizeof(ev.all.test));
    for (const char *e = js_first(js_get(j, "disks")); e && ev.all.ndisks < FINDING_MAX_SUBJECTS; e = js_next(e))
        js_str(e, ev.all.disks[ev.all.ndisks++], sizeof(ev.all.disks[0]));
    js_get_str(link, "hop", ev.all.hop, sizeof(ev.all.hop));
    js_get_str(link, "width_speed", ev.all.width_speed, sizeof(ev.all.width_speed));
    js_get_str(link, "text", ev.all.text, sizeof(ev.all.text));
    ev.all.ceiling = js_get_num(link, "ceiling_mbps", 0);
    ev.all.behind = (unsigned)js_get_num(link, "disks_behind", 0);
    ev.all.chipset_uplink = js_true(js_get(link, "chipset_uplink"));
    ev.all.emulated = js_true(js_get(link, "emulated"));
}

static void see_dimm(const char *j)
{
    struct ev_dimm *d;

    if (ev.ndimms >= EV_DIMMS)
        return;
    d = &ev.dimms[ev.ndimms++];
    js_get_str(j, "locator", d->locator, sizeof(d->locator));
    js_get_str(j, "mem_type", d->mem_type, sizeof(d->mem_type));
    /* size_mb null: populated, size unknown. */
    d->populated = js_get_num(j, "size_mb", 1) > 0;
    d->speed = js_get_num(j, "speed_mts", 0);
    d->configured = js_get_num(j, "configured_mts", 0);
}

static void see_dimm_summary(const char *j)
{
    const char *ch = js_get(j, "channels");

    ev.summary_seen = true;
    ev.channels_known = ch && *ch == '[';
    js_get_str(j, "channels_note", ev.channels_note, sizeof(ev.channels_note));
    ev.nchannels = 0;
    for (const char *e = ev.channels_known ? js_first(ch) : NULL; e && ev.nchannels < EV_CHANNELS; e = js_next(e)) {
        struct ev_channel *c = &ev.channels[ev.nchannels++];
        js_get_str(e, "name", c->name, sizeof(c->name));
        c->populated = (unsigned)js_get_num(e, "populated", 0);
        c->slots = (unsigned)js_get_num(e, "slots", 0);
    }
    ev.ndimm_warnings = 0;
    for (const char *e = js_first(js_get(j, "warnings")); e && ev.ndimm_warnings < 8; e = js_next(e))
        js_str(e, ev.dimm_warnings[ev.ndimm_warnings++], sizeof(ev.dimm_warnings[0]));
}

static void see_numa(const char *j)
{
    if (ev.nnuma >= EV_NUMA)
        return;
    ev.numa[ev.nnuma].from = (unsigned)js_get_num(j, "from_node", 0);
    ev.numa[ev.nnuma].to = (unsigned)js_get_num(j, "to_node", 0);
    ev.numa[ev.nnuma].ns = js_get_num(j, "latency_ns", 0);
    ev.nnuma++;
}

static void see_mem_latency(const char *j)
{
    char pattern[16];
    double bytes = js_get_num(j, "bytes", 0);

    js_get_str(j, "pattern", pattern, sizeof(pattern));
    if (strcmp(pattern, "random") || bytes < ev.mem_latency_bytes)
        return;
    ev.mem_latency_bytes = bytes;
    ev.mem_latency_ns = js_get_num(j, "ns", 0);
}

static void see_map(const char *j)
{
    ev.map_seen = true;
    ev.map_slow = 0;
    for (const char *e = js_first(js_get(j, "slow_regions")); e; e = js_next(e))
        ev.map_slow++;
    ev.map_worst_ratio = js_get_num(j, "worst_ratio", 0);
    ev.map_median_ns = js_get_num(j, "median_latency_ns", 0);
    js_get_str(j, "verdict", ev.map_verdict, sizeof(ev.map_verdict));
}

static void see_system(const char *j)
{
    char s[64];

    js_get_str(j, "manufacturer", s, sizeof(s));
    ev.system_qemu = strstr(s, "QEMU") != NULL;
    js_get_str(j, "product", s, sizeof(s));
    ev.system_qemu |= strstr(s, "QEMU") != NULL;
}

void findings_observe(const char *type, const char *json)
{
    if (!strcmp(type, "chipset"))
        see_chipset(json);
    else if (!strcmp(type, "pci"))
        see_pci(json);
    else if (!strcmp(type, "disk"))
        see_disk(json);
    else if (!strcmp(type, "disk_result"))
        see_disk_result(json);
    else if (!strcmp(type, "dimm"))
        see_dimm(json);
    else if (!strcmp(type, "dimm_summary"))
        see_dimm_summary(json);
    else if (!strcmp(type, "mem_numa"))
        see_numa(json);
    else if (!strcmp(type, "mem_latency"))
        see_mem_latency(json);
    else if (!strcmp(type, "mem_map_summary"))
        see_map(json);
    else if (!strcmp(type, "system"))
        see_system(json);
}

/* ---- Building findings ---------------------------------------------------------------- */

static struct finding *add(struct findings *out, const char *type, bool warn)
{
    struct finding *f;

    if (out->count >= FINDINGS_MAX)
        return NULL;
    f = &out->f[out->count++];
    memset(f, 0, sizeof(*f));
    bm_strlcpy(f->type, type, sizeof(f->type));
    f->warn = warn;
    return f;
}

static void subject(struct finding *f, const char *s)
{
    for (unsigned i = 0; i < f->nsubjects; i++)
        if (!strcmp(f->subjects[i], s))
            return;
    if (f->nsubjects < FINDING_MAX_SUBJECTS && s[0])
        bm_strlcpy(f->subjects[f->nsubjects++], s, sizeof(f->subjects[0]));
}

static void number(struct finding *f, const char *name, double v)
{
    if (f->nnumbers < FINDING_MAX_NUMBERS) {
        bm_strlcpy(f->numbers[f->nnumbers].name, name, sizeof(f->numbers[0].name));
        f->numbers[f->nnumbers++].value = v;
    }
}

static void note(struct findings *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct findings *out, const char *fmt, ...)
{
    va_list ap;

    if (out->nnotes >= FINDINGS_MAX_NOTES)
        return;
    va_start(ap, fmt);
    vsnprintf(out->notes[out->nnotes++], sizeof(out->notes[0]), fmt, ap);
    va_end(ap);
}

/* MB/s one lane carries each way at a speed in GT/s (drivers/pci.c's
 * pcie_lane_mbps(), by rate: 8b/10b to 5 GT/s, 128b/130b from 8 GT/s). */
static double lane_mbps(double gts)
{
    if (gts <= 0)
        return 0;
    if (gts <= 5.0)
        return gts * 1000.0 * 0.8 / 8.0;
    if (gts <= 32.0)
        return gts * 1000.0 * 128.0 / 130.0 / 8.0;
    return gts * 1000.0 / 8.0;
}

static bool emulated(void)
{
    return ev.chipset_emulated || ev.system_qemu;
}

/* "SATA", "NVMe" or "" for the disks of the all-disks result. */
static const char *kind_of_disks(const struct ev_all *a)
{
    bool sata = true, nvme = true;

    for (unsigned i = 0; i < a->ndisks; i++) {
        const struct ev_disk *d = disk_by_id(a->disks[i]);
        sata &= d && !strcmp(d->driver, "ahci");
        nvme &= d && !strcmp(d->driver, "nvme");
    }
    return a->ndisks == 0 ? "" : sata ? "SATA " : nvme ? "NVMe " : "";
}

/* The disks whose controller is at bdf or behind it. */
static unsigned disks_behind(const char *bdf, struct finding *f)
{
    unsigned n = 0;

    for (unsigned i = 0; i < ev.ndisks; i++) {
        bool behind = !strcmp(ev.disks[i].pci, bdf);
        for (unsigned p = 0; !behind && p < ev.npci; p++) {
            if (strcmp(ev.pci[p].bdf, ev.disks[i].pci))
                continue;
            for (unsigned h = 0; h < ev.pci[p].npath; h++)
                behind |= !strcmp(ev.pci[p].path[h], bdf);
        }
        if (behind) {
            n++;
            if (f)
                subject(f, ev.disks[i].id);
        }
    }
    return n;
}

/* The best sequential read alone among the disks of a controller. */
static double controller_best_mbps(const char *bdf, unsigned *ndisks)
{
    double best = 0;

    *ndisks = 0;
    for (unsigned i = 0; i < ev.ndisks; i++)
        if (!strcmp(ev.disks[i].pci, bdf)) {
            (*ndisks)++;
            best = MAX(best, ev.disks[i].best_seq_mbps);
        }
    return best;
}

static bool is_device_end(const struct ev_pci *p)
{
    return !strcmp(p->port_type, "endpoint") || !strcmp(p->port_type, "legacy_endpoint") ||
           !strcmp(p->port_type, "switch_upstream") || !strcmp(p->port_type, "pcie_to_pci_bridge");
}

/* A link reading that contradicts itself: no conclusion from it. */
static const char *link_nonsense(const struct ev_pci *p)
{
    if (!p->max_width || !p->max_speed)
        return "no link capability (width or speed 0)";
    if (p->speed > p->max_speed || p->width > p->max_width)
        return "negotiated above its own capability";
    if (p->partner && (!p->pmax_width || !p->pmax_speed))
        return "the port above reports no link capability";
    if (p->width && p->width != 1 && p->width != 2 && p->width != 4 && p->width != 8 && p->width != 12 &&
        p->width != 16 && p->width != 32)
        return "a link width PCI Express does not have";
    return NULL;
}

/* Under an emulator: one finding that says links are not enforced, with
 * the readings, instead of any conclusion drawn from them. */
static void find_emulated(struct findings *out)
{
    struct finding *f;
    unsigned slot_below = 0, down = 0, links = 0;

    /* Nothing to refuse without a link reading (an emulated machine with
     * only integrated controllers): no finding at all. */
    for (unsigned i = 0; i < ev.npci; i++)
        links += ev.pci[i].has_link && is_device_end(&ev.pci[i]);
    if (!links && !ev.all.set)
        return;
    links = 0;
    if ((f = add(out, "links_not_enforced", false)) == NULL)
        return;
    for (unsigned i = 0; i < ev.npci; i++) {
        const struct ev_pci *p = &ev.pci[i];
        if (!p->has_link || !is_device_end(p))
            continue;
        links++;
        down += p->downtrained;
        if (p->partner && lane_mbps(p->pmax_speed) * p->pmax_width < lane_mbps(p->max_speed) * p->max_width)
            slot_below++;
        if (p->storage)
            subject(f, p->bdf);
    }
    number(f, "links", links);
    number(f, "slot_below_device", slot_below);
    number(f, "downtrained", down);
    if (ev.all.set) {
        number(f, "aggregate_mbps", ev.all.mbps);
        number(f, "ceiling_mbps", ev.all.ceiling);
    }
    snprintf(f->text, sizeof(f->text),
             "Links are not enforced on this emulated machine (%s): no conclusion is drawn from its %u PCIe "
             "link%s%s%s.",
             ev.chipset_name[0] ? ev.chipset_name : "QEMU", links, links == 1 ? "" : "s",
             ev.all.set ? " or from the disks' aggregate against " : "", ev.all.set ? ev.all.width_speed : "");
}

/* An aggregate at or near the ceiling of the link it shares. */
static void find_shared_ceiling(struct findings *out)
{
    const struct ev_all *a = &ev.all;
    struct finding *f;
    char where[160];

    if (!a->set)
        return;
    if (a->ceiling <= 0) {
        note(out, "shared link %s: no ceiling recorded, no finding", a->hop);
        return;
    }
    if (a->used_pct > ABOVE_CEILING_PCT) {
        note(out, "%s: the disks read %.0f MB/s together, above the %.0f MB/s the link %s can carry; the link "
             "reading contradicts the measurement, no finding", a->test, a->mbps, a->ceiling, a->width_speed);
        return;
    }
    if (a->used_pct < AT_CEILING_PCT)
        return;
    f = add(out, "shared_ceiling", true);
    if (!f)
        return;
    for (unsigned i = 0; i < a->ndisks; i++)
        subject(f, a->disks[i]);
    subject(f, a->chipset_uplink ? "chipset_uplink" : a->hop);
    if (a->chipset_uplink)
        snprintf(where, sizeof(where), "the %s's %s", ev.chipset_name, a->width_speed);
    else
        snprintf(where, sizeof(where), "one %s link (%s)", a->width_speed, a->hop);
    snprintf(f->text, sizeof(f->text), "%u %sdisks behind %s: %.2f of %.2f GB/s (%.0f%%) in %s; that link, not "
             "the disks, is the limit.", a->behind ? a->behind : a->ndisks, kind_of_disks(a), where, a->mbps / 1e3,
             a->ceiling / 1e3, a->used_pct, a->test);
    number(f, "aggregate_mbps", a->mbps);
    number(f, "ceiling_mbps", a->ceiling);
    number(f, "used_pct", a->used_pct);
    number(f, "disks", a->ndisks);
}

/* A controller whose own link could do more than its slot allows, and
 * links trained below what both ends support. */
static void find_links(struct findings *out)
{
    for (unsigned i = 0; i < ev.npci; i++) {
        const struct ev_pci *p = &ev.pci[i];
        const char *bad;
        struct finding *f;
        double dev, slot, got;

        if (!p->has_link || !is_device_end(p))
            continue;
        if ((bad = link_nonsense(p)) != NULL) {
            note(out, "link at %s: %s; no link finding for it", p->bdf, bad);
            continue;
        }
        dev = lane_mbps(p->max_speed) * p->max_width;
        slot = lane_mbps(p->pmax_speed) * p->pmax_width;
        got = lane_mbps(p->speed) * p->width;
        if (p->storage && p->partner && slot < dev * 0.99) {
            unsigned nd;
            double best = controller_best_mbps(p->bdf, &nd);
            if ((f = add(out, "slot_limit", true)) == NULL)
                return;
            subject(f, p->bdf);
            disks_behind(p->bdf, f);
            {
                char tail[64] = "";
                if (best > 0)
                    snprintf(tail, sizeof(tail), "; its best read alone: %.2f GB/s", best / 1e3);
                snprintf(f->text, sizeof(f->text), "The controller at %s could carry %.2f GB/s on its own x%.0f "
                         "%.1f GT/s link, but its slot%s allows x%.0f %.1f GT/s, %.2f GB/s%s.", p->bdf, dev / 1e3,
                         p->max_width, p->max_speed, !strcmp(p->attach, "chipset") ? " (a chipset root port)" : "",
                         p->pmax_width, p->pmax_speed, slot / 1e3, tail);
            }
            number(f, "device_mbps", dev);
            number(f, "slot_mbps", slot);
            if (best > 0)
                number(f, "best_read_mbps", best);
        }
        if (p->downtrained) {
            unsigned n;
            double pmax_s = p->partner ? MIN(p->pmax_speed, p->max_speed) : p->max_speed;
            double pmax_w = p->partner ? MIN(p->pmax_width, p->max_width) : p->max_width;
            double could = lane_mbps(pmax_s) * pmax_w;
            if ((f = add(out, "downtrained_link", true)) == NULL)
                return;
            subject(f, p->bdf);
            n = disks_behind(p->bdf, f);
            snprintf(f->text, sizeof(f->text), "The link at %s trained to x%.0f %.1f GT/s, below the x%.0f %.1f GT/s "
                     "both ends support: %.2f instead of %.2f GB/s for the %u disk%s behind it (a slot, riser or "
                     "cable problem, or a port set lower).", p->bdf, p->width, p->speed, pmax_w, pmax_s, got / 1e3,
                     could / 1e3, n, n == 1 ? "" : "s");
            number(f, "link_mbps", got);
            number(f, "capable_mbps", could);
            number(f, "disks", n);
        }
    }
}

/* SATA links below what the port and the drive both support. */
static void find_sata(struct findings *out)
{
    for (unsigned i = 0; i < ev.ndisks; i++) {
        const struct ev_disk *d = &ev.disks[i];
        double best;
        struct finding *f;

        if (d->link <= 0 || (d->port_max <= 0 && d->drive_max <= 0))
            continue;
        if (d->port_max <= 0 || d->drive_max <= 0) {
            /* One side's maximum alone does not say the link is slow: the
             * other side may be what holds it. */
            if (d->link < MAX(d->port_max, d->drive_max))
                note(out, "%s: the SATA link runs at %.1f Gb/s, the %s supports %.1f; the %s does not say what it "
                     "supports, so no finding", d->id, d->link, d->port_max > 0 ? "port" : "drive",
                     MAX(d->port_max, d->drive_max), d->port_max > 0 ? "drive" : "port");
            continue;
        }
        best = MIN(d->port_max, d->drive_max);
        if (d->link > MAX(d->port_max, d->drive_max)) {
            note(out, "%s: the SATA link reads %.1f Gb/s, above what the port (%.1f) and drive (%.1f) support; no "
                 "finding", d->id, d->link, d->port_max, d->drive_max);
            continue;
        }
        if (d->link < best) {
            if ((f = add(out, "sata_link", true)) == NULL)
                return;
            subject(f, d->id);
            snprintf(f->text, sizeof(f->text), "%s's SATA link runs at %.1f Gb/s although the port and the drive "
                     "support %.1f Gb/s (a cable, backplane or port setting).", d->id, d->link, best);
            number(f, "link_gbps", d->link);
            number(f, "port_max_gbps", d->port_max);
            number(f, "drive_max_gbps", d->drive_max);
        } else if (d->drive_max > d->port_max) {
            if ((f = add(out, "sata_link", false)) == NULL)
                return;
            subject(f, d->id);
            snprintf(f->text, sizeof(f->text), "%s supports %.1f Gb/s SATA, its port only %.1f Gb/s.", d->id,
                     d->drive_max, d->port_max);
            number(f, "link_gbps", d->link);
            number(f, "port_max_gbps", d->port_max);
            number(f, "drive_max_gbps", d->drive_max);
        }
    }
}

/* PCIe storage on chipset root ports whose own link outruns the uplink. */
static void find_chipset_attached(struct findings *out)
{
    if (!ev.chipset_known || ev.uplink_mbps <= 0)
        return;
    for (unsigned i = 0; i < ev.npci; i++) {
        const struct ev_pci *p = &ev.pci[i];
        struct finding *f;
        double dev;
        unsigned nd;
        double best;

        if (!p->storage || !p->has_link || strcmp(p->attach, "chipset") || link_nonsense(p))
            continue;
        dev = lane_mbps(p->max_speed) * p->max_width;
        if (dev <= ev.uplink_mbps * 1.01)
            continue;
        best = controller_best_mbps(p->bdf, &nd);
        if ((f = add(out, "chipset_attached", true)) == NULL)
            return;
        subject(f, p->bdf);
        disks_behind(p->bdf, f);
        snprintf(f->text, sizeof(f->text), "The controller at %s hangs behind the %s's %s (%.2f GB/s, shared with "
                 "everything on the chipset); its own x%.0f %.1f GT/s link could carry %.2f GB/s on CPU lanes.",
                 p->bdf, ev.chipset_name, ev.uplink, ev.uplink_mbps / 1e3, p->max_width, p->max_speed, dev / 1e3);
        number(f, "device_mbps", dev);
        number(f, "uplink_mbps", ev.uplink_mbps);
        if (best > 0)
            number(f, "best_read_mbps", best);
    }
}

/* Disks on an add-in HBA/RAID controller and on the chipset's own. */
static void find_hba_vs_chipset(struct findings *out)
{
    double hba_sum = 0, cs_sum = 0, hba_ceiling = 0;
    unsigned hba_n = 0, cs_n = 0;
    char hba_bdf[16] = "", cs_bdf[16] = "";
    struct finding *f;

    if (!ev.chipset_known)
        return;
    for (unsigned i = 0; i < ev.npci; i++) {
        const struct ev_pci *p = &ev.pci[i];
        bool hba = p->storage && (p->subclass == 0x00 || p->subclass == 0x04 || p->subclass == 0x07) &&
                   strcmp(p->attach, "chipset");
        bool cs = p->storage && !strcmp(p->attach, "chipset");
        for (unsigned k = 0; (hba || cs) && k < ev.ndisks; k++) {
            if (strcmp(ev.disks[k].pci, p->bdf))
                continue;
            if (hba) {
                hba_n++;
                hba_sum += ev.disks[k].best_seq_mbps;
                bm_strlcpy(hba_bdf, p->bdf, sizeof(hba_bdf));
                hba_ceiling = p->path_ceiling;
            } else {
                cs_n++;
                cs_sum += ev.disks[k].best_seq_mbps;
                bm_strlcpy(cs_bdf, p->bdf, sizeof(cs_bdf));
            }
        }
    }
    if (!hba_n || !cs_n)
        return;
    if ((f = add(out, "hba_vs_chipset", false)) == NULL)
        return;
    subject(f, hba_bdf);
    subject(f, cs_bdf);
    {
        char hba_path[40], cs_path[64];
        if (hba_ceiling > 0)
            snprintf(hba_path, sizeof(hba_path), "path %.2f GB/s", hba_ceiling / 1e3);
        else
            snprintf(hba_path, sizeof(hba_path), "path ceiling unknown");
        if (ev.uplink_mbps > 0)
            snprintf(cs_path, sizeof(cs_path), "behind %s, %.2f GB/s shared", ev.uplink, ev.uplink_mbps / 1e3);
        else
            snprintf(cs_path, sizeof(cs_path), "uplink ceiling unknown");
        snprintf(f->text, sizeof(f->text), "%u disk%s on the HBA/RAID controller at %s (%s) against %u on the "
                 "chipset's controller at %s (%s): one at a time they read %.2f and %.2f GB/s in sum.", hba_n,
                 hba_n == 1 ? "" : "s", hba_bdf, hba_path, cs_n, cs_bdf, cs_path, hba_sum / 1e3, cs_sum / 1e3);
    }
    number(f, "hba_disks", hba_n);
    number(f, "hba_sum_mbps", hba_sum);
    number(f, "hba_ceiling_mbps", hba_ceiling);
    number(f, "chipset_disks", cs_n);
    number(f, "chipset_sum_mbps", cs_sum);
    number(f, "chipset_ceiling_mbps", ev.uplink_mbps);
}

/* The socket part of a channel name ("CPU1/A" -> "CPU1", "A" -> ""). */
static void socket_of(const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(name, '/');
    size_t n = slash ? (size_t)(slash - name) : 0;

    if (n >= cap)
        n = cap - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

/* Memory channels populated singly or unevenly, per socket. */
static void find_channels(struct findings *out)
{
    bool done[EV_CHANNELS] = { false };

    if (!ev.summary_seen)
        return;
    if (!ev.channels_known) {
        if (ev.ndimms)
            note(out, "memory channels: not told by the slot names (%s); no channel finding",
                 ev.channels_note[0] ? ev.channels_note : "unknown");
        return;
    }
    for (unsigned i = 0; i < ev.nchannels; i++) {
        char sock[40], other[40], list[200];
        unsigned nch = 0, npop = 0, lo = ~0u, hi = 0, dimms = 0;
        size_t n = 0;
        struct finding *f;

        if (done[i])
            continue;
        socket_of(ev.channels[i].name, sock, sizeof(sock));
        list[0] = '\0';
        for (unsigned k = i; k < ev.nchannels; k++) {
            socket_of(ev.channels[k].name, other, sizeof(other));
            if (strcmp(sock, other))
                continue;
            done[k] = true;
            nch++;
            npop += ev.channels[k].populated > 0;
            lo = MIN(lo, ev.channels[k].populated);
            hi = MAX(hi, ev.channels[k].populated);
            dimms += ev.channels[k].populated;
            if (n < sizeof(list))
                n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s=%u", n ? ", " : "", ev.channels[k].name,
                                      ev.channels[k].populated);
        }
        if (nch < 2 || npop == 0 || lo == hi)
            continue;
        if ((f = add(out, "mem_channels", true)) == NULL)
            return;
        for (unsigned k = 0; k < ev.nchannels; k++) {
            socket_of(ev.channels[k].name, other, sizeof(other));
            if (!strcmp(sock, other))
                subject(f, ev.channels[k].name);
        }
        if (npop == 1)
            snprintf(f->text, sizeof(f->text), "Only one of %u memory channels%s%s is populated (%s): memory "
                     "bandwidth is that of a single channel.", nch, sock[0] ? " of " : "", sock, list);
        else
            snprintf(f->text, sizeof(f->text), "Memory channels%s%s are unevenly populated (%s DIMMs): the "
                     "channels with fewer DIMMs run out first and the rest of memory is not interleaved across all.",
                     sock[0] ? " of " : "", sock, list);
        number(f, "channels", nch);
        number(f, "channels_populated", npop);
        number(f, "dimms", dimms);
        number(f, "min_per_channel", lo);
        number(f, "max_per_channel", hi);
    }
}

/* DIMMs configured below their rated speed; FB-DIMM channel population. */
static void find_dimms(struct findings *out)
{
    unsigned slow = 0, known = 0, ambiguous = 0, fb = 0;
    const struct ev_dimm *ex = NULL;
    struct finding *f;

    for (unsigned i = 0; i < ev.ndimms; i++) {
        const struct ev_dimm *d = &ev.dimms[i];
        if (!d->populated)
            continue;
        if (strstr(d->mem_type, "FB-DIMM"))
            fb++;
        if (d->speed <= 0 || d->configured <= 0)
            continue;
        known++;
        /* SMBIOS before 3.1 named the field a clock: exactly half the
         * rating may be the clock of a DIMM at full speed. */
        if (d->configured * 2 == d->speed) {
            ambiguous++;
            continue;
        }
        if (d->configured < d->speed) {
            slow++;
            if (!ex)
                ex = d;
        }
    }
    if (ambiguous)
        note(out, "%u DIMM%s report a configured speed of exactly half the rated one: a clock in MHz or a real "
             "half speed, the firmware does not say; no speed finding for them", ambiguous, ambiguous == 1 ? "" : "s");
    if (slow && (f = add(out, "dimm_speed", true)) != NULL) {
        for (unsigned i = 0; i < ev.ndimms; i++)
            if (ev.dimms[i].populated && ev.dimms[i].configured > 0 && ev.dimms[i].configured < ev.dimms[i].speed &&
                ev.dimms[i].configured * 2 != ev.dimms[i].speed)
                subject(f, ev.dimms[i].locator);
        snprintf(f->text, sizeof(f->text), "%u of %u DIMMs run below their rated speed, e.g. %s at %.0f of %.0f MT/s "
                 "(the slowest DIMM, the CPU or the population sets the speed of a channel).", slow, known,
                 ex->locator, ex->configured, ex->speed);
        number(f, "dimms_slow", slow);
        number(f, "dimms_known", known);
        number(f, "configured_mts", ex->configured);
        number(f, "rated_mts", ex->speed);
    }
    if (fb && (f = add(out, "fbdimm_channels", false)) != NULL) {
        unsigned hi = 0, nch = 0;
        for (unsigned i = 0; ev.channels_known && i < ev.nchannels; i++) {
            hi = MAX(hi, ev.channels[i].populated);
            nch += ev.channels[i].populated > 0;
        }
        for (unsigned i = 0; i < ev.ndimms; i++)
            if (ev.dimms[i].populated && strstr(ev.dimms[i].mem_type, "FB-DIMM"))
                subject(f, ev.dimms[i].locator);
        {
            char where[80], lat[48] = "";
            if (nch)
                snprintf(where, sizeof(where), "up to %u per channel on %u channels", hi, nch);
            else
                snprintf(where, sizeof(where), "channels not told by the slot names");
            if (ev.mem_latency_ns > 0)
                snprintf(lat, sizeof(lat), "; %.0f ns measured", ev.mem_latency_ns);
            snprintf(f->text, sizeof(f->text), "%u FB-DIMMs (%s): every FB-DIMM on a channel adds an AMB hop to "
                     "the latency%s.", fb, where, lat);
        }
        number(f, "fbdimms", fb);
        number(f, "channels", nch);
        number(f, "max_per_channel", hi);
        if (ev.mem_latency_ns > 0)
            number(f, "latency_ns", ev.mem_latency_ns);
    }
}

/* The latency of a remote NUMA node against the local one. */
static void find_numa(struct findings *out)
{
    double worst = 0, local = 0, remote = 0;
    unsigned from = 0, to = 0, nodes = 0;
    struct finding *f;
    char s[16];

    for (unsigned i = 0; i < ev.nnuma; i++)
        nodes = MAX(nodes, MAX(ev.numa[i].from, ev.numa[i].to) + 1);
    if (nodes < 2)
        return;
    for (unsigned i = 0; i < ev.nnuma; i++) {
        const struct ev_numa *r = &ev.numa[i];
        double loc = 0;
        if (r->from == r->to)
            continue;
        for (unsigned k = 0; k < ev.nnuma; k++)
            if (ev.numa[k].from == r->from && ev.numa[k].to == r->from)
                loc = ev.numa[k].ns;
        if (loc <= 0 || r->ns <= 0) {
            note(out, "NUMA node %u -> %u: no local latency to compare with; no finding", r->from, r->to);
            continue;
        }
        if (r->ns / loc > worst) {
            worst = r->ns / loc;
            local = loc;
            remote = r->ns;
            from = r->from;
            to = r->to;
        }
    }
    if (worst <= 0)
        return;
    if (emulated()) {
        note(out, "NUMA: the nodes are emulated (remote/local latency %.2fx is the host's, not a property of the "
             "machine); no finding", worst);
        return;
    }
    if ((f = add(out, "numa_remote", worst >= 2.0)) == NULL)
        return;
    snprintf(s, sizeof(s), "node%u", from);
    subject(f, s);
    snprintf(s, sizeof(s), "node%u", to);
    subject(f, s);
    snprintf(f->text, sizeof(f->text), "Remote memory is %.2fx as slow as local: node %u reads node %u's memory in "
             "%.0f ns, its own in %.0f ns; software that is not NUMA-aware pays that on its remote accesses.", worst,
             from, to, remote, local);
    number(f, "ratio", worst);
    number(f, "local_ns", local);
    number(f, "remote_ns", remote);
    number(f, "nodes", nodes);
}

/* Regions of the memory map slower than the rest. */
static void find_map(struct findings *out)
{
    struct finding *f;

    if (!ev.map_seen || ev.map_slow == 0)
        return;
    if ((f = add(out, "mem_map_slow", true)) == NULL)
        return;
    subject(f, "mem_map");
    snprintf(f->text, sizeof(f->text), "%u region%s of the memory map read slower than the median (worst %.2fx): "
             "%.150s", ev.map_slow, ev.map_slow == 1 ? "" : "s", ev.map_worst_ratio, ev.map_verdict);
    number(f, "slow_regions", ev.map_slow);
    number(f, "worst_ratio", ev.map_worst_ratio);
    number(f, "median_latency_ns", ev.map_median_ns);
}

void findings_evaluate(struct findings *out)
{
    memset(out, 0, sizeof(*out));
    if (ev.chipset_seen && !ev.chipset_known)
        note(out, "chipset: %s", ev.chipset_note[0] ? ev.chipset_note : "unknown; no uplink ceiling is given");
    if (emulated()) {
        find_emulated(out);
    } else {
        find_shared_ceiling(out);
        find_links(out);
        find_sata(out);
        find_chipset_attached(out);
        find_hba_vs_chipset(out);
    }
    find_channels(out);
    find_dimms(out);
    find_numa(out);
    find_map(out);
}

void findings_emit(void)
{
    static struct findings fs;
    static struct record r;
    char human[400];

    findings_evaluate(&fs);
    for (unsigned i = 0; i < fs.nnotes; i++)
        record_note("findings", "%s", fs.notes[i]);
    for (unsigned i = 0; i < fs.count; i++) {
        const struct finding *f = &fs.f[i];
        record_begin(&r, "finding");
        json_str(&r.j, "finding", f->type);
        json_str(&r.j, "severity", f->warn ? "warn" : "info");
        json_arr_begin(&r.j, "subjects");
        for (unsigned s = 0; s < f->nsubjects; s++)
            json_str(&r.j, NULL, f->subjects[s]);
        json_arr_end(&r.j);
        json_str(&r.j, "text", f->text);
        json_obj_begin(&r.j, "numbers");
        for (unsigned n = 0; n < f->nnumbers; n++)
            json_num(&r.j, f->numbers[n].name, f->numbers[n].value, 2);
        json_obj_end(&r.j);
        snprintf(human, sizeof(human), "FINDING %s: %s", f->warn ? "warn" : "info", f->text);
        record_emit(&r, human);
    }
}
