/* SPD devices matched to the SMBIOS memory devices, and the warnings
 * that come from comparing them (pure functions: unit-tested). */
#ifndef BAREMARK_SPD_MATCH_H
#define BAREMARK_SPD_MATCH_H

#include "dimm.h"
#include "spd.h"

/* One SPD device that decoded. */
struct spd_dimm {
    uint8_t addr;            /* 0x50-0x57 */
    struct spd_info info;
    int dimm_index;          /* the SMBIOS dimm it matched, -1 for none */
    const char *match;       /* "serial", "order", or NULL */
};

/* Match each SPD device to a populated SMBIOS slot: first by serial
 * number (SMBIOS usually copies the SPD serial, as hex), then, when the
 * counts agree, by order (SPD address order = SMBIOS table order, as on
 * boards whose slots map 0x50, 0x51, ... in locator order). */
void spd_match_dimms(struct spd_dimm *s, unsigned ns, const struct dimm *d, unsigned nd);

/* Where a matched SPD and its SMBIOS slot disagree (bits), and the
 * words for it ("size", "speed", "size, speed", "") into out. */
#define SPD_DISAGREE_SIZE 1u
#define SPD_DISAGREE_SPEED 2u
unsigned spd_disagreement(const struct spd_dimm *s, const struct dimm *d, char *out, size_t cap);

/* Append to sum the warnings SPD gives: SPD and SMBIOS disagree on size
 * or rated speed, DIMMs that SMBIOS omits, mixed SPD timings. */
void spd_match_warnings(const struct spd_dimm *s, unsigned ns, const struct dimm *d, unsigned nd,
                        struct dimm_summary *sum);

#endif
