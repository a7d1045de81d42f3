/* The chipset and its uplink to the CPU (or to the memory controller hub).
 *
 * Intel's DMI, ESI and Hub Interface are invisible in PCI config space: no
 * function carries their Link Status, so nothing on the bus says that every
 * SATA port, USB controller and PCH root port of a C226 shares one DMI 2.0
 * x4 (2 GB/s each way). This table knows it by the PCI IDs of the LPC/ISA
 * bridge (the PCH's own identity) and of the host bridge (the MCH of the
 * 5000/5400 era), each row citing the datasheet it comes from. AMD's
 * Promontory chipsets hang on an ordinary PCIe link whose Link Status the
 * pci records already show; their rows say so, and the documented uplink is
 * checked against the trained one.
 *
 * An unknown chipset is said to be unknown: no ceiling is ever guessed. */
#ifndef BAREMARK_CHIPSET_H
#define BAREMARK_CHIPSET_H

#include "../../drivers/pci.h"

/* Which function identifies a row. */
enum chipset_role {
    CHIPSET_LPC,             /* the LPC/eSPI/ISA bridge (class 0601) of an ICH/PCH/FCH */
    CHIPSET_HOST,            /* the host bridge (00:00.0) of an MCH or of an emulator */
    CHIPSET_PORT,            /* a PCIe switch port of a chipset hung on a PCIe link (AMD Promontory) */
};

/* One row of the table. */
struct chipset_row {
    uint16_t vendor;
    uint16_t dev_lo, dev_hi;     /* an inclusive range of device IDs */
    enum chipset_role role;
    const char *name;            /* "Intel C220 series (Lynx Point)" */
    const char *uplink;          /* "DMI 2.0 x4"; NULL when the row has none to name */
    uint8_t speed_code;          /* the uplink as PCIe-like lanes: speed code 1..5, width */
    uint8_t width;
    double fixed_mbps;           /* uplinks that are not lane-based (Hub Interface): MB/s */
    bool visible;                /* the uplink is a PCIe link the pci records show */
    bool emulated;               /* an emulator's model of the chip */
    uint32_t dev_mask;           /* bus-0 device numbers that belong to the chipset (bit n = device n) */
    const char *source;          /* datasheet (and the ID list the IDs were checked against) */
    const char *note;            /* what the row cannot say (NULL) */
};

/* The machine's chipset, as far as the table knows it. */
struct chipset_info {
    bool found;                  /* a row matched */
    bool emulated;               /* QEMU's q35/i440fx, by ID or SMBIOS */
    char name[80];
    char uplink[32];             /* "DMI 2.0 x4", "" when unknown */
    double uplink_mbps;          /* each direction; 0 when unknown (never guessed) */
    bool uplink_visible;         /* AMD: a real PCIe link, see visible_at */
    struct pci_addr visible_at;  /* its switch upstream port */
    uint16_t vendor, device;     /* the function that matched */
    struct pci_addr at;
    uint32_t dev_mask;
    const char *source;
    char note[200];              /* why the uplink is unknown, or what to keep in mind */
    const struct chipset_row *row;
    const struct chipset_row *host; /* the host bridge's row (MCH, emulator), if any */
};

/* Where a function hangs. */
enum chipset_attach {
    ATTACH_UNKNOWN,              /* the chipset is unknown: not guessed */
    ATTACH_CPU,                  /* root complex side of the uplink (CPU lanes, or the MCH's own ports) */
    ATTACH_CHIPSET,              /* behind the chipset's uplink */
};

/* The row for a function's IDs in a role, or NULL. */
const struct chipset_row *chipset_lookup(uint16_t vendor, uint16_t device, enum chipset_role role);
/* The uplink's ceiling of a row, MB/s each way (0 when the row names none). */
double chipset_row_mbps(const struct chipset_row *r);

/* Identify the chipset from an enumerated bus. emulator_hint: SMBIOS says
 * QEMU (the IDs are Intel's, the hardware is not). */
void chipset_identify(const struct pci_cfg *c, const struct pci_list *l, bool emulator_hint,
                      struct chipset_info *out);
/* Where the function at index hangs, and why (a short phrase). */
enum chipset_attach chipset_attach_of(const struct chipset_info *ci, const struct pci_list *l, int index,
                                      const char **why);
/* "cpu", "chipset", "unknown". */
const char *chipset_attach_name(enum chipset_attach a);

#endif
