/* BIOS interrupts from long mode (bios_int), through the real-mode thunk of
 * realmode_bios.S, and the low memory it uses: the thunk page at 0x9000 and
 * the 64 KiB bounce buffer at 0x10000 (both below 1 MiB, never handed out by
 * memory_bios.c; smp16's AP trampoline has 0x8000).
 *
 * A BIOS handler runs with our CPU in real mode and nothing of ours in
 * control: if it never returns (a broken option ROM, a disk the BIOS keeps
 * retrying), no timer of ours can interrupt it, because our IDT is not
 * loaded and long mode is gone until it returns. So a call is bounded only
 * by the BIOS's own timeouts; we time every call and say so in a diagnostic
 * when one took longer than BIOS_RM_SLOW_NS, and the serial log shows the
 * call that hung (bios_rm_trace). */
#include "bios_private.h"

extern const char rm_blob[], rm_blob_end[];
int bios_rm_call(void);

#define BIOS_RM_SLOW_NS 2000000000ull   /* a disk read that took 2 s is worth a line */

static bool rm_ready;
static uint64_t rm_slowest_ns;

bool bios_rm_init(void)
{
    size_t n = (size_t)(rm_blob_end - rm_blob);

    if (rm_ready)
        return true;
    if (n > BIOS_RM_BLOB_MAX) {
        plat_diag("int13", "real-mode thunk is %zu bytes, more than its %u", n, (unsigned)BIOS_RM_BLOB_MAX);
        return false;
    }
    memcpy((void *)(uintptr_t)BIOS_RM_BASE, rm_blob, n);
    rm_ready = true;
    return true;
}

/* INT vector with the registers in r; r gets the registers the BIOS left.
 * Returns the call's duration in nanoseconds. */
uint64_t bios_int(uint8_t vector, struct bios_rm_regs *r)
{
    struct bios_rm_regs *low = (struct bios_rm_regs *)(uintptr_t)BIOS_RM_REGS;
    uint64_t t0, ns;

    if (!bios_rm_init())
        return 0;
    *low = *r;
    low->vector = vector;
    t0 = plat_now_ns();
    bios_rm_call();
    ns = plat_now_ns() - t0;
    *r = *low;
    if (ns > BIOS_RM_SLOW_NS && ns > rm_slowest_ns)
        plat_diag("int13", "BIOS INT %02xh AX=%04x took %llu ms (a BIOS call cannot be interrupted from 64-bit mode)",
                  vector, (unsigned)(r->eax & 0xffff), (unsigned long long)(ns / 1000000));
    if (ns > rm_slowest_ns)
        rm_slowest_ns = ns;
    return ns;
}

uint64_t bios_rm_slowest_ns(void) { return rm_slowest_ns; }
