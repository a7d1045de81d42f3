/* PCI configuration space on firmware platforms (UEFI and BIOS): ECAM from
 * the ACPI MCFG table, else ports 0xcf8/0xcfc; and the memory BARs. */
#include "fw_private.h"
#include "../acpi.h"

struct ecam {
    uint64_t base;
    uint16_t seg;
    uint8_t bus_start, bus_end;
};
static struct ecam ecams[8];
static int necams;

/* The ECAM windows the MCFG table lists, one per segment and bus range
 * (efi/acpi.c acpi_mcfg_parse). */
void fw_pci_config_init(void)
{
    const uint8_t *mcfg = plat_acpi_table("MCFG", 0);
    struct acpi_mcfg_window w[ARRAY_SIZE(ecams)];
    int n;

    necams = 0;
    if (!mcfg)
        return;
    n = acpi_mcfg_parse(mcfg, acpi_table_len(mcfg, ACPI_HEADER_LEN), w, (int)ARRAY_SIZE(w));
    for (int i = 0; i < n; i++)
        ecams[necams++] = (struct ecam){ w[i].base, w[i].segment, w[i].bus_start, w[i].bus_end };
}

static volatile uint8_t *ecam_addr(struct pci_addr a, uint16_t off)
{
    for (int i = 0; i < necams; i++) {
        struct ecam *e = &ecams[i];
        if (e->seg == a.seg && a.bus >= e->bus_start && a.bus <= e->bus_end)
            return (volatile uint8_t *)(uintptr_t)(e->base + ((uint64_t)(a.bus - e->bus_start) << 20) +
                                                   ((uint64_t)a.dev << 15) + ((uint64_t)a.fn << 12) + off);
    }
    return NULL;
}

static uint32_t cf8_addr(struct pci_addr a, uint16_t off)
{
    return 0x80000000u | ((uint32_t)a.bus << 16) | ((uint32_t)a.dev << 11) | ((uint32_t)a.fn << 8) | (off & 0xfc);
}

uint32_t plat_pci_read32(struct pci_addr a, uint16_t off)
{
    volatile uint8_t *p = ecam_addr(a, off & ~3);
    if (p)
        return *(volatile uint32_t *)p;
    if (a.seg != 0 || off >= 256)
        return 0xffffffffu;
    plat_outl(0xcf8, cf8_addr(a, off));
    return plat_inl(0xcfc);
}

void plat_pci_write32(struct pci_addr a, uint16_t off, uint32_t v)
{
    volatile uint8_t *p = ecam_addr(a, off & ~3);
    if (p) {
        *(volatile uint32_t *)p = v;
        return;
    }
    if (a.seg != 0 || off >= 256)
        return;
    plat_outl(0xcf8, cf8_addr(a, off));
    plat_outl(0xcfc, v);
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
    int n = 0;
    if (necams == 0 && max > 0) {
        segs[0] = 0;
        bus_start[0] = 0;
        bus_end[0] = 255;
        return 1;
    }
    for (int i = 0; i < necams && n < max; i++, n++) {
        segs[n] = ecams[i].seg;
        bus_start[n] = ecams[i].bus_start;
        bus_end[n] = ecams[i].bus_end;
    }
    return n;
}

volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size)
{
    uint16_t off = (uint16_t)(0x10 + bar * 4);
    uint32_t lo = plat_pci_read32(a, off), hi = 0, szlo, szhi = 0xffffffffu;
    uint16_t cmd;
    bool is64;
    uint64_t addr, mask;

    if (lo & 1)
        return NULL; /* an I/O BAR */
    is64 = ((lo >> 1) & 3) == 2;
    if (is64)
        hi = plat_pci_read32(a, off + 4);
    /* Size the BAR with decoding off, then restore it (PCI 3.0 section 6.2.5.1). */
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
    mask = ((uint64_t)(is64 ? szhi : 0xffffffffu) << 32) | (szlo & ~0xfu);
    if (size)
        *size = ~mask + 1;
    if (!addr || fw_map_mmio(addr, ~mask + 1) != BM_OK)
        return NULL;
    return (volatile void *)(uintptr_t)addr;
}
