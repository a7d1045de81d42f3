/* Memory devices (SMBIOS type 17) and the DIMM population summary.
 *
 * The summary is a pure function over parsed devices, so unit tests drive
 * it with synthetic layouts (balanced, unbalanced, mixed). */
#ifndef BAREMARK_DIMM_H
#define BAREMARK_DIMM_H

#include "../lib/bmlib.h"

/* One memory device slot, populated or not. Strings are as the firmware
 * wrote them (trimmed, printable ASCII); "" when absent. */
struct dimm {
    char locator[48];        /* Device Locator: the slot's silkscreen name */
    char bank[48];           /* Bank Locator */
    uint32_t size_mb;        /* 0 = empty slot */
    bool size_unknown;       /* populated, but the firmware does not know the size */
    uint8_t type_code;       /* SMBIOS Memory Type byte */
    char mem_type[16];       /* its name: DDR4, DDR2 FB-DIMM, LPDDR5, ... */
    uint32_t speed_mts;      /* rated (maximum) speed, MT/s; 0 = unknown */
    uint32_t configured_mts; /* speed the controller runs it at; 0 = unknown */
    uint8_t ranks;           /* 0 = unknown */
    char manufacturer[32];
    char part[40];
    char serial[32];
};

static inline bool dimm_populated(const struct dimm *d)
{
    return d->size_mb > 0 || d->size_unknown;
}

/* Where a slot sits, as far as its locator strings tell. */
struct dimm_slot_pos {
    char socket[12];         /* "CPU1", "P0", "NODE1"; "" when not named */
    char group[12];          /* controller/node inside the socket: "C0", "N1"; "" */
    char channel[12];        /* "A", "0"; "" when not named */
    int slot;                /* slot within the channel; -1 when not named */
};

/* Parse the common locator formats: "DIMM_A1", "CPU1_DIMM_A1", "P1-DIMMA1",
 * "ChannelA-DIMM0", "Controller0-ChannelA-DIMM0", "DIMM 0" (slot only),
 * with the bank locator filling what the device locator leaves out
 * ("P0 CHANNEL A", "NODE 1"). Returns true when a channel was found. */
bool dimm_locator_parse(const char *locator, const char *bank, struct dimm_slot_pos *pos);

#define DIMM_MAX_CHANNELS 64
#define DIMM_MAX_WARNINGS 8
#define DIMM_WARNING_LEN 160

struct dimm_channel {
    char name[40];           /* "CPU1/A", "A", "P0/N1/A" */
    unsigned slots, populated;
    uint64_t size_mb;
};

struct dimm_summary {
    unsigned slots, populated;
    uint64_t total_mb;       /* of the populated slots with a known size */
    bool channels_known;     /* every slot's locator named its channel */
    char channels_note[128]; /* why not, when !channels_known */
    unsigned nchannels;
    struct dimm_channel channels[DIMM_MAX_CHANNELS];
    unsigned nwarnings;
    char warnings[DIMM_MAX_WARNINGS][DIMM_WARNING_LEN];
};

/* Count slots, channels and sizes, and warn about what slows memory down
 * or is a population mistake: unbalanced channels, mixed sizes, speeds or
 * ranks, and DIMMs configured below their rated speed. */
void dimm_summarize(const struct dimm *d, unsigned n, struct dimm_summary *s);

/* Append one more warning to a summary while there is room (the hook the
 * SPD comparison in spd_match.c uses). */
void dimm_summary_warn(struct dimm_summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
