/* The clock on Linux: CLOCK_MONOTONIC, plus the time simulated devices
 * made pass; the TSC rate only for the system record. */
#include "host_private.h"

static uint64_t t_base;
static uint64_t tsc_hz;

uint64_t host_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t sim_skew_ns;    /* time simulated devices made pass (platform_sim.h) */

uint64_t plat_now_ns(void) { return host_mono_ns() - t_base + __atomic_load_n(&sim_skew_ns, __ATOMIC_RELAXED); }
void plat_sim_advance_ns(uint64_t ns) { __atomic_fetch_add(&sim_skew_ns, ns, __ATOMIC_RELAXED); }
uint64_t plat_tsc_hz(void) { return tsc_hz; }
const char *plat_clock_source(void) { return "clock_gettime"; }

/* With a simulated device attached (platform_sim.h) a driver's delay is
 * the model's time, not the host's: the models answer synchronously inside
 * the register access, so nothing can change while the driver waits, and
 * a probe's debounce and settle delays pass at once instead of spinning. */
void plat_delay_ns(uint64_t ns)
{
    uint64_t end;

    if (plat_sim_devices) {
        plat_sim_advance_ns(ns);
        return;
    }
    end = plat_now_ns() + ns;
    while (plat_now_ns() < end)
        ;
}

void host_clock_init(void)
{
    uint64_t t0, c0;

    t_base = host_mono_ns();
    /* The TSC rate, for the system record (the clock itself is the kernel's). */
    t0 = host_mono_ns();
    c0 = rdtsc();
    while (host_mono_ns() - t0 < 20000000ull)
        ;
    tsc_hz = (uint64_t)((double)(rdtsc() - c0) * 1e9 / (double)(host_mono_ns() - t0));
}

void plat_idle_ns(uint64_t ns)
{
    struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)MIN(ns, 999999999ull) };
    nanosleep(&ts, NULL);
}
