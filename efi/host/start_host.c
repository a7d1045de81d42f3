/* Start and end of the Linux platform layer. */
#include "host_private.h"

int plat_init(void)
{
    host_clock_init();
    return BM_OK;
}

const char *plat_exit_words(enum plat_exit_mode mode)
{
    return mode == PLAT_EXIT_WAIT ? "Press any key to return to the firmware." : "Returning to the firmware.";
}

void plat_exit(enum plat_exit_mode mode) { (void)mode; }
