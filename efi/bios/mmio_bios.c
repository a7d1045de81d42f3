/* Device memory the BIOS build's own page tables do not cover yet: 64-bit
 * PCI BARs the firmware placed above 4 GiB (SeaBIOS moves every 64-bit BAR
 * there when the 32-bit window is too small), beyond the RAM memory_bios.c
 * maps. They are mapped on demand, with 2 MiB pages marked uncached
 * (PCD|PWT, Intel SDM vol. 3A, 11.12.3 "Selecting a memory type from the
 * PAT": PAT entry 3 is UC at reset), because no MTRR may cover them and a
 * write-back mapping of registers would be wrong. Page tables come from
 * low memory, as memory_bios.c's map_high() takes them. */
#include "bios_private.h"
#include "../fw/fw_private.h"

#define PAGE_2M (2ull << 20)
#define PTE_PRESENT 0x1ull
#define PTE_PRESENT_RW 0x3ull
#define PTE_PS 0x80ull                  /* a large page: no table below */
#define PTE_PCD_PWT 0x18ull
#define PTE_ADDR 0x000ffffffffff000ull
#define VA_LIMIT (1ull << 47)           /* what 4-level paging identity-maps here */

extern uint64_t bios_pml4[512];

/* The table an entry points to, made (zeroed) when the entry is empty;
 * NULL for a large page (it maps the range already) or no memory. */
static uint64_t *table_of(uint64_t *entry, bool *large)
{
    if (*entry & PTE_PS) {
        *large = true;
        return NULL;
    }
    if (!(*entry & PTE_PRESENT)) {
        uint64_t *t = plat_alloc_pages(4096, true);
        if (!t)
            return NULL;
        *entry = (uint64_t)(uintptr_t)t | PTE_PRESENT_RW;
    }
    return (uint64_t *)(uintptr_t)(*entry & PTE_ADDR);
}

/* Each 2 MiB page of the range that nothing maps yet becomes an uncached
 * one; pages already present (RAM, an earlier BAR) stay as they are. New
 * entries replace not-present ones only, so no TLB holds a stale one. */
int fw_map_mmio(uint64_t addr, uint64_t bytes)
{
    uint64_t end = addr + bytes;

    if (!bytes)
        return BM_OK;
    if (end < addr || end > VA_LIMIT)
        return BM_EINVAL;
    for (uint64_t a = addr & ~(PAGE_2M - 1); a < end; a += PAGE_2M) {
        bool large = false;
        uint64_t *pdpt = table_of(&bios_pml4[a >> 39 & 511], &large), *pd;
        if (!pdpt)
            return large ? BM_OK : BM_ENOMEM;
        pd = table_of(&pdpt[a >> 30 & 511], &large);
        if (!pd) {
            if (!large)
                return BM_ENOMEM;
            continue;                   /* a 1 GiB page maps it */
        }
        if (!(pd[a >> 21 & 511] & PTE_PRESENT))
            pd[a >> 21 & 511] = a | PTE_PS | PTE_PCD_PWT | PTE_PRESENT_RW;
    }
    return BM_OK;
}
