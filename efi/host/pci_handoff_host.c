/* PCI functions between the host and a driver test: only simulated
 * functions can be claimed, and releasing one gives its bridges back. */
#include "host_private.h"
#include "../../drivers/pci.h"

/* No DMA for a user process: only simulated functions can be claimed. */
int plat_pci_claim(struct pci_addr a)
{
    struct plat_sim_dev *sim = host_sim_at(a);
    if (!sim)
        return BM_ENOTSUP;
    sim->claims++;
    return BM_OK;
}

void plat_pci_release(struct pci_addr a)
{
    struct plat_sim_dev *sim = host_sim_at(a);
    /* The bridges above go back as found first, as on UEFI. */
    pci_release_bridges(a);
    if (sim)
        sim->releases++;
}
