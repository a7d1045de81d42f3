/* The chipset uplink table (see chipset.h).
 *
 * IDs were checked against Linux drivers/mfd/lpc_ich.c (ICH5 to Wellsburg,
 * Lewisburg), drivers/i2c/busses/i2c-i801.c, drivers/edac/i5000_edac.c,
 * i5400_edac.c and i5100_edac.c (the MCHs), and the chipset list of
 * NVIDIA's open-gpu-kernel-modules (nvcst.h: 0xA149 "SkyLake C236",
 * 0xA2C9 "IntelZ370", 0x1D40/0x1D41 "IntelX79", 0x8C52 "SharkBay-E3").
 * Uplink rates are per direction: DMI/ESI lanes are PCIe-like (2.5 GT/s and
 * 5 GT/s with 8b/10b, 8 and 16 GT/s with 128b/130b), so a DMI 2.0 x4 carries
 * 2.0 GB/s each way, a DMI 3.0 x4 3.94 GB/s. */
#include "chipset.h"
#include "../../drivers/pci_regs.h"

#define V_INTEL 0x8086
#define V_AMD 0x1022
#define V_ATI 0x1002

/* Bus-0 device numbers of the chipset's own functions. */
#define DEVS(lo, hi) ((uint32_t)((0xffffffffu >> (31 - (hi))) & (0xffffffffu << (lo))))
#define DEV(n) (1u << (n))
/* ICH7..ICH10: HDA 1b, root ports 1c, USB 1d, PCI bridge 1e, LPC/SATA/SMBus 1f, GbE 19, USB 1a. */
#define ICH_DEVS DEVS(0x19, 0x1f)
/* 5..9 series PCH: the ICH set plus ME 16 and xHCI 14. */
#define PCH_DEVS (ICH_DEVS | DEV(0x14) | DEV(0x16))
/* C600/C610: the PCH set plus 11 (C600's SCU SAS root port; C610's sSATA). */
#define PCH_SERVER_DEVS (PCH_DEVS | DEV(0x11))
/* 100 series and later: 12 (thermal) to 1f, SATA at 17, root ports 1b/1c/1d. */
#define SPT_DEVS DEVS(0x12, 0x1f)
/* C620: sSATA at 11.5, the rest as the 100 series from 14. */
#define LBG_DEVS (DEVS(0x14, 0x1f) | DEV(0x11))
/* AMD SB7x0..FCH: SATA 11, USB 12/13/16, SMBus/LPC/HDA/PCI bridge 14, PCIe ports 15. */
#define AMD_SB_DEVS DEVS(0x11, 0x16)

static const struct chipset_row rows[] = {
    /* ---- Intel, hub era ---- */
    { V_INTEL, 0x24d0, 0x24d0, CHIPSET_LPC, "Intel ICH5 (82801EB/ER)", "Hub Interface 1.5", 0, 0, 266.0, false, false,
      ICH_DEVS, "Intel 82801EB/ER ICH5 datasheet 252516, 1.2: Hub Interface 1.5, 266 MB/s", NULL },
    { V_INTEL, 0x27b0, 0x27bd, CHIPSET_LPC, "Intel ICH7", "DMI x4", 1, 4, 0, false, false, ICH_DEVS,
      "Intel ICH7 family datasheet 307013, 5.1: DMI x4 2.5 GT/s, 1 GB/s each direction", NULL },
    { V_INTEL, 0x2810, 0x2815, CHIPSET_LPC, "Intel ICH8", "DMI x4", 1, 4, 0, false, false, ICH_DEVS,
      "Intel ICH8 family datasheet 313056, 1.2: DMI x4, 1 GB/s each direction", NULL },
    { V_INTEL, 0x2912, 0x2919, CHIPSET_LPC, "Intel ICH9", "DMI x4", 1, 4, 0, false, false, ICH_DEVS,
      "Intel ICH9 family datasheet 316972, 1.2: DMI x4 2.5 GT/s, 1 GB/s each direction", NULL },
    { V_INTEL, 0x3a14, 0x3a1a, CHIPSET_LPC, "Intel ICH10", "DMI x4", 1, 4, 0, false, false, ICH_DEVS,
      "Intel ICH10 family datasheet 319973, 1.2: DMI x4, 1 GB/s each direction", NULL },
    { V_INTEL, 0x2670, 0x267f, CHIPSET_LPC, "Intel 631xESB/632xESB (ESB2)", "ESI x4", 1, 4, 0, false, false,
      DEVS(0x1c, 0x1f),
      "Intel 631xESB/632xESB I/O Controller Hub datasheet 313082, 1.3: ESI (Enterprise Southbridge Interface) x4, "
      "1 GB/s each direction, to the 5000/5100/5400 MCH", NULL },
    /* ---- Intel PCH ---- */
    { V_INTEL, 0x3b00, 0x3b1f, CHIPSET_LPC, "Intel 5 series/3400 series (Ibex Peak)", "DMI x4", 1, 4, 0, false, false,
      PCH_DEVS, "Intel 5 Series and 3400 Series Chipset datasheet 322169, 5.1: DMI x4 2.5 GT/s", NULL },
    { V_INTEL, 0x1c41, 0x1c5f, CHIPSET_LPC, "Intel 6 series/C200 (Cougar Point)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_DEVS, "Intel 6 Series Chipset and C200 Series Chipset datasheet 324645, 5.1: DMI 2.0 x4 5 GT/s", NULL },
    { V_INTEL, 0x1d40, 0x1d41, CHIPSET_LPC, "Intel C600/X79 (Patsburg)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_SERVER_DEVS,
      "Intel C600 Series and X79 Express Chipset datasheet 326514, 5.1: DMI 2.0 x4 5 GT/s; the SAS controller "
      "(SCU) sits behind the PCH's own port 00:11.0", NULL },
    { V_INTEL, 0x1e41, 0x1e5f, CHIPSET_LPC, "Intel 7 series/C216 (Panther Point)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_DEVS, "Intel 7 Series and C216 Chipset datasheet 326776, 5.1: DMI 2.0 x4 5 GT/s", NULL },
    { V_INTEL, 0x8c41, 0x8c5f, CHIPSET_LPC, "Intel 8 series/C220 (Lynx Point)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_DEVS,
      "Intel 8 Series and C220 Series Chipset datasheet 328904, 5.1: DMI 2.0 x4 5 GT/s (C226 = 8c56 in Linux "
      "lpc_ich.c)", NULL },
    { V_INTEL, 0x8cc1, 0x8cdf, CHIPSET_LPC, "Intel 9 series (Wildcat Point)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_DEVS, "Intel 9 Series Chipset datasheet 330550: DMI 2.0 x4 5 GT/s", NULL },
    { V_INTEL, 0x8d40, 0x8d5f, CHIPSET_LPC, "Intel C610/X99 (Wellsburg)", "DMI 2.0 x4", 2, 4, 0, false, false,
      PCH_SERVER_DEVS, "Intel C610 Series and X99 Chipset datasheet 330788: DMI 2.0 x4 5 GT/s", NULL },
    { V_INTEL, 0xa140, 0xa15f, CHIPSET_LPC, "Intel 100 series/C230 (Sunrise Point-H)", "DMI 3.0 x4", 3, 4, 0, false,
      false, SPT_DEVS,
      "Intel 100 Series and C230 Series Chipset datasheet 332690, 1.1: DMI 3.0 x4 8 GT/s (C236 = a149)", NULL },
    { V_INTEL, 0xa1c0, 0xa1cf, CHIPSET_LPC, "Intel C620 (Lewisburg)", "DMI 3.0 x4", 3, 4, 0, false, false, LBG_DEVS,
      "Intel C620 Series Chipset datasheet 336067: DMI 3.0 x4 8 GT/s", NULL },
    { V_INTEL, 0xa240, 0xa24f, CHIPSET_LPC, "Intel C620 (Lewisburg)", "DMI 3.0 x4", 3, 4, 0, false, false, LBG_DEVS,
      "Intel C620 Series Chipset datasheet 336067: DMI 3.0 x4 8 GT/s", NULL },
    { V_INTEL, 0xa2c0, 0xa2df, CHIPSET_LPC, "Intel 200 series/Z370 (Union Point)", "DMI 3.0 x4", 3, 4, 0, false,
      false, SPT_DEVS,
      "Intel 200 Series Chipset datasheet 335192, 1.1: DMI 3.0 x4 8 GT/s (Z370 = a2c9, NVIDIA nvcst.h)", NULL },
    { V_INTEL, 0xa300, 0xa31f, CHIPSET_LPC, "Intel 300 series (Cannon Point-H)", "DMI 3.0 x4", 3, 4, 0, false, false,
      SPT_DEVS, "Intel 300 Series Chipset datasheet 337347: DMI 3.0 x4 8 GT/s", NULL },
    { V_INTEL, 0x0680, 0x069f, CHIPSET_LPC, "Intel 400 series (Comet Lake PCH-H)", "DMI 3.0 x4", 3, 4, 0, false, false,
      SPT_DEVS, "Intel 400 Series Chipset datasheet 620855: DMI 3.0 x4 8 GT/s", NULL },
    { V_INTEL, 0x4380, 0x439f, CHIPSET_LPC, "Intel 500 series (Tiger Point-H)", "DMI 3.0", 3, 0, 0, false, false,
      SPT_DEVS, "Intel 500 Series Chipset datasheet: DMI 3.0, x4 with a 10th- and x8 with an 11th-generation CPU",
      "the DMI width depends on the CPU generation, which the table does not tell: no ceiling" },
    { V_INTEL, 0x7a84, 0x7a84, CHIPSET_LPC, "Intel Z690 (Alder Point-S)", "DMI 4.0 x8", 4, 8, 0, false, false,
      SPT_DEVS, "Intel 600 Series Chipset datasheet 648364: DMI 4.0 x8 16 GT/s on Z690/H670/Q670/W680", NULL },
    { V_INTEL, 0x7a80, 0x7a9f, CHIPSET_LPC, "Intel 600 series (Alder Point-S)", "DMI 4.0", 4, 0, 0, false, false,
      SPT_DEVS, "Intel 600 Series Chipset datasheet 648364: DMI 4.0 x8, or x4 on B660/H610",
      "the DMI width depends on the SKU (x8 or x4): no ceiling" },
    { V_INTEL, 0x7a04, 0x7a04, CHIPSET_LPC, "Intel Z790 (Raptor Point-S)", "DMI 4.0 x8", 4, 8, 0, false, false,
      SPT_DEVS, "Intel 700 Series Chipset datasheet 743835: DMI 4.0 x8 16 GT/s on Z790/H770", NULL },
    /* ---- Intel MCHs (host bridges): their southbridge row names the uplink ---- */
    { V_INTEL, 0x25c0, 0x25c0, CHIPSET_HOST, "Intel 5000X MCH (FB-DIMM)", NULL, 0, 0, 0, false, false, 0,
      "Intel 5000X Chipset MCH datasheet; ID in Linux i5000_edac.c", NULL },
    { V_INTEL, 0x25d0, 0x25d8, CHIPSET_HOST, "Intel 5000P/5000V/5000Z MCH (FB-DIMM)", NULL, 0, 0, 0, false, false, 0,
      "Intel 5000P/5000V/5000Z Chipset MCH datasheet; IDs in Linux i5000_edac.c", NULL },
    { V_INTEL, 0x4000, 0x4003, CHIPSET_HOST, "Intel 5400 MCH (FB-DIMM)", NULL, 0, 0, 0, false, false, 0,
      "Intel 5400 Chipset MCH datasheet; IDs in Linux i5400_edac.c", NULL },
    { V_INTEL, 0x65c0, 0x65c0, CHIPSET_HOST, "Intel 5100 MCH (DDR2)", NULL, 0, 0, 0, false, false, 0,
      "Intel 5100 Memory Controller Hub Chipset datasheet; ID in Linux i5100_edac.c", NULL },
    /* ---- Emulators ---- */
    { V_INTEL, 0x29c0, 0x29c0, CHIPSET_HOST, "QEMU q35 (emulated 82G33 MCH + ICH9)", NULL, 0, 0, 0, false, true, 0,
      "QEMU hw/pci-host/q35.c: the q35 host bridge uses the 82G33 DRAM controller ID 29c0", NULL },
    { V_INTEL, 0x1237, 0x1237, CHIPSET_HOST, "QEMU i440FX (emulated 440FX + PIIX3)", NULL, 0, 0, 0, false, true, 0,
      "QEMU hw/pci-host/i440fx.c: 8086:1237", NULL },
    /* ---- AMD ---- */
    { V_ATI, 0x439d, 0x439d, CHIPSET_LPC, "AMD SB7x0/SB8x0/SB9x0", "A-Link Express x4", 0, 4, 0, false, false,
      AMD_SB_DEVS, "AMD SB700 and SB800/SB900 register reference guides: A-Link Express II (PCIe 1.1 x4) or III "
      "(PCIe 2.0 x4); LPC ID in Linux sp5100_tco.c",
      "SB7x0 (A-Link Express II, PCIe 1.1 x4) and SB8x0/SB9x0 (A-Link III, PCIe 2.0 x4) share this LPC ID: no ceiling" },
    { V_AMD, 0x780e, 0x780e, CHIPSET_LPC, "AMD FCH (Hudson-D/M, A-series)", "UMI x4 (PCIe 2.0)", 2, 4, 0, false, false,
      AMD_SB_DEVS, "AMD Bolton/Hudson FCH BIOS and kernel developer's guide: UMI, PCIe 2.0 x4; ID in Linux "
      "i2c-piix4.c (FCH 780b SMBus)", NULL },
    { V_AMD, 0x43b4, 0x43b7, CHIPSET_PORT, "AMD 300 series (Promontory)", "PCIe 3.0 x4", 3, 4, 0, true, false, 0,
      "AMD X370/B350 chipset product brief: PCIe Gen3 x4 uplink; the link is a real PCIe link in config space", NULL },
    { V_AMD, 0x43c6, 0x43c8, CHIPSET_PORT, "AMD 400 series (Promontory)", "PCIe 3.0 x4", 3, 4, 0, true, false, 0,
      "AMD X470/B450 chipset product brief: PCIe Gen3 x4 uplink; the link is a real PCIe link in config space", NULL },
    { V_AMD, 0x57a3, 0x57a4, CHIPSET_PORT, "AMD X570 (Bixby)", "PCIe 4.0 x4", 4, 4, 0, true, false, 0,
      "AMD X570 chipset product brief: PCIe Gen4 x4 uplink; the link is a real PCIe link in config space", NULL },
    { V_AMD, 0x57ad, 0x57ad, CHIPSET_PORT, "AMD X570 (Bixby)", "PCIe 4.0 x4", 4, 4, 0, true, false, 0,
      "AMD X570 chipset product brief: PCIe Gen4 x4 uplink; the link is a real PCIe link in config space", NULL },
};

const struct chipset_row *chipset_lookup(uint16_t vendor, uint16_t device, enum chipset_role role)
{
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
        if (rows[i].vendor == vendor && rows[i].role == role && device >= rows[i].dev_lo && device <= rows[i].dev_hi)
            return &rows[i];
    return NULL;
}

double chipset_row_mbps(const struct chipset_row *r)
{
    if (!r || !r->uplink)
        return 0;
    if (r->fixed_mbps > 0)
        return r->fixed_mbps;
    if (!r->speed_code || !r->width)
        return 0;
    return pcie_lane_mbps(r->speed_code) * r->width;
}

/* Is a function an ISA/LPC bridge (class 0601)? */
static bool is_lpc(const struct pci_func *f)
{
    return (f->class_code >> 8) == 0x0601;
}

void chipset_identify(const struct pci_cfg *c, const struct pci_list *l, bool emulator_hint, struct chipset_info *out)
{
    const struct chipset_row *lpc = NULL, *host = NULL, *port = NULL;
    int lpc_i = -1, port_i = -1;

    memset(out, 0, sizeof(*out));
    for (int i = 0; i < l->count; i++) {
        const struct pci_func *f = &l->funcs[i];
        const struct chipset_row *r;
        if (f->addr.bus == 0 && f->addr.dev == 0 && f->addr.fn == 0 && !host &&
            (r = chipset_lookup(f->vendor, f->device, CHIPSET_HOST)) != NULL) {
            host = r;
        }
        if (!lpc && is_lpc(f) && (r = chipset_lookup(f->vendor, f->device, CHIPSET_LPC)) != NULL) {
            lpc = r;
            lpc_i = i;
        }
        /* The topmost function of a PCIe-hung chipset: the first in walk
         * order (bridges come before what is behind them). */
        if (!port && (r = chipset_lookup(f->vendor, f->device, CHIPSET_PORT)) != NULL) {
            port = r;
            port_i = i;
        }
    }
    out->host = host;
    out->emulated = emulator_hint || (host && host->emulated);
    if (!lpc && !port) {
        /* An LPC bridge the table does not know: name it, guess nothing. */
        for (int i = 0; i < l->count; i++)
            if (is_lpc(&l->funcs[i])) {
                out->vendor = l->funcs[i].vendor;
                out->device = l->funcs[i].device;
                out->at = l->funcs[i].addr;
                snprintf(out->note, sizeof(out->note), "unknown chipset (LPC/ISA bridge %04x:%04x): its uplink "
                         "to the CPU is not in the table, so no ceiling is given", out->vendor, out->device);
                break;
            }
        if (!out->note[0])
            snprintf(out->note, sizeof(out->note), "no LPC/ISA bridge the table knows: the chipset and its "
                     "uplink are unknown, so no ceiling is given");
        if (host)
            bm_strlcpy(out->name, host->name, sizeof(out->name));
        return;
    }
    out->found = true;
    out->row = lpc ? lpc : port;
    {
        const struct pci_func *f = &l->funcs[lpc ? lpc_i : port_i];
        out->vendor = f->vendor;
        out->device = f->device;
        out->at = f->addr;
    }
    if (host && host->emulated)
        bm_strlcpy(out->name, host->name, sizeof(out->name));
    else if (host)
        snprintf(out->name, sizeof(out->name), "%s + %s", host->name, out->row->name);
    else
        bm_strlcpy(out->name, out->row->name, sizeof(out->name));
    out->dev_mask = out->row->dev_mask;
    out->source = out->row->source;
    if (out->row->uplink)
        bm_strlcpy(out->uplink, out->row->uplink, sizeof(out->uplink));
    out->uplink_mbps = chipset_row_mbps(out->row);
    if (out->row->note)
        bm_strlcpy(out->note, out->row->note, sizeof(out->note));
    if (port) {
        /* The uplink is the link above the chipset's topmost function:
         * what it trained to is in config space, and beats the table. */
        struct pcie_link k;
        const char *why = NULL;
        out->uplink_visible = true;
        out->visible_at = l->funcs[port_i].addr;
        if (pcie_link_of(c, l, port_i, &k, &why) == BM_OK && k.width && k.speed_code) {
            double doc = out->uplink_mbps;
            out->uplink_mbps = k.mbps;
            snprintf(out->uplink, sizeof(out->uplink), "PCIe x%u Gen%u", k.width, k.speed_code);
            if (doc > 0 && k.mbps < doc)
                snprintf(out->note, sizeof(out->note), "the chipset uplink trained to x%u Gen%u, below the "
                         "documented %s", k.width, k.speed_code, out->row->uplink);
        } else {
            out->uplink_mbps = 0;
            snprintf(out->note, sizeof(out->note), "the chipset's uplink reports no usable link status (%s): no "
                     "ceiling is given", why ? why : "link down");
        }
    }
    if (out->emulated)
        snprintf(out->note, sizeof(out->note), "emulated chipset: the emulator does not enforce any link's "
                 "bandwidth, so no conclusion is drawn from links");
}

const char *chipset_attach_name(enum chipset_attach a)
{
    return a == ATTACH_CPU ? "cpu" : a == ATTACH_CHIPSET ? "chipset" : "unknown";
}

enum chipset_attach chipset_attach_of(const struct chipset_info *ci, const struct pci_list *l, int index,
                                      const char **why)
{
    const char *dummy;
    int top = index;

    if (!why)
        why = &dummy;
    *why = "";
    if (!ci->found || index < 0 || index >= l->count) {
        *why = "chipset unknown";
        return ATTACH_UNKNOWN;
    }
    /* The topmost function on the way up: the bus-0 device whose number
     * says whose it is; on the way, a function of a PCIe-hung chipset. */
    for (int i = index, depth = 0; i >= 0 && depth < 64; i = l->funcs[i].parent, depth++) {
        top = i;
        if (ci->uplink_visible && chipset_lookup(l->funcs[i].vendor, l->funcs[i].device, CHIPSET_PORT)) {
            *why = "behind the chipset's PCIe uplink";
            return ATTACH_CHIPSET;
        }
    }
    if (ci->uplink_visible) {
        *why = "not behind the chipset";
        return ATTACH_CPU;
    }
    if (l->funcs[top].addr.bus != 0 || l->funcs[top].addr.seg != 0) {
        /* A root bus other than 0 belongs to a CPU socket (or an IOH). */
        *why = "on a root bus other than 0";
        return ATTACH_CPU;
    }
    if (l->funcs[top].vendor == ci->vendor && (ci->dev_mask & (1u << l->funcs[top].addr.dev))) {
        *why = top == index ? "a chipset function" : "behind a chipset root port";
        return ATTACH_CHIPSET;
    }
    *why = top == index ? "a root complex function" : "behind a CPU root port";
    return ATTACH_CPU;
}
