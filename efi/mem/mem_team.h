/* A team: the CPUs that run one measurement together (one CPU for a chase,
 * all of them for bandwidth, one node's for NUMA), through
 * plat_run_on_cpus, with a barrier to start and stop passes together.
 *
 * Team work runs on APs: it may touch memory, the TSC and CPU registers
 * only - never firmware (no records, no console, no allocation). */
#ifndef BAREMARK_MEM_TEAM_H
#define BAREMARK_MEM_TEAM_H

#include "../platform.h"

#define MEM_MAX_CPUS 256

struct mem_team;
/* slot: 0..n-1, the member's place in the team (slot 0 leads). */
typedef void (*mem_team_fn)(struct mem_team *t, unsigned slot, void *arg);

struct mem_team {
    unsigned n;                       /* members */
    uint16_t cpu_of[MEM_MAX_CPUS];    /* slot -> plat_run_on_cpus index */
    mem_team_fn fn;
    void *arg;
    uint64_t timeout_ticks;           /* longest a barrier may wait */
    volatile uint32_t count, phase;   /* barrier state */
    volatile bool broken;             /* a member never came, or timed out */
};

/* Members: cpus[0..n-1] (plat_run_on_cpus indexes; cpus[0] leads). */
void mem_team_init(struct mem_team *t, const unsigned *cpus, unsigned n);
/* Members 0..n-1. */
void mem_team_init_first(struct mem_team *t, unsigned n);

/* Run fn on every member at once, each between mem_simd_enter/leave.
 * Returns BM_OK, or BM_ETIMEDOUT when a member did not start or a barrier
 * waited longer than timeout_ticks (the work then stops early). */
int mem_team_run(struct mem_team *t, mem_team_fn fn, void *arg, uint64_t timeout_ticks);

/* Wait until every member is here. False if the team is broken (every
 * member should then return). */
bool mem_team_barrier(struct mem_team *t);

#endif
