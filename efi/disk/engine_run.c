/* engine_run(): every CPU's polling loop over its own units, the boot
 * processor's progress line and Esc, and the bounded join of the
 * application processors (see engine_internal.h). */
#include "engine_internal.h"
#include "../record.h"
#include "../time_units.h"

#define ENGINE_UI_INTERVAL_NS (500 * NS_PER_MS)
/* An application processor is given up on this long after the latest
 * moment its units could end: the window, a first I/O's stall limit (an
 * open window) and the drain's. */
#define ENGINE_AP_GRACE_NS (5 * NS_PER_S)
/* The boot processor with no queue of its own rests this long between
 * looks at the others (progress, Esc, their end): spinning would take a
 * hyperthread's or, under QEMU, a host core's time from the CPUs that poll. */
#define ENGINE_BSP_IDLE_NS (1 * NS_PER_MS)

/* The progress line: test, elapsed time (a sweep: how far it is), MB/s since the last line. */
static void show_progress(struct disk_job *jobs, unsigned n, const char *label, enum phase phase, uint64_t elapsed,
                          const struct engine_timing *t, uint64_t *last_bytes, uint64_t *last_ns, uint64_t now)
{
    uint64_t total = 0;
    double mbps;

    for (unsigned i = 0; i < n; i++)
        total += __atomic_load_n(&jobs[i].live_bytes, __ATOMIC_RELAXED); /* written by other CPUs */
    mbps = now > *last_ns ? (double)(total - *last_bytes) * 1e3 / (double)(now - *last_ns) : 0;
    *last_bytes = total;
    *last_ns = now;
    if (jobs[0].sweep)
        ui_progress("%s  %.0f%%  %.1f MB/s", label,
                    100.0 * (double)(jobs[0].sweep_next - jobs[0].sweep_first) /
                        (double)MAX(jobs[0].sweep_end - jobs[0].sweep_first, 1ull), mbps);
    else if (phase == PHASE_WARMUP)
        ui_progress("%s  warm-up  %.1f MB/s", label, mbps);
    else if (phase == PHASE_MEASURE)
        ui_progress("%s  %.1f/%.1f s  %.1f MB/s", label, (double)(elapsed - t->warmup_ns) / 1e9,
                    (double)t->measure_ns / 1e9, mbps);
    else
        ui_progress("%s  finishing", label);
}


/* One CPU's phase: measured window, drain, Esc (told by the boot processor). */
static void cpu_advance(struct engine_cpu *c, uint64_t now)
{
    const struct engine_shared *sh = c->sh;

    if (c->phase == PHASE_WARMUP && now >= sh->t_meas)
        c->phase = PHASE_MEASURE;
    if (c->phase == PHASE_MEASURE && now >= sh->t_end) {
        c->phase = PHASE_DRAIN;
        close_windows(c->jobs, c->n, c->aborted);
    }
    if (!c->aborted && sh->abort) {
        c->aborted = true;
        c->phase = PHASE_DRAIN;
        stop_for_esc(c->jobs, c->n, sh->abort_ns);
    }
}

/* One polling round over a CPU's units from *now (moved to the round's
 * end). Returns whether any unit has work left. */
static bool cpu_round(struct engine_cpu *c, uint64_t *now)
{
    bool left = false;
    int work = 0;
    uint64_t after;

    cpu_advance(c, *now);
    for (unsigned i = 0; i < c->n; i++) {
        work += job_step(&c->jobs[i], c->sh->t_meas, c->sh->t, *now);
        if (job_active(&c->jobs[i]))
            left = true;
    }
    after = plat_now_ns();
    if (c->phase == PHASE_MEASURE) {
        c->loops++;
        if (work)
            c->busy_ns += after - *now;
    }
    *now = after;
    return left;
}

/* An application processor: its units until they are drained. */
static void ap_main(unsigned cpu, void *arg)
{
    struct engine_cpu *c = arg;
    uint64_t now = plat_now_ns();

    (void)cpu;
    start_jobs(c->jobs, c->n, now, c->sh->t_end); /* its queues are its own from the first command */
    while (cpu_round(c, &now) || c->phase != PHASE_DRAIN)
        ;
    __atomic_store_n(&c->finished, 1, __ATOMIC_RELEASE);
}

/* Have the application processors finished? Past the deadline, the ones
 * that have not are hung. */
static bool aps_done(struct engine_plan *p, bool deadline_passed)
{
    bool done = true;

    for (unsigned k = 1; k < p->ncpus; k++) {
        struct engine_cpu *c = &p->cpus[k];
        if (!c->started || c->hung || __atomic_load_n(&c->finished, __ATOMIC_ACQUIRE))
            continue;
        if (deadline_passed)
            c->hung = true;
        else
            done = false;
    }
    return done;
}

/* Start each application processor that has units; the units of one that
 * cannot be started are polled by the boot processor instead. */
static void start_aps(struct engine_plan *p)
{
    for (unsigned k = 1; k < p->ncpus; k++) {
        struct engine_cpu *c = &p->cpus[k];
        if (!c->n)
            continue;
        c->started = plat_cpu_start(c->cpu, ap_main, c) == BM_OK;
        if (!c->started) {
            start_jobs(c->jobs, c->n, plat_now_ns(), c->sh->t_end);
            plat_diag("engine", "CPU %u could not be started; the boot processor polls its %u queue%s", c->cpu,
                      c->n, c->n == 1 ? "" : "s");
            for (unsigned i = 0; i < c->n; i++)
                c->jobs[i].cpu = 0;
            c->cpu = 0;
        }
    }
}

/* Has a CPU's unit anything the next round could move: commands in flight,
 * or I/O waiting for queue room? */
static bool cpu_has_io(const struct engine_cpu *c)
{
    for (unsigned i = 0; i < c->n; i++)
        if (!c->jobs[i].stuck && (c->jobs[i].inflight || c->jobs[i].pending))
            return true;
    return false;
}

/* The boot processor: its own units (and those of CPUs that could not be
 * started), the progress line, Esc, the others' diagnostics, until
 * everything is drained or the application processors' deadline passed.
 * Whenever none of its own units has work (it has none, or theirs is
 * done: a small disk's scan beside a large one's) it rests between looks,
 * so that it does not take a core (a host core, under QEMU) from the
 * CPUs still polling. */
static void bsp_main(struct engine_plan *p, struct engine_shared *sh, const char *label)
{
    uint64_t now = sh->t0, next_ui = sh->t0, last_bytes = 0, last_ns = sh->t0;
    uint64_t ap_deadline = sh->t_end + 2 * sh->t->stall_ns + ENGINE_AP_GRACE_NS;

    for (;;) {
        bool left = false, io = false;
        for (unsigned k = 0; k < p->ncpus; k++)
            if (k == 0 || (!p->cpus[k].started && p->cpus[k].n)) {
                left |= cpu_round(&p->cpus[k], &now);
                io |= cpu_has_io(&p->cpus[k]);
            }
        if (!left && p->cpus[0].phase == PHASE_DRAIN && aps_done(p, now >= ap_deadline))
            break;
        if (!left && !io && now < next_ui)
            plat_idle_ns(MIN(next_ui - now, ENGINE_BSP_IDLE_NS));
        if (now >= next_ui) {
            next_ui = now + ENGINE_UI_INTERVAL_NS;
            show_progress(p->units, p->nunits, label, p->cpus[0].phase, now - sh->t0, sh->t, &last_bytes, &last_ns,
                          now);
            plat_diag_flush();
            if (!sh->abort && plat_abort_requested()) {
                sh->abort_ns = now;
                __atomic_store_n(&sh->abort, 1, __ATOMIC_RELEASE);
            }
        }
    }
    plat_diag_flush();
}

/* Join the application processors; the units of a hung one fail, and its
 * memory is kept (it may still write into it). */
static void join_aps(struct engine_plan *p)
{
    for (unsigned k = 1; k < p->ncpus; k++) {
        struct engine_cpu *c = &p->cpus[k];
        if (!c->started)
            continue;
        if (!c->hung && plat_cpu_wait(c->cpu, NS_PER_S) == BM_OK)
            continue;
        c->hung = true;
        for (unsigned i = 0; i < c->n; i++) {
            struct disk_job *u = &c->jobs[i];
            job_fail(u, BM_ETIMEDOUT, ENGINE_FAIL_STALL, 0, "CPU %u, which drove it, did not come back", c->cpu);
            u->stuck = true;
            u->cpu_hung = true;
        }
    }
}

/* The run's statistics: each CPU's busy share, the busiest one. */
static void run_stats(const struct engine_plan *p, const struct engine_timing *t, struct engine_run_stats *st)
{
    double busy[ENGINE_MAX_CPUS] = { 0 };
    bool used[ENGINE_MAX_CPUS] = { false };

    memset(st, 0, sizeof(*st));
    for (unsigned k = 0; k < p->ncpus; k++) {
        const struct engine_cpu *c = &p->cpus[k];
        st->loops += c->loops;
        if (!c->n)
            continue;
        used[c->cpu] = true;
        busy[c->cpu] += t->measure_ns ? 100.0 * (double)c->busy_ns / (double)t->measure_ns : 0;
    }
    for (unsigned cpu = 0; cpu < ENGINE_MAX_CPUS; cpu++) {
        if (!used[cpu])
            continue;
        st->cpu_busy_pct[st->cpus++] = MIN(100.0, busy[cpu]);
        st->core_busy_pct = MAX(st->core_busy_pct, MIN(100.0, busy[cpu]));
    }
}

/* Each job's count of commands its device completed after correcting an
 * error: the driver counts them on the disk (bm_disk.recovered), so the
 * job gets the difference over the run. Called with before set at the
 * start (the job keeps the count then; its units copy it and the merge
 * keeps it) and clear at the end. A disk that two jobs drive at once
 * gives its count to the first. */
static void count_recovered(struct disk_job *jobs, unsigned n, bool before)
{
    for (unsigned i = 0; i < n; i++) {
        bool first = true;
        for (unsigned k = 0; k < i && first; k++)
            first = jobs[k].disk != jobs[i].disk;
        if (before)
            jobs[i].recovered = bm_disk_recovered(jobs[i].disk);
        else
            jobs[i].recovered = first ? bm_disk_recovered(jobs[i].disk) - jobs[i].recovered : 0;
    }
}

static unsigned cpu_limit;

void engine_limit_cpus(unsigned max) { cpu_limit = max; }

/* Warm-up, measured window and drain for jobs running at the same time,
 * spread over the CPUs. */
int engine_run(struct disk_job *jobs, unsigned n, const struct engine_timing *t, const char *label,
               struct engine_run_stats *stats)
{
    /* The plan and the shared clock live as long as the run, or for good
     * when a CPU hung with them (it may wake up and read them); without
     * memory, a spare pair serves until a CPU hangs with it. */
    static struct engine_plan spare_plan;
    static struct engine_shared spare_sh;
    static bool spare_kept;
    struct engine_plan *plan = plat_alloc(sizeof(*plan));
    struct engine_shared *sh = plat_alloc(sizeof(*sh));
    unsigned ncpus = MIN(plat_cpu_count(), (unsigned)ENGINE_MAX_CPUS);
    struct engine_run_stats st;
    bool hung = false, spare = !plan || !sh, aborted;

    if (spare) {
        plat_free(plan);
        plat_free(sh);
        plan = &spare_plan;
        sh = &spare_sh;
        if (spare_kept)
            ncpus = 1; /* a hung CPU may still read the spares: nothing runs off the boot processor */
    }
    if (cpu_limit)
        ncpus = MIN(ncpus, cpu_limit);
    count_recovered(jobs, n, true); /* before the plan copies the jobs into its units */
    if (ncpus < 2 || engine_plan_spread(plan, jobs, n, ncpus) != BM_OK)
        engine_plan_single(plan, jobs, n);
    memset(sh, 0, sizeof(*sh));
    sh->t = t;
    sh->t0 = plat_now_ns();
    sh->t_meas = sh->t0 + t->warmup_ns;
    sh->t_end = sh->t_meas + t->measure_ns;
    for (unsigned k = 0; k < plan->ncpus; k++) {
        plan->cpus[k].sh = sh;
        plan->cpus[k].phase = PHASE_WARMUP;
    }
    start_jobs(plan->cpus[0].jobs, plan->cpus[0].n, sh->t0, sh->t_end);
    start_aps(plan);
    bsp_main(plan, sh, label);
    join_aps(plan);
    for (unsigned k = 0; k < plan->ncpus; k++) {
        hung |= plan->cpus[k].hung;
        if (!plan->cpus[k].hung)
            finish_windows(plan->cpus[k].jobs, plan->cpus[k].n, sh->t_meas, sh->t_end);
    }
    run_stats(plan, t, &st);
    engine_plan_merge(plan, jobs, n);
    count_recovered(jobs, n, false);
    if (stats)
        *stats = st;
    aborted = sh->abort;
    if (spare)
        spare_kept |= hung;
    else if (!hung) {
        plat_free(plan);
        plat_free(sh);
    }
    return aborted ? BM_EABORT : BM_OK;
}
