/* A FAT volume image (the stick a legacy BIOS boot reads through INT 13h):
 * open it, look up the cfg and the results file, read one, list the other's
 * extents. Sectors past the input read as an I/O error, as a short disk. */
#include "fuzz.h"
#include "fat.h"
#include "platform.h"

struct fz_disk {
    const uint8_t *data;
    size_t n;
};

static int fz_read(void *ctx, uint64_t lba, void *buf)
{
    struct fz_disk *d = ctx;

    if (lba >= d->n / 512)
        return BM_EIO;
    memcpy(buf, d->data + lba * 512, 512);
    return BM_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct fat_vol v;
    struct fz_disk d;
    struct fat_file f;
    struct fat_extent ext[16];
    unsigned count;
    uint8_t *img = fuzz_page(data, n, n);
    char *buf;

    d.data = img;
    d.n = n;
    if (fat_open(&v, fz_read, &d, 0, n / 512, 512) == BM_OK) {
        if (fat_lookup(&v, "\\baremark\\baremark.cfg", &f) == BM_OK) {
            buf = malloc(4096);
            (void)fat_read(&v, &f, buf, 4096);
            free(buf);
        }
        if (fat_lookup(&v, "/baremark/results/bios.jsonl", &f) == BM_OK)
            (void)fat_extents(&v, &f, ext, 16, &count);
    }
    free(img);
    return 0;
}
