/* ATA IDENTIFY DEVICE, SMART data and the NCQ command error log. */
#include "fuzz.h"
#include "platform.h"
#include "drivers/blkdev.h"
#include "drivers/ahci/ata.h"
#include "drivers/ahci/ahci_quirks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct ata_identity id;
    struct ata_ncq_error e;
    struct bm_health h;
    uint8_t *page = fuzz_page(data, n, ATA_SECTOR_BYTES);
    uint8_t *thr = fuzz_page(n > ATA_SECTOR_BYTES ? data + ATA_SECTOR_BYTES : data,
                             n > ATA_SECTOR_BYTES ? n - ATA_SECTOR_BYTES : 0, ATA_SECTOR_BYTES);
    char msg[160];

    memset(&id, 0, sizeof(id));
    (void)ata_parse_identify(page, &id);
    /* The drive quirk table's glob matching over the drive's own strings. */
    (void)ata_dev_quirks(id.model, id.firmware);
    (void)ata_glob_match(id.firmware, id.model); /* and any bytes as a pattern */
    memset(&h, 0, sizeof(h));
    ata_parse_smart(page, thr, &h);
    (void)ata_parse_ncq_error_log(page, &e);
    (void)ata_describe_error(msg, sizeof(msg), page[0], page[1], page[2] & 1, 0x123456789ull);
    free(page);
    free(thr);
    return 0;
}
