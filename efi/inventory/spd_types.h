/* The decoded SPD of one DIMM (struct spd_info) and the pure helpers the
 * decoders and their tests share; the decoder's face is spd.h. */
#ifndef BAREMARK_SPD_TYPES_H
#define BAREMARK_SPD_TYPES_H

#include "../platform.h"

/* Byte 2, the key byte: DRAM device type. */
#define SPD_TYPE_SDR 0x04
#define SPD_TYPE_DDR 0x07
#define SPD_TYPE_DDR2 0x08
#define SPD_TYPE_DDR2_FB 0x09
#define SPD_TYPE_DDR3 0x0b
#define SPD_TYPE_DDR4 0x0c
#define SPD_TYPE_DDR5 0x12

/* The largest SPD image (DDR5: 1024 bytes). */
#define SPD_MAX_BYTES 1024

enum spd_gen {
    SPD_GEN_UNKNOWN = 0, SPD_GEN_DDR2, SPD_GEN_DDR2_FB, SPD_GEN_DDR3, SPD_GEN_DDR4, SPD_GEN_DDR5, SPD_GEN_SDR, SPD_GEN_DDR
};

struct spd_info {
    enum spd_gen gen;
    uint8_t type_byte;
    char mem_type[16];       /* "DDR4", "DDR2 FB-DIMM", "SDRAM" (the names SMBIOS type 17 uses) */
    char module_type[16];    /* "RDIMM", "UDIMM", "SO-DIMM", "LRDIMM", "FB-DIMM", "" */
    uint64_t size_mb;        /* 0 = not decodable */
    uint8_t ranks;
    uint16_t data_width;     /* primary bus bits, without ECC (64) */
    bool ecc;
    uint8_t device_width;    /* SDRAM I/O width: 4, 8, 16 */
    uint8_t mfr_bank;        /* JEP-106 bank (1-based) and code (with its parity bit) */
    uint8_t mfr_code;
    char manufacturer[48];   /* JEP-106 name, or "JEP-106 bank N code 0xNN" */
    char part[32];
    /* FB-DIMM only: the maker of the module's Advanced Memory Buffer
     * (bytes 115-116), "" for other generations or when blank. */
    char amb_vendor[48];
    uint8_t amb_bank, amb_code;
    char serial[12];         /* 8 hex digits, "" when blank */
    char date[12];           /* "2019-W23", "" when blank */
    uint32_t tck_ps;         /* minimum clock period */
    uint32_t speed_mts;      /* 2 / tCKmin, snapped to the JEDEC speed bin */
    uint32_t taa_ps, trcd_ps, trp_ps, tras_ps;
    uint16_t cl, trcd, trp, tras; /* clocks at tCKmin (JEDEC rounding; DDR1's CL 2.5 etc. rounded up) */
    bool crc_checked;        /* every checksum/CRC the layout has was present */
    bool crc_ok;             /* ... and matched */
    char crc_note[64];       /* which one failed, or why not checked */
    bool truncated;          /* fewer bytes than the fields decoded need */
    size_t bytes_expected;   /* what the layout says the device holds */
};

/* JEDEC SPD CRC-16 (polynomial 0x1021, initial value 0). */
uint16_t spd_crc16(const uint8_t *b, size_t n);

/* JEP-106 name of a common memory maker, or NULL. bank is 1-based; code
 * includes its odd-parity bit. */
const char *spd_jep106_name(uint8_t bank, uint8_t code);

#endif
