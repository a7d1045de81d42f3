/* The SMBIOS structure table (as the firmware hands it over), and its
 * type 17 entries through the DIMM summary (dimm_summarize_cpus). Aborts if
 * the summary counts more populated slots than slots. */
#include "fuzz.h"
#include "inventory/dimm.h"
#include "inventory/smbios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct smbios_info info;
    static struct dimm_summary sum;
    struct dimm_cpus cpus;
    uint8_t *t;

    if (n < 2)
        return 0;
    /* First two bytes: the entry point's major and minor version. */
    t = fuzz_page(data + 2, n - 2, n - 2);
    memset(&info, 0, sizeof(info));
    (void)smbios_parse(t, n - 2, data[0] % 4, data[1], &info);
    memset(&sum, 0, sizeof(sum));
    cpus.sockets = info.nprocs;
    cpus.populated = 0;
    for (unsigned i = 0; i < info.nprocs; i++)
        cpus.populated += info.procs[i].populated;
    dimm_summarize_cpus(info.dimms, info.ndimms, data[1] & 1 ? &cpus : NULL, &sum);
    if (sum.populated > sum.slots || sum.nwarnings > DIMM_MAX_WARNINGS || sum.nchannels > DIMM_MAX_CHANNELS)
        abort();
    free(t);
    return 0;
}
