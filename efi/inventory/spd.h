/* SPD (serial presence detect) contents of a DIMM, decoded. Pure: the
 * bytes come from the SMBus reader (spd_read.c) or from a unit test.
 * Layouts: JEDEC JESD21-C annexes — DDR2 (Annex J), DDR2 FB-DIMM
 * (Appendix X), DDR3 (Annex K), DDR4 (Annex L) — and JESD400-5 (DDR5). */
#ifndef BAREMARK_SPD_H
#define BAREMARK_SPD_H

#include "spd_types.h"

/* How many bytes to read for a device whose byte 2 (type) is this: the
 * part of the image the decoder uses. */
size_t spd_bytes_wanted(uint8_t type_byte);

/* Decode len bytes (len may be short: fields beyond it are left blank and
 * truncated is set). Returns BM_OK, or BM_ENOTSUP for an unknown type
 * byte (an empty or erased EEPROM: 0x00 / 0xff), BM_EINVAL for len < 3. */
int spd_decode(const uint8_t *b, size_t len, struct spd_info *out);

#endif
