/* Memory on a BIOS PC: the E820 map from the loader becomes a bitmap of
 * free 4 KiB pages, from which come page allocations and, carved into
 * power-of-two blocks, the small ones. Physical == virtual: head_bios.S
 * identity-maps the first 4 GiB; RAM above that is mapped here, with 2 MiB
 * pages, up to the top of E820 RAM (at most 512 GiB, one PDPT). */
#include "bios_private.h"
#include "../mem/e820.h"
#include "../mem/mtrr.h"

#define PAGE 4096ull
#define LOW_LIMIT (4ull << 30)               /* what head_bios.S maps */
#define NPAGES (LOW_LIMIT / PAGE)
#define HIGH_LIMIT (512ull << 30)            /* what one PDPT maps */
#define PTE_PRESENT_RW 0x3ull
#define PDE_2M (0x80ull | PTE_PRESENT_RW)
#define SMALL_MIN_SHIFT 5                    /* 32-byte blocks ... */
#define SMALL_MAX_SHIFT 11                   /* ... up to 2 KiB */
#define HDR 16                               /* block header: class or pages */
#define MIB (1ull << 20)
/* Leave uncached RAM usable when keeping it out would leave less than this
 * (MTRRs disabled by a broken BIOS): a run on uncached memory, said so,
 * rather than no run. */
#define UNCACHED_KEEP_MIN (64 * MIB)
#define MSR_MTRRCAP 0xfe
#define MSR_MTRR_DEF_TYPE 0x2ff
#define MSR_MTRR_PHYSBASE0 0x200

struct bios_e820 bios_e820_map[ZP_E820_MAX];
unsigned bios_e820_count;

extern uint64_t bios_pdpt[512];

static uint64_t low_bitmap[NPAGES / 64];     /* 1 = free, pages below 4 GiB */
static uint64_t *high_bitmap;                /* the same from 4 GiB to map_limit */
static uint64_t map_limit = LOW_LIMIT;       /* end of what is mapped and tracked */
static uint64_t free_pages;
static void *small_free[SMALL_MAX_SHIFT + 1];

static uint64_t *bitmap_word(uint64_t p)
{
    return p < NPAGES ? &low_bitmap[p / 64] : &high_bitmap[(p - NPAGES) / 64];
}

static bool page_free(uint64_t p) { return *bitmap_word(p) >> (p % 64) & 1; }

static void mark(uint64_t first, uint64_t count, bool free)
{
    for (uint64_t p = first; p < first + count; p++) {
        if (page_free(p) == free)
            continue;
        *bitmap_word(p) ^= 1ull << (p % 64);
        free_pages += free ? 1 : (uint64_t)-1;
    }
}

static void *pages_take(uint64_t n, uint64_t lo, uint64_t hi);

/* Free the usable RAM of E820 in [lo, hi), then take back what overlaps a
 * non-RAM range: as Linux e820 sanitising, reserved wins. */
static void mark_e820(uint64_t lo_limit, uint64_t hi_limit)
{
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < bios_e820_count; i++) {
            const struct bios_e820 *m = &bios_e820_map[i];
            struct e820_entry e = { m->addr, m->size, m->type };
            bool ram = e.type == E820_RAM;
            uint64_t lo, hi;
            if (ram != (pass == 0))
                continue;
            /* RAM shrinks to whole pages inside it; reserved grows to whole pages (e820.c). */
            if (e820_page_span(&e, lo_limit, hi_limit, &lo, &hi))
                mark(lo / PAGE, (hi - lo) / PAGE, ram);
        }
    }
}

/* Map RAM above 4 GiB: one page directory of 2 MiB pages per GiB, from low
 * memory, then a bitmap for those pages. Without memory for the tables the
 * RAM above 4 GiB is simply not used. */
static void map_high(void)
{
    uint64_t top, gib, bitmap_bytes;

    _Static_assert(sizeof(struct bios_e820) == sizeof(struct e820_entry), "one E820 layout");
    top = e820_ram_top((const struct e820_entry *)bios_e820_map, bios_e820_count, LOW_LIMIT);
    if (top > HIGH_LIMIT)
        top = HIGH_LIMIT;
    top = (top + (1ull << 30) - 1) & ~((1ull << 30) - 1);
    if (top <= LOW_LIMIT)
        return;
    bitmap_bytes = (top - LOW_LIMIT) / PAGE / 8;
    high_bitmap = pages_take((bitmap_bytes + PAGE - 1) / PAGE, 0, LOW_LIMIT);
    if (!high_bitmap)
        return;
    for (gib = LOW_LIMIT >> 30; gib < top >> 30; gib++) {
        uint64_t *pd = pages_take(1, 0, LOW_LIMIT);
        if (!pd)
            break;
        for (uint64_t i = 0; i < 512; i++)
            pd[i] = (gib << 30) + (i << 21) + PDE_2M;
        bios_pdpt[gib] = (uint64_t)(uintptr_t)pd | PTE_PRESENT_RW;
    }
    map_limit = gib << 30;
    mark_e820(LOW_LIMIT, map_limit);
}

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return (uint64_t)hi << 32 | lo;
}

/* The MTRRs as the BIOS left them (Intel SDM vol. 3A, 11.11.1): RAM they
 * do not make write-back is taken out of the allocator, so no buffer and
 * no bandwidth figure comes from it, as Linux mtrr_trim_uncached_memory()
 * keeps it from the kernel; a `mtrr` log record names it. */
static void mtrr_check(void)
{
    static struct mtrr_state s;
    static struct mtrr_coverage c;
    uint32_t a, b, cx, d, max_ext;
    char text[700];
    uint64_t before = free_pages, image_end = ((uint64_t)(uintptr_t)_end + PAGE - 1) & ~(PAGE - 1);

    cpuid(1, &a, &b, &cx, &d);
    if (!(d & (1u << 12))) {            /* CPUID.01h:EDX.MTRR */
        plat_diag_later("mtrr", "legacy BIOS: the CPU has no MTRRs: RAM coverage not checked");
        return;
    }
    cpuid(0x80000000, &max_ext, &b, &cx, &d);
    s.phys_bits = 36;
    if (max_ext >= 0x80000008) {
        cpuid(0x80000008, &a, &b, &cx, &d);
        s.phys_bits = a & 0xff;
    }
    s.def_type = rdmsr(MSR_MTRR_DEF_TYPE);
    s.nvar = MIN((unsigned)(rdmsr(MSR_MTRRCAP) & 0xff), MTRR_VAR_MAX);
    for (unsigned i = 0; i < s.nvar; i++) {
        s.var[i].base = rdmsr(MSR_MTRR_PHYSBASE0 + 2 * i);
        s.var[i].mask = rdmsr(MSR_MTRR_PHYSBASE0 + 2 * i + 1);
    }
    mtrr_coverage(&s, (const struct e820_entry *)bios_e820_map, bios_e820_count, MIB, map_limit, &c);
    mtrr_coverage_describe(&s, &c, text, sizeof(text));
    if (!c.uncached_bytes) {
        plat_diag_later("mtrr", "legacy BIOS: %s", text);
        return;
    }
    for (int apply = 0; apply < 2; apply++) {
        uint64_t taken = 0;
        for (unsigned i = 0; i < c.nranges; i++) {
            uint64_t lo = MAX(c.ranges[i].addr & ~(PAGE - 1), image_end);
            uint64_t hi = MIN((c.ranges[i].addr + c.ranges[i].size + PAGE - 1) & ~(PAGE - 1), map_limit);
            for (uint64_t p = lo / PAGE; p < hi / PAGE; p++)
                taken += page_free(p);
            if (apply && hi > lo)
                mark(lo / PAGE, (hi - lo) / PAGE, false);
        }
        if (!apply && (free_pages - taken) * PAGE < UNCACHED_KEEP_MIN) {
            plat_diag_later("mtrr", "legacy BIOS: %s; but that would leave less than %llu MiB, so it is used: "
                            "every memory figure of this run is of uncached memory", text,
                            (unsigned long long)(UNCACHED_KEEP_MIN / MIB));
            return;
        }
    }
    plat_diag_later("mtrr", "legacy BIOS: %s (%llu MiB fewer free)", text,
                    (unsigned long long)((before - free_pages) * PAGE / MIB));
}

/* Usable RAM above the image: free. Everything else (the first MiB with
 * the BIOS data, EBDA and option ROMs; our image; reserved and ACPI ranges)
 * stays used. */
void bios_memory_init(void)
{
    uint64_t lowest = ((uint64_t)(uintptr_t)_end + PAGE - 1) & ~(PAGE - 1);

    mark_e820(lowest, LOW_LIMIT);
    map_high();
    mtrr_check();
}

/* First fit of n free pages wholly inside [lo, hi). */
static void *pages_take(uint64_t n, uint64_t lo, uint64_t hi)
{
    uint64_t p = (lo + PAGE - 1) / PAGE, end = hi / PAGE, run = 0;

    if (end > map_limit / PAGE)
        end = map_limit / PAGE;
    for (; p < end; p++) {
        if (!(p % 64) && !*bitmap_word(p) && p + 64 <= end) {
            run = 0;
            p += 63;
            continue;
        }
        run = page_free(p) ? run + 1 : 0;
        if (run == n) {
            uint64_t first = p + 1 - n;
            mark(first, n, false);
            memset((void *)(uintptr_t)(first * PAGE), 0, n * PAGE);
            return (void *)(uintptr_t)(first * PAGE);
        }
    }
    return NULL;
}

void *plat_alloc_pages(size_t bytes, bool below_4g)
{
    if (!bytes)
        return NULL;
    return pages_take((bytes + PAGE - 1) / PAGE, 0, below_4g ? LOW_LIMIT : map_limit);
}

void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi)
{
    if (!bytes || hi <= lo)
        return NULL;
    return pages_take((bytes + PAGE - 1) / PAGE, lo, hi);
}

void plat_free_pages(void *p, size_t bytes)
{
    if (p)
        mark((uint64_t)(uintptr_t)p / PAGE, (bytes + PAGE - 1) / PAGE, true);
}

uint64_t plat_virt_to_phys(const void *p) { return (uint64_t)(uintptr_t)p; }

uint64_t plat_free_memory_bytes(void) { return free_pages * PAGE; }

/* Small blocks: a 16-byte header holds the size class (<= SMALL_MAX_SHIFT)
 * or, for larger blocks, the page count (shifted past the classes). */
void *plat_alloc(size_t bytes)
{
    unsigned shift = SMALL_MIN_SHIFT;
    uint64_t *h;

    while (shift <= SMALL_MAX_SHIFT && (1ull << shift) < bytes + HDR)
        shift++;
    if (shift > SMALL_MAX_SHIFT) {
        uint64_t n = (bytes + HDR + PAGE - 1) / PAGE;
        h = pages_take(n, 0, LOW_LIMIT);
        if (!h)
            return NULL;
        h[0] = n << 8;
        return (uint8_t *)h + HDR;
    }
    if (!small_free[shift]) {
        uint8_t *page = pages_take(1, 0, LOW_LIMIT);
        if (!page)
            return NULL;
        for (uint64_t off = 0; off + (1ull << shift) <= PAGE; off += 1ull << shift) {
            *(void **)(page + off) = small_free[shift];
            small_free[shift] = page + off;
        }
    }
    h = small_free[shift];
    small_free[shift] = *(void **)h;
    memset(h, 0, 1ull << shift);
    h[0] = shift;
    return (uint8_t *)h + HDR;
}

void plat_free(void *p)
{
    uint64_t *h;

    if (!p)
        return;
    h = (uint64_t *)((uint8_t *)p - HDR);
    if (h[0] >> 8) {
        plat_free_pages(h, (h[0] >> 8) * PAGE);
        return;
    }
    *(void **)h = small_free[h[0]];
    small_free[h[0]] = h;
}
