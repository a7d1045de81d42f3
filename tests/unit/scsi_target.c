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

/* INQUIRY (SPC-4 6.6): standard data, or a VPD page with EVPD set. */
static void inquiry(struct scsi_target *t, const uint8_t *cdb, uint8_t *buf, uint32_t data_len,
                    struct scsi_target_reply *r)
{
    uint8_t out[96] = { 0 };
    uint32_t n;

    if (!(cdb[1] & 1)) {
        if (cdb[2]) {           /* a page code without EVPD */
            scsi_target_fail(r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24, 0x00);
            return;
        }
        out[2] = t->version ? t->version : 6;
        out[3] = 0x02;          /* response data format 2 */
        out[4] = sizeof(out) - 5;
        out[7] = t->untagged ? 0 : 0x02; /* CMDQUE */
        put_padded(out + 8, t->vendor, 8);
        put_padded(out + 16, t->product, 16);
        put_padded(out + 32, t->revision, 4);
        n = sizeof(out);
    } else if (cdb[2] == 0x00) {  /* supported VPD pages */
        n = 4;
        out[n++] = 0x00;
        if (t->serial)
            out[n++] = 0x80;
        if (t->naa)
            out[n++] = 0x83;
        out[3] = (uint8_t)(n - 4);
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
