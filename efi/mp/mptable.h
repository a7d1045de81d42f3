/* The Intel MultiProcessor Specification 1.4 tables (May 1997, chapter 4):
 * the MP floating pointer structure ("_MP_", 16 bytes, found by a scan of
 * the EBDA's first KiB, the last KiB of base memory and 0xF0000-0xFFFFF,
 * section 4.1) and the MP configuration table ("PCMP", section 4.2) it
 * points to, whose processor entries (section 4.3.1) list the local APIC
 * IDs. The BIOS build reads them when there is no usable ACPI MADT (a
 * pre-ACPI-2.0 server, ACPI switched off in its setup), as Linux
 * mpparse.c and memtest86+ smp.c do; the result is the MADT's structure,
 * so the same code starts the CPUs. Pure functions over bytes: the BIOS
 * code hands over the memory. */
#ifndef BAREMARK_MP_MPTABLE_H
#define BAREMARK_MP_MPTABLE_H

#include "madt.h"

#define MPTABLE_FPS_LEN 16
#define MPTABLE_HEADER_LEN 44
#define MPTABLE_ENTRY_PROCESSOR 0   /* 20 bytes */
#define MPTABLE_ENTRY_BUS 1         /* 8 bytes each for types 1-4 */
#define MPTABLE_ENTRY_IOAPIC 2
#define MPTABLE_ENTRY_IOINT 3
#define MPTABLE_ENTRY_LINT 4
#define MPTABLE_PROCESSOR_LEN 20
#define MPTABLE_OTHER_LEN 8
#define MPTABLE_CPU_EN 0x01         /* processor entry CPU flags: usable */
#define MPTABLE_CPU_BP 0x02         /* ... the boot processor */
#define MPTABLE_LAPIC_DEFAULT 0xfee00000u

/* The floating pointer structure: its fields once checked. */
struct mptable_fps {
    uint32_t config_addr;       /* physical address of the configuration table, 0: none */
    uint8_t spec_rev;           /* 1 (MP 1.1) or 4 (MP 1.4) */
    uint8_t default_config;     /* feature byte 1: 0, or one of the default configurations 1-7 */
};

/* The offset of the first valid floating pointer structure in mem[0, len)
 * (16-byte aligned, signature, length 1, revision 1 or 4, bytes sum to
 * 0), or -1. mem is taken to start 16-byte aligned. */
long mptable_find(const uint8_t *mem, size_t len, struct mptable_fps *fps);
/* The processors of the configuration table at cfg, of which avail bytes
 * may be read: its header ("PCMP", base table length within avail, bytes
 * summing to 0, revision 1 or 4) and every entry of the base table, which
 * ends where the length says; an entry of unknown type stops the walk
 * (its length is not known), as Linux smp_read_mpc() does. Usable
 * processors (CPU_EN) are kept once each, enabled; unusable ones are not
 * kept. lapic_base from the header. BM_EINVAL with why filled when it is
 * not a table to trust (Linux: "BIOS bug, MP table errors detected"). */
int mptable_parse(const uint8_t *cfg, size_t avail, struct madt_info *out, char *why, size_t why_len);
/* A default configuration (feature byte 1 = 1..7, MP spec chapter 5): two
 * processors, local APIC IDs 0 and 1, at the default local APIC address. */
int mptable_default_config(uint8_t config, struct madt_info *out);

#endif
