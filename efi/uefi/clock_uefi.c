/* The clock on x86: the TSC, calibrated against the ACPI PM timer, the
 * HPET or, failing both, the firmware's Stall(). What does not depend on
 * the counter is in clock_scale_uefi.c. */
#include "uefi_private.h"
#include "../acpi.h"

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

#define PM_TIMER_HZ 3579545ull

/* The ACPI PM timer's I/O port from the FADT (efi/acpi.c: PM_TMR_BLK, or
 * X_PM_TMR_BLK in system I/O; TMR_VAL_EXT for a 32-bit counter). */
static uint16_t pm_timer_port(bool *ext32)
{
    const uint8_t *t = plat_acpi_table("FACP", 0);
    struct acpi_fadt f;

    if (!t || acpi_fadt_parse(t, acpi_table_len(t, ACPI_HEADER_LEN), &f) != BM_OK)
        return 0;
    *ext32 = f.pm_tmr_32bit;
    return f.pm_tmr_port <= 0xffff ? (uint16_t)f.pm_tmr_port : 0;
}

/* Count TSC ticks over ~50 ms of the PM timer. */
static uint64_t calibrate_pm_timer(void)
{
    bool ext32 = false;
    uint16_t port = pm_timer_port(&ext32);
    uint32_t mask, start, now, elapsed = 0;
    uint64_t t0, t1, target = PM_TIMER_HZ / 20;
    uint64_t guard;

    if (!port)
        return 0;
    mask = ext32 ? 0xffffffffu : 0xffffffu;
    start = plat_inl(port) & mask;
    t0 = rdtsc();
    /* Guard: a dead timer must not hang us; 2^32 TSC ticks is >1 s anywhere. */
    guard = t0 + (1ull << 32);
    do {
        now = plat_inl(port) & mask;
        elapsed = (now - start) & mask;
        t1 = rdtsc();
        if (t1 > guard)
            return 0;
    } while (elapsed < target);
    return (t1 - t0) * PM_TIMER_HZ / elapsed;
}

/* HPET (IA-PC HPET spec 1.0a: GCAP_ID at 0 with the period in fs in bits
 * 63:32, GEN_CONF at 0x10 bit 0 enables, main counter at 0xf0). */
static uint64_t calibrate_hpet(void)
{
    const uint8_t *t = plat_acpi_table("HPET", 0);
    volatile uint8_t *base;
    uint64_t addr, period_fs, c0, c1, t0, t1, target, guard;

    if (!t || acpi_hpet_parse(t, acpi_table_len(t, ACPI_HEADER_LEN), &addr) != BM_OK)
        return 0;
    base = (volatile uint8_t *)(uintptr_t)addr;
    period_fs = mmio_read64(base, 0) >> 32;
    if (!period_fs || period_fs > 100000000ull)
        return 0;
    mmio_write32(base, 0x10, mmio_read32(base, 0x10) | 1);
    target = 50000000000000ull / period_fs; /* 50 ms in counter ticks */
    c0 = mmio_read64(base, 0xf0);
    t0 = rdtsc();
    guard = t0 + (1ull << 32);
    do {
        c1 = mmio_read64(base, 0xf0);
        t1 = rdtsc();
        if (t1 > guard)
            return 0;
    } while (c1 - c0 < target);
    return (uint64_t)((double)(t1 - t0) * 1e15 / ((double)(c1 - c0) * (double)period_fs));
}

void uefi_clock_init(void)
{
    uint64_t t0, hz;
    const char *source;

    if ((hz = calibrate_pm_timer())) {
        source = "acpi_pm";
    } else if ((hz = calibrate_hpet())) {
        source = "hpet";
    } else {
        t0 = rdtsc();
        uefi_call_wrapper(bm_st->BootServices->Stall, 1, 50000);
        hz = (rdtsc() - t0) * 20;
        source = "stall";
    }
    uefi_clock_set(hz, rdtsc(), source);
}

uint64_t plat_now_ns(void) { return uefi_clock_ns(rdtsc()); }
