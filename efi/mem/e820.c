/* E820 entries to page spans (e820.h). */
#include "e820.h"

/* True when addr + size passes 2^64: a malformed entry. */
static bool entry_wraps(const struct e820_entry *e)
{
    return e->size > UINT64_MAX - e->addr;
}

bool e820_page_span(const struct e820_entry *e, uint64_t lo_limit, uint64_t hi_limit, uint64_t *lo, uint64_t *hi)
{
    bool ram = e->type == E820_TYPE_RAM;
    uint64_t end, a, b;

    if (ram) {
        if (entry_wraps(e) || e->addr > UINT64_MAX - (E820_PAGE - 1))
            return false;
        a = (e->addr + E820_PAGE - 1) & ~(E820_PAGE - 1);
        b = (e->addr + e->size) & ~(E820_PAGE - 1);
    } else {
        end = entry_wraps(e) ? UINT64_MAX : e->addr + e->size;
        a = e->addr & ~(E820_PAGE - 1);
        b = end > UINT64_MAX - (E820_PAGE - 1) ? UINT64_MAX & ~(E820_PAGE - 1)
                                               : (end + E820_PAGE - 1) & ~(E820_PAGE - 1);
    }
    if (a < lo_limit)
        a = lo_limit;
    if (b > hi_limit)
        b = hi_limit;
    if (a >= b)
        return false;
    *lo = a;
    *hi = b;
    return true;
}

uint64_t e820_ram_top(const struct e820_entry *map, unsigned n, uint64_t floor)
{
    uint64_t top = floor;

    for (unsigned i = 0; i < n; i++)
        if (map[i].type == E820_TYPE_RAM && !entry_wraps(&map[i]) && map[i].addr + map[i].size > top)
            top = map[i].addr + map[i].size;
    return top;
}

unsigned e820_from_legacy(uint32_t alt_mem_k, uint16_t ext_mem_k, struct e820_entry out[2])
{
    /* e820__memory_setup_default(): the larger of the two counts */
    uint64_t mem_k = alt_mem_k < ext_mem_k ? ext_mem_k : alt_mem_k;

    if (!mem_k)
        return 0;
    out[0] = (struct e820_entry){ 0, E820_LOW_MEM_BYTES, E820_TYPE_RAM };
    out[1] = (struct e820_entry){ E820_HIGH_MEM_START, mem_k * 1024, E820_TYPE_RAM };
    return 2;
}
