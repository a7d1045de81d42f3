/* Pointer chains, working-set sizes, the run plan and pass statistics.
 * Pure functions: no clock, no CPUs, no firmware. */
#include "mem_chain.h"

/* The pattern's name in records. */
const char *mem_pattern_name(enum mem_pattern p)
{
    switch (p) {
    case MEM_STRIDE: return "stride";
    case MEM_PAGE_RANDOM: return "page_random";
    case MEM_FULL_RANDOM: return "full_random";
    default: return "?";
    }
}

/* Line i of a chain buffer, as the pointer slot at its start. */
static inline void **line_at(uint8_t *base, uint64_t i) { return (void **)(base + i * MEM_LINE); }

/* Each line points to the next one; the last to the first. */
static void *build_stride(uint8_t *b, uint64_t lines)
{
    for (uint64_t i = 0; i + 1 < lines; i++)
        *line_at(b, i) = line_at(b, i + 1);
    *line_at(b, lines - 1) = line_at(b, 0);
    return line_at(b, 0);
}

/* Pages in order, the 64 lines of each in a fresh random order. */
static void *build_page_random(uint8_t *b, uint64_t bytes, struct bm_rng *rng)
{
    const unsigned per_page = (unsigned)(MEM_PAGE / MEM_LINE);
    uint64_t pages = bytes / MEM_PAGE;
    uint8_t order[MEM_PAGE / MEM_LINE];
    void **prev = NULL, **first = NULL;

    for (uint64_t pg = 0; pg < pages; pg++) {
        /* A fresh random order of the page's lines (Fisher-Yates). */
        for (unsigned k = 0; k < per_page; k++)
            order[k] = (uint8_t)k;
        for (unsigned k = per_page - 1; k > 0; k--) {
            unsigned j = (unsigned)bm_rng_below(rng, k + 1);
            uint8_t t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        for (unsigned k = 0; k < per_page; k++) {
            void **cur = line_at(b, pg * per_page + order[k]);
            if (prev)
                *prev = cur;
            else
                first = cur;
            prev = cur;
        }
    }
    *prev = first;
    return first;
}

/* A keyed pseudo-random permutation of [0, n): a 4-round Feistel network
 * over bits = ceil(log2 n) bits, with cycle-walking (apply it again until
 * the value falls below n), which keeps it a bijection on [0, n). When
 * bits is odd the two halves differ by a bit and trade places every round
 * (an unbalanced Feistel network), so the domain is less than 2n and, for
 * the power-of-two sizes, exactly n: the walk, and its mispredicted
 * branches, mostly disappear. Its inverse is as cheap, so the chain can be
 * written in address order: line a points to perm(perm_inverse(a) + 1).
 * That makes building a 2 GiB chain a sequential write plus arithmetic; a
 * Fisher-Yates shuffle, or linking in visiting order, costs a cache and TLB
 * miss per line (seconds at that size). */
struct line_perm {
    uint64_t n;
    unsigned bits, lo_bits;  /* round 0 splits top (bits - lo_bits) | bottom (lo_bits) */
    uint64_t keys[4];
};

static void perm_init(struct line_perm *p, uint64_t n, struct bm_rng *rng)
{
    unsigned bits = 2;

    while ((1ull << bits) < n)
        bits++;
    p->n = n;
    p->bits = bits;
    p->lo_bits = bits / 2;
    for (unsigned i = 0; i < ARRAY_SIZE(p->keys); i++)
        p->keys[i] = bm_rng_next(rng);
}

/* Round function: the key mixed into one part by a 64-bit multiply, whose
 * top bits (the best mixed) become the mask for the other part. With four
 * rounds the visiting order looks uniform where the hardware could notice:
 * on 4M lines, the share of steps that stay in a 2 MiB page or land within
 * 64 KiB matches a uniform random order (three rounds kept 3.5 times too
 * many steps inside a 2 MiB page). */
static inline uint64_t round_fn(uint64_t part, uint64_t key, unsigned width)
{
    return ((part + key) * 0x9e3779b97f4a7c15ull ^ key) >> (64 - width);
}

/* Width of round k's top part; the bottom has the rest. The widths swap
 * every round, so an odd bit count still mixes every bit. */
static inline unsigned top_width(const struct line_perm *p, unsigned k)
{
    return k % 2 == 0 ? p->bits - p->lo_bits : p->lo_bits;
}

/* One pass of the network over [0, 2^bits): round k takes x as top | bottom
 * and makes it bottom | (top ^ F(bottom)). */
static inline uint64_t feistel(const struct line_perm *p, uint64_t x)
{
    for (unsigned k = 0; k < ARRAY_SIZE(p->keys); k++) {
        unsigned wt = top_width(p, k), wb = p->bits - wt;
        uint64_t top = x >> wb, bot = x & ((1ull << wb) - 1);
        x = (bot << wt) | (top ^ round_fn(bot, p->keys[k], wt));
    }
    return x;
}

/* The network backwards: round k undone is bottom | (low ^ F(bottom)) -> top | bottom. */
static inline uint64_t feistel_inverse(const struct line_perm *p, uint64_t x)
{
    for (unsigned k = ARRAY_SIZE(p->keys); k-- > 0;) {
        unsigned wt = top_width(p, k), wb = p->bits - wt;
        uint64_t bot = x >> wt, low = x & ((1ull << wt) - 1);
        x = ((low ^ round_fn(bot, p->keys[k], wt)) << wb) | bot;
    }
    return x;
}

/* perm(i): the line visited i-th. */
static inline uint64_t perm_at(const struct line_perm *p, uint64_t i)
{
    do
        i = feistel(p, i);
    while (i >= p->n);
    return i;
}

/* perm^-1(line): when that line is visited. */
static inline uint64_t perm_inverse(const struct line_perm *p, uint64_t i)
{
    do
        i = feistel_inverse(p, i);
    while (i >= p->n);
    return i;
}

/* The visiting order is perm(0), perm(1), ..., perm(n-1), back to perm(0):
 * one cycle through every line, because perm is a bijection. */
static void *build_full_random(uint8_t *b, uint64_t lines, struct bm_rng *rng)
{
    struct line_perm perm;

    perm_init(&perm, lines, rng);
    for (uint64_t a = 0; a < lines; a++) {
        uint64_t k = perm_inverse(&perm, a) + 1;
        *line_at(b, a) = line_at(b, perm_at(&perm, k < lines ? k : 0));
    }
    return line_at(b, perm_at(&perm, 0));
}

/* Link buf's lines into one cycle in pattern p (see mem_chain.h). */
void *mem_chain_build(void *buf, uint64_t bytes, enum mem_pattern p, uint64_t seed)
{
    struct bm_rng rng;
    uint64_t lines = bytes / MEM_LINE;

    if (!buf || bytes < MEM_PAGE || bytes % MEM_PAGE)
        return NULL;
    bm_rng_seed(&rng, seed);
    switch (p) {
    case MEM_STRIDE: return build_stride(buf, lines);
    case MEM_PAGE_RANDOM: return build_page_random(buf, bytes, &rng);
    case MEM_FULL_RANDOM: return build_full_random(buf, lines, &rng);
    default: return NULL;
    }
}

/* The latency curve's working sets (see mem_chain.h). */
size_t mem_latency_sizes(uint64_t max_bytes, uint64_t *out, size_t cap)
{
    size_t n = 0;
    uint64_t last = max_bytes / MEM_PAGE * MEM_PAGE;

    if (last < MEM_PAGE || cap == 0)
        return 0;
    out[n++] = MEM_PAGE;
    /* 1x and 1.5x each power of two from 8 KiB: both whole pages, and the
     * half steps show where each cache level ends without doubling the
     * run time. */
    for (uint64_t pow = 2 * MEM_PAGE; pow <= last && n < cap; pow *= 2) {
        out[n++] = pow;
        if (pow + pow / 2 <= last && n < cap)
            out[n++] = pow + pow / 2;
    }
    if (out[n - 1] < last && n < cap)
        out[n++] = last;
    return n;
}

/* Round down to whole 2 MiB (when at least that big) or whole pages. */
static uint64_t round_size(uint64_t v)
{
    if (v >= 2 * MEM_MIB)
        return v / (2 * MEM_MIB) * (2 * MEM_MIB);
    return v / MEM_PAGE * MEM_PAGE;
}

/* size cut to a quarter of free memory and to mem_max= (0: none), noting in
 * p which of the two cut it. */
static uint64_t capped_size(uint64_t size, uint64_t quarter, uint64_t mem_max_bytes, struct mem_plan *p)
{
    if (size > quarter) {
        size = round_size(quarter);
        p->capped_by_memory = true;
    }
    if (mem_max_bytes && size > mem_max_bytes) {
        size = mem_max_bytes / MEM_PAGE * MEM_PAGE;
        p->capped_by_option = true;
    }
    return size;
}

/* Size a run (see mem_chain.h for the rules). */
void mem_plan_make(struct mem_plan *p, enum bm_level level, uint64_t llc_bytes, uint64_t free_bytes,
                   uint64_t mem_max_bytes, unsigned cpus)
{
    uint64_t quarter = free_bytes / 4, lat, bw, bw_total_cap;

    memset(p, 0, sizeof(*p));
    p->level = level;
    p->cpus = cpus ? cpus : 1;
    p->llc_bytes = llc_bytes;

    /* Latency: past every cache (4x the LLC) and past TLB reach (256 MiB). */
    lat = MAX(256 * MEM_MIB, 4 * llc_bytes);
    if (level == LEVEL_FULL)
        lat = MAX(lat, MEM_GIB);
    lat = ALIGN_UP(lat, 2 * MEM_MIB);
    lat = capped_size(lat, quarter, mem_max_bytes, p);
    p->lat_max_bytes = MAX(lat, MEM_PAGE);

    /* Bandwidth: a thread streams its own buffer, 4x the LLC so the caches
     * hold none of it. With every thread running, the buffers together stay
     * within a quarter of free memory, and within 4 GiB for quick: they are
     * zeroed when allocated, which takes time on machines with many
     * threads, and their sum is still many times all the LLCs together. */
    bw = ALIGN_UP(MAX(64 * MEM_MIB, 4 * llc_bytes), 2 * MEM_MIB);
    bw = capped_size(bw, quarter, mem_max_bytes, p);
    p->bw_bytes = MAX(bw, 2 * MEM_PAGE);
    bw_total_cap = MIN(quarter, level == LEVEL_FULL ? 16 * MEM_GIB : 4 * MEM_GIB);
    p->bw_all_bytes = p->bw_bytes;
    if (p->bw_all_bytes * p->cpus > bw_total_cap)
        p->bw_all_bytes = MAX(round_size(bw_total_cap / p->cpus), 2 * MEM_PAGE);

    if (level == LEVEL_FULL) {
        p->lat_passes = 9;
        p->lat_pass_ns = 5000000;
        p->lat_pass_loads = 65536;
        p->lat_warm_ns = 100000000;
        p->bw_passes = 9;
        p->bw_pass_ns = 50000000;
    } else {
        p->lat_passes = 5;
        p->lat_pass_ns = 2000000;
        /* A pass of a few thousand DRAM misses is short enough to land in
         * a lull of other traffic now and then, and the best pass would
         * then flatter the memory; 32768 misses average over ~10 ms. */
        p->lat_pass_loads = 32768;
        p->lat_warm_ns = 20000000;
        p->bw_passes = 5;
        p->bw_pass_ns = 20000000;
    }
}

/* Min, median and max of n passes. */
void mem_spread_of(double *v, unsigned n, struct mem_spread *s)
{
    s->median = bm_sort_median(v, n);
    s->min = v[0];
    s->max = v[n - 1];
}

/* A size in the largest binary unit that shows it exactly (or as x.5):
 * "1.5 GiB", but "1568 MiB" rather than a rounded "1.5 GiB". */
void mem_size_text(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    unsigned u = 0;
    uint64_t scale = 1;

    while (u + 1 < ARRAY_SIZE(units) && bytes >= scale * 1024)
        scale *= 1024, u++;
    while (u > 0 && (bytes * 2) % scale != 0)
        scale /= 1024, u--;
    if (bytes % scale == 0)
        snprintf(buf, cap, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
    else
        snprintf(buf, cap, "%llu.5 %s", (unsigned long long)(bytes / scale), units[u]);
}
