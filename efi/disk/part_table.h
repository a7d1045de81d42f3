/* Partition tables of a boot disk (the legacy BIOS stick): the GPT
 * header's disk GUID and entries (UEFI 2.10 section 5.3), or the MBR's four
 * primary entries. Pure functions over sectors a caller reads, so the
 * firmware's and the stick's bytes are parsed the same way in unit tests,
 * the fuzz harness and efi/bios/stick_bios.c. */
#ifndef BAREMARK_DISK_PART_TABLE_H
#define BAREMARK_DISK_PART_TABLE_H

#include "../platform.h"

#define PART_SECTOR 512
#define PART_MAX 8                 /* partitions looked at per disk */

struct part_span {
    uint64_t first_lba, sectors;
};

/* Reads one 512-byte sector; BM_OK or a negative BM_E*. */
typedef int (*part_read_fn)(void *ctx, uint64_t lba, void *buf);

/* The GPT header's disk GUID as "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX"
 * (the first three fields little-endian) from sector 1, or false when it
 * is no GPT header. */
bool part_gpt_disk_guid(const uint8_t lba1[PART_SECTOR], char *out, size_t len);

/* The disk's partitions, at most max: the GPT's used entries in its first
 * entries sector (entry size a power of two, 128..512), else the MBR's
 * entries with a type other than 0 and 0xEE (protective), else none.
 * Entries whose last LBA is below the first, or that start at 0 or past
 * disk_sectors (when known, not 0), are left out. sec: a 512-byte buffer
 * of the caller's. Returns how many. */
unsigned part_table_read(part_read_fn read, void *ctx, uint64_t disk_sectors, uint8_t *sec, struct part_span *out,
                         unsigned max);

#endif
