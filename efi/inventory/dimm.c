/* The DIMM population summary (a pure function; locators: dimm_locator.c). */
#include "dimm.h"

/* ---- Summary ---------------------------------------------------------------------- */

/* Append a warning while there is room (public as dimm_summary_warn: the
 * SPD comparison, spd_match.c, adds its warnings through it). */
#define add_warning dimm_summary_warn
void dimm_summary_warn(struct dimm_summary *s, const char *fmt, ...)
{
    va_list ap;

    if (s->nwarnings >= DIMM_MAX_WARNINGS)
        return;
    va_start(ap, fmt);
    vsnprintf(s->warnings[s->nwarnings++], DIMM_WARNING_LEN, fmt, ap);
    va_end(ap);
}

/* Distinct values and how often each occurs, largest value first. */
struct histogram {
    unsigned n;
    struct {
        uint32_t value;
        unsigned count;
    } bins[16];
};

/* Count one value. */
static void hist_add(struct histogram *h, uint32_t v)
{
    unsigned i;

    for (i = 0; i < h->n; i++)
        if (h->bins[i].value == v) {
            h->bins[i].count++;
            return;
        }
    if (h->n == ARRAY_SIZE(h->bins))
        return;
    /* Insert keeping the values in descending order. */
    for (i = h->n; i > 0 && h->bins[i - 1].value < v; i--)
        h->bins[i] = h->bins[i - 1];
    h->bins[i].value = v;
    h->bins[i].count = 1;
    h->n++;
}

/* "2 x 16384 MB, 2 x 8192 MB" */
static void hist_text(const struct histogram *h, const char *unit, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < h->n && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%u x %u%s", i ? ", " : "", h->bins[i].count,
                                (unsigned)h->bins[i].value, unit);
}

/* Where every slot sits, as far as the locators tell. */
#define DIMM_MAX_PLACED 256
struct placement {
    struct dimm_slot_pos pos[DIMM_MAX_PLACED];
    bool grouped[DIMM_MAX_PLACED]; /* false: ROM entry or unnamed empty placeholder */
    bool has_channel[DIMM_MAX_PLACED];
};

/* HPE's "PROC 1 DIMM 2A", "DIMM3A": every number appears once per socket
 * and the letter is the load order. Fujitsu's "DIMM-1A", "DIMM-2A" (slot
 * numbers) and Supermicro's "P1_DIMM1A", "P1_DIMM1B" (channel numbers)
 * repeat their numbers. */
static bool letters_are_load_order(const struct placement *pl, unsigned n)
{
    bool any = false;

    for (unsigned i = 0; i < n; i++) {
        if (!pl->grouped[i] || !pl->pos[i].digit_letter)
            continue;
        any = true;
        for (unsigned j = i + 1; j < n; j++)
            if (pl->grouped[j] && pl->pos[j].digit_letter && pl->pos[j].digit == pl->pos[i].digit &&
                !strcmp(pl->pos[j].socket, pl->pos[i].socket))
                return false;
    }
    return any;
}

/* "socket/group/channel", leaving out what is not known. */
static void channel_name(const struct dimm_slot_pos *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s%s", p->socket, p->socket[0] ? "/" : "", p->group, p->group[0] ? "/" : "",
             p->channel);
}

/* Count one slot into the group called name; false when the table is full. */
static bool count_slot(struct dimm_summary *s, const char *name, const char *socket, const struct dimm *d)
{
    unsigned c;

    for (c = 0; c < s->nchannels; c++)
        if (!strcmp(s->channels[c].name, name))
            break;
    if (c == s->nchannels) {
        if (s->nchannels == DIMM_MAX_CHANNELS)
            return false;
        memset(&s->channels[c], 0, sizeof(s->channels[c]));
        bm_strlcpy(s->channels[c].name, name, sizeof(s->channels[c].name));
        bm_strlcpy(s->channels[c].socket, socket, sizeof(s->channels[c].socket));
        s->nchannels++;
    }
    s->channels[c].slots++;
    if (dimm_populated(d)) {
        s->channels[c].populated++;
        s->channels[c].size_mb += d->size_mb;
    }
    return true;
}

/* Group the slots at the given level; false when the table overflows. */
static bool group_slots(const struct dimm *d, unsigned n, const struct placement *pl, enum dimm_grouping level,
                        struct dimm_summary *s)
{
    s->nchannels = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct dimm_slot_pos *p = &pl->pos[i];
        char name[40];

        if (!pl->grouped[i])
            continue;
        if (level == DIMM_GROUP_CHANNEL)
            channel_name(p, name, sizeof(name));
        else /* Dell's letter names the socket when nothing else does */
            bm_strlcpy(name, p->socket[0] ? p->socket : p->channel[0] ? p->channel : "CPU", sizeof(name));
        if (!count_slot(s, name, level == DIMM_GROUP_CHANNEL ? p->socket : name, &d[i])) {
            snprintf(s->channels_note, sizeof(s->channels_note), "more than %d groups", DIMM_MAX_CHANNELS);
            s->nchannels = 0;
            return false;
        }
    }
    return true;
}

/* No memory channel holds more than 3 DIMMs on DDR3-DDR5 servers, 4 on
 * some DDR2/FB-DIMM boards. More in one "channel" means the letter is
 * something else: Dell's A1..A12 (socket A), Oracle's D0..D15. */
static bool channels_plausible(const struct dimm *d, unsigned n, const struct dimm_summary *s)
{
    unsigned most = 3;

    for (unsigned i = 0; i < n; i++)
        if (d[i].type_code == 0x13 || d[i].type_code == 0x14 || d[i].type_code == 0x19) /* DDR2, FB-DIMM */
            most = 4;
    for (unsigned c = 0; c < s->nchannels; c++)
        if (s->channels[c].slots > most)
            return false;
    return true;
}

/* Channels that name no socket on a board with several (Dell CS24 "DIMM
 * A0".."F2", Fujitsu "DIMM-1A".."3F", ETegro "ChannelA".."H"): the letters
 * run on from one CPU to the next, so with the count dividing evenly the
 * first share belongs to CPU1 ("CPU1?": inferred), and each socket's
 * channels are balanced apart. */
static void infer_sockets(struct dimm_summary *s, const struct dimm_cpus *cpus)
{
    unsigned per;

    if (!cpus || cpus->sockets < 2 || s->nchannels % cpus->sockets)
        return;
    for (unsigned c = 0; c < s->nchannels; c++)
        if (s->channels[c].socket[0])
            return;
    per = s->nchannels / cpus->sockets;
    for (unsigned c = 0; c < s->nchannels; c++)
        snprintf(s->channels[c].socket, sizeof(s->channels[c].socket), "CPU%u?", MIN(c / per + 1, 99u));
}

/* Choose the finest grouping the locators support and fill s->channels. */
static void place_slots(const struct dimm *d, unsigned n, const struct dimm_cpus *cpus, struct dimm_summary *s)
{
    static struct placement pl;
    unsigned named = 0, with_channel = 0, with_socket = 0, first_unplaced = n;
    bool one_socket = cpus && cpus->sockets == 1;

    memset(&pl, 0, sizeof(pl));
    for (unsigned i = 0; i < n && i < DIMM_MAX_PLACED; i++) {
        pl.has_channel[i] = dimm_locator_parse(d[i].locator, d[i].bank, &pl.pos[i]);
        pl.grouped[i] = !dimm_is_rom(&d[i]) &&
                        (dimm_populated(&d[i]) || !dimm_locator_is_placeholder(d[i].locator));
    }
    if (letters_are_load_order(&pl, n))
        for (unsigned i = 0; i < n; i++)
            if (pl.pos[i].digit_letter)
                pl.has_channel[i] = false, pl.pos[i].channel[0] = '\0';
    for (unsigned i = 0; i < n && i < DIMM_MAX_PLACED; i++) {
        s->unnamed_slots += !pl.grouped[i] && !dimm_is_rom(&d[i]);
        if (!pl.grouped[i])
            continue;
        named++;
        with_channel += pl.has_channel[i];
        with_socket += pl.pos[i].socket[0] != '\0' || one_socket;
        if (!pl.has_channel[i] && !pl.pos[i].socket[0] && !one_socket && first_unplaced == n)
            first_unplaced = i;
    }

    if (n > DIMM_MAX_PLACED) {
        snprintf(s->channels_note, sizeof(s->channels_note), "more than %d memory devices", DIMM_MAX_PLACED);
    } else if (named && with_channel == named && group_slots(d, n, &pl, DIMM_GROUP_CHANNEL, s)) {
        if (channels_plausible(d, n, s)) {
            s->grouping = DIMM_GROUP_CHANNEL;
            infer_sockets(s, cpus);
            return;
        }
        /* Too many slots per "channel": the letter names a socket. */
        if (group_slots(d, n, &pl, DIMM_GROUP_SOCKET, s)) {
            s->grouping = DIMM_GROUP_SOCKET;
            snprintf(s->channels_note, sizeof(s->channels_note),
                     "the locators name sockets, not channels (slot \"%.32s\")", d[0].locator);
        }
    } else if (named && (with_socket == named || with_channel == named) &&
               group_slots(d, n, &pl, DIMM_GROUP_SOCKET, s)) {
        s->grouping = DIMM_GROUP_SOCKET;
        snprintf(s->channels_note, sizeof(s->channels_note),
                 "the locators name sockets, not channels (slot \"%.32s\"%s%.32s%s)", d[0].locator,
                 d[0].bank[0] ? ", bank \"" : "", d[0].bank, d[0].bank[0] ? "\"" : "");
    } else if (n && first_unplaced < n) {
        snprintf(s->channels_note, sizeof(s->channels_note),
                 "the locators do not name channels (slot \"%.32s\"%s%.32s%s)", d[first_unplaced].locator,
                 d[first_unplaced].bank[0] ? ", bank \"" : "", d[first_unplaced].bank,
                 d[first_unplaced].bank[0] ? "\"" : "");
        s->nchannels = 0;
    } else if (n) {
        snprintf(s->channels_note, sizeof(s->channels_note), "no named memory slots");
    }
}

/* Interleaving spreads consecutive lines over a socket's channels only as
 * far as every channel holds the same: a channel with fewer or smaller
 * DIMMs leaves part of memory on fewer channels, with less bandwidth.
 * Sockets are compared apart: each interleaves its own channels, and a
 * socket without DIMMs (an empty CPU socket) has nothing to balance. */
static void warn_unbalanced_socket(struct dimm_summary *s, const char *socket, bool skip_empty)
{
    const struct dimm_channel *lo = NULL, *hi = NULL, *small = NULL, *big = NULL;

    for (unsigned c = 0; c < s->nchannels; c++) {
        const struct dimm_channel *ch = &s->channels[c];
        if (strcmp(ch->socket, socket) || (skip_empty && !ch->populated))
            continue;
        if (!lo || ch->populated < lo->populated)
            lo = ch;
        if (!hi || ch->populated > hi->populated)
            hi = ch;
        if (!small || ch->size_mb < small->size_mb)
            small = ch;
        if (!big || ch->size_mb > big->size_mb)
            big = ch;
    }
    if (!hi || hi->populated == 0)
        return;
    if (lo->populated != hi->populated)
        add_warning(s, "unbalanced channels: %s has %u DIMM%s, %s has %u", hi->name, hi->populated,
                    hi->populated == 1 ? "" : "s", lo->name, lo->populated);
    else if (small->size_mb != big->size_mb)
        add_warning(s, "unbalanced channels: %s holds %llu MB, %s holds %llu MB", big->name,
                    (unsigned long long)big->size_mb, small->name, (unsigned long long)small->size_mb);
}

/* Memory per socket (of the sockets that have any). */
static uint64_t socket_mb(const struct dimm_summary *s, const char *socket)
{
    uint64_t mb = 0;

    for (unsigned c = 0; c < s->nchannels; c++)
        if (!strcmp(s->channels[c].socket, socket))
            mb += s->channels[c].size_mb;
    return mb;
}

/* Per-socket channel balance, then sockets against each other. Channels
 * that name no socket, on a board where type 4 lists an empty CPU socket,
 * may belong to that CPU: their empty ones are left out. */
static void warn_unbalanced(struct dimm_summary *s, const struct dimm_cpus *cpus)
{
    bool cpu_missing = cpus && cpus->populated < cpus->sockets;

    const char *lo = NULL, *hi = NULL;
    uint64_t lo_mb = 0, hi_mb = 0;

    if (s->grouping == DIMM_GROUP_NONE || s->populated == 0)
        return;
    for (unsigned c = 0; c < s->nchannels; c++) {
        const char *sock = s->channels[c].socket;
        bool first = true;
        uint64_t mb;
        for (unsigned k = 0; k < c && first; k++)
            first = strcmp(s->channels[k].socket, sock) != 0;
        if (!first)
            continue;
        if (s->grouping == DIMM_GROUP_CHANNEL)
            warn_unbalanced_socket(s, sock, cpu_missing && !sock[0]);
        mb = socket_mb(s, sock);
        if (!mb)
            continue;
        if (!lo || mb < lo_mb)
            lo = sock, lo_mb = mb;
        if (!hi || mb > hi_mb)
            hi = sock, hi_mb = mb;
    }
    if (lo && lo_mb != hi_mb && lo[0] && hi[0])
        add_warning(s, "sockets differ: %s holds %llu MB, %s holds %llu MB", hi, (unsigned long long)hi_mb, lo,
                    (unsigned long long)lo_mb);
}

/* Configured below rated. Before SMBIOS 3.1 the field was the
 * "Configured Memory Clock Speed" in MHz, and some firmware wrote the
 * clock (half the MT/s); exactly half under that name is not a slow DIMM. */
static bool configured_below_rated(const struct dimm *d)
{
    uint32_t conf = d->configured_mts;

    if (!d->speed_mts || !conf)
        return false;
    if (d->configured_may_be_clock && conf * 2 + 2 >= d->speed_mts && conf * 2 <= d->speed_mts + 2)
        return false;
    /* 2666 vs 2667, 2933 vs 2934: rounding of the same speed. */
    return conf + 1 < d->speed_mts;
}

/* Counts, channels and warnings of a DIMM population. */
void dimm_summarize_cpus(const struct dimm *d, unsigned n, const struct dimm_cpus *cpus, struct dimm_summary *s)
{
    struct histogram sizes = { 0 }, speeds = { 0 }, ranks = { 0 };
    const struct dimm *slow = NULL;
    unsigned nslow = 0, unknown_size = 0;
    char text[DIMM_WARNING_LEN];

    memset(s, 0, sizeof(*s));
    for (unsigned i = 0; i < n; i++) {
        if (dimm_is_rom(&d[i])) {
            s->rom_entries++;
            continue;
        }
        s->slots++;
        if (!dimm_populated(&d[i]))
            continue;
        s->populated++;
        if (d[i].size_unknown)
            unknown_size++;
        else {
            s->total_mb += d[i].size_mb;
            hist_add(&sizes, d[i].size_mb);
        }
        if (d[i].speed_mts)
            hist_add(&speeds, d[i].speed_mts);
        if (d[i].ranks)
            hist_add(&ranks, d[i].ranks);
        if (configured_below_rated(&d[i])) {
            if (!slow)
                slow = &d[i];
            nslow++;
        }
    }

    if (n == 0)
        snprintf(s->channels_note, sizeof(s->channels_note), "the firmware lists no memory devices");
    else
        place_slots(d, n, cpus, s);
    s->channels_known = s->grouping == DIMM_GROUP_CHANNEL;

    warn_unbalanced(s, cpus);
    if (sizes.n > 1) {
        hist_text(&sizes, " MB", text, sizeof(text));
        add_warning(s, "mixed sizes: %s", text);
    }
    if (speeds.n > 1) {
        hist_text(&speeds, " MT/s", text, sizeof(text));
        add_warning(s, "mixed rated speeds: %s", text);
    }
    if (ranks.n > 1) {
        hist_text(&ranks, "R", text, sizeof(text));
        add_warning(s, "mixed ranks: %s", text);
    }
    if (nslow)
        add_warning(s, "configured speed below rated: %u DIMM%s, e.g. %s runs at %u of %u MT/s", nslow,
                    nslow == 1 ? "" : "s", slow->locator[0] ? slow->locator : "(unnamed)",
                    (unsigned)slow->configured_mts, (unsigned)slow->speed_mts);
    if (unknown_size)
        add_warning(s, "%u populated slot%s report%s an unknown size", unknown_size, unknown_size == 1 ? "" : "s",
                    unknown_size == 1 ? "s" : "");
}

void dimm_summarize(const struct dimm *d, unsigned n, struct dimm_summary *s)
{
    dimm_summarize_cpus(d, n, NULL, s);
}

const char *dimm_grouping_name(enum dimm_grouping g)
{
    return g == DIMM_GROUP_CHANNEL ? "channel" : g == DIMM_GROUP_SOCKET ? "socket" : "none";
}
