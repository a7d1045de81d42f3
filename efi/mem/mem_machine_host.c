/* Memory-benchmark machine services on Linux: the kernel already enabled
 * every vector extension it supports (XCR0), and user memory cannot be
 * placed by physical address. */
#include "mem_machine.h"

/* Linux enabled what it supports already. */
void mem_simd_enter(unsigned cpu) { (void)cpu; }
/* Nothing to restore. */
void mem_simd_leave(unsigned cpu) { (void)cpu; }
/* User memory has no chosen physical address. */
bool mem_numa_placement(void) { return false; }
/* Linux gives a user process no physical memory map to measure. */
unsigned mem_ram_ranges(struct mem_ram_range *out, unsigned max)
{
    (void)out;
    (void)max;
    return 0;
}
