/* One SCSI disk for the device-model tests (see scsi_target.h). Answers
 * follow SPC-4 (INQUIRY, VPD pages, REPORT LUNS, REQUEST SENSE, sense
 * data) and SBC-3 (READ CAPACITY, READ/WRITE). */
#include <string.h>

#include "scsi_target.h"

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* Copy s into n bytes, space padded (INQUIRY's ASCII fields). */
static void put_padded(uint8_t *p, const char *s, size_t n)
{
    size_t len = s ? strlen(s) : 0;

    memset(p, ' ', n);
    memcpy(p, s, len < n ? len : n);
}

void scsi_target_fail(struct scsi_target_reply *r, uint8_t key, uint8_t asc, uint8_t ascq)
{
    r->status = SCSI_TARGET_CHECK_CONDITION;
    r->moved = 0;
    memset(r->sense, 0, sizeof(r->sense));
    r->sense[0] = 0x70;         /* current error, fixed format */
    r->sense[2] = key;
    r->sense[7] = SCSI_TARGET_SENSE_BYTES - 8; /* additional sense length */
    r->sense[12] = asc;
    r->sense[13] = ascq;
    r->sense_len = SCSI_TARGET_SENSE_BYTES;
}

bool scsi_target_rw(const uint8_t *cdb, bool *write, uint64_t *lba, uint32_t *blocks)
{
    switch (cdb[0]) {
    case 0x28: case 0x2a:       /* READ(10), WRITE(10) */
        *lba = be32(cdb + 2);
        *blocks = be16(cdb + 7);
        break;
    case 0x88: case 0x8a:       /* READ(16), WRITE(16) */
        *lba = (uint64_t)be32(cdb + 2) << 32 | be32(cdb + 6);
        *blocks = be32(cdb + 10);
        break;
    default:
        return false;
    }
    *write = cdb[0] == 0x2a || cdb[0] == 0x8a;
    return true;
}

/* Hand out up to n bytes of data, within what the CDB's allocation length
 * and the initiator's buffer take. */
static void give(struct scsi_target_reply *r, uint8_t *buf, uint32_t data_len, uint32_t alloc, const uint8_t *data,
                 uint32_t n)
{
    if (n > alloc)
        n = alloc;
    if (n > data_len)
        n = data_len;
    if (n)
        memcpy(buf, data, n);
    r->moved = n;
}

/* The VPD pages the target has, in ascending order (SPC-4 7.8.13). */
static unsigned vpd_pages(const struct scsi_target *t, uint8_t *pages)
{
    unsigned n = 0;

    pages[n++] = 0x00;
    if (t->serial)
        pages[n++] = 0x80;
    if (t->naa)
        pages[n++] = 0x83;
    if (t->sat)
        pages[n++] = 0x89;
    if (t->max_xfer_blocks || t->opt_xfer_blocks)
        pages[n++] = 0xb0;
    return n;
}

/* INQUIRY (SPC-4 6.6): standard data, or a VPD page with EVPD set. */
static void inquiry(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                    struct scsi_target_reply *r)
{
    uint8_t out[96] = { 0 }, pages[8];
    uint32_t n;
    unsigned np = vpd_pages(t, pages);
    bool listed = false;

    for (unsigned i = 0; i < np; i++)
        listed |= (cdb[1] & 1) && pages[i] == cdb[2];
    if ((cdb[1] & 1) && !listed)
        t->unlisted_asked++;
    if (!(cdb[1] & 1)) {
        if (cdb[2]) {           /* a page code without EVPD */
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
            return;
        }
        out[2] = t->version ? t->version : 6;
        out[3] = 0x02;          /* response data format 2 */
        out[4] = sizeof(out) - 5;
        out[5] = t->protect ? 0x01 : 0; /* PROTECT */
        out[7] = t->untagged ? 0 : 0x02; /* CMDQUE */
        put_padded(out + 8, t->vendor, 8);
        put_padded(out + 16, t->product, 16);
        put_padded(out + 32, t->revision, 4);
        n = sizeof(out);
    } else if (cdb[2] == 0x00) {  /* supported VPD pages */
        memcpy(out + 4, pages, np);
        out[3] = (uint8_t)np;
        n = 4 + np;
    } else if (cdb[2] == 0x80 && t->serial) {  /* unit serial number */
        size_t len = strlen(t->serial);
        out[1] = 0x80;
        out[3] = (uint8_t)len;
        memcpy(out + 4, t->serial, len);
        n = 4 + (uint32_t)len;
    } else if (cdb[2] == 0x83 && t->naa) {  /* device identification: one NAA designator */
        out[1] = 0x83;
        out[3] = 12;
        out[4] = 0x01;          /* code set: binary */
        out[5] = 0x03;          /* association: logical unit, type: NAA */
        out[7] = 8;
        put_be(out + 8, t->naa, 8);
        n = 16;
    } else if (cdb[2] == 0x89 && t->sat) {  /* ATA information (SAT-3 12.4.2): 238h bytes, the start kept */
        out[1] = 0x89;
        put_be(out + 2, 0x238, 2);
        memcpy(out + 8, "ATA     ", 8);  /* SAT vendor identification */
        n = sizeof(out);
    } else if (cdb[2] == 0xb0 && (t->max_xfer_blocks || t->opt_xfer_blocks)) {  /* block limits (SBC-3 6.6.4) */
        out[1] = 0xb0;
        out[3] = 0x3c;
        put_be(out + 6, 1, 2);    /* optimal transfer length granularity */
        put_be(out + 8, t->max_xfer_blocks, 4);
        put_be(out + 12, t->opt_xfer_blocks, 4);
        n = 64;
    } else {
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    give(r, buf, data_len, be16(cdb + 3), out, n);
}

/* READ/WRITE(10) and (16) (SBC-3 5.11, 5.39): a range past the last block
 * is refused before any data moves. */
static void read_write(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                       struct scsi_target_reply *r)
{
    bool write;
    uint64_t lba;
    uint32_t blocks, bytes;

    scsi_target_rw(cdb, &write, &lba, &blocks);
    if (t->max_xfer_blocks && blocks > t->max_xfer_blocks) {
        /* SBC-3 5.15: a transfer length past the block limits page's
         * maximum is an invalid field. */
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    if (lba > t->blocks || blocks > t->blocks - lba) {
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x21, 0x00);
        return;
    }
    if (t->cond && t->cond->left && t->cond->key != SCSI_TARGET_KEY_RECOVERED_ERROR) {
        t->cond->left--;
        t->cond->reported++;
        scsi_target_fail(r, t->cond->key, t->cond->asc, t->cond->ascq);
        return;
    }
    bytes = blocks * t->block_bytes;
    if (bytes > data_len)
        bytes = data_len - data_len % t->block_bytes; /* the initiator's buffer ends first */
    if (write) {
        t->writes++;
        if (t->write && bytes)
            t->write(t->ctx, lba, bytes / t->block_bytes, buf);
    } else {
        t->reads++;
        if (t->read && bytes)
            t->read(t->ctx, lba, bytes / t->block_bytes, buf);
        else if (bytes)
            memset(buf, 0, bytes);
    }
    if (t->cond && t->cond->left) {
        /* RECOVERED ERROR: done, and reported. */
        t->cond->left--;
        t->cond->reported++;
        scsi_target_fail(r, t->cond->key, t->cond->asc, t->cond->ascq);
    }
    r->moved = bytes;
}

/* One log parameter: code, control (LP / binary format), length, value. */
static uint32_t log_param(uint8_t *p, uint16_t code, const uint8_t *val, uint8_t len)
{
    put_be(p, code, 2);
    p[2] = 0x03;                /* TSD/ETC/TMC 0, FORMAT AND LINKING 11b: binary */
    p[3] = len;
    memcpy(p + 4, val, len);
    return 4u + len;
}

/* LOG SENSE (SPC-4 6.6): page 00h lists the pages the target keeps; a page
 * or subpage it does not keep is an invalid field. */
static void log_sense(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                      struct scsi_target_reply *r)
{
    const struct scsi_target_log *l = t->log;
    uint8_t out[512] = { 0 }, v[64], page = cdb[2] & 0x3f, list[8];
    uint32_t n = 4, nl = 0;
    bool listed = false;

    list[nl++] = 0x00;
    if (l->temperature >= 0)
        list[nl++] = 0x0d;
    if (l->bg_scan)
        list[nl++] = 0x15;
    if (l->sas_port)
        list[nl++] = 0x18;
    if (l->ie)
        list[nl++] = 0x2f;
    for (uint32_t i = 0; i < nl; i++)
        listed |= list[i] == page;
    if (!listed)
        t->unlisted_asked++;
    if (!listed || cdb[3] || (cdb[1] & 0x02)) {  /* a page, subpage or PPC it does not have */
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    out[0] = page;
    switch (page) {
    case 0x00:
        memcpy(out + 4, list, nl);
        n += nl;
        break;
    case 0x0d:                  /* temperature: 0000h current, 0001h reference */
        memset(v, 0, sizeof(v));
        v[1] = (uint8_t)l->temperature;
        n += log_param(out + n, 0x0000, v, 2);
        v[1] = 60;
        n += log_param(out + n, 0x0001, v, 2);
        break;
    case 0x2f:                  /* informational exceptions general parameter */
        v[0] = l->ie_asc, v[1] = l->ie_ascq, v[2] = l->ie_temperature;
        n += log_param(out + n, 0x0000, v, 3);
        break;
    case 0x15:                  /* background scan results: status, then the defects found */
        memset(v, 0, sizeof(v));
        put_be(v, l->power_on_minutes, 4);
        v[5] = 1;               /* background scan status: active */
        n += log_param(out + n, 0x0000, v, 12);
        for (unsigned i = 0; i <= l->medium_errors && n + 24 <= sizeof(out); i++) {
            memset(v, 0, sizeof(v));
            put_be(v, l->power_on_minutes, 4);
            v[4] = (uint8_t)(0x10 | (i < l->medium_errors ? 0x03 : 0x01)); /* reassign status, sense key */
            v[5] = 0x11;
            put_be(v + 12, 1000 + i, 8);
            n += log_param(out + n, (uint16_t)(1 + i), v, 20);
        }
        break;
    case 0x18:                  /* protocol-specific port, SAS: one port, two phy descriptors of 48 bytes */
        memset(out + n, 0, 4 + 4 + 2 * 48);
        put_be(out + n, 0x0001, 2);         /* relative target port 1 */
        out[n + 2] = 0x03;
        out[n + 3] = 4 + 2 * 48;
        out[n + 4] = 0x06;                  /* SAS */
        out[n + 7] = 2;                     /* phys */
        for (unsigned p = 0; p < 2; p++) {
            uint8_t *d = out + n + 8 + 48 * p;
            d[1] = (uint8_t)p;
            d[3] = 44;
            put_be(d + 32, l->invalid_dwords, 4);
            put_be(d + 36, l->disparity_errors, 4);
            put_be(d + 40, l->loss_of_sync, 4);
            put_be(d + 44, l->reset_problems, 4);
        }
        n += 8 + 2 * 48;
        break;
    }
    put_be(out + 2, n - 4, 2);
    give(r, buf, data_len, be16(cdb + 7), out, n);
}

/* ATA PASS-THROUGH(16) of a SATL (SAT-3 12.2.2) for the SMART data-in
 * commands: PIO data-in, T_DIR in, BYTE_BLOCK, T_LENGTH from COUNT, one
 * block; anything else in the CDB is an invalid field. The drive's own
 * refusal (a feature it lacks, SMART disabled, a wrong signature) is ATA
 * ABRT: ABORTED COMMAND with ATA PASS-THROUGH INFORMATION AVAILABLE. */
static void ata_pass_through(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                             struct scsi_target_reply *r)
{
    const uint8_t *src;

    if (((cdb[1] >> 1) & 0x0f) != 4 || (cdb[2] & 0x0f) != 0x0e || cdb[6] != 1 || cdb[5] || data_len < 512) {
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
        return;
    }
    src = cdb[4] == 0xd0 ? t->smart_data : cdb[4] == 0xd1 ? t->smart_thresholds : NULL;
    if (cdb[14] != 0xb0 || cdb[10] != 0x4f || cdb[12] != 0xc2 || !src) {
        scsi_target_fail(r, 0x0b, 0x00, 0x1d);
        return;
    }
    memcpy(buf, src, 512);
    r->moved = 512;
}

void scsi_target_exec(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                      struct scsi_target_reply *r)
{
    uint8_t out[32] = { 0 };

    memset(r, 0, sizeof(*r));
    switch (cdb[0]) {
    case 0x00:                  /* TEST UNIT READY */
        break;
    case 0x03:                  /* REQUEST SENSE: the last error's sense, once */
        if (t->have_sense)
            memcpy(out, t->sense, SCSI_TARGET_SENSE_BYTES);
        else
            out[0] = 0x70, out[7] = SCSI_TARGET_SENSE_BYTES - 8; /* NO SENSE */
        t->have_sense = false;
        give(r, buf, data_len, cdb[4], out, SCSI_TARGET_SENSE_BYTES);
        return;
    case 0x12:
        inquiry(t, cdb, buf, data_len, r);
        break;
    case 0x25:                  /* READ CAPACITY(10): all ones past 2^32 blocks */
        put_be(out, t->blocks - 1 > 0xffffffffull ? 0xffffffffu : t->blocks - 1, 4);
        put_be(out + 4, t->block_bytes, 4);
        give(r, buf, data_len, 8, out, 8);
        break;
    case 0x9e:                  /* SERVICE ACTION IN(16) */
        t->rc16_asked++;
        if (t->no_read_capacity_16) {
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20, 0x00);
            break;
        }
        if ((cdb[1] & 0x1f) != 0x10) {  /* only READ CAPACITY(16) */
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
            break;
        }
        put_be(out, t->blocks - 1, 8);
        put_be(out + 8, t->block_bytes, 4);
        if (t->pi_type)
            out[12] = (uint8_t)(((t->pi_type - 1) << 1) | 1); /* P_TYPE, PROT_EN */
        out[13] = t->lbppbe;
        put_be(out + 14, t->align_lba & 0x3fff, 2);
        give(r, buf, data_len, be32(cdb + 10), out, 32);
        break;
    case 0xa0:                  /* REPORT LUNS: LUN 0 alone */
        if (be32(cdb + 6) < 16) {  /* SPC-4: an allocation length under 16 is invalid */
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
            break;
        }
        put_be(out, 8, 4);
        give(r, buf, data_len, be32(cdb + 6), out, 16);
        break;
    case 0x28: case 0x2a: case 0x88: case 0x8a:
        read_write(t, cdb, buf, data_len, r);
        break;
    case 0x4d:                  /* LOG SENSE */
        if (!t->log)
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20, 0x00);
        else
            log_sense(t, cdb, buf, data_len, r);
        break;
    case 0x85:                  /* ATA PASS-THROUGH(16): only a SATL knows it */
        if (!t->sat)
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20, 0x00);
        else
            ata_pass_through(t, cdb, buf, data_len, r);
        break;
    default:
        scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20, 0x00);
        break;
    }
    if (r->status == SCSI_TARGET_CHECK_CONDITION) {
        t->rejected++;
        memcpy(t->sense, r->sense, sizeof(t->sense));
        t->have_sense = true;
    }
}
