/* make bench: the per-I/O CPU cost table (see iobench.h).
 * usage: iobench [milliseconds per row, default 500] */
#include "iobench.h"

int main(int argc, char **argv)
{
    static const uint32_t qds[] = { 1, 32, 128 };
    uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 500;
    struct iobench b;
    char err[160] = "";
    int rc;

    plat_init();
    rc = iobench_open(&b, err, sizeof(err));
    if (rc != BM_OK) {
        fprintf(stderr, "iobench: probe of the instant controller failed: %s (%s)\n", bm_strerror(rc), err);
        return 1;
    }
    iobench_measure_model(&b, 2000000);
    iobench_print_header(stdout, &b);
    for (unsigned i = 0; i < ARRAY_SIZE(qds); i++)
        for (int hist = 1; hist >= 0; hist--) {
            struct iobench_row r;
            rc = iobench_row(&b, qds[i], hist, ms * 1000000ull, &r);
            if (rc != BM_OK) {
                fprintf(stderr, "iobench: QD%u: %s\n", qds[i], bm_strerror(rc));
                return 1;
            }
            iobench_print_row(stdout, &r);
            fflush(stdout);
        }
    iobench_close(&b);
    return 0;
}
