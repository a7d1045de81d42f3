/* Pure pieces of the memory benchmark, unit-tested on the host: the
 * pointer chains the latency test follows, the working-set sizes, the plan
 * (how big, how many passes) and the statistics of passes. */
#ifndef BAREMARK_MEM_CHAIN_H
#define BAREMARK_MEM_CHAIN_H

#include "../config.h"
#include "../platform.h"

#define MEM_LINE 64ull     /* bytes per cache line: one chase step */
#define MEM_PAGE 4096ull   /* page_random shuffles lines inside 4 KiB */
#define MEM_KIB (1ull << 10)
#define MEM_MIB (1ull << 20)
#define MEM_GIB (1ull << 30)

enum mem_pattern {
    MEM_STRIDE = 0,     /* lines in address order: what prefetchers make fast */
    MEM_PAGE_RANDOM,    /* random order inside each 4 KiB page, pages in order */
    MEM_FULL_RANDOM,    /* one pseudo-random cycle over every line */
    MEM_PATTERNS
};

const char *mem_pattern_name(enum mem_pattern p);

/* Link the 64-byte lines of buf[0, bytes) into one cycle in pattern p: the
 * first 8 bytes of each line point to the next line to visit. bytes must be
 * a multiple of 4 KiB. Every line is visited exactly once per lap. Returns
 * the line to start from. seed makes the random patterns repeatable. */
void *mem_chain_build(void *buf, uint64_t bytes, enum mem_pattern p, uint64_t seed);

/* Working-set sizes for the latency curve: 4 KiB, then 8 KiB and up in
 * steps of 1x and 1.5x a power of two (all whole pages), up to max_bytes;
 * max_bytes itself (rounded down to whole pages) ends the list if it is not
 * a step. Returns the count (at most cap). */
size_t mem_latency_sizes(uint64_t max_bytes, uint64_t *out, size_t cap);

/* How a run is sized. */
struct mem_plan {
    enum bm_level level;
    unsigned cpus;
    uint64_t llc_bytes;       /* last-level cache, one instance */
    uint64_t lat_max_bytes;   /* largest latency working set */
    unsigned lat_passes;      /* timed passes per latency point */
    uint64_t lat_pass_ns;     /* aim for this long per pass */
    uint64_t lat_pass_loads;  /* and at least this many loads */
    uint64_t lat_warm_ns;     /* at most this long warming a working set */
    uint64_t bw_bytes;        /* bandwidth buffer of a thread running alone */
    uint64_t bw_all_bytes;    /* per thread when all threads run (<= bw_bytes) */
    unsigned bw_passes;
    uint64_t bw_pass_ns;
    bool capped_by_option;    /* mem_max= made something smaller */
    bool capped_by_memory;    /* free memory made something smaller */
};

/* Size a run from the level, the LLC, free memory, the mem_max= cap
 * (0 = none) and the CPU count:
 *  - latency: up to max(4 x LLC, 256 MiB) for quick; full adds up to 1 GiB;
 *    never more than a quarter of free memory;
 *  - bandwidth: one thread streams max(4 x LLC, 64 MiB); with all threads
 *    running, each has as much, as long as all of them together stay within
 *    a quarter of free memory and 4 GiB (quick) or 16 GiB (full);
 *  - mem_max caps both. Sizes are whole 2 MiB (large-page) multiples when
 *    they are that big, whole pages otherwise. */
void mem_plan_make(struct mem_plan *p, enum bm_level level, uint64_t llc_bytes, uint64_t free_bytes,
                   uint64_t mem_max_bytes, unsigned cpus);

/* Order statistics of a few passes. */
struct mem_spread {
    double min, median, max;
};
/* Sorts v in place. n >= 1. */
void mem_spread_of(double *v, unsigned n, struct mem_spread *s);

/* "4 KiB", "1.5 MiB", "2 GiB": a size for people. */
void mem_size_text(char *buf, size_t cap, uint64_t bytes);

#endif
