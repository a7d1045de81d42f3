/* make bench: the per-I/O CPU cost tables (see iobench.h), NVMe at QD1,
 * QD32 and QD128, then AHCI at QD1 and QD32 (NCQ holds at most 32).
 * usage: iobench [milliseconds per row, default 500] */
#include "iobench.h"

/* One controller's table; false when its probe or a row failed. */
static bool bench_table(enum iobench_kind kind, const uint32_t *qds, unsigned nqd, uint64_t ms)
{
    const char *name = kind == IOBENCH_AHCI ? "AHCI" : "NVMe";
    struct iobench b;
    char err[160] = "";
    int rc = iobench_open_kind(&b, kind, err, sizeof(err));

    if (rc != BM_OK) {
        fprintf(stderr, "iobench: probe of the instant %s controller failed: %s (%s)\n", name, bm_strerror(rc), err);
        return false;
    }
    iobench_measure_model(&b, 2000000);
    iobench_print_header(stdout, &b);
    for (unsigned i = 0; i < nqd; i++)
        for (int hist = 1; hist >= 0; hist--) {
            struct iobench_row r;
            rc = iobench_row(&b, qds[i], hist, ms * 1000000ull, &r);
            if (rc != BM_OK) {
                fprintf(stderr, "iobench: %s QD%u: %s\n", name, qds[i], bm_strerror(rc));
                iobench_close(&b);
                return false;
            }
            iobench_print_row(stdout, &r);
            fflush(stdout);
        }
    iobench_close(&b);
    return true;
}

int main(int argc, char **argv)
{
    static const uint32_t nvme_qds[] = { 1, 32, 128 }, ahci_qds[] = { 1, 32 };
    uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 500;
    bool ok;

    plat_init();
    ok = bench_table(IOBENCH_NVME, nvme_qds, ARRAY_SIZE(nvme_qds), ms);
    printf("\n");
    ok = bench_table(IOBENCH_AHCI, ahci_qds, ARRAY_SIZE(ahci_qds), ms) && ok;
    printf("\n");
    ok = scanbench_print(stdout, ms) && ok;
    printf("\n");
    ok = scanbench_link_print(stdout, ms) && ok;
    return ok ? 0 : 1;
}
