/* Drive health over SCSI (see scsi_health.h). The pages and fields read
 * are the ones smartmontools reads for a SAS disk (scsicmds.cpp
 * scsiGetTemp, scsiCheckIE; scsiprint.cpp scsiPrintBackgroundResults,
 * show_sas_port_param) and for a SATA disk behind a SATL (scsiata.cpp
 * sat_device::ata_pass_through). */
#include "scsi_health.h"
#include "../ahci/ata.h"

#define HEALTH_CMD_TIMEOUT_NS (10ull * 1000000000ull)
#define HEALTH_BUF_BYTES 8192   /* SMART data + thresholds; a log page of up to 4 KiB */
#define HEALTH_LOG_ALLOC 4096

/* ---- Builders -------------------------------------------------------------------- */

/* SPC-4 LOG SENSE: byte 2 PC (7:6) and page code (5:0), byte 3 subpage,
 * bytes 7..8 allocation length. */
int scsi_build_log_sense(uint8_t *cdb, uint8_t page, uint16_t alloc_len)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_LOG_SENSE;
    cdb[2] = (uint8_t)(SCSI_LOG_SENSE_PC_CUMULATIVE | (page & 0x3f));
    scsi_put_be16(cdb + 7, alloc_len);
    return SCSI_CDB10;
}

/* SAT-3 ATA PASS-THROUGH(16): byte 1 PROTOCOL 4 (PIO data-in) in bits
 * 4:1; byte 2 T_DIR=1, BYTE_BLOCK=1, T_LENGTH=2 (the count register holds
 * the length, in 512-byte blocks); bytes 3..14 the register pairs
 * (features, count, LBA low, mid, high: high byte then low), device and
 * command. SMART takes 4Fh/C2h in LBA mid/high (ACS-3 7.48). */
int scsi_build_sat_smart(uint8_t *cdb, uint8_t feature)
{
    memset(cdb, 0, 16);
    cdb[0] = SCSI_OP_ATA_PASS_THROUGH_16;
    cdb[1] = SAT_PROTOCOL_PIO_IN << 1;
    cdb[2] = SAT_T_DIR_IN | SAT_BYTE_BLOCK | SAT_T_LENGTH_COUNT;
    cdb[4] = feature;
    cdb[6] = 1;                                       /* one block */
    cdb[10] = (uint8_t)(ATA_SMART_LBA_SIGNATURE >> 8);  /* LBA mid 4Fh */
    cdb[12] = (uint8_t)(ATA_SMART_LBA_SIGNATURE >> 16); /* LBA high C2h */
    cdb[14] = ATA_CMD_SMART;
    return SCSI_CDB16;
}

/* ---- Parsers ----------------------------------------------------------------------- */

/* The end of a log page's data: its header's length, within len. */
static size_t log_end(const uint8_t *data, size_t len)
{
    return MIN(len, (size_t)SCSI_LOG_HDR_LEN + scsi_get_be16(data + 2));
}

/* SPC-4 7.3.18: the supported log pages page lists page codes from byte 4. */
bool scsi_log_lists_page(const uint8_t *data, size_t len, uint8_t page)
{
    size_t end;

    if (len < SCSI_LOG_HDR_LEN || (data[0] & 0x3f) != SCSI_LOG_SUPPORTED_PAGES)
        return false;
    end = log_end(data, len);
    for (size_t i = SCSI_LOG_HDR_LEN; i < end; i++)
        if ((data[i] & 0x3f) == page)
            return true;
    return false;
}

/* SPC-4 7.3.2: parameters of 4-byte header (code, control, length) and
 * value, one after the other to the end of the page. */
int scsi_log_param(const uint8_t *data, size_t len, uint16_t code, const uint8_t **val, size_t *vlen)
{
    size_t end, off;

    if (len < SCSI_LOG_HDR_LEN)
        return BM_EINVAL;
    end = log_end(data, len);
    for (off = SCSI_LOG_HDR_LEN; off + SCSI_LOG_PARAM_HDR_LEN <= end;) {
        size_t plen = data[off + 3];

        if (off + SCSI_LOG_PARAM_HDR_LEN + plen > end)
            break;
        if (scsi_get_be16(data + off) == code) {
            *val = data + off + SCSI_LOG_PARAM_HDR_LEN;
            *vlen = plen;
            return BM_OK;
        }
        off += SCSI_LOG_PARAM_HDR_LEN + plen;
    }
    return BM_ENODEV;
}

/* Background scan results (SBC-3 6.4.2): parameter 0000h is the status
 * (accumulated power-on minutes in its first four bytes); 0001h..0800h
 * each a defect the scan found: byte 4 reassign status 7:4 and sense key
 * 3:0 (as smartctl scsiPrintBackgroundResults reads it). */
static bool log_background_scan(const uint8_t *data, size_t end, struct bm_health *h)
{
    bool got = false;
    int64_t media = 0;

    for (size_t off = SCSI_LOG_HDR_LEN; off + SCSI_LOG_PARAM_HDR_LEN <= end;) {
        uint16_t code = scsi_get_be16(data + off);
        size_t plen = data[off + 3];
        const uint8_t *v = data + off + SCSI_LOG_PARAM_HDR_LEN;

        if (off + SCSI_LOG_PARAM_HDR_LEN + plen > end)
            break;
        if (code == 0 && plen >= 4) {
            h->power_on_hours = scsi_get_be32(v) / 60;
            got = true;
        } else if (code >= 1 && code <= 0x800 && plen >= 5) {
            if ((v[4] & 0x0f) == SCSI_KEY_MEDIUM_ERROR)
                media++;
        }
        off += SCSI_LOG_PARAM_HDR_LEN + plen;
    }
    if (got)
        h->media_errors = media;
    return got;
}

/* Protocol-specific port (SPL-2 9.2.7.2, SAS): one parameter per port;
 * value byte 0 protocol identifier 3:0 (6: SAS), byte 3 number of phys,
 * SAS phy log descriptors from byte 4, each 4 + its byte 3 long, with the
 * invalid dword, running disparity error, loss of dword synchronization
 * and phy reset problem counts at bytes 32, 36, 40, 44 (smartctl
 * show_sas_port_param). */
static bool log_sas_port(const uint8_t *data, size_t end, struct bm_health *h)
{
    bool got = false;
    uint64_t sum = 0;

    for (size_t off = SCSI_LOG_HDR_LEN; off + SCSI_LOG_PARAM_HDR_LEN <= end;) {
        size_t plen = data[off + 3];
        const uint8_t *v = data + off + SCSI_LOG_PARAM_HDR_LEN;

        if (off + SCSI_LOG_PARAM_HDR_LEN + plen > end)
            break;
        if (plen >= 4 && (v[0] & 0x0f) == SCSI_PROTOCOL_SAS) {
            for (size_t p = 4; p + 4 <= plen;) {
                size_t dlen = (size_t)v[p + 3] + 4;

                if (dlen < 48 || p + dlen > plen)
                    break;
                for (unsigned k = 0; k < 4; k++)
                    sum += scsi_get_be32(v + p + 32 + 4 * k);
                got = true;
                p += dlen;
            }
        }
        off += SCSI_LOG_PARAM_HDR_LEN + plen;
    }
    if (got)
        h->link_errors = (int64_t)MIN(sum, 0x7fffffffffffffffull);
    return got;
}

int scsi_parse_log_page(const uint8_t *data, size_t len, struct bm_health *h)
{
    const uint8_t *v;
    size_t vlen;

    if (len < SCSI_LOG_HDR_LEN)
        return BM_EINVAL;
    switch (data[0] & 0x3f) {
    case SCSI_LOG_TEMPERATURE:
        /* SPC-4 7.3.21: parameter 0000h, byte 1 of its value the current
         * temperature in degrees Celsius, FFh when unknown. */
        if (scsi_log_param(data, len, 0x0000, &v, &vlen) != BM_OK || vlen < 2 || v[1] == SCSI_LOG_TEMP_UNKNOWN)
            return BM_ENODEV;
        h->temperature_c = v[1];
        return BM_OK;
    case SCSI_LOG_INFO_EXCEPTIONS:
        /* SPC-4 7.3.8: parameter 0000h: the informational exception's
         * ASC and ASCQ (00h: none; 5Dh: failure prediction threshold
         * exceeded), then the most recent temperature reading. */
        if (scsi_log_param(data, len, 0x0000, &v, &vlen) != BM_OK || vlen < 2)
            return BM_ENODEV;
        h->smart_passed = v[0] == 0 ? 1 : 0;
        if (vlen >= 3 && h->temperature_c < 0 && v[2] != SCSI_LOG_TEMP_UNKNOWN && v[2] != 0)
            h->temperature_c = v[2];
        return BM_OK;
    case SCSI_LOG_BACKGROUND_SCAN:
        return log_background_scan(data, log_end(data, len), h) ? BM_OK : BM_ENODEV;
    case SCSI_LOG_PROTOCOL_PORT:
        return log_sas_port(data, log_end(data, len), h) ? BM_OK : BM_ENODEV;
    default:
        return BM_ENODEV;
    }
}

/* ---- Over a transport ------------------------------------------------------------------ */

/* One data-in command into buf; the bytes that came back, or an error. */
static int health_cmd(const struct scsi_transport *t, const uint8_t *cdb, int cdb_len, uint8_t *buf, uint32_t len,
                      char *detail, size_t detail_len)
{
    struct scsi_cmd c;
    int rc;

    memset(&c, 0, sizeof(c));
    memcpy(c.cdb, cdb, (size_t)cdb_len);
    c.cdb_len = (uint8_t)cdb_len;
    c.dir = SCSI_DIR_IN;
    c.buf = buf;
    c.len = len;
    c.timeout_ns = HEALTH_CMD_TIMEOUT_NS;
    memset(buf, 0, len);
    rc = scsi_run(t, &c, NULL, detail, detail_len);
    if (rc != BM_OK)
        return rc;
    return (int)(len - MIN(c.resid, len));
}

/* SMART READ THRESHOLDS and READ DATA through the SATL, decoded by the
 * ATA SMART decoder the AHCI driver uses. Thresholds are optional (the
 * command is obsolete in ACS; most drives keep it). */
static int sat_smart(const struct scsi_transport *t, uint8_t *buf, struct bm_health *h, char *err, size_t errlen)
{
    uint8_t cdb[16];
    char detail[64];
    bool thresholds;
    int n;

    n = health_cmd(t, cdb, scsi_build_sat_smart(cdb, ATA_SMART_READ_THRESHOLDS), buf + ATA_SECTOR_BYTES,
                   ATA_SECTOR_BYTES, detail, sizeof(detail));
    thresholds = n == ATA_SECTOR_BYTES;
    n = health_cmd(t, cdb, scsi_build_sat_smart(cdb, ATA_SMART_READ_DATA), buf, ATA_SECTOR_BYTES, detail,
                   sizeof(detail));
    if (n < 0) {
        snprintf(err, errlen, "SAT SMART READ DATA: %s", detail);
        return n;
    }
    if (n < ATA_SECTOR_BYTES) {
        snprintf(err, errlen, "SAT SMART READ DATA returned %d bytes", n);
        return BM_EIO;
    }
    ata_parse_smart(buf, thresholds ? buf + ATA_SECTOR_BYTES : NULL, h);
    bm_strlcpy(h->source, "sat_ata_smart", sizeof(h->source));
    return BM_OK;
}

/* LOG SENSE 00h, then each page of ours it lists. */
static int log_health(const struct scsi_transport *t, uint8_t *buf, struct bm_health *h, char *err, size_t errlen)
{
    static const uint8_t pages[] = { SCSI_LOG_TEMPERATURE, SCSI_LOG_INFO_EXCEPTIONS, SCSI_LOG_BACKGROUND_SCAN,
                                     SCSI_LOG_PROTOCOL_PORT };
    uint8_t cdb[16], supported[256];
    char detail[64];
    size_t nsup;
    bool got = false;
    int n;

    n = health_cmd(t, cdb, scsi_build_log_sense(cdb, SCSI_LOG_SUPPORTED_PAGES, sizeof(supported)), buf,
                   sizeof(supported), detail, sizeof(detail));
    if (n < 0) {
        snprintf(err, errlen, "LOG SENSE: %s", detail);
        return n == BM_EIO ? BM_ENOTSUP : n;
    }
    nsup = (size_t)n;
    memcpy(supported, buf, nsup);
    bm_health_init(h, "scsi_log");
    for (size_t i = 0; i < ARRAY_SIZE(pages); i++) {
        if (!scsi_log_lists_page(supported, nsup, pages[i]))
            continue;
        n = health_cmd(t, cdb, scsi_build_log_sense(cdb, pages[i], HEALTH_LOG_ALLOC), buf, HEALTH_LOG_ALLOC, detail,
                       sizeof(detail));
        if (n > 0 && (buf[0] & 0x3f) == pages[i] && scsi_parse_log_page(buf, (size_t)n, h) == BM_OK)
            got = true;
    }
    if (!got) {
        snprintf(err, errlen, "LOG SENSE lists none of pages 0Dh, 2Fh, 15h, 18h with data");
        return BM_ENOTSUP;
    }
    return BM_OK;
}

int scsi_read_health(const struct scsi_transport *t, bool sat, struct bm_health *h, char *err, size_t errlen)
{
    char sat_err[96] = "";
    uint8_t *buf;
    int rc = BM_ENOTSUP;

    if (errlen)
        err[0] = '\0';
    buf = plat_alloc_pages(HEALTH_BUF_BYTES, true);
    if (!buf) {
        snprintf(err, errlen, "no memory for the health buffer");
        return BM_ENOMEM;
    }
    if (sat)
        rc = sat_smart(t, buf, h, sat_err, sizeof(sat_err));
    if (rc != BM_OK) {
        rc = log_health(t, buf, h, err, errlen);
        if (rc != BM_OK && sat_err[0]) {
            size_t l = strlen(err);
            snprintf(err + l, errlen - l, "; %s", sat_err);
        }
    }
    plat_free_pages(buf, HEALTH_BUF_BYTES);
    return rc;
}
