/* Disk benchmark: placeholder until the engine lands. */
#include "disk.h"
#include "../record.h"

int disk_run(const struct config *c, const struct plat_boot_location *boot)
{
    (void)c;
    (void)boot;
    return BM_OK;
}
