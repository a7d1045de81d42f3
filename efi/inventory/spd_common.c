/* What the SPD decoders share (spd_common.h): reading the image, CRCs,
 * JEP-106 names, identity strings and the JEDEC timing rounding. */
#include "spd_common.h"

/* ---- Shared helpers ------------------------------------------------------------- */

uint8_t spd_byte(struct spd_img *im, size_t i)
{
    if (i < im->len)
        return im->b[i];
    im->out->truncated = true;
    return 0;
}

bool spd_have(struct spd_img *im, size_t off, size_t n)
{
    if (off + n <= im->len)
        return true;
    im->out->truncated = true;
    return false;
}

uint16_t spd_crc16(const uint8_t *b, size_t n)
{
    uint16_t crc = 0;

    for (size_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(b[i] << 8);
        for (int k = 0; k < 8; k++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

void spd_check_crc(struct spd_img *im, size_t start, size_t n, size_t crc_off, const char *what)
{
    struct spd_info *o = im->out;
    uint16_t want, got;

    if (!spd_have(im, start, n) || !spd_have(im, crc_off, 2)) {
        o->crc_checked = false;
        if (!o->crc_note[0])
            snprintf(o->crc_note, sizeof(o->crc_note), "%s CRC not checked: data truncated", what);
        return;
    }
    want = (uint16_t)(im->b[crc_off] | im->b[crc_off + 1] << 8);
    got = spd_crc16(im->b + start, n);
    if (want != got) {
        o->crc_ok = false;
        if (!o->crc_note[0])
            snprintf(o->crc_note, sizeof(o->crc_note), "%s CRC 0x%04x, computed 0x%04x", what, want, got);
    }
}

/* JEP-106 codes of the module, DRAM and buffer makers seen in servers
 * (the JEP-106 list as i2c-tools decode-dimms carries it). */
static const struct {
    uint8_t bank, code;
    const char *name;
} jep106[] = {
    { 1, 0x04, "Fujitsu" },        { 1, 0x10, "NEC" },       { 1, 0x2c, "Micron" },
    { 1, 0x54, "Hewlett-Packard" }, { 1, 0x89, "Intel" },    { 1, 0x97, "Texas Instruments" },
    { 1, 0xad, "SK Hynix" },       { 1, 0xb3, "IDT" },       { 1, 0xc1, "Infineon" },
    { 1, 0xce, "Samsung" },        { 2, 0x94, "Smart Modular" }, { 2, 0x98, "Kingston" },
    { 2, 0x40, "Viking" },         { 2, 0x45, "Micron CMS" }, { 2, 0xce, "Unigen" },
    { 2, 0x4f, "Transcend" },      { 2, 0x7a, "Apacer" },    { 3, 0x9e, "Corsair" },
    { 3, 0xfe, "Elpida" },         { 4, 0x0b, "Nanya" },     { 4, 0x16, "Netlist" },
    { 5, 0xb3, "Inphi" },          { 5, 0x43, "Ramaxel" },   { 5, 0xcb, "ADATA" },
    { 5, 0xcd, "G.Skill" },        { 5, 0xef, "Team Group" }, { 6, 0x9b, "Crucial" },
    { 6, 0xba, "Virtium" },        { 6, 0x51, "Qimonda" },   { 7, 0x9d, "Rambus" },
    { 7, 0x32, "Montage" },        { 9, 0xc8, "Lenovo" },    { 10, 0x83, "Hewlett Packard Enterprise" },
};

const char *spd_jep106_name(uint8_t bank, uint8_t code)
{
    for (size_t i = 0; i < ARRAY_SIZE(jep106); i++)
        if (jep106[i].bank == bank && jep106[i].code == code)
            return jep106[i].name;
    return NULL;
}

bool spd_jep106_text(char *out, size_t cap, uint8_t count, uint8_t code, uint8_t *bank)
{
    const char *name;

    if ((count == 0 && code == 0) || (count == 0xff && code == 0xff))
        return false;
    *bank = (uint8_t)((count & 0x7f) + 1);
    name = spd_jep106_name(*bank, code);
    if (name)
        bm_strlcpy(out, name, cap);
    else
        snprintf(out, cap, "JEP-106 bank %u code 0x%02x", *bank, code);
    return true;
}

void spd_set_mfr(struct spd_info *o, uint8_t count, uint8_t code)
{
    if (spd_jep106_text(o->manufacturer, sizeof(o->manufacturer), count, code, &o->mfr_bank))
        o->mfr_code = code;
}

void spd_set_part(struct spd_info *o, const uint8_t *p, size_t n)
{
    size_t k = 0;

    for (size_t i = 0; i < n && k + 1 < sizeof(o->part); i++) {
        if (p[i] < 0x20 || p[i] > 0x7e)
            break;
        o->part[k++] = (char)p[i];
    }
    while (k > 0 && o->part[k - 1] == ' ')
        k--;
    o->part[k] = '\0';
}

/* A BCD byte's value, or -1. */
static int bcd(uint8_t v)
{
    if ((v >> 4) > 9 || (v & 0xf) > 9)
        return -1;
    return (v >> 4) * 10 + (v & 0xf);
}

void spd_set_serial_date(struct spd_info *o, const uint8_t *serial, uint8_t year, uint8_t week)
{
    int y = bcd(year), w = bcd(week);
    bool blank = true;

    for (int i = 0; i < 4; i++)
        if (serial[i] != 0 && serial[i] != 0xff)
            blank = false;
    if (!blank)
        snprintf(o->serial, sizeof(o->serial), "%02X%02X%02X%02X", serial[0], serial[1], serial[2], serial[3]);
    if (y >= 0 && w >= 1 && w <= 53)
        snprintf(o->date, sizeof(o->date), "%d-W%02d", (y >= 80 ? 1900 : 2000) + y, w);
}

/* JEDEC speed bins (MT/s) from DDR2-400 to DDR5-8800. */
static const uint16_t speed_bins[] = { 400,  533,  667,  800,  1066, 1333, 1600, 1866, 2133, 2400, 2666,
                                       2933, 3200, 3600, 4000, 4400, 4800, 5200, 5600, 6000, 6400, 6800,
                                       7200, 7600, 8000, 8400, 8800 };

/* 2 / tCK in MT/s, snapped to the bin within 1.5 % (DDR4-2933's tCK is
 * 682 ps, 2932.6 MT/s). */
static uint32_t speed_of(uint32_t tck_ps)
{
    uint32_t mts;

    if (!tck_ps)
        return 0;
    mts = (2000000u + tck_ps / 2) / tck_ps;
    for (size_t i = 0; i < ARRAY_SIZE(speed_bins); i++) {
        uint32_t s = speed_bins[i];
        if (mts * 1000 >= s * 985u && mts * 1000 <= s * 1015u)
            return s;
    }
    return mts;
}

/* Clocks for a time at tCK: JEDEC's rounding algorithm (the DDR4 SPD
 * annex), a 2.5 % guard band before rounding up. */
static uint16_t clocks(uint32_t t_ps, uint32_t tck_ps)
{
    if (!tck_ps || !t_ps)
        return 0;
    return (uint16_t)(((uint64_t)t_ps * 1000 / tck_ps + 974) / 1000);
}

/* Clocks for a time at tCK by JESD400-5's rounding algorithm: the time
 * scaled by 0.997 (a 0.3 % guard band), divided by tCK in ps, truncated
 * after adding 1000 (nCK = trunc((tParam * 997 / tCK + 1000) / 1000)). */
static uint16_t clocks_ddr5(uint32_t t_ps, uint32_t tck_ps)
{
    if (!tck_ps || !t_ps)
        return 0;
    return (uint16_t)(((uint64_t)t_ps * 997 / tck_ps + 1000) / 1000);
}

static void set_timings(struct spd_info *o, uint32_t tck_ps, const uint32_t t[4],
                        uint16_t (*clk)(uint32_t, uint32_t))
{
    o->tck_ps = tck_ps;
    o->speed_mts = speed_of(tck_ps);
    o->taa_ps = t[0];
    o->trcd_ps = t[1];
    o->trp_ps = t[2];
    o->tras_ps = t[3];
    o->cl = clk(t[0], tck_ps);
    o->trcd = clk(t[1], tck_ps);
    o->trp = clk(t[2], tck_ps);
    o->tras = clk(t[3], tck_ps);
}

void spd_set_timings(struct spd_info *o, uint32_t tck_ps, uint32_t taa, uint32_t trcd, uint32_t trp, uint32_t tras)
{
    const uint32_t t[4] = { taa, trcd, trp, tras };
    set_timings(o, tck_ps, t, clocks);
}

void spd_set_timings_ddr5(struct spd_info *o, uint32_t tck_ps, uint32_t taa, uint32_t trcd, uint32_t trp,
                          uint32_t tras)
{
    const uint32_t t[4] = { taa, trcd, trp, tras };
    set_timings(o, tck_ps, t, clocks_ddr5);
}

uint16_t spd_cl_from_mask(uint64_t mask, unsigned base, unsigned step, uint16_t want)
{
    for (unsigned k = 0; k < 64; k++)
        if ((mask >> k) & 1) {
            unsigned cl = base + step * k;
            if (cl >= want)
                return (uint16_t)cl;
        }
    return want;
}
