/* Platform-independent parts of the seam. */
#include "platform.h"

const char *bm_strerror(int err)
{
    switch (err) {
    case BM_OK: return "ok";
    case BM_EINVAL: return "invalid argument or data";
    case BM_ENOMEM: return "out of memory";
    case BM_ETIMEDOUT: return "timed out";
    case BM_EIO: return "I/O error";
    case BM_ENODEV: return "no such device";
    case BM_ENOTSUP: return "not supported";
    case BM_EABORT: return "aborted by user";
    case BM_EPERM: return "refused by a safety rule";
    case BM_EBUSY: return "busy";
    case BM_ENOSPC: return "no space";
    default: return "unknown error";
    }
}

/* UEFI 2.10 section 3.3 (globally defined variables): SecureBoot is 1 when
 * the firmware enforces image verification; SetupMode is 1 while no
 * platform key is enrolled, and then nothing is verified (section 32.3). */
const char *secure_boot_state(int secure_boot, int setup_mode)
{
    if (secure_boot == 1)
        return "on";
    if (setup_mode == 1)
        return "setup";
    return secure_boot == 0 ? "off" : "unknown";
}

static plat_diag_sink_fn diag_sink;

void plat_set_diag_sink(plat_diag_sink_fn fn)
{
    diag_sink = fn;
}

void plat_diag(const char *where, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (diag_sink)
        diag_sink(where, msg);
    else
        plat_log("%s: %s", where, msg);
}
