/* SMBus host controllers, as far as reading SPD needs them.
 *
 * A driver offers byte and word reads at a 7-bit address and command, a
 * receive byte (the DDR4 "read page address" query), and one kind of
 * write: the SPD page select (DDR4 SPA0/SPA1 at 0x36/0x37, JEDEC EE1004;
 * the DDR5 SPD5118 hub's legacy-mode page register MR11). Nothing else is
 * ever addressed: every call is checked against the SPD range here, and
 * again by each driver before it touches the controller. Polled, every
 * wait bounded, the controller left as it was found (smbus_close).
 * A driver knows nothing of SPD contents (efi/inventory/spd*.c do). */
#ifndef BAREMARK_SMBUS_H
#define BAREMARK_SMBUS_H

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
};

/* smbus_open flags. */
#define SMBUS_OPEN_ENABLE_HOST 0x1  /* turn on a host the firmware left disabled, as Linux
                                     * i801_setup_hstcfg() does; smbus_close turns it off again */

/* Find the first SMBus host controller a driver here knows in l and open
 * it. BM_ENODEV: none (note says so); BM_EPERM: the firmware disabled or
 * locked it (note says how); BM_OK: b is ready. */
int smbus_open(const struct pci_list *l, unsigned flags, struct smbus *b, char *note, size_t note_len);
void smbus_close(struct smbus *b);

int smbus_read_byte(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t *v);
int smbus_read_word(struct smbus *b, uint8_t addr, uint8_t cmd, uint16_t *v);
/* Receive byte: used only as the EE1004 page query (BM_ENODEV = NAK). */
int smbus_recv_byte(struct smbus *b, uint8_t addr, uint8_t *v);
/* The page selects: SPA0/SPA1 (addr 0x36/0x37, cmd and data 0), or MR11
 * of an SPD5118 hub (addr 0x50-0x57, cmd 0x0b, data = page 0..7). */
int smbus_spd_page_select(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t data);

/* Driver entry points (i801.c, piix4.c). match: does this driver drive
 * the function; open: as smbus_open for that function. */
bool i801_match(uint16_t vendor, uint16_t device);
int i801_open(const struct pci_func *f, unsigned flags, struct smbus *b, char *note, size_t note_len);
bool piix4_match(uint16_t vendor, uint16_t device);
int piix4_open(const struct pci_func *f, struct smbus *b, char *note, size_t note_len);

#endif
