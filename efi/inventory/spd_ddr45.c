/* DDR4 (JESD21-C Annex L) and DDR5 (JESD400-5) SPD decoding. Byte
 * numbers from those tables; they agree with i2c-tools decode-dimms
 * (decode_ddr4_sdram) and Linux drivers/misc/eeprom/ee1004.c (DDR4's
 * 512 bytes in two pages). */
#include "spd_common.h"

static const char *ddr4_module_type(uint8_t v)
{
    static const char *const names[16] = { "",         "RDIMM",      "UDIMM",      "SO-DIMM",
                                            "LRDIMM",   "Mini-RDIMM", "Mini-UDIMM", "",
                                            "SO-RDIMM", "SO-UDIMM",   "",           "",
                                            "SO-DIMM",  "SO-DIMM",    "",           "" };
    return names[v & 0xf];
}

/* Byte 4 bits 3:0: SDRAM die density in Mbit. */
static uint32_t ddr4_die_mbit(uint8_t v)
{
    static const uint32_t mbit[10] = { 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 12288, 24576 };
    return (v & 0xf) < 10 ? mbit[v & 0xf] : 0;
}

/* MTB 125 ps (byte 17 = 0) plus a signed fine correction in ps. */
static uint32_t ddr4_ps(uint32_t mtb, uint8_t fine)
{
    int32_t ps = (int32_t)mtb * 125 + (int8_t)fine;
    return ps > 0 ? (uint32_t)ps : 0;
}

void spd_decode_ddr4(struct spd_img *im)
{
    struct spd_info *o = im->out;
    uint8_t pkg = spd_byte(im, 6), org = spd_byte(im, 12), bus = spd_byte(im, 13);
    unsigned logical_ranks;
    uint64_t cl_mask;

    bm_strlcpy(o->mem_type, "DDR4", sizeof(o->mem_type));
    o->bytes_expected = 512;
    bm_strlcpy(o->module_type, ddr4_module_type(spd_byte(im, 3)), sizeof(o->module_type));
    o->device_width = (uint8_t)(4u << (org & 7));
    o->ranks = (uint8_t)(((org >> 3) & 7) + 1);
    o->data_width = (uint16_t)(8u << (bus & 7));
    o->ecc = ((bus >> 3) & 3) == 1;
    /* 3DS packages (signal loading 10b) add die ranks inside each package rank. */
    logical_ranks = o->ranks * ((pkg & 3) == 2 ? ((pkg >> 4) & 7) + 1 : 1);
    if (o->device_width)
        o->size_mb = (uint64_t)ddr4_die_mbit(spd_byte(im, 4)) / 8 * o->data_width / o->device_width * logical_ranks;
    spd_set_timings(o, ddr4_ps(spd_byte(im, 18), spd_byte(im, 125)), ddr4_ps(spd_byte(im, 24), spd_byte(im, 123)),
                    ddr4_ps(spd_byte(im, 25), spd_byte(im, 122)), ddr4_ps(spd_byte(im, 26), spd_byte(im, 121)),
                    ddr4_ps((uint32_t)(spd_byte(im, 27) & 0xf) << 8 | spd_byte(im, 28), 0));
    /* Bytes 20-23: CL 7..36 (or 23..52 when byte 23 bit 7 is set). */
    cl_mask = (uint64_t)spd_byte(im, 20) | (uint64_t)spd_byte(im, 21) << 8 | (uint64_t)spd_byte(im, 22) << 16 |
              (uint64_t)(spd_byte(im, 23) & 0x3f) << 24;
    o->cl = spd_cl_from_mask(cl_mask, spd_byte(im, 23) & 0x80 ? 23 : 7, 1, o->cl);
    /* Two CRCs: the base configuration (0-125) and the module block (128-253). */
    spd_check_crc(im, 0, 126, 126, "bytes 0-125");
    spd_check_crc(im, 128, 126, 254, "bytes 128-253");
    /* Page 1: manufacturing information at 320-351. */
    if (spd_have(im, 320, 29)) {
        spd_set_mfr(o, im->b[320], im->b[321]);
        spd_set_serial_date(o, im->b + 325, im->b[323], im->b[324]);
        spd_set_part(o, im->b + 329, 20);
    }
}

static const char *ddr5_module_type(uint8_t v)
{
    static const char *const names[16] = { "",        "RDIMM", "UDIMM", "SO-DIMM", "LRDIMM", "",      "",      "",
                                            "",        "",      "DDIMM", "Solder-down", "", "", "", "" };
    return names[v & 0xf];
}

/* Byte 4 bits 4:0: die density in Gbit. */
static uint32_t ddr5_die_gbit(uint8_t v)
{
    static const uint8_t gbit[9] = { 0, 4, 8, 12, 16, 24, 32, 48, 64 };
    return (v & 0x1f) < 9 ? gbit[v & 0x1f] : 0;
}

/* Byte 4 bits 7:5: dies per package. */
static unsigned ddr5_dies(uint8_t v)
{
    static const uint8_t dies[8] = { 1, 0, 2, 4, 8, 16, 0, 0 };
    return dies[v >> 5];
}

static uint32_t le16(struct spd_img *im, size_t off)
{
    return (uint32_t)spd_byte(im, off) | (uint32_t)spd_byte(im, off + 1) << 8;
}

void spd_decode_ddr5(struct spd_img *im)
{
    struct spd_info *o = im->out;
    uint8_t dens = spd_byte(im, 4), org = spd_byte(im, 234), bus = spd_byte(im, 235);
    unsigned subchannels = ((bus >> 5) & 3) + 1;
    uint64_t cl_mask = 0;

    bm_strlcpy(o->mem_type, "DDR5", sizeof(o->mem_type));
    o->bytes_expected = 1024;
    bm_strlcpy(o->module_type, ddr5_module_type(spd_byte(im, 3)), sizeof(o->module_type));
    o->device_width = (uint8_t)(4u << ((spd_byte(im, 6) >> 5) & 3));
    /* Bytes 234-235 sit in the first 256 bytes: absent when only page 0
     * of the hub could be read. */
    if (spd_have(im, 234, 2)) {
        o->ranks = (uint8_t)(((org >> 3) & 7) + 1);
        o->data_width = (uint16_t)((8u << (bus & 3)) * subchannels);
        o->ecc = ((bus >> 3) & 3) != 0;
        if (o->device_width)
            o->size_mb = (uint64_t)subchannels * (8u << (bus & 3)) / o->device_width * ddr5_dies(dens) *
                         ddr5_die_gbit(dens) * 1024 / 8 * o->ranks;
    }
    spd_set_timings_ddr5(o, le16(im, 20), le16(im, 30), le16(im, 32), le16(im, 34), le16(im, 36));
    /* Bytes 24-28: CL 20, 22, ... 98, one bit each. */
    for (int i = 0; i < 5; i++)
        cl_mask |= (uint64_t)spd_byte(im, 24 + (size_t)i) << (8 * i);
    o->cl = spd_cl_from_mask(cl_mask, 20, 2, o->cl);
    spd_check_crc(im, 0, 510, 510, "bytes 0-509");
    /* Manufacturing information at 512-554. */
    if (spd_have(im, 512, 39)) {
        spd_set_mfr(o, im->b[512], im->b[513]);
        spd_set_serial_date(o, im->b + 517, im->b[515], im->b[516]);
        spd_set_part(o, im->b + 521, 30);
    }
}
