/* The SPD paths baremark recognises but does not read (spd_platform.h).
 * PCI ids as the reference drivers bind them: Linux i5000_edac (FB-DIMM
 * branches 0x25f5/0x25f6, device 21/22 function 0, whose SPD/SPDCMD
 * registers at 0x74-0x7f coreboot's i5000 raminit drives), i5400_edac
 * (0x4035/0x4036), i5100_edac (0x65f0), i7300_edac (0x360c); FreeBSD
 * imcsmb(4) for the Xeon E5 v1-v4 memory controllers whose two SMBus
 * controllers live in PCI configuration space. The 5000P/5000V/5000X,
 * 5400 and 7300 branches and the 5100 are read by spd_mch.c, the E5 v1-v4
 * IMCs and the Skylake-SP/Cascade Lake-SP PCU function (8086:2085) by
 * spd_imc.c; their notes here are for callers that only identify. Later
 * Xeon Scalable generations are named from the brand string: no reference
 * for their SPD bus registers was at hand (Sapphire Rapids' DDR5 hubs may
 * sit on I3C). */
#include "spd_platform.h"

static const struct {
    uint16_t device;
    const char *what;
} mch_fbd[] = {
    { 0x25f5, "Intel 5000P/5000V/5000X MCH FB-DIMM branch 0" },
    { 0x25f6, "Intel 5000P/5000X MCH FB-DIMM branch 1" },
    { 0x4035, "Intel 5400 MCH FB-DIMM branch 0" },
    { 0x4036, "Intel 5400 MCH FB-DIMM branch 1" },
    { 0x65f0, "Intel 5100 MCH" },
    { 0x360c, "Intel 7300 MCH" },
}, imc_smbus[] = {
    { 0x3ca8, "Xeon E5 v1 (Sandy Bridge-EP)" },
    { 0x0ea8, "Xeon E5 v2 (Ivy Bridge-EP)" },
    { 0x2fa8, "Xeon E5 v3 (Haswell-EP)" },
    { 0x2f68, "Xeon E5 v3 (Haswell-EP)" },
    { 0x6fa8, "Xeon E5 v4 (Broadwell-EP)" },
    { 0x6f68, "Xeon E5 v4 (Broadwell-EP)" },
    { 0x2085, "Xeon Scalable (Skylake-SP/Cascade Lake-SP) PCU" },
};

/* The first Intel function in l with one of the ids, or NULL. */
static const struct pci_func *find(const struct pci_list *l, uint16_t device)
{
    for (int i = 0; i < l->count; i++)
        if (l->funcs[i].vendor == 0x8086 && l->funcs[i].device == device)
            return &l->funcs[i];
    return NULL;
}

bool spd_platform_elsewhere(const struct pci_list *l, const char *cpu_brand, char *note, size_t cap)
{
    char bdf[16];

    for (size_t i = 0; i < ARRAY_SIZE(mch_fbd); i++) {
        const struct pci_func *f = find(l, mch_fbd[i].device);
        if (f) {
            pci_addr_str(f->addr, bdf, sizeof(bdf));
            snprintf(note, cap, "SPD is behind the memory controller hub's FB-DIMM SPD registers (%s, 8086:%04x at "
                     "%s), not read", mch_fbd[i].what, f->device, bdf);
            return true;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(imc_smbus); i++) {
        const struct pci_func *f = find(l, imc_smbus[i].device);
        if (f) {
            pci_addr_str(f->addr, bdf, sizeof(bdf));
            snprintf(note, cap, "SPD is on the memory controller's SMBus (%s, 8086:%04x at %s)", imc_smbus[i].what,
                     f->device, bdf);
            return true;
        }
    }
    if (cpu_brand && strstr(cpu_brand, "Xeon") &&
        (strstr(cpu_brand, "Platinum") || strstr(cpu_brand, "Gold") || strstr(cpu_brand, "Silver") ||
         strstr(cpu_brand, "Bronze"))) {
        snprintf(note, cap, "SPD is on the memory controller's SMBus (Xeon Scalable: %s), not read: baremark reads it "
                 "only through the Skylake-SP/Cascade Lake-SP PCU function (8086:2085), not present here", cpu_brand);
        return true;
    }
    if (cpu_brand && strstr(cpu_brand, "EPYC 9")) {
        snprintf(note, cap, "SPD may be on the processor's I3C bus (AMD EPYC 9004/9005, SP5, DDR5), not read");
        return true;
    }
    return false;
}
