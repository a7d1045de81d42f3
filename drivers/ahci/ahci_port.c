/* AHCI port basics: diagnostics naming the port or its disk, bounded
 * register waits, and the PxCMD.ST / FRE state changes of section 10.1.2.
 * Calls nothing else in the driver. */
#include "ahci_types.h"

#include <stdarg.h>

/* A driver diagnostic about a port (efi/platform.h plat_diag): where is
 * the disk once it is registered, else the controller with "port N: ". */
void ahci_port_diag(struct ahci_port *p, const char *fmt, ...)
{
    char msg[320];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (p->disk.ops)
        plat_diag(p->disk.id, "%s", msg);
    else
        plat_diag(p->ctrl->bdf, "port %u: %s", p->num, msg);
}

/* Wait until (register & mask) == want; BM_ETIMEDOUT otherwise. */
int ahci_wait_reg(volatile void *base, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms)
{
    uint64_t deadline = plat_now_ns() + ms * NS_PER_MS;

    for (;;) {
        if ((mmio_read32(base, off) & mask) == want)
            return BM_OK;
        if (plat_now_ns() > deadline)
            return BM_ETIMEDOUT;
        plat_delay_ns(AHCI_POLL_NS);
    }
}

/* wait_reg on a port register, with a diagnostic naming it on a timeout. */
int ahci_port_wait_reg(struct ahci_port *p, uint32_t off, uint32_t mask, uint32_t want, uint64_t ms, const char *what)
{
    int rc = ahci_wait_reg(p->regs, off, mask, want, ms);

    if (rc != BM_OK)
        ahci_port_diag(p, "timed out after %llu ms waiting for %s", (unsigned long long)ms, what);
    return rc;
}

/* Section 10.1.2 / 10.3.2: clear PxCMD.ST (Linux ahci_stop_engine()).
 * Returns true when PxCMD.CR already reads clear: the HBA then owns no
 * command (PxCI and PxSACT clear); else CR is to be waited for, up to
 * AHCI_STOP_MS. */
bool ahci_port_stop_begin(struct ahci_port *p)
{
    uint32_t cmd = port_rd(p, AHCI_PxCMD);

    p->started = false;
    if (!(cmd & (AHCI_PxCMD_ST | AHCI_PxCMD_CR)))
        return true;
    if (cmd & AHCI_PxCMD_ST)
        port_wr(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_ST);
    return !(port_rd(p, AHCI_PxCMD) & AHCI_PxCMD_CR);
}

/* The stop, CR waited for (probe, SMART and release; error recovery looks
 * at CR once a poll instead, ahci_recover.c). */
int ahci_port_stop(struct ahci_port *p)
{
    if (ahci_port_stop_begin(p))
        return BM_OK;
    return ahci_port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_CR, 0, AHCI_STOP_MS, "PxCMD.CR to clear");
}

/* Stop the command list and FIS reception: after this the HBA writes
 * nothing to the port's memory. */
int ahci_port_quiesce(struct ahci_port *p)
{
    uint32_t cmd;
    int rc = ahci_port_stop(p);

    if (rc != BM_OK)
        return rc;
    cmd = port_rd(p, AHCI_PxCMD);
    if (!(cmd & (AHCI_PxCMD_FRE | AHCI_PxCMD_FR)))
        return BM_OK;
    port_wr(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_FRE);
    return ahci_port_wait_reg(p, AHCI_PxCMD, AHCI_PxCMD_FR, 0, AHCI_STOP_MS, "PxCMD.FR to clear");
}

/* Set PxCMD.ST (section 10.3.1: FRE set, CR clear, BSY/DRQ clear). */
void ahci_port_start(struct ahci_port *p)
{
    port_wr(p, AHCI_PxCMD, port_rd(p, AHCI_PxCMD) | AHCI_PxCMD_ST);
    p->started = true;
}
