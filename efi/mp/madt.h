/* ACPI Multiple APIC Description Table (MADT, signature "APIC"; ACPI 6.5,
 * 5.2.12): the processors' local APIC IDs, for starting the application
 * processors where no firmware does it for us (the BIOS build). */
#ifndef BAREMARK_MP_MADT_H
#define BAREMARK_MP_MADT_H

#include "platform.h"

#define MADT_MAX_CPUS 1024
#define MADT_HEADER_LEN 44        /* ACPI header, local APIC address (u32), flags (u32) */
#define MADT_TYPE_LAPIC 0         /* Processor Local APIC, 8 bytes (5.2.12.2) */
#define MADT_TYPE_LAPIC_ADDR 5    /* Local APIC Address Override, 12 bytes (5.2.12.8) */
#define MADT_TYPE_X2APIC 9        /* Processor Local x2APIC, 16 bytes (5.2.12.12) */
#define MADT_LAPIC_LEN 8
#define MADT_LAPIC_ADDR_LEN 12
#define MADT_X2APIC_LEN 16
#define MADT_FLAG_ENABLED 0x1     /* the processor is usable now */
#define MADT_FLAG_ONLINE_CAPABLE 0x2 /* ACPI 6.3+: off at boot, may be brought online */

struct madt_cpu {
    uint32_t apic_id;
    bool enabled;             /* else online capable only */
    bool x2apic;              /* from a type 9 entry */
};

struct madt_info {
    uint64_t lapic_base;      /* the override's 64-bit address if there is one */
    unsigned ncpus;
    unsigned dropped;         /* usable entries beyond MADT_MAX_CPUS */
    struct madt_cpu cpus[MADT_MAX_CPUS];
};

/* Parse a MADT of at most avail bytes. Keeps the processors that are
 * enabled or online capable, once each (a firmware that lists an APIC ID
 * in both a type 0 and a type 9 entry gets one CPU). Returns BM_OK, or
 * BM_EINVAL for a table that is not a MADT, is cut short or has a
 * malformed entry. */
int madt_parse(const void *table, size_t avail, struct madt_info *out);

#endif
