/* SPD decoders on images built here from the JEDEC layouts (JESD21-C
 * Annex J DDR2, Appendix X FB-DIMM, Annex K DDR3, Annex L DDR4; JESD400-5
 * DDR5), one real-world module per generation, with their checksums /
 * CRCs computed as the standard defines them; then bad CRCs and
 * truncated reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/inventory/spd.h"

static uint8_t img[1024];

static void put_str(size_t off, const char *s, size_t width)
{
    memset(img + off, ' ', width);
    memcpy(img + off, s, strlen(s));
}

static void put_crc(size_t start, size_t n, size_t at)
{
    uint16_t crc = spd_crc16(img + start, n);
    img[at] = (uint8_t)crc;
    img[at + 1] = (uint8_t)(crc >> 8);
}

/* A 2 GB 2Rx8 DDR2-800 CL5 registered ECC DIMM (Samsung M393T5750EZA-CE6). */
static void build_ddr2(void)
{
    uint8_t sum = 0;
    memset(img, 0, sizeof(img));
    img[0] = 0x80, img[1] = 0x08, img[2] = 0x08, img[3] = 0x0e, img[4] = 0x0a;
    img[5] = 0x61;        /* 2 ranks */
    img[6] = 72;          /* data width with ECC */
    img[9] = 0x25;        /* tCK 2.5 ns at the highest CL */
    img[11] = 0x02;       /* ECC */
    img[13] = 8;
    img[17] = 8;
    img[18] = 0x38;       /* CL 3, 4, 5 */
    img[20] = 0x01;       /* RDIMM */
    img[27] = 0x32;       /* tRP 12.5 ns */
    img[29] = 0x32;       /* tRCD 12.5 ns */
    img[30] = 45;         /* tRAS 45 ns */
    img[31] = 0x01;       /* 1 GB per rank */
    for (int i = 0; i < 63; i++)
        sum = (uint8_t)(sum + img[i]);
    img[63] = sum;
    img[64] = 0xce;       /* Samsung, bank 1 */
    put_str(73, "M393T5750EZA-CE6", 18);
    img[93] = 0x08, img[94] = 0x20;
    img[95] = 0x12, img[96] = 0x34, img[97] = 0x56, img[98] = 0x78;
}

/* A 2 GB 2Rx8 DDR2-667 FB-DIMM (Micron), MTB 0.25 ns. */
static void build_fbdimm(void)
{
    memset(img, 0, sizeof(img));
    img[0] = 0x92, img[1] = 0x11, img[2] = 0x09;
    img[4] = 0x45;        /* 8 banks, 10 columns, 14 rows */
    img[7] = 0x11;        /* x8; bits 5:3 = 2: two ranks (the count itself, as coreboot i5000 reads it) */
    img[9] = 1, img[10] = 4;
    img[11] = 12;         /* tCK 3 ns */
    img[14] = 60;         /* tAA 15 ns */
    img[19] = 60, img[21] = 60;
    img[22] = 0x00, img[23] = 180;   /* tRAS 45 ns */
    img[115] = 0x80, img[116] = 0x89;   /* AMB: Intel, bank 1 */
    img[117] = 0x80, img[118] = 0x2c;
    img[120] = 0x07, img[121] = 0x31;
    img[122] = 0xde, img[123] = 0xad, img[124] = 0xbe, img[125] = 0xef;
    put_crc(0, 117, 126);
    put_str(128, "18HF25672FD667", 18);
}

/* An 8 GB 2Rx8 DDR3-1600 CL11 ECC UDIMM (Kingston KVR16E11/8). */
static void build_ddr3(void)
{
    memset(img, 0, sizeof(img));
    img[0] = 0x92, img[1] = 0x11, img[2] = 0x0b, img[3] = 0x02;
    img[4] = 0x04;        /* 4 Gbit dies */
    img[7] = 0x09;        /* x8, 2 ranks */
    img[8] = 0x0b;        /* 64 bits + 8 ECC */
    img[9] = 0x11, img[10] = 1, img[11] = 8;
    img[12] = 10;         /* tCK 1.25 ns */
    img[14] = 0xfc;       /* CL 6-11 */
    img[16] = 110, img[18] = 110, img[20] = 110;   /* 13.75 ns */
    img[21] = 0x11, img[22] = 0x18;                /* tRAS 35 ns */
    img[117] = 0x01, img[118] = 0x98;               /* Kingston, bank 2 */
    img[120] = 0x15, img[121] = 0x07;
    img[122] = 0x01, img[123] = 0x02, img[124] = 0x03, img[125] = 0x04;
    put_crc(0, 117, 126);
    put_str(128, "KVR16E11/8", 18);
}

/* A 16 GB 2Rx8 DDR4-3200 CL22 RDIMM (Samsung M393A2K43DB3-CWE). */
static void build_ddr4(void)
{
    memset(img, 0, sizeof(img));
    img[0] = 0x23, img[1] = 0x12, img[2] = 0x0c, img[3] = 0x01;
    img[4] = 0x85;        /* 8 Gbit, 4 bank groups */
    img[12] = 0x09;       /* x8, 2 package ranks */
    img[13] = 0x0b;       /* 64 + 8 ECC */
    img[18] = 5;          /* tCK 0.625 ns */
    img[21] = 0xa0, img[22] = 0x02;   /* CL 20, 22, 24 */
    img[24] = 110, img[25] = 110, img[26] = 110;
    img[27] = 0x01, img[28] = 0x00;   /* tRAS 32 ns */
    put_crc(0, 126, 126);
    img[128] = 0x11;      /* module-specific section */
    put_crc(128, 126, 254);
    img[320] = 0x80, img[321] = 0xce;
    img[323] = 0x19, img[324] = 0x23;
    img[325] = 0x36, img[326] = 0x1a, img[327] = 0x2b, img[328] = 0x3c;
    put_str(329, "M393A2K43DB3-CWE", 20);
}

/* A 32 GB 2Rx8 DDR5-4800 RDIMM (SK Hynix HMCG88MEBRA113N), two 32-bit
 * subchannels with 8 ECC bits each. */
static void build_ddr5(void)
{
    memset(img, 0, sizeof(img));
    img[0] = 0x30, img[1] = 0x10, img[2] = 0x12, img[3] = 0x01;
    img[4] = 0x04;        /* 16 Gbit, monolithic */
    img[6] = 0x20;        /* x8 */
    img[20] = 0xa0, img[21] = 0x01;   /* tCK 416 ps */
    img[25] = 0x0c;       /* CL 40, 42 */
    img[30] = 0x80, img[31] = 0x3e;   /* tAA 16 ns */
    img[32] = 0x80, img[33] = 0x3e;
    img[34] = 0x80, img[35] = 0x3e;
    img[36] = 0x00, img[37] = 0x7d;   /* tRAS 32 ns */
    img[234] = 0x08;      /* 2 package ranks */
    img[235] = 0x32;      /* 2 subchannels x 32 bits, 8-bit extension */
    put_crc(0, 510, 510);
    img[512] = 0x80, img[513] = 0xad;
    img[515] = 0x22, img[516] = 0x45;
    img[517] = 0x80, img[518] = 0x00, img[519] = 0x12, img[520] = 0x34;
    put_str(521, "HMCG88MEBRA113N", 30);
}

static struct spd_info info;

/* What a module's SPD must decode to. */
struct expect {
    const char *mem_type, *module_type;
    uint64_t size_mb;
    unsigned ranks, speed_mts, cl, trcd, trp, tras;
    const char *manufacturer, *part, *date;
};

static void check_module(const struct expect *e)
{
    assert_string_equal(info.mem_type, e->mem_type);
    assert_string_equal(info.module_type, e->module_type);
    assert_int_equal(info.size_mb, e->size_mb);
    assert_int_equal(info.ranks, e->ranks);
    assert_true(info.ecc);
    assert_int_equal(info.speed_mts, e->speed_mts);
    assert_int_equal(info.cl, e->cl);
    assert_int_equal(info.trcd, e->trcd);
    assert_int_equal(info.trp, e->trp);
    assert_int_equal(info.tras, e->tras);
    assert_string_equal(info.manufacturer, e->manufacturer);
    assert_string_equal(info.part, e->part);
    assert_string_equal(info.date, e->date);
    assert_true(info.crc_checked && info.crc_ok);
    assert_false(info.truncated);
}

static void test_ddr2_rdimm_decoded(void **state)
{
    static const struct expect e = { "DDR2", "RDIMM", 2048, 2, 800, 5, 5, 5, 18, "Samsung", "M393T5750EZA-CE6",
                                     "2008-W20" };
    (void)state;
    build_ddr2();
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_int_equal(info.gen, SPD_GEN_DDR2);
    check_module(&e);
    assert_int_equal(info.data_width, 64);
    assert_string_equal(info.serial, "12345678");
}

static void test_ddr2_bad_checksum_reported(void **state)
{
    (void)state;
    build_ddr2();
    img[9] = 0x30;   /* a corrupted tCK */
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_false(info.crc_ok);
    assert_non_null(strstr(info.crc_note, "checksum"));
}

static void test_fbdimm_decoded(void **state)
{
    static const struct expect e = { "DDR2 FB-DIMM", "FB-DIMM", 2048, 2, 667, 5, 5, 5, 15, "Micron", "18HF25672FD667",
                                     "2007-W31" };
    (void)state;
    build_fbdimm();
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_int_equal(info.gen, SPD_GEN_DDR2_FB);
    check_module(&e);
    assert_int_equal(info.device_width, 8);
    assert_string_equal(info.serial, "DEADBEEF");
}

/* Bytes 115-116: the AMB's maker, JEP-106 like the module maker at 117. */
static void test_fbdimm_amb_vendor_decoded(void **state)
{
    (void)state;
    build_fbdimm();
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_string_equal(info.amb_vendor, "Intel");
    assert_int_equal(info.amb_bank, 1);
    assert_int_equal(info.amb_code, 0x89);
    assert_string_equal(info.manufacturer, "Micron");

    /* An IDT AMB on the same module. */
    img[116] = 0xb3;
    put_crc(0, 117, 126);
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_string_equal(info.amb_vendor, "IDT");
    assert_true(info.crc_ok);

    /* Blank bytes, and an image cut before them: no vendor. */
    img[115] = 0, img[116] = 0;
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_string_equal(info.amb_vendor, "");
    build_fbdimm();
    assert_int_equal(spd_decode(img, 100, &info), BM_OK);
    assert_string_equal(info.amb_vendor, "");
    assert_true(info.truncated);
}

/* Bytes 115-116 of a DDR3 module are module-specific, not an AMB. */
static void test_ddr3_has_no_amb_vendor(void **state)
{
    (void)state;
    build_ddr3();
    img[115] = 0x80, img[116] = 0x89;
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_string_equal(info.amb_vendor, "");
}

static void test_ddr3_udimm_decoded(void **state)
{
    static const struct expect e = { "DDR3", "UDIMM", 8192, 2, 1600, 11, 11, 11, 28, "Kingston", "KVR16E11/8",
                                     "2015-W07" };
    (void)state;
    build_ddr3();
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    check_module(&e);
    assert_int_equal(info.data_width, 64);
    assert_int_equal(info.mfr_bank, 2);
}

static void test_ddr3_bad_crc_reported(void **state)
{
    (void)state;
    build_ddr3();
    img[12] = 12;   /* tCK changed after the CRC was made */
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_true(info.crc_checked);
    assert_false(info.crc_ok);
    assert_non_null(strstr(info.crc_note, "CRC"));
}

static void test_ddr3_truncated_before_part_number(void **state)
{
    (void)state;
    build_ddr3();
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_true(info.truncated);
    assert_true(info.crc_ok);                 /* bytes 0-127 hold the CRC */
    assert_string_equal(info.part, "");
    assert_int_equal(info.size_mb, 8192);
}

static void test_ddr4_rdimm_decoded(void **state)
{
    static const struct expect e = { "DDR4", "RDIMM", 16384, 2, 3200, 22, 22, 22, 52, "Samsung", "M393A2K43DB3-CWE",
                                     "2019-W23" };
    (void)state;
    build_ddr4();
    assert_int_equal(spd_decode(img, 512, &info), BM_OK);
    check_module(&e);
    assert_int_equal(info.device_width, 8);
    assert_int_equal(info.tck_ps, 625);
    assert_string_equal(info.serial, "361A2B3C");
}

static void test_ddr4_2933_speed_snapped_to_its_bin(void **state)
{
    (void)state;
    build_ddr4();
    img[18] = 6, img[125] = (uint8_t)-68;   /* 750 - 68 = 682 ps */
    put_crc(0, 126, 126);
    assert_int_equal(spd_decode(img, 512, &info), BM_OK);
    assert_int_equal(info.tck_ps, 682);
    assert_int_equal(info.speed_mts, 2933);
}

static void test_ddr4_bad_module_crc_named(void **state)
{
    (void)state;
    build_ddr4();
    img[130] ^= 0x40;
    assert_int_equal(spd_decode(img, 512, &info), BM_OK);
    assert_false(info.crc_ok);
    assert_non_null(strstr(info.crc_note, "128-253"));
}

static void test_ddr4_page_0_only_is_truncated(void **state)
{
    (void)state;
    build_ddr4();
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_true(info.truncated);
    assert_true(info.crc_ok);
    assert_string_equal(info.manufacturer, "");
    assert_int_equal(info.speed_mts, 3200);
}

static void test_ddr5_rdimm_decoded(void **state)
{
    static const struct expect e = { "DDR5", "RDIMM", 32768, 2, 4800, 40, 39, 39, 77, "SK Hynix", "HMCG88MEBRA113N",
                                     "2022-W45" };
    (void)state;
    build_ddr5();
    assert_int_equal(spd_decode(img, 1024, &info), BM_OK);
    check_module(&e);
    assert_int_equal(info.data_width, 64);
}

static void test_ddr5_bad_crc_reported(void **state)
{
    (void)state;
    build_ddr5();
    img[300] = 0x5a;
    assert_int_equal(spd_decode(img, 1024, &info), BM_OK);
    assert_false(info.crc_ok);
}

static void test_ddr5_first_hub_page_only(void **state)
{
    (void)state;
    build_ddr5();
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_true(info.truncated);
    assert_false(info.crc_checked);
    assert_false(info.crc_ok);
    assert_non_null(strstr(info.crc_note, "truncated"));
    assert_int_equal(info.speed_mts, 4800);   /* the timings are in page 0 */
    assert_int_equal(info.size_mb, 0);        /* the organization is not */
}

/* build_ddr5() retimed: tCK, one time for tAA/tRCD/tRP, tRAS 32 ns, and
 * CL (bits at 24-28: CL 20 + 2k) supported from cl_lo up to cl_lo + 8. */
static void retime_ddr5(unsigned tck_ps, unsigned t_ps, unsigned cl_lo)
{
    build_ddr5();
    img[20] = (uint8_t)tck_ps, img[21] = (uint8_t)(tck_ps >> 8);
    for (int k = 30; k <= 34; k += 2)
        img[k] = (uint8_t)t_ps, img[k + 1] = (uint8_t)(t_ps >> 8);
    memset(img + 24, 0, 5);
    for (unsigned cl = cl_lo; cl <= cl_lo + 8; cl += 2)
        img[24 + (cl - 20) / 16] |= (uint8_t)(1u << ((cl - 20) / 2 % 8));
    put_crc(0, 510, 510);
}

/* JESD400-5 rounding (0.997 guard band): DDR5-6400, tCK 312 ps, tAA
 * 16.25 ns is 52.08 clocks before the guard band: CL52 (DDR4's 0.974
 * rounding gave 53, hence CL54). */
static void test_ddr5_6400_taa_16250_is_cl52(void **state)
{
    (void)state;
    retime_ddr5(312, 16250, 46);
    assert_int_equal(spd_decode(img, 1024, &info), BM_OK);
    assert_int_equal(info.speed_mts, 6400);
    assert_int_equal(info.cl, 52);
    assert_int_equal(info.trcd, 52);
    assert_int_equal(info.trp, 52);
    assert_int_equal(info.tras, 103);
    assert_true(info.crc_ok);
}

/* DDR5-6000, tCK 333 ps, tAA 16.000 ns = 48.05 clocks: CL48 (DDR4 rounding: 49, CL50); tRAS 32 ns = 96. */
static void test_ddr5_6000_taa_16000_is_cl48(void **state)
{
    (void)state;
    retime_ddr5(333, 16000, 40);
    assert_int_equal(spd_decode(img, 1024, &info), BM_OK);
    assert_int_equal(info.speed_mts, 6000);
    assert_int_equal(info.cl, 48);
    assert_int_equal(info.trcd, 48);
    assert_int_equal(info.trp, 48);
    assert_int_equal(info.tras, 96);
}

/* DDR5-6000, tAA 15.333 ns = 46.04 clocks: CL46. */
static void test_ddr5_6000_taa_15333_is_cl46(void **state)
{
    (void)state;
    retime_ddr5(333, 15333, 40);
    assert_int_equal(spd_decode(img, 1024, &info), BM_OK);
    assert_int_equal(info.cl, 46);
    assert_int_equal(info.trcd, 46);
}

/* FB-DIMM byte 7 bits 5:3 hold the rank count (001 = one rank), not
 * DDR3's count minus one (JEDEC FB-DIMM SPD; coreboot i5000_read_spd_data()). */
static void test_fbdimm_rank_field_is_the_count(void **state)
{
    (void)state;
    build_fbdimm();
    img[7] = 0x09;        /* x8, one rank */
    put_crc(0, 117, 126);
    assert_int_equal(spd_decode(img, 256, &info), BM_OK);
    assert_int_equal(info.ranks, 1);
    assert_int_equal(info.size_mb, 1024);
    assert_int_equal(info.device_width, 8);
}

/* Byte 63 of SDR / DDR / DDR2: the sum of bytes 0-62. */
static void put_sum63(void)
{
    uint8_t sum = 0;
    for (int i = 0; i < 63; i++)
        sum = (uint8_t)(sum + img[i]);
    img[63] = sum;
}

/* A 128 MB PC133 CL3 SDR DIMM: 2 ranks of eight 64 Mbit x8 chips (4 banks, 12 rows, 9 columns). */
static void test_sdr_pc133_decoded(void **state)
{
    (void)state;
    memset(img, 0, sizeof(img));
    img[0] = 0x80, img[1] = 0x08, img[2] = 0x04;
    img[3] = 0x0c, img[4] = 0x09, img[5] = 2, img[6] = 64;
    img[9] = 0x75;        /* tCK 7.5 ns at CL3 */
    img[13] = 8, img[17] = 4;
    img[18] = 0x06;       /* CL 2, 3 */
    img[27] = 20, img[29] = 20, img[30] = 45;
    put_sum63();
    img[64] = 0x2c;       /* Micron */
    put_str(73, "MT16LSDT1664AG", 18);
    assert_int_equal(spd_bytes_wanted(0x04), 128);
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_int_equal(info.gen, SPD_GEN_SDR);
    assert_string_equal(info.mem_type, "SDRAM");
    assert_int_equal(info.size_mb, 128);
    assert_int_equal(info.ranks, 2);
    assert_int_equal(info.speed_mts, 133);
    assert_int_equal(info.cl, 3);
    assert_int_equal(info.trcd, 3);
    assert_int_equal(info.trp, 3);
    assert_int_equal(info.tras, 6);
    assert_string_equal(info.manufacturer, "Micron");
    assert_string_equal(info.part, "MT16LSDT1664AG");
    assert_true(info.crc_checked && info.crc_ok);
    assert_false(info.truncated);
}

/* A 512 MB DDR-400 CL3 ECC registered DIMM: 2 ranks of 256 Mbit x8 chips
 * (4 banks, 13 rows, 10 columns), tRCD/tRP 15 ns, tRAS 40 ns. */
static void build_ddr1(void)
{
    memset(img, 0, sizeof(img));
    img[0] = 0x80, img[1] = 0x08, img[2] = 0x07;
    img[3] = 0x0d, img[4] = 0x0a, img[5] = 2, img[6] = 72;
    img[9] = 0x50;        /* tCK 5.0 ns at the highest CL */
    img[11] = 0x02;       /* ECC */
    img[13] = 8, img[17] = 4;
    img[18] = 0x1c;       /* CL 2, 2.5, 3 */
    img[21] = 0x02;       /* registered */
    img[27] = 0x3c, img[29] = 0x3c, img[30] = 40;
    put_sum63();
    img[64] = 0xce;       /* Samsung */
    put_str(73, "M312L6420ETS-CCC", 18);
}

static void test_ddr1_registered_decoded(void **state)
{
    (void)state;
    build_ddr1();
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_int_equal(info.gen, SPD_GEN_DDR);
    assert_string_equal(info.mem_type, "DDR");
    assert_string_equal(info.module_type, "RDIMM");
    assert_int_equal(info.size_mb, 512);
    assert_int_equal(info.ranks, 2);
    assert_true(info.ecc);
    assert_int_equal(info.data_width, 64);
    assert_int_equal(info.speed_mts, 400);
    assert_int_equal(info.cl, 3);
    assert_int_equal(info.trcd, 3);
    assert_int_equal(info.tras, 8);
    assert_string_equal(info.manufacturer, "Samsung");
    assert_true(info.crc_ok);
}

/* DDR CL 2.5 (DDR-333): the record's whole clocks round it up. */
static void test_ddr1_half_clock_cl_rounded_up(void **state)
{
    (void)state;
    build_ddr1();
    img[9] = 0x60, img[18] = 0x0c;   /* 6 ns, CL 2 and 2.5 */
    put_sum63();
    assert_int_equal(spd_decode(img, 128, &info), BM_OK);
    assert_int_equal(info.cl, 3);
    assert_int_equal(info.taa_ps, 15000);
}

static void test_empty_eeprom_is_not_spd(void **state)
{
    (void)state;
    memset(img, 0, sizeof(img));
    assert_int_equal(spd_decode(img, 256, &info), BM_ENOTSUP);
    memset(img, 0xff, sizeof(img));
    assert_int_equal(spd_decode(img, 256, &info), BM_ENOTSUP);
    assert_int_equal(spd_decode(img, 2, &info), BM_EINVAL);
}

static void test_unknown_jep106_named_by_bank_and_code(void **state)
{
    (void)state;
    build_ddr4();
    img[320] = 0x8a, img[321] = 0x13;
    assert_int_equal(spd_decode(img, 512, &info), BM_OK);
    assert_string_equal(info.manufacturer, "JEP-106 bank 11 code 0x13");
    assert_string_equal(spd_jep106_name(1, 0x2c), "Micron");
    assert_null(spd_jep106_name(1, 0x2d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ddr2_rdimm_decoded),
        cmocka_unit_test(test_ddr2_bad_checksum_reported),
        cmocka_unit_test(test_fbdimm_decoded),
        cmocka_unit_test(test_fbdimm_amb_vendor_decoded),
        cmocka_unit_test(test_ddr3_has_no_amb_vendor),
        cmocka_unit_test(test_ddr3_udimm_decoded),
        cmocka_unit_test(test_ddr3_bad_crc_reported),
        cmocka_unit_test(test_ddr3_truncated_before_part_number),
        cmocka_unit_test(test_ddr4_rdimm_decoded),
        cmocka_unit_test(test_ddr4_2933_speed_snapped_to_its_bin),
        cmocka_unit_test(test_ddr4_bad_module_crc_named),
        cmocka_unit_test(test_ddr4_page_0_only_is_truncated),
        cmocka_unit_test(test_ddr5_rdimm_decoded),
        cmocka_unit_test(test_ddr5_bad_crc_reported),
        cmocka_unit_test(test_ddr5_first_hub_page_only),
        cmocka_unit_test(test_ddr5_6400_taa_16250_is_cl52),
        cmocka_unit_test(test_fbdimm_rank_field_is_the_count),
        cmocka_unit_test(test_sdr_pc133_decoded),
        cmocka_unit_test(test_ddr1_registered_decoded),
        cmocka_unit_test(test_ddr1_half_clock_cl_rounded_up),
        cmocka_unit_test(test_ddr5_6000_taa_16000_is_cl48),
        cmocka_unit_test(test_ddr5_6000_taa_15333_is_cl46),
        cmocka_unit_test(test_empty_eeprom_is_not_spd),
        cmocka_unit_test(test_unknown_jep106_named_by_bank_and_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
