/* The clock on Arm: the architectural generic timer's virtual counter
 * (CNTVCT_EL0), at the frequency the firmware programmed into CNTFRQ_EL0
 * (Arm ARM D11 "The Generic Timer"; SBSA requires it, at a constant rate).
 * As Linux arch_timer_read_cntvct_el0() (arch/arm64/include/asm/
 * arch_timer.h), an ISB before the read keeps it from being taken early.
 * CNTFRQ_EL0 is checked against the firmware's Stall(): a firmware that
 * left it zero, or a counter far slower than it says, gets the measured
 * rate and says so. What does not depend on the counter is in
 * clock_scale_uefi.c. */
#include "uefi_private.h"

static inline uint64_t cntvct(void)
{
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}

static inline uint64_t cntfrq(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
    return v;
}

void uefi_clock_init(void)
{
    uint64_t hz = cntfrq(), measured = ~0ull;
    const char *source = "cntfrq";

    /* The counter's rate over 10 ms of Stall(), the least of three: Stall()
     * runs at least as long as asked, and a preempted CPU (a loaded host
     * under an emulator) only makes a reading larger, never smaller. */
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = cntvct(), d;
        uefi_call_wrapper(bm_st->BootServices->Stall, 1, 10000);
        d = (cntvct() - t0) * 100;
        if (d < measured)
            measured = d;
    }
    if (!hz || measured < hz / 2) {
        /* CNTFRQ_EL0 unset, or the counter runs at less than half the rate
         * it claims (no preemption explains that): use the measured rate. */
        if (!hz)
            plat_log("CNTFRQ_EL0 is 0 (the firmware did not set the timer's frequency): using %llu Hz measured "
                     "against Stall()\n", (unsigned long long)measured);
        else
            plat_log("CNTFRQ_EL0 says %llu Hz but the counter ran at %llu Hz against Stall(): using the latter\n",
                     (unsigned long long)hz, (unsigned long long)measured);
        hz = measured;
        source = "stall";
    }
    uefi_clock_set(hz, cntvct(), source);
}

uint64_t plat_now_ns(void) { return uefi_clock_ns(cntvct()); }
