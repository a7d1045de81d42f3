/* The firmware SCSI pass-thru path when a non-blocking request outlives
 * its timeout (drivers/scsi/scsi_passthru.c). UEFI 2.10 section 15.7
 * EXT_SCSI_PASS_THRU.PassThru(): with an Event, the call returns at once
 * and the packet, its sense buffer and its data buffer are the firmware's
 * until the Event is signalled. EDK2's ScsiDiskDxe frees nothing of an
 * asynchronous request before its notify has run (ScsiDiskDriverBindingStop
 * waits for AsyncTaskQueue to empty), and Linux completes a timed-out
 * command only once the error handler has it back (scsi_eh_flush_done_q).
 * The model here is a firmware that ignores the packet's Timeout and
 * finishes late, writing its data into the buffer then, or never. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "drivers/scsi/scsi_passthru.h"

#define S 1000000000ull
#define POISON 0xa5

/* A firmware running one non-blocking request at a time. */
struct fw_model {
    uint8_t *buf;             /* the data buffer it holds (NULL: none) */
    uint32_t bytes;
    uint64_t lba;
    uint64_t finish_at_ns;    /* when it ends the request (UINT64_MAX: never) */
    uint64_t late_ns;         /* how long after the taking it finishes */
    unsigned fired;
};

static enum scsi_pt_fire fw_fire(void *ctx, enum bm_io_op op, uint64_t lba, uint32_t blocks, void *buf,
                                 uint32_t bytes, int *status, char *detail, size_t len)
{
    struct fw_model *m = ctx;

    (void)op;
    (void)blocks;
    (void)status;
    (void)detail;
    (void)len;
    assert_null(m->buf); /* one request at a time: a second packet while one is held is a bug */
    m->buf = buf;
    m->bytes = bytes;
    m->lba = lba;
    m->fired++;
    m->finish_at_ns = m->late_ns == UINT64_MAX ? UINT64_MAX : plat_now_ns() + m->late_ns;
    return SCSI_PT_TAKEN;
}

/* The event: signalled once the firmware has written the data (the late
 * DMA into whatever the buffer is by then). */
static bool fw_ended(void *ctx, int *status, char *detail, size_t len)
{
    struct fw_model *m = ctx;

    (void)detail;
    (void)len;
    if (!m->buf || plat_now_ns() < m->finish_at_ns)
        return false;
    memset(m->buf, (int)(0x30 + (m->lba & 0x0f)), m->bytes);
    m->buf = NULL;
    *status = BM_OK;
    return true;
}

static const struct scsi_pt_fw model_fw = { fw_fire, fw_ended };

static void io_init(struct scsi_pt_io *io, struct fw_model *m)
{
    memset(io, 0, sizeof(*io));
    io->fw = &model_fw;
    io->ctx = m;
    io->lba_bytes = 512;
    io->part_bytes = 64 * 1024;
}

/* Poll once a second for up to secs seconds; returns the completions seen
 * (at most one), and checks the rule on each: a completion is handed back
 * only when the firmware no longer holds the buffer. */
static int poll_for(struct scsi_pt_io *io, struct fw_model *m, unsigned secs, struct bm_completion *c)
{
    for (unsigned t = 0; t < secs; t++) {
        plat_sim_advance_ns(S);
        if (scsi_pt_io_poll(io, c) == 1) {
            assert_null(m->buf);   /* handed back while the firmware still held it */
            return 1;
        }
        assert_true(scsi_pt_io_fw_holds(io) == (m->buf != NULL));
    }
    return 0;
}

/* A read the firmware finishes 45 s after taking it (past the packet's
 * 30 s Timeout): its buffer is not handed back before the firmware's late
 * write into it, and then it comes back as a timeout, not as data. */
static void test_late_completion_is_not_handed_back_before_the_firmware_lets_go(void **state)
{
    static uint8_t buf[8192];
    struct fw_model m = { .late_ns = 45 * S };
    struct scsi_pt_io io;
    struct bm_completion c;

    (void)state;
    io_init(&io, &m);
    memset(buf, POISON, sizeof(buf));
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_READ, 5, 16, buf), BM_OK);
    assert_int_equal(poll_for(&io, &m, 120, &c), 1);
    assert_int_equal(buf[0], 0x35);              /* the late write happened, before the hand-back */
    assert_int_equal(c.status, BM_ETIMEDOUT);
    assert_non_null(strstr(c.detail, "late"));
    /* Back from the firmware: the LUN takes commands again. */
    m.late_ns = 0;
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_READ, 6, 16, buf), BM_OK);
    assert_int_equal(poll_for(&io, &m, 2, &c), 1);
    assert_int_equal(c.status, BM_OK);
    assert_int_equal(buf[0], 0x36);
}

/* A firmware that never signals: the request is never handed back (the
 * engine's stall limit ends the run and keeps the buffer), the LUN takes
 * no other command, and its memory is the firmware's for good. */
static void test_request_never_returned_is_held_and_the_lun_takes_nothing(void **state)
{
    static uint8_t buf[8192], other[8192];
    struct fw_model m = { .late_ns = UINT64_MAX };
    struct scsi_pt_io io;
    struct bm_completion c;
    char why[96];

    (void)state;
    io_init(&io, &m);
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_WRITE, 0, 16, buf), BM_OK);
    assert_int_equal(poll_for(&io, &m, 600, &c), 0);
    assert_true(scsi_pt_io_fw_holds(&io));
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_READ, 0, 16, other), BM_EIO);
    assert_int_equal(m.fired, 1);
    /* What the engine's stall record says the driver is doing. */
    scsi_pt_io_recovery(&io, why, sizeof(why));
    assert_non_null(strstr(why, "firmware holds"));
}

/* A firmware that keeps its own Timeout ends the request itself: it comes
 * back at once with the firmware's result, and nothing is held. */
static void test_completion_in_time_is_handed_back_at_once(void **state)
{
    static uint8_t buf[8192];
    struct fw_model m = { .late_ns = 3 * S };
    struct scsi_pt_io io;
    struct bm_completion c;

    (void)state;
    io_init(&io, &m);
    memset(buf, POISON, sizeof(buf));
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_READ, 2, 16, buf), BM_OK);
    assert_int_equal(poll_for(&io, &m, 5, &c), 1);
    assert_int_equal(c.status, BM_OK);
    assert_int_equal(buf[0], 0x32);
    assert_false(scsi_pt_io_fw_holds(&io));
}

/* io_timeout=2 (bm_set_io_timeout_ns): a firmware that ends a read 10 s
 * after taking it is past the 2 s deadline and its 5 s grace, so the read
 * comes back timed out (late), where the default 30 s would take it as
 * data. */
static void test_io_timeout_option_sets_the_deadline(void **state)
{
    static uint8_t buf[8192];
    struct fw_model m = { .late_ns = 10 * S };
    struct scsi_pt_io io;
    struct bm_completion c;

    (void)state;
    bm_set_io_timeout_ns(2 * S);
    io_init(&io, &m);
    assert_int_equal(scsi_pt_io_submit(&io, 0, BM_IO_READ, 7, 16, buf), BM_OK);
    assert_int_equal(poll_for(&io, &m, 15, &c), 1);
    assert_int_equal(c.status, BM_ETIMEDOUT);
    assert_non_null(strstr(c.detail, "late"));
}

/* Back to the default command timeout for the tests after. */
static int default_io_timeout(void **state)
{
    (void)state;
    bm_set_io_timeout_ns(0);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_completion_is_not_handed_back_before_the_firmware_lets_go),
        cmocka_unit_test(test_request_never_returned_is_held_and_the_lun_takes_nothing),
        cmocka_unit_test(test_completion_in_time_is_handed_back_at_once),
        cmocka_unit_test_teardown(test_io_timeout_option_sets_the_deadline, default_io_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
