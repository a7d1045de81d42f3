/* The firmware SCSI pass-thru path's parts (drivers/scsi/scsi_passthru.c):
 * a request larger than the LUN's VPD B0h maximum transfer length is run
 * as commands one after another, against a LUN model that answers
 * ILLEGAL REQUEST to a command over its limit, as such a LUN does. The
 * UEFI glue that runs the parts through PassThru is checked under QEMU
 * (test_sas, a virtio-scsi disk with max_io_size). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "drivers/scsi/scsi_passthru.h"

/* A LUN of 512-byte blocks whose byte i of block b is (b * 7 + i) & 0xff. */
struct lun_model {
    uint32_t max_blocks;     /* VPD B0h MAXIMUM TRANSFER LENGTH */
    uint64_t bad_lba;        /* reads covering it: MEDIUM ERROR */
    unsigned commands, over_limit;
};

enum { LUN_GOOD, LUN_ILLEGAL_REQUEST, LUN_MEDIUM_ERROR };

static int lun_read(struct lun_model *m, uint64_t lba, uint32_t blocks, uint8_t *buf)
{
    m->commands++;
    if (blocks > m->max_blocks) {
        m->over_limit++;
        return LUN_ILLEGAL_REQUEST;   /* INVALID FIELD IN CDB (SBC-4 5.16) */
    }
    if (m->bad_lba >= lba && m->bad_lba < lba + blocks)
        return LUN_MEDIUM_ERROR;
    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t i = 0; i < 512; i++)
            buf[(size_t)b * 512 + i] = (uint8_t)((lba + b) * 7 + i);
    return LUN_GOOD;
}

/* One request, its parts one after another as the UEFI glue runs them:
 * the first failing part ends it with its status. */
static int run_request(struct lun_model *m, struct scsi_pt_parts *r)
{
    uint64_t lba;
    uint32_t blocks;
    void *buf;

    while (scsi_pt_parts_peek(r, &lba, &blocks, &buf)) {
        int st = lun_read(m, lba, blocks, buf);
        scsi_pt_parts_advance(r);
        if (st != LUN_GOOD)
            return st;
    }
    return LUN_GOOD;
}

static bool data_ok(const uint8_t *buf, uint64_t lba, uint32_t blocks)
{
    for (uint32_t b = 0; b < blocks; b++)
        for (uint32_t i = 0; i < 512; i++)
            if (buf[(size_t)b * 512 + i] != (uint8_t)((lba + b) * 7 + i))
                return false;
    return true;
}

/* A LUN of 256 KiB per command offers 1 MiB requests (SEQ1M runs), run as
 * four commands none of which is over its limit. */
static void test_1m_request_on_a_256k_lun_is_four_commands_within_its_limit(void **state)
{
    static uint8_t buf[1u << 20];
    struct lun_model m = { .max_blocks = 512, .bad_lba = UINT64_MAX };
    struct scsi_pt_parts r;
    uint32_t req = scsi_pt_request_bytes(m.max_blocks * 512, 512, 1u << 20);

    (void)state;
    assert_int_equal(req, 1u << 20);
    scsi_pt_parts_begin(&r, BM_IO_READ, 1000, req / 512, buf, 512, m.max_blocks);
    assert_int_equal(run_request(&m, &r), LUN_GOOD);
    assert_int_equal(m.commands, 4);
    assert_int_equal(m.over_limit, 0);
    assert_int_equal(r.started, 4);
    assert_true(data_ok(buf, 1000, 2048));
}

/* An uneven limit: the last part is the rest. */
static void test_last_part_is_the_rest(void **state)
{
    static uint8_t buf[1u << 20];
    struct lun_model m = { .max_blocks = 300, .bad_lba = UINT64_MAX };
    struct scsi_pt_parts r;

    (void)state;
    scsi_pt_parts_begin(&r, BM_IO_READ, 7, 2048, buf, 512, m.max_blocks);
    assert_int_equal(run_request(&m, &r), LUN_GOOD);
    assert_int_equal(m.commands, 7);   /* 6 x 300 + 248 */
    assert_int_equal(m.over_limit, 0);
    assert_true(data_ok(buf, 7, 2048));
}

/* A failing part ends the request with its status; no later part starts. */
static void test_failing_part_ends_the_request(void **state)
{
    static uint8_t buf[1u << 20];
    struct lun_model m = { .max_blocks = 512, .bad_lba = 1000 + 600 };
    struct scsi_pt_parts r;

    (void)state;
    scsi_pt_parts_begin(&r, BM_IO_READ, 1000, 2048, buf, 512, m.max_blocks);
    assert_int_equal(run_request(&m, &r), LUN_MEDIUM_ERROR);
    assert_int_equal(m.commands, 2);
    assert_int_equal(r.left, 1024);
}

/* Bounded: at most SCSI_PT_MAX_PARTS parts per request, whole blocks, and
 * never less than one command's worth. */
static void test_request_size_is_bounded(void **state)
{
    (void)state;
    assert_int_equal(scsi_pt_request_bytes(4096, 512, 1u << 20), 4096 * SCSI_PT_MAX_PARTS);
    assert_int_equal(scsi_pt_request_bytes(1u << 20, 512, 1u << 20), 1u << 20);
    assert_int_equal(scsi_pt_request_bytes(2u << 20, 512, 1u << 20), 2u << 20); /* one command takes more */
    assert_int_equal(scsi_pt_request_bytes(65536 + 100, 4096, 1u << 20), 1u << 20);
    assert_int_equal(scsi_pt_request_bytes(3000, 4096, 1u << 20), 3000); /* less than a block: as it was */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1m_request_on_a_256k_lun_is_four_commands_within_its_limit),
        cmocka_unit_test(test_last_part_is_the_rest),
        cmocka_unit_test(test_failing_part_ends_the_request),
        cmocka_unit_test(test_request_size_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
