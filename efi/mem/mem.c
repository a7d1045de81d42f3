/* Memory benchmark: latency curves over three access patterns, bandwidth on
 * one and on all CPUs, latency under load, and the NUMA matrix.
 *
 * Flow: plan the sizes (mem_chain.c) -> build a chain or buffers on the BSP
 * -> time it on the measuring CPUs (mem_measure.c, through a team) ->
 * one record per figure. Only the BSP talks to firmware (records, console,
 * allocation, Esc); the measuring CPUs touch memory and the TSC only. */
#include "mem.h"
#include "mem_chain.h"
#include "mem_cpu.h"
#include "mem_engine.h"
#include "mem_kernels.h"
#include "mem_machine.h"
#include "mem_measure.h"
#include "mem_team.h"
#include "../record.h"

static struct mem_ctx ctx;

/* ---- Records: one builder per record type ------------------------------------ */

/* mem_info: how this run is sized and which kernels it uses. */
static void emit_info(const struct mem_ctx *m)
{
    static struct record r;
    char human[360], lat[24], bw[24], bw_all[24], llc[24];
    const char *capped = m->plan.capped_by_option ? "mem_max" : m->plan.capped_by_memory ? "free_memory" : NULL;

    mem_size_text(lat, sizeof(lat), m->plan.lat_max_bytes);
    mem_size_text(bw, sizeof(bw), m->plan.bw_bytes);
    mem_size_text(bw_all, sizeof(bw_all), m->plan.bw_all_bytes);
    mem_size_text(llc, sizeof(llc), m->plan.llc_bytes);
    record_begin(&r, "mem_info");
    json_str(&r.j, "level", m->plan.level == LEVEL_FULL ? "full" : "quick");
    json_str(&r.j, "isa", mem_isa_name(m->isa));
    json_u64(&r.j, "vector_bits", mem_isa_bits(m->isa));
    json_u64(&r.j, "llc_bytes", m->plan.llc_bytes);
    json_str(&r.j, "llc_source", m->llc_source);
    json_u64(&r.j, "latency_max_bytes", m->plan.lat_max_bytes);
    json_u64(&r.j, "bandwidth_bytes", m->plan.bw_bytes);
    json_u64(&r.j, "bandwidth_all_bytes", m->plan.bw_all_bytes);
    json_u64(&r.j, "cpus", m->cpus);
    json_u64(&r.j, "latency_passes", m->plan.lat_passes);
    json_u64(&r.j, "bandwidth_passes", m->plan.bw_passes);
    json_u64(&r.j, "tsc_hz", m->tsc_hz);
    if (capped)
        json_str(&r.j, "capped_by", capped);
    snprintf(human, sizeof(human),
             "memory: %s vectors (%u-bit), LLC %s (%s), latency up to %s, bandwidth %s (one thread) and %s per "
             "thread (all %u)%s%s",
             mem_isa_name(m->isa), mem_isa_bits(m->isa), llc, m->llc_source, lat, bw, bw_all, m->cpus,
             capped ? ", capped by " : "", capped ? capped : "");
    record_emit(&r, human);
}

/* headline: the largest working set, whose figure burn-in follows across
 * passes (every size would overflow the end record's summary). */
static void emit_latency(uint64_t bytes, enum mem_pattern p, const struct mem_spread *s, unsigned passes,
                         uint64_t loads, bool headline)
{
    static struct record r;
    char test[48], size[24];

    record_begin(&r, "mem_latency");
    if (headline) {
        mem_size_text(size, sizeof(size), bytes);
        snprintf(test, sizeof(test), "latency %s %s", mem_pattern_name(p), size);
        record_metric(&r, MEM_WHERE, test, "ns", s->min);
    }
    json_u64(&r.j, "bytes", bytes);
    json_str(&r.j, "pattern", mem_pattern_name(p));
    json_num(&r.j, "ns", s->min, 2);
    json_num(&r.j, "ns_median", s->median, 2);
    json_num(&r.j, "ns_max", s->max, 2);
    json_u64(&r.j, "passes", passes);
    json_u64(&r.j, "loads", loads);
    record_emit(&r, NULL); /* the screen gets one table row per size */
}

/* mem_bandwidth: one op on one or all threads. */
static void emit_bandwidth(const struct mem_ctx *m, enum mem_bw_op op, unsigned threads, uint64_t bytes,
                           const struct mem_spread *gbps, unsigned passes)
{
    static struct record r;
    char human[200], size[24], test[48];

    mem_size_text(size, sizeof(size), bytes);
    record_begin(&r, "mem_bandwidth");
    snprintf(test, sizeof(test), "%s %u thread%s", mem_bw_op_name(op), threads, threads == 1 ? "" : "s");
    record_metric(&r, MEM_WHERE, test, "GB/s", gbps->max);
    json_str(&r.j, "op", mem_bw_op_name(op));
    json_u64(&r.j, "threads", threads);
    json_u64(&r.j, "bytes", bytes);
    json_num(&r.j, "gbps", gbps->max, 3);
    json_num(&r.j, "gbps_median", gbps->median, 3);
    json_num(&r.j, "gbps_min", gbps->min, 3);
    json_u64(&r.j, "passes", passes);
    json_str(&r.j, "isa", mem_isa_name(m->isa));
    json_bool(&r.j, "nontemporal", op != MEM_BW_READ);
    snprintf(human, sizeof(human), "memory %-5s %3u thread%s %9s each  %8.2f GB/s  (median %.2f, min %.2f)",
             mem_bw_op_name(op), threads, threads == 1 ? " " : "s", size, gbps->max, gbps->median, gbps->min);
    record_emit(&r, human);
}

/* mem_loaded_latency: the chase latency at one load level. */
static void emit_loaded(unsigned load_threads, uint64_t delay_ns, uint64_t bytes, const struct mem_spread *s,
                        double load_gbps)
{
    static struct record r;
    char human[200];

    record_begin(&r, "mem_loaded_latency");
    json_u64(&r.j, "load_threads", load_threads);
    json_u64(&r.j, "delay_ns", delay_ns);
    json_u64(&r.j, "bytes", bytes);
    json_num(&r.j, "ns", s->min, 2);
    json_num(&r.j, "ns_median", s->median, 2);
    json_num(&r.j, "ns_max", s->max, 2);
    json_num(&r.j, "load_gbps", load_gbps, 3);
    if (load_threads == 0)
        snprintf(human, sizeof(human), "memory loaded latency: idle                      %8.1f ns", s->min);
    else
        snprintf(human, sizeof(human), "memory loaded latency: %3u readers, delay %6llu ns %8.1f ns at %7.2f GB/s",
                 load_threads, (unsigned long long)delay_ns, s->min, load_gbps);
    record_emit(&r, human);
}

/* ---- Latency curve --------------------------------------------------------------- */

/* The latency curve: every size, every pattern, one table row per size. */
static int run_latency(struct mem_ctx *m)
{
    uint64_t sizes[64];
    size_t n = mem_latency_sizes(m->plan.lat_max_bytes, sizes, ARRAY_SIZE(sizes));
    unsigned done = 0, total = (unsigned)n * MEM_PATTERNS;

    ui_text("memory latency, ns per dependent load (best of %u passes)", m->plan.lat_passes);
    ui_text("  %10s %10s %12s %12s", "size", "stride", "page_random", "full_random");
    for (size_t i = 0; i < n; i++) {
        double row[MEM_PATTERNS];
        char size[24];

        mem_size_text(size, sizeof(size), sizes[i]);
        for (int p = 0; p < MEM_PATTERNS; p++) {
            struct mem_spread s;
            uint64_t loads = 0;
            void *cursor;
            int rc;

            if (plat_abort_requested())
                return BM_EABORT;
            ui_progress("memory latency: %s %s (%u/%u)", size, mem_pattern_name((enum mem_pattern)p), ++done, total);
            cursor = mem_chain_in(m, m->chase_buf, sizes[i], (enum mem_pattern)p);
            rc = mem_chase_on(m, 0, &cursor, sizes[i], m->plan.lat_passes, &s, &loads);
            if (rc != BM_OK) {
                record_error(MEM_WHERE, "latency at %s %s: %s", size, mem_pattern_name((enum mem_pattern)p),
                             bm_strerror(rc));
                return rc;
            }
            m->chase_start = cursor;
            emit_latency(sizes[i], (enum mem_pattern)p, &s, m->plan.lat_passes, loads, i + 1 == n);
            row[p] = s.min;
        }
        ui_text("  %10s %10.1f %12.1f %12.1f", size, row[MEM_STRIDE], row[MEM_PAGE_RANDOM], row[MEM_FULL_RANDOM]);
    }
    return BM_OK;
}

/* ---- Bandwidth ---------------------------------------------------------------------- */

/* Bytes of cpu i's bandwidth buffer: cpu 0 also runs alone. */
static uint64_t bw_buf_bytes(const struct mem_ctx *m, unsigned i)
{
    return i == 0 ? m->plan.bw_bytes : m->plan.bw_all_bytes;
}

/* One buffer per CPU; fewer threads if memory runs out. */
static int alloc_bw_buffers(struct mem_ctx *m)
{
    for (unsigned i = 0; i < m->cpus; i++) {
        m->bw_bufs[i] = plat_alloc_pages(bw_buf_bytes(m, i), false);
        if (!m->bw_bufs[i]) {
            char size[24];
            mem_size_text(size, sizeof(size), bw_buf_bytes(m, i));
            record_error(MEM_WHERE, "cannot allocate %s bandwidth buffer for cpu %u of %u; using %u thread%s", size,
                         i, m->cpus, i, i == 1 ? "" : "s");
            m->bw_threads = i;
            return i ? BM_OK : BM_ENOMEM;
        }
    }
    m->bw_threads = m->cpus;
    return BM_OK;
}

/* read, write and copy on one thread, then on all of them. */
static int run_bandwidth(struct mem_ctx *m)
{
    unsigned counts[2] = { 1, m->bw_threads };
    unsigned nc = m->bw_threads > 1 ? 2 : 1;

    for (int op = 0; op < MEM_BW_OPS; op++) {
        for (unsigned c = 0; c < nc; c++) {
            struct mem_team team;
            struct mem_spread s;
            int rc;

            if (plat_abort_requested())
                return BM_EABORT;
            ui_progress("memory bandwidth: %s, %u thread%s", mem_bw_op_name((enum mem_bw_op)op), counts[c],
                        counts[c] == 1 ? "" : "s");
            uint64_t bytes = counts[c] == 1 ? m->plan.bw_bytes : m->plan.bw_all_bytes;
            mem_team_init_first(&team, counts[c]);
            rc = mem_bandwidth_on(m, &team, (enum mem_bw_op)op, m->bw_bufs, bytes, m->plan.bw_passes,
                                  m->plan.bw_pass_ns, &s);
            if (rc != BM_OK) {
                record_error(MEM_WHERE, "%s bandwidth on %u cpus: %s (a cpu did not start or finish)",
                             mem_bw_op_name((enum mem_bw_op)op), counts[c], bm_strerror(rc));
                continue;
            }
            emit_bandwidth(m, (enum mem_bw_op)op, counts[c], bytes, &s, m->plan.bw_passes);
        }
    }
    return BM_OK;
}

/* ---- Loaded latency --------------------------------------------------------------- */

/* Latency on cpu 0 while the other CPUs read at a few load levels. */
static int run_loaded(struct mem_ctx *m)
{
    /* Delay between 64 KiB chunks per reader: from light load to none. The
     * first level (no readers at all) is the idle baseline. */
    static const uint64_t delays_ns[] = { 0, 20000, 5000, 1000, 0 };
    static struct mem_loaded_job job;
    uint64_t bytes = m->plan.lat_max_bytes;

    if (m->bw_threads < 2)
        return BM_OK;
    ui_text("memory latency under load: full_random over %llu MiB on cpu 0, the other cpus reading",
            (unsigned long long)(bytes >> 20));
    if (m->chase_pattern != MEM_FULL_RANDOM || m->chase_bytes != bytes)
        m->chase_start = mem_chain_in(m, m->chase_buf, bytes, MEM_FULL_RANDOM);

    for (unsigned lvl = 0; lvl < ARRAY_SIZE(delays_ns); lvl++) {
        unsigned readers = lvl == 0 ? 0 : m->bw_threads - 1;
        struct mem_team team;
        struct mem_spread s;
        double gbps;
        int rc;

        if (plat_abort_requested())
            return BM_EABORT;
        ui_progress("memory loaded latency: level %u of %u", lvl + 1, (unsigned)ARRAY_SIZE(delays_ns));
        memset(&job, 0, sizeof(job));
        job.chase.cursor = m->chase_start;
        job.chase.lines = bytes / MEM_LINE;
        job.chase.warm_ticks = mem_ns_to_ticks(m, m->plan.lat_warm_ns);
        job.chase.pass_ticks = mem_ns_to_ticks(m, m->plan.lat_pass_ns);
        job.chase.pass_loads = m->plan.lat_pass_loads;
        job.chase.passes = m->plan.lat_passes;
        job.chase.ns_per_tick = m->ns_per_tick;
        job.k = m->k;
        job.bufs = m->bw_bufs;
        job.bytes = m->plan.bw_all_bytes;
        job.chunk = MIN(64 * MEM_KIB, m->plan.bw_all_bytes);
        job.delay_ticks = mem_ns_to_ticks(m, delays_ns[lvl]);
        mem_team_init_first(&team, readers + 1);
        rc = mem_team_run(&team, mem_loaded_team_fn, &job, mem_ns_to_ticks(m, MEM_TEAM_TIMEOUT_NS));
        if (rc != BM_OK || !job.done) {
            record_error(MEM_WHERE, "loaded latency with %u readers: %s", readers,
                         bm_strerror(rc != BM_OK ? rc : BM_ETIMEDOUT));
            return BM_OK;
        }
        m->chase_start = job.chase.cursor;
        mem_spread_of(job.chase.ns, job.chase.passes, &s);
        gbps = job.load_ticks ? (double)job.load_bytes / ((double)job.load_ticks * m->ns_per_tick) : 0;
        emit_loaded(readers, readers ? delays_ns[lvl] : 0, bytes, &s, gbps);
    }
    return BM_OK;
}

/* ---- The run ---------------------------------------------------------------------- */

static void detect_isa_fn(struct mem_team *t, unsigned slot, void *arg)
{
    (void)t;
    (void)slot;
    /* Inside the team, so mem_simd_enter has enabled what CPUID offers. */
    *(enum mem_isa *)arg = mem_isa_usable();
}

/* Give back the chase and bandwidth buffers. */
static void free_buffers(struct mem_ctx *m)
{
    for (unsigned i = 0; i < MEM_MAX_CPUS; i++) {
        if (m->bw_bufs[i])
            plat_free_pages(m->bw_bufs[i], bw_buf_bytes(m, i));
        m->bw_bufs[i] = NULL;
    }
    if (m->chase_buf)
        plat_free_pages(m->chase_buf, m->plan.lat_max_bytes);
    m->chase_buf = NULL;
}

/* The memory benchmark: plan, then latency, bandwidth, loaded latency, NUMA. */
int mem_run(const struct config *c, const struct sysinfo *si)
{
    struct mem_ctx *m = &ctx;
    struct mem_team team;
    uint64_t llc, t[6] = { 0 };
    int rc;

    memset(m, 0, sizeof(*m));
    m->cfg = c;
    m->tsc_hz = plat_tsc_hz();
    m->cpus = MIN(plat_cpu_count(), (unsigned)MEM_MAX_CPUS);
    if (!m->tsc_hz) {
        record_error(MEM_WHERE, "no calibrated time-stamp counter: memory benchmark skipped");
        return BM_OK;
    }
    m->ns_per_tick = 1e9 / (double)m->tsc_hz;

    /* The last-level cache the inventory read from CPUID (one instance:
     * per socket, per CCX, ... as the CPU reports it). */
    llc = si ? (si->l3_bytes ? si->l3_bytes : si->l2_bytes) : 0;
    m->llc_source = "cpuid";
    if (!llc) {
        llc = 32 * MEM_MIB; /* a guess on the large side, so 4x still clears it */
        m->llc_source = "assumed";
    }
    mem_plan_make(&m->plan, c->mem, llc, plat_free_memory_bytes(), c->mem_max_bytes, m->cpus);

    mem_team_init_first(&team, 1);
    m->isa = MEM_ISA_BASE;
    if (mem_team_run(&team, detect_isa_fn, &m->isa, mem_ns_to_ticks(m, MEM_TEAM_TIMEOUT_NS)) != BM_OK)
        m->isa = MEM_ISA_BASE;
    m->k = mem_kernels_for(m->isa);
    emit_info(m);

    t[0] = plat_now_ns();
    m->chase_buf = plat_alloc_pages(m->plan.lat_max_bytes, false);
    if (!m->chase_buf) {
        record_error(MEM_WHERE, "cannot allocate %llu bytes for the latency test",
                     (unsigned long long)m->plan.lat_max_bytes);
        return BM_OK;
    }
    rc = run_latency(m);
    t[1] = plat_now_ns();
    if (rc == BM_EABORT)
        goto out;
    rc = alloc_bw_buffers(m);
    if (rc == BM_OK) {
        rc = run_bandwidth(m);
        t[2] = plat_now_ns();
        if (rc == BM_EABORT)
            goto out;
        rc = run_loaded(m);
        if (rc == BM_EABORT)
            goto out;
    }
    t[3] = plat_now_ns();
    free_buffers(m);
    rc = mem_run_numa(m);
    t[4] = plat_now_ns();
    if (rc == BM_EABORT)
        goto out;
    /* The map follows mem= unless mem_map= says otherwise (quick: none). */
    rc = mem_run_map(m, c->mem_map_given ? c->mem_map : c->mem == LEVEL_FULL ? LEVEL_FULL : LEVEL_OFF,
                     c->mem_map_ms, c->mem_max_bytes);
    t[5] = plat_now_ns();
    /* Where the time went, so a user can size a run (each phase includes
     * allocating and zeroing its buffers and building its chains). */
    ui_text("memory benchmark: %.1f s (latency %.1f, bandwidth %.1f, loaded latency %.1f, numa %.1f, map %.1f)",
            (double)(t[5] - t[0]) / 1e9, (double)(t[1] - t[0]) / 1e9, (double)(t[2] ? t[2] - t[1] : 0) / 1e9,
            (double)(t[2] ? t[3] - t[2] : 0) / 1e9, (double)(t[4] - t[3]) / 1e9, (double)(t[5] - t[4]) / 1e9);
out:
    free_buffers(m);
    return rc == BM_EABORT ? BM_EABORT : BM_OK;
}
