/* AHCI host and ATA drive quirks that change what a benchmark may ask
 * (Linux drivers/ata/ahci.c ahci_pci_tbl / ahci_port_info host flags and
 * drivers/ata/libata-core.c __ata_dev_quirks). Pure: IDs and strings in,
 * flags out; the driver applies them and names each in the disk record. */
#ifndef BAREMARK_AHCI_QUIRKS_H
#define BAREMARK_AHCI_QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

/* The HBA sets CAP.S64A but truncates addresses to 32 bits (ATI SB600;
 * Linux AHCI_HFLAG_32BIT_ONLY clears HOST_CAP_64 in ahci_save_initial_config()). */
#define AHCI_HQUIRK_32BIT_ONLY (1u << 0)
/* The HBA sets CAP.SNCQ but its NCQ does not work (Marvell 88SE6121/6145,
 * VIA VT8251; Linux AHCI_HFLAG_NO_NCQ clears HOST_CAP_NCQ). */
#define AHCI_HQUIRK_NO_NCQ (1u << 1)
/* At most 255 sectors a command (SB600; Linux AHCI_HFLAG_SECT255,
 * ahci_sb600_sht .max_sectors = 255). */
#define AHCI_HQUIRK_SECT255 (1u << 2)
#define AHCI_SECT255_SECTORS 255u

/* Host quirks of an AHCI function by PCI vendor and device ID (0: none). */
uint32_t ahci_host_quirks(uint16_t vendor, uint16_t device);

/* The drive's NCQ is broken or slow: queue nothing (ATA_QUIRK_NONCQ). */
#define ATA_DQUIRK_NONCQ (1u << 0)
/* At most 128 / 1024 sectors of 512 bytes a command (ATA_QUIRK_MAX_SEC_128,
 * ATA_QUIRK_MAX_SEC_1024: silent corruption or timeouts above). */
#define ATA_DQUIRK_MAX_SEC_128 (1u << 1)
#define ATA_DQUIRK_MAX_SEC_1024 (1u << 2)
/* NCQ fails on ATI (AMD SB7x0-SB9x0) SATA hosts: queue nothing there
 * (ATA_QUIRK_NO_NCQ_ON_ATI, checked against the host's PCI vendor by
 * ata_dev_config_ncq() through ata_dev_check_adapter()). */
#define ATA_DQUIRK_NO_NCQ_ON_ATI (1u << 3)
#define ATA_PCI_VENDOR_ATI 0x1002u

/* Drive quirks by IDENTIFY model and firmware strings (trailing blanks
 * trimmed), matched as Linux ata_dev_quirks() does: the model with
 * glob_match(), then the firmware when the entry names one. */
uint32_t ata_dev_quirks(const char *model, const char *firmware);

/* Linux lib/glob.c glob_match(): '*', '?', and '[...]' classes with
 * ranges and a leading '!' or '^'. */
bool ata_glob_match(const char *pat, const char *str);

#endif
