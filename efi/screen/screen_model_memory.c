/* The memory part of the screen's model: the DIMM rows (SMBIOS slot beside
 * its SPD) and the memory map regions with the map's verdict, kept from the
 * dimm, spd, mem_region and mem_map_summary records. It draws nothing
 * (screen_map.c draws them). */
#include "screen_private.h"

static double num_or(const char *json, const char *key, double dflt)
{
    double v;
    return screen_json_num(json, key, &v) ? v : dflt;
}

static struct screen_dimm *dimm_row(struct screen_model *m, const char *locator, bool add)
{
    for (unsigned i = 0; locator[0] && i < m->ndimms; i++)
        if (!strcmp(m->dimms[i].locator, locator))
            return &m->dimms[i];
    if (!add)
        return NULL;
    if (m->ndimms == SCREEN_DIMMS) {
        m->dimms_unkept++;
        return NULL;
    }
    memset(&m->dimms[m->ndimms], 0, sizeof(m->dimms[0]));
    bm_strlcpy(m->dimms[m->ndimms].locator, locator, sizeof(m->dimms[0].locator));
    return &m->dimms[m->ndimms++];
}

/* A populated SMBIOS slot becomes a row (empty slots are only counted,
 * by the dimm_summary). */
static void on_dimm(struct screen_model *m, const char *json)
{
    char locator[48];
    double size = num_or(json, "size_mb", -1);
    struct screen_dimm *d;

    if (size == 0)
        return;
    screen_json_str(json, "locator", locator, sizeof(locator));
    d = dimm_row(m, locator, true);
    if (!d)
        return;
    d->size_unknown = size < 0;
    d->size_mb = bm_double_to_u32(size);
    d->smbios_mts = bm_double_to_u32(num_or(json, "speed_mts", 0));
}

/* An spd record fills its slot's row, or a row of its own ("SPD 0x52")
 * when it matched no SMBIOS slot. */
static void on_spd(struct screen_model *m, const char *json)
{
    char locator[48], mem_type[16], module_type[16];
    struct screen_dimm *d;

    if (!screen_json_str(json, "locator", locator, sizeof(locator)) || !(d = dimm_row(m, locator, false))) {
        char addr[16];   /* "0x52", or "b0c1:0x52" behind an FB-DIMM MCH */
        screen_json_str(json, "address", addr, sizeof(addr));
        snprintf(locator, sizeof(locator), "SPD %s", addr);
        d = dimm_row(m, locator, true);
        if (!d)
            return;
        d->size_mb = bm_double_to_u32(num_or(json, "size_mb", 0));
    }
    d->has_spd = true;
    screen_json_str(json, "mem_type", mem_type, sizeof(mem_type));
    screen_json_str(json, "module_type", module_type, sizeof(module_type));
    if (!strcmp(module_type, "FB-DIMM") || !module_type[0])
        bm_strlcpy(d->spd_type, module_type[0] ? module_type : mem_type, sizeof(d->spd_type));
    else
        snprintf(d->spd_type, sizeof(d->spd_type), "%.8s %.14s", mem_type, module_type);
    d->spd_mts = bm_double_to_u32(num_or(json, "speed_mts", 0));
    d->cl = bm_double_to_u32(num_or(json, "cl", 0));
    d->trcd = bm_double_to_u32(num_or(json, "trcd", 0));
    d->trp = bm_double_to_u32(num_or(json, "trp", 0));
    d->ranks = bm_double_to_u32(num_or(json, "ranks", 0));
    screen_json_str(json, "part", d->part, sizeof(d->part));
    screen_json_str(json, "smbios_disagrees", d->differs, sizeof(d->differs));
}

static void on_region(struct screen_model *m, const char *json)
{
    unsigned idx = bm_double_to_u32(num_or(json, "index", 0));
    struct screen_region *r = NULL;

    for (unsigned i = 0; i < m->nregions; i++)
        if (m->regions[i].index == idx)
            r = &m->regions[i];
    if (!r) {
        if (m->nregions == SCREEN_REGIONS) {
            m->regions_unkept++;
            return;
        }
        r = &m->regions[m->nregions++];
    }
    memset(r, 0, sizeof(*r));
    r->index = idx;
    r->base = bm_double_to_u64(num_or(json, "base", 0));
    r->bytes = bm_double_to_u64(num_or(json, "bytes", 0));
    r->measured = screen_json_num(json, "read_gbps", &r->gbps);
    r->latency_ns = num_or(json, "latency_ns", 0);
    r->slow = strstr(json, "\"slow\":true") != NULL;
}

/* The verdict, and the slow flags again from slow_regions (the summary is
 * the judge's last word). */
static void on_map_summary(struct screen_model *m, const char *json)
{
    const char *p = strstr(json, "\"slow_regions\":[");

    screen_json_str(json, "verdict", m->map_verdict, sizeof(m->map_verdict));
    m->map_slow = false;
    for (p = p ? p + 16 : NULL; p && *p >= '0' && *p <= '9';) {
        unsigned idx = 0;
        while (*p >= '0' && *p <= '9')
            idx = idx * 10 + (unsigned)(*p++ - '0');
        for (unsigned i = 0; i < m->nregions; i++)
            if (m->regions[i].index == idx)
                m->regions[i].slow = true;
        m->map_slow = true;
        if (*p == ',')
            p++;
    }
}

/* A dimm, spd, mem_region or mem_map_summary record into the model; false for other types. */
bool screen_model_memory_record(struct screen_model *m, const char *type, const char *json)
{
    if (!strcmp(type, "dimm"))
        on_dimm(m, json);
    else if (!strcmp(type, "spd"))
        on_spd(m, json);
    else if (!strcmp(type, "mem_region"))
        on_region(m, json);
    else if (!strcmp(type, "mem_map_summary"))
        on_map_summary(m, json);
    else
        return false;
    return true;
}
