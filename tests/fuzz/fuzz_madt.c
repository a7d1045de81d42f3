/* The ACPI MADT ("APIC"): the processors' local APIC IDs the BIOS build
 * starts. Aborts if a CPU is kept twice or beyond MADT_MAX_CPUS. */
#include "fuzz.h"
#include "mp/madt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct madt_info m;
    uint8_t *t = fuzz_page(data, n, n);

    memset(&m, 0, sizeof(m));
    if (madt_parse(t, n, &m) == BM_OK) {
        if (m.ncpus > MADT_MAX_CPUS)
            abort();
        for (unsigned i = 0; i < m.ncpus; i++)
            for (unsigned k = i + 1; k < m.ncpus; k++)
                if (m.cpus[i].apic_id == m.cpus[k].apic_id)
                    abort();
    }
    free(t);
    return 0;
}
