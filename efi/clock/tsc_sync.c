/* Two CPUs' TSCs compared, as Linux check_tsc_warp() (tsc_sync.h). */
#include "tsc_sync.h"

static void warp_lock(struct tsc_warp *w)
{
    while (__atomic_exchange_n(&w->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&w->lock, __ATOMIC_RELAXED))
            plat_cpu_relax();
}

static void warp_unlock(struct tsc_warp *w) { __atomic_store_n(&w->lock, 0, __ATOMIC_RELEASE); }

uint64_t tsc_warp_step(struct tsc_warp *w, tsc_read_fn read, void *ctx)
{
    uint64_t prev, now;

    warp_lock(w);
    prev = w->last;
    now = read(ctx);
    w->last = now;
    w->rounds++;
    /* Linux: "if (unlikely(prev > now))", under the lock */
    if (prev > now) {
        w->warps++;
        if (prev - now > w->max_warp)
            w->max_warp = prev - now;
    }
    warp_unlock(w);
    return now;
}

void tsc_warp_run(struct tsc_warp *w, tsc_read_fn read, void *ctx, uint64_t ticks, uint64_t max_loops)
{
    uint64_t start = tsc_warp_step(w, read, ctx), now = start;

    for (uint64_t i = 1; i < max_loops && now - start < ticks; i++)
        now = tsc_warp_step(w, read, ctx);
}

uint64_t tsc_warp_ns(const struct tsc_warp *w, uint64_t tsc_hz)
{
    if (!w->max_warp || !tsc_hz)
        return 0;
    return (uint64_t)(((unsigned __int128)w->max_warp * 1000000000ull + tsc_hz - 1) / tsc_hz);
}
