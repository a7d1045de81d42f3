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
    bool configured_may_be_clock; /* SMBIOS < 3.1 named it "Configured Memory Clock Speed" */
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
    bool digit_letter;       /* read from a number+letter form: "DIMM-1A" (Fujitsu,
                              * letter = channel), "P1_DIMM1A" (Supermicro X8,
                              * digit = channel), or HPE's "DIMM 2A"/"DIMM3A"
                              * (letter = load order, no channel) */
    int digit;               /* the number of that form */
};

/* Parse the locator formats of real boards (listed in dimm_locator.c):
 * "DIMM_A1", "CPU1_DIMM_A1", "P1-DIMMA1", "P1_DIMM1A", "ChannelA-DIMM0",
 * "DIMM 0" (slot only), with the bank locator filling what the device
 * locator leaves out ("P0 CHANNEL A", "NODE 1", "CPU 1"). Returns true when
 * a channel (or a letter that may be one) was found. */
bool dimm_locator_parse(const char *locator, const char *bank, struct dimm_slot_pos *pos);

/* "", "NO DIMM", "Not Specified", "n/a": a locator the firmware left unset. */
bool dimm_locator_is_placeholder(const char *s);

/* Type 17 entries that are not system RAM (SMBIOS memory types ROM,
 * Flash, EEPROM, FEPROM, EPROM: the "BIOS"/"ROM0" flash some boards list). */
static inline bool dimm_is_rom(const struct dimm *d)
{
    return d->type_code >= 0x08 && d->type_code <= 0x0c;
}

#define DIMM_MAX_CHANNELS 64
#define DIMM_MAX_WARNINGS 8
#define DIMM_WARNING_LEN 160

struct dimm_channel {
    char name[40];           /* "CPU1/A", "A", "P0/N1/A"; the socket's name when grouping by socket */
    char socket[12];         /* the socket it belongs to ("" when not named) */
    unsigned slots, populated;
    uint64_t size_mb;
};

/* How far the locators let the summary place slots. */
enum dimm_grouping {
    DIMM_GROUP_NONE,         /* counts only */
    DIMM_GROUP_SOCKET,       /* the socket (or memory board) of every slot, not its channel */
    DIMM_GROUP_CHANNEL,      /* the channel of every slot */
};

/* What SMBIOS type 4 says about the processor sockets (0 = unknown). */
struct dimm_cpus {
    unsigned sockets, populated;
};

struct dimm_summary {
    unsigned slots, populated; /* of system RAM: ROM/flash entries are left out */
    unsigned rom_entries;    /* type 17 entries left out as ROM/flash */
    unsigned unnamed_slots;  /* empty slots the firmware calls "NO DIMM" (or leaves
                              * unnamed): in no group, so their channels' balance
                              * cannot be judged */
    uint64_t total_mb;       /* of the populated slots with a known size */
    enum dimm_grouping grouping;
    bool channels_known;     /* grouping == DIMM_GROUP_CHANNEL */
    char channels_note[128]; /* why not channels (socket-level or none) */
    unsigned nchannels;      /* channels, or sockets when grouping by socket */
    struct dimm_channel channels[DIMM_MAX_CHANNELS];
    unsigned nwarnings;
    char warnings[DIMM_MAX_WARNINGS][DIMM_WARNING_LEN];
};

/* Count slots, channels and sizes, and warn about what slows memory down
 * or is a population mistake: unbalanced channels (within a socket),
 * sockets holding different amounts, mixed sizes, speeds or ranks, and
 * DIMMs configured below their rated speed. cpus may be NULL. */
void dimm_summarize_cpus(const struct dimm *d, unsigned n, const struct dimm_cpus *cpus, struct dimm_summary *s);

/* The same without type 4 information. */
void dimm_summarize(const struct dimm *d, unsigned n, struct dimm_summary *s);

/* Append one more warning to a summary while there is room (the hook the
 * SPD comparison in spd_match.c uses). */
void dimm_summary_warn(struct dimm_summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "channel", "socket" or "none". */
const char *dimm_grouping_name(enum dimm_grouping g);

#endif
