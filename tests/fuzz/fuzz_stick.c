/* The legacy BIOS boot stick detection (efi/bios/stick_bios.c through
 * efi/disk/part_table.c): a disk image's GPT header (disk GUID, entries)
 * or MBR, then each partition opened as FAT and searched for the results
 * file, else a FAT on the whole disk. Sectors past the input read as an
 * I/O error, as a short disk; the first byte gives the disk size the BIOS
 * reports (0: the input's). Aborts if a partition kept starts at 0 or past
 * the disk. */
#include "fuzz.h"
#include "disk/part_table.h"
#include "fat.h"

struct fz_disk {
    const uint8_t *data;
    size_t sectors;
};

static int fz_read(void *ctx, uint64_t lba, void *buf)
{
    struct fz_disk *d = ctx;

    if (lba >= d->sectors)
        return BM_EIO;
    memcpy(buf, d->data + lba * PART_SECTOR, PART_SECTOR);
    return BM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct fat_vol v;
    struct part_span parts[PART_MAX];
    struct fat_file f;
    struct fz_disk d;
    uint64_t disk_sectors;
    unsigned np;
    char guid[40];
    uint8_t *sec = malloc(PART_SECTOR), *img;

    if (n < 1) {
        free(sec);
        return 0;
    }
    img = fuzz_page(data + 1, n - 1, n - 1);
    d.data = img;
    d.sectors = (n - 1) / PART_SECTOR;
    disk_sectors = data[0] ? data[0] : d.sectors;
    if (fz_read(&d, 1, sec) == BM_OK)
        (void)part_gpt_disk_guid(sec, guid, sizeof(guid));
    np = part_table_read(fz_read, &d, disk_sectors, sec, parts, PART_MAX);
    if (np > PART_MAX)
        abort();
    for (unsigned i = 0; i < np; i++) {
        if (!parts[i].first_lba || parts[i].first_lba >= disk_sectors)
            abort();
        if (fat_open(&v, fz_read, &d, parts[i].first_lba, parts[i].sectors, PART_SECTOR) == BM_OK)
            (void)fat_lookup(&v, "\\baremark\\results\\bios.jsonl", &f);
    }
    if (fat_open(&v, fz_read, &d, 0, disk_sectors, PART_SECTOR) == BM_OK)
        (void)fat_lookup(&v, "\\baremark\\results\\bios.jsonl", &f);
    free(sec);
    free(img);
    return 0;
}
