/* PCI bus walk. */
#include "pci.h"
#include "pci_regs.h"

void pci_addr_str(struct pci_addr a, char *buf, size_t len)
{
    snprintf(buf, len, "%04x:%02x:%02x.%x", a.seg, a.bus, a.dev, a.fn);
}

void pci_enable_device(struct pci_addr a)
{
    uint16_t cmd = plat_pci_read16(a, PCI_COMMAND);
    plat_pci_write16(a, PCI_COMMAND, cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

static void scan_bus(struct pci_list *l, uint16_t seg, uint8_t bus, int parent, int depth)
{
    if (depth > 32)
        return; /* a bridge loop in broken hardware */
    for (uint8_t dev = 0; dev < 32; dev++) {
        for (uint8_t fn = 0; fn < 8; fn++) {
            struct pci_addr a = { seg, bus, dev, fn };
            uint32_t id = plat_pci_read32(a, PCI_VENDOR_ID);
            uint8_t ht;
            struct pci_func *f;

            if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0) {
                if (fn == 0)
                    break;
                continue;
            }
            ht = plat_pci_read8(a, PCI_HEADER_TYPE);
            if (l->count < PCI_MAX_FUNCS) {
                int self = l->count++;
                f = &l->funcs[self];
                f->addr = a;
                f->vendor = (uint16_t)id;
                f->device = (uint16_t)(id >> 16);
                f->class_code = plat_pci_read32(a, PCI_CLASS_REVISION) >> 8;
                f->header_type = ht & PCI_HEADER_TYPE_MASK;
                f->parent = parent;
                if (f->header_type == PCI_HEADER_BRIDGE) {
                    f->secondary_bus = plat_pci_read8(a, PCI_SECONDARY_BUS);
                    f->subordinate_bus = plat_pci_read8(a, PCI_SUBORDINATE_BUS);
                    if (f->secondary_bus > bus)
                        scan_bus(l, seg, f->secondary_bus, self, depth + 1);
                }
            }
            if (fn == 0 && !(ht & PCI_HEADER_MULTIFUNCTION))
                break;
        }
    }
}

int pci_enumerate(struct pci_list *l)
{
    uint16_t segs[8];
    uint8_t start[8], end[8];
    int n = plat_pci_segments(segs, start, end, 8);

    l->count = 0;
    for (int i = 0; i < n; i++) {
        /* Root buses: the segment's first bus, plus any bus no bridge leads
         * to (extra host bridges, as on multi-socket servers). */
        for (unsigned bus = start[i]; bus <= end[i]; bus++) {
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
            if (bus != start[i]) {
                /* Only scan a bus that answers: device 0..31 fn 0 */
                bool any = false;
                for (uint8_t dev = 0; dev < 32 && !any; dev++) {
                    struct pci_addr a = { segs[i], (uint8_t)bus, dev, 0 };
                    any = (plat_pci_read32(a, PCI_VENDOR_ID) & 0xffff) != 0xffff;
                }
                if (!any)
                    continue;
            }
            scan_bus(l, segs[i], (uint8_t)bus, -1, 0);
        }
    }
    return l->count;
}
