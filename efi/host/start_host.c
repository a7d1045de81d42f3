/* Start and end of the Linux platform layer. */
#include "host_private.h"

int plat_init(void)
{
    host_clock_init();
    return BM_OK;
}

bool plat_exit_returns(void) { return true; }

void plat_exit(enum plat_exit_mode mode) { (void)mode; }
