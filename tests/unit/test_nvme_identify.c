/* Identify Controller / Identify Namespace parsing (NVMe 1.4 section
 * 5.15.2): what becomes a disk's model, serial, block size and capacity,
 * and which formats are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/nvme/nvme_regs.h"

static uint8_t id[4096];

static void put16(size_t off, uint16_t v)
{
    id[off] = (uint8_t)v;
    id[off + 1] = (uint8_t)(v >> 8);
}

static void put32(size_t off, uint32_t v)
{
    put16(off, (uint16_t)v);
    put16(off + 2, (uint16_t)(v >> 16));
}

static void put64(size_t off, uint64_t v)
{
    put32(off, (uint32_t)v);
    put32(off + 4, (uint32_t)(v >> 32));
}

static void put_ascii(size_t off, size_t len, const char *s)
{
    memset(id + off, ' ', len);
    memcpy(id + off, s, strlen(s));
}

/* An Identify Namespace structure with QEMU's eight LBA formats (512 and
 * 4096 bytes with 0/8/16/64 bytes of metadata) and format `index` in use. */
static void make_ns(uint64_t nsze, unsigned index)
{
    static const struct { uint8_t ds; uint16_t ms; } lbaf[8] = {
        { 9, 0 }, { 9, 8 }, { 9, 16 }, { 9, 64 }, { 12, 0 }, { 12, 8 }, { 12, 16 }, { 12, 64 },
    };

    memset(id, 0, sizeof(id));
    put64(NVME_IDNS_NSZE, nsze);
    put64(NVME_IDNS_NCAP, nsze);
    id[NVME_IDNS_NLBAF] = 7;
    id[NVME_IDNS_FLBAS] = (uint8_t)index;
    for (unsigned i = 0; i < 8; i++)
        put32(NVME_IDNS_LBAF + 4 * i, (uint32_t)lbaf[i].ms | ((uint32_t)lbaf[i].ds << 16));
}

static void test_controller_strings_and_limits(void **state)
{
    struct nvme_ctrl_info info;

    (void)state;
    memset(id, 0, sizeof(id));
    put16(NVME_IDC_VID, 0x1b36);
    put_ascii(NVME_IDC_SN, NVME_IDC_SN_LEN, "S1");
    put_ascii(NVME_IDC_MN, NVME_IDC_MN_LEN, "QEMU NVMe Ctrl");
    put_ascii(NVME_IDC_FR, NVME_IDC_FR_LEN, "7.2.22");
    id[NVME_IDC_MDTS] = 7;
    id[NVME_IDC_SQES] = 0x66;
    id[NVME_IDC_CQES] = 0x44;
    put32(NVME_IDC_NN, 256);
    nvme_parse_identify_ctrl(id, &info);
    assert_int_equal(info.vid, 0x1b36);
    assert_string_equal(info.serial, "S1");
    assert_string_equal(info.model, "QEMU NVMe Ctrl");
    assert_string_equal(info.firmware, "7.2.22");
    assert_int_equal(info.mdts, 7);
    assert_int_equal(info.sqes, 0x66);
    assert_int_equal(info.cqes, 0x44);
    assert_int_equal(info.nn, 256);
}

/* Fields that fill their whole width have no terminator in the structure. */
static void test_full_width_strings(void **state)
{
    struct nvme_ctrl_info info;

    (void)state;
    memset(id, 0, sizeof(id));
    put_ascii(NVME_IDC_SN, NVME_IDC_SN_LEN, "ABCDEFGHIJKLMNOPQRST");
    put_ascii(NVME_IDC_MN, NVME_IDC_MN_LEN, "0123456789012345678901234567890123456789");
    put_ascii(NVME_IDC_FR, NVME_IDC_FR_LEN, "FW123456");
    nvme_parse_identify_ctrl(id, &info);
    assert_string_equal(info.serial, "ABCDEFGHIJKLMNOPQRST");
    assert_string_equal(info.model, "0123456789012345678901234567890123456789");
    assert_string_equal(info.firmware, "FW123456");
}

static void test_512_byte_namespace(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(131072, 0);
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.lba_bytes, 512);
    assert_int_equal(ns.phys_bytes, 512);
    assert_int_equal(ns.blocks, 131072);
}

static void test_4k_lba_namespace_capacity(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(16384, 4);
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.lba_bytes, 4096);
    assert_int_equal(ns.phys_bytes, 4096);
    assert_int_equal(ns.blocks, 16384);
    assert_int_equal(ns.lbaf_index, 4);
}

/* 512e: 512-byte blocks written best in 4 KiB units, atomically. */
static void test_physical_block_from_npwg_and_atomicity(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(1000, 0);
    id[NVME_IDNS_NSFEAT] = NVME_NSFEAT_OPTPERF | NVME_NSFEAT_NSABP;
    put16(NVME_IDNS_NPWG, 7);
    put16(NVME_IDNS_NAWUPF, 7);
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.phys_bytes, 4096);
    /* Without an atomic write unit larger than a block, stay at 512. */
    id[NVME_IDNS_NSFEAT] = NVME_NSFEAT_OPTPERF;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.phys_bytes, 512);
    /* The controller-wide AWUPF applies when the namespace has none. */
    assert_int_equal(nvme_parse_identify_ns(id, 7, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.phys_bytes, 4096);
}

static void test_metadata_formats_are_skipped(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(1000, 1);
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "8 bytes of metadata"));
    assert_non_null(strstr(why, "separate"));
    make_ns(1000, 7);
    id[NVME_IDNS_FLBAS] |= NVME_FLBAS_EXTENDED;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "64 bytes of metadata"));
    assert_non_null(strstr(why, "extended"));
}

/* Linux nvme_ns_has_pi(): metadata that is exactly the 8 bytes of PI is
 * driven with PRACT, extended LBA or separate buffer; PI inside larger
 * metadata, or PI without metadata, is named and not driven. */
static void test_pi_namespaces_are_measured_when_the_metadata_is_exactly_the_pi(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(1000, 1);                      /* 512 + 8 */
    id[NVME_IDNS_DPS] = 1;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.lba_bytes, 512);
    assert_int_equal(ns.pi_type, 1);
    assert_false(ns.extended_lba);
    make_ns(1000, 5);                      /* 4096 + 8, extended LBA, type 3 */
    id[NVME_IDNS_DPS] = 3;
    id[NVME_IDNS_FLBAS] |= NVME_FLBAS_EXTENDED;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.lba_bytes, 4096);
    assert_int_equal(ns.pi_type, 3);
    assert_true(ns.extended_lba);
    make_ns(1000, 2);                      /* PI in 16 bytes of metadata */
    id[NVME_IDNS_DPS] = 2;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "protection information type 2 in 16 bytes of metadata"));
    make_ns(1000, 0);                      /* PI without metadata: inconsistent */
    id[NVME_IDNS_DPS] = 1;
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    make_ns(1000, 1);
    id[NVME_IDNS_DPS] = 5;                 /* reserved type */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
}

/* PRINFO as Linux nvme_setup_rw() sets it. */
static void test_pi_read_write_fields_follow_the_pi_type(void **state)
{
    uint32_t cdw12, cdw14;

    (void)state;
    cdw12 = 7;
    nvme_pi_rw_fields(1, 0x123456789ull, &cdw12, &cdw14);
    assert_int_equal(cdw12, 7u | NVME_RW_PRACT | NVME_RW_PRCHK_GUARD | NVME_RW_PRCHK_REF);
    assert_int_equal(cdw14, 0x23456789u);
    cdw12 = 0;
    nvme_pi_rw_fields(3, 99, &cdw12, &cdw14);
    assert_int_equal(cdw12, NVME_RW_PRACT | NVME_RW_PRCHK_GUARD);
    assert_int_equal(cdw14, 0);
    cdw12 = 0;
    nvme_pi_rw_fields(0, 99, &cdw12, &cdw14);
    assert_int_equal(cdw12, 0);
}

/* The CSI descriptor among others (NVMe 2.0 figure 281); a list without
 * one, or a malformed one, names no command set. */
static void test_command_set_comes_from_the_csi_descriptor(void **state)
{
    char name[48];

    (void)state;
    memset(id, 0, sizeof(id));
    id[0] = 0x01, id[1] = 8;               /* EUI-64 */
    id[12] = 0x03, id[13] = 16;            /* UUID */
    id[32] = NVME_NIDT_CSI, id[33] = 1, id[36] = NVME_CSI_ZNS;
    assert_int_equal(nvme_parse_ns_csi(id), NVME_CSI_ZNS);
    nvme_csi_name(nvme_parse_ns_csi(id), name, sizeof(name));
    assert_string_equal(name, "zoned namespace");
    id[33] = 2;                            /* a CSI is one byte */
    assert_int_equal(nvme_parse_ns_csi(id), -1);
    memset(id, 0, sizeof(id));
    assert_int_equal(nvme_parse_ns_csi(id), -1);
    id[0] = 0x01, id[1] = 0xff;            /* runs to the end: stops */
    id[4092] = 0x01, id[4093] = 200;
    assert_int_equal(nvme_parse_ns_csi(id), -1);
    nvme_csi_name(NVME_CSI_KV, name, sizeof(name));
    assert_string_equal(name, "key-value namespace");
}

static void test_other_block_sizes_are_skipped(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(1000, 0);
    put32(NVME_IDNS_LBAF, 13u << 16); /* 8 KiB blocks */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "8192-byte blocks"));
}

static void test_empty_and_malformed_namespaces(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    make_ns(0, 0);
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENODEV);
    make_ns(1000, 9); /* FLBAS names a format beyond NLBAF */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "FLBAS"));
}

/* NVMe 2.0: more than 16 formats, FLBAS bits 6:5 hold bits 5:4 of the
 * index. Format 17 (4096 bytes) is FLBAS 21h; read as 4 bits it would be
 * format 1 (512 bytes), and every command would move 8x its buffer. */
static void test_flbas_high_bits_select_formats_beyond_16(void **state)
{
    struct nvme_ns_info ns;
    char why[96];

    (void)state;
    memset(id, 0, sizeof(id));
    put64(NVME_IDNS_NSZE, 1000);
    id[NVME_IDNS_NLBAF] = 19;                      /* 20 formats */
    for (unsigned i = 0; i < 20; i++)
        put32(NVME_IDNS_LBAF + 4 * i, (uint32_t)(i == 17 ? 12 : 9) << 16);
    put32(NVME_IDNS_LBAF + 4 * 18, 8u | 12u << 16); /* 4096 + 8 bytes of metadata */
    id[NVME_IDNS_FLBAS] = 0x21;                    /* index 1 | 16 */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_OK);
    assert_int_equal(ns.lbaf_index, 17);
    assert_int_equal(ns.lba_bytes, 4096);
    assert_int_equal(ns.blocks, 1000);

    id[NVME_IDNS_FLBAS] = 0x22;                    /* format 18: metadata, refused */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "metadata"));
    id[NVME_IDNS_FLBAS] = 0x44;                    /* format 36 of 20: refused */
    assert_int_equal(nvme_parse_identify_ns(id, 0, &ns, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "format 36 of 20"));
}

/* RTD3E rounds UP to whole seconds (Linux DIV_ROUND_UP(transition_time,
 * 1000000)): a drive that needs 7.5 s gets 8 s, not 7; clamped 5..60 s. */
static void test_rtd3e_shutdown_time_rounds_up(void **state)
{
    (void)state;
    assert_int_equal(nvme_shutdown_timeout_ms(7500000, 5000, 60000), 8000);
    assert_int_equal(nvme_shutdown_timeout_ms(8000000, 5000, 60000), 8000);
    assert_int_equal(nvme_shutdown_timeout_ms(8000001, 5000, 60000), 9000);
    assert_int_equal(nvme_shutdown_timeout_ms(1, 5000, 60000), 5000);
    assert_int_equal(nvme_shutdown_timeout_ms(0, 5000, 60000), 5000);
    assert_int_equal(nvme_shutdown_timeout_ms(90000000, 5000, 60000), 60000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controller_strings_and_limits),
        cmocka_unit_test(test_full_width_strings),
        cmocka_unit_test(test_512_byte_namespace),
        cmocka_unit_test(test_4k_lba_namespace_capacity),
        cmocka_unit_test(test_physical_block_from_npwg_and_atomicity),
        cmocka_unit_test(test_metadata_formats_are_skipped),
        cmocka_unit_test(test_pi_namespaces_are_measured_when_the_metadata_is_exactly_the_pi),
        cmocka_unit_test(test_pi_read_write_fields_follow_the_pi_type),
        cmocka_unit_test(test_command_set_comes_from_the_csi_descriptor),
        cmocka_unit_test(test_other_block_sizes_are_skipped),
        cmocka_unit_test(test_empty_and_malformed_namespaces),
        cmocka_unit_test(test_flbas_high_bits_select_formats_beyond_16),
        cmocka_unit_test(test_rtd3e_shutdown_time_rounds_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
