/* GPT and MBR partition entries (part_table.h). */
#include "part_table.h"

#define GPT_SIGNATURE "EFI PART"
#define GPT_DISK_GUID_OFF 56
#define GPT_ENTRIES_LBA_OFF 72
#define GPT_ENTRY_SIZE_OFF 84
#define GPT_ENTRY_FIRST_OFF 32
#define GPT_ENTRY_LAST_OFF 40
#define MBR_TABLE_OFF 446
#define MBR_ENTRY_LEN 16
#define MBR_TYPE_PROTECTIVE 0xee

bool part_gpt_disk_guid(const uint8_t lba1[PART_SECTOR], char *out, size_t len)
{
    const uint8_t *g = lba1 + GPT_DISK_GUID_OFF;

    if (memcmp(lba1, GPT_SIGNATURE, 8))
        return false;
    snprintf(out, len, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", g[3], g[2], g[1], g[0],
             g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
    return true;
}

/* Keep a span when it is one (see part_table_read). */
static unsigned keep(struct part_span *out, unsigned n, uint64_t first, uint64_t sectors, uint64_t disk_sectors)
{
    if (!first || !sectors || (disk_sectors && first >= disk_sectors))
        return n;
    out[n].first_lba = first;
    out[n].sectors = sectors;
    return n + 1;
}

unsigned part_table_read(part_read_fn read, void *ctx, uint64_t disk_sectors, uint8_t *sec, struct part_span *out,
                         unsigned max)
{
    unsigned n = 0;

    if (read(ctx, 1, sec) == BM_OK && !memcmp(sec, GPT_SIGNATURE, 8)) {
        uint64_t entries_lba;
        uint32_t esize;
        memcpy(&entries_lba, sec + GPT_ENTRIES_LBA_OFF, 8);
        memcpy(&esize, sec + GPT_ENTRY_SIZE_OFF, 4);
        if (esize < 128 || esize > PART_SECTOR || (esize & (esize - 1)) || read(ctx, entries_lba, sec) != BM_OK)
            return 0;
        for (unsigned i = 0; i < PART_SECTOR / esize && n < max; i++) {
            uint64_t first, last;
            memcpy(&first, sec + i * esize + GPT_ENTRY_FIRST_OFF, 8);
            memcpy(&last, sec + i * esize + GPT_ENTRY_LAST_OFF, 8);
            /* last - first + 1 is 0 only for first 0, last ~0: dropped. */
            if (last >= first)
                n = keep(out, n, first, last - first + 1, disk_sectors);
        }
        return n;
    }
    if (read(ctx, 0, sec) != BM_OK || sec[510] != 0x55 || sec[511] != 0xaa)
        return 0;
    for (unsigned i = 0; i < 4 && n < max; i++) {
        const uint8_t *e = sec + MBR_TABLE_OFF + MBR_ENTRY_LEN * i;
        uint32_t first, count;
        memcpy(&first, e + 8, 4);
        memcpy(&count, e + 12, 4);
        if (e[4] && e[4] != MBR_TYPE_PROTECTIVE)
            n = keep(out, n, first, count, disk_sectors);
    }
    return n;
}
