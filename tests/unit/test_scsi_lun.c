/* The SCSI layer as Linux reads a LUN (drivers/scsi/scsi.c,
 * scsi_health.c) against the shared SCSI target model: READ CAPACITY(16)
 * only for SPC-3 and later, protection type and lowest aligned LBA, VPD
 * B0h limits capping transfers, VPD 83h world wide name, VPD pages asked
 * only when listed, and drive health through LOG SENSE and SAT ATA
 * PASS-THROUGH(16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "drivers/scsi/scsi.h"
#include "drivers/scsi/scsi_health.h"
#include "scsi_target.h"

/* A transport straight to the target: what an HBA model does, without
 * the frames. */
static int direct_exec(void *ctx, struct scsi_cmd *c, char *detail, size_t detail_len)
{
    struct scsi_target *t = ctx;
    struct scsi_target_reply r;

    (void)detail;
    (void)detail_len;
    scsi_target_exec(t, c->cdb, c->buf, c->len, &r);
    c->status = r.status;
    c->resid = c->len - r.moved;
    c->sense_len = r.sense_len;
    memcpy(c->sense, r.sense, r.sense_len);
    return BM_OK;
}

static struct scsi_target lun(uint8_t version)
{
    return (struct scsi_target){ .vendor = "SEAGATE", .product = "ST4000NM0025", .revision = "N004",
                                 .serial = "ZC1234", .version = version, .blocks = 1u << 20, .block_bytes = 512 };
}

static void identify(struct scsi_target *t, struct scsi_disk_info *info)
{
    struct scsi_transport tr = { direct_exec, t, "lun" };
    char err[128] = "";

    assert_int_equal(scsi_identify(&tr, info, err, sizeof(err)), BM_OK);
}

/* An SPC-2 disk (VERSION 4) that does not know SERVICE ACTION IN(16): it
 * is sent READ CAPACITY(10) alone, never the 16-byte command (Linux
 * sd_try_rc16_first). An SPC-3 one gets (16) first and nothing else. */
static void test_rc16_only_for_spc3_and_later(void **state)
{
    struct scsi_target old = lun(4), cur = lun(5), prot = lun(4);
    struct scsi_disk_info info;
    (void)state;

    old.no_read_capacity_16 = true;
    identify(&old, &info);
    assert_int_equal(old.rc16_asked, 0);
    assert_int_equal(old.rejected, 0);
    assert_false(info.rc16_first);
    assert_int_equal(info.cap.blocks, 1u << 20);

    cur.lbppbe = 3;
    identify(&cur, &info);
    assert_int_equal(cur.rc16_asked, 1);
    assert_true(info.rc16_first);
    assert_int_equal(info.cap.phys_bytes, 4096);

    /* SPC-2 but PROTECT: (16) first, as Linux scsi_device_protection. */
    prot.protect = true;
    prot.pi_type = 1;
    identify(&prot, &info);
    assert_int_equal(prot.rc16_asked, 1);
    assert_int_equal(info.cap.pi_type, 1);
}

/* VERSION 92h is an SCSI-2 disk that also names ISO and ECMA versions
 * (bits 7:4): Linux scsi_probe_lun() reads the ANSI version from the low
 * nibble, so it gets READ CAPACITY(10) alone, and a PROTECT bit below SPC
 * is not believed (scsi_device_protection). */
static void test_scsi_2_disk_with_iso_bits_gets_rc10_first(void **state)
{
    struct scsi_target iso = lun(0x92), iso_prot = lun(0x82), spc3 = lun(0x05);
    struct scsi_disk_info info;
    (void)state;

    iso.no_read_capacity_16 = true;
    identify(&iso, &info);
    assert_false(info.rc16_first);
    assert_int_equal(iso.rc16_asked, 0);
    assert_int_equal(iso.rejected, 0);
    assert_int_equal(info.cap.blocks, 1u << 20);

    iso_prot.protect = true;
    iso_prot.no_read_capacity_16 = true;
    identify(&iso_prot, &info);
    assert_false(info.rc16_first);
    assert_int_equal(iso_prot.rc16_asked, 0);

    identify(&spc3, &info);
    assert_true(info.rc16_first);
    assert_int_equal(spc3.rc16_asked, 1);
}

/* An SPC-2 disk too large for READ CAPACITY(10) still gets (16) after
 * (10) overflows. */
static void test_spc2_disk_past_2tib_asks_rc16_after_rc10_overflows(void **state)
{
    struct scsi_target t = lun(4);
    struct scsi_disk_info info;
    (void)state;

    t.blocks = (1ull << 32) + 5;
    identify(&t, &info);
    assert_int_equal(t.rc16_asked, 1);
    assert_true(info.use16);
    assert_int_equal(info.cap.blocks, (1ull << 32) + 5);
}

/* Type 2 protection, 4 KiB physical blocks from LBA 7 on, a 128 KiB
 * maximum transfer, a 64 KiB optimal one and an NAA designator: every one
 * reaches the disk; the HBA's 1 MiB limit is capped at the LUN's. */
static void test_protection_alignment_limits_and_wwn_reach_the_disk(void **state)
{
    struct scsi_target t = lun(6);
    struct scsi_hba_place at = { "mpt", { 0, 3, 0, 0 }, 2, 0, 32, 1u << 20 };
    static const struct bm_disk_ops ops;
    struct scsi_disk_info info;
    struct bm_disk d;
    (void)state;

    t.protect = true;
    t.pi_type = 2;
    t.lbppbe = 3;
    t.align_lba = 7;
    t.max_xfer_blocks = 256;
    t.opt_xfer_blocks = 128;
    t.naa = 0x5000c500a1b2c3d4ull;
    identify(&t, &info);
    assert_int_equal(t.unlisted_asked, 0);
    assert_int_equal(info.bl.max_xfer_blocks, 256);
    memset(&d, 0, sizeof(d));
    scsi_fill_hba_disk(&d, &info, &at, &ops, NULL);
    assert_int_equal(d.max_transfer_bytes, 256 * 512);
    assert_int_equal(d.opt_transfer_bytes, 128 * 512);
    assert_int_equal(d.pi_type, 2);
    assert_int_equal(d.align_lba, 7);
    assert_int_equal(d.phys_bytes, 4096);
    assert_string_equal(d.wwn, "naa.5000c500a1b2c3d4");

    /* A LUN limit above the HBA's leaves the HBA's; an optimal length
     * that is not a whole physical block is not used (Linux
     * sd_validate_opt_xfer_size). */
    t.max_xfer_blocks = 1u << 16;
    t.opt_xfer_blocks = 9;
    identify(&t, &info);
    scsi_fill_hba_disk(&d, &info, &at, &ops, NULL);
    assert_int_equal(d.max_transfer_bytes, 1u << 20);
    assert_int_equal(d.opt_transfer_bytes, 0);
}

/* A disk without VPD 83h, B0h or 80h is asked none of them: page 00h is
 * read first and only what it lists is asked. */
static void test_vpd_pages_asked_only_when_listed(void **state)
{
    struct scsi_target t = lun(6);
    struct scsi_disk_info info;
    (void)state;

    t.serial = NULL;
    identify(&t, &info);
    assert_int_equal(t.unlisted_asked, 0);
    assert_int_equal(t.rejected, 0);
    assert_string_equal(info.wwn, "");
    assert_int_equal(info.bl.max_xfer_blocks, 0);
    assert_false(info.sat);
}

/* Device identification parsing: the logical unit's NAA beats an EUI-64
 * and a port's NAA; a page with only a target port designator gives none. */
static void test_device_id_prefers_the_lun_naa(void **state)
{
    uint8_t page[64] = { 0, 0x83, 0, 0 };
    char wwn[40];
    size_t n = 4;
    (void)state;

    /* target port NAA (association 1) */
    page[n++] = 0x01, page[n++] = 0x13, page[n++] = 0, page[n++] = 8;
    for (int i = 0; i < 8; i++)
        page[n++] = (uint8_t)(0x50 + i);
    page[3] = (uint8_t)(n - 4);
    assert_int_equal(scsi_parse_device_id(page, n, wwn, sizeof(wwn)), BM_EINVAL);
    /* logical unit EUI-64, then logical unit NAA */
    page[n++] = 0x01, page[n++] = 0x02, page[n++] = 0, page[n++] = 8;
    for (int i = 0; i < 8; i++)
        page[n++] = (uint8_t)(0xe0 + i);
    page[3] = (uint8_t)(n - 4);
    assert_int_equal(scsi_parse_device_id(page, n, wwn, sizeof(wwn)), BM_OK);
    assert_string_equal(wwn, "eui.e0e1e2e3e4e5e6e7");
    page[n++] = 0x01, page[n++] = 0x03, page[n++] = 0, page[n++] = 8;
    for (int i = 0; i < 8; i++)
        page[n++] = (uint8_t)(0x60 + i);
    page[3] = (uint8_t)(n - 4);
    assert_int_equal(scsi_parse_device_id(page, n, wwn, sizeof(wwn)), BM_OK);
    assert_string_equal(wwn, "naa.6061626364656667");
    /* cut short: the last descriptor does not fit and is not used */
    assert_int_equal(scsi_parse_device_id(page, n - 1, wwn, sizeof(wwn)), BM_OK);
    assert_string_equal(wwn, "eui.e0e1e2e3e4e5e6e7");
}

/* ---- Health ---------------------------------------------------------------------- */

static int read_health(struct scsi_target *t, bool sat, struct bm_health *h, char *err, size_t errlen)
{
    struct scsi_transport tr = { direct_exec, t, "lun" };

    bm_health_init(h, "");
    return scsi_read_health(&tr, sat, h, err, errlen);
}

/* A SAS disk: temperature (0Dh), informational exceptions (2Fh), power-on
 * time and the medium errors its background scan found (15h), phy error
 * counters (18h); only listed pages are asked. */
static void test_sas_disk_health_from_log_pages(void **state)
{
    struct scsi_target_log log = { .temperature = 38, .ie = true, .ie_temperature = 37, .bg_scan = true,
                                   .power_on_minutes = 60 * 12345 + 59, .medium_errors = 2, .sas_port = true,
                                   .invalid_dwords = 3, .disparity_errors = 1, .loss_of_sync = 2,
                                   .reset_problems = 0 };
    struct scsi_target t = lun(6);
    struct bm_health h;
    char err[160] = "";
    (void)state;

    t.log = &log;
    assert_int_equal(read_health(&t, false, &h, err, sizeof(err)), BM_OK);
    assert_string_equal(h.source, "scsi_log");
    assert_int_equal(h.temperature_c, 38);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(h.power_on_hours, 12345);
    assert_int_equal(h.media_errors, 2);
    assert_int_equal(h.link_errors, 2 * (3 + 1 + 2 + 0));
    assert_int_equal(t.unlisted_asked, 0);
    assert_int_equal(t.rejected, 0);

    /* Failure prediction (5Dh) and no temperature page: 2Fh's reading. */
    log.temperature = -1;
    log.bg_scan = log.sas_port = false;
    log.ie_asc = 0x5d;
    log.ie_ascq = 0x10;
    assert_int_equal(read_health(&t, false, &h, err, sizeof(err)), BM_OK);
    assert_int_equal(h.smart_passed, 0);
    assert_int_equal(h.temperature_c, 37);
    assert_int_equal(h.power_on_hours, -1);
    assert_int_equal(h.link_errors, -1);
    assert_int_equal(t.unlisted_asked, 0);
}

/* A disk without LOG SENSE has no health log: BM_ENOTSUP with a reason. */
static void test_disk_without_log_sense_has_no_health(void **state)
{
    struct scsi_target t = lun(6);
    struct bm_health h;
    char err[160] = "";
    (void)state;

    assert_int_equal(read_health(&t, false, &h, err, sizeof(err)), BM_ENOTSUP);
    assert_non_null(strstr(err, "LOG SENSE"));
}

static void put_attr(uint8_t *data, unsigned slot, uint8_t id, uint8_t value, uint64_t raw)
{
    uint8_t *a = data + 2 + slot * 12;
    a[0] = id;
    a[3] = value;
    a[4] = value;
    for (int b = 0; b < 6; b++)
        a[5 + b] = (uint8_t)(raw >> (8 * b));
}

/* A SATA disk behind the HBA's SATL: identification says so (VPD 89h),
 * and SMART READ DATA / THRESHOLDS through ATA PASS-THROUGH(16) give the
 * attributes, decoded as the AHCI driver decodes them. */
static void test_sata_disk_behind_satl_health_from_smart(void **state)
{
    static uint8_t data[512], thr[512];
    struct scsi_target t = lun(5);
    struct scsi_disk_info info;
    struct bm_health h;
    char err[160] = "";
    (void)state;

    t.vendor = "ATA";
    t.sat = true;
    put_attr(data, 0, 5, 100, 0);
    put_attr(data, 1, 9, 97, 23456);
    put_attr(data, 2, 194, 70, 34);
    thr[2] = 5, thr[3] = 10;
    t.smart_data = data;
    t.smart_thresholds = thr;
    identify(&t, &info);
    assert_true(info.sat);
    assert_int_equal(t.unlisted_asked, 0);
    assert_int_equal(read_health(&t, info.sat, &h, err, sizeof(err)), BM_OK);
    assert_string_equal(h.source, "sat_ata_smart");
    assert_int_equal(h.nattrs, 3);
    assert_int_equal(h.temperature_c, 34);
    assert_int_equal(h.power_on_hours, 23456);
    assert_int_equal(h.attrs[0].threshold, 10);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(t.rejected, 0);

    /* SMART disabled: the drive aborts; no LOG SENSE either: no health. */
    t.smart_data = NULL;
    assert_int_equal(read_health(&t, true, &h, err, sizeof(err)), BM_ENOTSUP);
    assert_non_null(strstr(err, "SAT SMART"));
}

/* The model refuses what a real SATL refuses: a wrong protocol, a
 * multi-block count, a SMART command without its signature. */
static void test_satl_model_refuses_bad_pass_through(void **state)
{
    static uint8_t data[512];
    struct scsi_target t = lun(5);
    struct scsi_target_reply r;
    uint8_t cdb[16], buf[512];
    (void)state;

    t.sat = true;
    t.smart_data = data;
    scsi_build_sat_smart(cdb, 0xd0);
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.moved, 512);
    cdb[1] = 3 << 1;            /* non-data */
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.sense[2], 0x05);
    scsi_build_sat_smart(cdb, 0xd0);
    cdb[10] = 0;                /* no 4Fh in LBA mid */
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.sense[2], 0x0b);
    t.sat = false;              /* a SAS disk does not know the opcode */
    scsi_build_sat_smart(cdb, 0xd0);
    scsi_target_exec(&t, cdb, buf, sizeof(buf), &r);
    assert_int_equal(r.sense[2], 0x05);
    assert_int_equal(r.sense[12], 0x20);
}

/* Log page parsing bounds: a parameter running past the page is not read,
 * a temperature of FFh is unknown. */
static void test_log_page_bounds(void **state)
{
    uint8_t p[16] = { 0x0d, 0, 0, 6, 0, 0, 3, 2, 0, 0xff };
    struct bm_health h;
    (void)state;

    bm_health_init(&h, "scsi_log");
    assert_int_equal(scsi_parse_log_page(p, 10, &h), BM_ENODEV);
    assert_int_equal(h.temperature_c, -1);
    p[9] = 40;
    assert_int_equal(scsi_parse_log_page(p, 10, &h), BM_OK);
    assert_int_equal(h.temperature_c, 40);
    p[7] = 9;                   /* parameter longer than the page */
    bm_health_init(&h, "scsi_log");
    assert_int_equal(scsi_parse_log_page(p, 10, &h), BM_ENODEV);
    assert_int_equal(scsi_parse_log_page(p, 2, &h), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rc16_only_for_spc3_and_later),
        cmocka_unit_test(test_scsi_2_disk_with_iso_bits_gets_rc10_first),
        cmocka_unit_test(test_spc2_disk_past_2tib_asks_rc16_after_rc10_overflows),
        cmocka_unit_test(test_protection_alignment_limits_and_wwn_reach_the_disk),
        cmocka_unit_test(test_vpd_pages_asked_only_when_listed),
        cmocka_unit_test(test_device_id_prefers_the_lun_naa),
        cmocka_unit_test(test_sas_disk_health_from_log_pages),
        cmocka_unit_test(test_disk_without_log_sense_has_no_health),
        cmocka_unit_test(test_sata_disk_behind_satl_health_from_smart),
        cmocka_unit_test(test_satl_model_refuses_bad_pass_through),
        cmocka_unit_test(test_log_page_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
