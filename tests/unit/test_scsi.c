/* The shared SCSI layer: CDB encoding, data parsing, sense decoding and
 * identification over a simulated transport. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "drivers/scsi/scsi.h"

/* ---- CDB encoding -------------------------------------------------------------------- */

static void test_read10_for_small_disk(void **state)
{
    uint8_t cdb[16];
    int len = scsi_build_rw(cdb, BM_IO_READ, 1000000, 0x12345678, 8);

    assert_int_equal(len, 10);
    assert_int_equal(cdb[0], 0x28);
    assert_int_equal(cdb[1], 0);
    /* LBA big-endian in bytes 2..5, transfer length in 7..8 (SBC-3) */
    assert_int_equal(cdb[2], 0x12);
    assert_int_equal(cdb[3], 0x34);
    assert_int_equal(cdb[4], 0x56);
    assert_int_equal(cdb[5], 0x78);
    assert_int_equal(cdb[6], 0);
    assert_int_equal(cdb[7], 0);
    assert_int_equal(cdb[8], 8);
    assert_int_equal(cdb[9], 0);
}

static void test_write10_opcode(void **state)
{
    uint8_t cdb[16];

    assert_int_equal(scsi_build_rw(cdb, BM_IO_WRITE, 2048, 0, 1), 10);
    assert_int_equal(cdb[0], 0x2a);
}

static void test_read16_when_capacity_exceeds_32_bits(void **state)
{
    uint8_t cdb[16];
    /* 2^32 + 1 blocks: the last LBA needs 33 bits, even for LBA 0 */
    int len = scsi_build_rw(cdb, BM_IO_READ, (1ull << 32) + 1, 0, 1);

    assert_int_equal(len, 16);
    assert_int_equal(cdb[0], 0x88);
}

static void test_rw10_at_exactly_32_bit_capacity(void **state)
{
    uint8_t cdb[16];

    /* 2^32 blocks: last LBA 0xffffffff still fits READ(10) */
    assert_int_equal(scsi_build_rw(cdb, BM_IO_READ, 1ull << 32, 0xfffffff0ull, 16), 10);
    assert_false(scsi_rw_needs_16(1ull << 32, 0xffffffffull, 1));
}

static void test_read16_when_lba_range_crosses_32_bits(void **state)
{
    uint8_t cdb[16];
    int len = scsi_build_rw(cdb, BM_IO_READ, 1ull << 32, 0xfffffff0ull, 32);

    /* blocks 0xfffffff0..0x1_0000_000f: the end needs READ(16) */
    assert_int_equal(len, 16);
}

static void test_read16_field_layout(void **state)
{
    uint8_t cdb[16];
    int len = scsi_build_rw(cdb, BM_IO_WRITE, 1ull << 40, 0x0102030405060708ull, 0x00abcdef);

    assert_int_equal(len, 16);
    assert_int_equal(cdb[0], 0x8a);
    /* LBA in bytes 2..9, transfer length in 10..13 (SBC-3) */
    for (int i = 0; i < 8; i++)
        assert_int_equal(cdb[2 + i], i + 1);
    assert_int_equal(cdb[10], 0x00);
    assert_int_equal(cdb[11], 0xab);
    assert_int_equal(cdb[12], 0xcd);
    assert_int_equal(cdb[13], 0xef);
    assert_int_equal(cdb[14], 0);
    assert_int_equal(cdb[15], 0);
}

static void test_read16_when_blocks_exceed_65535(void **state)
{
    uint8_t cdb[16];

    assert_int_equal(scsi_build_rw(cdb, BM_IO_READ, 1000000, 0, 65535), 10);
    assert_int_equal(scsi_build_rw(cdb, BM_IO_READ, 1000000, 0, 65536), 16);
}

static void test_inquiry_and_capacity_cdbs(void **state)
{
    uint8_t cdb[16];

    assert_int_equal(scsi_build_inquiry(cdb, true, 0x80, 252), 6);
    assert_int_equal(cdb[0], 0x12);
    assert_int_equal(cdb[1], 0x01);
    assert_int_equal(cdb[2], 0x80);
    assert_int_equal(cdb[3], 0);
    assert_int_equal(cdb[4], 252);

    assert_int_equal(scsi_build_inquiry(cdb, false, 0x80, 96), 6);
    assert_int_equal(cdb[1], 0);
    assert_int_equal(cdb[2], 0); /* page code must be 0 without EVPD */

    assert_int_equal(scsi_build_read_capacity16(cdb, 32), 16);
    assert_int_equal(cdb[0], 0x9e);
    assert_int_equal(cdb[1], 0x10);
    assert_int_equal(cdb[13], 32);

    assert_int_equal(scsi_build_read_capacity10(cdb), 10);
    assert_int_equal(cdb[0], 0x25);

    assert_int_equal(scsi_build_report_luns(cdb, 2048), 12);
    assert_int_equal(cdb[0], 0xa0);
    assert_int_equal(cdb[8], 0x08);
    assert_int_equal(cdb[9], 0x00);

    assert_int_equal(scsi_build_test_unit_ready(cdb), 6);
    assert_int_equal(cdb[0], 0);
}

/* ---- Parsers ------------------------------------------------------------------------------ */

static void test_inquiry_strings_trimmed(void **state)
{
    uint8_t d[36] = { 0x00, 0x00, 0x05, 0x02, 31 };
    struct scsi_inquiry inq;

    memcpy(d + 8, "SEAGATE ", 8);
    memcpy(d + 16, "ST4000NM0023    ", 16);
    memcpy(d + 32, "GS0F", 4);
    assert_int_equal(scsi_parse_inquiry(d, sizeof(d), &inq), BM_OK);
    assert_string_equal(inq.vendor, "SEAGATE");
    assert_string_equal(inq.product, "ST4000NM0023");
    assert_string_equal(inq.revision, "GS0F");
    assert_true(scsi_inquiry_is_disk(&inq));

    d[0] = 0x7f; /* qualifier 3, type 1fh: no LUN here */
    scsi_parse_inquiry(d, sizeof(d), &inq);
    assert_false(scsi_inquiry_is_disk(&inq));
    d[0] = 0x05; /* CD/DVD */
    scsi_parse_inquiry(d, sizeof(d), &inq);
    assert_false(scsi_inquiry_is_disk(&inq));
    assert_int_equal(scsi_parse_inquiry(d, 20, &inq), BM_EINVAL);
}

static void test_unit_serial_vpd(void **state)
{
    uint8_t page[] = { 0x00, 0x80, 0x00, 0x0c, ' ', ' ', 'Z', '1', 'Z', '2', 'A', 'B', 'C', ' ', ' ', ' ' };
    uint8_t blank[] = { 0x00, 0x80, 0x00, 0x04, ' ', ' ', ' ', ' ' };
    uint8_t pages[] = { 0x00, 0x00, 0x00, 0x03, 0x00, 0x80, 0x83 };
    char serial[48];

    assert_int_equal(scsi_parse_unit_serial(page, sizeof(page), serial, sizeof(serial)), BM_OK);
    assert_string_equal(serial, "Z1Z2ABC");
    assert_int_equal(scsi_parse_unit_serial(blank, sizeof(blank), serial, sizeof(serial)), BM_EINVAL);
    assert_true(scsi_vpd_lists_page(pages, sizeof(pages), 0x80));
    assert_false(scsi_vpd_lists_page(pages, sizeof(pages), 0xb0));
}

static void test_capacity16_with_4k_blocks_and_512e(void **state)
{
    uint8_t d[32] = { 0 };
    struct scsi_capacity cap;

    /* last LBA 0x1_0000_0000, 4096-byte blocks */
    d[3] = 0x01;
    d[10] = 0x10;
    assert_int_equal(scsi_parse_capacity16(d, sizeof(d), &cap), BM_OK);
    assert_int_equal(cap.blocks, 0x100000001ull);
    assert_int_equal(cap.block_bytes, 4096);
    assert_int_equal(cap.phys_bytes, 4096);

    /* 512e: 512-byte logical, exponent 3 -> 4096-byte physical */
    memset(d, 0, sizeof(d));
    d[7] = 0xff;
    d[10] = 0x02;
    d[13] = 0x03;
    assert_int_equal(scsi_parse_capacity16(d, sizeof(d), &cap), BM_OK);
    assert_int_equal(cap.blocks, 256);
    assert_int_equal(cap.block_bytes, 512);
    assert_int_equal(cap.phys_bytes, 4096);
}

static void test_capacity10_overflow_asks_for_16(void **state)
{
    uint8_t d[8] = { 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00 };
    uint8_t small[8] = { 0x00, 0x01, 0xff, 0xff, 0x00, 0x00, 0x02, 0x00 };
    struct scsi_capacity cap;
    bool need16;

    assert_int_equal(scsi_parse_capacity10(d, sizeof(d), &cap, &need16), BM_OK);
    assert_true(need16);
    assert_int_equal(scsi_parse_capacity10(small, sizeof(small), &cap, &need16), BM_OK);
    assert_false(need16);
    assert_int_equal(cap.blocks, 0x20000);
    assert_int_equal(cap.block_bytes, 512);
}

static void test_report_luns_list(void **state)
{
    uint8_t d[8 + 3 * 8] = { 0, 0, 0, 24 };
    uint32_t luns[8];

    d[8 + 1] = 0;         /* LUN 0, peripheral addressing */
    d[16 + 1] = 5;        /* LUN 5 */
    d[24 + 0] = 0x41;     /* flat space LUN 0x102 */
    d[24 + 1] = 0x02;
    assert_int_equal(scsi_parse_report_luns(d, sizeof(d), luns, 8), 3);
    assert_int_equal(luns[0], 0);
    assert_int_equal(luns[1], 5);
    assert_int_equal(luns[2], 0x102);
    assert_int_equal(scsi_parse_report_luns(d, sizeof(d), luns, 2), 2);
}

/* ---- Sense decoding ------------------------------------------------------------------------ */

static void test_fixed_sense_medium_error_with_lba(void **state)
{
    uint8_t s[18] = { 0xf0, 0, 0x03, 0x00, 0x12, 0x34, 0x56, 10, 0, 0, 0, 0, 0x11, 0x00 };
    struct scsi_sense sense;
    char text[64];

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_OK);
    assert_true(sense.valid);
    assert_false(sense.descriptor);
    assert_false(sense.deferred);
    assert_int_equal(sense.key, SCSI_KEY_MEDIUM_ERROR);
    assert_int_equal(sense.asc, 0x11);
    assert_int_equal(sense.ascq, 0x00);
    assert_true(sense.info_valid);
    assert_int_equal(sense.info, 0x00123456);
    scsi_describe(SCSI_STATUS_CHECK_CONDITION, s, sizeof(s), text, sizeof(text));
    assert_string_equal(text, "MEDIUM ERROR 11/00 unrecovered read error");
}

static void test_fixed_sense_unit_attention(void **state)
{
    uint8_t s[18] = { 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x29, 0x00 };
    struct scsi_sense sense;
    char text[64];

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_OK);
    assert_int_equal(sense.key, SCSI_KEY_UNIT_ATTENTION);
    assert_false(sense.info_valid);
    scsi_describe(SCSI_STATUS_CHECK_CONDITION, s, sizeof(s), text, sizeof(text));
    assert_string_equal(text, "UNIT ATTENTION 29/00 power on, reset or bus device reset");
}

static void test_fixed_sense_short_additional_length(void **state)
{
    /* additional length 4 (bytes 8..11): ASC/ASCQ at 12/13 are not data */
    uint8_t s[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0x24, 0x00 };
    struct scsi_sense sense;

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_OK);
    assert_int_equal(sense.key, SCSI_KEY_ILLEGAL_REQUEST);
    assert_int_equal(sense.asc, 0);
}

static void test_descriptor_sense_with_information(void **state)
{
    /* 72h, ILLEGAL REQUEST 21/00, one information descriptor (LBA) */
    uint8_t s[8 + 12] = { 0x72, 0x05, 0x21, 0x00, 0, 0, 0, 12,
                          0x00, 0x0a, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10 };
    struct scsi_sense sense;
    char text[64];

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_OK);
    assert_true(sense.descriptor);
    assert_int_equal(sense.key, SCSI_KEY_ILLEGAL_REQUEST);
    assert_int_equal(sense.asc, 0x21);
    assert_true(sense.info_valid);
    assert_int_equal(sense.info, 0x0000000100000010ull);
    scsi_describe(SCSI_STATUS_CHECK_CONDITION, s, sizeof(s), text, sizeof(text));
    assert_string_equal(text, "ILLEGAL REQUEST 21/00 LBA out of range");
}

static void test_descriptor_sense_deferred_hardware_error(void **state)
{
    uint8_t s[8] = { 0x73, 0x04, 0x44, 0x00, 0, 0, 0, 0 };
    struct scsi_sense sense;

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_OK);
    assert_true(sense.deferred);
    assert_int_equal(sense.key, SCSI_KEY_HARDWARE_ERROR);
    assert_string_equal(scsi_asc_text(sense.asc, sense.ascq), "internal target failure");
    assert_false(sense.info_valid);
}

static void test_sense_unknown_format_rejected(void **state)
{
    uint8_t s[18] = { 0x7f, 0, 0x03 };
    struct scsi_sense sense;
    char text[64];

    assert_int_equal(scsi_sense_parse(s, sizeof(s), &sense), BM_EINVAL);
    assert_false(sense.valid);
    scsi_describe(SCSI_STATUS_CHECK_CONDITION, s, sizeof(s), text, sizeof(text));
    assert_string_equal(text, "CHECK CONDITION, no sense data");
    scsi_describe(SCSI_STATUS_BUSY, NULL, 0, text, sizeof(text));
    assert_string_equal(text, "SCSI status 0x08 BUSY");
}

static void test_asc_text_wildcard_and_unknown(void **state)
{
    assert_string_equal(scsi_asc_text(0x04, 0x01), "becoming ready");
    assert_string_equal(scsi_asc_text(0x04, 0x22), "logical unit not ready");
    assert_null(scsi_asc_text(0x99, 0x00));
    assert_string_equal(scsi_sense_key_name(SCSI_KEY_ABORTED_COMMAND), "ABORTED COMMAND");
}

/* ---- Identification over a simulated target --------------------------------------------------- */

struct fake_target {
    bool present;
    bool rc16_supported;
    bool has_serial;
    int unit_attentions;    /* TURs answered with UNIT ATTENTION first */
    uint64_t blocks;
    uint32_t block_bytes;
    int tur_count;
    int busy_answers;       /* INQUIRYs answered BUSY / TASK SET FULL first */
};

static void fake_check(struct scsi_cmd *c, uint8_t key, uint8_t asc, uint8_t ascq)
{
    c->status = SCSI_STATUS_CHECK_CONDITION;
    memset(c->sense, 0, 18);
    c->sense[0] = 0x70;
    c->sense[2] = key;
    c->sense[7] = 10;
    c->sense[12] = asc;
    c->sense[13] = ascq;
    c->sense_len = 18;
}

static int fake_exec(void *ctx, struct scsi_cmd *c, char *detail, size_t detail_len)
{
    struct fake_target *t = ctx;
    uint8_t *b = c->buf;

    if (!t->present)
        return BM_ENODEV;
    c->status = SCSI_STATUS_GOOD;
    if (c->cdb[0] == SCSI_OP_INQUIRY && t->busy_answers > 0) {
        c->status = t->busy_answers-- % 2 ? SCSI_STATUS_BUSY : SCSI_STATUS_TASK_SET_FULL;
        return BM_OK;
    }
    switch (c->cdb[0]) {
    case SCSI_OP_INQUIRY:
        memset(b, 0, c->len);
        if (!(c->cdb[1] & 1)) {
            b[4] = 31;
            memcpy(b + 8, "QEMU    QEMU HARDDISK   2.5+", 28);
        } else if (c->cdb[2] == 0x00) {
            b[1] = 0x00;
            b[3] = t->has_serial ? 2 : 1;
            b[4] = 0x00;
            b[5] = 0x80;
        } else if (c->cdb[2] == 0x80 && t->has_serial) {
            b[1] = 0x80;
            b[3] = 6;
            memcpy(b + 4, "SN1234", 6);
        } else {
            fake_check(c, SCSI_KEY_ILLEGAL_REQUEST, 0x24, 0);
        }
        break;
    case SCSI_OP_TEST_UNIT_READY:
        t->tur_count++;
        if (t->unit_attentions > 0) {
            t->unit_attentions--;
            fake_check(c, SCSI_KEY_UNIT_ATTENTION, 0x29, 0);
        }
        break;
    case SCSI_OP_SERVICE_ACTION_IN_16:
        if (!t->rc16_supported) {
            fake_check(c, SCSI_KEY_ILLEGAL_REQUEST, 0x20, 0);
            break;
        }
        memset(b, 0, c->len);
        scsi_put_be64(b, t->blocks - 1);
        scsi_put_be32(b + 8, t->block_bytes);
        break;
    case SCSI_OP_READ_CAPACITY_10:
        scsi_put_be32(b, t->blocks - 1 > 0xffffffffull ? 0xffffffffu : (uint32_t)(t->blocks - 1));
        scsi_put_be32(b + 4, t->block_bytes);
        break;
    default:
        fake_check(c, SCSI_KEY_ILLEGAL_REQUEST, 0x20, 0);
    }
    return BM_OK;
}

/* BUSY and TASK SET FULL are "ask again later", not failures: scsi_run
 * retries them with a growing delay (3 ms doubling) within the command's
 * timeout, and reports BM_EBUSY only once that is used up. */
static void test_busy_and_task_set_full_are_retried(void **state)
{
    struct fake_target t = { true, true, true, 0, 262144, 512, 0, 4 };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    char err[128] = "";
    struct scsi_cmd c;
    uint8_t buf[96];
    uint64_t t0;

    (void)state;
    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_OK);
    assert_int_equal(t.busy_answers, 0);
    assert_string_equal(info.inq.vendor, "QEMU");
    /* Always busy: BM_EBUSY after about the timeout, not at once. */
    t.busy_answers = 1000000;
    memset(&c, 0, sizeof(c));
    c.dir = SCSI_DIR_IN;
    c.buf = buf;
    c.len = sizeof(buf);
    c.cdb[0] = SCSI_OP_INQUIRY;
    c.cdb[4] = sizeof(buf);
    c.cdb_len = 6;
    c.timeout_ns = 50ull * 1000000ull;
    t0 = plat_now_ns();
    assert_int_equal(scsi_run(&tr, &c, NULL, err, sizeof(err)), BM_EBUSY);
    assert_true(plat_now_ns() - t0 >= 20ull * 1000000ull);
    assert_true(plat_now_ns() - t0 < 1000ull * 1000000ull);
    assert_true(1000000 - t.busy_answers >= 3);
}

static void test_identify_4k_disk_through_unit_attentions(void **state)
{
    struct fake_target t = { true, true, true, 2, 262144, 4096, 0 };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    struct bm_disk d;
    char err[96];

    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_OK);
    assert_int_equal(t.tur_count, 3); /* two unit attentions, then GOOD */
    assert_int_equal(info.cap.blocks, 262144);
    assert_int_equal(info.cap.block_bytes, 4096);
    assert_false(info.use16);
    assert_string_equal(info.serial, "SN1234");
    memset(&d, 0, sizeof(d));
    scsi_fill_disk(&d, &info);
    assert_string_equal(d.model, "QEMU QEMU HARDDISK");
    assert_string_equal(d.firmware, "2.5+");
    assert_string_equal(d.serial, "SN1234");
    assert_int_equal(d.lba_bytes, 4096);
    assert_int_equal(d.blocks, 262144);
}

static void test_identify_falls_back_to_capacity10(void **state)
{
    struct fake_target t = { true, false, false, 0, 2097152, 512, 0 };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    char err[96];

    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_OK);
    assert_int_equal(info.cap.blocks, 2097152);
    assert_int_equal(info.cap.block_bytes, 512);
    assert_string_equal(info.serial, "");
}

static void test_identify_huge_disk_without_rc16_fails(void **state)
{
    struct fake_target t = { true, false, true, 0, 1ull << 33, 512, 0 };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    char err[96];

    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_EIO);
    assert_non_null(strstr(err, "READ CAPACITY"));
}

static void test_identify_huge_disk_uses_16(void **state)
{
    struct fake_target t = { true, true, true, 0, 1ull << 33, 512, 0 };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    char err[96];

    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_OK);
    assert_true(info.use16);
    assert_int_equal(info.cap.blocks, 1ull << 33);
}

static void test_identify_absent_target(void **state)
{
    struct fake_target t = { false };
    struct scsi_transport tr = { fake_exec, &t, "fake" };
    struct scsi_disk_info info;
    char err[96];

    assert_int_equal(scsi_identify(&tr, &info, err, sizeof(err)), BM_ENODEV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read10_for_small_disk),
        cmocka_unit_test(test_write10_opcode),
        cmocka_unit_test(test_read16_when_capacity_exceeds_32_bits),
        cmocka_unit_test(test_rw10_at_exactly_32_bit_capacity),
        cmocka_unit_test(test_read16_when_lba_range_crosses_32_bits),
        cmocka_unit_test(test_read16_field_layout),
        cmocka_unit_test(test_read16_when_blocks_exceed_65535),
        cmocka_unit_test(test_inquiry_and_capacity_cdbs),
        cmocka_unit_test(test_inquiry_strings_trimmed),
        cmocka_unit_test(test_unit_serial_vpd),
        cmocka_unit_test(test_capacity16_with_4k_blocks_and_512e),
        cmocka_unit_test(test_capacity10_overflow_asks_for_16),
        cmocka_unit_test(test_report_luns_list),
        cmocka_unit_test(test_fixed_sense_medium_error_with_lba),
        cmocka_unit_test(test_fixed_sense_unit_attention),
        cmocka_unit_test(test_fixed_sense_short_additional_length),
        cmocka_unit_test(test_descriptor_sense_with_information),
        cmocka_unit_test(test_descriptor_sense_deferred_hardware_error),
        cmocka_unit_test(test_sense_unknown_format_rejected),
        cmocka_unit_test(test_asc_text_wildcard_and_unknown),
        cmocka_unit_test(test_identify_4k_disk_through_unit_attentions),
        cmocka_unit_test(test_busy_and_task_set_full_are_retried),
        cmocka_unit_test(test_identify_falls_back_to_capacity10),
        cmocka_unit_test(test_identify_huge_disk_without_rc16_fails),
        cmocka_unit_test(test_identify_huge_disk_uses_16),
        cmocka_unit_test(test_identify_absent_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
