/* The options on a BIOS PC: the boot loader's command line (cmd_line_ptr
 * in the setup header), copied out first thing, without the loader's own
 * words; and the one word of it that is not an option, boot/mkimage.sh's
 * baremark_stick=GUID, which tells stick_bios.c which drive is the stick,
 * and the boot NIC's BOOTIF= and ip= words. (On UEFI: load_options_uefi.c.) */
#include "../netboot.h"
#include "bios_private.h"

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
 * boot/mkimage.sh's, BOOTIF= and ip= the PXE loader's, for the platform and
 * not options. */
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

/* The baremark_stick= word of the loader's command line ("" if none). */
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

/* The options: the loader's command line, its own words dropped. */
const char *plat_load_options(void) { return cmdline; }

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
