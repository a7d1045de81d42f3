/* Take the AHCI HBA from the firmware's setup: AHCI mode, the
 * firmware-written capability registers kept across GHC.HR (section
 * 10.4.3; Linux libahci ahci_save_initial_config(),
 * ahci_reset_controller(), ahci_restore_initial_config()). */
#include "ahci_types.h"

#define AHCI_HBA_RESET_MS 1000     /* GHC.HR clears within 1 s (section 10.4.3) */

/* Set GHC.AE; some HBAs need the write repeated before it sticks (Linux
 * libahci retries five times). */
static int hba_enable_ahci(struct ahci_ctrl *c)
{
    for (int i = 0; i < 5; i++) {
        uint32_t ghc = hba_rd(c, AHCI_GHC);
        if (ghc & AHCI_GHC_AE)
            return BM_OK;
        hba_wr(c, AHCI_GHC, ghc | AHCI_GHC_AE);
        plat_delay_ns(NS_PER_MS);
    }
    return (hba_rd(c, AHCI_GHC) & AHCI_GHC_AE) ? BM_OK : BM_EIO;
}

/* Section 10.4.3, as Linux libahci ahci_save_initial_config() and
 * ahci_reset_controller() do it: set GHC.AE before reading anything
 * AHCI-specific (CAP and PI are not valid in legacy mode on some HBAs),
 * keep the firmware-written values (CAP, CAP2, PI and each port's PxCMD
 * capability bits are write-once for the firmware, and some chipsets lose
 * them in GHC.HR), reset, enable AHCI mode again and write them back
 * (ahci_restore_initial_config()). */
int ahci_hba_reset(struct ahci_ctrl *c, char *err, size_t errlen)
{
    uint32_t cap, cap2 = 0, pi, vs, port_caps[AHCI_MAX_PORTS];
    unsigned nports;

    if (hba_enable_ahci(c) != BM_OK) {
        snprintf(err, errlen, "GHC.AE does not stay set: the HBA will not enter AHCI mode");
        return BM_EIO;
    }
    cap = hba_rd(c, AHCI_CAP);
    pi = hba_rd(c, AHCI_PI);
    vs = hba_rd(c, AHCI_VS);
    if (vs >= AHCI_VS_1_2)
        cap2 = hba_rd(c, AHCI_CAP2);
    nports = (cap & AHCI_CAP_NP_MASK) + 1;
    /* PI names the ports wired up; it cannot name more than the silicon
     * has (CAP.NP). libahci: "If PI has more ports than n_ports, whine,
     * clear port_map and let it be generated from n_ports". A PI of 0
     * gets the same (libahci below AHCI 1.3; harmless above). */
    c->pi = pi;
    if (popcount32(pi) > nports) {
        c->pi = (uint32_t)((2ull << (cap & AHCI_CAP_NP_MASK)) - 1);
        plat_diag(c->bdf, "PI 0x%08x names more ports than CAP.NP allows (%u): using ports 0-%u", pi, nports,
                  nports - 1);
    } else if (!pi) {
        c->pi = (uint32_t)((2ull << (cap & AHCI_CAP_NP_MASK)) - 1);
        plat_diag(c->bdf, "PI is 0; assuming ports 0-%u from CAP.NP", nports - 1);
    }
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++) {
        port_caps[i] = 0;
        if ((c->pi & (1u << i)) && AHCI_PORT_BASE + (i + 1) * AHCI_PORT_STRIDE <= c->abar_bytes)
            port_caps[i] = mmio_read32(c->abar, AHCI_PORT_BASE + i * AHCI_PORT_STRIDE + AHCI_PxCMD) & AHCI_PxCMD_CAPS;
    }

    hba_wr(c, AHCI_GHC, hba_rd(c, AHCI_GHC) | AHCI_GHC_HR);
    (void)hba_rd(c, AHCI_GHC);
    if (ahci_wait_reg(c->abar, AHCI_GHC, AHCI_GHC_HR, 0, AHCI_HBA_RESET_MS) != BM_OK) {
        snprintf(err, errlen, "HBA reset: GHC.HR still set after %u ms", AHCI_HBA_RESET_MS);
        return BM_ETIMEDOUT;
    }
    if (hba_enable_ahci(c) != BM_OK) {
        snprintf(err, errlen, "GHC.AE does not stay set after the HBA reset");
        return BM_EIO;
    }
    hba_wr(c, AHCI_CAP, cap);
    if (cap2)
        hba_wr(c, AHCI_CAP2, cap2);
    if (pi)
        hba_wr(c, AHCI_PI, pi);
    (void)hba_rd(c, AHCI_PI);
    for (unsigned i = 0; i < AHCI_MAX_PORTS; i++)
        if (port_caps[i])
            mmio_write32(c->abar, AHCI_PORT_BASE + i * AHCI_PORT_STRIDE + AHCI_PxCMD, port_caps[i]);
    c->cap = cap;
    c->cap2 = cap2;
    c->vs = vs;
    return BM_OK;
}
