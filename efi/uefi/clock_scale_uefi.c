/* The half of the UEFI clock that does not depend on the counter, shared
 * by clock_uefi.c (x86: the TSC) and clock_aa64.c (Arm: CNTVCT_EL0), which
 * calibrate their counter and read it in plat_now_ns(). */
#include "uefi_private.h"

struct uefi_clock uefi_clock = { .source = "none" };

void uefi_clock_set(uint64_t hz, uint64_t base, const char *source)
{
    uefi_clock.hz = hz;
    uefi_clock.source = source;
    uefi_clock.base = base;
    uefi_clock.ns_mult = hz ? (uint64_t)(((unsigned __int128)1000000000ull << 32) / hz) : 0;
}

/* The counter's rate (on Arm it stands where x86 reports its TSC's). */
uint64_t plat_tsc_hz(void) { return uefi_clock.hz; }
const char *plat_clock_source(void) { return uefi_clock.source; }

void plat_delay_ns(uint64_t ns)
{
    uint64_t end = plat_now_ns() + ns;
    while (plat_now_ns() < end)
        plat_cpu_relax();
}

/* A timer event and WaitForEvent: the DXE core halts the CPU in its idle
 * loop (EDK2 CoreWaitForEvent -> gIdleLoopEvent -> CpuSleep: HLT on x86,
 * WFI in ArmPkg) until an interrupt; the timer's comes within ns (100 ns
 * units, at least one). */
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
