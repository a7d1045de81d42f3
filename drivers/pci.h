/* PCI enumeration and PCI Express link facts. Config space is reached
 * through the platform seam; no driver state lives here. */
#ifndef BAREMARK_PCI_H
#define BAREMARK_PCI_H

#include "../efi/platform.h"

#define PCI_MAX_FUNCS 512

struct pci_func {
    struct pci_addr addr;
    uint16_t vendor, device;
    uint32_t class_code;      /* base << 16 | sub << 8 | prog-if */
    uint8_t header_type;      /* PCI_HEADER_NORMAL or PCI_HEADER_BRIDGE */
    uint8_t secondary_bus, subordinate_bus; /* bridges only */
    int parent;               /* index of the bridge above, -1 on a root bus */
};

struct pci_list {
    struct pci_func funcs[PCI_MAX_FUNCS];
    int count;
};

/* Walk every segment's buses from the root, depth first, following bridges.
 * Returns the number of functions found. */
int pci_enumerate(struct pci_list *l);

/* "0000:00:1f.2" */
void pci_addr_str(struct pci_addr a, char *buf, size_t len);

/* Turn on memory decode and bus mastering (needed after the firmware's
 * driver let go of a controller), on the function and, as Linux
 * pci_enable_bridge() does, on every bridge between it and the root bus;
 * what changed on the bridges is recorded (a plat_diag names each). */
void pci_enable_device(struct pci_addr a);
/* Restore the bridges above a as pci_enable_device() found them, once no
 * other function enabled below them is still in use. plat_pci_release()
 * calls it before the firmware gets the controller back (its driver then
 * enables what it needs itself). */
void pci_release_bridges(struct pci_addr a);

/* Map the function's first memory BAR of at least min_bytes (I/O BARs are
 * passed over, as is the upper half of a 64-bit BAR); NULL if none. */
volatile void *pci_map_first_mem_bar(struct pci_addr a, uint64_t min_bytes);

/* Take a controller's function from the firmware for a native driver:
 * claim it (plat_pci_claim), keep its command register in *cmd_saved,
 * enable it (pci_enable_device), map its first memory BAR of at least
 * min_bytes at *regs. On failure err says why and nothing is held. */
int pci_take_function(struct pci_addr a, uint64_t min_bytes, uint16_t *cmd_saved, volatile void **regs, char *err,
                      size_t errlen);
/* Give back what pci_take_function took: the command register as the
 * firmware left it, the function to the firmware (plat_pci_release). */
void pci_give_back_function(struct pci_addr a, uint16_t cmd_saved);

/* ---- Configuration space through an accessor ------------------------------
 *
 * The capability walker and the link decoder read config space through
 * this, so unit tests can hand them synthetic config spaces. Reads of an
 * absent function return all ones, as the hardware does. */
struct pci_cfg {
    uint32_t (*read32)(void *ctx, struct pci_addr a, uint16_t off);
    void *ctx;
};

/* The machine's config space (plat_pci_read32). */
const struct pci_cfg *pci_cfg_platform(void);
uint16_t pci_cfg_read16(const struct pci_cfg *c, struct pci_addr a, uint16_t off);
uint8_t pci_cfg_read8(const struct pci_cfg *c, struct pci_addr a, uint16_t off);

/* pci_enumerate() over any accessor and segment list (it is this function
 * over the platform). Returns the number of functions found. */
int pci_enumerate_cfg(const struct pci_cfg *c, const uint16_t *segs, const uint8_t *bus_start,
                      const uint8_t *bus_end, int nsegs, struct pci_list *l);

/* Index in l of the function at a, or -1. */
int pci_list_find(const struct pci_list *l, struct pci_addr a);

/* Offset of the capability with this ID in the standard list, or 0. The
 * walk is bounded: a list that loops or points into the header ends it. */
uint8_t pci_find_cap(const struct pci_cfg *c, struct pci_addr a, uint8_t cap_id);

/* ---- PCI Express links ------------------------------------------------------ */

/* What one function's PCI Express capability says about its link. */
struct pcie_info {
    bool is_pcie;            /* has a PCI Express capability */
    uint8_t cap;             /* its offset */
    uint8_t version;         /* capability version (2 has Link Capabilities 2) */
    uint8_t port_type;       /* PCI_EXP_TYPE_* */
    uint8_t speed_code;      /* negotiated: Link Status (0 = link down/unknown) */
    uint8_t width;
    uint8_t max_speed_code;  /* this end's ceiling: Link Capabilities (2) */
    uint8_t max_width;
    uint8_t speeds_vector;   /* Link Capabilities 2 supported speeds, bit n = code n; 0 if absent */
};

/* Read and decode a function's PCI Express capability. Returns BM_OK, or
 * BM_ENODEV when the function has none (conventional PCI). */
int pcie_read_info(const struct pci_cfg *c, struct pci_addr a, struct pcie_info *out);

/* GT/s of a link speed code (1..6 = 2.5, 5, 8, 16, 32, 64); 0 if unknown. */
double pcie_speed_gts(unsigned code);

/* MB/s (10^6 bytes/s) one lane carries in each direction at a speed code
 * after line coding: 2.5 and 5 GT/s use 8b/10b, 8 to 32 GT/s 128b/130b,
 * 64 GT/s (Flit mode, PAM4) has no line code. Packet and flow-control
 * overhead is not subtracted: this is the ceiling, not a prediction. */
double pcie_lane_mbps(unsigned code);

/* One PCI Express link: the device end (an endpoint, a switch's upstream
 * port or a PCIe-to-PCI bridge) and the port above it (a root port or a
 * switch's downstream port). */
struct pcie_link {
    struct pci_addr device_end;
    struct pci_addr port_end;
    bool has_port_end;       /* false when the port above is not PCI Express */
    uint8_t speed_code, width;          /* negotiated */
    uint8_t max_speed_code, max_width;  /* the best BOTH ends support */
    uint8_t device_max_speed_code, device_max_width; /* each end's own ceiling */
    uint8_t port_max_speed_code, port_max_width;
    bool downtrained;        /* running below what both ends support */
    double mbps;             /* ceiling of the negotiated link, MB/s per direction */
    double max_mbps;         /* ceiling had it trained to max_speed/max_width */
};

/* The link a function sits on, for its pci record: for a device end (see
 * above) the link to the port above it, for a root or downstream port the
 * link below it. Returns BM_OK, or BM_ENODEV with *why saying why there is
 * none (root-complex integrated endpoint, conventional PCI, ...). */
int pcie_link_of(const struct pci_cfg *c, const struct pci_list *l, int index, struct pcie_link *out,
                 const char **why);

#define PCIE_MAX_HOPS 8

/* The way from a storage controller to the root complex. */
struct pcie_path {
    struct pci_addr ctrl;
    int nbridges;
    struct pci_addr bridges[PCIE_MAX_HOPS * 2]; /* nearest first, up to the root bus */
    int nhops;
    struct pcie_link hops[PCIE_MAX_HOPS];       /* nearest the controller first */
    int narrowest;           /* index in hops of the lowest negotiated mbps; -1 if no hop */
    const char *no_link_why; /* when the controller itself has no link, why */
};

/* For a controller BDF, the chain of PCI Express links its traffic crosses
 * on the way to the root complex, each with its negotiated speed and width,
 * what both of its ends could do, and its ceiling in MB/s; plus the
 * narrowest hop, the one that caps everything behind it (several disks on
 * one controller, or several controllers behind one switch uplink, share
 * it). A root-complex integrated controller (q35's AHCI) has no hop.
 * Enumerates the bus itself, so call it once per controller, not per I/O.
 * Returns BM_OK, BM_ENODEV when ctrl is not on the bus, BM_ENOMEM. */
int pcie_path_to_root(struct pci_addr ctrl, struct pcie_path *out);

/* pcie_path_to_root() over any accessor and an enumerated list (tests). */
int pcie_path_build(const struct pci_cfg *c, const struct pci_list *l, int index, struct pcie_path *out);

#endif
