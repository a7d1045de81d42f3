/* Memory on a BIOS PC: the E820 map from the loader becomes a bitmap of
 * free 4 KiB pages (below 4 GiB, the part head_bios.S identity-maps), from
 * which come page allocations and, carved into power-of-two blocks, the
 * small ones. Physical == virtual. */
#include "bios_private.h"

#define PAGE 4096ull
#define MAP_LIMIT (4ull << 30)               /* what the page tables cover */
#define NPAGES (MAP_LIMIT / PAGE)
#define SMALL_MIN_SHIFT 5                    /* 32-byte blocks ... */
#define SMALL_MAX_SHIFT 11                   /* ... up to 2 KiB */
#define HDR 16                               /* block header: class or pages */

struct bios_e820 bios_e820_map[ZP_E820_MAX];
unsigned bios_e820_count;

static uint64_t free_bitmap[NPAGES / 64];    /* 1 = free */
static uint64_t free_pages;
static void *small_free[SMALL_MAX_SHIFT + 1];

static bool page_free(uint64_t p) { return free_bitmap[p / 64] >> (p % 64) & 1; }

static void mark(uint64_t first, uint64_t count, bool free)
{
    for (uint64_t p = first; p < first + count; p++) {
        if (page_free(p) == free)
            continue;
        free_bitmap[p / 64] ^= 1ull << (p % 64);
        free_pages += free ? 1 : (uint64_t)-1;
    }
}

/* Usable RAM above the image and below 4 GiB: free. Everything else (the
 * first MiB with the BIOS data, EBDA and option ROMs; our image; reserved
 * and ACPI ranges) stays used. Ranges that overlap a non-RAM one lose the
 * overlap, as Linux e820 sanitising makes reserved win. */
void bios_memory_init(void)
{
    uint64_t lowest = ((uint64_t)(uintptr_t)_end + PAGE - 1) & ~(PAGE - 1);

    for (unsigned i = 0; i < bios_e820_count; i++) {
        const struct bios_e820 *e = &bios_e820_map[i];
        uint64_t lo = (e->addr + PAGE - 1) & ~(PAGE - 1), hi = (e->addr + e->size) & ~(PAGE - 1);
        if (e->type != E820_RAM)
            continue;
        if (lo < lowest)
            lo = lowest;
        if (hi > MAP_LIMIT)
            hi = MAP_LIMIT;
        if (lo < hi)
            mark(lo / PAGE, (hi - lo) / PAGE, true);
    }
    for (unsigned i = 0; i < bios_e820_count; i++) {
        const struct bios_e820 *e = &bios_e820_map[i];
        uint64_t lo = e->addr & ~(PAGE - 1), hi = (e->addr + e->size + PAGE - 1) & ~(PAGE - 1);
        if (e->type == E820_RAM || lo >= MAP_LIMIT)
            continue;
        if (hi > MAP_LIMIT)
            hi = MAP_LIMIT;
        mark(lo / PAGE, (hi - lo) / PAGE, false);
    }
}

/* First fit of n free pages wholly inside [lo, hi). */
static void *pages_take(uint64_t n, uint64_t lo, uint64_t hi)
{
    uint64_t p = (lo + PAGE - 1) / PAGE, end = hi / PAGE, run = 0;

    if (end > NPAGES)
        end = NPAGES;
    for (; p < end; p++) {
        if (!(p % 64) && !free_bitmap[p / 64] && p + 64 <= end) {
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
    (void)below_4g; /* all we map is below 4 GiB */
    if (!bytes)
        return NULL;
    return pages_take((bytes + PAGE - 1) / PAGE, 0, MAP_LIMIT);
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
        h = pages_take(n, 0, MAP_LIMIT);
        if (!h)
            return NULL;
        h[0] = n << 8;
        return (uint8_t *)h + HDR;
    }
    if (!small_free[shift]) {
        uint8_t *page = pages_take(1, 0, MAP_LIMIT);
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
