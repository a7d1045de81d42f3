/* State shared by the memory benchmark's phases (mem.c, mem_numa.c). */
#ifndef BAREMARK_MEM_ENGINE_H
#define BAREMARK_MEM_ENGINE_H

#include "../config.h"
#include "mem_chain.h"
#include "mem_cpu.h"
#include "mem_kernels.h"
#include "mem_measure.h"
#include "mem_team.h"

#define MEM_WHERE "memory"
/* How long a team member waits at a barrier before it gives the team up:
 * generous, because under an emulator starting an AP takes a while and the
 * first barrier after the warm pass waits for the slowest traversal; the
 * bandwidth leader raises it once it knows how long a pass takes. */
#define MEM_TEAM_TIMEOUT_NS 10000000000ull

struct mem_ctx {
    const struct config *cfg;
    struct mem_plan plan;
    const char *llc_source;       /* "cpuid" (from the system record) or "assumed" */
    enum mem_isa isa;
    const struct mem_kernels *k;
    uint64_t tsc_hz;
    double ns_per_tick;
    unsigned cpus;
    uint8_t *chase_buf;           /* plan.lat_max_bytes */
    void *chase_start;            /* the chain now built in chase_buf */
    uint64_t chase_bytes;
    enum mem_pattern chase_pattern;
    uint8_t *bw_bufs[MEM_MAX_CPUS]; /* cpu 0: plan.bw_bytes, others plan.bw_all_bytes */
    unsigned bw_threads;          /* how many of them exist */
};

uint64_t mem_ns_to_ticks(const struct mem_ctx *m, uint64_t ns);
/* Build a chain in buf (remembered as the current one). */
void *mem_chain_in(struct mem_ctx *m, uint8_t *buf, uint64_t bytes, enum mem_pattern p);
/* Latency of the chain at *cursor, measured on one cpu. */
int mem_chase_on(struct mem_ctx *m, unsigned cpu, void **cursor, uint64_t bytes, unsigned passes,
                 struct mem_spread *s, uint64_t *loads);
/* Bandwidth of op with every member of team on its own buffer. */
int mem_bandwidth_on(struct mem_ctx *m, struct mem_team *team, enum mem_bw_op op, uint8_t *const *bufs,
                     uint64_t bytes, unsigned passes, uint64_t pass_ns, struct mem_spread *gbps);
/* The NUMA phase (mem_numa.c): nothing unless SRAT shows several nodes. */
int mem_run_numa(struct mem_ctx *m);
/* The measured memory map (mem_map.c): regions across usable physical
 * memory at this level (off: nothing), region_ms of measuring each (0 =
 * the level's default), buffers within mem_max_bytes (0 = no cap). */
int mem_run_map(struct mem_ctx *m, enum bm_level level, uint32_t region_ms, uint64_t mem_max_bytes);

#endif
