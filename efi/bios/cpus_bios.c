/* CPUs on a BIOS PC: only the bootstrap processor for now. Starting the
 * others (INIT-SIPI-SIPI from the MADT) is not done yet, so all-CPU memory
 * measurements run on one CPU and the run's records say how many ran. */
#include "bios_private.h"

unsigned plat_cpu_count(void) { return 1; }

/* The first measurement that runs "on all CPUs" says, once, that here that
 * is one: a log record on every sink, after the run record (the inventory's
 * plat_cpu_count() call comes before it). */
int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    static bool said;

    if (n == 0)
        return BM_EINVAL;
    if (!said) {
        said = true;
        plat_diag("cpus", "legacy BIOS: only the boot CPU runs (the other CPUs are not started yet), "
                          "so every measurement is a one-CPU one");
    }
    fn(0, arg);
    return 1;
}

/* CPUID leaf 1 EBX bits 31:24: the initial APIC ID of this CPU. */
uint32_t plat_cpu_apic_id(unsigned cpu_index)
{
    uint32_t a = 1, b, c = 0, d;

    if (cpu_index != 0)
        return 0;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return b >> 24;
}

/* One CPU: the caller is always the boot processor, and there is no
 * application processor to give a job (the disk engine then runs every job
 * on the boot processor, as with plat_cpu_count() == 1 anywhere). */
bool plat_on_bsp(void) { return true; }

int plat_cpu_start(unsigned cpu, plat_cpu_fn fn, void *arg) { return cpu == 0 ? BM_EINVAL : BM_ENOTSUP; }

int plat_cpu_wait(unsigned cpu, uint64_t timeout_ns) { return BM_OK; }

/* No timer interrupt is set up here, so HLT could sleep for ever: wait on
 * the calibrated clock instead. */
void plat_idle_ns(uint64_t ns) { plat_delay_ns(ns); }
