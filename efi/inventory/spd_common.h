/* What the SPD decoders (spd.c, spd_ddr45.c) share and nothing else. */
#ifndef BAREMARK_SPD_COMMON_H
#define BAREMARK_SPD_COMMON_H

#include "spd_types.h"

/* A byte of the image, 0 beyond its end (and the image marked truncated). */
struct spd_img {
    const uint8_t *b;
    size_t len;
    struct spd_info *out;
};
uint8_t spd_byte(struct spd_img *im, size_t i);
/* Is [off, off + n) inside the image? Marks it truncated when not. */
bool spd_have(struct spd_img *im, size_t off, size_t n);

/* A (continuation count with parity, code) pair, the DDR3+ form of a
 * JEP-106 id, as a maker's name into out and its 1-based bank; false
 * (out untouched) when the pair is blank (00 00 or ff ff). */
bool spd_jep106_text(char *out, size_t cap, uint8_t count, uint8_t code, uint8_t *bank);
/* Fill manufacturer from a (continuation count, code) pair: the DDR3+ form. */
void spd_set_mfr(struct spd_info *o, uint8_t count, uint8_t code);
/* Printable ASCII part number, trailing blanks cut. */
void spd_set_part(struct spd_info *o, const uint8_t *p, size_t n);
/* Serial (4 bytes, big-endian hex) and BCD year/week. */
void spd_set_serial_date(struct spd_info *o, const uint8_t *serial, uint8_t year, uint8_t week);
/* Speed from tCK, clocks of each timing at tCK (JEDEC rounding). */
void spd_set_timings(struct spd_info *o, uint32_t tck_ps, uint32_t taa, uint32_t trcd, uint32_t trp, uint32_t tras);
/* The same with JESD400-5's rounding (DDR5: a 0.3 % guard band, not 2.5 %). */
void spd_set_timings_ddr5(struct spd_info *o, uint32_t tck_ps, uint32_t taa, uint32_t trcd, uint32_t trp,
                          uint32_t tras);
/* Check a little-endian CRC-16 stored at crc_off over [0, n) (or from
 * start); records the failure. */
void spd_check_crc(struct spd_img *im, size_t start, size_t n, size_t crc_off, const char *what);
/* The smallest latency in mask (bit k = CL base + step * k) that is at
 * least want; want itself when mask has none. */
uint16_t spd_cl_from_mask(uint64_t mask, unsigned base, unsigned step, uint16_t want);

void spd_decode_ddr4(struct spd_img *im);
void spd_decode_ddr5(struct spd_img *im);

#endif
