/* The clock on Arm: the architectural generic timer's virtual counter
 * (CNTVCT_EL0), at the frequency the firmware programmed into CNTFRQ_EL0
 * (Arm ARM D11 "The Generic Timer"; SBSA requires it, at a constant rate).
 * As Linux arch_timer_read_cntvct_el0() (arch/arm64/include/asm/
 * arch_timer.h), an ISB before the read keeps it from being taken early.
 * CNTFRQ_EL0 is checked against the firmware's Stall(): a firmware that
 * left it zero, or a counter far slower than it says, gets the measured
 * rate and says so. */
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

static uint64_t cnt_hz, cnt_base;
/* ns = ticks * ns_mult >> 32, as in clock_uefi.c. */
static uint64_t ns_mult;
static const char *clock_source = "none";

void uefi_clock_init(void)
{
    uint64_t hz = cntfrq(), measured = ~0ull;

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
    if (hz && measured >= hz / 2) {
        cnt_hz = hz;
        clock_source = "cntfrq";
    } else {
        /* CNTFRQ_EL0 unset, or the counter runs at less than half the rate
         * it claims (no preemption explains that): use the measured rate. */
        cnt_hz = measured;
        clock_source = "stall";
        if (!hz)
            plat_log("CNTFRQ_EL0 is 0 (the firmware did not set the timer's frequency): using %llu Hz measured "
                     "against Stall()\n", (unsigned long long)measured);
        else
            plat_log("CNTFRQ_EL0 says %llu Hz but the counter ran at %llu Hz against Stall(): using the latter\n",
                     (unsigned long long)hz, (unsigned long long)measured);
    }
    cnt_base = cntvct();
    ns_mult = cnt_hz ? (uint64_t)(((unsigned __int128)1000000000ull << 32) / cnt_hz) : 0;
}

uint64_t plat_now_ns(void)
{
    uint64_t d = cntvct() - cnt_base;
    return (uint64_t)(((unsigned __int128)d * ns_mult) >> 32);
}

/* The counter's rate stands where x86 reports its TSC's. */
uint64_t plat_tsc_hz(void) { return cnt_hz; }
const char *plat_clock_source(void) { return clock_source; }

void plat_delay_ns(uint64_t ns)
{
    uint64_t end = plat_now_ns() + ns;
    while (plat_now_ns() < end)
        plat_cpu_relax();
}

/* As clock_uefi.c: a timer event and WaitForEvent, the DXE core's idle
 * loop (ArmPkg CpuSleep: WFI) until the firmware's next timer interrupt. */
void plat_idle_ns(uint64_t ns)
{
    static EFI_EVENT timer;
    UINTN index;

    if (!timer && uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &timer) !=
                      EFI_SUCCESS) {
        timer = NULL;
        return;
    }
    if (uefi_call_wrapper(bm_st->BootServices->SetTimer, 3, timer, TimerRelative, ns / 100 ? ns / 100 : 1) !=
        EFI_SUCCESS)
        return;
    uefi_call_wrapper(bm_st->BootServices->WaitForEvent, 3, 1, &timer, &index);
}
