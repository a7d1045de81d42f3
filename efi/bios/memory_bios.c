/* Memory on a BIOS PC: the E820 map from the loader becomes a bitmap of
 * free 4 KiB pages, from which come page allocations and, carved into
 * power-of-two blocks, the small ones. Physical == virtual: head_bios.S
 * identity-maps the first 4 GiB; RAM above that is mapped here, with 2 MiB
 * pages, up to the top of E820 RAM (at most 512 GiB, one PDPT). */
#include "bios_private.h"
#include "../mem/e820.h"

#define PAGE 4096ull
#define LOW_LIMIT (4ull << 30)               /* what head_bios.S maps */
#define NPAGES (LOW_LIMIT / PAGE)
#define HIGH_LIMIT (512ull << 30)            /* what one PDPT maps */
#define PTE_PRESENT_RW 0x3ull
#define PDE_2M (0x80ull | PTE_PRESENT_RW)
#define SMALL_MIN_SHIFT 5                    /* 32-byte blocks ... */
#define SMALL_MAX_SHIFT 11                   /* ... up to 2 KiB */
#define HDR 16                               /* block header: class or pages */

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

/* Usable RAM above the image: free. Everything else (the first MiB with
 * the BIOS data, EBDA and option ROMs; our image; reserved and ACPI ranges)
 * stays used. */
void bios_memory_init(void)
{
    uint64_t lowest = ((uint64_t)(uintptr_t)_end + PAGE - 1) & ~(PAGE - 1);

    mark_e820(lowest, LOW_LIMIT);
    map_high();
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
