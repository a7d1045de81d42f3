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

/* Read the bus and match what decoded to the SMBIOS memory devices d/n;
 * the notes about the bus come out here, the spd records later (the DIMM
 * table, drawn in between, shows the SPD columns). */
void spd_inventory_read(const struct dimm *d, unsigned n);
/* The SPD matched to SMBIOS device dimm_index, or NULL. */
struct spd_dimm;
const struct spd_dimm *spd_inventory_of_dimm(unsigned dimm_index);
/* The DIMM table's SPD columns (type, MT/s, CL-tRCD-tRP, ranks, part and
 * "DIFFERS: size, speed"), or dashes when s is NULL. */
void spd_table_columns(char *buf, size_t cap, const struct spd_dimm *s, const struct dimm *d);

/* Emit the spd records (reading first if spd_inventory_read() did not
 * run) and append the SPD-based warnings to sum before it is emitted. */
void spd_inventory_emit(const struct dimm *d, unsigned n, struct dimm_summary *sum);

#endif
