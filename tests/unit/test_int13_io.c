/* INT 13h transfers (efi/disk/int13_io.c) against a model of a BIOS that
 * fails the way real ones do: transient errors (USB legacy emulation in
 * SMM answering 80h "timeout" or AAh "drive not ready" now and then), a
 * BIOS without the extensions (AH=41h: CF, AH=01h), a BIOS that claims EDD
 * and fails every extended call, requests over 127 blocks (or over a
 * BIOS's smaller limit) refused with AH=01h, CHS requests that cross a
 * track refused as some BIOSes do, and registers checked as the BIOS reads
 * them (the DAP in memory, CX/DH for CHS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "disk/int13_io.h"

#define SECTORS 20000u              /* 20000 blocks: 555 cylinders of 2 heads x 18 (past cylinder 255) */
#define HEADS 2u
#define SPT 18u

struct model {
    uint8_t disk[SECTORS * 512];
    uint8_t dap[16];
    uint8_t bounce[65536];
    bool edd;                       /* AH=41h answers */
    bool ext_broken;                /* AH=42h/43h always fail (claims EDD, cannot) */
    unsigned fail_next;             /* the next n calls fail with 80h (transient) */
    unsigned fail_41h_next;         /* the next n AH=41h calls fail with AAh */
    unsigned max_blocks;            /* larger requests: CF, AH=01h */
    bool chs_no_track_cross;        /* CHS requests across a track: CF, AH=04h */
    bool reset_seen;                /* an AH=00h came since the last failure */
    bool reset_required;            /* after a failure, nothing works until AH=00h */
    unsigned resets, calls, chs_calls, ext_calls, biggest;
};

static uint8_t bios_fail(struct i13_regs *r, uint8_t status)
{
    r->cf = true;
    r->ax = (uint16_t)(status << 8 | (r->ax & 0xff));
    return status;
}

static void model_call(void *ctx, struct i13_regs *r)
{
    struct model *m = ctx;
    uint8_t ah = (uint8_t)(r->ax >> 8);

    m->calls++;
    r->cf = false;
    assert_int_equal(r->dx & 0xff, 0x80);   /* DL: the drive asked for */
    if (ah == 0x00) {
        m->resets++;
        m->reset_seen = true;
        r->ax = 0;
        return;
    }
    if (m->reset_required && !m->reset_seen) {
        bios_fail(r, 0xaa);
        return;
    }
    if (ah == 0x41) {
        if (m->fail_41h_next) {
            m->fail_41h_next--;
            m->reset_seen = false;
            bios_fail(r, 0xaa);
            return;
        }
        if (!m->edd || r->bx != 0x55aa) {
            bios_fail(r, 0x01);
            return;
        }
        r->bx = 0xaa55;
        r->cx = 0x1;
        r->ax = 0x3000;
        return;
    }
    if (ah == 0x08) {
        uint16_t c = (uint16_t)(SECTORS / (HEADS * SPT) - 1);   /* highest cylinder */
        r->cx = (uint16_t)((c & 0xff) << 8 | (c >> 2 & 0xc0) | SPT);
        r->dx = (uint16_t)((HEADS - 1) << 8 | 1);
        r->ax = 0;
        return;
    }
    if (m->fail_next) {
        m->fail_next--;
        m->reset_seen = false;
        bios_fail(r, 0x80);
        return;
    }
    if (ah == 0x42 || ah == 0x43) {
        uint64_t lba;
        unsigned n;
        uint8_t *buf;
        m->ext_calls++;
        if (!m->edd) {
            bios_fail(r, 0x01);
            return;
        }
        /* The DAP where DS:SI points, as the BIOS reads it. */
        assert_int_equal(r->ds, 0x0000);
        assert_int_equal(r->si, 0x9830);
        assert_int_equal(m->dap[0], 16);
        assert_int_equal(m->dap[1], 0);
        assert_int_equal(m->dap[3], 0);     /* reserved: zero */
        n = m->dap[2];
        memcpy(&lba, m->dap + 8, 8);
        assert_int_equal(m->dap[4] | m->dap[5] << 8, 0);
        assert_int_equal(m->dap[6] | m->dap[7] << 8, 0x1000);
        buf = m->bounce;
        if (m->ext_broken) {
            bios_fail(r, 0x01);
            m->dap[2] = 0;
            return;
        }
        if (n == 0 || n > 127 || n > m->max_blocks) {
            bios_fail(r, 0x01);
            m->dap[2] = 0;
            return;
        }
        if (lba + n > SECTORS) {
            bios_fail(r, 0x04);
            m->dap[2] = 0;
            return;
        }
        if (n > m->biggest)
            m->biggest = n;
        if (ah == 0x42)
            memcpy(buf, m->disk + lba * 512, (size_t)n * 512);
        else
            memcpy(m->disk + lba * 512, buf, (size_t)n * 512);
        r->ax = 0;
        return;
    }
    if (ah == 0x02 || ah == 0x03) {
        unsigned n = r->ax & 0xff, s = r->cx & 0x3f, h = r->dx >> 8;
        unsigned c = (r->cx >> 8) | ((r->cx & 0xc0) << 2);
        uint64_t lba = ((uint64_t)c * HEADS + h) * SPT + s - 1;
        m->chs_calls++;
        assert_int_equal(r->es, 0x1000);
        assert_int_equal(r->bx, 0);
        if (!n || !s || s > SPT || h >= HEADS || c >= SECTORS / (HEADS * SPT) || n > 127 || n > m->max_blocks) {
            bios_fail(r, 0x01);
            return;
        }
        if (m->chs_no_track_cross && s - 1 + n > SPT) {
            bios_fail(r, 0x04);
            return;
        }
        if (n > m->biggest)
            m->biggest = n;
        if (ah == 0x02)
            memcpy(m->bounce, m->disk + lba * 512, (size_t)n * 512);
        else
            memcpy(m->disk + lba * 512, m->bounce, (size_t)n * 512);
        r->ax = (uint16_t)n;                /* AL: sectors moved */
        return;
    }
    bios_fail(r, 0x01);
}

static struct model *model_new(bool edd)
{
    struct model *m = calloc(1, sizeof(*m));

    assert_non_null(m);
    for (unsigned i = 0; i < SECTORS * 512; i++)
        m->disk[i] = (uint8_t)(i * 7 + i / 512);
    m->edd = edd;
    m->max_blocks = 127;
    return m;
}

static void drive_init(struct i13_drive *d, struct model *m)
{
    memset(d, 0, sizeof(*d));
    d->dl = 0x80;
    d->intcall = model_call;
    d->ctx = m;
    d->dap = m->dap;
    d->dap_seg = 0;
    d->dap_off = 0x9830;
    d->bounce = m->bounce;
    d->bounce_seg = 0x1000;
    d->bounce_bytes = sizeof(m->bounce);
}

static void check_read(struct i13_drive *d, struct model *m, uint64_t lba, uint32_t count)
{
    uint8_t *buf = malloc((size_t)count * 512), st = 0xff;

    assert_int_equal(i13_rw(d, false, lba, count, buf, &st), BM_OK);
    assert_int_equal(st, 0);
    assert_memory_equal(buf, m->disk + lba * 512, (size_t)count * 512);
    free(buf);
}

static void test_transient_errors_are_retried_after_a_reset(void **state)
{
    struct model *m = model_new(true);
    struct i13_drive d;

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    assert_true(d.edd);
    m->reset_required = true;       /* a USB legacy BIOS answers again only after AH=00h */
    m->reset_seen = true;
    m->fail_next = 5;               /* five timeouts, then it works: within the six retries */
    check_read(&d, m, 100, 300);
    assert_int_equal(m->resets, 5);
    assert_int_equal(d.retries, 5);
    assert_int_equal(d.halvings, 0);
    assert_int_equal(d.max_blocks, 127);
}

static void test_never_more_than_127_blocks_and_halved_to_what_the_bios_takes(void **state)
{
    struct model *m = model_new(true);
    struct i13_drive d;
    uint8_t out[40 * 512], st;

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    m->max_blocks = 16;             /* a BIOS whose limit is below EDD's 127 */
    check_read(&d, m, 7, 500);
    assert_true(m->biggest <= 16);
    assert_int_equal(d.max_blocks, 15);    /* 127 -> 63 -> 31 -> 15, kept for the drive */
    assert_int_equal(d.halvings, 3);
    /* Writes go the same way, and land where they should. */
    memset(out, 0x5a, sizeof(out));
    assert_int_equal(i13_rw(&d, true, 1000, 40, out, &st), BM_OK);
    assert_memory_equal(m->disk + 1000 * 512, out, sizeof(out));
    assert_int_equal(d.halvings, 3);        /* the smaller size stays: no new halving */
}

static void test_failing_every_try_is_an_error_with_the_status(void **state)
{
    struct model *m = model_new(true);
    struct i13_drive d;
    uint8_t buf[4 * 512], st = 0;

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    d.spt = 0;                      /* no geometry: no CHS to fall back on */
    m->fail_next = 1000;
    assert_int_equal(i13_rw(&d, false, 0, 4, buf, &st), BM_EIO);
    assert_int_equal(st, 0x80);
    assert_int_equal(d.max_blocks, 1);      /* halved all the way first */
}

static void test_no_edd_goes_through_chs_with_the_ah08_geometry(void **state)
{
    struct model *m = model_new(false);
    struct i13_drive d;
    uint8_t out[100 * 512], st;
    uint64_t lba = (uint64_t)300 * HEADS * SPT + 1 * SPT + 15;  /* cylinder 300: CL bits 6-7 used */

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    assert_false(d.edd);
    assert_int_equal(d.spt, SPT);
    assert_int_equal(d.heads, HEADS);
    assert_int_equal(d.cyls, SECTORS / (HEADS * SPT));
    assert_int_equal(i13_chs_sectors(&d), (uint64_t)d.cyls * HEADS * SPT);
    m->chs_no_track_cross = true;
    check_read(&d, m, lba, 200);
    assert_int_equal(m->ext_calls, 0);
    memset(out, 0xc3, sizeof(out));
    assert_int_equal(i13_rw(&d, true, lba + 3, 100, out, &st), BM_OK);
    assert_memory_equal(m->disk + (lba + 3) * 512, out, sizeof(out));
    /* Past what CHS reaches: refused, not wrapped around to cylinder 0. */
    assert_int_equal(i13_rw(&d, false, i13_chs_sectors(&d), 1, out, &st), BM_EINVAL);
}

static void test_a_failed_ah41h_is_asked_again_after_a_reset(void **state)
{
    struct model *m = model_new(true);
    struct i13_drive d;

    (void)state;
    drive_init(&d, m);
    m->fail_41h_next = 2;           /* "drive not ready" twice: the drive is not dropped */
    assert_true(i13_probe(&d));
    assert_true(d.edd);
    assert_int_equal(d.edd_version, 0x30);
    assert_true(m->resets >= 2);
}

static void test_edd_that_never_works_falls_back_to_chs_for_good(void **state)
{
    struct model *m = model_new(true);
    struct i13_drive d;

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    m->ext_broken = true;
    check_read(&d, m, 1, 70);
    assert_false(d.edd);
    assert_int_equal(d.chs_fallbacks, 1);
    m->ext_calls = 0;
    check_read(&d, m, 5000, 10);
    assert_int_equal(m->ext_calls, 0);      /* straight to CHS now */
}

static void test_chs_requests_are_halved_too(void **state)
{
    struct model *m = model_new(false);
    struct i13_drive d;

    (void)state;
    drive_init(&d, m);
    assert_true(i13_probe(&d));
    m->max_blocks = 8;              /* a BIOS that takes at most 8 sectors through CHS */
    check_read(&d, m, 3, 100);
    assert_true(m->biggest <= 8);
    assert_true(d.max_blocks <= 8 && d.halvings >= 1);   /* the first request (15 sectors to the track end) halved */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transient_errors_are_retried_after_a_reset),
        cmocka_unit_test(test_never_more_than_127_blocks_and_halved_to_what_the_bios_takes),
        cmocka_unit_test(test_failing_every_try_is_an_error_with_the_status),
        cmocka_unit_test(test_no_edd_goes_through_chs_with_the_ah08_geometry),
        cmocka_unit_test(test_a_failed_ah41h_is_asked_again_after_a_reset),
        cmocka_unit_test(test_edd_that_never_works_falls_back_to_chs_for_good),
        cmocka_unit_test(test_chs_requests_are_halved_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
