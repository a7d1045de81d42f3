/* IDENTIFY DEVICE parsing (ACS-3 section 7.12.7) on synthetic blocks laid
 * out as drives send them: 512-byte, 512e and 4Kn disks, disks without
 * NCQ, 28-bit-only disks, and data that must be refused. Also the NCQ
 * command error log (log 10h) and the decoded error strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/ahci/ata.h"

static uint8_t blk[ATA_SECTOR_BYTES];

static void put_word(unsigned n, uint16_t v)
{
    blk[2 * n] = (uint8_t)v;
    blk[2 * n + 1] = (uint8_t)(v >> 8);
}

/* An ATA string: two characters per word, the first in the high byte,
 * padded with spaces. */
static void put_string(unsigned first_word, unsigned nwords, const char *s)
{
    size_t len = strlen(s);
    for (unsigned i = 0; i < nwords * 2; i++) {
        char ch = i < len ? s[i] : ' ';
        blk[2 * first_word + (i ^ 1)] = (uint8_t)ch;
    }
}

/* Word 255: signature A5h and the checksum that makes the block sum to 0. */
static void seal(void)
{
    uint8_t sum = 0;
    blk[510] = 0xa5;
    blk[511] = 0;
    for (unsigned i = 0; i < ATA_SECTOR_BYTES; i++)
        sum = (uint8_t)(sum + blk[i]);
    blk[511] = (uint8_t)(0x100 - sum);
}

/* A modern SATA SSD: 48-bit, 512-byte sectors, NCQ depth 32, GPL. */
static void base_disk(uint64_t blocks)
{
    memset(blk, 0, sizeof(blk));
    put_word(0, 0x0040);
    put_string(10, 10, "S6PUNX0R123456A");
    put_string(23, 4, "SVT02B6Q");
    put_string(27, 20, "Samsung SSD 870 EVO 1TB");
    put_word(49, (1u << 9) | (1u << 8));        /* LBA, DMA */
    put_word(60, 0xffff);                        /* 28-bit capacity saturated */
    put_word(61, 0x0fff);
    put_word(75, 31);                            /* queue depth 32 */
    put_word(76, (1u << 8) | (1u << 3) | (1u << 2) | (1u << 1)); /* NCQ, Gen1-3 */
    put_word(83, 0x4000 | (1u << 10));           /* 48-bit */
    put_word(84, 0x4000 | (1u << 5));            /* GPL */
    put_word(86, 1u << 10);
    put_word(87, 0x4000 | (1u << 5));
    put_word(100, (uint16_t)blocks);
    put_word(101, (uint16_t)(blocks >> 16));
    put_word(102, (uint16_t)(blocks >> 32));
    put_word(103, (uint16_t)(blocks >> 48));
    put_word(106, 0x4000);                       /* valid, 1 logical per physical */
}

static void test_512_disk_strings_capacity_ncq(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1953525168ull);
    seal();
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_string_equal(id.model, "Samsung SSD 870 EVO 1TB");
    assert_string_equal(id.serial, "S6PUNX0R123456A");
    assert_string_equal(id.firmware, "SVT02B6Q");
    assert_true(id.lba48);
    assert_int_equal(id.blocks, 1953525168ull);
    assert_int_equal(id.logical_bytes, 512);
    assert_int_equal(id.physical_bytes, 512);
    assert_true(id.ncq);
    assert_int_equal(id.ncq_depth, 32);
    assert_true(id.gpl);
}

static void test_48bit_capacity_uses_all_four_words(void **state)
{
    struct ata_identity id;
    (void)state;

    /* Above 2^32 sectors (a 20 TB disk), with bits in words 102-103. */
    base_disk(0x0001000900000123ull);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.blocks, 0x0001000900000123ull);
}

static void test_512e_disk_physical_4096(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(7814037168ull);
    put_word(106, 0x6003); /* valid, multiple logical per physical, 2^3 */
    seal();
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.logical_bytes, 512);
    assert_int_equal(id.physical_bytes, 4096);
    assert_int_equal(id.blocks, 7814037168ull);
}

static void test_4kn_disk_logical_4096(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(976754646ull);
    put_word(106, 0x5000); /* valid, logical sector longer than 256 words */
    put_word(117, 2048);   /* 2048 words = 4096 bytes */
    put_word(118, 0);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.logical_bytes, 4096);
    assert_int_equal(id.physical_bytes, 4096);
    assert_int_equal(id.blocks, 976754646ull);

    /* The same with bit 13 set and an exponent of 0. */
    put_word(106, 0x7000);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.physical_bytes, 4096);
}

static void test_word106_ignored_unless_valid(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000);
    put_word(106, 0xf003); /* bit 15 set: not valid */
    put_word(117, 2048);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.logical_bytes, 512);
    assert_int_equal(id.physical_bytes, 512);
    put_word(106, 0x2003); /* bit 14 clear: not valid */
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_int_equal(id.physical_bytes, 512);
}

static void test_no_ncq_disk(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000000);
    put_word(76, (1u << 2) | (1u << 1)); /* SATA, no NCQ */
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.ncq);
    assert_int_equal(id.ncq_depth, 0);

    /* A parallel ATA disk: word 76 is 0000h or FFFFh and means nothing. */
    put_word(76, 0xffff);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.ncq);
    put_word(76, 0x0000);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.ncq);
}

static void test_ncq_depth_from_word_75(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000000);
    put_word(75, 0xffe0 | 3); /* only bits 4:0 count */
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_true(id.ncq);
    assert_int_equal(id.ncq_depth, 4);
}

/* Word 76 bits 3:1: the fastest SATA generation the drive supports. */
static void test_sata_generation_from_word_76(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000000);
    put_word(76, (1u << 8) | (1u << 3) | (1u << 2) | (1u << 1));
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_true(id.sata_max_gbps == 6.0);
    put_word(76, (1u << 8) | (1u << 2) | (1u << 1));
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_true(id.sata_max_gbps == 3.0);
    put_word(76, (1u << 1));
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_true(id.sata_max_gbps == 1.5);
    /* Parallel ATA: 0000h/FFFFh say nothing, not "6 Gb/s". */
    put_word(76, 0xffff);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_true(id.sata_max_gbps == 0);
}

static void test_28bit_only_disk(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(0x123456789ull);       /* words 100-103 must be ignored */
    put_word(83, 0x4000);             /* no 48-bit feature set */
    put_word(60, 0x5678);
    put_word(61, 0x0234);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.lba48);
    assert_int_equal(id.blocks, 0x02345678ull);

    /* Word 83 not valid (bits 15:14 not 01b): bit 10 means nothing. */
    put_word(83, 0xc000 | (1u << 10));
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.lba48);
    assert_int_equal(id.blocks, 0x02345678ull);
}

static void test_atapi_data_refused(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000);
    put_word(0, 0x85c0); /* IDENTIFY PACKET DEVICE layout: bit 15 set */
    assert_int_equal(ata_parse_identify(blk, &id), BM_EINVAL);
}

static void test_checksum_checked_when_signed(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000);
    seal();
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    blk[200] ^= 0x01; /* one bit flipped in transit */
    assert_int_equal(ata_parse_identify(blk, &id), BM_EINVAL);
    /* Without the A5h signature there is no checksum to check. */
    blk[510] = 0;
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
}

static void test_zero_capacity_or_odd_sector_size_refused(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(0);                /* nothing in words 100-103 nor 60-61 */
    put_word(60, 0);
    put_word(61, 0);
    assert_int_equal(ata_parse_identify(blk, &id), BM_EINVAL);
    base_disk(1000);
    put_word(106, 0x5000);
    put_word(117, 260); /* 520-byte sectors: not a power of two */
    assert_int_equal(ata_parse_identify(blk, &id), BM_EINVAL);
}

static void test_strings_trimmed_and_odd_lengths(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(1000);
    put_string(27, 20, "  WDC WD40EFRX-68N32N0");  /* leading spaces, as some drives pad */
    put_string(10, 10, "WD-WCC7K1234567");      /* odd length: a space in the last word */
    put_string(23, 4, "82.00A8");
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_string_equal(id.model, "WDC WD40EFRX-68N32N0");
    assert_string_equal(id.serial, "WD-WCC7K1234567");
    assert_string_equal(id.firmware, "82.00A8");
}

static void test_qemu_ide_hd_identify(void **state)
{
    struct ata_identity id;
    (void)state;

    /* What QEMU 7.2's ide-hd reports on ich9-ahci: word 106 = 6000h
     * (valid, exponent 0), no GPL, NCQ depth 32. */
    memset(blk, 0, sizeof(blk));
    put_word(0, 0x0040);
    put_string(10, 10, "QM00005");
    put_string(23, 4, "2.5+");
    put_string(27, 20, "QEMU HARDDISK");
    put_word(75, 31);
    put_word(76, 1u << 8);
    put_word(83, (1u << 14) | (1u << 13) | (1u << 12) | (1u << 10));
    put_word(84, 1u << 14);
    put_word(87, 1u << 14);
    put_word(100, 0);
    put_word(101, 2); /* 131072 sectors = 64 MiB */
    put_word(106, 0x6000);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_string_equal(id.model, "QEMU HARDDISK");
    assert_string_equal(id.serial, "QM00005");
    assert_int_equal(id.blocks, 131072);
    assert_int_equal(id.physical_bytes, 512);
    assert_true(id.ncq);
    assert_int_equal(id.ncq_depth, 32);
    assert_false(id.gpl);
}

/* ---- NCQ command error log ---------------------------------------------------- */

static void seal_log(uint8_t *p)
{
    uint8_t sum = 0;
    p[511] = 0;
    for (unsigned i = 0; i < 511; i++)
        sum = (uint8_t)(sum + p[i]);
    p[511] = (uint8_t)(0x100 - sum);
}

static void test_ncq_error_log_names_tag_registers_and_lba(void **state)
{
    uint8_t page[ATA_SECTOR_BYTES] = { 0 };
    struct ata_ncq_error e;
    (void)state;

    page[0] = 17;           /* tag 17 */
    page[2] = 0x41;         /* status: DRDY ERR */
    page[3] = ATA_ERR_UNC;
    page[4] = 0x44;         /* LBA 0x112233 445566: bytes 4-6 low, 8-10 high */
    page[5] = 0x55;
    page[6] = 0x66;
    page[8] = 0x33;
    page[9] = 0x22;
    page[10] = 0x11;
    page[7] = 0x40;
    seal_log(page);
    assert_int_equal(ata_parse_ncq_error_log(page, &e), BM_OK);
    assert_false(e.nq);
    assert_int_equal(e.tag, 17);
    assert_int_equal(e.status, 0x41);
    assert_int_equal(e.error, ATA_ERR_UNC);
    assert_int_equal(e.lba, 0x112233665544ull);

    page[0] = 0x80 | 3;     /* NQ: a non-queued command failed */
    seal_log(page);
    assert_int_equal(ata_parse_ncq_error_log(page, &e), BM_OK);
    assert_true(e.nq);

    assert_false(e.bad_checksum);

    /* A broken checksum warns, it does not throw the page away (Linux
     * ata_eh_read_log_10h): the tag is still used, no COMRESET. */
    page[100] ^= 0xff;
    assert_int_equal(ata_parse_ncq_error_log(page, &e), BM_OK);
    assert_true(e.bad_checksum);
    assert_true(e.nq);
    assert_int_equal(e.tag, 3);
}

/* ---- Decoded errors -------------------------------------------------------------- */

static void test_error_detail_names_bits(void **state)
{
    char buf[64];
    (void)state;

    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x51, ATA_ERR_UNC, true, 123456789),
                        "UNC sts 0x51 err 0x40 lba 123456789");
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x41, ATA_ERR_ABRT, false, 0), "ABRT sts 0x41 err 0x04");
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x51, ATA_ERR_IDNF | ATA_ERR_ABRT, true, 7),
                        "IDNF,ABRT sts 0x51 err 0x14 lba 7");
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x61, 0, false, 0), "DF sts 0x61 err 0x00");
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x51, ATA_ERR_ICRC | ATA_ERR_ABRT, false, 0),
                        "ICRC,ABRT sts 0x51 err 0x84");
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x41, 0, false, 0), "ERR sts 0x41 err 0x00");
    /* Obsolete bits alone: named by the raw value only. */
    assert_string_equal(ata_describe_error(buf, sizeof(buf), 0x41, 0x03, false, 0), "ERR sts 0x41 err 0x03");
}

static void test_error_detail_fits_a_completion(void **state)
{
    char buf[64];
    (void)state;

    /* Every bit and the largest 48-bit LBA still fit struct bm_completion's
     * detail, untruncated. */
    ata_describe_error(buf, sizeof(buf), 0xff, 0xff, true, 0xffffffffffffull);
    assert_string_equal(buf, "ICRC,UNC,IDNF,ABRT sts 0xff err 0xff lba 281474976710655");
}

/* Linux ata_id_has_lba48(): word 83 bit 10 with an empty capacity in
 * words 100-103 is no 48-bit disk; words 60-61 hold its size. */
static void test_lba48_bit_without_48bit_capacity_is_a_28bit_disk(void **state)
{
    struct ata_identity id;
    (void)state;

    base_disk(0);
    put_word(60, 0x4a30);
    put_word(61, 0x01dd);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.lba48);
    assert_int_equal(id.blocks, 0x01dd4a30ull);

    assert_true(id.dma);
    /* Without LBA addressing (word 49 bit 9) there is no 28-bit capacity
     * to use either: a CHS-only device is refused. */
    put_word(49, 1u << 8);
    assert_int_equal(ata_parse_identify(blk, &id), BM_EINVAL);

    /* LBA without DMA (word 49 bit 8): parsed, and said. */
    put_word(49, 1u << 9);
    assert_int_equal(ata_parse_identify(blk, &id), BM_OK);
    assert_false(id.dma);
}

/* READ/WRITE DMA: LBA 23:0 in the LBA bytes, 27:24 in the device register
 * with the LBA bit, an 8-bit count where 0 means 256; nothing a 28-bit
 * command cannot carry. */
static void test_dma28_fis_layout_and_limits(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    (void)state;

    assert_int_equal(ata_fis_dma28(fis, false, 0x0abcdef1ull, 256), BM_OK);
    assert_int_equal(fis[FIS_COMMAND], ATA_CMD_READ_DMA);
    assert_int_equal(fis[FIS_LBA0], 0xf1);
    assert_int_equal(fis[FIS_LBA1], 0xde);
    assert_int_equal(fis[FIS_LBA2], 0xbc);
    assert_int_equal(fis[FIS_DEVICE], ATA_DEV_LBA | 0x0a);
    assert_int_equal(fis[FIS_LBA3] | fis[FIS_LBA4] | fis[FIS_LBA5], 0);
    assert_int_equal(fis[FIS_COUNT_LO], 0);
    assert_int_equal(fis[FIS_COUNT_HI], 0);
    assert_int_equal(ata_fis_dma28(fis, true, 7, 3), BM_OK);
    assert_int_equal(fis[FIS_COMMAND], ATA_CMD_WRITE_DMA);
    assert_int_equal(fis[FIS_COUNT_LO], 3);

    assert_int_equal(ata_fis_dma28(fis, false, 0, 257), BM_EINVAL);
    assert_int_equal(ata_fis_dma28(fis, false, 0, 0), BM_EINVAL);
    assert_int_equal(ata_fis_dma28(fis, false, ATA_LBA28_LIMIT - 1, 1), BM_OK);
    assert_int_equal(ata_fis_dma28(fis, false, ATA_LBA28_LIMIT - 1, 2), BM_EINVAL);
    assert_int_equal(ata_fis_dma28(fis, false, ATA_LBA28_LIMIT, 1), BM_EINVAL);
}

/* Word 2 of a Power-Up-In-Standby drive (ACS-3 IDENTIFY DEVICE; Linux ata_dev_read_id()). */
static void test_puis_word2_values(void **state)
{
    (void)state;

    base_disk(1000);
    assert_int_equal(ata_identify_puis(blk), ATA_PUIS_NONE);
    put_word(2, 0x37c8);
    assert_int_equal(ata_identify_puis(blk), ATA_PUIS_SPINUP_INCOMPLETE);
    put_word(2, 0x738c);
    assert_int_equal(ata_identify_puis(blk), ATA_PUIS_SPINUP_COMPLETE);
    put_word(2, 0x8c73);   /* spins up by itself */
    assert_int_equal(ata_identify_puis(blk), ATA_PUIS_NONE);
    put_word(2, 0xc837);
    assert_int_equal(ata_identify_puis(blk), ATA_PUIS_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_512_disk_strings_capacity_ncq),
        cmocka_unit_test(test_48bit_capacity_uses_all_four_words),
        cmocka_unit_test(test_512e_disk_physical_4096),
        cmocka_unit_test(test_4kn_disk_logical_4096),
        cmocka_unit_test(test_word106_ignored_unless_valid),
        cmocka_unit_test(test_no_ncq_disk),
        cmocka_unit_test(test_ncq_depth_from_word_75),
        cmocka_unit_test(test_sata_generation_from_word_76),
        cmocka_unit_test(test_28bit_only_disk),
        cmocka_unit_test(test_lba48_bit_without_48bit_capacity_is_a_28bit_disk),
        cmocka_unit_test(test_dma28_fis_layout_and_limits),
        cmocka_unit_test(test_puis_word2_values),
        cmocka_unit_test(test_atapi_data_refused),
        cmocka_unit_test(test_checksum_checked_when_signed),
        cmocka_unit_test(test_zero_capacity_or_odd_sector_size_refused),
        cmocka_unit_test(test_strings_trimmed_and_odd_lengths),
        cmocka_unit_test(test_qemu_ide_hd_identify),
        cmocka_unit_test(test_ncq_error_log_names_tag_registers_and_lba),
        cmocka_unit_test(test_error_detail_names_bits),
        cmocka_unit_test(test_error_detail_fits_a_completion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
