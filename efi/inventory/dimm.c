/* DIMM locator parsing and the population summary (pure functions). */
#include "dimm.h"

/* ---- Locators ---------------------------------------------------------------------- */

#define MAX_TOKENS 12

/* Split into upper-case runs of letters and digits: "P1-DIMMA1" gives
 * "P1", "DIMMA1"; "CPU1_DIMM_A1" gives "CPU1", "DIMM", "A1". */
static int tokenize(const char *s, char tok[][24], int max)
{
    int n = 0;

    while (*s && n < max) {
        size_t len = 0;
        while (*s && !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            s++;
        if (!*s)
            break;
        while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) {
            if (len + 1 < 24)
                tok[n][len++] = (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s;
            s++;
        }
        tok[n++][len] = '\0';
    }
    return n;
}

/* A non-empty run of decimal digits. */
static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* A non-empty run of upper-case letters. */
static bool all_letters(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < 'A' || *s > 'Z')
            return false;
    return true;
}

/* If tok is PREFIX followed by digits (or PREFIX alone and next is all
 * digits), return the digits and how many tokens it used (1 or 2). */
static int prefixed_number(const char *prefix, char tok[][24], int i, int n, const char **digits)
{
    size_t pl = strlen(prefix);

    if (strncmp(tok[i], prefix, pl) != 0)
        return 0;
    if (all_digits(tok[i] + pl)) {
        *digits = tok[i] + pl;
        return 1;
    }
    if (tok[i][pl] == '\0' && i + 1 < n && all_digits(tok[i + 1])) {
        *digits = tok[i + 1];
        return 2;
    }
    return 0;
}

/* A socket token: CPU1, P0, PROC 1, SOCKET 0, SKT1. Returns tokens used. */
static int socket_token(char tok[][24], int i, int n, char *out, size_t cap)
{
    static const char *const prefixes[] = { "CPU", "PROC", "SOCKET", "SKT", "P" };
    const char *digits;

    for (size_t k = 0; k < ARRAY_SIZE(prefixes); k++) {
        int used = prefixed_number(prefixes[k], tok, i, n, &digits);
        /* "P" alone followed by a number is too loose to be a socket. */
        if (used == 2 && !strcmp(prefixes[k], "P"))
            continue;
        if (used) {
            snprintf(out, cap, "%s%s", prefixes[k], digits);
            return used;
        }
    }
    return 0;
}

/* The part after "DIMM": "A1" (channel A, slot 1), "0" (slot 0), "A". */
static void dimm_suffix(const char *rest, char *channel, size_t cap, int *slot)
{
    size_t letters = 0;

    while (rest[letters] >= 'A' && rest[letters] <= 'Z')
        letters++;
    if (letters && letters <= 2 && (rest[letters] == '\0' || all_digits(rest + letters)))
        snprintf(channel, cap, "%.*s", (int)letters, rest);
    if (all_digits(rest + letters)) {
        int v = 0;
        for (const char *p = rest + letters; *p && v < 1000; p++)
            v = v * 10 + (*p - '0');
        *slot = v;
    }
}

/* What one locator string names. */
struct loc_parts {
    char socket[12], node[8], controller[8], channel[12];
    int slot;
};

/* Socket, node, controller, channel and slot named in one locator string. */
static void parse_one(const char *s, struct loc_parts *p)
{
    char tok[MAX_TOKENS][24];
    int n = tokenize(s, tok, MAX_TOKENS);

    memset(p, 0, sizeof(*p));
    p->slot = -1;
    for (int i = 0; i < n;) {
        const char *digits;
        int used;

        if (!p->socket[0] && (used = socket_token(tok, i, n, p->socket, sizeof(p->socket)))) {
            i += used;
        } else if ((used = prefixed_number("NODE", tok, i, n, &digits))) {
            snprintf(p->node, sizeof(p->node), "%s", digits);
            i += used;
        } else if ((used = prefixed_number("CONTROLLER", tok, i, n, &digits)) ||
                   (used = prefixed_number("MC", tok, i, n, &digits))) {
            snprintf(p->controller, sizeof(p->controller), "%s", digits);
            i += used;
        } else if ((used = prefixed_number("BANK", tok, i, n, &digits))) {
            i += used; /* "BANK 0": a rank/bank number, not a channel */
        } else if (!strncmp(tok[i], "CHANNEL", 7) || (!strncmp(tok[i], "CH", 2) && strlen(tok[i]) <= 4)) {
            const char *rest = tok[i] + (!strncmp(tok[i], "CHANNEL", 7) ? 7 : 2);
            i++;
            if (!*rest && i < n && (all_digits(tok[i]) || (all_letters(tok[i]) && strlen(tok[i]) <= 2)))
                rest = tok[i++];
            if (all_digits(rest) || (all_letters(rest) && strlen(rest) <= 2))
                snprintf(p->channel, sizeof(p->channel), "%s", rest);
        } else if (!strncmp(tok[i], "DIMM", 4) || !strncmp(tok[i], "SODIMM", 6)) {
            const char *rest = tok[i] + (!strncmp(tok[i], "DIMM", 4) ? 4 : 6);
            char ch[12] = "";
            i++;
            /* "DIMM_P0_A0": a socket may sit between DIMM and its suffix
             * (but "DIMM_P0" alone is channel P, slot 0). */
            if (!*rest && i < n && !p->socket[0]) {
                char sock[12];
                used = socket_token(tok, i, n, sock, sizeof(sock));
                if (used && i + used < n) {
                    bm_strlcpy(p->socket, sock, sizeof(p->socket));
                    i += used;
                }
            }
            if (!*rest && i < n && (all_digits(tok[i]) || (tok[i][0] >= 'A' && tok[i][0] <= 'Z' && strlen(tok[i]) <= 4)))
                rest = tok[i++];
            dimm_suffix(rest, ch, sizeof(ch), &p->slot);
            if (ch[0] && !p->channel[0])
                snprintf(p->channel, sizeof(p->channel), "%s", ch);
        } else {
            i++;
        }
    }
}

/* Merge what the device and bank locators name into one slot position. */
bool dimm_locator_parse(const char *locator, const char *bank, struct dimm_slot_pos *pos)
{
    struct loc_parts l, b;
    const struct loc_parts *chan_src;

    parse_one(locator ? locator : "", &l);
    parse_one(bank ? bank : "", &b);
    memset(pos, 0, sizeof(*pos));
    pos->slot = l.slot >= 0 ? l.slot : b.slot;

    /* The channel (and the controller/node that qualify it) come from the
     * device locator when it names one, else from the bank locator (AMD
     * boards: "DIMM 0" in bank "P0 CHANNEL A"). */
    chan_src = l.channel[0] ? &l : &b;
    snprintf(pos->channel, sizeof(pos->channel), "%s", chan_src->channel);

    /* The socket from either; "NODE n" alone (Intel boards' bank locator)
     * is the socket, next to a socket token it is a node inside it. */
    if (l.socket[0])
        snprintf(pos->socket, sizeof(pos->socket), "%s", l.socket);
    else if (b.socket[0])
        snprintf(pos->socket, sizeof(pos->socket), "%s", b.socket);
    else if (l.node[0] || b.node[0])
        snprintf(pos->socket, sizeof(pos->socket), "NODE%s", l.node[0] ? l.node : b.node);

    if (chan_src->controller[0])
        snprintf(pos->group, sizeof(pos->group), "C%s", chan_src->controller);
    else if (chan_src->node[0] && (l.socket[0] || b.socket[0]))
        snprintf(pos->group, sizeof(pos->group), "N%s", chan_src->node);
    return pos->channel[0] != '\0';
}

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

/* "socket/group/channel", leaving out what is not known. */
static void channel_name(const struct dimm_slot_pos *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s%s%s", p->socket, p->socket[0] ? "/" : "", p->group, p->group[0] ? "/" : "",
             p->channel);
}

/* Group slots by channel; false (with a note) when a locator names none. */
static bool collect_channels(const struct dimm *d, unsigned n, struct dimm_summary *s)
{
    for (unsigned i = 0; i < n; i++) {
        struct dimm_slot_pos pos;
        char name[40];
        unsigned c;

        if (!dimm_locator_parse(d[i].locator, d[i].bank, &pos)) {
            snprintf(s->channels_note, sizeof(s->channels_note),
                     "the locators do not name channels (slot \"%s\"%s%s%s)", d[i].locator,
                     d[i].bank[0] ? ", bank \"" : "", d[i].bank, d[i].bank[0] ? "\"" : "");
            s->nchannels = 0;
            return false;
        }
        channel_name(&pos, name, sizeof(name));
        for (c = 0; c < s->nchannels; c++)
            if (!strcmp(s->channels[c].name, name))
                break;
        if (c == s->nchannels) {
            if (s->nchannels == DIMM_MAX_CHANNELS) {
                snprintf(s->channels_note, sizeof(s->channels_note), "more than %d channels",
                         DIMM_MAX_CHANNELS);
                s->nchannels = 0;
                return false;
            }
            memset(&s->channels[c], 0, sizeof(s->channels[c]));
            bm_strlcpy(s->channels[c].name, name, sizeof(s->channels[c].name));
            s->nchannels++;
        }
        s->channels[c].slots++;
        if (dimm_populated(&d[i])) {
            s->channels[c].populated++;
            s->channels[c].size_mb += d[i].size_mb;
        }
    }
    return true;
}

/* Interleaving spreads consecutive lines over the channels only as far
 * as every channel holds the same: a channel with fewer or smaller DIMMs
 * leaves part of memory on fewer channels, with less bandwidth. */
static void warn_unbalanced(struct dimm_summary *s)
{
    const struct dimm_channel *lo = NULL, *hi = NULL, *small = NULL, *big = NULL;

    if (!s->channels_known || s->populated == 0)
        return;
    for (unsigned c = 0; c < s->nchannels; c++) {
        const struct dimm_channel *ch = &s->channels[c];
        if (!lo || ch->populated < lo->populated)
            lo = ch;
        if (!hi || ch->populated > hi->populated)
            hi = ch;
        if (!small || ch->size_mb < small->size_mb)
            small = ch;
        if (!big || ch->size_mb > big->size_mb)
            big = ch;
    }
    if (lo->populated != hi->populated)
        add_warning(s, "unbalanced channels: %s has %u DIMM%s, %s has %u", hi->name, hi->populated,
                    hi->populated == 1 ? "" : "s", lo->name, lo->populated);
    else if (small->size_mb != big->size_mb)
        add_warning(s, "unbalanced channels: %s holds %llu MB, %s holds %llu MB", big->name,
                    (unsigned long long)big->size_mb, small->name, (unsigned long long)small->size_mb);
}

/* Counts, channels and warnings of a DIMM population. */
void dimm_summarize(const struct dimm *d, unsigned n, struct dimm_summary *s)
{
    struct histogram sizes = { 0 }, speeds = { 0 }, ranks = { 0 };
    const struct dimm *slow = NULL;
    unsigned nslow = 0, unknown_size = 0;
    char text[DIMM_WARNING_LEN];

    memset(s, 0, sizeof(*s));
    s->slots = n;
    for (unsigned i = 0; i < n; i++) {
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
        if (d[i].speed_mts && d[i].configured_mts && d[i].configured_mts < d[i].speed_mts) {
            if (!slow)
                slow = &d[i];
            nslow++;
        }
    }

    if (n == 0)
        snprintf(s->channels_note, sizeof(s->channels_note), "the firmware lists no memory devices");
    else
        s->channels_known = collect_channels(d, n, s);

    warn_unbalanced(s);
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
