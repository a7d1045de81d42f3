/* INIT-SIPI-SIPI, as Linux wakeup_secondary_cpu_via_init() and
 * do_boot_cpu() (arch/x86/kernel/smpboot.c) send it: INIT asserted, 10 ms,
 * INIT de-asserted, then two start-up IPIs, each followed by a pause, then
 * a bounded wait for the AP to say it runs. Linux waits up to 10 s for the
 * first sign of life; ours is AP_CALLIN_NS, a CPU that has not started in a
 * second is not going to take part in a benchmark. */
#include "ap_start.h"

/* INIT, level asserted then de-asserted. */
static int send_init(const struct ap_start_ops *ops, void *ctx, uint32_t apic_id)
{
    int rc = ops->send_ipi(ctx, apic_id, ICR_TRIGGER_LEVEL | ICR_LEVEL_ASSERT | ICR_DM_INIT);

    if (rc != BM_OK)
        return rc;
    ops->delay_ns(ctx, AP_INIT_DELAY_NS);
    return ops->send_ipi(ctx, apic_id, ICR_TRIGGER_LEVEL | ICR_DM_INIT);
}

int ap_start(const struct ap_start_ops *ops, void *ctx, uint32_t apic_id, uint8_t sipi_vector, unsigned index,
             uint64_t callin_ns)
{
    uint64_t deadline;

    if (send_init(ops, ctx, apic_id) != BM_OK)
        return BM_EIO;
    /* Two start-up IPIs: the second is ignored by an AP the first one
     * already started (it is no longer waiting for SIPI). */
    for (int j = 0; j < 2; j++) {
        if (ops->send_ipi(ctx, apic_id, ICR_DM_STARTUP | sipi_vector) != BM_OK)
            return BM_EIO;
        ops->delay_ns(ctx, AP_SIPI_GAP_NS);
    }
    deadline = ops->now_ns(ctx) + callin_ns;
    while (!ops->checked_in(ctx, index)) {
        if (ops->now_ns(ctx) >= deadline) {
            /* Back to wait-for-SIPI: a late starter would take the next
             * AP's stack from the trampoline. */
            send_init(ops, ctx, apic_id);
            return BM_ETIMEDOUT;
        }
        ops->delay_ns(ctx, 1000);
    }
    return BM_OK;
}
