/* What the engine's files share (engine.h is the public side):
 *   engine.c       a job: preparation, its I/O slots, one polling step
 *   engine_cpus.c  the run's plan: jobs cut into units (a disk, or one
 *                  queue pair of it) and placed on CPUs, folded back after
 *                                                   -> nothing of these
 *   engine_run.c   engine_run(): the polling loop of each CPU, the boot
 *                  processor's progress line, Esc and bounded join
 *                                                   -> engine.c, engine_cpus.c */
#ifndef BAREMARK_DISK_ENGINE_INTERNAL_H
#define BAREMARK_DISK_ENGINE_INTERNAL_H

#include "engine.h"

enum phase { PHASE_WARMUP, PHASE_MEASURE, PHASE_DRAIN };

/* ---- engine.c: one job ---------------------------------------------------------- */

/* Record the first failure of a job (where, and the I/O's LBA) and stop its new I/O. */
void job_fail(struct disk_job *j, int status, enum engine_fail_at at, uint64_t lba, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Poll every queue of a job once and refill it (now: the round's clock). */
int job_step(struct disk_job *j, uint64_t t_meas, const struct engine_timing *t, uint64_t now);
/* Commands in flight, or a sweep with I/O still to start? */
bool job_active(const struct disk_job *j);
void start_jobs(struct disk_job *jobs, unsigned n, uint64_t t0, uint64_t t_end);
void close_windows(struct disk_job *jobs, unsigned n, bool aborted);
void stop_for_esc(struct disk_job *jobs, unsigned n, uint64_t now);
void finish_windows(struct disk_job *jobs, unsigned n, uint64_t t_meas, uint64_t t_end);

/* ---- engine_cpus.c: the plan ---------------------------------------------------- */

/* The clock and the Esc flag every CPU of a run shares. */
struct engine_shared {
    const struct engine_timing *t;
    uint64_t t0, t_meas, t_end;
    volatile int abort;           /* set by the boot processor on Esc */
    volatile uint64_t abort_ns;
};

/* One CPU of a run and the units it polls (contiguous in the plan). */
struct engine_cpu {
    unsigned cpu;                 /* platform CPU index, 0: the boot processor */
    struct disk_job *jobs;
    unsigned n;
    struct engine_shared *sh;
    enum phase phase;
    bool aborted;
    uint64_t busy_ns, loops;      /* in the measured window */
    bool started;                 /* running on an application processor */
    volatile int finished;        /* ...and done (set by it) */
    bool hung;                    /* not done by the join deadline */
};

struct engine_plan {
    struct disk_job *units;       /* by CPU: cpus[k].jobs points into it */
    unsigned nunits;
    unsigned *parent;             /* unit -> index of its job */
    bool owned;                   /* units are copies (else the caller's jobs) */
    struct engine_cpu cpus[ENGINE_MAX_CPUS];
    unsigned ncpus;
};

/* Everything on the boot processor, the jobs as they are. */
void engine_plan_single(struct engine_plan *p, struct disk_job *jobs, unsigned n);
/* Cut the jobs into units and place them on up to ncpus CPUs: firmware
 * disks and sweeps on the boot processor; a random job on a disk whose
 * queues may be driven from different CPUs (bm_disk.mp_queues): one unit
 * per queue pair; any other job one unit, on the same CPU as the other
 * disks of its controller. BM_OK, or BM_ENOMEM (p is then single). */
int engine_plan_spread(struct engine_plan *p, struct disk_job *jobs, unsigned n, unsigned ncpus);
/* Fold the units' results back into their jobs (cpus, each CPU's busy
 * share) and free the copies, unless a CPU hung with them. */
void engine_plan_merge(struct engine_plan *p, struct disk_job *jobs, unsigned n);

#endif
