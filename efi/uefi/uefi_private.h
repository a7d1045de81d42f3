/* What the files of the UEFI platform layer (efi/uefi/) share with each
 * other and with nothing else. The seam itself is efi/platform.h; what
 * other UEFI-only code may use is efi/platform_uefi.h. Each file here owns
 * its own state; the functions below are how the others reach it. */
#ifndef BAREMARK_UEFI_PRIVATE_H
#define BAREMARK_UEFI_PRIVATE_H

#include "../platform_uefi.h"

/* ucs2_uefi.c: firmware strings to ASCII ('?' for the rest), and paths to
 * UCS-2 with '/' turned into '\'. */
void uefi_ucs2_to_ascii(char *dst, size_t cap, const CHAR16 *src, size_t max_chars);
void uefi_ascii_to_ucs2(CHAR16 *dst, size_t cap, const char *src);

/* What plat_init (start_uefi.c) starts, in this order. */
void uefi_clock_init(void);                                   /* clock_uefi.c, clock_aa64.c */
void uefi_cpus_init(void);                                    /* cpus_uefi.c */
/* plat_exit: stop the cores started without MP services (Arm, PSCI). */
void uefi_cpus_stop(void);                                    /* cpus_uefi.c */

#if defined(__aarch64__)
/* cpus_psci_aa64.c: cores started through PSCI CPU_ON where the firmware
 * has no MP services. psci_cpus_start: the cores it started (their MPIDRs
 * into mpidrs), core k being psci_cpu_post's k. */
#define PSCI_MAX_CORES 255
unsigned psci_cpus_start(uint64_t self_mpidr, uint64_t *mpidrs, unsigned max);
int psci_cpu_post(unsigned core, unsigned index, plat_cpu_fn fn, void *arg);
bool psci_cpu_idle(unsigned core);
void psci_cpus_stop(void);
#endif

/* clock_scale_uefi.c: what the two UEFI clocks share once uefi_clock_init
 * has calibrated its counter (clock_uefi.c: the TSC; clock_aa64.c:
 * CNTVCT_EL0): the rate, the reading plat_now_ns() counts from, and
 * ns = ticks * ns_mult >> 32, a multiply per reading, not a 128-bit
 * division (a libgcc call of dozens of cycles, on every I/O's clock).
 * Hidden: plat_now_ns() reaches it PC-relative, not through the GOT. */
struct uefi_clock {
    uint64_t hz, base, ns_mult;
    const char *source;         /* plat_clock_source(): "none" until set */
};
extern struct uefi_clock uefi_clock __attribute__((visibility("hidden")));
void uefi_clock_set(uint64_t hz, uint64_t base, const char *source);
/* A counter reading as ns since uefi_clock.base: what plat_now_ns() is. */
static inline uint64_t uefi_clock_ns(uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)(ticks - uefi_clock.base) * uefi_clock.ns_mult) >> 32);
}

void uefi_load_options_init(const EFI_LOADED_IMAGE *image);   /* load_options_uefi.c */
void uefi_boot_volume_open(EFI_HANDLE device);                /* boot_volume_uefi.c */

/* netboot_uefi.c: the firmware's PXE base code on the boot device. */
bool uefi_has_pxe_base_code(EFI_HANDLE device);
void uefi_pxe_open(EFI_HANDLE device);
long uefi_tftp_read(const char *name, char *buf, size_t cap);
size_t uefi_tftp_describe(char *buf, size_t cap);
size_t uefi_tftp_error(char *buf, size_t cap);
bool uefi_pxe_station(uint8_t ip[4]);
bool uefi_boot_nic_mac(EFI_HANDLE device, uint8_t mac[6]);
bool uefi_pxe_addresses(uint8_t station[4], uint8_t mask[4], uint8_t router[4]);

/* volumes_uefi.c: FAT volumes. */
EFI_FILE_HANDLE uefi_open_root(EFI_HANDLE h, bool *read_only, char *label, size_t label_len);
EFI_FILE_HANDLE uefi_find_writable_volume(const char *label, EFI_HANDLE *handle_out);

/* boot_volume_uefi.c: the device the image was loaded from and its root
 * directory (NULL when it has no file system). */
EFI_HANDLE uefi_boot_device(void);
EFI_FILE_HANDLE uefi_boot_root(void);
/* A whole file of a volume: bytes read, BM_ENODEV when it is not there. */
long uefi_read_file(EFI_FILE_HANDLE root, const char *path, char *buf, size_t cap);
void uefi_boot_volume_close(void);

/* results_file_uefi.c: close the results volume unless it is the boot
 * volume (closed by uefi_boot_volume_close). */
void uefi_results_close(void);

/* console_uefi.c: colours, cursor and (restore_mode) the text mode back
 * as they were before the results screen. */
void uefi_console_restore(bool restore_mode);

/* devpath_uefi.c: where the disk under a volume's device handle sits. */
void uefi_volume_location(EFI_HANDLE volume, bool has_volume, struct plat_boot_location *loc);

#endif
