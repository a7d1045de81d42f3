/* The BIOS E820 memory map (ACPI 6.5 section 15.1, "INT 15H, E820H") as
 * pure functions over its entries: which whole 4 KiB pages an entry gives
 * or takes, and where RAM ends. The BIOS build's allocator
 * (efi/bios/memory_bios.c) applies them; the entries come from the
 * firmware through the loader, so nothing here trusts a sum not to wrap. */
#ifndef BAREMARK_MEM_E820_H
#define BAREMARK_MEM_E820_H

#include "../platform.h"

#define E820_PAGE 4096ull
#define E820_TYPE_RAM 1

struct e820_entry {
    uint64_t addr, size;
    uint32_t type;
} __attribute__((packed));

/* The whole pages of entry e inside [lo_limit, hi_limit) (page-aligned
 * limits): RAM shrinks to the pages wholly inside it, any other type grows
 * to every page it touches (reserved wins, as Linux e820 sanitising). An
 * entry whose end passes 2^64 is malformed: as RAM it gives nothing, as
 * anything else it takes every page from its start up. False when no page
 * is left. */
bool e820_page_span(const struct e820_entry *e, uint64_t lo_limit, uint64_t hi_limit, uint64_t *lo, uint64_t *hi);

/* The end of the highest RAM entry, at least floor (a RAM entry whose end
 * passes 2^64 does not count). */
uint64_t e820_ram_top(const struct e820_entry *map, unsigned n, uint64_t floor);

/* A BIOS whose E820 gives nothing (pre-1996, or broken): the memory its
 * older calls report, as Linux e820__memory_setup_default() makes a map of
 * them: 640 KiB of base memory and, from 1 MiB, the larger of INT 15h
 * E801h's count (alt_mem_k: KiB above 1 MiB, the 15-16 MiB hole ignored as
 * Linux detect_memory_e801() does) and AH=88h's (ext_mem_k: KiB above
 * 1 MiB, at most 64 MiB). The number of entries written (2), or 0 when
 * both are 0. */
#define E820_LOW_MEM_BYTES (640ull * 1024)
#define E820_HIGH_MEM_START (1ull << 20)
unsigned e820_from_legacy(uint32_t alt_mem_k, uint16_t ext_mem_k, struct e820_entry out[2]);

#endif
