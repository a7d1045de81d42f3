/* One SCSI disk for the device-model tests: what the MPT, MegaRAID and
 * other HBA models put behind their transport, instead of each answering
 * raw opcodes on its own.
 *
 * It answers as a direct-access block device (SBC-3, SPC-4) does: TEST
 * UNIT READY, INQUIRY (standard data; VPD pages 00h, 80h unit serial
 * number, 83h device identification with an NAA designator), READ
 * CAPACITY(10) and (16), READ/WRITE(10) and (16), REPORT LUNS (LUN 0) and
 * REQUEST SENSE; optionally VPD B0h block limits (and READ/WRITE longer
 * than its maximum transfer length refused), protection information and
 * a lowest aligned LBA in READ CAPACITY(16), LOG SENSE pages (00h, 0Dh,
 * 15h, 18h, 2Fh) and, behind a SATL, VPD 89h and ATA PASS-THROUGH(16)
 * SMART READ DATA / READ THRESHOLDS. A page it does not list is refused. Whatever a real disk rejects comes back as CHECK
 * CONDITION with fixed-format sense, and REQUEST SENSE returns it
 * afterwards: an unknown opcode is ILLEGAL REQUEST / INVALID COMMAND
 * OPERATION CODE (20h/00h), a page or service action it does not have
 * INVALID FIELD IN CDB (24h/00h), a range past the last block LOGICAL
 * BLOCK ADDRESS OUT OF RANGE (21h/00h).
 *
 * The transport (SGL, frames, reply format, fault injection) stays the
 * model's: it hands the CDB and a flat data buffer to scsi_target_exec()
 * and turns the reply into its own completion. */
#ifndef BAREMARK_TEST_SCSI_TARGET_H
#define BAREMARK_TEST_SCSI_TARGET_H

#include <stdbool.h>
#include <stdint.h>

/* Fixed-format sense data is 18 bytes (SPC-4 4.5.3). */
#define SCSI_TARGET_SENSE_BYTES 18

struct scsi_target {
    /* Standard INQUIRY identity, space padded as the target sends it. */
    const char *vendor;         /* 8 characters at most */
    const char *product;        /* 16 */
    const char *revision;       /* 4 */
    const char *serial;         /* VPD 80h; NULL: the page is not there */
    uint64_t naa;               /* VPD 83h NAA designator; 0: the page is not there */
    uint8_t version;            /* INQUIRY VERSION: 5 SPC-3, 6 SPC-4 (0: 6) */
    bool untagged;              /* no CMDQUE: one command at a time */
    bool no_read_capacity_16;   /* an older target: SERVICE ACTION IN(16) is unknown */
    uint64_t blocks;            /* capacity in logical blocks */
    uint32_t block_bytes;
    /* Protection and geometry in standard INQUIRY / READ CAPACITY(16). */
    bool protect;               /* INQUIRY PROTECT */
    uint8_t pi_type;            /* 0: none; 1..3: PROT_EN with P_TYPE pi_type - 1 (SBC-3) */
    uint8_t lbppbe;             /* logical blocks per physical block exponent */
    uint16_t align_lba;         /* LOWEST ALIGNED LOGICAL BLOCK ADDRESS */
    /* VPD B0h (listed when either is set). READ/WRITE longer than
     * max_xfer_blocks: ILLEGAL REQUEST, INVALID FIELD IN CDB (SBC-3 5.15). */
    uint32_t max_xfer_blocks, opt_xfer_blocks;
    /* Behind a SCSI/ATA translation layer: VPD 89h listed and ATA
     * PASS-THROUGH(16) taken; SMART READ DATA / THRESHOLDS return these
     * 512 bytes (NULL: SMART disabled, the drive aborts the command). */
    bool sat;
    const uint8_t *smart_data, *smart_thresholds;
    /* LOG SENSE pages; NULL: LOG SENSE is an unknown operation code. */
    const struct scsi_target_log *log;
    /* The medium: fill blocks read, take blocks written. NULL: reads
     * return zeroes, writes are dropped. */
    void (*read)(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf);
    void (*write)(void *ctx, uint64_t lba, uint32_t blocks, const uint8_t *buf);
    void *ctx;
    /* A condition READ/WRITE commands report while cond->left > 0 (each
     * such command counts it down; NULL: none). It lives with the model,
     * as some models build a target per command. RECOVERED ERROR (01h)
     * moves the data and then reports it (SPC-4: the command completed,
     * with recovery); any other key moves nothing. */
    struct scsi_target_condition *cond;

    /* Kept by the target. */
    uint8_t sense[SCSI_TARGET_SENSE_BYTES]; /* the last CHECK CONDITION's, for REQUEST SENSE */
    bool have_sense;
    unsigned reads, writes;     /* READ / WRITE commands done */
    unsigned rejected;          /* commands answered CHECK CONDITION */
    unsigned rc16_asked;        /* SERVICE ACTION IN(16) commands received */
    unsigned unlisted_asked;    /* VPD or log pages asked that page 00h does not list */
};

/* The log pages a target keeps (SPC-4 7.3, SBC-3 6.4.2, SPL). */
struct scsi_target_log {
    int temperature;            /* 0Dh: degrees C; < 0: no page */
    bool ie;                    /* 2Fh listed: */
    uint8_t ie_asc, ie_ascq, ie_temperature;
    bool bg_scan;               /* 15h listed: */
    uint32_t power_on_minutes;
    unsigned medium_errors;     /* defect entries with MEDIUM ERROR, then one RECOVERED ERROR entry */
    bool sas_port;              /* 18h listed: one port, two phys, each with these counts */
    uint32_t invalid_dwords, disparity_errors, loss_of_sync, reset_problems;
};

/* An injected condition: sense key / ASC / ASCQ for the next left
 * READ/WRITE commands (e.g. UNIT ATTENTION 29h/00h after a reset, NOT
 * READY 04h/01h while spinning up, RECOVERED ERROR 18h/00h). */
struct scsi_target_condition {
    uint8_t key, asc, ascq;
    unsigned left;
    unsigned reported;          /* how many commands it answered */
};

/* What the target answered. */
struct scsi_target_reply {
    uint8_t status;             /* SCSI status: 00h GOOD, 02h CHECK CONDITION */
    uint32_t moved;             /* data bytes moved (read into or taken from buf) */
    uint8_t sense[SCSI_TARGET_SENSE_BYTES]; /* with CHECK CONDITION */
    uint32_t sense_len;         /* 0 with GOOD */
};

/* SCSI status codes (SAM-5) and sense keys (SPC-4) the models use. */
#define SCSI_TARGET_GOOD 0x00
#define SCSI_TARGET_CHECK_CONDITION 0x02
#define SCSI_TARGET_BUSY 0x08
#define SCSI_TARGET_TASK_SET_FULL 0x28
#define SCSI_TARGET_KEY_RECOVERED_ERROR 0x01
#define SCSI_TARGET_KEY_NOT_READY 0x02
#define SCSI_TARGET_KEY_MEDIUM_ERROR 0x03
#define SCSI_TARGET_KEY_UNIT_ATTENTION 0x06
#define SCSI_TARGET_KEY_ILLEGAL_REQUEST 0x05

/* Run one CDB. buf holds data_len bytes: where a read's data goes, or the
 * data the initiator sends for a write. */
void scsi_target_exec(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                      struct scsi_target_reply *r);

/* Is cdb a READ/WRITE(10) or (16)? Its direction, LBA and block count. */
bool scsi_target_rw(const uint8_t *cdb, bool *write, uint64_t *lba, uint32_t *blocks);

/* Make r a CHECK CONDITION with fixed-format sense key/ASC/ASCQ (a model's
 * injected error, e.g. MEDIUM ERROR 11h/00h). */
void scsi_target_fail(struct scsi_target_reply *r, uint8_t key, uint8_t asc, uint8_t ascq);

#endif
