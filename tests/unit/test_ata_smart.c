/* ATA SMART attribute tables into health reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../drivers/ahci/ata.h"
#include "../drivers/blkdev.h"

static void put_attr(uint8_t *data, unsigned slot, uint8_t id, uint8_t value, uint8_t worst, uint64_t raw)
{
    uint8_t *a = data + 2 + slot * 12;
    a[0] = id;
    a[3] = value;
    a[4] = worst;
    for (int b = 0; b < 6; b++)
        a[5 + b] = (uint8_t)(raw >> (8 * b));
}

static void put_thresh(uint8_t *t, unsigned slot, uint8_t id, uint8_t threshold)
{
    t[2 + slot * 12] = id;
    t[2 + slot * 12 + 1] = threshold;
}

static void test_attributes_temperature_hours_and_cycles(void **state)
{
    uint8_t data[512] = { 0 }, thr[512] = { 0 };
    struct bm_health h;
    (void)state;
    put_attr(data, 0, 5, 100, 100, 0);
    put_attr(data, 1, 9, 99, 99, 0x0000123400002710ull); /* vendor bits above 32: ignored */
    put_attr(data, 2, 12, 99, 99, 321);
    put_attr(data, 5, 194, 64, 40, 0x0000002d0012001full); /* 31 C, min/max packed above */
    put_thresh(thr, 0, 5, 10);
    put_thresh(thr, 3, 194, 0);
    ata_parse_smart(data, thr, &h);
    assert_string_equal(h.source, "ata_smart");
    assert_int_equal(h.nattrs, 4);
    assert_int_equal(h.attrs[0].id, 5);
    assert_int_equal(h.attrs[0].threshold, 10);
    assert_int_equal(h.power_on_hours, 10000);
    assert_int_equal(h.power_cycles, 321);
    assert_int_equal(h.temperature_c, 31);
    assert_int_equal(h.attrs[3].raw, 0x0000002d0012001full);
    assert_int_equal(h.smart_passed, 1);
    assert_int_equal(h.percentage_used, -1); /* NVMe-only fields stay unknown */
    assert_int_equal(h.media_errors, -1);
}

static void test_value_at_threshold_is_failing(void **state)
{
    uint8_t data[512] = { 0 }, thr[512] = { 0 };
    struct bm_health h;
    (void)state;
    put_attr(data, 0, 5, 36, 36, 4000);
    put_thresh(thr, 7, 5, 36);
    ata_parse_smart(data, thr, &h);
    assert_int_equal(h.smart_passed, 0);
    ata_parse_smart(data, NULL, &h);
    assert_int_equal(h.smart_passed, -1); /* without thresholds: unknown */
}

static void test_airflow_temperature_only_without_194(void **state)
{
    uint8_t data[512] = { 0 };
    struct bm_health h;
    (void)state;
    put_attr(data, 0, 190, 60, 50, 40);
    ata_parse_smart(data, NULL, &h);
    assert_int_equal(h.temperature_c, 40);
    put_attr(data, 1, 194, 60, 50, 35);
    ata_parse_smart(data, NULL, &h);
    assert_int_equal(h.temperature_c, 35);
}

static void test_smart_fis_carries_the_signature(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    (void)state;
    ata_fis_smart(fis, ATA_SMART_READ_DATA);
    assert_int_equal(fis[FIS_COMMAND], 0xb0);
    assert_int_equal(fis[FIS_FEATURE_LO], 0xd0);
    assert_int_equal(fis[FIS_LBA1], 0x4f);
    assert_int_equal(fis[FIS_LBA2], 0xc2);
    assert_int_equal(fis[FIS_COUNT_LO], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attributes_temperature_hours_and_cycles),
        cmocka_unit_test(test_value_at_threshold_is_failing),
        cmocka_unit_test(test_airflow_temperature_only_without_194),
        cmocka_unit_test(test_smart_fis_carries_the_signature),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
