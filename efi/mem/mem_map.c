/* The measured memory map: full_random latency (on a CPU of the region's NUMA
 * node, cpu 0 without SRAT) and all-CPU read
 * bandwidth in a buffer placed inside each region of usable physical
 * memory (mem_map_plan.c cuts the regions: 1/32 of RAM, at least 1 GiB
 * where memory allows, never across a NUMA node boundary), one mem_region
 * record per region and a mem_map_summary naming the slow ones.
 *
 * Why: with channels populated unevenly, the part of memory above the
 * balanced portion interleaves over fewer channels and reads slower; a
 * whole-memory average hides it. Each region gets the same measuring time
 * (mem_map_ms=), so a map costs about regions x (time + chain build) and
 * the buffer, not the region, is what is touched: the time per GiB falls
 * as memory grows (the summary states it). */
#include "mem_engine.h"
#include "mem_machine.h"
#include "mem_map_plan.h"
#include "mem_srat.h"
#include "../inventory/dimm.h"
#include "../inventory/inventory.h"
#include "../record.h"

#define MAP_MS_FULL 400    /* measuring time per region, mem_map=full */
#define MAP_MS_QUICK 100
#define MAP_PASSES 3
#define MAP_SLICE_MIN (256 * MEM_KIB) /* least each reading CPU streams */

static struct mem_ram_range ranges[MEM_MAP_MAX_RANGES];
static struct mem_region regions[MEM_MAP_MAX_REGIONS];
static struct srat_info map_srat;
static uint8_t *slices[MEM_MAX_CPUS];

/* Parse SRAT for the regions' nodes; the cut points where the node changes. */
static unsigned node_cuts(uint64_t *cuts, unsigned max)
{
    const uint8_t *t = plat_acpi_table("SRAT", 0);

    memset(&map_srat, 0, sizeof(map_srat));
    if (!t || srat_parse(t, t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24,
                         &map_srat) != BM_OK || map_srat.ndomains < 2)
        return 0;
    return mem_map_node_cuts(&map_srat, cuts, max);
}

/* mem_region: one region, measured or with the reason it was not. */
static void emit_region(unsigned idx, const struct mem_region *r, double max_gbps)
{
    static struct record r_;
    char human[200], bar[41];
    unsigned len = 0;

    record_begin(&r_, "mem_region");
    json_u64(&r_.j, "index", idx);
    json_u64(&r_.j, "base", r->base);
    json_u64(&r_.j, "end", r->end);
    json_u64(&r_.j, "bytes", r->ram_bytes);
    if (r->node >= 0)
        json_i64(&r_.j, "node", r->node);
    else
        json_null(&r_.j, "node");
    if (r->measured) {
        json_u64(&r_.j, "buffer_base", r->buf_base);
        json_u64(&r_.j, "buffer_bytes", r->buf_bytes);
        json_num(&r_.j, "latency_ns", r->latency_ns, 2);
        json_u64(&r_.j, "latency_cpu", r->latency_cpu);
        json_num(&r_.j, "read_gbps", r->read_gbps, 3);
        json_u64(&r_.j, "threads", r->threads);
        json_bool(&r_.j, "slow", r->slow);
        if (max_gbps > 0)
            len = bm_double_to_u32(r->read_gbps / max_gbps * 40 + 0.5);
        memset(bar, '#', MIN(len, 40u));
        bar[MIN(len, 40u)] = '\0';
        snprintf(human, sizeof(human), "  %2u 0x%012llx %6llu MiB %7.1f ns %8.2f GB/s %-40s%s", idx,
                 (unsigned long long)r->base, (unsigned long long)(r->ram_bytes >> 20), r->latency_ns, r->read_gbps,
                 bar, r->slow ? " SLOW" : "");
    } else {
        json_null(&r_.j, "latency_ns");
        json_null(&r_.j, "read_gbps");
        json_str(&r_.j, "reason", r->reason);
        snprintf(human, sizeof(human), "  %2u 0x%012llx %6llu MiB  not measured: %s", idx, (unsigned long long)r->base,
                 (unsigned long long)(r->ram_bytes >> 20), r->reason);
    }
    record_emit(&r_, human);
}

/* Place a buffer inside the region: the planned size, else smaller. */
static uint8_t *alloc_in_region(struct mem_region *r, uint64_t want)
{
    for (uint64_t b = want; b >= MAX(want / 8, 2 * MEM_PAGE); b /= 2) {
        uint8_t *p;
        b = b >= 2 * MEM_MIB ? b / (2 * MEM_MIB) * (2 * MEM_MIB) : b / MEM_PAGE * MEM_PAGE;
        p = plat_alloc_pages_in_range(b, r->base, r->end);
        if (p) {
            r->buf_base = plat_virt_to_phys(p);
            r->buf_bytes = b;
            return p;
        }
    }
    snprintf(r->reason, sizeof(r->reason), "no free %llu KiB inside it (firmware or this program holds it)",
             (unsigned long long)(MAX(want / 8, 2 * MEM_PAGE) >> 10));
    return NULL;
}

/* A CPU of the region's node, so latency is the node's local latency
 * (cpu 0 without SRAT, or when the node has no CPU). */
static unsigned local_cpu(const struct mem_ctx *m, const struct mem_region *r)
{
    for (unsigned c = 0; r->node >= 0 && c < m->cpus; c++)
        if (srat_domain_of_plat_cpu(&map_srat, plat_cpu_apic_id(c)) == r->node)
            return c;
    return 0;
}

/* Latency and read bandwidth of one region. */
static int measure_region(struct mem_ctx *m, struct mem_region *r, uint64_t want, uint64_t pass_ns)
{
    uint8_t *buf;
    struct mem_spread ls, bs;
    struct mem_team team;
    uint64_t slice;
    void *cursor;
    int rc;

    /* A region much smaller than the others (a node's first 640 KiB) would
     * measure a buffer that fits in the cache. */
    if (r->ram_bytes / 2 < want / 8) {
        snprintf(r->reason, sizeof(r->reason), "%llu KiB: too small for a buffer past the caches",
                 (unsigned long long)(r->ram_bytes >> 10));
        return BM_OK;
    }
    buf = alloc_in_region(r, MIN(want, r->ram_bytes / 2));
    if (!buf)
        return BM_OK;
    cursor = mem_chain_in(m, buf, r->buf_bytes, MEM_FULL_RANDOM);
    r->latency_cpu = local_cpu(m, r);
    rc = mem_chase_on(m, r->latency_cpu, &cursor, r->buf_bytes, MAP_PASSES, &ls, NULL);
    /* Every CPU reads its own slice, each slice large enough to stream. */
    r->threads = (unsigned)MAX(1ull, MIN((uint64_t)m->cpus, r->buf_bytes / MAP_SLICE_MIN));
    slice = r->buf_bytes / r->threads / MEM_PAGE * MEM_PAGE;
    for (unsigned i = 0; i < r->threads; i++)
        slices[i] = buf + (uint64_t)i * slice;
    if (rc == BM_OK) {
        mem_team_init_first(&team, r->threads);
        rc = mem_bandwidth_on(m, &team, MEM_BW_READ, slices, slice, MAP_PASSES, pass_ns, &bs);
    }
    plat_free_pages(buf, r->buf_bytes);
    if (rc != BM_OK) {
        snprintf(r->reason, sizeof(r->reason), "measuring failed: %s", bm_strerror(rc));
        return rc == BM_EABORT ? rc : BM_OK;
    }
    r->measured = true;
    r->latency_ns = ls.min;
    r->read_gbps = bs.max;
    return BM_OK;
}

/* The slow regions in words, tied to the DIMM population where it can. */
static void verdict_text(const struct mem_map_verdict *v, char *buf, size_t cap, const char **dimm_warning)
{
    const struct dimm_summary *ds = inventory_dimm_summary();

    *dimm_warning = NULL;
    if (ds)
        for (unsigned w = 0; w < ds->nwarnings && !*dimm_warning; w++)
            if (!strncmp(ds->warnings[w], "unbalanced", 10))
                *dimm_warning = ds->warnings[w];
    if (!v->slow) {
        snprintf(buf, cap, "all %u measured regions within %d%% of the median", v->measured, MEM_MAP_SLOW_PCT);
        return;
    }
    snprintf(buf, cap, "%u of %u regions more than %d%% slower than the median, read bandwidth down to %.2fx "
             "lower, %s %llu MiB%s%s", v->slow, v->measured, MEM_MAP_SLOW_PCT, v->worst_ratio,
             v->slow_at_top ? "every region from" : "the first at", (unsigned long long)(v->slow_from >> 20),
             *dimm_warning ? "; DIMM population: " : "", *dimm_warning ? *dimm_warning : "");
}

/* mem_map_summary. */
static void emit_summary(unsigned n, const struct mem_map_verdict *v, uint64_t map_bytes, uint64_t ns,
                         uint32_t region_ms, uint64_t want)
{
    static struct record r;
    char text[DIMM_WARNING_LEN + 160], human[DIMM_WARNING_LEN + 260];
    uint64_t covered = 0;
    const char *dimm_warning;
    double gib;

    for (unsigned i = 0; i < n; i++)
        covered += regions[i].ram_bytes;
    gib = (double)covered / (double)(1ull << 30);
    verdict_text(v, text, sizeof(text), &dimm_warning);
    record_begin(&r, "mem_map_summary");
    json_u64(&r.j, "regions", n);
    json_u64(&r.j, "measured", v->measured);
    json_u64(&r.j, "ram_bytes", map_bytes);
    json_u64(&r.j, "covered_bytes", covered);
    json_u64(&r.j, "buffer_bytes", want);
    json_u64(&r.j, "region_ms", region_ms);
    json_num(&r.j, "median_latency_ns", v->median_latency_ns, 2);
    json_num(&r.j, "median_read_gbps", v->median_gbps, 3);
    json_u64(&r.j, "threshold_pct", MEM_MAP_SLOW_PCT);
    json_arr_begin(&r.j, "slow_regions");
    for (unsigned i = 0; i < n; i++)
        if (regions[i].slow)
            json_u64(&r.j, NULL, i);
    json_arr_end(&r.j);
    if (v->slow) {
        json_u64(&r.j, "slow_from", v->slow_from);
        json_num(&r.j, "worst_ratio", v->worst_ratio, 2);
    }
    if (dimm_warning)
        json_str(&r.j, "dimm_population", dimm_warning);
    json_str(&r.j, "verdict", text);
    json_num(&r.j, "seconds", (double)ns / 1e9, 2);
    json_num(&r.j, "seconds_per_gib", gib > 0 ? (double)ns / 1e9 / gib : 0, 4);
    snprintf(human, sizeof(human), "memory map: %u regions over %llu MiB in %.1f s (%.3f s per GiB): %s", n,
             (unsigned long long)(covered >> 20), (double)ns / 1e9, gib > 0 ? (double)ns / 1e9 / gib : 0, text);
    record_emit(&r, human);
}

/* The map: plan the regions, measure each, judge them. */
int mem_run_map(struct mem_ctx *m, enum bm_level level, uint32_t region_ms, uint64_t mem_max_bytes)
{
    static uint64_t cuts[MEM_MAP_MAX_CUTS];
    struct mem_plan saved = m->plan;
    struct mem_map_verdict v;
    unsigned nranges, ncuts, n;
    uint64_t total = 0, want, region_bytes, t0 = plat_now_ns(), pass_ns;
    double max_gbps = 0;
    int rc = BM_OK;

    if (level == LEVEL_OFF)
        return BM_OK;
    if (!mem_numa_placement() || !(nranges = mem_ram_ranges(ranges, MEM_MAP_MAX_RANGES))) {
        record_note(MEM_WHERE, "this build cannot place memory at physical addresses: no memory map "
                               "(mem_region records come from the UEFI build)");
        return BM_OK;
    }
    for (unsigned i = 0; i < nranges; i++)
        total += ranges[i].bytes;
    ncuts = node_cuts(cuts, MEM_MAP_MAX_CUTS);
    region_bytes = mem_map_region_bytes(total, level == LEVEL_FULL ? 32 : 8);
    n = mem_map_plan(ranges, nranges, region_bytes, cuts, ncuts, regions, MEM_MAP_MAX_REGIONS);
    /* The buffer: well past the LLC (4x, at least 64 MiB, at most 256 MiB),
     * within half a region and mem_max. */
    want = MIN(MIN(MAX(4 * m->plan.llc_bytes, 64 * MEM_MIB), 256 * MEM_MIB), region_bytes / 2);
    if (mem_max_bytes)
        want = MIN(want, mem_max_bytes);
    want = MAX(want, 2 * MEM_PAGE);
    if (!region_ms)
        region_ms = level == LEVEL_FULL ? MAP_MS_FULL : MAP_MS_QUICK;
    /* Half the time chasing, half reading, over MAP_PASSES passes each. */
    pass_ns = (uint64_t)region_ms * 1000000ull / 2 / MAP_PASSES;
    m->plan.lat_pass_ns = pass_ns;
    m->plan.lat_warm_ns = MIN(m->plan.lat_warm_ns, pass_ns);
    m->plan.lat_pass_loads = MIN(m->plan.lat_pass_loads, 16384ull);

    ui_text("memory map: %u regions of usable memory (%llu MiB), a %llu KiB buffer in each, %u ms per region", n,
            (unsigned long long)(total >> 20), (unsigned long long)(want >> 10), region_ms);
    for (unsigned i = 0; i < n && rc == BM_OK; i++) {
        regions[i].node = ncuts ? srat_domain_of_addr(&map_srat, regions[i].base) : -1;
        if (plat_abort_requested()) {
            rc = BM_EABORT;
            break;
        }
        ui_progress("memory map: region %u of %u at 0x%llx", i + 1, n, (unsigned long long)regions[i].base);
        rc = measure_region(m, &regions[i], want, pass_ns);
        if (regions[i].measured)
            max_gbps = MAX(max_gbps, regions[i].read_gbps);
    }
    m->plan = saved;
    if (rc == BM_EABORT)
        return rc;
    mem_map_judge(regions, n, &v);
    ui_text("memory map: region, base, size, full_random latency (a cpu of its node), read bandwidth (all cpus)");
    for (unsigned i = 0; i < n; i++)
        emit_region(i, &regions[i], max_gbps);
    emit_summary(n, &v, total, plat_now_ns() - t0, region_ms, want);
    return BM_OK;
}
