/* Memory-benchmark machine services on Linux: the kernel already enabled
 * every vector extension it supports (XCR0), and user memory cannot be
 * placed by physical address. */
#include "mem_machine.h"

void mem_simd_enter(unsigned cpu) { (void)cpu; }
void mem_simd_leave(unsigned cpu) { (void)cpu; }
bool mem_numa_placement(void) { return false; }
