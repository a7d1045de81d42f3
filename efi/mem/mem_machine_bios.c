/* Memory-benchmark machine services on a BIOS PC. The BIOS leaves AVX state
 * off exactly as UEFI firmware does, and memory is identity mapped as there,
 * so the UEFI build's code is the right code here too: it touches only CPU
 * registers (CR4, XCR0), never firmware. */
#include "mem_machine_uefi.c"
