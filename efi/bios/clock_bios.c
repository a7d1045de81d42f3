/* The clock on a BIOS PC: the TSC, calibrated against channel 2 of the
 * 8254 PIT, the one timer every PC has at a fixed port and rate, over
 * several short windows so that an SMI (USB legacy emulation, a BMC's
 * poll) in one of them does not skew the rate, and cross-checked against
 * the ACPI PM timer when the FADT names one: Linux
 * pit_hpet_ptimer_calibrate_cpu() (arch/x86/kernel/tsc.c). The judging is
 * efi/clock/tsc_cal.c; here are only the samples. */
#include "bios_private.h"
#include "../clock/tsc_cal.h"

#define PIT_CH2 0x42
#define PIT_MODE 0x43
#define PIT_MODE_CH2_LOHI_MODE0 0xb0   /* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B 0x61                    /* NMI status and control (PC AT port B) */
#define PORT_B_GATE2 0x01              /* timer 2 gate */
#define PORT_B_SPEAKER 0x02            /* speaker data: keep off */
#define PORT_B_OUT2 0x20               /* timer 2 output, read-only */
/* Linux CAL_MS, and CAL2_MS once a window failed (a virtual PC needs a
 * longer one). */
#define CAL_MS 10
#define CAL2_MS 50
#define CAL_WINDOWS 3
#define REF_READ_TRIES 5               /* Linux MAX_RETRIES */

/* FADT (ACPI 6.5, 5.2.9): PM_TMR_BLK, PM_TMR_LEN, flags (TMR_VAL_EXT), X_PM_TMR_BLK. */
#define FADT_PM_TMR_BLK 76
#define FADT_PM_TMR_LEN 91
#define FADT_FLAGS 112
#define FADT_TMR_VAL_EXT (1u << 8)
#define FADT_X_PM_TMR_BLK 208
#define GAS_SPACE_IO 1

static uint64_t tsc_hz, tsc_base;
static const char *clock_source = "none";
static uint16_t pmtmr_port;
static uint32_t pmtmr_mask;
static struct tsc_cal_result cal;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* The ACPI PM timer's I/O port from the FADT (24 or 32 bits wide), as
 * Linux acpi_parse_fadt() finds pmtmr_ioport. */
static void pmtimer_find(void)
{
    const uint8_t *f = plat_acpi_table("FACP", 0);
    uint32_t len = 0, port = 0, flags = 0;

    if (!f)
        return;
    memcpy(&len, f + 4, 4);
    if (len >= FADT_X_PM_TMR_BLK + 12 && f[FADT_X_PM_TMR_BLK] == GAS_SPACE_IO) {
        uint64_t a;
        memcpy(&a, f + FADT_X_PM_TMR_BLK + 4, 8);
        if (a && a < 0x10000)
            port = (uint32_t)a;
    }
    if (!port && len >= FADT_PM_TMR_LEN + 1 && f[FADT_PM_TMR_LEN] == 4)
        memcpy(&port, f + FADT_PM_TMR_BLK, 4);
    if (!port || port >= 0x10000)
        return;
    if (len >= FADT_FLAGS + 4)
        memcpy(&flags, f + FADT_FLAGS, 4);
    pmtmr_port = (uint16_t)port;
    pmtmr_mask = flags & FADT_TMR_VAL_EXT ? 0xffffffffu : 0xffffffu;
}

/* Linux tsc_read_refs(): the PM timer with the TSC just before and after;
 * a read the TSC says took too long was interrupted (an SMI) and is tried
 * again. false when every try was. */
static bool ref_read(uint64_t *tsc, uint32_t *ref)
{
    for (unsigned i = 0; i < REF_READ_TRIES; i++) {
        uint64_t t1 = rdtsc(), t2;
        *ref = plat_inl(pmtmr_port) & pmtmr_mask;
        t2 = rdtsc();
        if (t2 - t1 < TSC_CAL_REF_READ_MAX_TICKS) {
            *tsc = t1;
            return true;
        }
    }
    return false;
}

/* One window: PIT channel 2 counting ms down in mode 0 (OUT rises at
 * terminal count) while the TSC is read at each poll, as Linux
 * pit_calibrate_tsc(); the PM timer read around it. Bounded: 2^34 TSC
 * ticks is several seconds on any CPU with a TSC. */
static void pit_window(unsigned ms, struct tsc_cal_window *w)
{
    uint32_t count = (uint32_t)(TSC_CAL_PIT_HZ * ms / 1000);
    uint64_t t0, t, prev, guard, rt0 = 0, rt1 = 0;
    uint32_t r0 = 0, r1 = 0;
    bool ref0 = false;

    memset(w, 0, sizeof(*w));
    plat_outb(PORT_B, (uint8_t)((plat_inb(PORT_B) & ~PORT_B_SPEAKER) | PORT_B_GATE2));
    plat_outb(PIT_MODE, PIT_MODE_CH2_LOHI_MODE0);
    plat_outb(PIT_CH2, (uint8_t)count);
    plat_outb(PIT_CH2, (uint8_t)(count >> 8));
    if (pmtmr_port)
        ref0 = ref_read(&rt0, &r0);
    t0 = prev = rdtsc();
    guard = t0 + (1ull << 34);
    w->poll_min = UINT64_MAX;
    do {
        uint64_t d;
        t = rdtsc();
        if (t > guard)
            return;                     /* OUT never rose: an empty window */
        d = t - prev;
        prev = t;
        w->poll_min = MIN(w->poll_min, d);
        w->poll_max = MAX(w->poll_max, d);
        w->loops++;
    } while (!(plat_inb(PORT_B) & PORT_B_OUT2));
    w->tsc_ticks = t - t0;
    w->pit_ticks = count;
    if (ref0 && ref_read(&rt1, &r1) && ((r1 - r0) & pmtmr_mask)) {
        w->ref_ok = true;
        w->ref_tsc_ticks = rt1 - rt0;
        w->ref_ticks = (r1 - r0) & pmtmr_mask;
    }
}

void bios_clock_init(void)
{
    struct tsc_cal_window w[CAL_WINDOWS];
    unsigned ms = CAL_MS;

    pmtimer_find();
    for (unsigned i = 0; i < CAL_WINDOWS; i++) {
        uint64_t hz;
        pit_window(ms, &w[i]);
        /* Linux: a failed window on a virtual PC: longer windows from then on. */
        if (tsc_cal_window_judge(&w[i], TSC_CAL_LOOPS_PER_MS_MIN, &hz) != TSC_WIN_OK)
            ms = CAL2_MS;
    }
    tsc_cal_choose(w, CAL_WINDOWS, TSC_CAL_LOOPS_PER_MS_MIN, pmtmr_port ? TSC_CAL_PMTIMER_HZ : 0, &cal);
    tsc_hz = cal.hz;
    if (tsc_hz)
        clock_source = !cal.from_ref ? "pit" : cal.pit_hz ? "pit+pmtimer" : "pmtimer";
    tsc_base = rdtsc();
    {
        char text[480];
        tsc_cal_describe(&cal, pmtmr_port ? "ACPI PM timer" : "", text, sizeof(text));
        plat_diag_later("clock", "legacy BIOS: %s", text);
    }
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
