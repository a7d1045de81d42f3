/* What the MPT model tests share: the doorbell handshake's request
 * dwords, the PCI function, polling (see mpt_sim.h). */
#include <string.h>

#include "mpt_sim.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16)); }

enum mpt_sim_dword mpt_sim_hs_dword(struct mpt_sim_hs_request *r, uint32_t *his, uint32_t v)
{
    if (*his & MPT_SIM_HIS_SYS2IOC)
        return MPT_SIM_DWORD_REFUSED;
    if (r->dw_call != r->call) {
        r->dw_call = r->call;
        r->dwords_in_call = 0;
    }
    if (++r->dwords_in_call > r->max_dwords_in_call)
        r->max_dwords_in_call = r->dwords_in_call;
    r->dw[r->got++] = v;
    *his |= MPT_SIM_HIS_SYS2IOC;
    if (r->ack_never_dword == r->got && (uint8_t)(r->dw[0] >> 24) == r->ack_never_fn) {
        r->ack_pending = true; /* never taken */
        r->ack_due_ns = UINT64_MAX;
        return MPT_SIM_DWORD_HELD;
    }
    if (r->ack_late_ns) {
        /* The request is looked at once its last dword is taken. */
        r->ack_pending = true;
        r->ack_due_ns = plat_now_ns() + r->ack_late_ns;
        return MPT_SIM_DWORD_HELD;
    }
    return MPT_SIM_DWORD_TAKEN;
}

uint32_t mpt_sim_hs_his_read(struct mpt_sim_hs_request *r, uint32_t *his)
{
    uint32_t v = *his;

    /* The IOC takes a doorbell word some time after it was written:
     * the host sees it pending once (a slow IOC: until ack_due_ns). */
    if (r->ack_pending) {
        if (r->his_call != r->call) {
            r->his_call = r->call;
            r->his_waits_in_call = 0;
        }
        if (++r->his_waits_in_call > r->max_his_waits_in_call)
            r->max_his_waits_in_call = r->his_waits_in_call;
    } else {
        *his &= ~MPT_SIM_HIS_SYS2IOC;
    }
    return v;
}

bool mpt_sim_hs_ack_due(struct mpt_sim_hs_request *r, uint32_t *his)
{
    if (!r->ack_pending || plat_now_ns() < r->ack_due_ns)
        return false;
    r->ack_pending = false;
    r->late_acks++;
    *his &= ~MPT_SIM_HIS_SYS2IOC;
    return true;
}

void mpt_sim_attach(struct plat_sim_dev *sd, struct pci_addr addr, uint16_t device_id, void *ctx,
                    uint32_t (*read32)(void *ctx, int bar, uint32_t off),
                    void (*write32)(void *ctx, int bar, uint32_t off, uint32_t v),
                    void (*write64)(void *ctx, int bar, uint32_t off, uint64_t v))
{
    memset(sd, 0, sizeof(*sd));
    sd->addr = addr;
    sd->ctx = ctx;
    sd->mmio_read32 = read32;
    sd->mmio_write32 = write32;
    sd->mmio_write64 = write64;
    put16(sd->config + 0x00, 0x1000);
    put16(sd->config + 0x02, device_id);
    sd->config[0x0b] = 0x01, sd->config[0x0a] = 0x07;  /* mass storage, SAS */
    put32(sd->config + 0x10, 0x00000001);               /* BAR0: I/O */
    put32(sd->config + 0x14, 0x00000004);               /* BAR1: 64-bit memory */
    sd->bar_size[1] = 0x10000;
    plat_sim_attach(sd);
}

int mpt_poll_n(struct bm_disk *d, struct bm_completion *out, int n)
{
    int got = 0;

    for (int spins = 0; got < n && spins < 100000; spins++) {
        int k = d->ops->poll(d, 0, out + got, n - got);

        got += k;
        if (!k)
            plat_sim_advance_ns(10000);
    }
    return got;
}
