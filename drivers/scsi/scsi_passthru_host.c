/* The host build has no firmware: no pass-thru disks. */
#include "scsi_passthru.h"

/* No firmware on the host: nothing to find. */
int scsi_passthru_discover(struct bm_disk_list *l, const struct pci_addr *taken, unsigned ntaken,
                           scsi_passthru_keep_fn keep, void *ctx)
{
    (void)l;
    (void)taken;
    (void)ntaken;
    (void)keep;
    (void)ctx;
    return 0;
}

/* Nothing to release on the host. */
void scsi_passthru_release_all(void) {}
