/* Teams of CPUs and their barrier. */
#include "mem_team.h"
#include "mem_cpu.h"
#include "mem_machine.h"

/* A team of the given CPUs. */
void mem_team_init(struct mem_team *t, const unsigned *cpus, unsigned n)
{
    memset(t, 0, sizeof(*t));
    t->n = MIN(n, (unsigned)MEM_MAX_CPUS);
    for (unsigned i = 0; i < t->n; i++)
        t->cpu_of[i] = (uint16_t)cpus[i];
}

/* A team of CPUs 0..n-1. */
void mem_team_init_first(struct mem_team *t, unsigned n)
{
    memset(t, 0, sizeof(*t));
    t->n = MIN(n, (unsigned)MEM_MAX_CPUS);
    for (unsigned i = 0; i < t->n; i++)
        t->cpu_of[i] = (uint16_t)i;
}

/* Sense-free generation barrier: the last one in resets the count and
 * bumps the phase; the others spin until the phase moves. */
bool mem_team_barrier(struct mem_team *t)
{
    uint32_t phase = __atomic_load_n(&t->phase, __ATOMIC_ACQUIRE);
    uint64_t deadline;

    if (t->broken)
        return false;
    if (__atomic_add_fetch(&t->count, 1, __ATOMIC_ACQ_REL) == t->n) {
        __atomic_store_n(&t->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&t->phase, phase + 1, __ATOMIC_RELEASE);
        return true;
    }
    deadline = mem_ticks() + t->timeout_ticks;
    while (__atomic_load_n(&t->phase, __ATOMIC_ACQUIRE) == phase) {
        if (t->broken)
            return false;
        if (mem_ticks() > deadline) {
            t->broken = true;
            return false;
        }
        mem_pause();
    }
    return true;
}

/* Runs on every CPU plat_run_on_cpus starts: members work, others return. */
static void team_entry(unsigned cpu, void *arg)
{
    struct mem_team *t = arg;

    for (unsigned slot = 0; slot < t->n; slot++) {
        if (t->cpu_of[slot] != cpu)
            continue;
        mem_simd_enter(cpu);
        t->fn(t, slot, t->arg);
        mem_simd_leave(cpu);
        return;
    }
}

/* Run fn on the team (see mem_team.h). */
int mem_team_run(struct mem_team *t, mem_team_fn fn, void *arg, uint64_t timeout_ticks)
{
    unsigned top = 0;
    int ran;

    if (t->n == 0)
        return BM_EINVAL;
    for (unsigned i = 0; i < t->n; i++)
        top = MAX(top, (unsigned)t->cpu_of[i]);
    t->fn = fn;
    t->arg = arg;
    t->timeout_ticks = timeout_ticks;
    t->count = 0;
    t->phase = 0;
    t->broken = false;
    ran = plat_run_on_cpus(top + 1, team_entry, t);
    if (ran < 0)
        return ran;
    if ((unsigned)ran < top + 1 || t->broken)
        return BM_ETIMEDOUT;
    return BM_OK;
}
