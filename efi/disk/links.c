/* The shared PCI Express link of the all-disks tests (see links.h). */
#include "links.h"
#include "../../drivers/pci.h"
#include "../inventory/chipset.h"
#include "../inventory/inventory.h"

struct hop_use {
    struct pcie_link link;
    unsigned disks;
};

/* Same PCI function? */
static bool same_pci(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

/* Hops are told apart by their device end: one link per device end. */
static struct hop_use *hop_find(struct hop_use *hops, unsigned n, const struct pcie_link *l)
{
    for (unsigned i = 0; i < n; i++)
        if (same_pci(hops[i].link.device_end, l->device_end))
            return &hops[i];
    return NULL;
}

/* "x4 Gen3" for a link. */
static void link_text(char *buf, size_t len, const struct pcie_link *l)
{
    snprintf(buf, len, "x%u Gen%u", l->width, l->speed_code);
}

/* The narrowest link on one disk's way to the root complex, as a line. */
void links_describe_disk(const struct bm_disk *d, char *buf, size_t len)
{
    struct pcie_path p;
    char bdf[16], lt[32];

    buf[0] = '\0';
    if (!d->has_pci || pcie_path_to_root(d->pci_addr, &p) != BM_OK)
        return;
    if (p.narrowest < 0) {
        snprintf(buf, len, "%s: no PCIe link of its own (%s)", d->pci, p.no_link_why ? p.no_link_why : "none");
        return;
    }
    pci_addr_str(p.hops[p.narrowest].device_end, bdf, sizeof(bdf));
    link_text(lt, sizeof(lt), &p.hops[p.narrowest]);
    snprintf(buf, len, "%s: %d hop%s to the root, narrowest %s at %s (%.0f MB/s)", d->pci, p.nhops,
             p.nhops == 1 ? "" : "s", lt, bdf, p.hops[p.narrowest].mbps);
}

/* The chipset's invisible uplink (DMI, ESI) as the shared hop, when two or
 * more of the disks hang behind it and it caps lower than the narrowest
 * PCIe hop they share (below_mbps, 0 = none). A Promontory's uplink is a
 * real PCIe link, already among the hops. */
static bool chipset_hop(struct bm_disk *const *disks, unsigned n, double below_mbps, struct link_summary *out)
{
    const struct chipset_info *ci = inventory_chipset();
    struct pci_list *l;
    unsigned behind = 0;

    if (!ci->found || ci->uplink_visible || ci->uplink_mbps <= 0 || (below_mbps > 0 && below_mbps <= ci->uplink_mbps))
        return false;
    l = plat_alloc(sizeof(*l));
    if (!l)
        return false;
    pci_enumerate(l);
    for (unsigned i = 0; i < n; i++) {
        int idx = disks[i]->has_pci ? pci_list_find(l, disks[i]->pci_addr) : -1;
        if (idx >= 0 && chipset_attach_of(ci, l, idx, NULL) == ATTACH_CHIPSET)
            behind++;
    }
    plat_free(l);
    if (behind < 2)
        return false;
    out->known = true;
    out->chipset_uplink = true;
    out->emulated = ci->emulated;
    out->disks_behind = behind;
    bm_strlcpy(out->hop, "chipset", sizeof(out->hop));
    bm_strlcpy(out->link, ci->uplink, sizeof(out->link));
    out->ceiling_mbps = ci->uplink_mbps;
    snprintf(out->text, sizeof(out->text), "%u disks behind the %.60s's %s%s", behind, ci->name, ci->uplink,
             ci->emulated ? " (emulated: not enforced)" : "");
    return true;
}

/* The narrowest link two or more of the disks share. */
void links_summarize(struct bm_disk *const *disks, unsigned n, struct link_summary *out)
{
    static struct hop_use hops[BM_MAX_DISKS * PCIE_MAX_HOPS];
    static struct pcie_path path;
    struct hop_use *best = NULL;
    unsigned nhops = 0;

    memset(out, 0, sizeof(*out));
    /* Every hop every disk's traffic crosses, and how many disks cross it
     * (disks of one controller all cross the controller's own link). */
    for (unsigned i = 0; i < n; i++) {
        if (!disks[i]->has_pci || pcie_path_to_root(disks[i]->pci_addr, &path) != BM_OK)
            continue;
        for (int h = 0; h < path.nhops; h++) {
            struct hop_use *u = hop_find(hops, nhops, &path.hops[h]);
            if (!u) {
                if (nhops >= ARRAY_SIZE(hops) || path.hops[h].mbps <= 0)
                    continue;
                u = &hops[nhops++];
                u->link = path.hops[h];
                u->disks = 0;
            }
            u->disks++;
        }
    }
    /* The shared hop that caps the most: the lowest ceiling among hops two
     * or more of the disks cross; on a tie, the one more disks share. */
    for (unsigned i = 0; i < nhops; i++) {
        if (hops[i].disks < 2)
            continue;
        if (!best || hops[i].link.mbps < best->link.mbps ||
            (hops[i].link.mbps == best->link.mbps && hops[i].disks > best->disks))
            best = &hops[i];
    }
    if (chipset_hop(disks, n, best ? best->link.mbps : 0, out))
        return;
    if (!best)
        return;
    out->known = true;
    out->emulated = inventory_chipset()->emulated;
    out->disks_behind = best->disks;
    pci_addr_str(best->link.device_end, out->hop, sizeof(out->hop));
    link_text(out->link, sizeof(out->link), &best->link);
    out->ceiling_mbps = best->link.mbps;
    if (best->link.has_port_end) {
        char port[16];
        pci_addr_str(best->link.port_end, port, sizeof(port));
        snprintf(out->text, sizeof(out->text), "%u disks behind one %s link (%s to %s)", best->disks, out->link, port,
                 out->hop);
    } else {
        snprintf(out->text, sizeof(out->text), "%u disks behind one %s link (%s)", best->disks, out->link, out->hop);
    }
}
