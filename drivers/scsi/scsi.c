/* SCSI layer: CDB builders, data parsers, sense decoding and LUN
 * identification over a transport callback. */
#include "scsi.h"
#include "../pci.h"

/* ---- CDB builders ------------------------------------------------------------------ */

/* TEST UNIT READY (SPC-4): no parameters. */
int scsi_build_test_unit_ready(uint8_t *cdb)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_TEST_UNIT_READY;
    return SCSI_CDB6;
}

/* SPC-4 INQUIRY: byte 1 bit 0 EVPD, byte 2 page code, bytes 3..4
 * allocation length. */
int scsi_build_inquiry(uint8_t *cdb, bool evpd, uint8_t page, uint16_t alloc_len)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_INQUIRY;
    if (evpd) {
        cdb[1] = SCSI_INQ_EVPD;
        cdb[2] = page;
    }
    scsi_put_be16(cdb + 3, alloc_len);
    return SCSI_CDB6;
}

/* READ CAPACITY(10) (SBC-3): no parameters. */
int scsi_build_read_capacity10(uint8_t *cdb)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_READ_CAPACITY_10;
    return SCSI_CDB10;
}

/* SBC-3: SERVICE ACTION IN(16) with service action 10h,
 * allocation length in bytes 10..13. */
int scsi_build_read_capacity16(uint8_t *cdb, uint32_t alloc_len)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_SERVICE_ACTION_IN_16;
    cdb[1] = SCSI_SAI_READ_CAPACITY_16;
    scsi_put_be32(cdb + 10, alloc_len);
    return SCSI_CDB16;
}

/* SPC-4 REPORT LUNS: select report 0 (all LUNs), allocation length in
 * bytes 6..9 (at least 16). */
int scsi_build_report_luns(uint8_t *cdb, uint32_t alloc_len)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_REPORT_LUNS;
    scsi_put_be32(cdb + 6, alloc_len);
    return SCSI_CDB12;
}

/* REQUEST SENSE (SPC-4) for alloc_len bytes. */
int scsi_build_request_sense(uint8_t *cdb, uint8_t alloc_len)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_REQUEST_SENSE;
    cdb[4] = alloc_len;
    return SCSI_CDB6;
}

/* SBC-3: START STOP UNIT with START=1 spins up a disk that
 * reports "initializing command required". */
static int scsi_build_start_unit(uint8_t *cdb)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_START_STOP_UNIT;
    cdb[4] = SCSI_START_STOP_START;
    return SCSI_CDB6;
}

/* READ/WRITE(10) reach 2^32 blocks and 65535 blocks per command (SBC-3). */
bool scsi_rw_needs_16(uint64_t disk_blocks, uint64_t lba, uint32_t blocks)
{
    if (disk_blocks > SCSI_RW10_MAX_LBA + 1)
        return true;
    if (blocks > SCSI_RW10_MAX_BLOCKS)
        return true;
    /* The last block touched must still have a 32-bit LBA. */
    return blocks && lba + blocks - 1 > SCSI_RW10_MAX_LBA;
}

/* SBC-3 READ/WRITE (10-byte: LBA in bytes 2..5, length in 7..8)
 * and READ/WRITE (16-byte: LBA in 2..9, length in 10..13). */
int scsi_build_rw(uint8_t *cdb, enum bm_io_op op, uint64_t disk_blocks, uint64_t lba, uint32_t blocks)
{
    memset(cdb, 0, 16);
    if (scsi_rw_needs_16(disk_blocks, lba, blocks)) {
        cdb[0] = op == BM_IO_WRITE ? SCSI_OP_WRITE_16 : SCSI_OP_READ_16;
        scsi_put_be64(cdb + 2, lba);
        scsi_put_be32(cdb + 10, blocks);
        return SCSI_CDB16;
    }
    cdb[0] = op == BM_IO_WRITE ? SCSI_OP_WRITE_10 : SCSI_OP_READ_10;
    scsi_put_be32(cdb + 2, (uint32_t)lba);
    scsi_put_be16(cdb + 7, (uint16_t)blocks);
    return SCSI_CDB10;
}

/* ---- Parsers -------------------------------------------------------------------------- */

/* Standard INQUIRY data (SPC-4) into trimmed strings. */
int scsi_parse_inquiry(const uint8_t *data, size_t len, struct scsi_inquiry *out)
{
    memset(out, 0, sizeof(*out));
    if (len < SCSI_INQ_STD_LEN)
        return BM_EINVAL;
    out->qualifier = SCSI_INQ_QUAL(data[0]);
    out->type = SCSI_INQ_TYPE(data[0]);
    out->removable = (data[1] & 0x80) != 0;
    out->cmdque = (data[7] & 0x02) != 0; /* SPC-4 6.6.2 */
    out->version = data[SCSI_INQ_VERSION_OFF];
    out->protect = (data[SCSI_INQ_PROTECT_OFF] & SCSI_INQ_PROTECT) != 0;
    bm_copy_padded(out->vendor, sizeof(out->vendor), data + SCSI_INQ_VENDOR_OFF, SCSI_INQ_VENDOR_LEN);
    bm_copy_padded(out->product, sizeof(out->product), data + SCSI_INQ_PRODUCT_OFF, SCSI_INQ_PRODUCT_LEN);
    bm_copy_padded(out->revision, sizeof(out->revision), data + SCSI_INQ_REV_OFF, SCSI_INQ_REV_LEN);
    return BM_OK;
}

/* A connected direct-access (SBC) or simplified direct-access (RBC) LUN. */
bool scsi_inquiry_is_disk(const struct scsi_inquiry *inq)
{
    return inq->qualifier == SCSI_QUAL_CONNECTED && (inq->type == SCSI_TYPE_DISK || inq->type == SCSI_TYPE_RBC);
}

/* Look for a page code in the supported VPD pages list (SPC-4). */
bool scsi_vpd_lists_page(const uint8_t *data, size_t len, uint8_t page)
{
    size_t n;

    if (len < SCSI_VPD_HDR_LEN || data[1] != SCSI_VPD_SUPPORTED_PAGES)
        return false;
    n = scsi_get_be16(data + 2);
    for (size_t i = 0; i < n && SCSI_VPD_HDR_LEN + i < len; i++)
        if (data[SCSI_VPD_HDR_LEN + i] == page)
            return true;
    return false;
}

/* The unit serial number page (SPC-4). */
int scsi_parse_unit_serial(const uint8_t *data, size_t len, char *serial, size_t cap)
{
    size_t n;

    if (cap)
        serial[0] = '\0';
    if (len < SCSI_VPD_HDR_LEN || data[1] != SCSI_VPD_UNIT_SERIAL)
        return BM_EINVAL;
    n = scsi_get_be16(data + 2);
    if (n > len - SCSI_VPD_HDR_LEN)
        n = len - SCSI_VPD_HDR_LEN;
    /* SPC-4: ASCII, may be padded with spaces (and some
     * devices pad with NULs). */
    bm_copy_padded(serial, cap, data + SCSI_VPD_HDR_LEN, n);
    return serial[0] ? BM_OK : BM_EINVAL;
}

/* The block limits page (SBC-3 6.6.4), as Linux sd_read_block_limits
 * reads it: the transfer lengths sit at bytes 6..15 of a page whose
 * length is 3Ch (older targets send shorter pages; what is there counts). */
int scsi_parse_block_limits(const uint8_t *data, size_t len, struct scsi_block_limits *out)
{
    size_t n;

    memset(out, 0, sizeof(*out));
    if (len < SCSI_VPD_HDR_LEN || data[1] != SCSI_VPD_BLOCK_LIMITS)
        return BM_EINVAL;
    n = MIN(len, (size_t)SCSI_VPD_HDR_LEN + scsi_get_be16(data + 2));
    if (n < SCSI_VPD_BL_MIN_LEN)
        return BM_EINVAL;
    out->opt_gran_blocks = scsi_get_be16(data + SCSI_VPD_BL_OPT_GRAN_OFF);
    out->max_xfer_blocks = scsi_get_be32(data + SCSI_VPD_BL_MAX_XFER_OFF);
    out->opt_xfer_blocks = scsi_get_be32(data + SCSI_VPD_BL_OPT_XFER_OFF);
    return BM_OK;
}

/* Device identification (SPC-4 7.8.6): walk the designation descriptors
 * and keep the logical unit's NAA designator, else its EUI-64 one (the
 * order of Linux scsi_vpd_lun_id, which puts both ahead of T10 vendor
 * ids), as lower-case hex after "naa." / "eui.". */
int scsi_parse_device_id(const uint8_t *data, size_t len, char *wwn, size_t cap)
{
    const uint8_t *best = NULL;
    size_t end, off, best_len = 0;
    int best_rank = 0;

    if (cap)
        wwn[0] = '\0';
    if (len < SCSI_VPD_HDR_LEN || data[1] != SCSI_VPD_DEVICE_ID || !cap)
        return BM_EINVAL;
    end = MIN(len, (size_t)SCSI_VPD_HDR_LEN + scsi_get_be16(data + 2));
    for (off = SCSI_VPD_HDR_LEN; off + 4 <= end;) {
        const uint8_t *d = data + off;
        size_t dlen = d[3];
        int rank = 0;

        if (off + 4 + dlen > end)
            break;
        if (SCSI_DESIG_ASSOC(d[1]) == SCSI_DESIG_ASSOC_LU && (d[0] & 0x0f) == 1 /* binary */) {
            /* NAA: 8 bytes (types 2, 3, 5) or 16 (type 6, registered
             * extended); EUI-64: 8, 12 or 16 bytes (SPC-4 7.8.6.4, 7.8.6.5). */
            if (SCSI_DESIG_TYPE(d[1]) == SCSI_DESIG_NAA && (dlen == 8 || dlen == 16))
                rank = 2;
            else if (SCSI_DESIG_TYPE(d[1]) == SCSI_DESIG_EUI64 && (dlen == 8 || dlen == 12 || dlen == 16))
                rank = 1;
        }
        if (rank > best_rank) {
            best = d;
            best_len = dlen;
            best_rank = rank;
        }
        off += 4 + dlen;
    }
    if (!best || cap < 4 + 2 * best_len + 1)
        return BM_EINVAL;
    memcpy(wwn, best_rank == 2 ? "naa." : "eui.", 4);
    for (size_t i = 0; i < best_len; i++)
        snprintf(wwn + 4 + 2 * i, 3, "%02x", best[4 + i]);
    return BM_OK;
}

/* READ CAPACITY(10) data: last LBA and block length (SBC-3). */
int scsi_parse_capacity10(const uint8_t *data, size_t len, struct scsi_capacity *out, bool *need16)
{
    uint32_t last;

    memset(out, 0, sizeof(*out));
    *need16 = false;
    if (len < SCSI_RC10_LEN)
        return BM_EINVAL;
    last = scsi_get_be32(data);
    out->block_bytes = scsi_get_be32(data + 4);
    out->phys_bytes = out->block_bytes;
    if (last == SCSI_RC10_LBA_OVERFLOW) {
        *need16 = true;
        return BM_OK;
    }
    out->blocks = (uint64_t)last + 1;
    return out->block_bytes ? BM_OK : BM_EINVAL;
}

/* READ CAPACITY(16) data: last LBA, block length, protection, LBPPBE and
 * the lowest aligned LBA (SBC-3 5.16.2), as Linux read_capacity_16 and
 * sd_read_protection_type read them. */
int scsi_parse_capacity16(const uint8_t *data, size_t len, struct scsi_capacity *out)
{
    unsigned exp;

    memset(out, 0, sizeof(*out));
    if (len < 14)
        return BM_EINVAL;
    out->blocks = scsi_get_be64(data) + 1;
    out->block_bytes = scsi_get_be32(data + 8);
    if (data[12] & SCSI_RC16_PROT_EN)
        out->pi_type = (uint8_t)(SCSI_RC16_P_TYPE(data[12]) + 1);
    exp = SCSI_RC16_LBPPBE(data[13]);
    out->phys_bytes = exp < 8 ? out->block_bytes << exp : out->block_bytes;
    if (len >= 16)
        out->align_lba = SCSI_RC16_LALBA(scsi_get_be16(data + 14));
    return out->block_bytes && out->blocks ? BM_OK : BM_EINVAL;
}

/* The LUN list of REPORT LUNS (SPC-4). */
int scsi_parse_report_luns(const uint8_t *data, size_t len, uint32_t *luns, int max)
{
    size_t list, n = 0;

    if (len < SCSI_REPORT_LUNS_HDR)
        return 0;
    list = scsi_get_be32(data);
    for (size_t off = SCSI_REPORT_LUNS_HDR; off + 8 <= len && off < SCSI_REPORT_LUNS_HDR + list && (int)n < max;
         off += 8) {
        const uint8_t *l = data + off;
        unsigned method = l[0] >> 6;
        /* SAM-5 LUN addressing: peripheral device addressing (00b) has
         * the LUN in byte 1 (bus 0 only); flat space (01b) 14 bits. */
        if (method == 0 && (l[0] & 0x3f) == 0)
            luns[n++] = l[1];
        else if (method == 1)
            luns[n++] = ((uint32_t)(l[0] & 0x3f) << 8) | l[1];
    }
    return (int)n;
}

/* ---- Sense data ------------------------------------------------------------------------- */

/* Fixed or descriptor sense data into key, ASC, ASCQ and information. */
int scsi_sense_parse(const uint8_t *data, size_t len, struct scsi_sense *s)
{
    uint8_t code;

    memset(s, 0, sizeof(*s));
    if (len < 1)
        return BM_EINVAL;
    code = SCSI_SENSE_RESPONSE_CODE(data[0]);
    if (code == SCSI_SENSE_FIXED_CURRENT || code == SCSI_SENSE_FIXED_DEFERRED) {
        /* SPC-4 fixed format sense data. ASC/ASCQ are only there when the
         * additional length reaches them. */
        if (len < 3)
            return BM_EINVAL;
        s->deferred = code == SCSI_SENSE_FIXED_DEFERRED;
        s->key = data[SCSI_SENSE_FIXED_KEY_OFF] & 0x0f;
        if (len > SCSI_SENSE_FIXED_ADDLEN_OFF) {
            size_t end = (size_t)SCSI_SENSE_FIXED_ADDLEN_OFF + 1 + data[SCSI_SENSE_FIXED_ADDLEN_OFF];
            if (end > len)
                end = len;
            if (end > SCSI_SENSE_FIXED_ASC_OFF)
                s->asc = data[SCSI_SENSE_FIXED_ASC_OFF];
            if (end > SCSI_SENSE_FIXED_ASCQ_OFF)
                s->ascq = data[SCSI_SENSE_FIXED_ASCQ_OFF];
        }
        if ((data[0] & SCSI_SENSE_FIXED_VALID) && len >= SCSI_SENSE_FIXED_INFO_OFF + 4) {
            s->info_valid = true;
            s->info = scsi_get_be32(data + SCSI_SENSE_FIXED_INFO_OFF);
        }
        s->valid = true;
        return BM_OK;
    }
    if (code == SCSI_SENSE_DESC_CURRENT || code == SCSI_SENSE_DESC_DEFERRED) {
        /* SPC-4 descriptor format sense data: key/ASC/ASCQ in the header, then a list
         * of descriptors; the information descriptor (type 00h) carries
         * the failing LBA. */
        size_t end, off;

        if (len < 4)
            return BM_EINVAL;
        s->descriptor = true;
        s->deferred = code == SCSI_SENSE_DESC_DEFERRED;
        s->key = data[SCSI_SENSE_DESC_KEY_OFF] & 0x0f;
        s->asc = data[SCSI_SENSE_DESC_ASC_OFF];
        s->ascq = data[SCSI_SENSE_DESC_ASCQ_OFF];
        end = len;
        if (len > SCSI_SENSE_DESC_ADDLEN_OFF && (size_t)SCSI_SENSE_DESC_FIRST + data[SCSI_SENSE_DESC_ADDLEN_OFF] < end)
            end = (size_t)SCSI_SENSE_DESC_FIRST + data[SCSI_SENSE_DESC_ADDLEN_OFF];
        for (off = SCSI_SENSE_DESC_FIRST; off + 2 <= end;) {
            uint8_t type = data[off], dlen = data[off + 1];
            if (off + 2 + dlen > end)
                break;
            if (type == SCSI_SENSE_DESCRIPTOR_INFORMATION && dlen >= 0x0a && (data[off + 2] & 0x80)) {
                s->info_valid = true;
                s->info = scsi_get_be64(data + off + 4);
            }
            off += 2 + (size_t)dlen;
        }
        s->valid = true;
        return BM_OK;
    }
    return BM_EINVAL;
}

/* The name SPC-4 gives a sense key. */
const char *scsi_sense_key_name(uint8_t key)
{
    static const char *const names[16] = {
        "NO SENSE",        "RECOVERED ERROR", "NOT READY",      "MEDIUM ERROR",
        "HARDWARE ERROR",  "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
        "BLANK CHECK",     "VENDOR SPECIFIC", "COPY ABORTED",   "ABORTED COMMAND",
        "KEY 0xC",         "VOLUME OVERFLOW", "MISCOMPARE",     "COMPLETED",
    };
    return names[key & 0x0f];
}

/* SPC-4 ASC/ASCQ assignments (the additional sense codes a benchmark meets). ASCQ
 * 0xff in the table matches any qualifier. */
static const struct {
    uint8_t asc, ascq;
    const char *text;
} asc_table[] = {
    { 0x00, 0x00, "no additional sense information" },
    { 0x00, 0x06, "I/O process terminated" },
    { 0x04, 0x00, "not ready, cause not reportable" },
    { 0x04, 0x01, "becoming ready" },
    { 0x04, 0x02, "initializing command required" },
    { 0x04, 0x03, "manual intervention required" },
    { 0x04, 0x04, "format in progress" },
    { 0x04, 0xff, "logical unit not ready" },
    { 0x08, 0x00, "logical unit communication failure" },
    { 0x0b, 0xff, "warning" },
    { 0x0c, 0x00, "write error" },
    { 0x0c, 0x02, "write error, auto reallocation failed" },
    { 0x0c, 0xff, "write error" },
    { 0x10, 0xff, "ID CRC or ECC error" },
    { 0x11, 0x00, "unrecovered read error" },
    { 0x11, 0x04, "unrecovered read error, auto reallocate failed" },
    { 0x11, 0xff, "unrecovered read error" },
    { 0x14, 0x01, "record not found" },
    { 0x15, 0xff, "positioning error" },
    { 0x1a, 0x00, "parameter list length error" },
    { 0x20, 0x00, "invalid command operation code" },
    { 0x21, 0x00, "LBA out of range" },
    { 0x24, 0x00, "invalid field in CDB" },
    { 0x25, 0x00, "logical unit not supported" },
    { 0x26, 0x00, "invalid field in parameter list" },
    { 0x27, 0xff, "write protected" },
    { 0x28, 0x00, "not ready to ready change" },
    { 0x29, 0x00, "power on, reset or bus device reset" },
    { 0x29, 0xff, "power on or reset occurred" },
    { 0x2a, 0x01, "mode parameters changed" },
    { 0x2a, 0x09, "capacity data has changed" },
    { 0x2a, 0xff, "parameters changed" },
    { 0x31, 0xff, "medium format corrupted" },
    { 0x32, 0x00, "no defect spare location available" },
    { 0x3a, 0xff, "medium not present" },
    { 0x3e, 0x02, "timeout on logical unit" },
    { 0x3f, 0x0e, "reported LUNs data has changed" },
    { 0x3f, 0xff, "target operating conditions have changed" },
    { 0x44, 0x00, "internal target failure" },
    { 0x47, 0xff, "SCSI parity error" },
    { 0x4b, 0xff, "data phase error" },
    { 0x4e, 0x00, "overlapped commands attempted" },
    { 0x5d, 0xff, "failure prediction threshold exceeded" },
};

/* Readable text for an ASC/ASCQ pair from the table above. */
const char *scsi_asc_text(uint8_t asc, uint8_t ascq)
{
    const char *wild = NULL;

    for (size_t i = 0; i < ARRAY_SIZE(asc_table); i++) {
        if (asc_table[i].asc != asc)
            continue;
        if (asc_table[i].ascq == ascq)
            return asc_table[i].text;
        if (asc_table[i].ascq == 0xff)
            wild = asc_table[i].text;
    }
    return wild;
}

/* The name SAM-5 gives a status code. */
const char *scsi_status_name(uint8_t status)
{
    switch (status) {
    case SCSI_STATUS_GOOD: return "GOOD";
    case SCSI_STATUS_CHECK_CONDITION: return "CHECK CONDITION";
    case SCSI_STATUS_CONDITION_MET: return "CONDITION MET";
    case SCSI_STATUS_BUSY: return "BUSY";
    case SCSI_STATUS_RESERVATION_CONFLICT: return "RESERVATION CONFLICT";
    case SCSI_STATUS_TASK_SET_FULL: return "TASK SET FULL";
    case SCSI_STATUS_ACA_ACTIVE: return "ACA ACTIVE";
    case SCSI_STATUS_TASK_ABORTED: return "TASK ABORTED";
    default: return "UNKNOWN STATUS";
    }
}

/* A completion's detail: sense key, ASC/ASCQ and text, or the status. */
void scsi_describe(uint8_t status, const uint8_t *sense, size_t sense_len, char *out, size_t cap)
{
    struct scsi_sense s;
    const char *text;

    if (status != SCSI_STATUS_CHECK_CONDITION || !sense || scsi_sense_parse(sense, sense_len, &s) != BM_OK) {
        if (status == SCSI_STATUS_CHECK_CONDITION)
            snprintf(out, cap, "CHECK CONDITION, no sense data");
        else
            snprintf(out, cap, "SCSI status 0x%02x %s", status, scsi_status_name(status));
        return;
    }
    text = scsi_asc_text(s.asc, s.ascq);
    if (text)
        snprintf(out, cap, "%s %02x/%02x %s", scsi_sense_key_name(s.key), s.asc, s.ascq, text);
    else
        snprintf(out, cap, "%s %02x/%02x", scsi_sense_key_name(s.key), s.asc, s.ascq);
}

/* The shared disposition table (scsi.h). As Linux scsi_check_sense:
 * RECOVERED ERROR is SUCCESS (the data moved; the drive corrected it),
 * UNIT ATTENTION is NEEDS_RETRY (after a power on, a bus / target / host
 * reset, ours included, or changed parameters, SPC-4 6.37: the command
 * was not executed), NOT READY with ASC/ASCQ 04/01 (LOGICAL UNIT IS IN
 * PROCESS OF BECOMING READY) is retried after a delay
 * (scsi_io_completion_action ACTION_DELAYED_RETRY); BUSY and TASK SET
 * FULL are requeued (scsi_decide_disposition ADD_TO_MLQUEUE). Everything
 * else (other NOT READY causes, MEDIUM ERROR, HARDWARE ERROR, ILLEGAL
 * REQUEST, ABORTED COMMAND, DATA PROTECT, ...) fails the command. */
enum scsi_disposition scsi_disposition(uint8_t status, const uint8_t *sense, size_t sense_len)
{
    struct scsi_sense s;

    if (status == SCSI_STATUS_BUSY || status == SCSI_STATUS_TASK_SET_FULL)
        return SCSI_DISP_RETRY;
    if (status != SCSI_STATUS_CHECK_CONDITION || !sense || scsi_sense_parse(sense, sense_len, &s) != BM_OK)
        return SCSI_DISP_FAIL;
    switch (s.key) {
    case SCSI_KEY_RECOVERED_ERROR:
        return SCSI_DISP_RECOVERED;
    case SCSI_KEY_UNIT_ATTENTION:
        return SCSI_DISP_RETRY;
    case SCSI_KEY_NOT_READY:
        return s.asc == 0x04 && s.ascq == 0x01 ? SCSI_DISP_WAIT_READY : SCSI_DISP_FAIL;
    default:
        return SCSI_DISP_FAIL;
    }
}

/* ---- Commands over a transport ------------------------------------------------------------ */

#define SCSI_CMD_TIMEOUT_NS (10ull * 1000000000ull)
#define SCSI_BUSY_DELAY_NS (3ull * 1000000ull)       /* the midlayer's SCSI_QUEUE_DELAY */
#define SCSI_BUSY_DELAY_MAX_NS (200ull * 1000000ull)
#define SCSI_TUR_TIMEOUT_NS (30ull * 1000000000ull)
#define SCSI_RETRY_DELAY_NS (100ull * 1000000ull)
#define SCSI_ID_BUF_BYTES 4096

/* A command with our default timeout and no CDB yet. */
static void scsi_cmd_init(struct scsi_cmd *c, enum scsi_dir dir, void *buf, uint32_t len)
{
    memset(c, 0, sizeof(*c));
    c->dir = dir;
    c->buf = buf;
    c->len = len;
    c->timeout_ns = SCSI_CMD_TIMEOUT_NS;
}

/* Fetch sense data with REQUEST SENSE for a transport that did not
 * return it with the CHECK CONDITION (no autosense). */
static void scsi_fetch_sense(const struct scsi_transport *t, struct scsi_cmd *failed)
{
    struct scsi_cmd rs;
    uint8_t *buf = plat_alloc_pages(4096, true);
    char detail[64];

    if (!buf)
        return;
    scsi_cmd_init(&rs, SCSI_DIR_IN, buf, SCSI_SENSE_MAX);
    rs.cdb_len = (uint8_t)scsi_build_request_sense(rs.cdb, SCSI_SENSE_MAX);
    if (t->exec(t->ctx, &rs, detail, sizeof(detail)) == BM_OK && rs.status == SCSI_STATUS_GOOD) {
        uint32_t got = rs.len - MIN(rs.resid, rs.len);
        memcpy(failed->sense, buf, MIN(got, (uint32_t)SCSI_SENSE_MAX));
        failed->sense_len = MIN(got, (uint32_t)SCSI_SENSE_MAX);
    }
    plat_free_pages(buf, 4096);
}

/* Run one command and turn its status into BM_OK / BM_EIO / BM_EBUSY. */
int scsi_run(const struct scsi_transport *t, struct scsi_cmd *cmd, struct scsi_sense *sense, char *detail,
             size_t detail_len)
{
    struct scsi_sense local;
    uint64_t deadline = 0, delay = SCSI_BUSY_DELAY_NS;
    int rc;

    if (!sense)
        sense = &local;
    memset(sense, 0, sizeof(*sense));
    if (detail_len)
        detail[0] = '\0';
    for (unsigned busy = 0;; busy++) {
        cmd->status = SCSI_STATUS_GOOD;
        cmd->sense_len = 0;
        cmd->resid = 0;
        rc = t->exec(t->ctx, cmd, detail, detail_len);
        if (rc != BM_OK) {
            if (detail_len && !detail[0])
                snprintf(detail, detail_len, "%s", bm_strerror(rc));
            return rc;
        }
        if (cmd->status != SCSI_STATUS_BUSY && cmd->status != SCSI_STATUS_TASK_SET_FULL)
            break;
        /* BUSY / TASK SET FULL: the target wants the command again later,
         * as the Linux midlayer requeues it (ADD_TO_MLQUEUE); 3 ms, then
         * twice as long each time, for at most the command's timeout. */
        if (!busy)
            deadline = plat_now_ns() + (cmd->timeout_ns ? cmd->timeout_ns : SCSI_CMD_TIMEOUT_NS);
        if (plat_now_ns() + delay >= deadline)
            break;
        plat_delay_ns(delay);
        delay = MIN(delay * 2, (uint64_t)SCSI_BUSY_DELAY_MAX_NS);
    }
    if (cmd->status == SCSI_STATUS_GOOD || cmd->status == SCSI_STATUS_CONDITION_MET)
        return BM_OK;
    if (cmd->status == SCSI_STATUS_CHECK_CONDITION) {
        if (!cmd->sense_len)
            scsi_fetch_sense(t, cmd);
        scsi_sense_parse(cmd->sense, cmd->sense_len, sense);
    }
    scsi_describe(cmd->status, cmd->sense, cmd->sense_len, detail, detail_len);
    return cmd->status == SCSI_STATUS_BUSY || cmd->status == SCSI_STATUS_TASK_SET_FULL ? BM_EBUSY : BM_EIO;
}

/* TEST UNIT READY until the LUN is ready or timeout_ns passes. */
int scsi_test_unit_ready(const struct scsi_transport *t, uint64_t timeout_ns, char *detail, size_t detail_len)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;
    bool started = false;
    struct scsi_cmd c;
    struct scsi_sense s;
    int rc;

    for (;;) {
        scsi_cmd_init(&c, SCSI_DIR_NONE, NULL, 0);
        c.cdb_len = (uint8_t)scsi_build_test_unit_ready(c.cdb);
        rc = scsi_run(t, &c, &s, detail, detail_len);
        if (rc == BM_OK)
            return BM_OK;
        if (rc != BM_EIO && rc != BM_EBUSY)
            return rc;
        /* SPC-4: a unit attention is reported once per
         * event (power on, reset, changed parameters); asking again
         * clears it. */
        if (rc == BM_EIO && !(s.valid && (s.key == SCSI_KEY_UNIT_ATTENTION || s.key == SCSI_KEY_NOT_READY)))
            return rc;
        if (s.valid && s.key == SCSI_KEY_NOT_READY && s.asc == SCSI_ASC_MEDIUM_NOT_PRESENT)
            return rc;
        if (s.valid && s.key == SCSI_KEY_NOT_READY && s.asc == SCSI_ASC_LUN_NOT_READY && s.ascq == 0x02 &&
            !started) {
            /* Stopped disk (staggered spin-up): start it once. */
            struct scsi_cmd su;
            char ignored[64];
            scsi_cmd_init(&su, SCSI_DIR_NONE, NULL, 0);
            su.timeout_ns = timeout_ns;
            su.cdb_len = (uint8_t)scsi_build_start_unit(su.cdb);
            scsi_run(t, &su, NULL, ignored, sizeof(ignored));
            started = true;
        }
        if (plat_now_ns() >= deadline)
            return BM_ETIMEDOUT;
        if (!(s.valid && s.key == SCSI_KEY_UNIT_ATTENTION))
            plat_delay_ns(SCSI_RETRY_DELAY_NS);
    }
}

/* INQUIRY into buf; the number of bytes that came back, or an error. */
static int scsi_inquiry_raw(const struct scsi_transport *t, bool evpd, uint8_t page, uint8_t *buf, uint16_t len,
                            char *detail, size_t detail_len)
{
    struct scsi_cmd c;
    int rc;

    memset(buf, 0, len);
    scsi_cmd_init(&c, SCSI_DIR_IN, buf, len);
    c.cdb_len = (uint8_t)scsi_build_inquiry(c.cdb, evpd, page, len);
    rc = scsi_run(t, &c, NULL, detail, detail_len);
    if (rc != BM_OK)
        return rc;
    return (int)(len - MIN(c.resid, (uint32_t)len));
}

bool scsi_try_rc16_first(const struct scsi_inquiry *inq)
{
    /* Linux scsi_probe_lun() takes the ANSI version from the low nibble
     * of VERSION (an SCSI-2 disk may set the ISO/ECMA bits above it, e.g.
     * 92h), and scsi_device_protection() believes PROTECT only from SPC
     * (version 3) on. */
    unsigned ansi = inq->version & SCSI_INQ_VERSION_ANSI_MASK;

    return ansi >= SCSI_VERSION_SPC3 || (inq->protect && ansi >= SCSI_VERSION_SPC);
}

/* READ CAPACITY(16) into info; BM_OK when it answered with usable data. */
static int scsi_read_capacity16(const struct scsi_transport *t, uint8_t *buf, struct scsi_disk_info *info,
                                char *detail, size_t detail_len)
{
    struct scsi_cmd c;
    int rc;

    memset(buf, 0, SCSI_RC16_LEN);
    scsi_cmd_init(&c, SCSI_DIR_IN, buf, SCSI_RC16_LEN);
    c.cdb_len = (uint8_t)scsi_build_read_capacity16(c.cdb, SCSI_RC16_LEN);
    rc = scsi_run(t, &c, NULL, detail, detail_len);
    if (rc != BM_OK)
        return rc;
    if (scsi_parse_capacity16(buf, SCSI_RC16_LEN, &info->cap) != BM_OK) {
        snprintf(detail, detail_len, "READ CAPACITY(16) returned no size");
        return BM_EIO;
    }
    info->use16 = info->cap.blocks > SCSI_RW10_MAX_LBA + 1;
    return BM_OK;
}

/* The capacity as Linux sd_read_capacity asks for it: READ CAPACITY(16)
 * first for SPC-3 and later targets (and those with PROTECT), falling back
 * to (10); older targets get (10) first, and (16) only when (10) says the
 * disk is too large for it. An SPC-2 disk may not know the 16-byte
 * command at all, and some take it badly. */
static int scsi_read_capacity(const struct scsi_transport *t, uint8_t *buf, struct scsi_disk_info *info, char *err,
                              size_t errlen)
{
    struct scsi_cmd c;
    char detail[64];
    bool need16 = false;
    int rc;

    info->rc16_first = scsi_try_rc16_first(&info->inq);
    if (info->rc16_first && scsi_read_capacity16(t, buf, info, detail, sizeof(detail)) == BM_OK)
        return BM_OK;
    memset(buf, 0, SCSI_RC10_LEN);
    scsi_cmd_init(&c, SCSI_DIR_IN, buf, SCSI_RC10_LEN);
    c.cdb_len = (uint8_t)scsi_build_read_capacity10(c.cdb);
    rc = scsi_run(t, &c, NULL, detail, sizeof(detail));
    if (rc != BM_OK) {
        snprintf(err, errlen, "READ CAPACITY failed: %s", detail);
        return rc;
    }
    if (scsi_parse_capacity10(buf, SCSI_RC10_LEN, &info->cap, &need16) == BM_OK && need16 && !info->rc16_first &&
        scsi_read_capacity16(t, buf, info, detail, sizeof(detail)) == BM_OK)
        return BM_OK;
    if (need16 || !info->cap.block_bytes) {
        snprintf(err, errlen, "READ CAPACITY(10) %s", need16 ? "overflows and (16) failed" : "returned no block size");
        return BM_EIO;
    }
    info->use16 = false;
    return BM_OK;
}

/* INQUIRY and serial of one LUN, and (full) its readiness, capacity,
 * block limits and identifiers. */
static int scsi_identify_lun(const struct scsi_transport *t, struct scsi_disk_info *info, bool full, char *err,
                             size_t errlen)
{
    uint8_t *buf, pages[252];
    size_t npages = 0;
    char detail[64];
    int rc, n;

    memset(info, 0, sizeof(*info));
    if (errlen)
        err[0] = '\0';
    buf = plat_alloc_pages(SCSI_ID_BUF_BYTES, true);
    if (!buf) {
        snprintf(err, errlen, "no memory for identify buffer");
        return BM_ENOMEM;
    }
    /* Standard INQUIRY; 96 bytes is what most targets fill. */
    n = scsi_inquiry_raw(t, false, 0, buf, 96, detail, sizeof(detail));
    if (n == BM_ENODEV) {
        rc = BM_ENODEV;
        snprintf(err, errlen, "no device: %s", detail);
        goto out;
    }
    if (n < 0) {
        rc = n;
        snprintf(err, errlen, "INQUIRY failed: %s", detail);
        goto out;
    }
    if (scsi_parse_inquiry(buf, (size_t)MAX(n, SCSI_INQ_STD_LEN), &info->inq) != BM_OK) {
        rc = BM_EIO;
        snprintf(err, errlen, "INQUIRY data too short");
        goto out;
    }
    if (!scsi_inquiry_is_disk(&info->inq)) {
        rc = BM_ENODEV;
        snprintf(err, errlen, "not a disk (qualifier %u, type 0x%02x)", info->inq.qualifier, info->inq.type);
        goto out;
    }
    if (!full)
        goto vpd;
    rc = scsi_test_unit_ready(t, SCSI_TUR_TIMEOUT_NS, detail, sizeof(detail));
    if (rc != BM_OK) {
        snprintf(err, errlen, "not ready: %s", detail);
        goto out;
    }
    rc = scsi_read_capacity(t, buf, info, err, errlen);
    if (rc != BM_OK)
        goto out;
    if (info->cap.pi_type > 3) {
        /* Linux sd_read_protection_type: a type it does not know leaves
         * the disk unused. */
        snprintf(err, errlen, "formatted with unsupported protection type %u", info->cap.pi_type);
        rc = BM_ENOTSUP;
        goto out;
    }
vpd:
    /* VPD pages: ask page 00h first so a target is only sent the pages it
     * lists (Linux scsi_get_vpd_page). The unit serial number (80h) is
     * what write= names a disk by; some targets implement it without
     * listing it, so try it anyway when 00h itself fails. */
    n = scsi_inquiry_raw(t, true, SCSI_VPD_SUPPORTED_PAGES, buf, 252, detail, sizeof(detail));
    if (n > 0) {
        memcpy(pages, buf, (size_t)n);
        npages = (size_t)n;
    }
    if (n < 0 || scsi_vpd_lists_page(pages, npages, SCSI_VPD_UNIT_SERIAL)) {
        n = scsi_inquiry_raw(t, true, SCSI_VPD_UNIT_SERIAL, buf, 252, detail, sizeof(detail));
        if (n > 0)
            scsi_parse_unit_serial(buf, (size_t)n, info->serial, sizeof(info->serial));
    }
    if (full && scsi_vpd_lists_page(pages, npages, SCSI_VPD_BLOCK_LIMITS)) {
        n = scsi_inquiry_raw(t, true, SCSI_VPD_BLOCK_LIMITS, buf, 64, detail, sizeof(detail));
        if (n > 0)
            scsi_parse_block_limits(buf, (size_t)n, &info->bl);
    }
    if (full && scsi_vpd_lists_page(pages, npages, SCSI_VPD_DEVICE_ID)) {
        n = scsi_inquiry_raw(t, true, SCSI_VPD_DEVICE_ID, buf, 252, detail, sizeof(detail));
        if (n > 0)
            scsi_parse_device_id(buf, (size_t)n, info->wwn, sizeof(info->wwn));
    }
    /* SAT-3: a SCSI/ATA translation layer names the vendor "ATA" and
     * carries the ATA information page (as Linux ata_scsiop_inq_std and
     * the SAS HBAs' SATLs do). */
    info->sat = scsi_vpd_lists_page(pages, npages, SCSI_VPD_ATA_INFO) || !strcmp(info->inq.vendor, "ATA");
    rc = BM_OK;
out:
    plat_free_pages(buf, SCSI_ID_BUF_BYTES);
    return rc;
}

int scsi_identify(const struct scsi_transport *t, struct scsi_disk_info *info, char *err, size_t errlen)
{
    return scsi_identify_lun(t, info, true, err, errlen);
}

int scsi_identify_inquiry_only(const struct scsi_transport *t, struct scsi_disk_info *info, char *err,
                              size_t errlen)
{
    return scsi_identify_lun(t, info, false, err, errlen);
}

/* The target's LUNs, or LUN 0 alone when it cannot say. */
int scsi_report_luns(const struct scsi_transport *t, uint32_t *luns, int max)
{
    const uint32_t len = 2048;
    uint8_t *buf;
    struct scsi_cmd c;
    char detail[64];
    int n = 0;

    if (max < 1)
        return 0;
    buf = plat_alloc_pages(len, true);
    if (buf) {
        scsi_cmd_init(&c, SCSI_DIR_IN, buf, len);
        c.cdb_len = (uint8_t)scsi_build_report_luns(c.cdb, len);
        if (scsi_run(t, &c, NULL, detail, sizeof(detail)) == BM_OK)
            n = scsi_parse_report_luns(buf, len - MIN(c.resid, len), luns, max);
        plat_free_pages(buf, len);
    }
    if (n <= 0) {
        /* SPC-4: LUN 0 must exist on every target; older targets lack
         * REPORT LUNS. */
        luns[0] = 0;
        n = 1;
    }
    return n;
}

/* Identification into the disk's public fields. */
void scsi_fill_disk(struct bm_disk *d, const struct scsi_disk_info *info)
{
    if (info->inq.vendor[0])
        snprintf(d->model, sizeof(d->model), "%s %s", info->inq.vendor, info->inq.product);
    else
        snprintf(d->model, sizeof(d->model), "%s", info->inq.product);
    bm_strlcpy(d->serial, info->serial, sizeof(d->serial));
    bm_strlcpy(d->firmware, info->inq.revision, sizeof(d->firmware));
    d->lba_bytes = info->cap.block_bytes;
    d->phys_bytes = info->cap.phys_bytes ? info->cap.phys_bytes : info->cap.block_bytes;
    d->blocks = info->cap.blocks;
    d->align_lba = info->cap.align_lba;
    d->pi_type = info->cap.pi_type;
    bm_strlcpy(d->wwn, info->wwn, sizeof(d->wwn));
}

uint32_t scsi_max_transfer(const struct scsi_disk_info *info, uint32_t hba_max)
{
    uint32_t lba = info->cap.block_bytes ? info->cap.block_bytes : 512;
    uint64_t max = hba_max;

    if (info->bl.max_xfer_blocks && (uint64_t)info->bl.max_xfer_blocks * lba < max)
        max = (uint64_t)info->bl.max_xfer_blocks * lba;
    max -= max % lba;
    return (uint32_t)MAX(max, (uint64_t)lba);
}

uint32_t scsi_opt_transfer(const struct scsi_disk_info *info, uint32_t max_bytes)
{
    uint64_t opt = (uint64_t)info->bl.opt_xfer_blocks * info->cap.block_bytes;
    uint32_t phys = info->cap.phys_bytes ? info->cap.phys_bytes : info->cap.block_bytes;

    if (!opt || opt > max_bytes || !phys || opt % phys || opt < 4096)
        return 0;
    return (uint32_t)opt;
}

void scsi_cmd_answer(struct scsi_cmd *cmd, uint8_t status, const uint8_t *sense, uint32_t sense_len, int64_t moved)
{
    cmd->status = status;
    cmd->sense_len = sense ? MIN(sense_len, (uint32_t)SCSI_SENSE_MAX) : 0;
    if (cmd->sense_len)
        memcpy(cmd->sense, sense, cmd->sense_len);
    if (moved >= 0 && (uint64_t)moved <= cmd->len && status == SCSI_STATUS_GOOD)
        cmd->resid = cmd->len - (uint32_t)moved;
}

int scsi_identify_for_hba(const struct scsi_transport *t, struct scsi_disk_info *info)
{
    char err[96];
    int rc = scsi_identify(t, info, err, sizeof(err));

    if (rc == BM_ENODEV)
        return rc;
    if (rc != BM_OK) {
        plat_diag(t->name, "skipped: %s", err);
        return rc;
    }
    if (info->cap.block_bytes != 512 && info->cap.block_bytes != 4096) {
        plat_diag(t->name, "skipped: %u-byte blocks", info->cap.block_bytes);
        return BM_ENOTSUP;
    }
    return BM_OK;
}

void scsi_fill_hba_disk(struct bm_disk *d, const struct scsi_disk_info *info, const struct scsi_hba_place *at,
                        const struct bm_disk_ops *ops, void *priv)
{
    bm_strlcpy(d->driver, at->driver, sizeof(d->driver));
    d->path = BM_PATH_NATIVE;
    scsi_fill_disk(d, info);
    pci_addr_str(at->pci, d->pci, sizeof(d->pci));
    d->pci_addr = at->pci;
    d->has_pci = true;
    d->port = at->port;
    d->lun = at->lun;
    d->nqueues = 1;
    d->max_qd = at->max_qd;
    d->max_transfer_bytes = scsi_max_transfer(info, at->max_transfer_bytes);
    d->opt_transfer_bytes = scsi_opt_transfer(info, d->max_transfer_bytes);
    d->ops = ops;
    d->priv = priv;
}
