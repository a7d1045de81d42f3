/* ACPI System Resource Affinity Table (SRAT): which processors and which
 * memory ranges belong to which proximity domain (NUMA node).
 * ACPI 6.5, section 5.2.16. A pure parser, unit-tested on synthetic tables. */
#ifndef BAREMARK_MEM_SRAT_H
#define BAREMARK_MEM_SRAT_H

#include "../platform.h"

#define SRAT_MAX_CPUS 1024
#define SRAT_MAX_MEMS 128
#define SRAT_MAX_DOMAINS 64

/* SRAT layout: the 36-byte ACPI header, 4 bytes "reserved, must be 1",
 * 8 reserved bytes, then the affinity structures. */
#define SRAT_HEADER_LEN 48
#define SRAT_TYPE_LAPIC 0     /* Processor Local APIC/SAPIC Affinity, 16 bytes (5.2.16.1) */
#define SRAT_TYPE_MEMORY 1    /* Memory Affinity, 40 bytes (5.2.16.2) */
#define SRAT_TYPE_X2APIC 2    /* Processor Local x2APIC Affinity, 24 bytes (5.2.16.3) */
#define SRAT_TYPE_GICC 3      /* GICC Affinity, 18 bytes (5.2.16.4): Arm processors */
#define SRAT_LAPIC_LEN 16
#define SRAT_MEMORY_LEN 40
#define SRAT_X2APIC_LEN 24
#define SRAT_GICC_LEN 18
#define SRAT_FLAG_ENABLED 0x1 /* all four: the entry is in use */
#define SRAT_MEM_HOTPLUG 0x2
#define SRAT_MEM_NONVOLATILE 0x4

struct srat_cpu {
    uint32_t id;        /* local APIC ID or x2APIC ID; for gicc, the ACPI processor UID */
    uint32_t domain;
    bool gicc;          /* from a GICC Affinity entry (Arm): id is an ACPI processor UID */
};

struct srat_mem {
    uint64_t base, length;
    uint32_t domain;
    bool hotplug, nonvolatile;
};

struct srat_info {
    unsigned ncpus, nmems, ndomains;
    unsigned dropped;   /* enabled entries beyond our array sizes */
    struct srat_cpu cpus[SRAT_MAX_CPUS];
    struct srat_mem mems[SRAT_MAX_MEMS];
    uint32_t domains[SRAT_MAX_DOMAINS]; /* distinct, ascending */
};

/* Parse a SRAT of at most avail bytes (its own length field says how long
 * it is). Keeps enabled entries only. Returns BM_OK, or BM_EINVAL for a
 * table that is not a SRAT, is cut short, or has a malformed entry. */
int srat_parse(const void *table, size_t avail, struct srat_info *out);

/* Proximity domain of an x86 processor by APIC ID (Local APIC and x2APIC
 * entries), or -1 if SRAT does not list it. */
int64_t srat_domain_of_apic(const struct srat_info *s, uint32_t apic_id);

/* Proximity domain of an Arm processor by its ACPI processor UID (GICC
 * Affinity entries; the UID is the one of the processor's MADT GICC entry),
 * or -1 if SRAT does not list it. */
int64_t srat_domain_of_cpu(const struct srat_info *s, uint32_t acpi_uid);

/* Proximity domain of the processor the platform names by id
 * (plat_cpu_apic_id(): the APIC ID on x86-64, the ACPI processor UID on
 * AArch64), so the NUMA code is the same on both. */
static inline int64_t srat_domain_of_plat_cpu(const struct srat_info *s, uint32_t id)
{
#if defined(__aarch64__)
    return srat_domain_of_cpu(s, id);
#else
    return srat_domain_of_apic(s, id);
#endif
}

/* Proximity domain of a physical address, or -1 if no enabled memory
 * affinity range holds it. */
int64_t srat_domain_of_addr(const struct srat_info *s, uint64_t addr);

#endif
