/* Files on a BIOS PC (the options, the loader's command line, are
 * load_options_bios.c's). Files are on the stick we booted from, read
 * through INT 13h and the FAT reader (stick_bios.c):
 * \baremark\baremark.cfg (or the loader's initrd, for PXE), and the one
 * results file there is, the preallocated \baremark\results\bios.jsonl,
 * written in place. Without a stick (PXE, another loader's disk) results go
 * to serial and the screen, saying so in a note. */
#include "bios_private.h"

long plat_boot_file_read(const char *path, char *buf, size_t cap) { return bios_stick_file_read(path, buf, cap); }

const char *plat_boot_source(void) { return bios_stick() ? "disk" : "unknown"; }

bool plat_boot_volume_writable(void) { return bios_results_available(); }

static bool has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);

    return n >= k && !bm_strcasecmp(path + n - k, suffix);
}

/* The only files: the results .jsonl goes into the preallocated bios.jsonl
 * and its .html report into bios.html (their names on the stick stay
 * those); anything else cannot be made. */
void *plat_file_create(const char *path)
{
    if (strchr(path, ':'))
        return NULL;
    if (has_suffix(path, ".jsonl"))
        return bios_results_create(path);
    if (has_suffix(path, ".html"))
        return bios_report_create();
    return NULL;
}
void plat_file_stored_as(const char *path, char *out, size_t cap)
{
    if (has_suffix(path, ".html"))
        bm_strlcpy(out, BIOS_REPORT_PATH, cap);
    else
        bios_results_describe(out, cap);
}

int plat_file_write(void *f, const void *data, size_t len) { return bios_results_write(f, data, len); }
int plat_file_flush(void *f) { return bios_results_flush(f, false); }
void plat_file_close(void *f) { bios_results_flush(f, true); }

/* The stick, when INT 13h told which drive it is (stick_bios.c). Its
 * controller (EDD 3.0 PCI path) is then left to the firmware by discovery,
 * as on UEFI. A stick without a PCI path (SeaBIOS gives none for USB or
 * AHCI) is told apart from the native disks by fwblk_boot_disk(): a native
 * disk of the stick's capacity counts as the stick. No stick found: every
 * disk counts as the boot disk. */
void plat_boot_location(struct plat_boot_location *loc)
{
    struct bios_drive *d = bios_stick();

    memset(loc, 0, sizeof(*loc));
    if (!d) {
        loc->disk_unknown = true;
        bm_strlcpy(loc->description, "legacy BIOS boot loader (drive not known)", sizeof(loc->description));
        return;
    }
    loc->has_volume = true;
    loc->has_pci = d->params.has_pci;
    loc->pci = d->params.pci;
    bios_drive_describe(d, loc->description, sizeof(loc->description));
}

void plat_results_location(struct plat_boot_location *loc)
{
    if (bios_results_is_open())
        plat_boot_location(loc);
    else
        memset(loc, 0, sizeof(*loc));
}

size_t plat_boot_file_places(char *buf, size_t cap)
{
    struct bios_drive *d = bios_stick();

    if (d)
        return (size_t)snprintf(buf, cap, "the stick (INT 13h drive %02xh: \\baremark\\, then its root), then the "
                                          "loader's initrd",
                                d->dl);
    return (size_t)snprintf(buf, cap, "the loader's initrd (legacy BIOS: the boot drive is not known)");
}

/* Files come from the stick or the loader's initrd: no server to quote. */
size_t plat_boot_file_error(char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    return 0;
}

long plat_results_file_read(const char *path, char *buf, size_t cap) { return BM_ENODEV; }

/* No network stack under a legacy BIOS (the PXE ROM's UDP/TFTP API is not
 * used): upload= ends in its error record at once. */
long plat_tcp_exchange(const uint8_t ip[4], uint16_t port, const void *head, size_t head_len, const void *body,
                       size_t body_len, char *resp, size_t resp_cap, uint64_t deadline_ns, char *why, size_t why_len)
{
    snprintf(why, why_len, "no TCP/IPv4 stack under a legacy BIOS");
    return BM_ENODEV;
}
