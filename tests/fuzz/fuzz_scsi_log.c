/* SCSI health and limits pages: LOG SENSE pages (00h list, 0Dh, 2Fh, 15h,
 * 18h, any other), VPD B0h block limits and VPD 83h device
 * identification, each in a buffer of exactly its length. Aborts if a
 * parameter found lies outside the page, a health field leaves its range,
 * or a world wide name is not "naa."/"eui." and whole hex bytes. */
#include "fuzz.h"
#include "platform.h"
#include "drivers/blkdev.h"
#include "drivers/scsi/scsi.h"
#include "drivers/scsi/scsi_health.h"

static void check_wwn(const char *w)
{
    size_t len = strlen(w);

    if (!len)
        return;
    if (strncmp(w, "naa.", 4) && strncmp(w, "eui.", 4))
        abort();
    if (len != 4 + 16 && len != 4 + 24 && len != 4 + 32)
        abort();
    for (size_t i = 4; i < len; i++)
        if (!((w[i] >= '0' && w[i] <= '9') || (w[i] >= 'a' && w[i] <= 'f')))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct scsi_block_limits bl;
    struct bm_health h;
    const uint8_t *val;
    size_t vlen;
    char wwn[40];
    uint8_t *d;

    if (n < 1)
        return 0;
    d = fuzz_page(data + 1, n - 1, n - 1);
    n--;
    switch (data[0] % 4) {
    case 0:
        bm_health_init(&h, "scsi_log");
        (void)scsi_parse_log_page(d, n, &h);
        if (h.temperature_c < -1 || h.temperature_c > 254 || h.smart_passed < -1 || h.smart_passed > 1 ||
            h.power_on_hours < -1 || h.media_errors < -1 || h.link_errors < -1 || h.nattrs)
            abort();
        break;
    case 1:
        if (scsi_log_param(d, n, n ? d[0] : 0, &val, &vlen) == BM_OK && (val < d || val + vlen > d + n))
            abort();
        for (unsigned p = 0; p < 64; p++)
            (void)scsi_log_lists_page(d, n, (uint8_t)p);
        break;
    case 2:
        if (scsi_parse_block_limits(d, n, &bl) != BM_OK && (bl.max_xfer_blocks || bl.opt_xfer_blocks))
            abort();
        break;
    default:
        if (scsi_parse_device_id(d, n, wwn, sizeof(wwn)) == BM_OK)
            check_wwn(wwn);
        else if (wwn[0])
            abort();
        break;
    }
    free(d);
    return 0;
}
