/* The ACPI SRAT (NUMA affinity). */
#include "fuzz.h"
#include "mem/mem_srat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct srat_info s;
    uint8_t *t = fuzz_page(data, n, n);

    memset(&s, 0, sizeof(s));
    if (srat_parse(t, n, &s) == BM_OK) {
        (void)srat_domain_of_apic(&s, n ? data[0] : 0);
        (void)srat_domain_of_cpu(&s, n ? data[n - 1] : 0);
        (void)srat_domain_of_addr(&s, n > 8 ? (uint64_t)data[8] << 30 : 0);
    }
    free(t);
    return 0;
}
