/* NVMe Identify Controller, Identify Namespace, the namespace identification
 * descriptor list (CNS 03h) and the SMART log page. */
#include "fuzz.h"
#include "platform.h"
#include "drivers/blkdev.h"
#include "drivers/nvme/nvme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct nvme_ctrl_info ctrl;
    static struct nvme_ns_info ns;
    struct bm_health h;
    char why[160];
    uint8_t *page = fuzz_page(data, n, 4096);

    memset(&ctrl, 0, sizeof(ctrl));
    nvme_parse_identify_ctrl(page, &ctrl);
    memset(&ns, 0, sizeof(ns));
    (void)nvme_parse_identify_ns(page, n > 1 ? (uint16_t)(data[0] | data[1] << 8) : 0, &ns, why, sizeof(why));
    {
        /* The CSI of a descriptor list: -1 or one byte's value. */
        int csi = nvme_parse_ns_csi(page);
        if (csi < -1 || csi > 0xff)
            abort();
        nvme_csi_name(csi, why, sizeof(why));
        if (!memchr(why, '\0', sizeof(why)))
            abort();
    }
    memset(&h, 0, sizeof(h));
    nvme_parse_smart_log(page, &h);
    if (n >= 2) {
        char detail[160];
        nvme_status_detail((uint16_t)(data[0] | data[1] << 8), detail, sizeof(detail));
        (void)nvme_status_name(data[0] & 7, data[1]);
    }
    free(page);
    return 0;
}
