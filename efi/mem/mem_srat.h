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
#define SRAT_LAPIC_LEN 16
#define SRAT_MEMORY_LEN 40
#define SRAT_X2APIC_LEN 24
#define SRAT_FLAG_ENABLED 0x1 /* all three: the entry is in use */
#define SRAT_MEM_HOTPLUG 0x2
#define SRAT_MEM_NONVOLATILE 0x4

struct srat_cpu {
    uint32_t apic_id;   /* local APIC ID, or x2APIC ID */
    uint32_t domain;
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

/* Proximity domain of a processor by APIC ID, or -1 if SRAT does not list it. */
int64_t srat_domain_of_apic(const struct srat_info *s, uint32_t apic_id);

/* Proximity domain of a physical address, or -1 if no enabled memory
 * affinity range holds it. */
int64_t srat_domain_of_addr(const struct srat_info *s, uint64_t addr);

#endif
