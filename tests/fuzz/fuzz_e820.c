/* The E820 memory map the loader hands the BIOS build (efi/mem/e820.c):
 * the input is up to 128 entries of 20 bytes (address, size, type), the
 * allocator's two passes are replayed on a page map of the first 64 MiB
 * (RAM frees, every other type takes back). Aborts if a span is not whole
 * pages inside the limits, if RAM's span leaves its entry, or if a page a
 * non-RAM entry touches ends up free (reserved wins). */
#include "fuzz.h"
#include "mem/e820.h"

#define LIMIT (64ull << 20)
#define PAGES (LIMIT / E820_PAGE)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static uint8_t page_free[PAGES];
    struct e820_entry map[128];
    unsigned count = (unsigned)(n / sizeof(struct e820_entry));
    uint64_t lo_limit, lo, hi;

    if (count > 128)
        count = 128;
    memcpy(map, data, count * sizeof(struct e820_entry));
    lo_limit = n ? (data[n - 1] % 16) * E820_PAGE : 0;
    memset(page_free, 0, sizeof(page_free));
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < count; i++) {
            bool ram = map[i].type == E820_TYPE_RAM;
            unsigned __int128 end = (unsigned __int128)map[i].addr + map[i].size;
            if (ram != (pass == 0) || !e820_page_span(&map[i], lo_limit, LIMIT, &lo, &hi))
                continue;
            if (lo % E820_PAGE || hi % E820_PAGE || lo < lo_limit || hi > LIMIT || lo >= hi)
                abort();
            if (ram && (lo < map[i].addr || hi > end))
                abort();
            memset(page_free + lo / E820_PAGE, ram, (hi - lo) / E820_PAGE);
        }
    for (unsigned i = 0; i < count; i++) {
        unsigned __int128 end = (unsigned __int128)map[i].addr + map[i].size;
        if (map[i].type == E820_TYPE_RAM || !map[i].size)
            continue;
        for (uint64_t p = map[i].addr / E820_PAGE; p < PAGES && (unsigned __int128)p * E820_PAGE < end; p++)
            if (p * E820_PAGE >= lo_limit && page_free[p])
                abort();
    }
    (void)e820_ram_top(map, count, LIMIT);
    return 0;
}
