/* Write-safety rules (see safety.h). */
#include "safety.h"
#include "../../drivers/fwblk/fwblk.h"

/* May this disk be written? The rule of safety.h, in the order a reader checks it. */
enum write_perm disk_write_permission(const struct config *c, const char *serial, const struct disk_facts *f,
                                      char *reason, size_t reason_len)
{
    if (reason_len)
        reason[0] = '\0';
    if (!config_write_allowed(c, serial))
        return WRITE_NOT_LISTED;
    if (f->boot) {
        snprintf(reason, reason_len, "it holds the volume baremark was loaded from");
        return WRITE_REFUSED;
    }
    if (f->results && f->results_by_controller) {
        snprintf(reason, reason_len, "it is on the controller of the volume the results are written to, and "
                 "nothing says which of its disks that is (out=off lifts this)");
        return WRITE_REFUSED;
    }
    if (f->results) {
        snprintf(reason, reason_len, "it holds the volume the results are written to");
        return WRITE_REFUSED;
    }
    if (f->serial_twin) {
        snprintf(reason, reason_len, "it reports the same serial as %s, so write= cannot say which of "
                 "the two it means", f->serial_twin);
        return WRITE_REFUSED;
    }
    if (f->read_only) {
        snprintf(reason, reason_len, "the firmware reports its medium as read-only");
        return WRITE_REFUSED;
    }
    return WRITE_ALLOWED;
}

/* Same PCI function? */
static bool same_pci(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

/* Same serial, and not two namespaces of one NVMe controller? */
bool disk_serials_clash(const struct bm_disk *a, bool a_ns, const struct bm_disk *b, bool b_ns)
{
    if (!a->serial[0] || strcmp(a->serial, b->serial))
        return false;
    /* NVMe 1.4 section 6.1: namespaces of a controller are its disks and
     * carry its serial; different namespace ids, different disks. */
    if (a_ns && b_ns && a->has_pci && b->has_pci && same_pci(a->pci_addr, b->pci_addr) && a->port != b->port)
        return false;
    return true;
}

/* Does the disk hold the volume this location describes? */
bool disk_holds_boot(const struct bm_disk *d, const struct plat_boot_location *boot, enum boot_answer fw)
{
    bool same_ctrl, same_port;

    if (fw == BOOT_YES || boot->disk_unknown)
        return true;
    /* has_volume is not required: a disk the app was loaded from stays
     * protected even when its file system could not be opened. */
    same_ctrl = boot->has_pci && d->has_pci && same_pci(d->pci_addr, boot->pci);
    same_port = same_ctrl && boot->has_port && d->port == boot->port && d->lun == boot->lun;
    /* The firmware's "no" (device paths differ) stands unless controller
     * and port say otherwise: two ways of naming one disk must not make
     * it writable. */
    if (fw == BOOT_NO)
        return same_port;
    /* No firmware answer and no PCI location (a firmware disk without a
     * device path, a pass-thru instance off PCI): nothing places it
     * elsewhere, so it may be the disk we booted from. */
    if (boot->has_pci && !d->has_pci)
        return true;
    /* No firmware answer: a location that names no port makes every disk
     * on its controller count as the boot disk. */
    return same_port || (same_ctrl && !boot->has_port);
}

/* Does the disk carry its controller's serial: an NVMe namespace, natively
 * (the driver says so) or as the firmware's device path names it? */
static bool carries_controller_serial(const struct bm_disk *d)
{
    return d->controller_serial || strstr(fwblk_device_path(d), "/NVMe(") != NULL;
}

/* The facts about disks[i] and the permission that follows from them. */
void disk_decide_writes(const struct config *c, struct bm_disk *const *disks, unsigned n,
                        const struct plat_boot_location *boot, const struct plat_boot_location *results,
                        struct disk_write_decision *out)
{
    for (unsigned i = 0; i < n; i++) {
        struct bm_disk *d = disks[i];
        struct disk_write_decision *w = &out[i];
        int fw = fwblk_boot_disk(d);
        enum boot_answer ans = fw < 0 ? BOOT_UNKNOWN : fw ? BOOT_YES : BOOT_NO;

        memset(w, 0, sizeof(*w));
        /* Another disk with this serial: write= names a serial, and could
         * mean either (the first one found is named in the refusal). */
        for (unsigned k = 0; k < n && !w->facts.serial_twin; k++)
            if (k != i && disk_serials_clash(d, carries_controller_serial(d), disks[k],
                                             carries_controller_serial(disks[k])))
                w->facts.serial_twin = disks[k]->id;

        w->facts.boot = disk_holds_boot(d, boot, ans);
        /* The results volume may be another one (out=LABEL:\path). The
         * firmware's exact answer is about the boot volume only, so this
         * one is matched by controller and port (a location without a port
         * protects every disk on its controller). */
        w->facts.results = results->has_volume && disk_holds_boot(d, results, BOOT_UNKNOWN);
        w->facts.results_by_controller = w->facts.results && !results->has_port;
        w->facts.read_only = fwblk_read_only(d);
        w->perm = disk_write_permission(c, d->serial, &w->facts, w->refusal, sizeof(w->refusal));
    }
}
