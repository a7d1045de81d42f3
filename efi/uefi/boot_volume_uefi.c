/* The boot volume: the device the image was loaded from, the files on it
 * (or on the TFTP server it came from), and where it is. */
#include "uefi_private.h"

static EFI_HANDLE boot_device;             /* the loaded image's device handle */
static EFI_FILE_HANDLE boot_root;          /* NULL: no file system on it */
static bool boot_root_writable;
static const char *boot_source = "unknown";
static bool last_from_tftp;                /* the last boot file read ended at the TFTP server */

/* Open the file system and the PXE base code of the device the image was
 * loaded from, and tell how we were booted. */
void uefi_boot_volume_open(EFI_HANDLE device)
{
    bool ro = true;
    char label[64];

    boot_device = device;
    boot_root = NULL;
    boot_root_writable = false;
    if (!device)
        return;
    boot_root = uefi_open_root(device, &ro, label, sizeof(label));
    boot_root_writable = boot_root && !ro;
    uefi_pxe_open(device);
    if (uefi_has_pxe_base_code(device))
        boot_source = boot_root ? "ipxe" : "pxe";
    else if (boot_root)
        boot_source = "disk";
}

const char *plat_boot_source(void) { return boot_source; }

long uefi_read_file(EFI_FILE_HANDLE root, const char *path, char *buf, size_t cap)
{
    CHAR16 wpath[256];
    EFI_FILE_HANDLE f;
    UINTN size = cap;
    EFI_STATUS st;

    uefi_ascii_to_ucs2(wpath, ARRAY_SIZE(wpath), path);
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
        return BM_ENODEV;
    st = uefi_call_wrapper(f->Read, 3, f, &size, buf);
    uefi_call_wrapper(f->Close, 1, f);
    return st == EFI_SUCCESS ? (long)size : BM_EIO;
}

long plat_boot_file_read(const char *path, char *buf, size_t cap)
{
    const char *base = strrchr(path, '\\');
    long n = BM_ENODEV;

    base = base ? base + 1 : path;
    if (boot_root) {
        n = uefi_read_file(boot_root, path, buf, cap);
        if (n == BM_ENODEV)
            n = uefi_read_file(boot_root, base, buf, cap);
    }
    last_from_tftp = n == BM_ENODEV;
    if (n == BM_ENODEV)
        n = uefi_tftp_read(base, buf, cap);
    return n;
}

size_t plat_boot_file_places(char *buf, size_t cap)
{
    char tftp[160];

    buf[0] = '\0';
    if (boot_root)
        snprintf(buf, cap, "%s volume (\\baremark\\, then its root)",
                 strcmp(boot_source, "ipxe") ? "the boot" : "iPXE's");
    if (uefi_tftp_describe(tftp, sizeof(tftp)))
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", buf[0] ? ", " : "", tftp);
    if (!buf[0])
        bm_strlcpy(buf, "nowhere (no boot volume, no boot server)", cap);
    return strlen(buf);
}

bool plat_boot_nic_mac(uint8_t mac[6]) { return uefi_boot_nic_mac(boot_device, mac); }

bool plat_boot_nic_ip(uint8_t ip[4]) { return uefi_pxe_station(ip); }

size_t plat_boot_file_error(char *buf, size_t cap)
{
    if (!last_from_tftp) {
        buf[0] = '\0';
        return 0;
    }
    return uefi_tftp_error(buf, cap);
}

bool plat_boot_volume_writable(void) { return boot_root && boot_root_writable; }

void plat_boot_location(struct plat_boot_location *loc)
{
    uefi_volume_location(boot_device, boot_root != NULL, loc);
}

EFI_HANDLE uefi_boot_device(void) { return boot_device; }
EFI_FILE_HANDLE uefi_boot_root(void) { return boot_root; }

void uefi_boot_volume_close(void)
{
    if (boot_root) {
        uefi_call_wrapper(boot_root->Close, 1, boot_root);
        boot_root = NULL;
    }
}
