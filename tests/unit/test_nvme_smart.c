/* The NVMe SMART / Health Information log as a health report (NVMe 1.4
 * section 5.14.1.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/nvme/nvme_regs.h"

static uint8_t log_page[512];

static void put_counter(size_t off, uint64_t lo, uint64_t hi)
{
    for (int i = 0; i < 8; i++) {
        log_page[off + i] = (uint8_t)(lo >> (8 * i));
        log_page[off + 8 + i] = (uint8_t)(hi >> (8 * i));
    }
}

static void test_fields_of_a_healthy_drive(void **state)
{
    struct bm_health h;

    (void)state;
    memset(log_page, 0, sizeof(log_page));
    log_page[NVME_SMART_COMPOSITE_TEMP] = 0x43; /* 323 K */
    log_page[NVME_SMART_COMPOSITE_TEMP + 1] = 0x01;
    log_page[NVME_SMART_PERCENTAGE_USED] = 3;
    put_counter(NVME_SMART_DATA_UNITS_READ, 1000, 0);
    put_counter(NVME_SMART_DATA_UNITS_WRITTEN, 2, 0);
    put_counter(NVME_SMART_POWER_CYCLES, 17, 0);
    put_counter(NVME_SMART_POWER_ON_HOURS, 8760, 0);
    put_counter(NVME_SMART_UNSAFE_SHUTDOWNS, 4, 0);
    put_counter(NVME_SMART_MEDIA_ERRORS, 0, 0);
    nvme_parse_smart_log(log_page, &h);
    assert_string_equal(h.source, "nvme_smart_log");
    assert_int_equal(h.temperature_c, 50);
    assert_int_equal(h.critical_warning, 0);
    assert_int_equal(h.percentage_used, 3);
    assert_int_equal(h.data_read_bytes, 1000 * 512000ll);
    assert_int_equal(h.data_written_bytes, 2 * 512000ll);
    assert_int_equal(h.power_cycles, 17);
    assert_int_equal(h.power_on_hours, 8760);
    assert_int_equal(h.unsafe_shutdowns, 4);
    assert_int_equal(h.media_errors, 0);
    /* ATA-only fields stay unknown. */
    assert_int_equal(h.smart_passed, -1);
    assert_int_equal(h.nattrs, 0);
}

static void test_warnings_and_errors(void **state)
{
    struct bm_health h;

    (void)state;
    memset(log_page, 0, sizeof(log_page));
    log_page[NVME_SMART_CRITICAL_WARNING] = 0x05; /* spare below threshold, reliability degraded */
    log_page[NVME_SMART_PERCENTAGE_USED] = 255;   /* may exceed 100 */
    put_counter(NVME_SMART_MEDIA_ERRORS, 12, 0);
    nvme_parse_smart_log(log_page, &h);
    assert_int_equal(h.critical_warning, 5);
    assert_int_equal(h.percentage_used, 255);
    assert_int_equal(h.media_errors, 12);
    /* A composite temperature of 0 K means "not reported". */
    assert_int_equal(h.temperature_c, -1);
}

static void test_huge_counters_saturate(void **state)
{
    struct bm_health h;

    (void)state;
    memset(log_page, 0, sizeof(log_page));
    put_counter(NVME_SMART_POWER_ON_HOURS, 5, 1);              /* beyond 64 bits */
    put_counter(NVME_SMART_DATA_UNITS_READ, 1ull << 50, 0);    /* bytes overflow */
    put_counter(NVME_SMART_MEDIA_ERRORS, UINT64_MAX, 0);
    nvme_parse_smart_log(log_page, &h);
    assert_int_equal(h.power_on_hours, INT64_MAX);
    assert_int_equal(h.data_read_bytes, INT64_MAX);
    assert_int_equal(h.media_errors, INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_of_a_healthy_drive),
        cmocka_unit_test(test_warnings_and_errors),
        cmocka_unit_test(test_huge_counters_saturate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
