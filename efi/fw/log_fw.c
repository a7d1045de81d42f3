/* plat_log on firmware platforms: a line on the screen (the UEFI console,
 * or our VGA text screen on a BIOS PC), through plat_console_write. */
#include "fw_private.h"

void plat_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    plat_console_write(line);
    plat_console_write("\n");
}
