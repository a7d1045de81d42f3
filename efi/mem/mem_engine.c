/* The measuring primitives the memory phases share (mem_engine.h): build a
 * chain, time it on one CPU, time a bandwidth op on a team. mem.c (latency,
 * bandwidth, loaded latency) and mem_numa.c (the node matrix) both call
 * them; neither calls the other back. */
#include "mem_engine.h"

#define SEED_BASE 0x6d656d6368617365ull /* "memchase": the same chains every run */

/* TSC ticks in ns nanoseconds. */
uint64_t mem_ns_to_ticks(const struct mem_ctx *m, uint64_t ns)
{
    return (uint64_t)((double)ns / m->ns_per_tick);
}

/* Latency of the chain at *cursor (a working set of `bytes`), measured on
 * one cpu; fills s with the spread of its passes. */
int mem_chase_on(struct mem_ctx *m, unsigned cpu, void **cursor, uint64_t bytes, unsigned passes,
                 struct mem_spread *s, uint64_t *loads)
{
    static struct mem_chase_job job;
    struct mem_team team;
    int rc;

    memset(&job, 0, sizeof(job));
    job.cursor = *cursor;
    job.lines = bytes / MEM_LINE;
    job.warm_ticks = mem_ns_to_ticks(m, m->plan.lat_warm_ns);
    job.pass_ticks = mem_ns_to_ticks(m, m->plan.lat_pass_ns);
    job.pass_loads = m->plan.lat_pass_loads;
    job.passes = MIN(passes, (unsigned)MEM_MAX_PASSES);
    job.ns_per_tick = m->ns_per_tick;
    mem_team_init(&team, &cpu, 1);
    rc = mem_team_run(&team, mem_chase_team_fn, &job, mem_ns_to_ticks(m, MEM_TEAM_TIMEOUT_NS));
    if (rc != BM_OK)
        return rc;
    *cursor = job.cursor;
    mem_spread_of(job.ns, job.passes, s);
    if (loads)
        *loads = job.loads_per_pass;
    return BM_OK;
}

/* Build the chain for (bytes, pattern) in the chase buffer. */
void *mem_chain_in(struct mem_ctx *m, uint8_t *buf, uint64_t bytes, enum mem_pattern p)
{
    void *start = mem_chain_build(buf, bytes, p, SEED_BASE ^ (bytes * 3 + (uint64_t)p));
    m->chase_bytes = bytes;
    m->chase_pattern = p;
    return start;
}

/* Time one op on members 0..threads-1; fills the spread of GB/s. */
int mem_bandwidth_on(struct mem_ctx *m, struct mem_team *team, enum mem_bw_op op, uint8_t *const *bufs,
                     uint64_t bytes, unsigned passes, uint64_t pass_ns, struct mem_spread *gbps)
{
    static struct mem_bw_job job;
    double v[MEM_MAX_PASSES];
    int rc;

    memset(&job, 0, sizeof(job));
    job.k = m->k;
    job.op = op;
    job.bufs = bufs;
    job.bytes = bytes;
    job.passes = MIN(passes, (unsigned)MEM_MAX_PASSES);
    job.pass_ticks = mem_ns_to_ticks(m, pass_ns);
    rc = mem_team_run(team, mem_bw_team_fn, &job, mem_ns_to_ticks(m, MEM_TEAM_TIMEOUT_NS));
    if (rc != BM_OK)
        return rc;
    if (!job.done)
        return BM_ETIMEDOUT;
    for (unsigned i = 0; i < job.passes; i++) {
        double ns = (double)job.ticks[i] * m->ns_per_tick;
        /* bytes per ns = 10^9 bytes per second */
        v[i] = ns > 0 ? (double)team->n * (double)bytes * (double)job.reps / ns : 0;
    }
    mem_spread_of(v, job.passes, gbps);
    return BM_OK;
}
