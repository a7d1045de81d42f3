/* Starting one application processor with INIT-SIPI-SIPI (Intel SDM vol.
 * 3A, 10.4.4 "MP initialization protocol" and 10.6.1 "Interrupt command
 * register"), apart from the machine: the BIOS build gives it a local APIC
 * (efi/bios/cpus_bios.c), the unit tests a fake one that records what was
 * sent and when, and an AP that never answers. */
#ifndef BAREMARK_MP_AP_START_H
#define BAREMARK_MP_AP_START_H

#include "platform.h"

/* Interrupt command register, low dword (SDM vol. 3A, figure 10-12). */
#define ICR_DM_INIT 0x500u          /* delivery mode INIT */
#define ICR_DM_STARTUP 0x600u       /* delivery mode start-up; vector = page of the entry */
#define ICR_DM_FIXED 0x000u
#define ICR_LEVEL_ASSERT 0x4000u
#define ICR_TRIGGER_LEVEL 0x8000u
#define ICR_DELIVERY_PENDING 0x1000u /* xAPIC: send pending (x2APIC has no such bit) */

#define AP_INIT_DELAY_NS 10000000ull /* 10 ms INIT assert to de-assert (Linux init_udelay default) */
#define AP_SIPI_GAP_NS 200000ull      /* 200 us after each start-up IPI */
#define AP_CALLIN_NS 1000000000ull    /* how long an AP has to check in */

struct ap_start_ops {
    /* Send an IPI: ICR low dword icr to APIC ID dest; BM_OK once the APIC
     * has taken it, BM_ETIMEDOUT if its send-pending bit never cleared. */
    int (*send_ipi)(void *ctx, uint32_t dest, uint32_t icr);
    uint64_t (*now_ns)(void *ctx);
    void (*delay_ns)(void *ctx, uint64_t ns);
    /* Has the AP started with this index checked in? */
    bool (*checked_in)(void *ctx, unsigned index);
};

/* Wake the AP with this APIC ID at page sipi_vector (its real-mode entry is
 * sipi_vector << 12) and wait at most callin_ns for it to check in as
 * index. BM_OK; BM_ETIMEDOUT: it did not check in (it is sent INIT again,
 * so it cannot wake later on a stack given to the next one); BM_EIO: the
 * local APIC did not send. */
int ap_start(const struct ap_start_ops *ops, void *ctx, uint32_t apic_id, uint8_t sipi_vector, unsigned index,
             uint64_t callin_ns);

#endif
