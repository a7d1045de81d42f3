/* The disk benchmark engine: drives any struct bm_disk through its tagged
 * submit/poll interface and measures what comes back. No register knowledge.
 *
 * A test runs as one job per disk; engine_run() drives one or several jobs
 * at the same time (the "all disks at once" tests are simply several
 * jobs). Each job owns its buffers, offsets, counters and histogram and
 * shares nothing with other jobs but the clock, so a run is spread over
 * the CPUs: native disks' jobs (and each queue pair of a multi-queue disk's
 * random job) run on the application processors, each CPU polling only its
 * own queues with the same deadlines (engine_internal.h). Disks on the
 * firmware path stay on the boot processor (UEFI boot services are not
 * multiprocessor-safe), and so does everything that prints. The run
 * reports how many CPUs drove each job and how busy each CPU was. */
#ifndef BAREMARK_DISK_ENGINE_H
#define BAREMARK_DISK_ENGINE_H

#include "../../drivers/blkdev.h"
#include "histogram.h"
#include "offsets.h"

/* A workload, as named: "RND4K-Q32T16" is 4 KiB random, 16 queues of 32. */
struct disk_test {
    char name[24];
    enum bm_io_op op;
    bool random;
    uint32_t bs;          /* bytes per I/O */
    uint32_t qd;          /* I/Os in flight per queue */
    uint32_t threads;     /* queues driven at once */
};

struct engine_timing {
    uint64_t warmup_ns;   /* run, but not counted */
    uint64_t measure_ns;  /* counted */
    uint64_t stall_ns;    /* commands in flight and no completion for this long: the disk is dead */
};

/* Where a job's first failure happened, for callers that word it themselves. */
enum engine_fail_at {
    ENGINE_FAIL_NONE = 0,
    ENGINE_FAIL_SUBMIT,     /* the driver refused a command (fail_lba) */
    ENGINE_FAIL_COMPLETION, /* a command completed with an error (fail_lba, fail_device) */
    ENGINE_FAIL_STALL,      /* commands in flight and no completion for stall_ns */
    ENGINE_FAIL_OTHER,      /* polling failed, or the driver completed a tag not in flight */
};

/* What a sweep (engine_job_prepare_sweep) does with the data of each I/O:
 * fill the buffer before a write is submitted, check it once a read has
 * completed without error. Either may be NULL. */
struct engine_io_hooks {
    void (*fill)(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf);
    void (*check)(void *ctx, uint64_t lba, uint32_t blocks, const uint8_t *buf);
    /* Optional: the sweep's I/O in the caller's order instead of front to
     * back (re-reads first, say): the next I/O to start, of at most the
     * sweep's chunk, or false for none now. A sweep with next ends when
     * next gives nothing and no I/O is in flight; it is asked again after
     * every completion. */
    bool (*next)(void *ctx, uint64_t *lba, uint32_t *blocks);
    /* Optional: every I/O as it ends, status BM_OK or its error (detail:
     * the device's decoded status), lat_ns from its submission to its
     * completion at now_ns. With it a failed I/O does not fail the job:
     * the hook owns the error and the sweep goes on. */
    void (*done)(void *ctx, uint64_t lba, uint32_t blocks, int status, const char *detail, uint64_t lat_ns,
                 uint64_t now_ns);
    /* The hooks touch nothing but their ctx (no output, no firmware call):
     * the sweep of a native disk may then run on any CPU, as the other
     * tests' jobs do (engine_cpus.c); else it stays on the boot processor. */
    bool mp_safe;
};

/* One logical I/O slot: an I/O of bs bytes, split into commands when the
 * disk takes less per command or has a chunk boundary inside it. */
struct io_slot {
    uint64_t lba;
    uint32_t blocks;      /* this I/O's length (a sweep's last one may be short) */
    uint64_t start_ns;    /* first command submitted */
    uint32_t next_piece;  /* the next command to submit */
    uint32_t next_block;  /* blocks of the I/O submitted so far */
    uint32_t pieces_left; /* submitted and not completed */
    int status;           /* a sweep's I/O: BM_OK, or its first failed command's (the hook hears it) */
    bool busy;            /* an I/O is under way in this slot */
};

#define ENGINE_MAX_CPUS 64  /* CPUs one run uses at most */
#define ENGINE_JOB_CPUS 16  /* CPUs a job's record lists */

struct disk_job {
    struct bm_disk *disk;
    struct disk_test test;
    unsigned q_base;      /* the disk's first queue this job drives (a unit of a spread job) */

    /* What runs, after the disk's limits (see note). */
    unsigned nq;          /* queues used */
    uint32_t qd;          /* I/Os in flight per queue */
    uint32_t pieces;      /* commands per I/O, at most (each slot's tags: slot * pieces + piece) */
    uint32_t piece_blocks;
    uint32_t chunk_blocks; /* no command crosses a multiple of this (bm_disk.chunk_bytes), 0: none */
    char (*part_detail)[64]; /* a sweep with a done hook and pieces > 1: each slot's failed command, decoded */
    uint64_t io_blocks;
    char note[120];       /* how what ran differs from the test's name, "" if not */

    /* A sweep: every block of [sweep_first, sweep_end) once, in order, then done. */
    bool sweep;
    uint64_t sweep_first, sweep_next, sweep_end;
    const struct engine_io_hooks *hooks;
    void *hooks_ctx;

    /* Running state. */
    struct offset_gen gen;
    uint8_t *buf;         /* nq * qd * bs bytes of DMA memory */
    size_t buf_bytes;
    struct io_slot *slots;
    uint32_t pending;     /* slots waiting for queue room (BM_EBUSY) */
    uint32_t inflight;    /* commands the device holds */
    uint64_t last_event_ns;
    uint64_t stamp_key, stamp_seq;
    bool stopping;        /* no new I/O */
    uint64_t window_end;  /* end of this job's measured window (UINT64_MAX: open, see engine_run) */

    /* Results. */
    struct histogram *hist;  /* latency of each I/O completed in the measured window (NULL: not kept,
                              * the per-I/O cost benchmark's "hist off" row only) */
    uint64_t ios, bytes;     /* I/Os and bytes completed in the measured window */
    uint64_t live_bytes;     /* every completion, for the progress line */
    uint64_t recovered;      /* commands the device completed after correcting an error itself
                              * (bm_disk.recovered), over the whole run of the job: warm-up, window and
                              * drain; done, counted in ios like any other */
    double seconds;          /* the measured window (longer than asked when no I/O finished in it) */
    int status;              /* BM_OK, or the first failure */
    char detail[160];        /* the failure, decoded */
    enum engine_fail_at fail_at; /* where it happened */
    uint64_t fail_lba;       /* the I/O's first LBA (submit, completion) */
    char fail_device[64];    /* the device's decoded status (completion), "" if none */
    bool stuck;              /* commands may still be in flight: never free buf */
    bool cpu_hung;           /* its CPU never came back: never free anything it used */

    /* Where it ran (engine_run). */
    unsigned cpu;            /* a unit's CPU (engine_cpus.c) */
    unsigned cpus;           /* CPUs that drove it */
    double cpu_busy_pct[ENGINE_JOB_CPUS]; /* each one's busy share of the measured window */
};

struct engine_run_stats {
    double core_busy_pct; /* the busiest CPU's share of the measured window spent working */
    uint64_t loops;       /* polling rounds in the measured window (all CPUs) */
    unsigned cpus;        /* CPUs that polled disks */
    double cpu_busy_pct[ENGINE_MAX_CPUS]; /* each one's share */
};

/* Set up a job for disk d. BM_OK; BM_ENOTSUP when the test cannot run on
 * this disk (why says so: block size, capacity, queue limits); BM_ENOMEM.
 * Write tests get a buffer of incompressible data. */
int engine_job_prepare(struct disk_job *j, struct bm_disk *d, const struct disk_test *t, uint64_t seed, char *why,
                       size_t why_len);
/* Set up a sweep of disk d: op over blocks blocks from first_lba, once, in
 * I/Os of chunk_blocks (one command each: at most the disk's transfer
 * limit) with qd of them in flight on queue 0. Reads start from a buffer
 * of 0xa5 bytes, so nothing left in it passes a check. Run it with
 * engine_run(), whose window it ignores: it ends when the last I/O has
 * completed (t->stall_ns still applies). BM_OK, BM_ENOTSUP (why says
 * why), BM_ENOMEM. */
int engine_job_prepare_sweep(struct disk_job *j, struct bm_disk *d, enum bm_io_op op, uint64_t first_lba,
                             uint64_t blocks, uint32_t chunk_blocks, uint32_t qd, const struct engine_io_hooks *hooks,
                             void *hooks_ctx, char *why, size_t why_len);
/* Free a job's memory. The data buffer is kept (leaked, with a log line)
 * when commands may still be in flight: a device may DMA into it. */
void engine_job_free(struct disk_job *j);

/* Run the jobs at the same time: warm-up, measured window, drain. Returns
 * BM_OK (each job's status says how it went) or BM_EABORT when Esc was
 * pressed (in-flight commands are drained first; results are void).
 * label names the run on the progress line. */
int engine_run(struct disk_job *jobs, unsigned n, const struct engine_timing *t, const char *label,
               struct engine_run_stats *stats);

/* Use at most max CPUs in engine_run() (0: every one; 1: the boot
 * processor alone, as before the engine was spread). */
void engine_limit_cpus(unsigned max);

/* The record's rw field: "read", "write", "randread", "randwrite". */
const char *engine_rw_name(const struct disk_test *t);

#endif
