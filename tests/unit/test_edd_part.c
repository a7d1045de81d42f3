/* The pure parsers the legacy BIOS stick detection rests on: the INT 13h
 * AH=48h parameter block (efi/disk/edd.c) and the GPT/MBR partition
 * entries (efi/disk/part_table.c), on synthetic sectors, including cut and
 * malformed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "disk/edd.h"
#include "disk/part_table.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* An AH=48h buffer with an EDD 3.0 path: PCI 02:03.1, SATA port 4. */
static void edd_block(uint8_t *p, bool good_sum)
{
    uint8_t sum = 0;

    memset(p, 0, EDD_PARAMS_BYTES);
    put16(p, EDD_PARAMS_BYTES);
    put16(p + 2, EDD_FLAG_REMOVABLE);
    put64(p + 16, 1000000);
    put16(p + 24, 512);
    put16(p + 30, EDD_KEY);
    p[32] = 44;
    memcpy(p + 36, "PCI ", 4);
    memcpy(p + 40, "SATA    ", 8);
    p[48] = 2, p[49] = 3, p[50] = 1;
    p[56] = 4;
    for (unsigned i = 30; i < EDD_PARAMS_BYTES - 1; i++)
        sum = (uint8_t)(sum + p[i]);
    p[73] = (uint8_t)(-sum + (good_sum ? 0 : 1));
}

static void test_edd_block_with_device_path(void **state)
{
    uint8_t p[EDD_PARAMS_BYTES];
    struct edd_params e;

    (void)state;
    edd_block(p, true);
    assert_true(edd_params_parse(p, &e));
    assert_int_equal(e.sectors, 1000000);
    assert_int_equal(e.bytes_per_sector, 512);
    assert_true(e.removable);
    assert_true(e.edd30 && e.has_pci);
    assert_string_equal(e.host_bus, "PCI");
    assert_string_equal(e.interface, "SATA");
    assert_int_equal(e.pci.bus, 2);
    assert_int_equal(e.pci.dev, 3);
    assert_int_equal(e.pci.fn, 1);
    assert_int_equal(e.device, 4);
}

static void test_edd_bad_checksum_or_short_length_means_no_path(void **state)
{
    uint8_t p[EDD_PARAMS_BYTES];
    struct edd_params e;

    (void)state;
    edd_block(p, false);
    assert_true(edd_params_parse(p, &e));
    assert_false(e.edd30 || e.has_pci);
    edd_block(p, true);
    put16(p, 30);           /* an EDD 1.x length: the path is not there */
    assert_true(edd_params_parse(p, &e));
    assert_false(e.edd30);
}

static void test_edd_unusable_sizes_are_refused(void **state)
{
    static const uint16_t bad[] = { 256, 768, 8192, 1 };
    uint8_t p[EDD_PARAMS_BYTES];
    struct edd_params e;

    (void)state;
    edd_block(p, true);
    put16(p + 24, 0);       /* EDD 1.x leaving it 0: 512 */
    assert_true(edd_params_parse(p, &e));
    assert_int_equal(e.bytes_per_sector, 512);
    for (unsigned i = 0; i < 4; i++) {
        put16(p + 24, bad[i]);
        assert_false(edd_params_parse(p, &e));
    }
    put16(p + 24, 4096);
    assert_true(edd_params_parse(p, &e));
    put64(p + 16, 0);
    assert_false(edd_params_parse(p, &e));
}

/* A disk of 64 sectors in memory; reads past it fail. */
static uint8_t disk[64][PART_SECTOR];

static int disk_read(void *ctx, uint64_t lba, void *buf)
{
    (void)ctx;
    if (lba >= 64)
        return BM_EIO;
    memcpy(buf, disk[lba], PART_SECTOR);
    return BM_OK;
}

static void test_gpt_entries_and_disk_guid(void **state)
{
    uint8_t sec[PART_SECTOR];
    struct part_span s[PART_MAX];
    char guid[40];

    (void)state;
    memset(disk, 0, sizeof(disk));
    memcpy(disk[1], "EFI PART", 8);
    for (unsigned i = 0; i < 16; i++)
        disk[1][56 + i] = (uint8_t)(0x10 + i);
    put64(disk[1] + 72, 2);
    put32(disk[1] + 84, 128);
    put64(disk[2] + 32, 34), put64(disk[2] + 40, 63);          /* 34..63 */
    put64(disk[2] + 128 + 32, 10), put64(disk[2] + 128 + 40, 9); /* last < first: dropped */
    put64(disk[2] + 256 + 32, 100), put64(disk[2] + 256 + 40, 200); /* past the disk: dropped */
    assert_true(part_gpt_disk_guid(disk[1], guid, sizeof(guid)));
    assert_string_equal(guid, "13121110-1514-1716-1819-1A1B1C1D1E1F");
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, PART_MAX), 1);
    assert_int_equal(s[0].first_lba, 34);
    assert_int_equal(s[0].sectors, 30);
    put32(disk[1] + 84, 96);        /* not a power of two */
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, PART_MAX), 0);
    put32(disk[1] + 84, 128);
    put64(disk[1] + 72, 1000);      /* entries past the disk: the read fails */
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, PART_MAX), 0);
    disk[1][0] = 'X';
    assert_false(part_gpt_disk_guid(disk[1], guid, sizeof(guid)));
}

static void test_mbr_entries_skip_empty_and_protective(void **state)
{
    uint8_t sec[PART_SECTOR];
    struct part_span s[PART_MAX];

    (void)state;
    memset(disk, 0, sizeof(disk));
    disk[0][510] = 0x55, disk[0][511] = 0xaa;
    disk[0][446 + 4] = 0xee, put32(disk[0] + 446 + 8, 1), put32(disk[0] + 446 + 12, 63);
    disk[0][462 + 4] = 0x0c, put32(disk[0] + 462 + 8, 8), put32(disk[0] + 462 + 12, 56);
    disk[0][478 + 4] = 0x0c, put32(disk[0] + 478 + 8, 0), put32(disk[0] + 478 + 12, 5);   /* starts at 0 */
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, PART_MAX), 1);
    assert_int_equal(s[0].first_lba, 8);
    assert_int_equal(s[0].sectors, 56);
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, 0), 0);
    disk[0][511] = 0;
    assert_int_equal(part_table_read(disk_read, NULL, 64, sec, s, PART_MAX), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edd_block_with_device_path),
        cmocka_unit_test(test_edd_bad_checksum_or_short_length_means_no_path),
        cmocka_unit_test(test_edd_unusable_sizes_are_refused),
        cmocka_unit_test(test_gpt_entries_and_disk_guid),
        cmocka_unit_test(test_mbr_entries_skip_empty_and_protective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
