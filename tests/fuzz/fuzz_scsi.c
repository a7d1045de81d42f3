/* SCSI replies: INQUIRY (standard and VPD), READ CAPACITY (10/16),
 * REPORT LUNS and sense data, each in a buffer of exactly its length. */
#include "fuzz.h"
#include "platform.h"
#include "drivers/blkdev.h"
#include "drivers/scsi/scsi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct scsi_inquiry inq;
    struct scsi_capacity cap;
    struct scsi_sense sense;
    uint32_t luns[64];
    char serial[96], text[256];
    bool need16;
    uint8_t *d;

    if (n < 1)
        return 0;
    d = fuzz_page(data + 1, n - 1, n - 1);
    n--;
    switch (data[0] % 7) {
    case 0: if (scsi_parse_inquiry(d, n, &inq) == BM_OK) (void)scsi_inquiry_is_disk(&inq); break;
    case 1: (void)scsi_vpd_lists_page(d, n, 0x80); break;
    case 2: (void)scsi_parse_unit_serial(d, n, serial, sizeof(serial)); break;
    case 3: (void)scsi_parse_capacity10(d, n, &cap, &need16); break;
    case 4: (void)scsi_parse_capacity16(d, n, &cap); break;
    case 5: (void)scsi_parse_report_luns(d, n, luns, 64); break;
    default:
        (void)scsi_sense_parse(d, n, &sense);
        scsi_describe(n ? d[0] : 2, d, n, text, sizeof(text));
        break;
    }
    free(d);
    return 0;
}
