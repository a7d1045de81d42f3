/* The two things the memory benchmark needs that differ between the
 * firmware and the host build, kept out of the platform seam because only
 * this engine uses them:
 *  - turning on wide vector registers (firmware: our job; Linux: done);
 *  - whether plat_alloc_pages_in_range() really places memory at physical
 *    addresses (firmware: identity map; Linux: no), which the NUMA matrix
 *    depends on.
 * mem_machine_uefi.c and mem_machine_host.c implement it. */
#ifndef BAREMARK_MEM_MACHINE_H
#define BAREMARK_MEM_MACHINE_H

#include "../platform.h"
#include "mem_map_plan.h"

/* Make AVX/AVX-512 usable on the calling CPU, as far as CPUID allows, and
 * remember how it was. Call first thing on every CPU that runs kernels
 * (the BSP and each AP job): firmware may put APs back to their reset state
 * between jobs. Touches only CPU registers, never firmware, so APs may call
 * it. cpu is the plat_run_on_cpus index. */
void mem_simd_enter(unsigned cpu);
/* Put the calling CPU back as mem_simd_enter found it. */
void mem_simd_leave(unsigned cpu);

/* True when memory from plat_alloc_pages_in_range() lies in that physical
 * range, so a buffer can be placed on a NUMA node. */
bool mem_numa_placement(void);

/* The usable RAM of the firmware's memory map (conventional memory and
 * what loaders and boot services hold: what an OS gets), ascending and
 * merged. Returns how many ranges (at most max); 0 where the build cannot
 * see physical memory (the host build). */
unsigned mem_ram_ranges(struct mem_ram_range *out, unsigned max);
/* Firmware builds: insert one range into a sorted, merged list (see mem_machine_fw.c). */
unsigned mem_ram_range_add(struct mem_ram_range *out, unsigned n, unsigned max, uint64_t base, uint64_t bytes);

#endif
