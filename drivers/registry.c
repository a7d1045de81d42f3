/* One line per native driver. */
#include "registry.h"

/* Each driver defines its struct bm_driver in its own folder. */
#include "ahci/ahci.h"
#include "megasas/megasas.h"
#include "mpt/mpt.h"
#include "nvme/nvme.h"

const struct bm_driver *const bm_native_drivers[] = {
    &nvme_driver,
    &ahci_driver,
    &megasas_driver,
    &mpt_driver,
    NULL,
};

const struct bm_driver *registry_find(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    for (const struct bm_driver *const *d = bm_native_drivers; *d; d++)
        if ((*d)->match(vendor, device, class_code))
            return *d;
    return NULL;
}
