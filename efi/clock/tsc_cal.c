/* TSC calibration from samples (tsc_cal.h), after Linux arch/x86/kernel/tsc.c. */
#include "tsc_cal.h"

enum tsc_cal_verdict tsc_cal_window_judge(const struct tsc_cal_window *w, uint64_t loops_per_ms, uint64_t *hz)
{
    uint64_t loops_min = (uint64_t)((unsigned __int128)loops_per_ms * w->pit_ticks * 1000 / TSC_CAL_PIT_HZ);

    *hz = 0;
    if (!w->pit_ticks || !w->tsc_ticks || !w->loops)
        return TSC_WIN_EMPTY;
    *hz = (uint64_t)((unsigned __int128)w->tsc_ticks * TSC_CAL_PIT_HZ / w->pit_ticks);
    /* pit_calibrate_tsc(): "if (pitcnt < loopmin || tscmax > 10 * tscmin) return ULONG_MAX" */
    if (w->poll_max > (unsigned __int128)w->poll_min * TSC_CAL_STALL_FACTOR)
        return TSC_WIN_STALLED;
    if (w->loops < loops_min)
        return TSC_WIN_FEW_LOOPS;
    return TSC_WIN_OK;
}

uint64_t tsc_cal_window_ref_hz(const struct tsc_cal_window *w, uint64_t ref_hz)
{
    if (!w->ref_ok || !w->ref_ticks || !ref_hz)
        return 0;
    return (uint64_t)((unsigned __int128)w->ref_tsc_ticks * ref_hz / w->ref_ticks);
}

void tsc_cal_choose(const struct tsc_cal_window *w, unsigned n, uint64_t loops_per_ms, uint64_t ref_hz,
                    struct tsc_cal_result *r)
{
    uint64_t raw[TSC_CAL_WINDOWS_MAX];
    unsigned nraw = 0;

    memset(r, 0, sizeof(*r));
    n = MIN(n, TSC_CAL_WINDOWS_MAX);
    for (unsigned i = 0; i < n; i++) {
        uint64_t hz, rh;
        enum tsc_cal_verdict v = tsc_cal_window_judge(&w[i], loops_per_ms, &hz);

        r->windows++;
        r->window_hz[i] = hz;
        if (hz) {
            unsigned j = nraw++;
            for (; j > 0 && raw[j - 1] > hz; j--)
                raw[j] = raw[j - 1];
            raw[j] = hz;
        }
        if (v == TSC_WIN_STALLED)
            r->stalled++;
        else if (v != TSC_WIN_OK)
            r->few_loops++;
        else if (!r->pit_hz || hz < r->pit_hz)
            r->pit_hz = hz;
        rh = tsc_cal_window_ref_hz(&w[i], ref_hz);
        if (rh && (!r->ref_hz || rh < r->ref_hz))
            r->ref_hz = rh;
    }
    if (r->pit_hz && r->ref_hz) {
        int64_t d = (int64_t)((unsigned __int128)r->pit_hz * 1000 / r->ref_hz) - 1000;
        r->deviation_pct = (int)(d >= 0 ? (d + 5) / 10 : (d - 5) / 10);
        /* "PIT calibration matches": the reference is the finer of the two. */
        if (d >= -TSC_CAL_AGREE_PCT * 10 && d <= TSC_CAL_AGREE_PCT * 10) {
            r->hz = r->ref_hz;
            r->from_ref = true;
            return;
        }
        r->hz = r->pit_hz;      /* "PIT calibration deviates": in doubt, the PIT */
        return;
    }
    if (r->pit_hz) {
        r->hz = r->pit_hz;
        return;
    }
    if (r->ref_hz) {
        r->hz = r->ref_hz;
        r->from_ref = true;
        return;
    }
    /* Linux would give up the TSC here; a benchmark has no other clock, so
     * it keeps the median window and says the rate is unchecked. */
    r->hz = nraw ? raw[nraw / 2] : 0;
    r->unchecked = nraw != 0;
}

void tsc_cal_describe(const struct tsc_cal_result *r, const char *ref_name, char *buf, size_t len)
{
    size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
    if (!len)
        return;
    buf[0] = '\0';
    if (!r->hz) {
        ADD("no TSC rate: PIT channel 2 never counted out%s", r->windows ? "" : " (no window)");
        return;
    }
    ADD("TSC %llu.%llu MHz ", (unsigned long long)((r->hz + 50000) / 1000000),
        (unsigned long long)((r->hz + 50000) / 100000 % 10));
    if (r->from_ref && !r->pit_hz)
        ADD("from the %s: every PIT window was rejected", ref_name);
    else if (r->unchecked)
        ADD("from the median PIT window, unchecked: every window was rejected and there is no reference");
    else
        ADD("from the best of %u PIT windows", r->windows - r->stalled - r->few_loops);
    if (r->stalled)
        ADD("; %u window%s hit by an SMI or a stall, left out", r->stalled, r->stalled == 1 ? "" : "s");
    if (r->few_loops)
        ADD("; %u window%s too short to count, left out", r->few_loops, r->few_loops == 1 ? "" : "s");
    if (r->pit_hz && r->ref_hz)
        ADD(r->from_ref ? "; the %s agrees (%+d %%), its rate is used" : "; the %s disagrees (%+d %%): the PIT's rate is used",
            ref_name, r->deviation_pct);
    else if (!r->ref_hz && ref_name && ref_name[0])
        ADD("; the %s gave no rate", ref_name);
    else if (!ref_name || !ref_name[0])
        ADD("; no ACPI PM timer to cross-check");
    ADD(" (PIT windows:");
    for (unsigned i = 0; i < r->windows; i++)
        ADD(" %llu.%llu", (unsigned long long)((r->window_hz[i] + 50000) / 1000000),
            (unsigned long long)((r->window_hz[i] + 50000) / 100000 % 10));
    ADD(" MHz)");
#undef ADD
}
