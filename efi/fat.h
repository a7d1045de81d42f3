/* A minimal read-only FAT12/16/32 reader over a read-sector callback: find a
 * file by path (long file names too), read it, list its cluster chain as
 * sector extents. Used on legacy BIOS machines through INT 13h reads (the
 * stick's \baremark\baremark.cfg and the preallocated results file); pure
 * and bounds-checked, so the host unit tests and the fuzzer run it on any
 * bytes (tests/unit/test_fat.c, tests/fuzz/fuzz_fat.c).
 *
 * Layout as in Microsoft's "FAT: General Overview of On-Disk Format" (FAT
 * type from the count of clusters only; BPB fields; long-name entries with
 * the short name's checksum), read the way Linux fs/fat does. */
#ifndef BAREMARK_FAT_H
#define BAREMARK_FAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read one sector of the volume's sector size at absolute device lba into
 * buf; BM_OK or a negative error. */
typedef int (*fat_read_fn)(void *ctx, uint64_t lba, void *buf);

#define FAT_SECTOR_MAX 4096

struct fat_vol {
    fat_read_fn read;
    void *ctx;
    uint64_t first_lba;         /* the volume's boot sector on the device */
    uint64_t sectors;           /* the volume's size in its sectors (bounds every read) */
    uint32_t bytes_per_sector, sectors_per_cluster;
    int type;                   /* 12, 16 or 32 */
    uint32_t fat_sectors;       /* sectors of one FAT */
    uint64_t fat_lba;           /* first FAT, relative to first_lba */
    uint64_t root_lba;          /* FAT12/16 root directory, relative */
    uint32_t root_entries;      /* FAT12/16 */
    uint32_t root_cluster;      /* FAT32 */
    uint64_t data_lba;          /* cluster 2, relative */
    uint32_t clusters;          /* data clusters: valid numbers are 2..clusters+1 */
    uint64_t cached_lba;        /* which sector sec[] holds (UINT64_MAX: none) */
    uint8_t sec[FAT_SECTOR_MAX];
};

struct fat_file {
    uint32_t first_cluster;
    uint32_t size;
    bool dir;
};

/* An extent in absolute device sectors. */
struct fat_extent {
    uint64_t lba;
    uint64_t count;
};

/* Read and check the boot sector at first_lba (a volume of at most
 * sectors sectors; 0 = unknown, bounded by the BPB alone) on a device whose
 * read callback returns sector_bytes per sector (the BPB must agree). */
int fat_open(struct fat_vol *v, fat_read_fn read, void *ctx, uint64_t first_lba, uint64_t sectors,
             uint32_t sector_bytes);
/* Find "\dir\name" ('\\' or '/'), case-insensitive, long names or 8.3.
 * BM_ENODEV if absent, BM_EINVAL for a damaged volume, the read's error. */
int fat_lookup(struct fat_vol *v, const char *path, struct fat_file *f);
/* Read up to cap bytes of a file; returns the bytes read or an error. */
long fat_read(struct fat_vol *v, const struct fat_file *f, void *buf, size_t cap);
/* The sectors that hold the file's size bytes, merged into extents (at
 * most max); *n gets their count. BM_ENOSPC if they need more than max. */
int fat_extents(struct fat_vol *v, const struct fat_file *f, struct fat_extent *ext, unsigned max, unsigned *n);

#endif
