/* The measured memory map, its pure half (mem_map_plan.h). */
#include "mem_map_plan.h"
#include "mem_srat.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)

uint64_t mem_map_region_bytes(uint64_t total, unsigned regions)
{
    uint64_t r;

    if (!regions)
        regions = 1;
    r = total / regions;
    /* At least 1 GiB each while that still gives 8 regions. */
    if (r < GIB)
        r = MIN(GIB, total / 8);
    r = r / (2 * MIB) * (2 * MIB);
    return MAX(r, 2 * MIB);
}

/* The first cut above addr, or UINT64_MAX. */
static uint64_t next_cut(const uint64_t *cuts, unsigned ncuts, uint64_t addr)
{
    for (unsigned i = 0; i < ncuts; i++)
        if (cuts[i] > addr)
            return cuts[i];
    return UINT64_MAX;
}

/* Is there a cut in (a, b]? */
static bool cut_between(const uint64_t *cuts, unsigned ncuts, uint64_t a, uint64_t b)
{
    return next_cut(cuts, ncuts, a) <= b;
}

unsigned mem_map_plan(const struct mem_ram_range *r, unsigned n, uint64_t region_bytes, const uint64_t *cuts,
                      unsigned ncuts, struct mem_region *out, unsigned max)
{
    unsigned nr = 0;
    struct mem_region *cur = NULL;

    if (!region_bytes || !max)
        return 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t addr = r[i].base, left = r[i].bytes;

        while (left) {
            uint64_t cut = next_cut(cuts, ncuts, addr), take;

            /* A cut between the open region's end and here closes it. */
            if (cur && cut_between(cuts, ncuts, cur->end - 1, addr))
                cur = NULL;
            if (!cur) {
                if (nr == max)
                    return nr;
                cur = &out[nr++];
                memset(cur, 0, sizeof(*cur));
                cur->base = addr;
                cur->node = -1;
            }
            take = MIN(left, region_bytes - cur->ram_bytes);
            if (cut != UINT64_MAX && cut - addr < take)
                take = cut - addr;
            cur->ram_bytes += take;
            cur->end = addr + take;
            addr += take;
            left -= take;
            if (cur->ram_bytes == region_bytes || addr == cut)
                cur = NULL;
        }
    }
    /* A sliver at the end of memory joins the region before it. */
    if (nr >= 2 && out[nr - 1].ram_bytes < region_bytes / 4 &&
        !cut_between(cuts, ncuts, out[nr - 2].end - 1, out[nr - 1].base)) {
        out[nr - 2].ram_bytes += out[nr - 1].ram_bytes;
        out[nr - 2].end = out[nr - 1].end;
        nr--;
    }
    return nr;
}

/* Median bandwidth and latency of the measured regions of one node
 * (all nodes when all is set). Returns how many there were. */
static unsigned node_medians(const struct mem_region *r, unsigned n, int64_t node, bool all, double *gbps,
                             double *lat)
{
    static double g[MEM_MAP_MAX_REGIONS], l[MEM_MAP_MAX_REGIONS];
    unsigned k = 0;

    for (unsigned i = 0; i < n && k < MEM_MAP_MAX_REGIONS; i++)
        if (r[i].measured && (all || r[i].node == node)) {
            g[k] = r[i].read_gbps;
            l[k++] = r[i].latency_ns;
        }
    if (k) {
        *gbps = bm_sort_median(g, k);
        *lat = bm_sort_median(l, k);
    }
    return k;
}

void mem_map_judge(struct mem_region *r, unsigned n, struct mem_map_verdict *v)
{
    double worst = 0;

    memset(v, 0, sizeof(*v));
    v->worst_ratio = 1;
    v->measured = node_medians(r, n, 0, true, &v->median_gbps, &v->median_latency_ns);
    for (unsigned i = 0; i < n; i++) {
        double g = 0, l = 0;

        r[i].slow = false;
        if (!r[i].measured || node_medians(r, n, r[i].node, false, &g, &l) < 3)
            continue; /* two regions cannot tell which one is off */
        r[i].slow = r[i].read_gbps * 100 < g * (100 - MEM_MAP_SLOW_PCT) ||
                    r[i].latency_ns * 100 > l * (100 + MEM_MAP_SLOW_PCT);
        if (!r[i].slow)
            continue;
        if (!v->slow++ || r[i].base < v->slow_from)
            v->slow_from = r[i].base;
        if (r[i].read_gbps > 0 && g / r[i].read_gbps > worst)
            worst = g / r[i].read_gbps;
    }
    if (worst > 1)
        v->worst_ratio = worst;
    v->slow_at_top = v->slow > 0;
    for (unsigned i = 0; i < n && v->slow; i++)
        if (r[i].measured && r[i].base >= v->slow_from && !r[i].slow)
            v->slow_at_top = false;
}

unsigned mem_map_node_cuts(const struct srat_info *srat, uint64_t *cuts, unsigned max)
{
    unsigned n = 0;
    int64_t prev_domain = -1;
    uint64_t at = 0;

    /* Visit the ranges in address order: each time, the lowest base above `at`. */
    for (unsigned k = 0; k < srat->nmems && n < max; k++) {
        const struct srat_mem *next = NULL;
        for (unsigned i = 0; i < srat->nmems; i++) {
            const struct srat_mem *r = &srat->mems[i];
            if ((k == 0 || r->base > at) && (!next || r->base < next->base))
                next = r;
        }
        if (!next)
            break;
        if (prev_domain >= 0 && next->domain != (uint32_t)prev_domain)
            cuts[n++] = next->base;
        prev_domain = next->domain;
        at = next->base;
    }
    return n;
}
