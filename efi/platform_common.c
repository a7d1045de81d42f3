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
    case BM_EACCES: return "access denied";
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

/* Diagnostics made on another CPU (a driver polled by the disk engine on
 * an application processor) wait here for the boot processor: the sink
 * prints and writes records, which only it may do. */
#define DIAG_HELD_MAX 32
#define DIAG_MSG_BYTES 384
struct diag_held {
    char where[32];
    char msg[DIAG_MSG_BYTES];
};
static struct diag_held diag_held[DIAG_HELD_MAX];
static unsigned diag_held_n, diag_held_dropped;
static volatile uint32_t diag_lock;

static void diag_lock_take(void)
{
    while (__atomic_exchange_n(&diag_lock, 1, __ATOMIC_ACQUIRE))
        plat_cpu_relax();
}

static void diag_lock_give(void) { __atomic_store_n(&diag_lock, 0, __ATOMIC_RELEASE); }

static void diag_emit(const char *where, const char *msg)
{
    if (diag_sink)
        diag_sink(where, msg);
    else
        plat_log("%s: %s", where, msg);
}

/* Keep a diagnostic for plat_diag_flush() on the boot processor (counted
 * as dropped when DIAG_HELD_MAX are waiting already). */
static void diag_hold(const char *where, const char *msg)
{
    diag_lock_take();
    if (diag_held_n < DIAG_HELD_MAX) {
        bm_strlcpy(diag_held[diag_held_n].where, where, sizeof(diag_held[0].where));
        bm_strlcpy(diag_held[diag_held_n].msg, msg, sizeof(diag_held[0].msg));
        diag_held_n++;
    } else {
        diag_held_dropped++;
    }
    diag_lock_give();
}

/* plat_diag() and plat_diag_later(): the message formatted, then printed
 * at once on the boot processor unless held for later. */
static void diag_put(bool later, const char *where, const char *fmt, va_list ap)
{
    char msg[DIAG_MSG_BYTES];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (!later && plat_on_bsp())
        diag_emit(where, msg);
    else
        diag_hold(where, msg);
}

void plat_diag(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_put(false, where, fmt, ap);
    va_end(ap);
}

void plat_diag_later(const char *where, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_put(true, where, fmt, ap);
    va_end(ap);
}

void plat_diag_flush(void)
{
    static struct diag_held out[DIAG_HELD_MAX];
    unsigned n, dropped;

    /* Held until there is a sink: plat_diag_later() from plat_init. */
    if (!plat_on_bsp() || !diag_sink || !__atomic_load_n(&diag_held_n, __ATOMIC_RELAXED))
        return;
    diag_lock_take();
    n = diag_held_n;
    dropped = diag_held_dropped;
    memcpy(out, diag_held, n * sizeof(out[0]));
    diag_held_n = diag_held_dropped = 0;
    diag_lock_give();
    for (unsigned i = 0; i < n; i++)
        diag_emit(out[i].where, out[i].msg);
    if (dropped)
        plat_log("%u diagnostics from other CPUs were dropped (more than %u at once)", dropped, DIAG_HELD_MAX);
}

#if defined(__aarch64__) && !defined(BAREMARK_HOST)
#include "iort.h"
#endif

int plat_dma_coherent(uint16_t seg, char *why, size_t whylen)
{
#if defined(__aarch64__) && !defined(BAREMARK_HOST)
    const uint8_t *iort = plat_acpi_table("IORT", 0);
    int rc;

    if (!iort) {
        snprintf(why, whylen, "no IORT table: PCIe taken as cache-coherent, as SBSA requires");
        return BM_OK;
    }
    rc = iort_pci_coherent(iort, (size_t)(iort[4] | iort[5] << 8 | iort[6] << 16 | (uint32_t)iort[7] << 24), seg, why,
                           whylen);
    /* A table that names no node for the segment, or that cannot be read,
     * says nothing against SBSA's rule; only an explicit CCA 0 refuses. */
    return rc == BM_ENOTSUP ? BM_ENOTSUP : BM_OK;
#else
    /* x86: PCI DMA snoops the caches (PCI Express Base 6.0, "No Snoop"
     * aside, which the drivers never set). */
    (void)seg;
    snprintf(why, whylen, "coherent");
    return BM_OK;
#endif
}
