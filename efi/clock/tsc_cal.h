/* TSC calibration from samples, as pure functions: one PIT window's polls
 * judged (an SMI or any other stall inside the window makes it useless),
 * the best of several windows, and the cross-check against a reference
 * counter (the ACPI PM timer or the HPET), after Linux
 * pit_hpet_ptimer_calibrate_cpu() and pit_calibrate_tsc()
 * (arch/x86/kernel/tsc.c). The BIOS build's clock (efi/bios/clock_bios.c)
 * takes the samples; nothing here touches hardware. */
#ifndef BAREMARK_CLOCK_TSC_CAL_H
#define BAREMARK_CLOCK_TSC_CAL_H

#include "../platform.h"

#define TSC_CAL_PIT_HZ 1193182ull       /* the 8254's input clock */
#define TSC_CAL_PMTIMER_HZ 3579545ull   /* ACPI PM timer (ACPI 6.5, 4.8.3.3) */
#define TSC_CAL_WINDOWS_MAX 8
/* A poll of the PIT longer than this many times the shortest one means
 * the CPU was away (SMI, a hypervisor): Linux pit_calibrate_tsc()'s
 * "tscmax > 10 * tscmin". */
#define TSC_CAL_STALL_FACTOR 10
/* tsc_read_refs(): a reference read between two TSC reads further apart
 * than this many TSC ticks was interrupted and is read again. */
#define TSC_CAL_REF_READ_MAX_TICKS 50000ull
/* Linux: PIT and reference agree when within 10 %. */
#define TSC_CAL_AGREE_PCT 10

/* What one PIT window saw: PIT channel 2 counted pit_ticks down while the
 * TSC advanced tsc_ticks over `loops` polls of its OUT pin, the shortest
 * and longest poll in TSC ticks. ref_*: the reference counter read (with
 * the TSC) just before and just after the window; ref_ok false when there
 * is none or a read was interrupted each time it was tried. */
struct tsc_cal_window {
    uint64_t tsc_ticks, pit_ticks;
    uint64_t loops, poll_min, poll_max;
    bool ref_ok;
    uint64_t ref_tsc_ticks, ref_ticks;
};

enum tsc_cal_verdict { TSC_WIN_OK, TSC_WIN_STALLED, TSC_WIN_FEW_LOOPS, TSC_WIN_EMPTY };

/* Linux CAL_PIT_LOOPS / CAL_MS (1000 polls in 10 ms, 5000 in 50 ms): fewer
 * polls of the PIT per millisecond than this and the window is too coarse
 * to trust (a virtual PIT). */
#define TSC_CAL_LOOPS_PER_MS_MIN 100

/* The TSC rate one window gives, in Hz (0 when the window says nothing),
 * and whether it can be trusted: TSC_WIN_STALLED when one poll took more
 * than TSC_CAL_STALL_FACTOR times the shortest (an SMI hit it),
 * TSC_WIN_FEW_LOOPS with fewer than loops_per_ms polls per millisecond of
 * the window. */
enum tsc_cal_verdict tsc_cal_window_judge(const struct tsc_cal_window *w, uint64_t loops_per_ms, uint64_t *hz);
/* The TSC rate against the reference over the same window (ref_hz: its
 * rate), 0 without one. */
uint64_t tsc_cal_window_ref_hz(const struct tsc_cal_window *w, uint64_t ref_hz);

struct tsc_cal_result {
    uint64_t hz;            /* the rate to use; 0 only when no window said anything */
    uint64_t pit_hz;        /* least rate of the good PIT windows, 0 if none */
    uint64_t ref_hz;        /* least rate against the reference, 0 if none */
    unsigned windows, stalled, few_loops;
    bool from_ref;          /* hz is the reference's */
    bool unchecked;         /* every PIT window was rejected and there is no reference:
                               hz is the median of the PIT windows, said so */
    int deviation_pct;      /* PIT against reference, signed, when both exist */
    uint64_t window_hz[TSC_CAL_WINDOWS_MAX];    /* each PIT window's rate, judged or not (0: empty) */
};

/* The rate of n windows (ref_hz: the reference's rate, 0 if none), as
 * Linux decides: SMIs only lengthen a window, so the least rate of the good
 * PIT windows; if the reference agrees within TSC_CAL_AGREE_PCT its (finer)
 * value is used; if the PIT gave nothing the reference's; if they disagree,
 * the PIT's (there are PM timers running at double speed). Where Linux
 * would give up the TSC (no good window, no reference) the median of the
 * windows, flagged unchecked: an interruption can end a window early as
 * well as late (between the last TSC read and the poll that sees OUT
 * rise), so neither extreme is safer. At most TSC_CAL_WINDOWS_MAX windows. */
void tsc_cal_choose(const struct tsc_cal_window *w, unsigned n, uint64_t loops_per_ms, uint64_t ref_hz,
                    struct tsc_cal_result *r);
/* One sentence for a record: "TSC 2400.0 MHz from 3 PIT windows (1 hit
 * by an SMI, left out); the ACPI PM timer agrees (+0.2 %)". */
void tsc_cal_describe(const struct tsc_cal_result *r, const char *ref_name, char *buf, size_t len);

#endif
