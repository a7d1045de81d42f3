/* The PCI capability walk and the PCI Express link decoder over a
 * config space made of the input (4 KiB, all ones past the input). */
#include "fuzz.h"
#include "platform.h"
#include "drivers/pci.h"

static uint8_t space[4096];

static uint32_t fuzz_read32(void *ctx, struct pci_addr a, uint16_t off)
{
    uint32_t v;
    (void)ctx;
    (void)a;
    if (off > sizeof(space) - 4)
        return 0xffffffffu;
    memcpy(&v, space + (off & ~3u), 4);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct pci_cfg cfg = { fuzz_read32, NULL };
    struct pci_addr a;
    struct pcie_info info;

    memset(&a, 0, sizeof(a));
    memset(space, 0xff, sizeof(space));
    memcpy(space, data, n < sizeof(space) ? n : sizeof(space));
    for (unsigned id = 0; id < 0x16; id++)
        (void)pci_find_cap(&cfg, a, (uint8_t)id);
    (void)pcie_read_info(&cfg, a, &info);
    return 0;
}
