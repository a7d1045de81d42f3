/* The Intel MP floating pointer scan and configuration table
 * (`mptable_find`, `mptable_parse`): the input is both the memory scanned
 * and the table. Aborts if a CPU is kept twice or beyond MADT_MAX_CPUS, a
 * refused table keeps any CPU or says nothing, or the pointer found is
 * not 16-byte aligned within the input. */
#include "fuzz.h"
#include "mp/mptable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct madt_info m;
    static char why[160];
    struct mptable_fps f;
    uint8_t *t = fuzz_page(data, n, n);
    long off = mptable_find(t, n, &f);

    if (off >= 0 && (off % 16 || (size_t)off + MPTABLE_FPS_LEN > n))
        abort();
    if (mptable_parse(t, n, &m, why, sizeof(why)) == BM_OK) {
        if (m.ncpus == 0 || m.ncpus > MADT_MAX_CPUS)
            abort();
        for (unsigned i = 0; i < m.ncpus; i++)
            for (unsigned k = i + 1; k < m.ncpus; k++)
                if (m.cpus[i].apic_id == m.cpus[k].apic_id)
                    abort();
    } else if (m.ncpus || !why[0] || !memchr(why, 0, sizeof(why))) {
        abort();
    }
    free(t);
    return 0;
}
