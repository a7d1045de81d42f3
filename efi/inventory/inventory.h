/* Machine inventory: CPU, firmware, system identity, DIMMs, PCI storage
 * controllers and the links on their path to the root. */
#ifndef BAREMARK_INVENTORY_H
#define BAREMARK_INVENTORY_H

#include "../platform.h"

struct sysinfo {
    char cpu[64];            /* CPUID brand string */
    unsigned cpus;           /* logical processors enabled */
    uint64_t tsc_hz;
    bool tsc_invariant;
    char clock_source[16];
    char firmware[96];       /* vendor and version */
    char manufacturer[64];
    char product[64];
    char serial[64];
    char baseboard[96];
    uint32_t l1d_bytes, l2_bytes, l3_bytes; /* per CPUID; 0 if unknown */
    /* Added with the SMBIOS/CPUID inventory: */
    char cpu_vendor[16];     /* "GenuineIntel", "AuthenticAMD" */
    uint32_t l1i_bytes;
    uint32_t cache_line_bytes; /* L1 data cache line; 0 if unknown */
    char bios_vendor[64], bios_version[64], bios_date[16]; /* SMBIOS type 0 */
    char uuid[40];           /* SMBIOS type 1; "" if not set */
    char board_serial[64];
    unsigned sockets;        /* populated processor sockets (SMBIOS type 4); 0 if not listed */
    unsigned cores;          /* their cores, summed; 0 if not listed */
    char smbios_version[8];  /* "3.0"; "" when there is no SMBIOS table */
    char secure_boot[8];     /* plat_secure_boot(): on, off, setup, unknown */
};

/* Gather what identifies the machine (no records yet: the results file is
 * named after the serial, so this runs before the sinks open). */
int inventory_collect(struct sysinfo *si);
/* Emit the system, dimm (+ dimm_summary) and pci records. */
void inventory_emit(const struct sysinfo *si);

/* The DIMM population summary inventory_emit() made (NULL before it ran):
 * the memory map ties slow regions to it. */
struct dimm_summary;
const struct dimm_summary *inventory_dimm_summary(void);

/* The chipset inventory_emit() identified (chipset.h); all zero before. */
struct chipset_info;
const struct chipset_info *inventory_chipset(void);

#endif
