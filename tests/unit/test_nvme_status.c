/* NVMe completion status decoding (NVMe 1.4 section 4.6.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/nvme/nvme_regs.h"

/* A CQE status field: phase 0, SC 8:1, SCT 11:9, M 14, DNR 15. */
static uint16_t status_field(unsigned sct, unsigned sc, bool dnr, bool phase)
{
    return (uint16_t)((phase ? 1u : 0u) | (sc << 1) | (sct << 9) | (dnr ? 0x8000u : 0u));
}

static void test_unrecovered_read_error(void **state)
{
    char buf[64];

    (void)state;
    /* What QEMU reports for a failed read (blkdebug). */
    nvme_status_detail(status_field(2, 0x81, true, true), buf, sizeof(buf));
    assert_string_equal(buf, "SCT 2h SC 81h: Unrecovered Read Error");
    nvme_status_detail(status_field(2, 0x80, false, false), buf, sizeof(buf));
    assert_string_equal(buf, "SCT 2h SC 80h: Write Fault");
}

static void test_common_generic_codes(void **state)
{
    (void)state;
    assert_string_equal(nvme_status_name(0, 0x00), "Successful Completion");
    assert_string_equal(nvme_status_name(0, 0x02), "Invalid Field in Command");
    assert_string_equal(nvme_status_name(0, 0x04), "Data Transfer Error");
    assert_string_equal(nvme_status_name(0, 0x06), "Internal Error");
    assert_string_equal(nvme_status_name(0, 0x0b), "Invalid Namespace or Format");
    assert_string_equal(nvme_status_name(0, 0x13), "PRP Offset Invalid");
    assert_string_equal(nvme_status_name(0, 0x80), "LBA Out of Range");
    assert_string_equal(nvme_status_name(0, 0x82), "Namespace Not Ready");
    assert_string_equal(nvme_status_name(1, 0x01), "Invalid Queue Identifier");
    assert_string_equal(nvme_status_name(1, 0x02), "Invalid Queue Size");
    assert_string_equal(nvme_status_name(2, 0x86), "Access Denied");
}

/* A zoned namespace refuses a write off its zone's write pointer with a
 * command specific status (QEMU's zoned=on namespace answers 1h/BCh). */
static void test_zoned_namespace_write_statuses(void **state)
{
    char buf[64];

    (void)state;
    nvme_status_detail(status_field(1, 0xbc, false, true), buf, sizeof(buf));
    assert_string_equal(buf, "SCT 1h SC BCh: Zone Invalid Write");
    assert_string_equal(nvme_status_name(1, 0xb8), "Zone Boundary Error");
    assert_string_equal(nvme_status_name(1, 0xb9), "Zone Is Full");
    assert_string_equal(nvme_status_name(1, 0xbf), "Invalid Zone State Transition");
}

static void test_phase_and_dnr_do_not_change_the_decoding(void **state)
{
    char a[64], b[64];

    (void)state;
    nvme_status_detail(status_field(0, 0x80, false, false), a, sizeof(a));
    nvme_status_detail(status_field(0, 0x80, true, true), b, sizeof(b));
    assert_string_equal(a, b);
    assert_string_equal(a, "SCT 0h SC 80h: LBA Out of Range");
}

static void test_unknown_and_vendor_codes(void **state)
{
    char buf[64];

    (void)state;
    assert_string_equal(nvme_status_name(0, 0x7f), "Unknown Status");
    assert_string_equal(nvme_status_name(2, 0x00), "Unknown Status");
    assert_string_equal(nvme_status_name(2, 0xc5), "Vendor Specific");
    assert_string_equal(nvme_status_name(7, 0x01), "Vendor Specific");
    nvme_status_detail(status_field(7, 0xff, false, true), buf, sizeof(buf));
    assert_string_equal(buf, "SCT 7h SC FFh: Vendor Specific");
}

/* Every decoded status fits struct bm_completion.detail untruncated. */
static void test_every_detail_fits_a_completion(void **state)
{
    struct bm_completion c;

    (void)state;
    for (unsigned sct = 0; sct < 8; sct++)
        for (unsigned sc = 0; sc < 256; sc++) {
            char full[256];
            nvme_status_detail(status_field(sct, sc, true, true), full, sizeof(full));
            nvme_status_detail(status_field(sct, sc, true, true), c.detail, sizeof(c.detail));
            assert_string_equal(full, c.detail);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unrecovered_read_error),
        cmocka_unit_test(test_common_generic_codes),
        cmocka_unit_test(test_zoned_namespace_write_statuses),
        cmocka_unit_test(test_phase_and_dnr_do_not_change_the_decoding),
        cmocka_unit_test(test_unknown_and_vendor_codes),
        cmocka_unit_test(test_every_detail_fits_a_completion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
