/* SMBIOS structure table parser (DMTF DSP0134, SMBIOS 3.x).
 *
 * Pure: table bytes in, structs out. Every read is bounds-checked against
 * the table and the structure, so a malformed table (a length that runs
 * past the end, strings without terminators, a string index past the set)
 * yields what could be read plus a note saying what was wrong. */
#ifndef BAREMARK_SMBIOS_H
#define BAREMARK_SMBIOS_H

#include "dimm.h"

#define SMBIOS_MAX_PROCS 16
#define SMBIOS_MAX_DIMMS 256

/* Structure types this parser reads (DSP0134 section 7). */
enum {
    SMBIOS_TYPE_BIOS = 0,          /* 7.1 */
    SMBIOS_TYPE_SYSTEM = 1,        /* 7.2 */
    SMBIOS_TYPE_BASEBOARD = 2,     /* 7.3 */
    SMBIOS_TYPE_PROCESSOR = 4,     /* 7.5 */
    SMBIOS_TYPE_MEMORY_DEVICE = 17, /* 7.18 */
    SMBIOS_TYPE_END = 127,         /* End-of-Table */
};

/* A processor socket (type 4). Counts are 0 when unknown. */
struct smbios_proc {
    char socket[32];
    char manufacturer[32];
    char version[64];
    bool populated;
    uint16_t cores, cores_enabled, threads;
};

struct smbios_info {
    int major, minor;                   /* from the entry point */
    char bios_vendor[64], bios_version[64], bios_date[16];
    char sys_manufacturer[64], sys_product[64], sys_version[64], sys_serial[64];
    char sys_uuid[40];                  /* "" when absent, all-zero or all-ones */
    char board_manufacturer[64], board_product[64], board_serial[64];
    unsigned nprocs;
    struct smbios_proc procs[SMBIOS_MAX_PROCS];
    unsigned ndimms, dimms_dropped;     /* dropped: more than SMBIOS_MAX_DIMMS */
    struct dimm dimms[SMBIOS_MAX_DIMMS];
    unsigned structures;                /* structures read */
    bool saw_end;                       /* the end-of-table structure was found */
    unsigned problems;                  /* malformed things met */
    char problem[160];                  /* the first of them */
};

/* Parse a structure table. Returns BM_OK for a clean table, BM_EINVAL
 * when something was malformed (out holds what was read before or around
 * it, and out->problem says what). */
int smbios_parse(const void *table, size_t len, int major, int minor, struct smbios_info *out);

/* Name of an SMBIOS Memory Type byte (7.18.2): "DDR4", "DDR2 FB-DIMM". */
const char *smbios_memory_type_name(uint8_t code);

#endif
