/* BIOS interrupts from long mode (bios_int), through the real-mode thunk of
 * realmode_bios.S, and the low memory it uses: the thunk page at 0x9000 and
 * the 8 KiB real-mode stack at 0x5000-0x6fff and the 64 KiB bounce buffer at 0x10000 (all below 1 MiB, never handed out by
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

#define RM_STACK_FILL 0xa5          /* what the stack holds before each call */

static bool rm_ready;
static uint64_t rm_slowest_ns;
static uint32_t rm_stack_peak;
static bool rm_canary_told;
static bool esc_seen;
/* Called after every BIOS call (bios_rm_after_call; idt_bios.c's machine check look). */
static void (*after_call)(uint8_t vector, uint32_t eax);

/* BIOS data area keyboard buffer (IBM PC/AT BIOS: head/tail offsets from
 * 40:0, buffer bounds at 40:80/40:82, default 40:1E..40:3E). */
#define BDA_KBD_HEAD 0x41a
#define BDA_KBD_TAIL 0x41c
#define BDA_KBD_START 0x480
#define BDA_KBD_END 0x482
#define BIOS_SCAN_ESC 0x01

/* With interrupts on during a BIOS call, the BIOS's keyboard handler takes
 * the keys from the i8042 before plat_abort_requested() can see them: empty
 * its buffer after each call and remember an Esc. */
static uint16_t bda16(volatile const uint8_t *bda, unsigned off) { return (uint16_t)(bda[off] | bda[off + 1] << 8); }

static void drain_bios_keys(void)
{
    uintptr_t at = 0x400;
    volatile uint8_t *bda;
    uint16_t head, tail, start, end;

    __asm__("" : "+r"(at));     /* a low address, not an empty object (-Warray-bounds) */
    bda = (volatile uint8_t *)at;   /* offsets below are from 40:0 */
    head = bda16(bda, BDA_KBD_HEAD - 0x400);
    tail = bda16(bda, BDA_KBD_TAIL - 0x400);
    start = bda16(bda, BDA_KBD_START - 0x400);
    end = bda16(bda, BDA_KBD_END - 0x400);
    if (!start || end <= start || end > 0x100) {
        start = 0x1e;
        end = 0x3e;
    }
    for (unsigned n = 0; head != tail && n < 32; n++) {
        if (head < start || head >= end || (head & 1))
            break;
        if (bda[head + 1] == BIOS_SCAN_ESC)
            esc_seen = true;
        head = (uint16_t)(head + 2 >= end ? start : head + 2);
    }
    bda[BDA_KBD_HEAD - 0x400] = (uint8_t)head;
    bda[BDA_KBD_HEAD - 0x400 + 1] = (uint8_t)(head >> 8);
}

bool bios_esc_seen(void) { return esc_seen; }

void bios_rm_after_call(void (*fn)(uint8_t vector, uint32_t eax)) { after_call = fn; }

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

/* The real-mode stack filled with RM_STACK_FILL before a call, so that
 * after it the lowest byte that changed tells how deep the BIOS went (the
 * "stack painting" of RTOS stack checks). GRUB gives BIOS calls some 8 KiB;
 * a vendor ROM needing more spoils the canary, and that is a record. */
static volatile uint64_t *rm_stack(void)
{
    uintptr_t at = BIOS_RM_STACK_LO;
    __asm__("" : "+r"(at));     /* a low address, not an empty object (-Warray-bounds) */
    return (volatile uint64_t *)at;
}

/* 8 bytes at a time: some microseconds per call, nothing beside a BIOS disk request. */
static void stack_paint(void)
{
    volatile uint64_t *st = rm_stack();

    for (unsigned i = 0; i < (BIOS_RM_STACK_TOP - BIOS_RM_STACK_LO) / 8; i++)
        st[i] = RM_STACK_FILL * 0x0101010101010101ull;
}

static void stack_check(uint8_t vector, const struct bios_rm_regs *in)
{
    volatile uint64_t *st = rm_stack();
    unsigned n = BIOS_RM_STACK_TOP - BIOS_RM_STACK_LO, low = 0;
    uint32_t depth;

    while (low < n && st[low / 8] == RM_STACK_FILL * 0x0101010101010101ull)
        low += 8;
    depth = n - low;
    if (depth > rm_stack_peak)
        rm_stack_peak = depth;
    if (low < BIOS_RM_CANARY_BYTES && !rm_canary_told) {
        rm_canary_told = true;
        plat_diag("realmode",
                  "BIOS INT %02xh AX=%04x used %u bytes of the %u-byte real-mode stack: it reached the %u-byte canary "
                  "at its bottom (0x%x), so it may have overflowed below it (nothing of baremark's is there)",
                  vector, (unsigned)(in->eax & 0xffff), (unsigned)depth, n, (unsigned)BIOS_RM_CANARY_BYTES,
                  (unsigned)BIOS_RM_STACK_LO);
    }
}

uint32_t bios_rm_stack_peak(void) { return rm_stack_peak; }

/* INT vector with the registers in r; r gets the registers the BIOS left.
 * Returns the call's duration in nanoseconds. */
uint64_t bios_int(uint8_t vector, struct bios_rm_regs *r)
{
    struct bios_rm_regs *low = (struct bios_rm_regs *)(uintptr_t)BIOS_RM_REGS;
    uint64_t t0, ns;

    if (!bios_rm_init())
        return 0;
    struct bios_rm_regs in = *r;

    *low = *r;
    low->vector = vector;
    stack_paint();
    t0 = plat_now_ns();
    bios_rm_call();
    ns = plat_now_ns() - t0;
    if (after_call)
        after_call(vector, in.eax);
    *r = *low;
    stack_check(vector, &in);
    drain_bios_keys();
    if (ns > BIOS_RM_SLOW_NS && ns > rm_slowest_ns)
        plat_diag("int13", "BIOS INT %02xh AX=%04x took %llu ms (a BIOS call cannot be interrupted from 64-bit mode)",
                  vector, (unsigned)(r->eax & 0xffff), (unsigned long long)(ns / 1000000));
    if (ns > rm_slowest_ns)
        rm_slowest_ns = ns;
    return ns;
}

uint64_t bios_rm_slowest_ns(void) { return rm_slowest_ns; }
