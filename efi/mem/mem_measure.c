/* Timed loops of the memory benchmark (run on the measuring CPUs). */
#include "mem_measure.h"

#define CHASE_LOADS_PER_ROUND 32 /* the unroll of mem_chase */
#define WARM_ROUNDS 64           /* 2048 loads between clock reads while warming */

/* The op's name in records. */
const char *mem_bw_op_name(enum mem_bw_op op)
{
    switch (op) {
    case MEM_BW_READ: return "read";
    case MEM_BW_WRITE: return "write";
    case MEM_BW_COPY: return "copy";
    default: return "?";
    }
}

/* Warm, size the passes, subtract the loop overhead, time the passes. */
void mem_chase_measure(struct mem_chase_job *j)
{
    void *p = j->cursor;
    uint64_t start = mem_ticks(), covered = 0, chunk = ~0ull, overhead = ~0ull, rounds;
    const uint64_t warm_loads = WARM_ROUNDS * CHASE_LOADS_PER_ROUND;

    /* Warm up: one whole lap brings a cache-sized working set into the
     * cache (and faults nothing in later); a bigger one misses anyway, so
     * the lap stops at warm_ticks. The quickest chunk gives the rate (an
     * interrupt only ever makes one slower). */
    do {
        uint64_t t0 = mem_ticks();
        p = mem_chase(p, WARM_ROUNDS);
        uint64_t d = mem_ticks() - t0;
        chunk = MIN(chunk, d);
        covered += warm_loads;
    } while ((covered < j->lines || covered < 2 * warm_loads) && mem_ticks() - start < j->warm_ticks);

    rounds = j->pass_ticks / (chunk / WARM_ROUNDS + 1);
    rounds = MAX(rounds, j->pass_loads / CHASE_LOADS_PER_ROUND);
    rounds = MAX(rounds, 16ull);
    rounds = MIN(rounds, 1ull << 26);

    /* Loop overhead (call, loop control, the clock reads) at this length:
     * the best of a few runs of the same loop without loads. */
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = mem_ticks();
        mem_chase_empty(p, rounds);
        uint64_t d = mem_ticks() - t0;
        overhead = MIN(overhead, d);
    }

    for (unsigned i = 0; i < j->passes && i < MEM_MAX_PASSES; i++) {
        uint64_t t0 = mem_ticks();
        p = mem_chase(p, rounds);
        uint64_t d = mem_ticks() - t0;
        d = d > overhead ? d - overhead : 0;
        j->ns[i] = (double)d * j->ns_per_tick / (double)(rounds * CHASE_LOADS_PER_ROUND);
    }
    j->loads_per_pass = rounds * CHASE_LOADS_PER_ROUND;
    j->cursor = p;
}

/* A one-CPU team running a chase job. */
void mem_chase_team_fn(struct mem_team *t, unsigned slot, void *arg)
{
    (void)t;
    if (slot == 0)
        mem_chase_measure(arg);
}

/* One traversal of a member's buffer. */
static void bw_once(const struct mem_bw_job *j, uint8_t *buf)
{
    switch (j->op) {
    case MEM_BW_READ: j->k->read(buf, j->bytes); break;
    case MEM_BW_WRITE: j->k->write(buf, j->bytes); break;
    case MEM_BW_COPY: j->k->copy(buf + j->bytes / 2, buf, j->bytes / 2); break;
    default: break;
    }
}

/* Each member streams its buffer; the leader times passes between barriers. */
void mem_bw_team_fn(struct mem_team *t, unsigned slot, void *arg)
{
    struct mem_bw_job *j = arg;
    uint8_t *buf = j->bufs[slot];
    uint64_t t0 = 0, reps;

    /* Warm pass: faults, TLB, and the time one traversal takes. */
    if (!mem_team_barrier(t))
        return;
    if (slot == 0)
        t0 = mem_ticks();
    bw_once(j, buf);
    if (!mem_team_barrier(t))
        return;
    if (slot == 0) {
        uint64_t once = mem_ticks() - t0 + 1;
        reps = (j->pass_ticks + once - 1) / once;
        j->reps = MAX(1ull, MIN(reps, 100000ull));
        /* A barrier may now wait a whole pass and then some. */
        t->timeout_ticks = MAX(t->timeout_ticks, 20 * once * j->reps);
    }
    if (!mem_team_barrier(t))
        return;
    reps = j->reps;

    for (unsigned pass = 0; pass < j->passes && pass < MEM_MAX_PASSES; pass++) {
        if (!mem_team_barrier(t))
            return;
        if (slot == 0)
            t0 = mem_ticks();
        for (uint64_t r = 0; r < reps; r++)
            bw_once(j, buf);
        if (!mem_team_barrier(t))
            return;
        if (slot == 0)
            j->ticks[pass] = mem_ticks() - t0;
    }
    if (slot == 0)
        j->done = true;
}

/* Sum of what the load members streamed so far. */
static uint64_t streamed_total(const struct mem_loaded_job *j, unsigned n)
{
    uint64_t sum = 0;
    for (unsigned i = 1; i < n; i++)
        sum += j->streamed[i].bytes;
    return sum;
}

/* Member 0 chases; the others read with a delay after each chunk until told to stop. */
void mem_loaded_team_fn(struct mem_team *t, unsigned slot, void *arg)
{
    struct mem_loaded_job *j = arg;

    if (!mem_team_barrier(t))
        return;
    if (slot == 0) {
        uint64_t b0, t0, start = mem_ticks();

        /* Measure only once every reader is streaming (an AP can start
         * late, above all under an emulator) and the load has had a pass's
         * time to settle; give up waiting after warm_ticks. */
        while (mem_ticks() - start < j->chase.warm_ticks) {
            unsigned streaming = 0;
            for (unsigned i = 1; i < t->n; i++)
                streaming += j->streamed[i].bytes != 0;
            if (streaming == t->n - 1 && mem_ticks() - start >= j->chase.pass_ticks)
                break;
            mem_pause();
        }
        b0 = streamed_total(j, t->n);
        t0 = mem_ticks();
        mem_chase_measure(&j->chase);
        j->load_ticks = mem_ticks() - t0;
        j->load_bytes = streamed_total(j, t->n) - b0;
        __atomic_store_n(&j->stop, true, __ATOMIC_RELEASE);
        j->done = true;
        return;
    }
    {
        uint8_t *buf = j->bufs[slot];
        uint64_t off = 0;

        while (!__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE)) {
            j->k->read(buf + off, j->chunk);
            off += j->chunk;
            if (off + j->chunk > j->bytes)
                off = 0;
            __atomic_store_n(&j->streamed[slot].bytes, j->streamed[slot].bytes + j->chunk, __ATOMIC_RELAXED);
            if (j->delay_ticks) {
                uint64_t until = mem_ticks() + j->delay_ticks;
                while (mem_ticks() < until)
                    mem_pause();
            }
        }
    }
}
