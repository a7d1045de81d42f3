/* Drawing the memory part of the screen below the latency and bandwidth
 * lines: the DIMM table (SMBIOS slot, size and rated speed beside the SPD's
 * module type, speed, CL-tRCD-tRP, ranks and part, '!' where the two
 * disagree) and the measured memory map as one bar per region (read
 * bandwidth against the fastest region, its latency, SLOW where the map's
 * summary says so), from what screen_model_memory.c kept of the dimm, spd,
 * mem_region and mem_map_summary records. */
#include "screen_private.h"

/* "16G", "512M", "1.5T" */
static void size_text(char *buf, size_t cap, uint64_t bytes)
{
    if (bytes >= (1ull << 40))
        snprintf(buf, cap, "%.1fT", (double)bytes / (double)(1ull << 40));
    else if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
        snprintf(buf, cap, "%lluG", (unsigned long long)(bytes >> 30));
    else if (bytes >= (1ull << 30))
        snprintf(buf, cap, "%.1fG", (double)bytes / (double)(1ull << 30));
    else
        snprintf(buf, cap, "%lluM", (unsigned long long)(bytes >> 20));
}

static void dimm_line(char *line, size_t cap, const struct screen_dimm *d)
{
    char size[16], smbios_mts[12], spd[96];

    if (d->size_unknown)
        snprintf(size, sizeof(size), "?");
    else
        size_text(size, sizeof(size), (uint64_t)d->size_mb << 20);
    snprintf(smbios_mts, sizeof(smbios_mts), d->smbios_mts ? "%u" : "-", (unsigned)d->smbios_mts);
    if (d->has_spd) {
        char timing[24], ranks[8];
        snprintf(timing, sizeof(timing), "%u-%u-%u", d->cl, d->trcd, d->trp);
        snprintf(ranks, sizeof(ranks), "%uR", d->ranks);
        snprintf(spd, sizeof(spd), "%-12.12s %5u %-9.9s %-3s %-16.16s", d->spd_type, (unsigned)d->spd_mts, timing, ranks,
                 d->part[0] ? d->part : "-");
    } else {
        snprintf(spd, sizeof(spd), "%-12s %5s %-9s %-3s %-16s", "-", "-", "-", "-", "-");
    }
    snprintf(line, cap, "%c%-12.12s %5s %5s | %s%s%s", d->differs[0] ? '!' : ' ', d->locator, size, smbios_mts, spd,
             d->differs[0] ? " differs: " : "", d->differs);
}

/* The DIMM table at row, in at most max_rows rows; the rows used. */
unsigned screen_draw_dimms(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m)
{
    char line[200];
    unsigned used = 0, spd = 0;

    if (!m->ndimms || max_rows < 2)
        return 0;
    for (unsigned i = 0; i < m->ndimms; i++)
        spd += m->dimms[i].has_spd;
    snprintf(line, sizeof(line), " %-12s %5s %5s | %-12s %5s %-9s %-3s %-16s", "DIMM", "size", "MT/s", "SPD type",
             "MT/s", "CL-RCD-RP", "Rk", "SPD part");
    screen_put(g, 1, row + used++, PLAT_COLOUR_LABEL, line, g->cols - 2);
    for (unsigned i = 0; i < m->ndimms && used < max_rows; i++) {
        const struct screen_dimm *d = &m->dimms[i];
        if (used + 1 == max_rows && i + 1 < m->ndimms) {
            snprintf(line, sizeof(line), "  ... %u more DIMMs in the results file (%u with SPD)",
                     m->ndimms - i + m->dimms_unkept, spd);
            screen_put(g, 1, row + used++, PLAT_COLOUR_NORMAL, line, g->cols - 2);
            break;
        }
        dimm_line(line, sizeof(line), d);
        screen_put(g, 1, row + used++, d->differs[0] ? PLAT_COLOUR_WARN : PLAT_COLOUR_NORMAL, line, g->cols - 2);
    }
    return used;
}

/* Regions [first, first + k) as one line: the lowest bandwidth and the
 * highest latency among them (a slow region is not averaged away). */
static struct screen_region group_of(const struct screen_model *m, unsigned first, unsigned k)
{
    struct screen_region r = m->regions[first];

    for (unsigned i = first + 1; i < first + k && i < m->nregions; i++) {
        const struct screen_region *x = &m->regions[i];
        r.bytes += x->bytes;
        r.slow |= x->slow;
        if (x->measured && (!r.measured || x->gbps < r.gbps))
            r.gbps = x->gbps;
        if (x->measured && x->latency_ns > r.latency_ns)
            r.latency_ns = x->latency_ns;
        r.measured |= x->measured;
    }
    return r;
}

static void map_line(struct screen_grid *g, unsigned row, const struct screen_model *m, unsigned first, unsigned k,
                     double max_gbps)
{
    struct screen_region r = group_of(m, first, k);
    unsigned last = MIN(first + k, m->nregions) - 1, head, width = g->cols - 2, bar_cols, len = 0;
    char line[300], idx[16], base[16], size[16];

    if (last > first)
        snprintf(idx, sizeof(idx), "%u-%u", m->regions[first].index, m->regions[last].index);
    else
        snprintf(idx, sizeof(idx), "%u", r.index);
    size_text(base, sizeof(base), r.base);
    size_text(size, sizeof(size), r.bytes);
    if (!r.measured) {
        snprintf(line, sizeof(line), "%5s @%-7s %6s  not measured (see the results file)", idx, base, size);
        screen_put(g, 1, row, PLAT_COLOUR_NORMAL, line, width);
        return;
    }
    head = (unsigned)snprintf(line, sizeof(line), "%5s @%-7s %6s %7.1f ns %7.2f GB/s ", idx, base, size, r.latency_ns,
                              r.gbps);
    /* The bar takes what is left, keeping room for " SLOW". */
    bar_cols = width > head + 6 ? MIN(width - head - 6, 60u) : 0;
    if (max_gbps > 0)
        len = MIN((unsigned)(r.gbps / max_gbps * bar_cols + 0.5), bar_cols);
    for (unsigned i = 0; i < bar_cols && head + i + 1 < sizeof(line); i++)
        line[head + i] = i < len ? '#' : '.';
    line[MIN(head + bar_cols, (unsigned)sizeof(line) - 1)] = '\0';
    screen_put(g, 1, row, r.slow ? PLAT_COLOUR_WARN : PLAT_COLOUR_NORMAL, line, width);
    if (r.slow && head + bar_cols + 6 <= width)
        screen_put(g, 1 + head + bar_cols + 1, row, PLAT_COLOUR_WARN, "SLOW", 4);
}

/* The memory map chart at row, in at most max_rows rows; the rows used. */
unsigned screen_draw_map(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m)
{
    char line[320];
    double max_gbps = 0;
    unsigned used = 0, lines, k;

    if (!m->nregions || max_rows < 2)
        return 0;
    for (unsigned i = 0; i < m->nregions; i++)
        if (m->regions[i].measured && m->regions[i].gbps > max_gbps)
            max_gbps = m->regions[i].gbps;
    /* More regions than rows: k neighbours per line, as few as fit. */
    lines = max_rows - 1;
    k = (m->nregions + lines - 1) / lines;
    snprintf(line, sizeof(line), "Memory map: %u region%s%s, read GB/s against the fastest%s%s", m->nregions,
             m->nregions == 1 ? "" : "s", k > 1 ? " (grouped: slowest of each group)" : "",
             m->map_verdict[0] ? " - " : "", m->map_verdict);
    screen_put(g, 1, row + used++, m->map_slow ? PLAT_COLOUR_WARN : PLAT_COLOUR_LABEL, line, g->cols - 2);
    for (unsigned i = 0; i < m->nregions && used < max_rows; i += k)
        map_line(g, row + used++, m, i, k, max_gbps);
    return used;
}
