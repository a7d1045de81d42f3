/* The SPD part of the inventory: find the SMBus host, read the SPD
 * addresses, emit one `spd` record per DIMM found and the notes, and add
 * the SPD-based warnings to the DIMM summary. */
#ifndef BAREMARK_SPD_INVENTORY_H
#define BAREMARK_SPD_INVENTORY_H

#include "dimm.h"

/* spd=on (default): read where the firmware left the SMBus host enabled;
 * spd=force: also enable a disabled host for the read (restored after);
 * spd=off: leave the SMBus alone (a bus shared with a BMC). */
enum spd_mode { SPD_MODE_ON = 0, SPD_MODE_FORCE, SPD_MODE_OFF };
void spd_inventory_mode(enum spd_mode mode);

/* Read and emit; d/n are the SMBIOS memory devices, sum their summary
 * (warnings are appended to it before it is emitted). */
void spd_inventory_emit(const struct dimm *d, unsigned n, struct dimm_summary *sum);

#endif
