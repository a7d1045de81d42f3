/* Who may be written: the rules that keep user data safe. Pure, tested.
 *
 * A disk is written only when its serial is listed in write= (an empty
 * serial never matches), and never when it holds the volume baremark was
 * loaded from or the volume its results go to, nor when another disk
 * reports the same serial (write= could mean either), nor when the
 * firmware says its medium is read-only. */
#ifndef BAREMARK_DISK_SAFETY_H
#define BAREMARK_DISK_SAFETY_H

#include "../config.h"
#include "../../drivers/blkdev.h"

/* What the engine knows about a disk beyond struct bm_disk. */
struct disk_facts {
    bool boot;        /* holds the volume the app was loaded from */
    bool results;     /* holds the volume the results file is written to */
    bool results_by_controller; /* results only because the results volume's location names its
                                 * controller and no port (USB): any disk there may hold it */
    bool read_only;   /* the medium is write-protected */
    const char *serial_twin; /* id of another disk with the same serial, NULL if none (see disk_serials_clash) */
};

enum write_perm {
    WRITE_NOT_LISTED = 0,  /* read-only run, nothing to say */
    WRITE_ALLOWED,         /* listed and no rule against it */
    WRITE_REFUSED,         /* listed, but a rule forbids it: reason says which */
};

/* May this disk be written? reason gets a sentence for WRITE_REFUSED. */
enum write_perm disk_write_permission(const struct config *c, const char *serial, const struct disk_facts *f,
                                      char *reason, size_t reason_len);

/* Do disks a and b report the same serial without being namespaces of
 * one NVMe controller? Then write= cannot tell them apart: two USB
 * enclosures whose bridge gives every unit one serial, cloned drives, one
 * disk reached through two paths. Namespaces (a_ns, b_ns: the caller
 * knows the disk is an NVMe namespace) share their controller's serial
 * by design, and are told apart by controller and namespace id. */
bool disk_serials_clash(const struct bm_disk *a, bool a_ns, const struct bm_disk *b, bool b_ns);

/* Firmware's own answer to "is this the boot disk?", when it has one. */
enum boot_answer { BOOT_UNKNOWN = 0, BOOT_YES, BOOT_NO };

/* Does disk d hold the boot volume? The firmware path compares device
 * paths (fw); a "yes" is final, a "no" is overruled when controller and
 * port match the boot location. Without a firmware answer the controller
 * and port decide, and a boot location that names no port makes every
 * disk on that controller count as the boot disk; so does a disk with no
 * PCI location when the boot location has one (nothing rules it out). */
bool disk_holds_boot(const struct bm_disk *d, const struct plat_boot_location *boot, enum boot_answer fw);

/* What was decided for one disk, and why. */
struct disk_write_decision {
    struct disk_facts facts;
    enum write_perm perm;
    char refusal[200];    /* the rule that refused it (WRITE_REFUSED) */
};

/* Gather the facts of each of the n disks (boot and results volumes, the
 * firmware's read-only flag, serial twins among them) and decide, into
 * out[i], whether disks[i] may be written. boot: where the app was loaded
 * from; results: where the results file goes. */
void disk_decide_writes(const struct config *c, struct bm_disk *const *disks, unsigned n,
                        const struct plat_boot_location *boot, const struct plat_boot_location *results,
                        struct disk_write_decision *out);

#endif
