/* PCI configuration space on a BIOS PC through the configuration
 * mechanism #1 ports CF8h/CFCh (PCI 3.0 section 3.2.2.3.2): segment 0,
 * the first 256 bytes of each function. ECAM (ACPI MCFG) is not used yet,
 * so extended capabilities (offset >= 256) read as all ones. Nothing to
 * take a device from: no firmware drivers run once we do. */
#include "bios_private.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA 0xcfc

static uint32_t cf8_addr(struct pci_addr a, uint16_t off)
{
    return 0x80000000u | (uint32_t)a.bus << 16 | (uint32_t)a.dev << 11 | (uint32_t)a.fn << 8 | (off & 0xfc);
}

uint32_t plat_pci_read32(struct pci_addr a, uint16_t off)
{
    if (a.seg != 0 || off >= 256)
        return 0xffffffffu;
    plat_outl(PCI_CONFIG_ADDRESS, cf8_addr(a, off));
    return plat_inl(PCI_CONFIG_DATA);
}

void plat_pci_write32(struct pci_addr a, uint16_t off, uint32_t v)
{
    if (a.seg != 0 || off >= 256)
        return;
    plat_outl(PCI_CONFIG_ADDRESS, cf8_addr(a, off));
    plat_outl(PCI_CONFIG_DATA, v);
}

uint16_t plat_pci_read16(struct pci_addr a, uint16_t off)
{
    return (uint16_t)(plat_pci_read32(a, off & ~3) >> ((off & 2) * 8));
}

uint8_t plat_pci_read8(struct pci_addr a, uint16_t off)
{
    return (uint8_t)(plat_pci_read32(a, off & ~3) >> ((off & 3) * 8));
}

void plat_pci_write16(struct pci_addr a, uint16_t off, uint16_t v)
{
    uint32_t old = plat_pci_read32(a, off & ~3);
    unsigned shift = (off & 2) * 8;

    old &= ~(0xffffu << shift);
    plat_pci_write32(a, off & ~3, old | ((uint32_t)v << shift));
}

int plat_pci_segments(uint16_t *segs, uint8_t *bus_start, uint8_t *bus_end, int max)
{
    if (max < 1)
        return 0;
    segs[0] = 0;
    bus_start[0] = 0;
    bus_end[0] = 255;
    return 1;
}

int plat_pci_claim(struct pci_addr a) { return BM_OK; }
void plat_pci_release(struct pci_addr a) {}

/* A memory BAR's address and size; sized with decoding off (PCI 3.0
 * section 6.2.5.1). Only what head_bios.S maps (below 4 GiB) is returned. */
volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size)
{
    uint16_t off = (uint16_t)(0x10 + bar * 4), cmd;
    uint32_t lo = plat_pci_read32(a, off), hi = 0, szlo, szhi = 0xffffffffu;
    bool is64 = ((lo >> 1) & 3) == 2;
    uint64_t addr, mask;

    if (lo & 1)
        return NULL;
    if (is64)
        hi = plat_pci_read32(a, off + 4);
    cmd = plat_pci_read16(a, 0x04);
    plat_pci_write16(a, 0x04, cmd & ~0x3);
    plat_pci_write32(a, off, 0xffffffffu);
    szlo = plat_pci_read32(a, off);
    plat_pci_write32(a, off, lo);
    if (is64) {
        plat_pci_write32(a, off + 4, 0xffffffffu);
        szhi = plat_pci_read32(a, off + 4);
        plat_pci_write32(a, off + 4, hi);
    }
    plat_pci_write16(a, 0x04, cmd);
    addr = ((uint64_t)hi << 32) | (lo & ~0xfu);
    mask = ((uint64_t)szhi << 32) | (szlo & ~0xfu);
    if (size)
        *size = ~mask + 1;
    if (!addr || addr + (~mask + 1) > (4ull << 30))
        return NULL;
    return (volatile void *)(uintptr_t)addr;
}
