/* The clock on a BIOS PC: the TSC, calibrated against channel 2 of the
 * 8254 PIT, the one timer every PC has at a fixed port and rate. */
#include "bios_private.h"

#define PIT_HZ 1193182ull
#define PIT_CH2 0x42
#define PIT_MODE 0x43
#define PIT_MODE_CH2_LOHI_MODE0 0xb0   /* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B 0x61                    /* NMI status and control (PC AT port B) */
#define PORT_B_GATE2 0x01              /* timer 2 gate */
#define PORT_B_SPEAKER 0x02            /* speaker data: keep off */
#define PORT_B_OUT2 0x20               /* timer 2 output, read-only */
#define CALIBRATE_MS 50

static uint64_t tsc_hz, tsc_base;
static const char *clock_source = "none";

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* TSC ticks over CALIBRATE_MS of PIT channel 2 counting down in mode 0,
 * whose OUT pin rises at terminal count, as Linux pit_calibrate_tsc()
 * (arch/x86/kernel/tsc.c) does it. 0 when OUT never rises. */
static uint64_t calibrate_pit(void)
{
    uint32_t count = (uint32_t)(PIT_HZ * CALIBRATE_MS / 1000);
    uint64_t t0, t1, guard;

    plat_outb(PORT_B, (uint8_t)((plat_inb(PORT_B) & ~PORT_B_SPEAKER) | PORT_B_GATE2));
    plat_outb(PIT_MODE, PIT_MODE_CH2_LOHI_MODE0);
    plat_outb(PIT_CH2, (uint8_t)count);
    plat_outb(PIT_CH2, (uint8_t)(count >> 8));
    t0 = rdtsc();
    /* Bounded: 2^34 TSC ticks is several seconds on any CPU with a TSC. */
    guard = t0 + (1ull << 34);
    do {
        t1 = rdtsc();
        if (t1 > guard)
            return 0;
    } while (!(plat_inb(PORT_B) & PORT_B_OUT2));
    return (t1 - t0) * 1000 / CALIBRATE_MS;
}

void bios_clock_init(void)
{
    tsc_hz = calibrate_pit();
    if (tsc_hz)
        clock_source = "pit";
    tsc_base = rdtsc();
}

uint64_t plat_now_ns(void)
{
    if (!tsc_hz)
        return 0;
    return (uint64_t)((unsigned __int128)(rdtsc() - tsc_base) * 1000000000ull / tsc_hz);
}

uint64_t plat_tsc_hz(void) { return tsc_hz; }
const char *plat_clock_source(void) { return clock_source; }

void plat_delay_ns(uint64_t ns)
{
    uint64_t end = plat_now_ns() + ns;

    /* Without a calibrated TSC time stands still: do not wait forever. */
    if (!tsc_hz)
        return;
    while (plat_now_ns() < end)
        __asm__ __volatile__("pause");
}
