/* SPD decoding: the parts every generation shares, and SDR, DDR, DDR2,
 * DDR2 FB-DIMM and DDR3 (JESD21-C Annex J, Appendix X, Annex K; byte numbers
 * below are from those tables and agree with Linux/i2c-tools
 * decode-dimms and NetBSD spdmem(4)). DDR4 and DDR5 are in spd_ddr45.c. */
#include "spd_common.h"

/* Bytes 63-98 of SDR, DDR and DDR2 SPD: the byte-63 checksum over
 * 0-62, the JEP-106 maker as 0x7f continuation bytes then the code
 * (64-71), part number (73-90), date (93-94) and serial (95-98). */
static void legacy_identity(struct spd_img *im)
{
    struct spd_info *o = im->out;
    uint8_t sum = 0;

    if (spd_have(im, 0, 64)) {
        for (int i = 0; i < 63; i++)
            sum = (uint8_t)(sum + im->b[i]);
        if (sum != im->b[63]) {
            o->crc_ok = false;
            snprintf(o->crc_note, sizeof(o->crc_note), "checksum 0x%02x, computed 0x%02x", im->b[63], sum);
        }
    } else {
        o->crc_checked = false;
        snprintf(o->crc_note, sizeof(o->crc_note), "checksum not checked: data truncated");
    }
    if (spd_have(im, 64, 8)) {
        int n = 0;
        while (n < 8 && im->b[64 + n] == 0x7f)
            n++;
        if (n < 8)
            spd_set_mfr(o, (uint8_t)n, im->b[64 + n]);
    }
    if (spd_have(im, 73, 18))
        spd_set_part(o, im->b + 73, 18);
    if (spd_have(im, 93, 6))
        spd_set_serial_date(o, im->b + 95, im->b[93], im->b[94]);
}

/* ---- DDR2 (Annex J) ---------------------------------------------------------------- */

/* Byte 9 / 23 / 25: tCK, whole ns in the high nibble, the low nibble
 * tenths except 0xa-0xd = .25 .33 .66 .75. */
static uint32_t ddr2_tck_ps(uint8_t v)
{
    static const uint16_t frac[16] = { 0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 250, 333, 667, 750, 0, 0 };
    return (uint32_t)(v >> 4) * 1000 + frac[v & 0xf];
}

/* Bytes 27/29 (tRP/tRCD): ns in bits 7:2, quarters in bits 1:0. */
static uint32_t ddr2_quarter_ns_ps(uint8_t v)
{
    return (uint32_t)(v >> 2) * 1000 + (v & 3) * 250;
}

static const char *ddr2_module_type(uint8_t v)
{
    switch (v & 0x3f) {
    case 0x01: return "RDIMM";
    case 0x02: return "UDIMM";
    case 0x04: return "SO-DIMM";
    case 0x08: return "Micro-DIMM";
    case 0x10: return "Mini-RDIMM";
    case 0x20: return "Mini-UDIMM";
    default: return "";
    }
}

/* Byte 31: one bit per rank density. */
static uint32_t ddr2_rank_mb(uint8_t v)
{
    static const uint32_t mb[8] = { 1024, 2048, 4096, 8192, 16384, 128, 256, 512 };
    for (int k = 0; k < 8; k++)
        if (v & (1u << k))
            return mb[k];
    return 0;
}

static void decode_ddr2(struct spd_img *im)
{
    struct spd_info *o = im->out;
    int highest_cl = 0;

    bm_strlcpy(o->mem_type, "DDR2", sizeof(o->mem_type));
    o->bytes_expected = 128;
    o->ranks = (uint8_t)((spd_byte(im, 5) & 7) + 1);
    o->data_width = spd_byte(im, 6);
    o->ecc = (spd_byte(im, 11) & 0x02) != 0;
    if (o->ecc && o->data_width >= 72)
        o->data_width = (uint16_t)(o->data_width - 8);
    o->device_width = spd_byte(im, 13);
    bm_strlcpy(o->module_type, ddr2_module_type(spd_byte(im, 20)), sizeof(o->module_type));
    o->size_mb = (uint64_t)ddr2_rank_mb(spd_byte(im, 31)) * o->ranks;
    for (int k = 2; k <= 7; k++)
        if (spd_byte(im, 18) & (1u << k))
            highest_cl = k;
    spd_set_timings(o, ddr2_tck_ps(spd_byte(im, 9)), 0, ddr2_quarter_ns_ps(spd_byte(im, 29)),
                    ddr2_quarter_ns_ps(spd_byte(im, 27)), (uint32_t)spd_byte(im, 30) * 1000);
    o->cl = (uint16_t)highest_cl;    /* byte 9 is tCK at the highest CL */
    o->taa_ps = o->cl * o->tck_ps;
    legacy_identity(im);
}

/* ---- SDR SDRAM and DDR SDRAM (JESD21-C 4.1.2.4 / 4.1.2.5, as i2c-tools
 * decode-dimms decode_sdr_sdram() / decode_ddr_sdram() read them) ------- */

/* Bytes 9/23/25 of SDR and DDR: tCK, whole ns in the high nibble, tenths
 * in the low one. */
static uint32_t tenths_ns_ps(uint8_t v)
{
    return (uint32_t)(v >> 4) * 1000 + (uint32_t)(v & 0xf) * 100;
}

/* SDR (type 4) and DDR (type 7): geometry bytes 3-7 and 17, byte 9 tCK
 * at the highest CAS latency of byte 18, tRP/tRCD/tRAS at 27/29/30. */
static void decode_sdr_ddr(struct spd_img *im, bool ddr)
{
    struct spd_info *o = im->out;
    unsigned rows = spd_byte(im, 3) & 0xf, cols = spd_byte(im, 4) & 0xf, banks = spd_byte(im, 17);
    uint32_t tck = tenths_ns_ps(spd_byte(im, 9));
    uint16_t width = (uint16_t)(spd_byte(im, 6) | spd_byte(im, 7) << 8);
    uint8_t cas = spd_byte(im, 18);
    unsigned cl_x2 = 0;   /* the highest CAS latency, in half clocks */

    bm_strlcpy(o->mem_type, ddr ? "DDR" : "SDRAM", sizeof(o->mem_type));
    o->bytes_expected = 128;
    o->ranks = spd_byte(im, 5);
    o->ecc = spd_byte(im, 11) == 0x02;
    o->data_width = o->ecc && width >= 72 ? (uint16_t)(width - 8) : width;
    o->device_width = spd_byte(im, 13);
    if (spd_byte(im, 21) & 0x02)
        bm_strlcpy(o->module_type, "RDIMM", sizeof(o->module_type));
    /* Rank size: 2^(rows + cols) locations per bank x banks x the data width. */
    if (rows && cols && rows + cols <= 40)
        o->size_mb = ((uint64_t)1 << (rows + cols)) * banks * (o->data_width / 8) * o->ranks >> 20;
    /* Byte 18: SDR bit n = CL n + 1; DDR bit n = CL 1 + n / 2. */
    for (int k = 0; k < 8; k++)
        if (cas & (1u << k))
            cl_x2 = ddr ? 2 + (unsigned)k : 2 * ((unsigned)k + 1);
    spd_set_timings(o, tck, 0,
                    ddr ? ddr2_quarter_ns_ps(spd_byte(im, 29)) : (uint32_t)spd_byte(im, 29) * 1000,
                    ddr ? ddr2_quarter_ns_ps(spd_byte(im, 27)) : (uint32_t)spd_byte(im, 27) * 1000,
                    (uint32_t)spd_byte(im, 30) * 1000);
    if (!ddr && tck)
        o->speed_mts = (1000000u + tck / 2) / tck;   /* single data rate: one transfer a clock */
    o->cl = (uint16_t)((cl_x2 + 1) / 2);
    o->taa_ps = cl_x2 * tck / 2;
    legacy_identity(im);
}

/* ---- DDR3 and FB-DIMM: medium/fine timebases, CRC at 126 ------------------------------ */

/* A time in MTB units plus a signed FTB correction, in ps. */
static uint32_t mtb_ftb_ps(uint32_t mtb_units, int8_t fine, uint32_t mtb_fs, int32_t ftb_fs)
{
    int64_t fs = (int64_t)mtb_units * mtb_fs + (int64_t)fine * ftb_fs;
    return fs > 0 ? (uint32_t)((fs + 500) / 1000) : 0;
}

/* Bytes 117-149 of DDR3 and FB-DIMM: maker, date, serial, part, and the
 * CRC over bytes 0-116 or 0-125 (byte 0 bit 7). */
static void ddr3_identity(struct spd_img *im)
{
    struct spd_info *o = im->out;

    spd_check_crc(im, 0, spd_byte(im, 0) & 0x80 ? 117 : 126, 126, "bytes 0-125");
    if (spd_have(im, 117, 9)) {
        spd_set_mfr(o, im->b[117], im->b[118]);
        spd_set_serial_date(o, im->b + 122, im->b[120], im->b[121]);
    }
    if (spd_have(im, 128, 18))
        spd_set_part(o, im->b + 128, 18);
}

static const char *ddr3_module_type(uint8_t v)
{
    static const char *const names[16] = { "",        "RDIMM",      "UDIMM",      "SO-DIMM",
                                            "Micro-DIMM", "Mini-RDIMM", "Mini-UDIMM", "Mini-CDIMM",
                                            "SO-UDIMM", "SO-RDIMM",   "SO-CDIMM",   "LRDIMM",
                                            "SO-DIMM",  "SO-DIMM",    "",           "" };
    return names[v & 0xf];
}

static void decode_ddr3(struct spd_img *im)
{
    struct spd_info *o = im->out;
    uint8_t ftb = spd_byte(im, 9);
    uint32_t mtb_fs = spd_byte(im, 11) ? 1000000u * spd_byte(im, 10) / spd_byte(im, 11) : 125000;
    int32_t ftb_fs = (ftb & 0xf) ? (int32_t)(1000 * (ftb >> 4) / (ftb & 0xf)) : 1000;
    uint32_t die_mbit = 256u << (spd_byte(im, 4) & 0xf);
    uint32_t tck, tras;

    bm_strlcpy(o->mem_type, "DDR3", sizeof(o->mem_type));
    o->bytes_expected = 256;
    bm_strlcpy(o->module_type, ddr3_module_type(spd_byte(im, 3)), sizeof(o->module_type));
    o->device_width = (uint8_t)(4u << (spd_byte(im, 7) & 7));
    o->ranks = (uint8_t)(((spd_byte(im, 7) >> 3) & 7) + 1);
    o->data_width = (uint16_t)(8u << (spd_byte(im, 8) & 7));
    o->ecc = ((spd_byte(im, 8) >> 3) & 3) == 1;
    if (o->device_width)
        o->size_mb = (uint64_t)die_mbit / 8 * o->data_width / o->device_width * o->ranks;
    tck = mtb_ftb_ps(spd_byte(im, 12), (int8_t)spd_byte(im, 34), mtb_fs, ftb_fs);
    tras = mtb_ftb_ps((uint32_t)(spd_byte(im, 21) & 0xf) << 8 | spd_byte(im, 22), 0, mtb_fs, ftb_fs);
    spd_set_timings(o, tck, mtb_ftb_ps(spd_byte(im, 16), (int8_t)spd_byte(im, 35), mtb_fs, ftb_fs),
                    mtb_ftb_ps(spd_byte(im, 18), (int8_t)spd_byte(im, 36), mtb_fs, ftb_fs),
                    mtb_ftb_ps(spd_byte(im, 20), (int8_t)spd_byte(im, 37), mtb_fs, ftb_fs), tras);
    /* Bytes 14-15: CL 4 .. 18 supported, one bit each. */
    o->cl = spd_cl_from_mask((uint64_t)spd_byte(im, 14) | (uint64_t)spd_byte(im, 15) << 8, 4, 1, o->cl);
    ddr3_identity(im);
}

/* Bytes 115-116 of an FB-DIMM: the JEDEC id of the AMB's maker, in the
 * same (count, code) form as the module maker at 117-118 (JEDEC "SPD for
 * Fully Buffered DIMM" rev 1.1, as EMC's spd_dimms_info.h
 * SPD_DDR2_SDRAM_FBDIMM_INFO lays it out). Bytes 84-86 ("AMB read access
 * time" at DDR2-800/667/533) are not decoded: coreboot's i5000 raminit
 * (i5000_read_spd_data) reads them as the AMB's "cmd2datanxt" settings,
 * not as times, and no reference here gives their unit. */
static void fbdimm_amb(struct spd_img *im)
{
    struct spd_info *o = im->out;

    if (spd_have(im, 115, 2) &&
        spd_jep106_text(o->amb_vendor, sizeof(o->amb_vendor), im->b[115], im->b[116], &o->amb_bank))
        o->amb_code = im->b[116];
}

/* Appendix X (FB-DIMM): byte 4 bank/column/row bits, 7 organization,
 * 9-10 MTB, 11 tCKmin, 14 tAAmin, 19 tRCD, 21 tRP, 22-23 tRAS. */
static void decode_fbdimm(struct spd_img *im)
{
    struct spd_info *o = im->out;
    uint8_t addr = spd_byte(im, 4), org = spd_byte(im, 7);
    uint32_t mtb_fs = spd_byte(im, 10) ? 1000000u * spd_byte(im, 9) / spd_byte(im, 10) : 125000;
    unsigned bank_bits = (addr & 3) + 2, col_bits = ((addr >> 2) & 7) + 9, row_bits = ((addr >> 5) & 7) + 12;

    bm_strlcpy(o->mem_type, "DDR2 FB-DIMM", sizeof(o->mem_type));
    bm_strlcpy(o->module_type, "FB-DIMM", sizeof(o->module_type));
    o->bytes_expected = 256;
    o->device_width = (uint8_t)(4u << (org & 7));
    /* Bits 5:3 are the rank count itself (001 = 1 rank, 000 undefined),
     * unlike DDR3's count minus one: coreboot's i5000_read_spd_data()
     * takes (org >> 3) & 3 as the ranks and calibrates rank mask 3 for 2. */
    o->ranks = (org >> 3) & 7;
    o->data_width = 64;
    o->ecc = true;           /* FB-DIMMs are 72 bits wide */
    /* Rank size: 2^(banks + rows + cols) locations x 64 bits. */
    o->size_mb = ((uint64_t)1 << (bank_bits + row_bits + col_bits)) * 8 * o->ranks >> 20;
    spd_set_timings(o, mtb_ftb_ps(spd_byte(im, 11), 0, mtb_fs, 0), mtb_ftb_ps(spd_byte(im, 14), 0, mtb_fs, 0),
                    mtb_ftb_ps(spd_byte(im, 19), 0, mtb_fs, 0), mtb_ftb_ps(spd_byte(im, 21), 0, mtb_fs, 0),
                    mtb_ftb_ps((uint32_t)(spd_byte(im, 22) & 0xf) << 8 | spd_byte(im, 23), 0, mtb_fs, 0));
    ddr3_identity(im);
    fbdimm_amb(im);
}

/* ---- Entry ------------------------------------------------------------------------------ */

size_t spd_bytes_wanted(uint8_t type_byte)
{
    switch (type_byte) {
    case SPD_TYPE_SDR:
    case SPD_TYPE_DDR:
    case SPD_TYPE_DDR2: return 128;
    case SPD_TYPE_DDR2_FB:
    case SPD_TYPE_DDR3: return 256;
    case SPD_TYPE_DDR4: return 512;
    case SPD_TYPE_DDR5: return 1024;
    default: return 0;
    }
}

int spd_decode(const uint8_t *b, size_t len, struct spd_info *out)
{
    struct spd_img im = { b, len, out };

    memset(out, 0, sizeof(*out));
    if (len < 3)
        return BM_EINVAL;
    out->type_byte = b[2];
    out->crc_checked = true;
    out->crc_ok = true;
    switch (b[2]) {
    case SPD_TYPE_SDR: out->gen = SPD_GEN_SDR; decode_sdr_ddr(&im, false); break;
    case SPD_TYPE_DDR: out->gen = SPD_GEN_DDR; decode_sdr_ddr(&im, true); break;
    case SPD_TYPE_DDR2: out->gen = SPD_GEN_DDR2; decode_ddr2(&im); break;
    case SPD_TYPE_DDR2_FB: out->gen = SPD_GEN_DDR2_FB; decode_fbdimm(&im); break;
    case SPD_TYPE_DDR3: out->gen = SPD_GEN_DDR3; decode_ddr3(&im); break;
    case SPD_TYPE_DDR4: out->gen = SPD_GEN_DDR4; spd_decode_ddr4(&im); break;
    case SPD_TYPE_DDR5: out->gen = SPD_GEN_DDR5; spd_decode_ddr5(&im); break;
    default:
        out->crc_checked = false;
        out->crc_ok = false;
        return BM_ENOTSUP;
    }
    if (!out->crc_checked)
        out->crc_ok = false;
    if (len < out->bytes_expected)
        out->truncated = true;
    return BM_OK;
}
