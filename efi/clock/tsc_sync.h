/* Are two CPUs' TSCs in step? Linux check_tsc_warp()
 * (arch/x86/kernel/tsc_sync.c): both CPUs read their TSC in turn under one
 * lock, each read stored as the last; a CPU that reads a value below the
 * last one the other stored has a TSC behind it (a warp). Any warp means
 * time taken on one CPU cannot be compared with time taken on the other,
 * so the BIOS build (efi/bios/cpus_bios.c) leaves such a CPU out. The loop
 * is here, apart from the machine: the TSC read is a function, so unit
 * tests drive two simulated CPUs step by step. */
#ifndef BAREMARK_CLOCK_TSC_SYNC_H
#define BAREMARK_CLOCK_TSC_SYNC_H

#include "../platform.h"

/* Linux: the first AP 20 ms, every later one 2 ms (loop_timeout()). */
#define TSC_SYNC_FIRST_NS 20000000ull
#define TSC_SYNC_NEXT_NS 2000000ull
/* ... and at most this many rounds per CPU, as its "i > 10000000". */
#define TSC_SYNC_MAX_LOOPS 10000000ull

struct tsc_warp {
    uint32_t lock;
    uint64_t last;          /* the last TSC value either CPU stored */
    uint64_t max_warp;      /* the largest step back seen, TSC ticks */
    uint64_t warps;         /* how many reads stepped back */
    uint64_t rounds;        /* reads, both CPUs */
};

typedef uint64_t (*tsc_read_fn)(void *ctx);

/* One round on one CPU: take the lock, read the TSC, compare with and
 * store as the last, give the lock back. Returns the value read. */
uint64_t tsc_warp_step(struct tsc_warp *w, tsc_read_fn read, void *ctx);
/* One CPU's side of the check: rounds until its own TSC is `ticks` past
 * its first read or max_loops rounds have run. Both CPUs run it at once on
 * the same w (zeroed before). */
void tsc_warp_run(struct tsc_warp *w, tsc_read_fn read, void *ctx, uint64_t ticks, uint64_t max_loops);
/* The largest warp in ns for a TSC of tsc_hz (rounded up: a warp of one
 * tick is not 0 ns). */
uint64_t tsc_warp_ns(const struct tsc_warp *w, uint64_t tsc_hz);

#endif
