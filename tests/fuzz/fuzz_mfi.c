/* MegaRAID MFI discovery: the LD list, PD list and PD info DCMD replies
 * come from the input, one after the other. */
#include "fuzz.h"
#include "platform.h"
#include "drivers/megasas/megasas_internal.h"

static const uint8_t *in;
static size_t in_left;
static unsigned disks;

static int fuzz_dcmd_read(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                          size_t errlen)
{
    uint8_t *scratch = ctx;
    size_t take = len < in_left ? len : in_left;

    (void)opcode;
    (void)mbox;
    (void)mbox_len;
    if (!in_left) {
        snprintf(err, errlen, "no more input");
        return BM_EIO;
    }
    memset(scratch, 0, len);
    memcpy(scratch, in, take);
    in += take;
    in_left -= take;
    return BM_OK;
}

static void fuzz_add_disk(void *ctx, bool logical, uint16_t target, uint32_t max_qd)
{
    (void)ctx;
    (void)logical;
    (void)target;
    (void)max_qd;
    disks++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static uint8_t scratch[65536];
    struct mfi_scan_ops ops = { scratch, "fuzz", scratch, 255, fuzz_dcmd_read, fuzz_add_disk };

    in = data;
    in_left = n;
    mfi_scan_lds(&ops);
    mfi_scan_system_pds(&ops);
    return 0;
}
