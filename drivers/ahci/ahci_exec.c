/* Commands outside the tagged queue: filling a slot, running one polled
 * non-queued command (probe, SMART, error recovery), and restarting a
 * port after an error (AHCI 1.3.1 section 6.2.2.1). */
#include "ahci_types.h"

/* Put a command FIS and its buffer into a slot's table and header. */
int ahci_slot_prepare(struct ahci_port *p, unsigned slot, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf,
                      uint32_t bytes, bool write)
{
    uint8_t *t = slot_table(p, slot);
    int n = 0;

    memcpy(t + AHCI_CT_CFIS, fis, SATA_FIS_H2D_BYTES);
    if (bytes) {
        n = ahci_prd_fill((struct ahci_prd *)(t + AHCI_CT_PRDT), AHCI_PRDT_ENTRIES, phys_of(buf), bytes);
        if (n < 0)
            return n;
    }
    ahci_cmd_header_fill(&p->hdr[slot], phys_of(t), SATA_FIS_H2D_DWORDS, write, (unsigned)n);
    return BM_OK;
}

/* Issue one non-queued data-in command in slot (the port is running and
 * nothing else is issued): PxIS cleared first, so what it holds after is
 * this command's. */
int ahci_slot_issue(struct ahci_port *p, unsigned slot, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf,
                    uint32_t bytes)
{
    int rc = ahci_slot_prepare(p, slot, fis, buf, bytes, false);

    if (rc != BM_OK)
        return rc;
    port_wr(p, AHCI_PxIS, ~0u);
    plat_wmb();
    port_wr(p, AHCI_PxCI, 1u << slot);
    return BM_OK;
}

/* Run one non-queued command in slot 0 and wait for it (probe and SMART
 * only: no other command is in flight). On a device error returns
 * BM_EIO with the status and error registers; the caller restarts the
 * port before using it again. */
int ahci_port_exec_sync(struct ahci_port *p, const uint8_t fis[SATA_FIS_H2D_BYTES], void *buf, uint32_t bytes,
                        unsigned timeout_ms, uint8_t *sts, uint8_t *err)
{
    uint64_t deadline = plat_now_ns() + timeout_ms * NS_PER_MS;
    uint32_t is, tfd;
    int rc = ahci_slot_issue(p, 0, fis, buf, bytes);

    if (rc != BM_OK)
        return rc;
    for (;;) {
        is = port_rd(p, AHCI_PxIS);
        if (is & AHCI_PxIS_FATAL)
            break;
        if (!(port_rd(p, AHCI_PxCI) & 1u))
            break;
        if (plat_now_ns() > deadline) {
            ahci_port_diag(p, "command %02xh: timed out after %u ms waiting for PxCI bit 0 to clear", fis[FIS_COMMAND],
                           timeout_ms);
            return BM_ETIMEDOUT;
        }
        plat_delay_ns(AHCI_POLL_NS);
    }
    plat_rmb();
    tfd = port_rd(p, AHCI_PxTFD);
    *sts = (uint8_t)tfd;
    *err = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
    if ((is & AHCI_PxIS_FATAL) || (tfd & (ATA_STS_ERR | ATA_STS_DF)))
        return BM_EIO;
    return BM_OK;
}

/* Section 6.2.2.1 steps 3-4, once PxCMD.CR reads clear: clear PxSERR and
 * PxIS. Returns true when a COMRESET is needed: clearing ST must clear
 * PxCI and PxSACT (sections 3.3.13, 3.3.14); an HBA that keeps them (QEMU
 * 7.2 does) still has commands running, and only a COMRESET stops those. */
bool ahci_port_stopped_clear(struct ahci_port *p)
{
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    return (port_rd(p, AHCI_PxCI) | port_rd(p, AHCI_PxSACT)) != 0;
}

/* Section 6.2.2.1 step 5: BSY or DRQ still set after the stop. With
 * CAP.SCLO, PxCMD.CLO is set (the caller looks for it to clear, within
 * AHCI_CLO_MS as Linux ahci_kick_engine() waits) and true returned;
 * without it only a COMRESET frees the device, and false is returned. */
bool ahci_port_clo_begin(struct ahci_port *p)
{
    if (!(p->ctrl->cap & AHCI_CAP_SCLO))
        return false;
    port_wr(p, AHCI_PxCMD, port_rd(p, AHCI_PxCMD) | AHCI_PxCMD_CLO);
    return true;
}

/* Section 6.2.2.1 steps 2-5, waited for (probe and SMART only: error
 * recovery steps them from poll(), ahci_recover.c): stop the command list,
 * clear PxSERR and PxIS, free a stuck BSY/DRQ with CLO. *reset comes in
 * true when the caller wants a COMRESET, and goes out true when one is
 * needed; without one the port is started again (step 6). */
static int port_restart_begin(struct ahci_port *p, bool *reset)
{
    int rc;

    rc = ahci_port_stop(p);
    if (rc != BM_OK)
        return rc;
    if (ahci_port_stopped_clear(p))
        *reset = true;
    if (!*reset && (port_rd(p, AHCI_PxTFD) & (ATA_STS_BSY | ATA_STS_DRQ))) {
        if (ahci_port_clo_begin(p))
            ahci_port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_CLO, 0, AHCI_CLO_MS, "PxCMD.CLO to clear");
        if (port_rd(p, AHCI_PxTFD) & (ATA_STS_BSY | ATA_STS_DRQ))
            *reset = true;
    }
    if (!*reset)
        ahci_port_restart_end(p);
    return BM_OK;
}

/* Section 6.2.2.1 step 6, after a COMRESET or none: clear what the link
 * and the device's first FIS set, and start the command list. */
void ahci_port_restart_end(struct ahci_port *p)
{
    port_wr(p, AHCI_PxSERR, ~0u);
    port_wr(p, AHCI_PxIS, ~0u);
    ahci_port_start(p);
}

/* The whole restart, COMRESET waited for (probe and SMART, where nothing
 * else runs): reset forces a COMRESET; *did_reset says whether one
 * happened. Error recovery steps the COMRESET from poll() instead. */
int ahci_port_restart(struct ahci_port *p, bool reset, bool *did_reset)
{
    int rc;

    *did_reset = false;
    rc = port_restart_begin(p, &reset);
    if (rc != BM_OK || !reset)
        return rc;
    rc = ahci_port_comreset(p, AHCI_RECOVER_READY_MS);
    if (rc != BM_OK)
        return rc;
    *did_reset = true;
    ahci_port_restart_end(p);
    return BM_OK;
}
