/* The SCSI layer shared by every path that speaks SCSI to a disk: the
 * MegaRAID and MPT drivers and the firmware's Extended SCSI Pass Thru.
 *
 * Three parts:
 *   - CDB builders and data parsers (pure functions, unit tested on the host);
 *   - sense decoding into a key/ASC/ASCQ and readable text;
 *   - identification over a transport: a small "execute one CDB and wait"
 *     callback each path provides, used at probe time (INQUIRY, VPD 80h
 *     serial, TEST UNIT READY, READ CAPACITY).
 * The I/O fast path does not go through the transport: drivers build READ
 * and WRITE CDBs with scsi_build_rw() straight into their own frames.
 */
#ifndef BAREMARK_SCSI_H
#define BAREMARK_SCSI_H

#include "../../efi/platform.h"
#include "../blkdev.h"
#include "scsi_spc.h"

/* ---- CDB builders ---------------------------------------------------------------- */

/* Each writes a zero-filled CDB into cdb (16 bytes available) and returns
 * its length. */
int scsi_build_test_unit_ready(uint8_t *cdb);
int scsi_build_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc_len);
int scsi_build_read_capacity10(uint8_t *cdb);
int scsi_build_read_capacity16(uint8_t *cdb, uint32_t alloc_len);
int scsi_build_report_luns(uint8_t *cdb, uint32_t alloc_len);
int scsi_build_request_sense(uint8_t *cdb, uint8_t alloc_len);

/* Does this transfer need READ/WRITE(16)? Yes when the disk has more
 * blocks than a 32-bit LBA reaches, when the transfer ends past LBA
 * 0xffffffff, or when it moves more than 65535 blocks. */
bool scsi_rw_needs_16(uint64_t disk_blocks, uint64_t lba, uint32_t blocks);
/* READ/WRITE(10) or (16), whichever scsi_rw_needs_16 says; returns the CDB
 * length (10 or 16). */
int scsi_build_rw(uint8_t *cdb, enum bm_io_op op, uint64_t disk_blocks, uint64_t lba, uint32_t blocks);

/* ---- Parsers ------------------------------------------------------------------------ */

struct scsi_inquiry {
    uint8_t qualifier;      /* peripheral qualifier */
    uint8_t type;           /* peripheral device type */
    bool removable;
    bool cmdque;            /* CMDQUE (byte 7 bit 1): takes tagged commands */
    uint8_t version;        /* VERSION (byte 2): 5 SPC-3, 6 SPC-4 */
    bool protect;           /* PROTECT (byte 5 bit 0): supports protection information */
    char vendor[SCSI_INQ_VENDOR_LEN + 1];
    char product[SCSI_INQ_PRODUCT_LEN + 1];
    char revision[SCSI_INQ_REV_LEN + 1];
};
/* Standard INQUIRY data; BM_EINVAL when shorter than the 36 bytes SPC
 * requires. */
int scsi_parse_inquiry(const uint8_t *data, size_t len, struct scsi_inquiry *out);
/* Is there a disk we can read at this LUN (qualifier 0, SBC or RBC type)? */
bool scsi_inquiry_is_disk(const struct scsi_inquiry *inq);
/* Does a VPD 00h (supported pages) list name this page? */
bool scsi_vpd_lists_page(const uint8_t *data, size_t len, uint8_t page);
/* VPD 80h unit serial number into a trimmed C string; BM_EINVAL if the
 * page is malformed or the serial is blank. */
int scsi_parse_unit_serial(const uint8_t *data, size_t len, char *serial, size_t cap);

/* VPD B0h block limits (SBC-3 6.6.4), in logical blocks; 0: not reported. */
struct scsi_block_limits {
    uint32_t max_xfer_blocks;   /* MAXIMUM TRANSFER LENGTH */
    uint32_t opt_xfer_blocks;   /* OPTIMAL TRANSFER LENGTH */
    uint32_t opt_gran_blocks;   /* OPTIMAL TRANSFER LENGTH GRANULARITY */
};
/* BM_EINVAL (and all zero) for a page that is not B0h or too short to
 * hold the transfer lengths. */
int scsi_parse_block_limits(const uint8_t *data, size_t len, struct scsi_block_limits *out);
/* VPD 83h: the logical unit's world wide name, as Linux scsi_vpd_lun_id
 * prefers it: an NAA designator ("naa." and its hex digits), else an
 * EUI-64 one ("eui."), of the logical unit (not the port or target).
 * BM_EINVAL and "" when the page has neither. */
int scsi_parse_device_id(const uint8_t *data, size_t len, char *wwn, size_t cap);

struct scsi_capacity {
    uint64_t blocks;        /* last LBA + 1 */
    uint32_t block_bytes;   /* logical block length */
    uint32_t phys_bytes;    /* physical block length (block_bytes << LBPPBE) */
    uint8_t pi_type;        /* PROT_EN set: P_TYPE + 1 (T10 PI type 1..3, or more: unknown); else 0 */
    uint32_t align_lba;     /* LOWEST ALIGNED LOGICAL BLOCK ADDRESS */
};
/* READ CAPACITY(10) data. Sets *need16 when the disk is too large for it
 * (returned last LBA 0xffffffff). */
int scsi_parse_capacity10(const uint8_t *data, size_t len, struct scsi_capacity *out, bool *need16);
int scsi_parse_capacity16(const uint8_t *data, size_t len, struct scsi_capacity *out);
/* REPORT LUNS data: up to max single-level LUN numbers (peripheral or flat
 * addressing, SAM-5); returns how many were stored. */
int scsi_parse_report_luns(const uint8_t *data, size_t len, uint32_t *luns, int max);

/* ---- Sense data and status ------------------------------------------------------------ */

struct scsi_sense {
    bool valid;             /* a fixed or descriptor format we understood */
    bool deferred;          /* about an earlier command (0x71 / 0x73) */
    bool descriptor;        /* descriptor format (0x72 / 0x73) */
    uint8_t key, asc, ascq;
    bool info_valid;
    uint64_t info;          /* information field (usually the failing LBA) */
};
/* Decode fixed (70h/71h) or descriptor (72h/73h) sense data. Returns
 * BM_EINVAL (and s->valid false) for anything else. */
int scsi_sense_parse(const uint8_t *data, size_t len, struct scsi_sense *s);
/* "MEDIUM ERROR", "UNIT ATTENTION", ... ("KEY 0xN" for reserved keys). */
const char *scsi_sense_key_name(uint8_t key);
/* Text for the common ASC/ASCQ pairs, NULL when we have none. */
const char *scsi_asc_text(uint8_t asc, uint8_t ascq);
/* "GOOD", "CHECK CONDITION", "BUSY", ... */
const char *scsi_status_name(uint8_t status);
/* One short line for a completion's detail (fits struct bm_completion's
 * 64 bytes): "MEDIUM ERROR 11/00 unrecovered read error", or the status
 * name when there is no usable sense. */
void scsi_describe(uint8_t status, const uint8_t *sense, size_t sense_len, char *out, size_t cap);

/* What a finished engine command's SCSI status and sense say to do: the
 * one table the MFI, Fusion and MPT transports share (hba_disk.c
 * hba_scsi_disposition), after Linux scsi_check_sense and
 * scsi_io_completion_action. */
enum scsi_disposition {
    SCSI_DISP_FAIL = 0,       /* an error: complete it with the decoded sense */
    SCSI_DISP_RECOVERED,      /* RECOVERED ERROR: the command succeeded (count and report it) */
    SCSI_DISP_RETRY,          /* UNIT ATTENTION (a reset, ours included), BUSY, TASK SET FULL: send it again */
    SCSI_DISP_WAIT_READY,     /* NOT READY 04/01 "becoming ready": send it again after a back-off */
};
enum scsi_disposition scsi_disposition(uint8_t status, const uint8_t *sense, size_t sense_len);

/* ---- Commands over a transport ------------------------------------------------------------ */

enum scsi_dir { SCSI_DIR_NONE, SCSI_DIR_IN, SCSI_DIR_OUT };

#define SCSI_SENSE_MAX 96

/* One command for a transport to run to completion. */
struct scsi_cmd {
    uint8_t cdb[16];
    uint8_t cdb_len;
    enum scsi_dir dir;
    void *buf;              /* DMA-able (from plat_alloc_pages, below 4 GiB) */
    uint32_t len;
    uint64_t timeout_ns;
    /* Filled by the transport: */
    uint8_t status;         /* SCSI status */
    uint8_t sense[SCSI_SENSE_MAX];
    uint32_t sense_len;
    uint32_t resid;         /* bytes not transferred, when the transport knows */
};

/* Run cmd and wait for it (bounded by cmd->timeout_ns). Return BM_OK once
 * the target answered with a status (even CHECK CONDITION: the caller
 * looks at cmd->status), or a negative error when the command never
 * reached a status (BM_ENODEV: no such target; BM_ETIMEDOUT; BM_EIO with
 * a reason in detail). */
typedef int (*scsi_exec_fn)(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len);

/* A transport's answer into cmd: the SCSI status, sense (at most
 * SCSI_SENSE_MAX of sense_len bytes; none when sense is NULL) and,
 * when the transport counted the bytes moved (moved >= 0) and the
 * status is GOOD, the residual. The one copy of MFI, Fusion and MPT. */
void scsi_cmd_answer(struct scsi_cmd *cmd, uint8_t status, const uint8_t *sense, uint32_t sense_len, int64_t moved);

struct scsi_transport {
    scsi_exec_fn exec;
    void *ctx;
    const char *name;       /* where of its plat_diag lines: "0000:03:00.0 t2 l0", "ld1" */
};

/* What identification found out about one LUN. */
struct scsi_disk_info {
    struct scsi_inquiry inq;
    char serial[48];        /* VPD 80h, "" if the LUN has none */
    struct scsi_capacity cap;
    bool use16;             /* READ CAPACITY(10) could not describe the disk */
    bool rc16_first;        /* SPC-3 or later, or PROTECT: asked READ CAPACITY(16) first */
    struct scsi_block_limits bl; /* VPD B0h, zero when not listed */
    char wwn[40];           /* VPD 83h (scsi_parse_device_id), "" if none */
    bool sat;               /* an ATA disk behind a SCSI/ATA translation layer (VPD 89h, vendor "ATA") */
};

/* Run one command; BM_OK only for GOOD status. A CHECK CONDITION becomes
 * BM_EIO with the sense decoded into *sense (when not NULL); detail gets a
 * readable reason on any failure. */
int scsi_run(const struct scsi_transport *t, struct scsi_cmd *cmd, struct scsi_sense *sense, char *detail,
             size_t detail_len);
/* TEST UNIT READY, retried through UNIT ATTENTION (power on, reset,
 * parameters changed) and NOT READY / becoming ready, within timeout_ns. */
int scsi_test_unit_ready(const struct scsi_transport *t, uint64_t timeout_ns, char *detail, size_t detail_len);
/* Identify a LUN: standard INQUIRY, then (for a disk) TEST UNIT READY,
 * READ CAPACITY(16) falling back to (10), and the VPD 80h serial.
 * BM_ENODEV when nothing (or no disk) answers at this LUN; err says why
 * any other failure happened. */
int scsi_identify(const struct scsi_transport *t, struct scsi_disk_info *info, char *err, size_t errlen);
/* Identify a LUN with INQUIRY alone: standard data (a disk, or
 * BM_ENODEV), the VPD 80h serial and whether a SATL stands in front of
 * it (info->sat); no TEST UNIT READY, no capacity. For a disk that is
 * only asked for its health (a RAID member behind its controller). */
int scsi_identify_inquiry_only(const struct scsi_transport *t, struct scsi_disk_info *info, char *err,
                              size_t errlen);
/* REPORT LUNS; on ILLEGAL REQUEST (older targets) reports LUN 0 alone. */
int scsi_report_luns(const struct scsi_transport *t, uint32_t *luns, int max);
/* Copy identification into a disk: model "VENDOR PRODUCT", serial,
 * firmware revision, block sizes and capacity. */
void scsi_fill_disk(struct bm_disk *d, const struct scsi_disk_info *info);
/* Does identification say READ CAPACITY(16) goes first? SPC-3 and later
 * targets, and any target that supports protection information, as Linux
 * sd_try_rc16_first; older ones get READ CAPACITY(10) and (16) only when
 * (10) overflows. */
bool scsi_try_rc16_first(const struct scsi_inquiry *inq);
/* The largest command for a LUN: the HBA's limit (hba_max bytes) capped by
 * the LUN's own MAXIMUM TRANSFER LENGTH (VPD B0h), as Linux
 * sd_revalidate_disk's min_not_zero(dev_max, max_xfer_blocks); a whole
 * number of blocks, at least one. */
uint32_t scsi_max_transfer(const struct scsi_disk_info *info, uint32_t hba_max);
/* The LUN's optimal transfer length in bytes when it is usable, as Linux
 * sd_validate_opt_xfer_size: not 0, within max_bytes, a multiple of the
 * physical block and at least 4 KiB; else 0. */
uint32_t scsi_opt_transfer(const struct scsi_disk_info *info, uint32_t max_bytes);
/* Identify a LUN for a native HBA driver: scsi_identify, then a block size
 * the engine drives (512 or 4096). Failures are logged under the
 * transport's name; BM_ENODEV (nothing there) is not. */
int scsi_identify_for_hba(const struct scsi_transport *t, struct scsi_disk_info *info);

/* Where a native HBA driver's disk sits and how deep it can be driven. */
struct scsi_hba_place {
    const char *driver;             /* "megasas", "mpt" */
    struct pci_addr pci;
    uint32_t port, lun;
    uint32_t max_qd, max_transfer_bytes;
};
/* Fill a native HBA disk (one queue) from its identification and place. */
void scsi_fill_hba_disk(struct bm_disk *d, const struct scsi_disk_info *info, const struct scsi_hba_place *at,
                        const struct bm_disk_ops *ops, void *priv);

/* Big-endian helpers (CDBs and SCSI data are big-endian). */
static inline void scsi_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void scsi_put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void scsi_put_be64(uint8_t *p, uint64_t v)
{
    scsi_put_be32(p, (uint32_t)(v >> 32));
    scsi_put_be32(p + 4, (uint32_t)v);
}
static inline uint16_t scsi_get_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t scsi_get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t scsi_get_be64(const uint8_t *p)
{
    return ((uint64_t)scsi_get_be32(p) << 32) | scsi_get_be32(p + 4);
}

#endif
