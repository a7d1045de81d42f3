/* RAM the MTRRs leave uncached (mtrr.h). */
#include "mtrr.h"

#define MIB (1ull << 20)

const char *mtrr_type_name(uint8_t type)
{
    switch (type) {
    case MTRR_TYPE_UC: return "UC";
    case MTRR_TYPE_WC: return "WC";
    case MTRR_TYPE_WT: return "WT";
    case MTRR_TYPE_WP: return "WP";
    case MTRR_TYPE_WB: return "WB";
    default: return "reserved";
    }
}

static uint64_t phys_mask(const struct mtrr_state *s)
{
    unsigned bits = s->phys_bits >= 36 && s->phys_bits <= 52 ? s->phys_bits : 36;
    return ((1ull << bits) - 1) & ~0xfffull;
}

/* A valid variable MTRR's range when its mask is contiguous (the usual
 * case: size a power of two, base aligned to it); false for a mask with
 * holes, whose matches repeat through the address space. */
static bool var_range(const struct mtrr_state *s, unsigned i, uint64_t *lo, uint64_t *hi)
{
    uint64_t pm = phys_mask(s), mask = s->var[i].mask & pm, size;

    if (!mask)
        return false;
    size = mask & -mask;                /* lowest set bit */
    if ((mask | (size - 1)) != (pm | 0xfff))
        return false;
    *lo = s->var[i].base & mask;
    *hi = *lo + size;
    return true;
}

uint8_t mtrr_type_at(const struct mtrr_state *s, uint64_t a)
{
    uint64_t pm = phys_mask(s);
    int type = -1;

    if (!(s->def_type & MTRR_DEF_TYPE_E))
        return MTRR_TYPE_UC;
    for (unsigned i = 0; i < s->nvar && i < MTRR_VAR_MAX; i++) {
        uint64_t mask = s->var[i].mask & pm;
        uint8_t t = (uint8_t)s->var[i].base;
        if (!(s->var[i].mask & MTRR_PHYSMASK_VALID) || (a & mask) != (s->var[i].base & mask))
            continue;
        if (type < 0 || type == t)
            type = t;
        else if (type == MTRR_TYPE_UC || t == MTRR_TYPE_UC)
            type = MTRR_TYPE_UC;
        else if ((type == MTRR_TYPE_WT && t == MTRR_TYPE_WB) || (type == MTRR_TYPE_WB && t == MTRR_TYPE_WT))
            type = MTRR_TYPE_WT;
        else
            type = MTRR_TYPE_UC;
    }
    return type < 0 ? (uint8_t)(s->def_type & 0xff) : (uint8_t)type;
}

static void add_point(uint64_t *pts, unsigned *n, unsigned max, uint64_t p, uint64_t lo, uint64_t hi)
{
    if (p > lo && p < hi && *n < max)
        pts[(*n)++] = p;
}

static bool is_ram(const struct e820_entry *map, unsigned n, uint64_t a)
{
    bool ram = false;

    /* Reserved wins over RAM, as the allocator (e820_page_span) has it. */
    for (unsigned i = 0; i < n; i++) {
        if (map[i].size == 0 || a < map[i].addr || a - map[i].addr >= map[i].size)
            continue;
        if (map[i].type != E820_TYPE_RAM)
            return false;
        ram = true;
    }
    return ram;
}

void mtrr_coverage(const struct mtrr_state *s, const struct e820_entry *map, unsigned n, uint64_t lo, uint64_t hi,
                   struct mtrr_coverage *c)
{
    /* Every place the answer can change: E820 edges and MTRR range edges. */
    static uint64_t pts[2 + 2 * 256 + 2 * MTRR_VAR_MAX];
    unsigned np = 0;

    memset(c, 0, sizeof(*c));
    if (hi <= lo)
        return;
    pts[np++] = lo;
    for (unsigned i = 0; i < n && i < 256; i++) {
        uint64_t end = map[i].addr + map[i].size;
        add_point(pts, &np, 2 + 2 * 256, map[i].addr, lo, hi);
        add_point(pts, &np, 2 + 2 * 256, end < map[i].addr ? UINT64_MAX : end, lo, hi);
    }
    for (unsigned i = 0; i < s->nvar && i < MTRR_VAR_MAX; i++) {
        uint64_t a, b;
        if (!(s->var[i].mask & MTRR_PHYSMASK_VALID))
            continue;
        c->var_used++;
        if (!var_range(s, i, &a, &b)) {
            c->irregular = true;
            continue;
        }
        add_point(pts, &np, sizeof(pts) / sizeof(pts[0]) - 1, a, lo, hi);
        add_point(pts, &np, sizeof(pts) / sizeof(pts[0]) - 1, b, lo, hi);
    }
    qsort(pts, np, sizeof(pts[0]), bm_cmp_u64);
    pts[np] = hi;
    for (unsigned i = 0; i < np; i++) {
        uint64_t a = pts[i], b = pts[i + 1];
        uint8_t t;
        struct mtrr_range *last;
        if (b <= a || !is_ram(map, n, a))
            continue;
        c->ram_bytes += b - a;
        t = mtrr_type_at(s, a);
        if (t == MTRR_TYPE_WB)
            continue;
        c->uncached_bytes += b - a;
        last = c->nranges ? &c->ranges[c->nranges - 1] : NULL;
        if (last && last->type == t && last->addr + last->size == a) {
            last->size += b - a;
        } else if (c->nranges < MTRR_COVERAGE_MAX) {
            c->ranges[c->nranges++] = (struct mtrr_range){ a, b - a, t };
        } else {
            c->dropped++;
        }
    }
}

void mtrr_coverage_describe(const struct mtrr_state *s, const struct mtrr_coverage *c, char *buf, size_t len)
{
    size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
    if (!len)
        return;
    buf[0] = '\0';
    if (!(s->def_type & MTRR_DEF_TYPE_E)) {
        ADD("MTRRs disabled: all %llu MiB of RAM is uncached (UC); it is left out of buffers and bandwidth",
            (unsigned long long)(c->ram_bytes / MIB));
        return;
    }
    if (!c->uncached_bytes)
        ADD("all %llu MiB of RAM above 1 MiB is write-back", (unsigned long long)(c->ram_bytes / MIB));
    else
        ADD("%llu MiB of %llu MiB of RAM is not write-back and is left out of buffers and bandwidth:",
            (unsigned long long)((c->uncached_bytes + MIB - 1) / MIB), (unsigned long long)(c->ram_bytes / MIB));
    for (unsigned i = 0; i < c->nranges; i++)
        ADD("%s 0x%llx-0x%llx %s", i ? "," : "", (unsigned long long)c->ranges[i].addr,
            (unsigned long long)(c->ranges[i].addr + c->ranges[i].size - 1), mtrr_type_name(c->ranges[i].type));
    if (c->dropped)
        ADD(" and %u more", c->dropped);
    ADD(" (default %s, %u of %u variable MTRRs used%s)", mtrr_type_name((uint8_t)s->def_type), c->var_used, s->nvar,
        c->irregular ? "; a mask with holes, checked at range starts only" : "");
#undef ADD
}
