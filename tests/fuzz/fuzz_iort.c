/* The ACPI IORT table: whether PCI segment 0 or the one named by the
 * first two bytes is cache-coherent (iort_pci_coherent). Aborts if the
 * sentence "why" is not terminated within its buffer. */
#include "fuzz.h"
#include "iort.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char why[96];
    uint8_t *t;
    uint16_t seg;

    if (n < 2)
        return 0;
    seg = (uint16_t)(data[0] | data[1] << 8);
    t = fuzz_page(data + 2, n - 2, n - 2);
    memset(why, 'x', sizeof(why));
    (void)iort_pci_coherent(t, n - 2, seg, why, sizeof(why));
    if (!memchr(why, '\0', sizeof(why)))
        abort();
    memset(why, 'x', sizeof(why));
    (void)iort_pci_coherent(t, n - 2, 0, why, sizeof(why));
    if (!memchr(why, '\0', sizeof(why)))
        abort();
    free(t);
    return 0;
}
