/* SBAT metadata for shim. shim 15.3 and later refuse a second stage that
 * has no .sbat section ("SBAT is mandatory for binaries loaded by shim",
 * rhboot/shim verify_sbat_section()), so the Secure Boot stick that starts
 * baremark through shim (make image SB_SHIM=1) needs it. The format is
 * rhboot/shim SBAT.md: CSV lines component,generation,vendor,package,version,
 * url; the first line names the SBAT format itself. Raise baremark's
 * generation only to revoke every older signed build. */
#include "../app.h"

__attribute__((used, section(".sbat"))) static const char sbat_csv[] =
    "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
    "baremark,1,baremark,baremark," BAREMARK_VERSION ",https://baremark.invalid/ (set the project URL here)\n";
