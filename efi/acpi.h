/* ACPI tables read from bytes the firmware put in memory: the RSDP, the
 * RSDT/XSDT walk, and the few fields of the FADT, HPET, MCFG and DSDT the
 * platform layers use (the PM timer and PM1 control ports, the HPET base,
 * the ECAM windows, the \_S5 sleep type). Every read is bounded by the
 * table's own length and by what the caller says is readable, so a
 * truncated or hostile table gives "absent", never a read past its end.
 * Portable: the firmware builds hand it the tables in place, the tests and
 * tests/fuzz/fuzz_acpi.c hand it real dumps and mutated bytes. */
#ifndef BAREMARK_ACPI_H
#define BAREMARK_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_HEADER_LEN 36
/* No table the platform layers read is near this; a length past it is a
 * corrupt header, not a table (the largest server DSDTs seen in the
 * linuxhw/ACPI collection are under 2 MiB). */
#define ACPI_MAX_TABLE_LEN (16u << 20)

/* The header's Length field, or 0 when fewer than 36 bytes are readable or
 * the length is below the header or past ACPI_MAX_TABLE_LEN. */
uint32_t acpi_table_len(const void *table, size_t avail);
/* The bytes sum to zero mod 256 (ACPI 6.5 section 5.2.6). */
bool acpi_checksum_ok(const void *bytes, size_t len);

/* The Root System Description Pointer (ACPI 6.5 section 5.2.5.3): the
 * XSDT's address when revision >= 2 gives a non-zero one (its extended
 * checksum over 36 bytes correct), else the RSDT's. */
struct acpi_rsdp {
    uint64_t sdt;      /* physical address of the XSDT or RSDT */
    bool xsdt;         /* 8-byte entries, else 4 */
    uint8_t revision;
};
/* BM_OK, or BM_EINVAL with why naming the fault (signature, checksum,
 * no table address). avail: bytes readable at p (20 or 36 needed). */
int acpi_rsdp_parse(const void *p, size_t avail, struct acpi_rsdp *r, char *why, size_t why_len);

/* How the walk reaches a physical address: the bytes at phys, of which at
 * least len are readable, or NULL. Firmware maps identity; the tests and
 * the fuzz harness map into a buffer. */
typedef const void *(*acpi_map_fn)(uint64_t phys, size_t len, void *ctx);

/* The instance-th table with this signature listed in the RSDT/XSDT, or
 * the DSDT (instance 0) through the FADT's X_DSDT/DSDT, as ACPICA
 * acpi_tb_parse_root_table() and acpi_tb_parse_fadt() reach them; NULL
 * when absent. A listed table whose header is unreadable, whose length is
 * impossible or whose checksum is wrong is skipped, as ACPICA
 * acpi_tb_verify_temp_table() does with table validation on. *len gets
 * the table's length. */
const void *acpi_find_table(const struct acpi_rsdp *r, const char sig[4], unsigned instance, acpi_map_fn map,
                            void *ctx, uint32_t *len);

/* What the platform layers take from the FADT (ACPI 6.5 table 5.9). A
 * field the table is too short to hold reads as 0. */
struct acpi_fadt {
    uint32_t smi_cmd;        /* offset 48 */
    uint8_t acpi_enable;     /* 52 */
    uint32_t pm1a_cnt;       /* 64, I/O port */
    uint32_t pm1b_cnt;       /* 68 */
    uint32_t pm_tmr_port;    /* X_PM_TMR_BLK (208) when it is system I/O and non-zero, else PM_TMR_BLK (76) */
    bool pm_tmr_32bit;       /* Flags (112) TMR_VAL_EXT, bit 8 */
    uint64_t dsdt;           /* X_DSDT (140) when non-zero, else DSDT (40), as ACPICA acpi_tb_select_address() */
};
/* BM_OK, or BM_EINVAL when this is not a FADT of at least 116 bytes
 * (ACPI 1.0's length). len: bytes readable at t. */
int acpi_fadt_parse(const void *t, size_t len, struct acpi_fadt *f);

/* The HPET's register block (IA-PC HPET specification 1.0a table 3: the
 * base address GAS at offset 40). BM_OK with *base when it is in system
 * memory and non-zero; BM_EINVAL otherwise. */
int acpi_hpet_parse(const void *t, size_t len, uint64_t *base);

/* The ECAM windows of the MCFG (PCI Firmware specification 3.2 table
 * 4-3: 16-byte entries after offset 44). Returns how many were stored in
 * out (at most max); a window whose end bus is below its start is left
 * out, as Linux pci_mmcfg_check_end_bus_number() refuses it. */
struct acpi_mcfg_window {
    uint64_t base;
    uint16_t segment;
    uint8_t bus_start, bus_end;
};
int acpi_mcfg_parse(const void *t, size_t len, struct acpi_mcfg_window *out, int max);

/* SLP_TYPa and SLP_TYPb of a static \_S5 package in the DSDT (ACPI 6.5
 * section 7.4.2): NameOp "_S5_" PackageOp PkgLength NumElements, then two
 * integers (ZeroOp, OneOp, BytePrefix n, WordPrefix n). What Linux gets
 * from acpi_get_sleep_type_data() through the interpreter; this search
 * finds the static package every BIOS we have seen declares, and says
 * "absent" for anything else (a method, a package of names). */
bool acpi_dsdt_s5(const void *dsdt, size_t len, unsigned *typ_a, unsigned *typ_b);

#endif
