/* Inventory: SMBIOS, CPUID and PCI configuration space become the system,
 * dimm, dimm_summary and pci records. */
#include "inventory.h"
#include "../../drivers/pci.h"
#include "../../drivers/pci_regs.h"
#include "../record.h"
#include "chipset.h"
#include "cpuid.h"
#include "dimm.h"
#include "smbios.h"
#include "spd_inventory.h"

/* Parsed at collect time, emitted later (allocated: it is ~60 KB). */
static struct smbios_info *smb;
static int smb_rc = BM_ENODEV;

/* CPUID, SMBIOS and platform facts into si; the SMBIOS parse is kept for the records. */
int inventory_collect(struct sysinfo *si)
{
    struct cpu_ident id;
    const void *table;
    size_t len;
    int major, minor;

    memset(si, 0, sizeof(*si));
    si->cpus = plat_cpu_count();
    si->tsc_hz = plat_tsc_hz();
    bm_strlcpy(si->clock_source, plat_clock_source(), sizeof(si->clock_source));
    plat_firmware_info(si->firmware, sizeof(si->firmware));
    bm_strlcpy(si->secure_boot, plat_secure_boot(), sizeof(si->secure_boot));

    cpu_identify(&id);
    bm_strlcpy(si->cpu, id.brand, sizeof(si->cpu));
    bm_strlcpy(si->cpu_vendor, id.vendor, sizeof(si->cpu_vendor));
    si->tsc_invariant = id.tsc_invariant;
    si->l1d_bytes = id.l1d_bytes;
    si->l1i_bytes = id.l1i_bytes;
    si->l2_bytes = id.l2_bytes;
    si->l3_bytes = id.l3_bytes;
    si->cache_line_bytes = id.line_bytes;

    if (!smb)
        smb = plat_alloc(sizeof(*smb));
    if (!smb)
        return BM_ENOMEM;
    smb_rc = plat_smbios_table(&table, &len, &major, &minor);
    if (smb_rc == BM_OK) {
        smb_rc = smbios_parse(table, len, major, minor, smb);
        snprintf(si->smbios_version, sizeof(si->smbios_version), "%d.%d", major, minor);
    } else {
        memset(smb, 0, sizeof(*smb));
    }
    bm_strlcpy(si->manufacturer, smb->sys_manufacturer, sizeof(si->manufacturer));
    bm_strlcpy(si->product, smb->sys_product, sizeof(si->product));
    bm_strlcpy(si->serial, smb->sys_serial, sizeof(si->serial));
    bm_strlcpy(si->uuid, smb->sys_uuid, sizeof(si->uuid));
    snprintf(si->baseboard, sizeof(si->baseboard), "%.47s%s%.47s", smb->board_manufacturer,
             smb->board_manufacturer[0] && smb->board_product[0] ? " " : "", smb->board_product);
    bm_strlcpy(si->board_serial, smb->board_serial, sizeof(si->board_serial));
    bm_strlcpy(si->bios_vendor, smb->bios_vendor, sizeof(si->bios_vendor));
    bm_strlcpy(si->bios_version, smb->bios_version, sizeof(si->bios_version));
    bm_strlcpy(si->bios_date, smb->bios_date, sizeof(si->bios_date));
    for (unsigned i = 0; i < smb->nprocs; i++) {
        if (!smb->procs[i].populated)
            continue;
        si->sockets++;
        si->cores += smb->procs[i].cores;
    }
    return BM_OK;
}

/* ---- system --------------------------------------------------------------------- */

/* "32 KiB", "1.25 MiB", "-" */
static void size_text(char *buf, size_t cap, uint64_t bytes)
{
    if (bytes == 0)
        snprintf(buf, cap, "-");
    else if (bytes < 1024 * 1024)
        snprintf(buf, cap, "%u KiB", (unsigned)(bytes / 1024));
    else if (bytes % (1024 * 1024) == 0)
        snprintf(buf, cap, "%u MiB", (unsigned)(bytes >> 20));
    else
        snprintf(buf, cap, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* The system record and its screen summary. */
static void emit_system_record(const struct sysinfo *si)
{
    static struct record r;
    static char human[1024];
    char l1[24], l2[24], l3[24];

    record_begin(&r, "system");
    json_str(&r.j, "cpu", si->cpu);
    json_str(&r.j, "cpu_vendor", si->cpu_vendor);
    json_u64(&r.j, "cpus", si->cpus);
    json_u64(&r.j, "sockets", si->sockets);
    json_u64(&r.j, "cores", si->cores);
    json_u64(&r.j, "tsc_hz", si->tsc_hz);
    json_bool(&r.j, "tsc_invariant", si->tsc_invariant);
    json_str(&r.j, "clock_source", si->clock_source);
    json_u64(&r.j, "l1d_bytes", si->l1d_bytes);
    json_u64(&r.j, "l1i_bytes", si->l1i_bytes);
    json_u64(&r.j, "l2_bytes", si->l2_bytes);
    json_u64(&r.j, "l3_bytes", si->l3_bytes);
    json_u64(&r.j, "cache_line_bytes", si->cache_line_bytes);
    json_str(&r.j, "firmware", si->firmware);
    json_str(&r.j, "secure_boot", si->secure_boot);
    json_str(&r.j, "bios_vendor", si->bios_vendor);
    json_str(&r.j, "bios_version", si->bios_version);
    json_str(&r.j, "bios_date", si->bios_date);
    json_str(&r.j, "manufacturer", si->manufacturer);
    json_str(&r.j, "product", si->product);
    json_str(&r.j, "serial", si->serial);
    json_str(&r.j, "uuid", si->uuid);
    json_str(&r.j, "baseboard", si->baseboard);
    json_str(&r.j, "baseboard_serial", si->board_serial);
    json_str(&r.j, "smbios", si->smbios_version);
    json_arr_begin(&r.j, "processors");
    for (unsigned i = 0; smb && i < smb->nprocs; i++) {
        const struct smbios_proc *p = &smb->procs[i];
        json_obj_begin(&r.j, NULL);
        json_str(&r.j, "socket", p->socket);
        json_bool(&r.j, "populated", p->populated);
        json_str(&r.j, "manufacturer", p->manufacturer);
        json_str(&r.j, "version", p->version);
        json_u64(&r.j, "cores", p->cores);
        json_u64(&r.j, "cores_enabled", p->cores_enabled);
        json_u64(&r.j, "threads", p->threads);
        json_obj_end(&r.j);
    }
    json_arr_end(&r.j);

    size_text(l1, sizeof(l1), si->l1d_bytes);
    size_text(l2, sizeof(l2), si->l2_bytes);
    size_text(l3, sizeof(l3), si->l3_bytes);
    snprintf(human, sizeof(human),
             "System   %s %s (serial %s)\n"
             "Board    %s\n"
             "Firmware %s; %s %s %s\n"
             "CPU      %s, %u logical CPU%s\n"
             "         caches L1d %s, L2 %s, L3 %s; TSC %.3f GHz (%s, calibrated by %s)",
             si->manufacturer[0] ? si->manufacturer : "?", si->product, si->serial[0] ? si->serial : "none",
             si->baseboard[0] ? si->baseboard : "?", si->firmware, si->bios_vendor, si->bios_version, si->bios_date,
             si->cpu, si->cpus, si->cpus == 1 ? "" : "s", l1, l2, l3, (double)si->tsc_hz / 1e9,
             si->tsc_invariant ? "invariant" : "NOT invariant", si->clock_source);
    record_emit(&r, human);
}

/* ---- dimm and dimm_summary -------------------------------------------------------- */

/* One dimm record and its row of the screen table (the SPD columns from
 * the SPD matched to it, dashes where none was). */
static void emit_dimm_record(const struct dimm *all, unsigned idx)
{
    static struct record r;
    const struct dimm *d = &all[idx];
    char human[320], size[16], speed[24], ranks[8], spd[120];

    record_begin(&r, "dimm");
    json_str(&r.j, "locator", d->locator);
    json_str(&r.j, "bank", d->bank);
    if (d->size_unknown)
        json_null(&r.j, "size_mb");
    else
        json_u64(&r.j, "size_mb", d->size_mb);
    json_str(&r.j, "mem_type", d->mem_type);
    json_u64(&r.j, "speed_mts", d->speed_mts);
    json_u64(&r.j, "configured_mts", d->configured_mts);
    json_u64(&r.j, "ranks", d->ranks);
    json_str(&r.j, "manufacturer", d->manufacturer);
    json_str(&r.j, "part", d->part);
    json_str(&r.j, "serial", d->serial);

    if (!dimm_populated(d)) {
        snprintf(human, sizeof(human), "  %-22.22s %-22.22s %9s", d->locator, d->bank, "empty");
    } else {
        spd_table_columns(spd, sizeof(spd), spd_inventory_of_dimm(idx), all);
        if (d->size_unknown)
            snprintf(size, sizeof(size), "?");
        else
            snprintf(size, sizeof(size), "%u MB", (unsigned)d->size_mb);
        if (d->speed_mts)
            snprintf(speed, sizeof(speed), "%u/%u", (unsigned)d->speed_mts, (unsigned)d->configured_mts);
        else
            snprintf(speed, sizeof(speed), "-");
        if (d->ranks)
            snprintf(ranks, sizeof(ranks), "%uR", d->ranks);
        else
            snprintf(ranks, sizeof(ranks), "-");
        snprintf(human, sizeof(human), "  %-22.22s %-22.22s %9s  %-8.8s %-11s %-5s | %s | %s %s", d->locator, d->bank,
                 size, d->mem_type, speed, ranks, spd, d->manufacturer, d->part);
    }
    record_emit(&r, human);
}

/* The dimm_summary record and its screen lines. */
static void emit_dimm_summary(const struct dimm_summary *s)
{
    static struct record r;
    static char human[2048];
    size_t n;

    record_begin(&r, "dimm_summary");
    json_u64(&r.j, "populated", s->populated);
    json_u64(&r.j, "slots", s->slots);
    json_u64(&r.j, "total_mb", s->total_mb);
    json_str(&r.j, "grouping", dimm_grouping_name(s->grouping));
    if (s->rom_entries)
        json_u64(&r.j, "rom_entries", s->rom_entries);
    if (s->unnamed_slots)
        json_u64(&r.j, "unnamed_slots", s->unnamed_slots);
    if (s->grouping != DIMM_GROUP_NONE) {
        json_arr_begin(&r.j, s->channels_known ? "channels" : "sockets");
        for (unsigned c = 0; c < s->nchannels; c++) {
            json_obj_begin(&r.j, NULL);
            json_str(&r.j, "name", s->channels[c].name);
            json_u64(&r.j, "slots", s->channels[c].slots);
            json_u64(&r.j, "populated", s->channels[c].populated);
            json_u64(&r.j, "size_mb", s->channels[c].size_mb);
            json_obj_end(&r.j);
        }
        json_arr_end(&r.j);
    }
    if (!s->channels_known) {
        json_null(&r.j, "channels");
        json_str(&r.j, "channels_note", s->channels_note);
    }
    json_arr_begin(&r.j, "warnings");
    for (unsigned w = 0; w < s->nwarnings; w++)
        json_str(&r.j, NULL, s->warnings[w]);
    json_arr_end(&r.j);

    n = (size_t)snprintf(human, sizeof(human), "Memory   %u of %u slots populated, %llu MB", s->populated, s->slots,
                         (unsigned long long)s->total_mb);
    if (s->grouping != DIMM_GROUP_NONE) {
        n += (size_t)snprintf(human + n, n < sizeof(human) ? sizeof(human) - n : 0, "; per %s:",
                              dimm_grouping_name(s->grouping));
        for (unsigned c = 0; c < s->nchannels && n < sizeof(human); c++)
            n += (size_t)snprintf(human + n, sizeof(human) - n, " %s=%u/%u", s->channels[c].name,
                                  s->channels[c].populated, s->channels[c].slots);
    } else if (s->channels_note[0] && n < sizeof(human)) {
        n += (size_t)snprintf(human + n, sizeof(human) - n, "; channels unknown: %s", s->channels_note);
    }
    for (unsigned w = 0; w < s->nwarnings && n < sizeof(human); w++)
        n += (size_t)snprintf(human + n, sizeof(human) - n, "\n  WARNING %s", s->warnings[w]);
    record_emit(&r, human);
}

static struct dimm_summary sum;
static bool sum_done;

const struct dimm_summary *inventory_dimm_summary(void)
{
    return sum_done ? &sum : NULL;
}

/* Notes about the table, the DIMM table and its summary. */
static void emit_dimms(void)
{
    struct dimm_cpus cpus = { 0 };
    unsigned n = smb ? smb->ndimms : 0;

    if (smb_rc == BM_ENODEV)
        record_note("smbios", "the firmware publishes no SMBIOS table: no DIMM, board or serial information");
    else if (smb && smb->problems)
        record_note("smbios", "malformed SMBIOS table (%u problem%s), the inventory may be incomplete: %s",
                    smb->problems, smb->problems == 1 ? "" : "s", smb->problem);
    if (smb && smb->dimms_dropped)
        record_note("smbios", "%u memory devices beyond the first %d were not listed", smb->dimms_dropped,
                    SMBIOS_MAX_DIMMS);

    /* SPD first, so that the table shows it; its spd records still come
     * after the dimm records. */
    spd_inventory_read(n ? smb->dimms : NULL, n);
    if (n)
        ui_text("  %-22s %-22s %9s  %-8s %-11s %-5s | %-17s %5s %-8s %-3s %-18s | %s", "Slot", "Bank", "Size", "Type",
                "MT/s r/c", "Ranks", "SPD type", "MT/s", "CL-RCD-RP", "Rk", "SPD part", "Manufacturer / part");
    for (unsigned i = 0; i < n; i++)
        emit_dimm_record(smb->dimms, i);
    if (smb) {
        cpus.sockets = smb->nprocs;
        for (unsigned i = 0; i < smb->nprocs; i++)
            cpus.populated += smb->procs[i].populated;
    }
    dimm_summarize_cpus(n ? smb->dimms : NULL, n, smb ? &cpus : NULL, &sum);
    /* The spd records, and SPD-based warnings into the summary. */
    spd_inventory_emit(n ? smb->dimms : NULL, n, &sum);
    sum_done = true;
    emit_dimm_summary(&sum);
}

/* ---- pci ------------------------------------------------------------------------------ */

/* Record name of a PCI Express device/port type. */
static const char *port_type_name(uint8_t t)
{
    switch (t) {
    case PCI_EXP_TYPE_ENDPOINT: return "endpoint";
    case PCI_EXP_TYPE_LEG_END: return "legacy_endpoint";
    case PCI_EXP_TYPE_ROOT_PORT: return "root_port";
    case PCI_EXP_TYPE_UPSTREAM: return "switch_upstream";
    case PCI_EXP_TYPE_DOWNSTREAM: return "switch_downstream";
    case PCI_EXP_TYPE_PCI_BRIDGE: return "pcie_to_pci_bridge";
    case PCI_EXP_TYPE_PCIE_BRIDGE: return "pci_to_pcie_bridge";
    case PCI_EXP_TYPE_RC_END: return "rc_integrated_endpoint";
    case PCI_EXP_TYPE_RC_EC: return "rc_event_collector";
    default: return "other";
    }
}

/* Short name of a storage subclass for the screen. */
static const char *storage_kind(uint32_t class_code)
{
    switch ((class_code >> 8) & 0xff) {
    case 0x00: return "SCSI";
    case 0x01: return "IDE";
    case 0x04: return "RAID";
    case 0x05: return "ATA";
    case 0x06: return (class_code & 0xff) == 0x01 ? "SATA AHCI" : "SATA";
    case 0x07: return "SAS";
    case 0x08: return "NVMe";
    default: return "storage";
    }
}

/* The link fields as this function sees them: its own ceiling, and the
 * partner's (the other end of the same link). */
static void link_json(struct json *j, const struct pcie_link *k, bool is_port)
{
    uint8_t own_s = is_port ? k->port_max_speed_code : k->device_max_speed_code;
    uint8_t own_w = is_port ? k->port_max_width : k->device_max_width;
    uint8_t other_s = is_port ? k->device_max_speed_code : k->port_max_speed_code;
    uint8_t other_w = is_port ? k->device_max_width : k->port_max_width;
    bool partner = is_port ? k->device_max_width != 0 : k->has_port_end;

    json_obj_begin(j, "link");
    json_num(j, "speed_gts", pcie_speed_gts(k->speed_code), 1);
    json_u64(j, "width", k->width);
    json_num(j, "max_speed_gts", pcie_speed_gts(own_s), 1);
    json_u64(j, "max_width", own_w);
    if (partner) {
        json_num(j, "partner_max_speed_gts", pcie_speed_gts(other_s), 1);
        json_u64(j, "partner_max_width", other_w);
    } else {
        json_null(j, "partner_max_speed_gts");
        json_null(j, "partner_max_width");
    }
    json_bool(j, "downtrained", k->downtrained);
    json_num(j, "mbps", k->mbps, 0);
    json_obj_end(j);
}

/* The chipset inventory_emit() identified (emit_pci). */
static struct chipset_info chipset;

const struct chipset_info *inventory_chipset(void)
{
    return &chipset;
}

/* Does SMBIOS say the machine is QEMU's? (Its chipsets carry Intel IDs.) */
static bool smbios_says_emulator(const struct sysinfo *si)
{
    return strstr(si->manufacturer, "QEMU") || strstr(si->product, "QEMU") || strstr(si->bios_vendor, "QEMU") ||
           strstr(si->bios_version, "QEMU");
}

/* The chipset record: which chipset, its uplink to the CPU and where the
 * figure comes from (chipset.h); an unknown chipset says so. */
static void emit_chipset_record(const struct chipset_info *ci)
{
    static struct record r;
    char human[400], ids[16], bdf[16];

    record_begin(&r, "chipset");
    json_bool(&r.j, "known", ci->found);
    json_str(&r.j, "name", ci->name);
    snprintf(ids, sizeof(ids), "0x%04x", ci->vendor);
    json_str(&r.j, "vendor", ids);
    snprintf(ids, sizeof(ids), "0x%04x", ci->device);
    json_str(&r.j, "device", ids);
    pci_addr_str(ci->at, bdf, sizeof(bdf));
    json_str(&r.j, "bdf", ci->vendor ? bdf : "");
    json_bool(&r.j, "emulated", ci->emulated);
    json_str(&r.j, "uplink", ci->uplink);
    if (ci->uplink_mbps > 0)
        json_num(&r.j, "uplink_mbps", ci->uplink_mbps, 0);
    else
        json_null(&r.j, "uplink_mbps");
    json_bool(&r.j, "uplink_visible", ci->uplink_visible);
    json_str(&r.j, "source", ci->source ? ci->source : "");
    json_str(&r.j, "note", ci->note);
    if (ci->found && ci->uplink_mbps > 0)
        snprintf(human, sizeof(human), "Chipset  %s, uplink %s (%.2f GB/s each way)%s%s", ci->name, ci->uplink,
                 ci->uplink_mbps / 1e3, ci->note[0] ? "; " : "", ci->note);
    else
        snprintf(human, sizeof(human), "Chipset  %s%s%s", ci->found ? ci->name : "unknown", ci->note[0] ? ": " : "",
                 ci->note);
    record_emit(&r, human);
}

/* One pci record: identity, link, path and (for controllers) the path ceiling. */
static void emit_pci_record(const struct pci_cfg *c, const struct pci_list *l, int i)
{
    static struct record r;
    static char human[512];
    const struct pci_func *f = &l->funcs[i];
    struct pcie_info info;
    struct pcie_link link;
    struct pcie_path path;
    const char *why = NULL;
    char bdf[16], ids[48], linktxt[160], pathtxt[200];
    bool storage = (f->class_code >> 16) == PCI_CLASS_STORAGE;
    bool is_pcie = pcie_read_info(c, f->addr, &info) == BM_OK;
    bool is_port = is_pcie && (info.port_type == PCI_EXP_TYPE_ROOT_PORT || info.port_type == PCI_EXP_TYPE_DOWNSTREAM);
    int lrc = pcie_link_of(c, l, i, &link, &why);
    size_t n = 0;

    pcie_path_build(c, l, i, &path);
    pci_addr_str(f->addr, bdf, sizeof(bdf));
    record_begin(&r, "pci");
    json_str(&r.j, "bdf", bdf);
    snprintf(ids, sizeof(ids), "0x%04x", f->vendor);
    json_str(&r.j, "vendor", ids);
    snprintf(ids, sizeof(ids), "0x%04x", f->device);
    json_str(&r.j, "device", ids);
    snprintf(ids, sizeof(ids), "0x%06x", (unsigned)f->class_code);
    json_str(&r.j, "class", ids);
    json_str(&r.j, "kind", storage ? "storage" : "bridge");
    {
        const char *awhy = "";
        enum chipset_attach at = chipset_attach_of(&chipset, l, i, &awhy);
        json_str(&r.j, "attach", chipset_attach_name(at));
        json_str(&r.j, "attach_why", awhy);
        if (at == ATTACH_CHIPSET && chipset.uplink_mbps > 0)
            json_num(&r.j, "chipset_uplink_mbps", chipset.uplink_mbps, 0);
    }
    if (is_pcie)
        json_str(&r.j, "port_type", port_type_name(info.port_type));
    else
        json_str(&r.j, "port_type", "pci");
    if (lrc == BM_OK) {
        link_json(&r.j, &link, is_port);
    } else {
        json_null(&r.j, "link");
        json_str(&r.j, "link_note", why ? why : "no link");
    }
    json_arr_begin(&r.j, "path");
    pathtxt[0] = '\0';
    for (int b = 0; b < path.nbridges; b++) {
        pci_addr_str(path.bridges[b], bdf, sizeof(bdf));
        json_str(&r.j, NULL, bdf);
        n += (size_t)snprintf(pathtxt + n, n < sizeof(pathtxt) ? sizeof(pathtxt) - n : 0, " <- %s", bdf);
    }
    json_arr_end(&r.j);
    if (storage) {
        /* The slowest link between this controller and the CPU caps every
         * disk behind it together. */
        double ceiling = path.narrowest >= 0 ? path.hops[path.narrowest].mbps : 0;
        const char *by = path.narrowest >= 0 ? "pcie_link" : NULL;
        if (path.narrowest >= 0)
            json_num(&r.j, "path_ceiling_mbps", path.hops[path.narrowest].mbps, 0);
        else
            json_null(&r.j, "path_ceiling_mbps");
        /* Every hop to the CPU, the chipset's invisible uplink included. */
        if (chipset_attach_of(&chipset, l, i, NULL) == ATTACH_CHIPSET && chipset.uplink_mbps > 0 &&
            !chipset.uplink_visible && (ceiling <= 0 || chipset.uplink_mbps < ceiling)) {
            ceiling = chipset.uplink_mbps;
            by = "chipset_uplink";
        }
        if (by) {
            json_num(&r.j, "ceiling_mbps", ceiling, 0);
            json_str(&r.j, "ceiling_by", by);
        } else {
            json_null(&r.j, "ceiling_mbps");
        }
    }

    if (lrc == BM_OK)
        snprintf(linktxt, sizeof(linktxt), "x%u %.1f GT/s (this end x%u %.1f)%s", link.width,
                 pcie_speed_gts(link.speed_code), is_port ? link.port_max_width : link.device_max_width,
                 pcie_speed_gts(is_port ? link.port_max_speed_code : link.device_max_speed_code),
                 link.downtrained ? " DOWNTRAINED" : "");
    else
        snprintf(linktxt, sizeof(linktxt), "no link");
    pci_addr_str(f->addr, bdf, sizeof(bdf));
    snprintf(human, sizeof(human), "PCI      %s %04x:%04x %-9s %s%s", bdf, f->vendor, f->device,
             storage ? storage_kind(f->class_code) : "bridge", linktxt, pathtxt);
    record_emit(&r, human);
}

/* The chipset record, then pci records for every storage controller and
 * the bridges above it. */
static void emit_pci(const struct sysinfo *si)
{
    const struct pci_cfg *c = pci_cfg_platform();
    struct pci_list *l = plat_alloc(sizeof(*l));
    static bool selected[PCI_MAX_FUNCS];

    if (!l) {
        record_error("inventory", "no memory for the PCI function list");
        return;
    }
    pci_enumerate(l);
    chipset_identify(c, l, smbios_says_emulator(si), &chipset);
    emit_chipset_record(&chipset);
    memset(selected, 0, sizeof(selected));
    /* Every storage controller and every bridge above it; the list is in
     * walk order (bridges before what is behind them), which is the order
     * the records come out in. */
    for (int i = 0; i < l->count; i++) {
        if ((l->funcs[i].class_code >> 16) != PCI_CLASS_STORAGE)
            continue;
        for (int k = i, depth = 0; k >= 0 && depth < 64; k = l->funcs[k].parent, depth++)
            selected[k] = true;
    }
    for (int i = 0; i < l->count; i++)
        if (selected[i])
            emit_pci_record(c, l, i);
    plat_free(l);
}

/* All inventory records, in the order docs/records.md lists them. */
void inventory_emit(const struct sysinfo *si)
{
    emit_system_record(si);
    emit_dimms();
    emit_pci(si);
}
