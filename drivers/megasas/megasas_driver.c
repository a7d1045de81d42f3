/* The MegaRAID driver entry: match a PCI function to a transport, probe and
 * release through it. Apart from the shared MegaRAID code (megasas.c) so
 * that calls go one way: this file -> the transports (their struct
 * megasas_transport) -> megasas.c. */
#include "megasas.h"
#include "megasas_internal.h"
#include "../pci_regs.h"

#define MFI_VENDOR_LSI 0x1000

/* ---- Driver entry -------------------------------------------------------------------------------- */

/* The transports, Fusion first (its device ids are its own). */
static const struct megasas_transport *const megasas_transports[] = {
    &megasas_fusion_transport,
    &megasas_mfi_transport,
};

/* The transport that drives this PCI function, or NULL. */
static const struct megasas_transport *megasas_transport_for(uint16_t vendor, uint16_t device)
{
    if (vendor != MFI_VENDOR_LSI)
        return NULL;
    for (size_t i = 0; i < ARRAY_SIZE(megasas_transports); i++)
        if (megasas_transports[i]->supports(device))
            return megasas_transports[i];
    return NULL;
}

/* Is this PCI function a MegaRAID controller we drive? */
static bool megasas_match(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    (void)class_code;
    return megasas_transport_for(vendor, device) != NULL;
}

/* Take the controller through its transport: bring up its firmware, find its disks. */
static int megasas_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err,
                         size_t errlen)
{
    uint16_t vendor = plat_pci_read16(a, PCI_VENDOR_ID), device = plat_pci_read16(a, PCI_DEVICE_ID);
    const struct megasas_transport *t = megasas_transport_for(vendor, device);
    struct megasas_ctrl *m = NULL;
    int rc;

    *ctrl_out = NULL;
    if (!t) {
        snprintf(err, errlen, "not a supported MegaRAID (%04x:%04x)", vendor, device);
        return BM_ENODEV;
    }
    rc = t->probe(a, index, disks, &m, err, errlen);
    if (rc == BM_OK)
        *ctrl_out = m;
    return rc;
}

/* Hand the controller back to the firmware in READY state and free it:
 * the transport stops the firmware, the PCI command register gets back
 * what the firmware had, the disks and slots go, the transport frees its
 * memory. */
static void megasas_release(void *ctrl)
{
    struct megasas_ctrl *m = ctrl;
    struct pci_addr pci;
    char bdf[sizeof(m->bdf)];

    if (!m)
        return;
    m->transport->stop(m);
    plat_pci_write16(m->pci, PCI_COMMAND, m->pci_cmd_saved);
    hba_host_destroy(&m->h);
    pci = m->pci;
    bm_strlcpy(bdf, m->bdf, sizeof(bdf));
    m->transport->free(m);
    plat_pci_release(pci);
    plat_diag(bdf, "released");
}

const struct bm_driver megasas_driver = {
    .name = "megasas",
    .match = megasas_match,
    .probe = megasas_probe,
    .release = megasas_release,
};
