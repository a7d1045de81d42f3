/* ATA command set facts and pure parsers: the IDENTIFY DEVICE data, the NCQ
 * command error log, the status and error registers (ACS-3, T13/2161-D), and
 * the Register Host-to-Device FIS that carries a command (SATA 3.x section
 * 10.5.5). Nothing here touches hardware, so all of it runs in unit tests. */
#ifndef BAREMARK_ATA_H
#define BAREMARK_ATA_H

#include "../../efi/platform.h"

/* ---- Commands (ACS-3 table B.2) -------------------------------------------------- */

#define ATA_CMD_READ_DMA 0xc8       /* 28-bit LBA, 8-bit count (0 = 256) */
#define ATA_CMD_WRITE_DMA 0xca
#define ATA_CMD_READ_DMA_EXT 0x25
#define ATA_CMD_READ_LOG_EXT 0x2f
#define ATA_CMD_WRITE_DMA_EXT 0x35
#define ATA_CMD_READ_FPDMA_QUEUED 0x60
#define ATA_CMD_WRITE_FPDMA_QUEUED 0x61
#define ATA_CMD_IDENTIFY_DEVICE 0xec
#define ATA_CMD_SET_FEATURES 0xef
#define  ATA_SF_SPINUP 0x07             /* FEATURES: spin up a Power-Up-In-Standby drive */
#define ATA_CMD_SMART 0xb0
#define  ATA_SMART_READ_DATA 0xd0       /* FEATURES: read the attribute table */
#define  ATA_SMART_READ_THRESHOLDS 0xd1 /* FEATURES: the thresholds (obsolete in ACS, kept by drives) */
#define  ATA_SMART_LBA_SIGNATURE 0xc24f00ull /* LBA mid 4Fh, LBA high C2h (ACS-3 section 7.48) */

#define ATA_LOG_NCQ_ERROR 0x10     /* NCQ command error log (ACS-3 section 9.13) */
#define ATA_SECTOR_BYTES 512       /* IDENTIFY data and log pages are 512 bytes */

/* 28-bit commands (READ/WRITE DMA): LBA 27:0, LBA 27:24 in the device
 * register, and a count of at most 256 sectors (ACS-3 READ DMA, WRITE DMA). */
#define ATA_LBA28_LIMIT (1ull << 28)
#define ATA_LBA28_MAX_BLOCKS 256u

/* ---- Status and error registers (ACS-3 section 6.2, 6.3) ---------------------------- */

#define ATA_STS_ERR 0x01           /* an error occurred: see the error register */
#define ATA_STS_DRQ 0x08           /* data request */
#define ATA_STS_DF 0x20            /* device fault */
#define ATA_STS_DRDY 0x40          /* device ready */
#define ATA_STS_BSY 0x80           /* busy */

#define ATA_ERR_ABRT 0x04          /* command aborted (unsupported, or for another reason) */
#define ATA_ERR_IDNF 0x10          /* ID not found: the LBA is out of range or unreadable */
#define ATA_ERR_UNC 0x40           /* uncorrectable data error */
#define ATA_ERR_ICRC 0x80          /* interface CRC error during an Ultra DMA transfer */

/* ---- Register Host-to-Device FIS (SATA 3.x section 10.5.5) ---------------------------- */

#define SATA_FIS_TYPE_H2D 0x27
#define SATA_FIS_TYPE_D2H 0x34    /* Register Device-to-Host FIS (section 10.5.6): same LBA bytes */
#define SATA_FIS_H2D_BYTES 20
#define SATA_FIS_H2D_DWORDS 5
#define SATA_FIS_H2D_C 0x80        /* byte 1: this FIS carries a command */
#define ATA_DEV_LBA 0x40           /* device register: LBA addressing (must be 1 for NCQ) */
#define ATA_DEV_FUA 0x80           /* device register of FPDMA QUEUED: forced unit access */
#define ATA_NCQ_TAG_SHIFT 3        /* FPDMA QUEUED: tag in COUNT bits 7:3 */
#define ATA_NCQ_TAGS 32

/* Byte offsets in the FIS. */
enum {
    FIS_TYPE = 0, FIS_FLAGS = 1, FIS_COMMAND = 2, FIS_FEATURE_LO = 3,
    FIS_LBA0 = 4, FIS_LBA1 = 5, FIS_LBA2 = 6, FIS_DEVICE = 7,
    FIS_LBA3 = 8, FIS_LBA4 = 9, FIS_LBA5 = 10, FIS_FEATURE_HI = 11,
    FIS_COUNT_LO = 12, FIS_COUNT_HI = 13, FIS_ICC = 14, FIS_CONTROL = 15,
};

/* A 48-bit command: every register explicit. count and features are the
 * 16-bit register values (0 in a count means 65536 where ACS says so). */
void ata_fis_h2d(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t command, uint16_t features, uint64_t lba,
                 uint16_t count, uint8_t device);
/* READ/WRITE FPDMA QUEUED: block count in FEATURES, tag in COUNT 7:3
 * (ACS-3 sections 7.22, 7.61). blocks is 1..65536. */
void ata_fis_fpdma(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, unsigned tag, uint64_t lba, uint32_t blocks);
/* READ/WRITE DMA EXT: block count in COUNT (ACS-3 sections 7.23, 7.62). */
void ata_fis_dma_ext(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, uint64_t lba, uint32_t blocks);
/* READ/WRITE DMA, the 28-bit commands of a disk without the 48-bit
 * Address feature set: LBA 23:0 in the LBA bytes, 27:24 in the device
 * register, 1..256 blocks (256 encoded as 0). BM_EINVAL, and no FIS, for
 * an LBA or count a 28-bit command cannot carry. */
int ata_fis_dma28(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, uint64_t lba, uint32_t blocks);
/* SET FEATURES (non-data): subcommand in FEATURES. */
void ata_fis_set_features(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t subcommand);
/* SMART READ DATA / READ THRESHOLDS (PIO data-in, one 512-byte block). */
void ata_fis_smart(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t feature);
/* Decode the SMART attribute table (and thresholds, may be NULL) into a
 * health report: every attribute, plus temperature (194, else 190),
 * power-on hours (9) and power cycles (12). The table layout is the one
 * every vendor uses: 30 entries of 12 bytes from byte 2 (id, flags,
 * value, worst, 6 raw bytes, reserved); thresholds: id, threshold. */
struct bm_health;
void ata_parse_smart(const uint8_t data[ATA_SECTOR_BYTES], const uint8_t *thresholds, struct bm_health *h);
/* IDENTIFY DEVICE (PIO data-in, one 512-byte block). */
void ata_fis_identify(uint8_t fis[SATA_FIS_H2D_BYTES]);
/* READ LOG EXT of one page: log address in LBA 7:0, page in LBA 15:8. */
void ata_fis_read_log_ext(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t log, uint16_t page, uint16_t pages);

/* ---- IDENTIFY DEVICE data (ACS-3 section 7.12.7) -------------------------------------- */

struct ata_identity {
    char model[41];                /* words 27-46 */
    char serial[21];               /* words 10-19 */
    char firmware[9];              /* words 23-26 */
    bool lba48;                    /* word 83 bit 10 and words 100-103 set: 48-bit addressing */
    uint64_t blocks;               /* logical sectors: words 100-103, or 60-61 without lba48 */
    uint32_t logical_bytes;        /* word 106 bit 12, words 117-118; else 512 */
    uint32_t physical_bytes;       /* word 106 bit 13, bits 3:0: 2^n logical per physical */
    bool ncq;                      /* word 76 bit 8 */
    double sata_max_gbps;          /* word 76 bits 3:1: highest SATA generation supported (1.5/3/6), 0 unknown */
    unsigned ncq_depth;            /* word 75 bits 4:0, plus one */
    bool gpl;                      /* word 84/87 bit 5: general purpose logging (READ LOG EXT) */
    bool dma;                      /* word 49 bit 8: DMA commands (a PIO-only CF card clears it) */
};

/* Parse a 512-byte IDENTIFY DEVICE block. BM_EINVAL if it is not an ATA
 * device's data (word 0 bit 15), its integrity word (255) is wrong, or it
 * names no usable capacity or sector size. */
int ata_parse_identify(const uint8_t data[ATA_SECTOR_BYTES], struct ata_identity *id);

/* Power-Up In Standby (ACS-3 PUIS feature set; IDENTIFY word 2): a
 * drive that powered up in Standby and wants SET FEATURES spin-up (07h)
 * before media access says so in word 2 of its IDENTIFY data. */
enum ata_puis {
    ATA_PUIS_NONE,                 /* spun up, or spins up by itself on media access */
    ATA_PUIS_SPINUP_INCOMPLETE,    /* 37C8h: needs spin-up; this IDENTIFY data is incomplete */
    ATA_PUIS_SPINUP_COMPLETE,      /* 738Ch: needs spin-up; this IDENTIFY data is complete */
};
#define ATA_ID2_PUIS_SPINUP_INCOMPLETE 0x37c8
#define ATA_ID2_PUIS_SPINUP_COMPLETE 0x738c
enum ata_puis ata_identify_puis(const uint8_t data[ATA_SECTOR_BYTES]);

/* Copy an ATA string: each 16-bit word holds two characters, the first in
 * the high byte. Padding dropped. */
void ata_copy_string(char *dst, size_t cap, const uint8_t *words, size_t nwords);

/* ---- NCQ command error log (ACS-3 section 9.13) ------------------------------------------ */

struct ata_ncq_error {
    bool nq;                       /* the error was in a non-queued command: tag invalid */
    unsigned tag;
    uint8_t status, error;
    uint64_t lba;
    bool bad_checksum;             /* byte 511 does not make the page sum to 0 (parsed all the same) */
};

/* Parse log page 10h. A wrong checksum (byte 511) is only noted in
 * bad_checksum: as Linux ata_eh_read_log_10h(), which warns and uses the
 * page (reading it already took the device out of its NCQ error state;
 * a COMRESET for a bad checksum would throw away the failing tag). */
int ata_parse_ncq_error_log(const uint8_t page[ATA_SECTOR_BYTES], struct ata_ncq_error *e);

/* ---- Decoded errors ------------------------------------------------------------------------------- */

/* "UNC sts 0x51 err 0x40 lba 1234" for a completion's detail: the error
 * register's named bits (or DF, or ERR alone), the raw registers, and the
 * failing LBA when known. Returns dst. */
char *ata_describe_error(char *dst, size_t cap, uint8_t status, uint8_t error, bool has_lba, uint64_t lba);

#endif
