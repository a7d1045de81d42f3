/* LSI Fusion-MPT SAS driver: the PCI ids, probe and release. The disks are
 * mpt_disk.c's, the queues the backend's (mpt_mpi1.c, mpt_mpi2.c); see the
 * call map in mpt_types.h. */
#include "mpt.h"
#include "mpt_types.h"
#include "mpt_regs.h"
#include "mpi.h"
#include "mpi2.h"
#include "../pci.h"
#include "../pci_regs.h"

#define MPT_VENDOR_LSI 0x1000

/* MPI 1.5 ids as Linux mptsas lists them; MPI 2 ids from Linux
 * mpt3sas_scsih.c's PCI table (MPI2_MFGPAGE_DEVID_* in mpi2_cnfg.h),
 * limited to the IT-mode HBA chips whose protocol mpt_mpi2.c speaks:
 * not the SAS2108/2208/3108 RAID-on-chip parts (MegaRAID firmware),
 * nor WarpDrive, nor the MPI 2.6 tri-mode SAS35xx family. */
static const struct mpt_id {
    uint16_t device;
    const char *chip;
    const struct mpt_backend *be;
} mpt_ids[] = {
    { 0x0050, "SAS1064", &mpt_mpi1_backend },
    { 0x0054, "SAS1068", &mpt_mpi1_backend },
    { 0x0056, "SAS1064E", &mpt_mpi1_backend },
    { 0x0058, "SAS1068E", &mpt_mpi1_backend },
    { 0x0062, "SAS1078", &mpt_mpi1_backend },
    { 0x0070, "SAS2004", &mpt_mpi2_backend },
    { 0x0072, "SAS2008", &mpt_mpi2_backend },
    { 0x0064, "SAS2116", &mpt_mpi2_backend },
    { 0x0065, "SAS2116", &mpt_mpi2_backend },
    { 0x0086, "SAS2308", &mpt_mpi2_backend },
    { 0x0087, "SAS2308", &mpt_mpi2_backend },
    { 0x006e, "SAS2308", &mpt_mpi2_backend },
    { 0x0096, "SAS3004", &mpt_mpi25_backend },
    { 0x0097, "SAS3008", &mpt_mpi25_backend },
};

/* ---- Probe and release ------------------------------------------------------------------------------------ */

/* Put the IOC back to READY (as the firmware's own driver expects to
 * find it) and free the queues, unless the IOC never confirmed it
 * stopped: then the request frames, reply queues and sense buffers it
 * may still write are kept for good, as nvme_teardown and megasas
 * release do. */
static void mpt_stop(struct mpt_ctrl *c)
{
    char err[128];
    bool stopped = true;

    /* A faulted IOC takes no message unit reset: it needs the
     * diagnostic reset mpt_make_ready() does. A controller given up may
     * still own requests: the diagnostic reset takes them back. */
    if (c->operational && mpt_ioc_state(c) == MPT_IOC_STATE_FAULT) {
        if (mpt_make_ready(c, err, sizeof(err)) != BM_OK) {
            plat_diag(c->bdf, "reset of the faulted IOC on release: %s", err);
            stopped = false;
        }
    } else if (c->failed) {
        /* Also when IOC INIT was sent but never answered: the IOC may
         * still take the queues it names. */
        if (mpt_hard_reset(c, err, sizeof(err)) != BM_OK) {
            plat_diag(c->bdf, "reset of the failed IOC on release: %s", err);
            stopped = false;
        }
    } else if (c->operational && mpt_message_unit_reset(c, err, sizeof(err)) != BM_OK) {
        /* As mpt3sas _base_make_ioc_ready: a message unit reset that
         * does not bring READY escalates to the diagnostic reset. */
        plat_diag(c->bdf, "message unit reset on release: %s", err);
        if (mpt_hard_reset(c, err, sizeof(err)) != BM_OK) {
            plat_diag(c->bdf, "diagnostic reset on release: %s", err);
            stopped = false;
        }
    }
    c->operational = false;
    mpt_write(c, MPT_REG_HOST_INT_MASK, MPT_HIM_REPLY_MASK | MPT_HIM_DOORBELL_MASK);
    if (!stopped) {
        /* The queues, the sense buffers and the slots that name them
         * stay allocated: the IOC may still write them. */
        plat_diag(c->bdf, "IOC not stopped: keeping its request frames, reply queues and sense buffers "
                  "(it may still write them)");
        c->be_state = NULL;
        c->sense = NULL;
        return;
    }
    if (c->be_state)
        c->be->destroy(c);
    plat_free(c->results);
    plat_free(c->slot_bytes);
    plat_free(c->slot_io);
    c->results = NULL;
    c->slot_bytes = NULL;
    c->slot_io = NULL;
    hba_host_destroy(&c->h);
}

/* Reset the IOC to READY and hand the controller back. */
static void mpt_release(void *ctrl)
{
    struct mpt_ctrl *c = ctrl;

    if (!c)
        return;
    mpt_stop(c);
    pci_give_back_function(c->pci, c->pci_cmd_saved);
    plat_diag(c->bdf, "released");
    plat_free(c);
}

/* The chip of a supported MPT SAS controller, or NULL. */
static const struct mpt_id *mpt_find_id(uint16_t vendor, uint16_t device)
{
    if (vendor != MPT_VENDOR_LSI)
        return NULL;
    for (size_t i = 0; i < ARRAY_SIZE(mpt_ids); i++)
        if (mpt_ids[i].device == device)
            return &mpt_ids[i];
    return NULL;
}

/* Is this PCI function an MPI 1.5 SAS controller we drive? */
static bool mpt_match(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    (void)class_code;
    return mpt_find_id(vendor, device) != NULL;
}

/* Take the controller, make the IOC operational, find its disks. */
static int mpt_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err,
                     size_t errlen)
{
    uint16_t vendor = plat_pci_read16(a, PCI_VENDOR_ID), device = plat_pci_read16(a, PCI_DEVICE_ID);
    const struct mpt_id *id = mpt_find_id(vendor, device);
    struct mpt_ctrl *c;
    char bdf[16], why[256];
    int rc;

    *ctrl_out = NULL;
    if (!id) {
        snprintf(err, errlen, "not a supported MPT SAS controller (%04x:%04x)", vendor, device);
        return BM_ENODEV;
    }
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->pci = a;
    c->be = id->be;
    c->chip = id->chip;
    pci_addr_str(a, bdf, sizeof(bdf));
    bm_strlcpy(c->bdf, bdf, sizeof(c->bdf));
    c->mpi2 = id->be != &mpt_mpi1_backend;
    /* BAR 0 is I/O space; the registers are BAR 1 on SAS1064/1068. */
    rc = pci_take_function(a, 0x100, &c->pci_cmd_saved, &c->regs, err, errlen);
    if (rc != BM_OK)
        goto err_free;
    /* Polled: no interrupt may reach the firmware's interrupt controller. */
    plat_pci_write16(a, PCI_COMMAND, plat_pci_read16(a, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
    mpt_write(c, MPT_REG_HOST_INT_MASK, MPT_HIM_REPLY_MASK | MPT_HIM_DOORBELL_MASK);
    rc = mpt_make_ready(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_release;
    }
    rc = c->be->init(c, why, sizeof(why));
    if (rc != BM_OK) {
        snprintf(err, errlen, "%s", why);
        goto err_stop;
    }
    c->results = plat_alloc(sizeof(*c->results) * c->nslots);
    c->slot_bytes = plat_alloc(sizeof(*c->slot_bytes) * c->nslots);
    c->slot_io = plat_alloc(sizeof(*c->slot_io) * c->nslots);
    rc = c->results && c->slot_bytes && c->slot_io
             ? hba_host_init(&c->h, c->nslots, bm_io_timeout_ns(), &mpt_host_ops, c, c->bdf)
             : BM_ENOMEM;
    if (rc != BM_OK) {
        snprintf(err, errlen, "out of memory for %u request slots", c->nslots);
        goto err_stop;
    }
    c->max_transfer_bytes = MPT_MAX_TRANSFER_BYTES;
    c->index = index;   /* mpt<index>...: discovery numbers controllers */
    if (c->be->discover) {
        plat_diag(c->bdf, "%s (%s), IOC OPERATIONAL, %u requests in flight", id->chip, c->be->name,
                  c->nslots);
        why[0] = '\0';
        rc = c->be->discover(c, disks, why, sizeof(why));
        if (rc != BM_OK) {
            snprintf(err, errlen, "%s", why);
            hba_host_free_disks(&c->h);
            goto err_stop;
        }
        /* Disks left out on purpose (RAID members): the caller notes it. */
        snprintf(err, errlen, "%s", why);
    } else {
        plat_diag(c->bdf, "%s (%s), IOC OPERATIONAL, %u requests in flight, scanning %u target ids", id->chip,
                  c->be->name, c->nslots, c->max_targets);
        mpt_scan(c, disks);
    }
    if (!c->h.ndisks)
        plat_diag(c->bdf, "no disks found");
    *ctrl_out = c;
    return BM_OK;

err_stop:
    mpt_stop(c);
err_release:
    pci_give_back_function(a, c->pci_cmd_saved);
err_free:
    plat_free(c);
    return rc;
}

const struct bm_driver mpt_driver = {
    .name = "mpt",
    .match = mpt_match,
    .probe = mpt_probe,
    .release = mpt_release,
};
