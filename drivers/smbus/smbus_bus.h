/* What an SMBus driver (i801.c, piix4.c) and the layer above it share: the
 * address rules, the transactions, the controller, and the drivers' entry
 * points. The layer's face is smbus.h. */
#ifndef BAREMARK_SMBUS_BUS_H
#define BAREMARK_SMBUS_BUS_H

#include "../pci.h"

/* ---- The only addresses baremark ever puts on the bus ----------------------- */

#define SMBUS_SPD_FIRST 0x50   /* SPD EEPROMs / SPD5118 hubs, one per DIMM slot */
#define SMBUS_SPD_LAST 0x57
#define SMBUS_EE1004_SPA0 0x36 /* DDR4 EE1004: write = select page 0, read = ACK if page 0 */
#define SMBUS_EE1004_SPA1 0x37 /* DDR4 EE1004: write = select page 1 */
#define SMBUS_SPD5118_MR11 0x0b /* DDR5 hub: I2C legacy mode device configuration */
#define  SMBUS_SPD5118_MR11_PAGE_MASK 0x07u  /* NVM page seen at offsets 0x80..0xff */
#define  SMBUS_SPD5118_MR11_ADDR16 0x08u     /* two-byte addressing mode */

static inline bool smbus_addr_is_spd(uint8_t addr)
{
    return addr >= SMBUS_SPD_FIRST && addr <= SMBUS_SPD_LAST;
}

/* Is this transaction one baremark may issue? Reads: the SPD range, and
 * receive byte from SPA0/SPA1 (the page query). Writes: only the page
 * selects — a write-byte-data to SPA0/SPA1 (EE1004 ignores the data) or a
 * write of a page number to MR11 of a hub in the SPD range. An EEPROM's
 * memory is never written. */
bool smbus_xact_allowed(uint8_t addr, bool write, uint8_t cmd, uint8_t data);

/* The transactions a driver implements. */
enum smbus_xact {
    SMBUS_RECV_BYTE,      /* read, no command byte */
    SMBUS_READ_BYTE,      /* read byte data at cmd */
    SMBUS_READ_WORD,      /* read word data at cmd (low byte = cmd, high = cmd + 1) */
    SMBUS_WRITE_BYTE,     /* write byte data: page selects only */
};

struct smbus;
struct smbus_ops {
    /* One transaction; data holds 1 or 2 bytes. Returns BM_OK, BM_ENODEV
     * (no device acknowledged the address), BM_EBUSY (another owner holds
     * the controller), BM_ETIMEDOUT, BM_EIO, BM_EPERM (refused). */
    int (*xfer)(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data);
    /* Put back what open changed. */
    void (*close)(struct smbus *b);
};

/* An open SMBus host controller. */
struct smbus {
    const struct smbus_ops *ops;
    const char *kind;        /* "i801", "piix4", "sb800" */
    char where[16];          /* its BDF, for plat_diag */
    struct pci_addr pci;
    uint16_t vendor, device;
    uint8_t revision;
    uint16_t base;           /* I/O base of the host registers */
    bool spd_write_disabled; /* the chipset refuses writes to 0x50-0x57 (i801 SPD_WD) */
    /* What open found and close restores. */
    uint8_t orig_hostc;      /* i801: HOSTC; piix4: SMBHSTCFG */
    bool hostc_changed;
    uint16_t orig_pcicmd;    /* PCI command register, when open turned on I/O decode */
    bool pcicmd_changed;
    uint8_t orig_hstcnt;     /* i801: host control (Linux i801_restore_regs) */
    uint8_t orig_auxctl;     /* i801 ICH4+: PEC and 32-byte buffer modes */
    bool has_auxctl;
    uint8_t port_sel_reg;    /* sb800: PM register of the port select, its mask */
    uint8_t port_mask;
    unsigned transactions, errors;
    void *sim;               /* the simulated bus (smbus_sim_host.c), host build only */
};

/* smbus_open flags. */
#define SMBUS_OPEN_ENABLE_HOST 0x1  /* turn on a host the firmware left disabled, as Linux
                                     * i801_setup_hstcfg() does; smbus_close turns it off again */

/* Driver entry points (i801.c, piix4.c). match: does this driver drive
 * the function; open: as smbus_open for that function. */
bool i801_match(uint16_t vendor, uint16_t device);
int i801_open(const struct pci_func *f, unsigned flags, struct smbus *b, char *note, size_t note_len);
bool piix4_match(uint16_t vendor, uint16_t device);
int piix4_open(const struct pci_func *f, struct smbus *b, char *note, size_t note_len);

#endif
