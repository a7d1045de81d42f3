/* Reading SPD images over an open SMBus host (drivers/smbus): one per
 * address 0x50-0x57, with the page handling DDR4 (EE1004: SPA0/SPA1) and
 * DDR5 (SPD5118 hub: MR11) need, and the rules that keep it from ever
 * changing an EEPROM (see spd_read_bus). */
#ifndef BAREMARK_SPD_READ_H
#define BAREMARK_SPD_READ_H

#include "../../drivers/smbus/smbus.h"
#include "spd.h"

#define SPD_SLOTS 8

struct spd_raw {
    uint8_t addr;            /* 0x50 + slot */
    char where[8];           /* "" on the chipset SMBus; the MCH branch and channel ("b0c1", spd_mch.c) */
    bool present;            /* something acknowledged the address */
    bool hub;                /* an SPD5118 hub (DDR5), identified by MR0/MR1 and its vendor id */
    int rc;                  /* BM_OK, or why the read stopped */
    size_t len;              /* bytes read from offset 0 */
    uint8_t data[SPD_MAX_BYTES];
    char note[200];          /* what stopped or limited the read */
};

/* What the firmware's SMBIOS says the memory is, so that no page-select
 * write goes to a bus whose EEPROMs could take it as something else: the
 * DDR4 page selects (0x36/0x37) are the "permanent write protect"
 * commands of DDR2/DDR3 SPD EEPROMs (34C02), and MR11 of a DDR5 hub is
 * byte 11 of an older EEPROM. As Linux i2c_register_spd(): the type counts
 * only when every populated slot with a known type has it, and only on a
 * machine with 1 to 8 slots (more cannot sit on one unmuxed bus). */
struct spd_bus_hint {
    bool smbios_ddr4;        /* every populated slot with a known type is DDR4 */
    bool smbios_ddr5;        /* ... is DDR5 */
    unsigned smbios_slots;   /* SMBIOS type 17 entries (0: none, unknown) */
};

/* Read every SPD address. Returns the number of addresses that answered,
 * or a negative error when the bus itself failed (note says why). The
 * DDR4 page and DDR5 hub page registers are put back as found and checked
 * by a read. The only writes it can issue are the page selects, each
 * after the device was identified (spd_read.c says how). */
int spd_read_bus(struct smbus *b, const struct spd_bus_hint *hint, struct spd_raw raw[SPD_SLOTS], char *note,
                 size_t note_len);

#endif
