/* limits.cfg and the min_mbps=/min_iops=/max_lat_us= options. */
#include "fuzz.h"
#include "limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct limit_set ls;
    char err[256];
    char *text = fuzz_cstr(data, n);

    memset(&ls, 0, sizeof(ls));
    (void)limits_parse_file(&ls, text, err, sizeof(err));
    memset(&ls, 0, sizeof(ls));
    (void)limits_parse_option(&ls, "min_mbps", text);
    (void)limits_parse_option(&ls, "max_lat_us", text);
    free(text);
    return 0;
}
