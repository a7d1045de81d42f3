/* PCI bus walk, capability lists and PCI Express link facts. */
#include "pci.h"
#include "pci_regs.h"

void pci_addr_str(struct pci_addr a, char *buf, size_t len)
{
    snprintf(buf, len, "%04x:%02x:%02x.%x", a.seg, a.bus, a.dev, a.fn);
}

/* ---- Enabling a controller and the bridges above it ----------------------------------- */

/* A bridge whose command register we changed: what it was, what we added,
 * and how many enabled functions below it still need it. */
struct bridge_hold {
    struct pci_addr addr;
    uint16_t found, added;
    unsigned users;
};

/* A function pci_enable_device() enabled and the bridges it holds. */
struct device_hold {
    bool used;
    struct pci_addr addr;
    unsigned nbridges;
    int bridge[PCIE_MAX_HOPS * 2];   /* indexes in bridge_holds, nearest first */
};

#define PCI_HOLD_MAX 32

static struct bridge_hold bridge_holds[PCI_HOLD_MAX];
static struct device_hold device_holds[PCI_HOLD_MAX];

/* Same segment, bus, device and function. */
static bool addr_eq(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

/* Turn on memory decode and bus mastering on bridge b for the function
 * below it. Returns the bridge_holds slot that records what changed, or -1
 * when nothing of ours is to undo. */
static int bridge_enable(struct pci_addr b, struct pci_addr below)
{
    const uint16_t want = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    char bdf[16], dev[16];
    uint16_t cmd;
    int free_slot = -1;

    for (int i = 0; i < PCI_HOLD_MAX; i++) {
        if (bridge_holds[i].users && addr_eq(bridge_holds[i].addr, b)) {
            bridge_holds[i].users++;
            return i;
        }
        if (!bridge_holds[i].users && free_slot < 0)
            free_slot = i;
    }
    cmd = plat_pci_read16(b, PCI_COMMAND);
    if (cmd == 0xffff || (cmd & want) == want)
        return -1; /* gone, or already forwarding: nothing of ours to undo */
    pci_addr_str(b, bdf, sizeof(bdf));
    pci_addr_str(below, dev, sizeof(dev));
    plat_pci_write16(b, PCI_COMMAND, cmd | want);
    plat_diag(bdf, "bridge above %s: %s turned on (command register %04xh -> %04xh; put back once no controller "
                   "below it is in use)",
              dev,
              !(cmd & PCI_COMMAND_MASTER) && !(cmd & PCI_COMMAND_MEMORY) ? "bus mastering and memory space"
              : !(cmd & PCI_COMMAND_MASTER)                             ? "bus mastering"
                                                                        : "memory space",
              cmd, (unsigned)(cmd | want));
    if (free_slot < 0) {
        plat_diag(bdf, "more than %u bridges changed: this one stays as it is now", PCI_HOLD_MAX);
        return -1;
    }
    bridge_holds[free_slot] = (struct bridge_hold){ b, cmd, (uint16_t)(want & ~cmd), 1 };
    return free_slot;
}

/* As Linux pci_enable_bridge(): every bridge between the root bus and the
 * function forwards its memory cycles and its DMA only with Memory Space
 * and Bus Master Enable set in its own command register (PCI-to-PCI Bridge
 * Architecture 1.2 section 3.2.5.1). Firmware that enables a bridge only
 * when one of its own drivers asks (EDK II's PciIo Attributes walks up the
 * parents; some firmware leaves bridges off until then) leaves them off
 * above a controller it never drove. Linux enables from the root down. */
static void enable_bridges_above(struct pci_addr a)
{
    struct pci_list *l;
    struct device_hold *h = NULL;
    int chain[PCIE_MAX_HOPS * 2], n = 0, at;

    for (int i = 0; i < PCI_HOLD_MAX; i++)
        if (device_holds[i].used && addr_eq(device_holds[i].addr, a))
            return; /* enabled before and not released since */
    for (int i = 0; i < PCI_HOLD_MAX && !h; i++)
        if (!device_holds[i].used)
            h = &device_holds[i];
    if (!h) {
        /* Enable anyway (the controller needs it); only the undo is lost. */
        static struct device_hold untracked;
        char bdf[16];

        pci_addr_str(a, bdf, sizeof(bdf));
        plat_diag(bdf, "more than %u controllers enabled: the bridges above this one stay as they are left",
                  PCI_HOLD_MAX);
        h = &untracked;
    }
    l = plat_alloc(sizeof(*l));
    if (!l)
        return;
    pci_enumerate(l);
    at = pci_list_find(l, a);
    /* The parents from the enumeration (secondary/subordinate bus numbers);
     * the depth bound guards against a corrupt chain. */
    for (int i = at >= 0 ? l->funcs[at].parent : -1; i >= 0 && n < (int)ARRAY_SIZE(chain); i = l->funcs[i].parent)
        if (l->funcs[i].header_type == PCI_HEADER_BRIDGE)
            chain[n++] = i;
    *h = (struct device_hold){ true, a, 0, { 0 } };
    for (int k = n - 1; k >= 0; k--) {
        int slot = bridge_enable(l->funcs[chain[k]].addr, a);
        if (slot >= 0)
            h->bridge[h->nbridges++] = slot;
    }
    plat_free(l);
}

void pci_enable_device(struct pci_addr a)
{
    uint16_t cmd = plat_pci_read16(a, PCI_COMMAND);

    enable_bridges_above(a);
    plat_pci_write16(a, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

/* Put back what pci_enable_device() changed on the bridges above a, once
 * no other enabled function below them needs them; the function's own
 * command register is its driver's business. */
void pci_release_bridges(struct pci_addr a)
{
    for (int i = 0; i < PCI_HOLD_MAX; i++) {
        struct device_hold *h = &device_holds[i];

        if (!h->used || !addr_eq(h->addr, a))
            continue;
        /* Nearest the function first: the reverse of enabling. */
        for (int k = (int)h->nbridges - 1; k >= 0; k--) {
            struct bridge_hold *b = &bridge_holds[h->bridge[k]];
            uint16_t cmd;
            char bdf[16];

            if (!b->users || --b->users)
                continue;
            /* Only our bits go back: anything else changed since stays. */
            cmd = plat_pci_read16(b->addr, PCI_COMMAND);
            if (cmd != 0xffff)
                plat_pci_write16(b->addr, PCI_COMMAND, (uint16_t)(cmd & ~b->added));
            pci_addr_str(b->addr, bdf, sizeof(bdf));
            plat_diag(bdf, "bridge command register restored to %04xh as found", (unsigned)(cmd & ~b->added));
        }
        h->used = false;
    }
}

/* ---- Accessor ------------------------------------------------------------------ */

/* Config reads for the platform accessor. */
static uint32_t platform_read32(void *ctx, struct pci_addr a, uint16_t off)
{
    (void)ctx;
    return plat_pci_read32(a, off);
}

/* The accessor that reads the real machine. */
const struct pci_cfg *pci_cfg_platform(void)
{
    static const struct pci_cfg platform = { platform_read32, NULL };
    return &platform;
}

/* 16-bit config read through an accessor (from the aligned dword). */
uint16_t pci_cfg_read16(const struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
    return (uint16_t)(c->read32(c->ctx, a, off & ~3) >> ((off & 2) * 8));
}

/* 8-bit config read through an accessor (from the aligned dword). */
uint8_t pci_cfg_read8(const struct pci_cfg *c, struct pci_addr a, uint16_t off)
{
    return (uint8_t)(c->read32(c->ctx, a, off & ~3) >> ((off & 3) * 8));
}

/* ---- Enumeration ------------------------------------------------------------------ */

/* Record every function on a bus and, depth first, behind its bridges. */
static void scan_bus(const struct pci_cfg *c, struct pci_list *l, uint16_t seg, uint8_t bus, int parent, int depth)
{
    if (depth > 32)
        return; /* a bridge loop in broken hardware */
    for (uint8_t dev = 0; dev < 32; dev++) {
        for (uint8_t fn = 0; fn < 8; fn++) {
            struct pci_addr a = { seg, bus, dev, fn };
            uint32_t id = c->read32(c->ctx, a, PCI_VENDOR_ID);
            uint8_t ht;
            struct pci_func *f;

            if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0) {
                if (fn == 0)
                    break;
                continue;
            }
            ht = pci_cfg_read8(c, a, PCI_HEADER_TYPE);
            if (l->count < PCI_MAX_FUNCS) {
                int self = l->count++;
                f = &l->funcs[self];
                f->addr = a;
                f->vendor = (uint16_t)id;
                f->device = (uint16_t)(id >> 16);
                f->class_code = c->read32(c->ctx, a, PCI_CLASS_REVISION) >> 8;
                f->header_type = ht & PCI_HEADER_TYPE_MASK;
                f->parent = parent;
                f->secondary_bus = f->subordinate_bus = 0;
                if (f->header_type == PCI_HEADER_BRIDGE) {
                    f->secondary_bus = pci_cfg_read8(c, a, PCI_SECONDARY_BUS);
                    f->subordinate_bus = pci_cfg_read8(c, a, PCI_SUBORDINATE_BUS);
                    if (f->secondary_bus > bus)
                        scan_bus(c, l, seg, f->secondary_bus, self, depth + 1);
                }
            }
            if (fn == 0 && !(ht & PCI_HEADER_MULTIFUNCTION))
                break;
        }
    }
}

/* Walk every root bus of every segment. */
int pci_enumerate_cfg(const struct pci_cfg *c, const uint16_t *segs, const uint8_t *bus_start,
                      const uint8_t *bus_end, int nsegs, struct pci_list *l)
{
    l->count = 0;
    for (int i = 0; i < nsegs; i++) {
        /* Root buses: the segment's first bus, plus any bus no bridge leads
         * to (extra host bridges, as on multi-socket servers). */
        for (unsigned bus = bus_start[i]; bus <= bus_end[i]; bus++) {
            bool reached = false;
            for (int k = 0; k < l->count; k++) {
                struct pci_func *f = &l->funcs[k];
                if (f->addr.seg == segs[i] && f->header_type == PCI_HEADER_BRIDGE && bus >= f->secondary_bus &&
                    bus <= f->subordinate_bus)
                    reached = true;
                if (f->addr.seg == segs[i] && f->addr.bus == bus)
                    reached = true;
            }
            if (reached)
                continue;
            if (bus != bus_start[i]) {
                /* Only scan a bus that answers: device 0..31 fn 0 */
                bool any = false;
                for (uint8_t dev = 0; dev < 32 && !any; dev++) {
                    struct pci_addr a = { segs[i], (uint8_t)bus, dev, 0 };
                    any = (c->read32(c->ctx, a, PCI_VENDOR_ID) & 0xffff) != 0xffff;
                }
                if (!any)
                    continue;
            }
            scan_bus(c, l, segs[i], (uint8_t)bus, -1, 0);
        }
    }
    return l->count;
}

/* Walk the machine's own buses. */
int pci_enumerate(struct pci_list *l)
{
    uint16_t segs[8];
    uint8_t start[8], end[8];
    int n = plat_pci_segments(segs, start, end, 8);

    return pci_enumerate_cfg(pci_cfg_platform(), segs, start, end, n, l);
}

/* Index of a BDF in an enumerated list. */
int pci_list_find(const struct pci_list *l, struct pci_addr a)
{
    for (int i = 0; i < l->count; i++)
        if (addr_eq(l->funcs[i].addr, a))
            return i;
    return -1;
}

/* ---- Capabilities ------------------------------------------------------------------ */

/* Find a capability in the standard (first 256 bytes) list. */
uint8_t pci_find_cap(const struct pci_cfg *c, struct pci_addr a, uint8_t cap_id)
{
    uint8_t ht = pci_cfg_read8(c, a, PCI_HEADER_TYPE) & PCI_HEADER_TYPE_MASK;
    uint8_t off;

    /* PCI Local Bus 3.0 section 6.7: the list exists only when Status
     * bit 4 says so; type 2 (CardBus) headers keep the pointer elsewhere. */
    if (!(pci_cfg_read16(c, a, PCI_STATUS) & PCI_STATUS_CAP_LIST) || ht > PCI_HEADER_BRIDGE)
        return 0;
    off = pci_cfg_read8(c, a, PCI_CAPABILITY_LIST);
    /* Each entry is at least 4 bytes in the 192 above the header, so more
     * than PCI_CAP_MAX_ENTRIES steps can only be a loop. The bottom two
     * bits of a pointer are reserved and must be masked. */
    for (int n = 0; n < PCI_CAP_MAX_ENTRIES; n++) {
        uint8_t id;
        off &= 0xfc;
        if (off < PCI_CAP_FIRST_OFFSET)
            return 0;
        id = pci_cfg_read8(c, a, off + PCI_CAP_LIST_ID);
        if (id == 0xff)
            return 0; /* the function went away (all-ones read) */
        if (id == cap_id)
            return off;
        off = pci_cfg_read8(c, a, off + PCI_CAP_LIST_NEXT);
    }
    return 0;
}

/* ---- PCI Express links -------------------------------------------------------------- */

/* Transfer rate of a link speed code. */
double pcie_speed_gts(unsigned code)
{
    static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
    return code < ARRAY_SIZE(gts) ? gts[code] : 0;
}

/* Payload-side rate of one lane after line coding. */
double pcie_lane_mbps(unsigned code)
{
    double gts = pcie_speed_gts(code);

    /* PCIe Base 4.0 section 4.2.1 (8b/10b at 2.5 and 5 GT/s) and 4.2.2
     * (128b/130b from 8 GT/s); PCIe 6.0 runs 64 GT/s in Flit mode with no
     * line code (1b/1b). One transfer is one bit per lane; GT/s * 1000 =
     * Mb/s; 8 bits to the byte. */
    if (code == PCI_EXP_SPEED_2_5GT || code == PCI_EXP_SPEED_5GT)
        return gts * 1000.0 * 8.0 / 10.0 / 8.0;
    if (code >= PCI_EXP_SPEED_8GT && code <= PCI_EXP_SPEED_32GT)
        return gts * 1000.0 * 128.0 / 130.0 / 8.0;
    return gts * 1000.0 / 8.0;
}

/* Highest set bit of the Supported Link Speeds Vector, as a speed code. */
static uint8_t vector_max_code(uint8_t vector)
{
    uint8_t code = 0;
    for (uint8_t b = 1; b < 8; b++)
        if (vector & (1u << b))
            code = b;
    return code;
}

/* Decode the PCI Express capability of one function. */
int pcie_read_info(const struct pci_cfg *c, struct pci_addr a, struct pcie_info *out)
{
    uint16_t flags, lnksta;
    uint32_t lnkcap;
    uint8_t cap = pci_find_cap(c, a, PCI_CAP_ID_EXP);

    memset(out, 0, sizeof(*out));
    if (!cap)
        return BM_ENODEV;
    flags = pci_cfg_read16(c, a, cap + PCI_EXP_FLAGS);
    out->is_pcie = true;
    out->cap = cap;
    out->version = flags & PCI_EXP_FLAGS_VERS;
    out->port_type = (uint8_t)((flags & PCI_EXP_FLAGS_TYPE) >> PCI_EXP_FLAGS_TYPE_SHIFT);

    lnkcap = c->read32(c->ctx, a, cap + PCI_EXP_LNKCAP);
    lnksta = pci_cfg_read16(c, a, cap + PCI_EXP_LNKSTA);
    out->max_speed_code = lnkcap & PCI_EXP_LNKCAP_SLS;
    out->max_width = (uint8_t)((lnkcap & PCI_EXP_LNKCAP_MLW) >> PCI_EXP_LNKCAP_MLW_SHIFT);
    out->speed_code = lnksta & PCI_EXP_LNKSTA_CLS;
    out->width = (uint8_t)((lnksta & PCI_EXP_LNKSTA_NLW) >> PCI_EXP_LNKSTA_NLW_SHIFT);

    /* 7.5.3.18: a version 2 capability has Link Capabilities 2, whose
     * vector lists every supported speed; LNKCAP.SLS then points at a bit
     * of it. A pre-3.0 device leaves the vector zero and SLS is the speed
     * itself (1 = 2.5, 2 = 5 GT/s). Both give the same code for a device
     * that follows the spec; trust the vector when they disagree. */
    if (out->version >= 2) {
        uint32_t lnkcap2 = c->read32(c->ctx, a, cap + PCI_EXP_LNKCAP2);
        if (lnkcap2 != 0xffffffffu)
            out->speeds_vector = (uint8_t)(lnkcap2 & PCI_EXP_LNKCAP2_SLSV);
        if (out->speeds_vector && vector_max_code(out->speeds_vector) != out->max_speed_code)
            out->max_speed_code = vector_max_code(out->speeds_vector);
    }
    return BM_OK;
}

/* Port types that sit at the lower (device) end of a link. */
static bool has_upstream_link(uint8_t type)
{
    return type == PCI_EXP_TYPE_ENDPOINT || type == PCI_EXP_TYPE_LEG_END || type == PCI_EXP_TYPE_UPSTREAM ||
           type == PCI_EXP_TYPE_PCI_BRIDGE;
}

/* Port types that sit at the upper end of the link below them. */
static bool has_downstream_link(uint8_t type)
{
    return type == PCI_EXP_TYPE_ROOT_PORT || type == PCI_EXP_TYPE_DOWNSTREAM;
}

/* Fill a link from the two ends' capabilities. port may be NULL when the
 * port above is unknown or not PCI Express. */
static void link_fill(struct pcie_link *k, struct pci_addr dev_addr, const struct pcie_info *dev,
                      struct pci_addr port_addr, const struct pcie_info *port)
{
    memset(k, 0, sizeof(*k));
    k->device_end = dev_addr;
    k->device_max_speed_code = dev->max_speed_code;
    k->device_max_width = dev->max_width;
    k->speed_code = dev->speed_code;
    k->width = dev->width;
    k->max_speed_code = dev->max_speed_code;
    k->max_width = dev->max_width;
    if (port) {
        k->port_end = port_addr;
        k->has_port_end = true;
        k->port_max_speed_code = port->max_speed_code;
        k->port_max_width = port->max_width;
        /* Both ends report the one negotiated state; a virtual function
         * or a device in reset may leave its own Link Status zero. */
        if (!k->speed_code || !k->width) {
            k->speed_code = port->speed_code;
            k->width = port->width;
        }
        if (port->max_speed_code && port->max_speed_code < k->max_speed_code)
            k->max_speed_code = port->max_speed_code;
        if (port->max_width && port->max_width < k->max_width)
            k->max_width = port->max_width;
    }
    /* Link training (PCIe 4.0 section 4.2.6) settles on the highest speed
     * and widest width both ends support; less than that is a downtrained
     * link: a bad slot, riser or cable, or a port set to a lower speed. */
    k->downtrained = k->speed_code && k->width &&
                     (k->speed_code < k->max_speed_code || k->width < k->max_width);
    k->mbps = pcie_lane_mbps(k->speed_code) * k->width;
    k->max_mbps = pcie_lane_mbps(k->max_speed_code) * k->max_width;
}

/* The link between the device end at index i and the port above it. */
static int link_above(const struct pci_cfg *c, const struct pci_list *l, int i, const struct pcie_info *dev,
                      struct pcie_link *out)
{
    const struct pci_func *f = &l->funcs[i];
    struct pcie_info port;

    if (f->parent >= 0 && pcie_read_info(c, l->funcs[f->parent].addr, &port) == BM_OK &&
        has_downstream_link(port.port_type))
        link_fill(out, f->addr, dev, l->funcs[f->parent].addr, &port);
    else
        link_fill(out, f->addr, dev, f->addr, NULL);
    return BM_OK;
}

/* The link a function sits on, for its pci record. */
int pcie_link_of(const struct pci_cfg *c, const struct pci_list *l, int index, struct pcie_link *out,
                 const char **why)
{
    struct pcie_info me;
    const char *dummy;

    if (!why)
        why = &dummy;
    *why = NULL;
    memset(out, 0, sizeof(*out));
    if (index < 0 || index >= l->count)
        return BM_EINVAL;
    if (pcie_read_info(c, l->funcs[index].addr, &me) != BM_OK) {
        *why = "conventional PCI function (no PCI Express capability): no link of its own";
        return BM_ENODEV;
    }
    if (me.port_type == PCI_EXP_TYPE_RC_END) {
        *why = "root-complex integrated endpoint: part of the root complex, no PCI Express link";
        return BM_ENODEV;
    }
    if (me.port_type == PCI_EXP_TYPE_RC_EC) {
        *why = "root-complex event collector: no PCI Express link";
        return BM_ENODEV;
    }
    if (has_upstream_link(me.port_type))
        return link_above(c, l, index, &me, out);
    if (has_downstream_link(me.port_type)) {
        /* The link below a port: its partner is the device end on the
         * secondary bus (device 0; any function will do, they share it). */
        for (int k = 0; k < l->count; k++) {
            struct pcie_info child;
            if (l->funcs[k].parent != index)
                continue;
            if (pcie_read_info(c, l->funcs[k].addr, &child) == BM_OK && has_upstream_link(child.port_type)) {
                link_fill(out, l->funcs[k].addr, &child, l->funcs[index].addr, &me);
                return BM_OK;
            }
        }
        /* Nothing below (an empty slot): only the port's own view, and
         * no partner to call the link downtrained against. */
        link_fill(out, l->funcs[index].addr, &me, l->funcs[index].addr, NULL);
        out->has_port_end = true;
        out->port_max_speed_code = me.max_speed_code;
        out->port_max_width = me.max_width;
        out->device_max_speed_code = out->device_max_width = 0;
        out->downtrained = false;
        return BM_OK;
    }
    *why = "PCI Express port type without a link to report";
    return BM_ENODEV;
}

/* Hops and bridges from a function up to its root bus. */
int pcie_path_build(const struct pci_cfg *c, const struct pci_list *l, int index, struct pcie_path *out)
{
    memset(out, 0, sizeof(*out));
    out->narrowest = -1;
    if (index < 0 || index >= l->count)
        return BM_ENODEV;
    out->ctrl = l->funcs[index].addr;

    /* Walk up: every function on the way that is the device end of a link
     * adds that link as a hop; ports add nothing themselves (their link is
     * the one below them, already counted). The depth bound guards
     * against a parent chain that loops in a corrupt list. */
    for (int i = index, depth = 0; i >= 0 && depth < 64; i = l->funcs[i].parent, depth++) {
        struct pcie_info info;
        if (i != index && out->nbridges < (int)ARRAY_SIZE(out->bridges))
            out->bridges[out->nbridges++] = l->funcs[i].addr;
        if (pcie_read_info(c, l->funcs[i].addr, &info) != BM_OK) {
            if (i == index)
                out->no_link_why = "conventional PCI function (no PCI Express capability)";
            continue;
        }
        if (i == index && info.port_type == PCI_EXP_TYPE_RC_END)
            out->no_link_why = "root-complex integrated endpoint: no PCI Express link";
        if (has_upstream_link(info.port_type) && out->nhops < PCIE_MAX_HOPS)
            link_above(c, l, i, &info, &out->hops[out->nhops++]);
    }
    for (int h = 0; h < out->nhops; h++)
        if (out->narrowest < 0 || out->hops[h].mbps < out->hops[out->narrowest].mbps)
            out->narrowest = h;
    return BM_OK;
}

/* pcie_path_build() on the live machine, for the disk engine. */
int pcie_path_to_root(struct pci_addr ctrl, struct pcie_path *out)
{
    struct pci_list *l = plat_alloc(sizeof(*l));
    int index, rc;

    if (!l)
        return BM_ENOMEM;
    pci_enumerate(l);
    index = pci_list_find(l, ctrl);
    rc = index < 0 ? BM_ENODEV : pcie_path_build(pci_cfg_platform(), l, index, out);
    plat_free(l);
    return rc;
}

volatile void *pci_map_first_mem_bar(struct pci_addr a, uint64_t min_bytes)
{
    for (int bar = 0; bar < 6; bar++) {
        uint32_t v = plat_pci_read32(a, (uint16_t)(PCI_BAR0 + bar * 4));
        uint64_t size = 0;
        volatile void *p;

        if (v & PCI_BAR_IO)
            continue;
        p = plat_pci_map_bar(a, bar, &size);
        if (p && size >= min_bytes)
            return p;
        if ((v & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_TYPE_64)
            bar++;
    }
    return NULL;
}

int pci_take_function(struct pci_addr a, uint64_t min_bytes, uint16_t *cmd_saved, volatile void **regs, char *err,
                      size_t errlen)
{
    int rc = plat_pci_claim(a);

    if (rc != BM_OK) {
        snprintf(err, errlen, "cannot take the controller from the firmware: %s", bm_strerror(rc));
        return rc;
    }
    *cmd_saved = plat_pci_read16(a, PCI_COMMAND);
    pci_enable_device(a);
    *regs = pci_map_first_mem_bar(a, min_bytes);
    if (!*regs) {
        snprintf(err, errlen, "no memory BAR");
        pci_give_back_function(a, *cmd_saved);
        return BM_ENODEV;
    }
    return BM_OK;
}

void pci_give_back_function(struct pci_addr a, uint16_t cmd_saved)
{
    plat_pci_write16(a, PCI_COMMAND, cmd_saved);
    plat_pci_release(a);
}
