/* Write-safety rules (see safety.h). */
#include "safety.h"

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
    if (f->results) {
        snprintf(reason, reason_len, "it holds the volume the results are written to");
        return WRITE_REFUSED;
    }
    if (f->read_only) {
        snprintf(reason, reason_len, "the firmware reports its medium as read-only");
        return WRITE_REFUSED;
    }
    return WRITE_ALLOWED;
}

static bool same_pci(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

bool disk_holds_boot(const struct bm_disk *d, const struct plat_boot_location *boot, enum boot_answer fw)
{
    if (fw != BOOT_UNKNOWN)
        return fw == BOOT_YES;
    /* has_volume is not required: a disk the app was loaded from stays
     * protected even when its file system could not be opened. */
    if (!boot->has_pci || !d->has_pci || !same_pci(d->pci_addr, boot->pci))
        return false;
    /* Same controller: only a port on both sides can tell two disks apart. */
    if (!boot->has_port)
        return true;
    return d->port == boot->port && d->lun == boot->lun;
}
