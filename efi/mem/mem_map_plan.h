/* The measured memory map, its pure half: cut usable RAM into regions and
 * judge the measured regions against each other. Unit-tested on synthetic
 * memory maps (tests/unit/test_mem_map.c); mem_map.c measures. */
#ifndef BAREMARK_MEM_MAP_PLAN_H
#define BAREMARK_MEM_MAP_PLAN_H

#include "../platform.h"

#define MEM_MAP_MAX_RANGES 256
#define MEM_MAP_MAX_REGIONS 64
#define MEM_MAP_MAX_CUTS 64
/* A region is slow when its read bandwidth is this many percent below the
 * median of its node's regions, or its latency this many percent above. */
#define MEM_MAP_SLOW_PCT 10

/* One range of usable RAM (what an OS would own: conventional memory and
 * what boot services and loaders hold). */
struct mem_ram_range {
    uint64_t base, bytes;
};

struct mem_region {
    uint64_t base, end;      /* physical span [base, end) */
    uint64_t ram_bytes;      /* usable RAM inside the span (what the map covers) */
    int64_t node;            /* SRAT proximity domain; -1 when unknown */
    bool measured;
    uint64_t buf_base, buf_bytes; /* the buffer measured inside the span */
    unsigned threads;        /* CPUs that read it */
    unsigned latency_cpu;    /* the CPU that chased (one of the region's node) */
    double latency_ns, read_gbps;
    bool slow;               /* set by mem_map_judge() */
    char reason[96];         /* why it was not measured */
};

/* Region size for total bytes of RAM: 1/32 of it, at least 1 GiB while
 * that leaves 8 regions (smaller machines: 1/8), whole 2 MiB; regions is
 * the most the caller wants (32 for mem=full, fewer for a short map). */
uint64_t mem_map_region_bytes(uint64_t total, unsigned regions);

/* Cut the ranges (ascending, not overlapping) into regions of about
 * region_bytes of RAM each, never across a cut (NUMA node boundaries:
 * ascending addresses). The last region of a node takes the remainder.
 * Returns how many regions (at most max). */
unsigned mem_map_plan(const struct mem_ram_range *r, unsigned n, uint64_t region_bytes, const uint64_t *cuts,
                      unsigned ncuts, struct mem_region *out, unsigned max);

/* Where the NUMA node changes, in address order, from SRAT's memory
 * ranges (ranges of one node with a hole between need no cut). Returns
 * how many cuts (at most max). */
struct srat_info;
unsigned mem_map_node_cuts(const struct srat_info *srat, uint64_t *cuts, unsigned max);

/* What the judge found. */
struct mem_map_verdict {
    unsigned measured, slow;
    double median_gbps, median_latency_ns; /* over all measured regions */
    double worst_ratio;      /* median / slowest bandwidth of the slow regions (1 = none) */
    uint64_t slow_from;      /* lowest base of a slow region; 0 when none */
    bool slow_at_top;        /* every region from slow_from up is slow (the top of a node's memory) */
};

/* Mark the slow regions (per node, against that node's medians) and sum up. */
void mem_map_judge(struct mem_region *r, unsigned n, struct mem_map_verdict *v);

#endif
