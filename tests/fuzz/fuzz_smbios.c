/* The SMBIOS structure table (as the firmware hands it over). */
#include "fuzz.h"
#include "inventory/smbios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct smbios_info info;
    uint8_t *t;

    if (n < 2)
        return 0;
    /* First two bytes: the entry point's major and minor version. */
    t = fuzz_page(data + 2, n - 2, n - 2);
    memset(&info, 0, sizeof(info));
    (void)smbios_parse(t, n - 2, data[0] % 4, data[1], &info);
    free(t);
    return 0;
}
