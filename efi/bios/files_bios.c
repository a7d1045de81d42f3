/* Options and files on a BIOS PC. The options are the boot loader's
 * command line (cmd_line_ptr in the setup header). Files are on the stick
 * we booted from, read through INT 13h and the FAT reader (stick_bios.c):
 * \baremark\baremark.cfg (or the loader's initrd, for PXE), and the one
 * results file there is, the preallocated \baremark\results\bios.jsonl,
 * written in place. Without a stick (PXE, another loader's disk) results go
 * to serial and the screen, saying so in a note. */
#include "bios_private.h"
#include "../netboot.h"

#define CMDLINE_MAX 4096

static char cmdline[CMDLINE_MAX + 16];

/* The GPT disk GUID of the stick we booted from: boot/mkimage.sh puts it on
 * the SYSLINUX APPEND line as baremark_stick=GUID ("" when absent). */
static char stick_guid[40];

/* The boot NIC as the loader names it: PXELINUX's BOOTIF=01-<MAC> (IPAPPEND
 * 2) and ip=<client>[:server:gateway:netmask] (IPAPPEND 1); iPXE scripts
 * write the same from ${netX/mac:hexhyp} and ${netX/ip}
 * (boot/baremark-bios.ipxe). */
static uint8_t nic_mac[6], nic_ip[4];
static bool nic_mac_known, nic_ip_known;

/* SYSLINUX and GRUB put these words of their own first; baremark_stick= is
 * boot/mkimage.sh's, for the platform and not an option. */
static bool loader_word(const char *w)
{
    size_t wl = 0, il = 0;

    while (w[wl] && w[wl] != ' ')
        wl++;
    while (il + 3 < wl && w[3 + il] != ':')
        il++;

    if (!strncmp(w, "BOOTIF=", 7)) {
        nic_mac_known = netboot_parse_bootif(w + 7, wl - 7, nic_mac);
        return true;
    }
    if (!strncmp(w, "ip=", 3)) {
        nic_ip_known = netboot_parse_ipv4(w + 3, il, nic_ip);
        return true;
    }
    if (!strncmp(w, "baremark_stick=", 15)) {
        size_t n = 0;
        while (w[15 + n] && w[15 + n] != ' ')
            n++;
        if (n < sizeof(stick_guid)) {
            memcpy(stick_guid, w + 15, n);
            stick_guid[n] = '\0';
        }
        return true;
    }
    return !strncmp(w, "BOOT_IMAGE=", 11) || !strncmp(w, "initrd=", 7);
}

const char *bios_stick_guid(void) { return stick_guid; }

/* Copy the command line out of the loader's memory (we will reuse it),
 * dropping the loader's own words and leading with the image name, as the
 * UEFI shell and iPXE do (config_parse_args skips that first word). A line
 * too long to hold is kept too long, so that config refuses it whole. */
void bios_load_options_init(const uint8_t *zero_page)
{
    uint32_t ptr;
    const char *s;
    size_t n = 0;

    bios_initrd_init(zero_page);
    memcpy(&ptr, zero_page + ZP_CMD_LINE_PTR, sizeof(ptr));
    bm_strlcpy(cmdline, "baremark", sizeof(cmdline));
    if (!ptr)
        return;
    n = strlen(cmdline);
    for (s = (const char *)(uintptr_t)ptr; *s;) {
        const char *w;
        while (*s == ' ')
            s++;
        w = s;
        while (*s && *s != ' ')
            s++;
        if (s == w || loader_word(w))
            continue;
        if (n + 1 + (size_t)(s - w) >= sizeof(cmdline) - 1) {
            /* Longer than any valid line: config_parse_args says so. */
            memset(cmdline + n, 'x', sizeof(cmdline) - 1 - n);
            cmdline[sizeof(cmdline) - 1] = '\0';
            return;
        }
        cmdline[n++] = ' ';
        memcpy(cmdline + n, w, (size_t)(s - w));
        n += (size_t)(s - w);
        cmdline[n] = '\0';
    }
}

const char *plat_load_options(void) { return cmdline; }

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
        return bios_results_create();
    if (has_suffix(path, ".html"))
        return bios_report_create();
    return NULL;
}
void plat_file_stored_as(const char *path, char *out, size_t cap)
{
    bm_strlcpy(out, has_suffix(path, ".html") ? BIOS_REPORT_PATH : BIOS_RESULTS_PATH, cap);
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
    loc->has_pci = d->has_pci;
    loc->pci = d->pci;
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

bool plat_boot_nic_mac(uint8_t mac[6])
{
    if (nic_mac_known)
        memcpy(mac, nic_mac, 6);
    return nic_mac_known;
}

bool plat_boot_nic_ip(uint8_t ip[4])
{
    if (nic_ip_known)
        memcpy(ip, nic_ip, 4);
    return nic_ip_known;
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
