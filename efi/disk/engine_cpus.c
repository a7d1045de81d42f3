/* A run's plan: jobs cut into units and placed on CPUs, and the units'
 * results folded back into their jobs (see engine_internal.h). */
#include "engine_internal.h"

void engine_plan_single(struct engine_plan *p, struct disk_job *jobs, unsigned n)
{
    memset(p, 0, sizeof(*p));
    p->units = jobs;
    p->nunits = n;
    p->ncpus = 1;
    p->cpus[0].jobs = jobs;
    p->cpus[0].n = n;
    for (unsigned i = 0; i < n; i++)
        jobs[i].cpu = 0;
}

/* Must the job stay on the boot processor? Firmware disks (boot services
 * are not MP-safe) and sweeps (their hooks check data and may report),
 * unless the hooks say they are safe anywhere (engine.h mp_safe). */
static bool bsp_only(const struct disk_job *j)
{
    if ((j->sweep || j->hooks) && !(j->hooks && j->hooks->mp_safe))
        return true;
    return !j->disk->path || strcmp(j->disk->path, BM_PATH_NATIVE) != 0;
}

/* Is the job cut into one unit per queue pair? Random I/O only: a
 * sequential job's queues share one stream of positions. */
static bool split_by_queue(const struct disk_job *j)
{
    return !bsp_only(j) && j->disk->mp_queues && j->test.random && j->nq > 1;
}

/* How many units the jobs make. */
static unsigned count_units(const struct disk_job *jobs, unsigned n)
{
    unsigned units = 0;

    for (unsigned i = 0; i < n; i++)
        units += split_by_queue(&jobs[i]) ? jobs[i].nq : 1;
    return units;
}

/* Unit k of job j: its queue pair k with its slots and buffers, and a
 * histogram, offset stream and write stamps of its own. */
static void unit_of_queue(struct disk_job *u, const struct disk_job *j, unsigned k, struct histogram *h)
{
    *u = *j;
    u->nq = 1;
    u->q_base = j->q_base + k;
    u->slots = j->slots + (size_t)k * j->qd;
    u->buf = j->buf + (size_t)k * j->qd * j->test.bs;
    u->buf_bytes = (size_t)j->qd * j->test.bs;
    u->hist = h;
    hist_reset(h);
    bm_rng_seed(&u->gen.rng, j->stamp_key + 0x9e3779b97f4a7c15ull * (k + 1));
    u->stamp_key = j->stamp_key ^ ((uint64_t)(k + 1) << 48);
}

/* The CPU a unit goes to. Units of the same group (the disks of one
 * controller whose disks are not mp_queues) share one; the others go
 * round-robin over the application processors first, then the boot
 * processor (which also draws the progress line). */
static unsigned place(struct engine_plan *p, const struct disk_job *u, unsigned done, unsigned ncpus,
                      unsigned *next)
{
    unsigned cpu;

    if (bsp_only(u))
        return 0;
    if (!u->disk->mp_queues && u->disk->pci[0])
        for (unsigned i = 0; i < done; i++)
            if (!bsp_only(&p->units[i]) && !p->units[i].disk->mp_queues &&
                strcmp(p->units[i].disk->pci, u->disk->pci) == 0)
                return p->units[i].cpu;
    cpu = 1 + (*next)++ % ncpus; /* 1 .. ncpus-1, then ncpus: the boot processor */
    return cpu == ncpus ? 0 : cpu;
}

/* Sort the units by CPU (stable) and point each CPU at its range. */
static int group_by_cpu(struct engine_plan *p, unsigned ncpus)
{
    struct disk_job *sorted = plat_alloc(sizeof(*sorted) * p->nunits);
    unsigned *parent = plat_alloc(sizeof(*parent) * p->nunits);
    unsigned at = 0;

    if (!sorted || !parent) {
        plat_free(sorted);
        plat_free(parent);
        return BM_ENOMEM;
    }
    for (unsigned c = 0; c < ncpus; c++) {
        p->cpus[c].cpu = c;
        p->cpus[c].jobs = sorted + at;
        for (unsigned i = 0; i < p->nunits; i++)
            if (p->units[i].cpu == c) {
                parent[at] = p->parent[i];
                sorted[at++] = p->units[i];
            }
        p->cpus[c].n = (unsigned)(sorted + at - p->cpus[c].jobs);
    }
    plat_free(p->units);
    plat_free(p->parent);
    p->units = sorted;
    p->parent = parent;
    p->ncpus = ncpus;
    return BM_OK;
}

int engine_plan_spread(struct engine_plan *p, struct disk_job *jobs, unsigned n, unsigned ncpus)
{
    unsigned nunits = count_units(jobs, n), at = 0, next = 0;

    memset(p, 0, sizeof(*p));
    ncpus = MIN(ncpus, (unsigned)ENGINE_MAX_CPUS);
    p->units = plat_alloc(sizeof(*p->units) * nunits);
    p->parent = plat_alloc(sizeof(*p->parent) * nunits);
    p->owned = true;
    if (!p->units || !p->parent)
        goto err_nomem;
    for (unsigned i = 0; i < n; i++) {
        unsigned k, parts = split_by_queue(&jobs[i]) ? jobs[i].nq : 1;
        for (k = 0; k < parts; k++) {
            struct disk_job *u = &p->units[at];
            if (parts == 1) {
                *u = jobs[i];
            } else {
                struct histogram *h = plat_alloc(sizeof(*h));
                if (!h)
                    goto err_nomem;
                unit_of_queue(u, &jobs[i], k, h);
            }
            p->parent[at] = i;
            p->nunits = ++at;
            u->cpu = place(p, u, at - 1, ncpus, &next);
        }
    }
    if (group_by_cpu(p, ncpus) != BM_OK)
        goto err_nomem;
    return BM_OK;

err_nomem:
    for (unsigned i = 0; p->units && i < p->nunits; i++)
        if (p->units[i].hist != jobs[p->parent[i]].hist)
            plat_free(p->units[i].hist);
    plat_free(p->units);
    plat_free(p->parent);
    engine_plan_single(p, jobs, n);
    return BM_ENOMEM;
}

/* Fold a unit of a job cut by queue into the job. */
static void fold_unit(struct disk_job *j, const struct disk_job *u)
{
    j->ios += u->ios;
    j->bytes += u->bytes;
    j->live_bytes += u->live_bytes;
    j->inflight += u->inflight;
    j->stuck |= u->stuck;
    j->cpu_hung |= u->cpu_hung;
    if (u->seconds > j->seconds) {
        j->seconds = u->seconds;
        bm_strlcpy(j->note, u->note, sizeof(j->note)); /* a window kept open says so */
    }
    if (j->status == BM_OK && u->status != BM_OK) {
        j->status = u->status;
        j->fail_at = u->fail_at;
        j->fail_lba = u->fail_lba;
        bm_strlcpy(j->detail, u->detail, sizeof(j->detail));
        bm_strlcpy(j->fail_device, u->fail_device, sizeof(j->fail_device));
    }
    hist_merge(j->hist, u->hist);
}

/* Add CPU cpu (busy pct) to the CPUs that drove job j, once. */
static void note_cpu(struct disk_job *j, unsigned cpu, const struct engine_plan *p, bool *seen)
{
    double busy = 0;

    if (seen[cpu])
        return;
    seen[cpu] = true;
    for (unsigned c = 0; c < p->ncpus; c++)
        if (p->cpus[c].cpu == cpu && p->cpus[c].sh && p->cpus[c].sh->t->measure_ns)
            busy += 100.0 * (double)p->cpus[c].busy_ns / (double)p->cpus[c].sh->t->measure_ns;
    if (j->cpus < ENGINE_JOB_CPUS)
        j->cpu_busy_pct[j->cpus] = MIN(100.0, busy);
    j->cpus++;
}

void engine_plan_merge(struct engine_plan *p, struct disk_job *jobs, unsigned n)
{
    bool hung = false;

    for (unsigned i = 0; i < n; i++) {
        bool seen[ENGINE_MAX_CPUS] = { false };
        bool whole = !p->owned;

        for (unsigned u = 0; u < p->nunits && p->owned; u++)
            if (p->parent[u] == i && p->units[u].hist == jobs[i].hist) {
                jobs[i] = p->units[u]; /* the whole job ran as one unit */
                whole = true;
            }
        jobs[i].cpus = 0;
        for (unsigned u = 0; u < p->nunits; u++) {
            struct disk_job *x = &p->units[u];
            if ((p->owned ? p->parent[u] : u) != i)
                continue;
            if (!whole)
                fold_unit(&jobs[i], x);
            hung |= x->cpu_hung;
            note_cpu(&jobs[i], x->cpu, p, seen);
        }
    }
    if (!p->owned || hung)
        return; /* a CPU that never came back may still use the copies */
    for (unsigned u = 0; u < p->nunits; u++)
        if (p->units[u].hist != jobs[p->parent[u]].hist)
            plat_free(p->units[u].hist);
    plat_free(p->units);
    plat_free(p->parent);
    p->units = NULL;
}
