/* The timed work of the memory benchmark: what runs on the measuring CPUs
 * inside a team (mem_team.h). Nothing here calls firmware. */
#ifndef BAREMARK_MEM_MEASURE_H
#define BAREMARK_MEM_MEASURE_H

#include "mem_kernels.h"
#include "mem_team.h"

#define MEM_MAX_PASSES 16

/* A latency measurement: follow a chain, warm first, then timed passes. */
struct mem_chase_job {
    void *cursor;          /* in: where to start; out: where it stopped */
    uint64_t lines;        /* lines in the cycle */
    uint64_t warm_ticks;   /* warm up for at most this long (one lap if it fits) */
    uint64_t pass_ticks;   /* aim for passes this long */
    uint64_t pass_loads;   /* and at least this many loads */
    unsigned passes;
    double ns_per_tick;
    /* out */
    double ns[MEM_MAX_PASSES];       /* per load, loop overhead subtracted */
    uint64_t loads_per_pass;
};

/* Run a chase job on the calling CPU. */
void mem_chase_measure(struct mem_chase_job *j);
/* Team function: member 0 runs arg (a struct mem_chase_job). */
void mem_chase_team_fn(struct mem_team *t, unsigned slot, void *arg);

enum mem_bw_op { MEM_BW_READ = 0, MEM_BW_WRITE, MEM_BW_COPY, MEM_BW_OPS };
const char *mem_bw_op_name(enum mem_bw_op op);

/* A bandwidth measurement: every member streams its own buffer; passes
 * start and stop together, the leader times them. Traffic counted per
 * member and repetition is `bytes`: read and write move the whole buffer;
 * copy reads its first half and writes its second (read + write bytes, the
 * STREAM convention). */
struct mem_bw_job {
    const struct mem_kernels *k;
    enum mem_bw_op op;
    uint8_t *const *bufs;  /* per slot */
    uint64_t bytes;        /* per member, multiple of 4 KiB */
    unsigned passes;
    uint64_t pass_ticks;   /* aim for passes at least this long */
    /* out */
    uint64_t reps;         /* buffer traversals per pass */
    uint64_t ticks[MEM_MAX_PASSES];
    bool done;
};
void mem_bw_team_fn(struct mem_team *t, unsigned slot, void *arg);

/* Loaded latency: member 0 chases while the others read their buffers in
 * chunks, waiting delay_ticks between chunks (Intel MLC's idea). */
struct mem_loaded_job {
    struct mem_chase_job chase;
    const struct mem_kernels *k;
    uint8_t *const *bufs;  /* per slot; slot 0 unused */
    uint64_t bytes;        /* per buffer */
    uint64_t chunk;        /* bytes read between delays */
    uint64_t delay_ticks;
    volatile bool stop;
    struct {
        volatile uint64_t bytes;
        uint8_t pad[56];   /* one cache line per member: no false sharing */
    } streamed[MEM_MAX_CPUS];
    /* out */
    uint64_t load_bytes, load_ticks;
    bool done;
};
void mem_loaded_team_fn(struct mem_team *t, unsigned slot, void *arg);

#endif
