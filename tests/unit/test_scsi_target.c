/* The SCSI disk the HBA device models share (tests/unit/scsi_target.h):
 * it answers as an SBC-3 disk and rejects what one rejects, so a driver
 * that sends a bad command fails its model test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "scsi_target.h"

static void fill(void *ctx, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    (void)ctx;
    for (uint32_t i = 0; i < blocks * 512; i++)
        buf[i] = (uint8_t)(lba + i / 512);
}

static struct scsi_target disk(void)
{
    return (struct scsi_target){ .vendor = "SIMVEND", .product = "SIM DISK", .revision = "1.00",
                                 .serial = "SN0001", .naa = 0x5000c500aabbccddull, .blocks = 1000,
                                 .block_bytes = 512, .read = fill };
}

static void assert_sense(const struct scsi_target_reply *r, uint8_t key, uint8_t asc)
{
    assert_int_equal(r->status, SCSI_TARGET_CHECK_CONDITION);
    assert_int_equal(r->sense_len, SCSI_TARGET_SENSE_BYTES);
    assert_int_equal(r->sense[0], 0x70);
    assert_int_equal(r->sense[2], key);
    assert_int_equal(r->sense[12], asc);
    assert_int_equal(r->moved, 0);
}

static void test_standard_inquiry_names_the_disk_and_its_queueing(void **state)
{
    struct scsi_target t = disk();
    uint8_t cdb[6] = { 0x12, 0, 0, 0, 96, 0 }, buf[96];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.status, SCSI_TARGET_GOOD);
    assert_int_equal(r.moved, 96);
    assert_memory_equal(buf + 8, "SIMVEND SIM DISK        1.00", 28);
    assert_int_equal(buf[7] & 0x02, 0x02);
    t.untagged = true;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(buf[7] & 0x02, 0);
}

static void test_vpd_pages_serial_and_naa(void **state)
{
    struct scsi_target t = disk();
    uint8_t cdb[6] = { 0x12, 1, 0x00, 0, 252, 0 }, buf[252];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 7);
    assert_memory_equal(buf + 4, "\x00\x80\x83", 3);
    cdb[2] = 0x80;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(buf[3], 6);
    assert_memory_equal(buf + 4, "SN0001", 6);
    cdb[2] = 0x83;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 16);
    assert_int_equal(buf[5] & 0x0f, 3); /* NAA */
    assert_memory_equal(buf + 8, "\x50\x00\xc5\x00\xaa\xbb\xcc\xdd", 8);
    /* The allocation length bounds the answer. */
    cdb[2] = 0x80, cdb[4] = 5;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 5);
}

static void test_unknown_vpd_page_and_page_without_evpd_are_invalid_fields(void **state)
{
    struct scsi_target t = disk();
    uint8_t cdb[6] = { 0x12, 1, 0xb0, 0, 252, 0 }, buf[252];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24);
    cdb[1] = 0, cdb[2] = 0x80;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24);
    t.serial = NULL;
    cdb[1] = 1;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24);
}

static void test_read_capacity_10_and_16(void **state)
{
    struct scsi_target t = disk();
    uint8_t rc10[10] = { 0x25 }, rc16[16] = { 0x9e, 0x10, [13] = 32 }, buf[32];
    struct scsi_target_reply r;

    (void)state;
    t.blocks = (1ull << 33) + 5;
    scsi_target_exec(&t, rc10, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 8);
    assert_memory_equal(buf, "\xff\xff\xff\xff\x00\x00\x02\x00", 8);
    scsi_target_exec(&t, rc16, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 32);
    assert_memory_equal(buf, "\x00\x00\x00\x02\x00\x00\x00\x04\x00\x00\x02\x00", 12);
    rc16[1] = 0x11;  /* another service action */
    scsi_target_exec(&t, rc16, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24);
    t.no_read_capacity_16 = true;
    rc16[1] = 0x10;
    scsi_target_exec(&t, rc16, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20);
}

static void test_reads_and_writes_inside_the_disk(void **state)
{
    struct scsi_target t = disk();
    uint8_t r10[10] = { 0x28, 0, 0, 0, 0x03, 0xe6, 0, 0, 2, 0 };     /* LBA 998, 2 blocks */
    uint8_t w16[16] = { 0x8a, [9] = 10, [13] = 1 };
    uint8_t buf[1024];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, r10, buf, sizeof(buf), &r);
    assert_int_equal(r.status, SCSI_TARGET_GOOD);
    assert_int_equal(r.moved, 1024);
    assert_int_equal(buf[0], (uint8_t)998);
    assert_int_equal(buf[512], (uint8_t)999);
    scsi_target_exec(&t, w16, buf, 512, &r);
    assert_int_equal(r.moved, 512);
    assert_int_equal(t.reads, 1);
    assert_int_equal(t.writes, 1);
}

static void test_range_past_the_last_block_is_refused(void **state)
{
    struct scsi_target t = disk();
    uint8_t r10[10] = { 0x28, 0, 0, 0, 0x03, 0xe7, 0, 0, 2, 0 };     /* LBA 999, 2 blocks */
    uint8_t w16[16] = { 0x8a, [2] = 0xff, [13] = 1 };                /* LBA 2^63+ */
    uint8_t buf[1024];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, r10, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x21);
    scsi_target_exec(&t, w16, buf, 512, &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x21);
    assert_int_equal(t.reads + t.writes, 0);
    assert_int_equal(t.rejected, 2);
}

static void test_unknown_opcode_then_request_sense(void **state)
{
    struct scsi_target t = disk();
    uint8_t bad[6] = { 0x1b }, rs[6] = { 0x03, 0, 0, 0, 18, 0 }, buf[18];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, bad, NULL, 0, &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x20);
    scsi_target_exec(&t, rs, buf, sizeof(buf), &r);
    assert_int_equal(r.status, SCSI_TARGET_GOOD);
    assert_int_equal(r.moved, 18);
    assert_int_equal(buf[2], SCSI_TARGET_KEY_ILLEGAL_REQUEST);
    assert_int_equal(buf[12], 0x20);
    /* Fetched once: NO SENSE afterwards. */
    scsi_target_exec(&t, rs, buf, sizeof(buf), &r);
    assert_int_equal(buf[2], 0);
}

static void test_report_luns_lists_lun_0_and_wants_16_bytes(void **state)
{
    struct scsi_target t = disk();
    uint8_t cdb[12] = { 0xa0, [9] = 16 }, buf[16];
    struct scsi_target_reply r;

    (void)state;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.moved, 16);
    assert_memory_equal(buf, "\x00\x00\x00\x08\x00\x00\x00\x00" "\x00\x00\x00\x00\x00\x00\x00\x00", 16);
    cdb[9] = 8;
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_sense(&r, SCSI_TARGET_KEY_ILLEGAL_REQUEST, 0x24);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_inquiry_names_the_disk_and_its_queueing),
        cmocka_unit_test(test_vpd_pages_serial_and_naa),
        cmocka_unit_test(test_unknown_vpd_page_and_page_without_evpd_are_invalid_fields),
        cmocka_unit_test(test_read_capacity_10_and_16),
        cmocka_unit_test(test_reads_and_writes_inside_the_disk),
        cmocka_unit_test(test_range_past_the_last_block_is_refused),
        cmocka_unit_test(test_unknown_opcode_then_request_sense),
        cmocka_unit_test(test_report_luns_lists_lun_0_and_wants_16_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
