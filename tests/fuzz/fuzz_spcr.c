/* The ACPI SPCR table and the UEFI ConOut device path: which UART the
 * records go to (spcr_parse, serial_console_path_uart). The first byte
 * splits the input between the two. Aborts if the sentence "why" is not
 * terminated within its buffer. */
#include "fuzz.h"
#include "spcr.h"
#include "serial_port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct plat_uart u;
    char why[96];
    size_t cut;
    uint8_t *a, *b;

    if (n < 1)
        return 0;
    cut = n > 1 ? data[0] % n : 0;
    cut = cut ? cut : 1;
    a = fuzz_page(data + 1, cut - 1, cut - 1);
    b = fuzz_page(data + cut, n - cut, n - cut);
    memset(why, 'x', sizeof(why));
    (void)spcr_parse(a, cut - 1, &u, why, sizeof(why));
    if (!memchr(why, '\0', sizeof(why)))
        abort();
    memset(why, 'x', sizeof(why));
    (void)serial_console_path_uart(b, n - cut, &u, why, sizeof(why));
    if (!memchr(why, '\0', sizeof(why)))
        abort();
    free(a);
    free(b);
    return 0;
}
