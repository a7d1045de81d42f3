/* DIMM locator parsing: where a slot sits, as its SMBIOS type 17 Device
 * Locator and Bank Locator strings tell (pure function).
 *
 * The conventions below were read off 2,049 real server dmidecode dumps
 * (linuxhw/DMI, Server/; tests/unit/data/dmi_servers.txt.gz), each pinned
 * by a case in tests/unit/test_dimm_summary.c:
 *   Intel/ASUS/Gigabyte  DIMM_A1, CPU1_DIMM_A1, DIMM_P0_A0 (letter = channel)
 *   Supermicro (X9+)     P1-DIMMA1, DIMMA1, bank P0_Node0_Channel0_Dimm0
 *   Supermicro/DEPO X8   P1_DIMM1A, P1-DIMM1A, P1-1A, P1_1A, DIMM1A
 *                        (digit = channel, letter = slot)
 *   AMD boards           DIMM 0, bank "P0 CHANNEL A"
 *   Huawei               DIMM000, bank "SOCKET 0 CHANNEL 0 DIMM 0" or "_Node0_Channel0_Dimm0"
 *   Inspur/Intel         CPU0_C0D0 (channel 0, DIMM 0)
 *   TYAN                 P0-ChA-DIMM0, CH_A0; boards with "DDR4_A1", "DDR5-A1"
 *   Fujitsu              DIMM-1A (digit = slot, letter = channel), DIMM CHA3
 *   Dell                 A1, DIMM_A1 .. B12 (letter = socket, not channel:
 *                        dimm_summarize() sees the twelve slots and falls back)
 *   HPE/HP               PROC 1 DIMM 4, PROC 1 DIMM 2A (letter = load order)
 *   Lenovo               DIMM 1 with bank CPU 1 (socket only)
 * Placeholders ("NO DIMM", "Not Specified", "n/a") count as absent. */
#include "dimm.h"

#define MAX_TOKENS 12
#define TOKEN_LEN 24

static bool is_alnum(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Split into upper-case runs of letters and digits: "P1-DIMMA1" gives
 * "P1", "DIMMA1"; "CPU1_DIMM_A1" gives "CPU1", "DIMM", "A1". */
static int tokenize(const char *s, char tok[][TOKEN_LEN], int max)
{
    int n = 0;

    while (*s && n < max) {
        size_t len = 0;
        while (*s && !is_alnum(*s))
            s++;
        if (!*s)
            break;
        while (is_alnum(*s)) {
            if (len + 1 < TOKEN_LEN)
                tok[n][len++] = (*s >= 'a' && *s <= 'z') ? (char)(*s - 'a' + 'A') : *s;
            s++;
        }
        tok[n++][len] = '\0';
    }
    return n;
}

/* A non-empty string of characters from lo to hi. */
static bool all_in(const char *s, char lo, char hi)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < lo || *s > hi)
            return false;
    return true;
}

static bool all_digits(const char *s) { return all_in(s, '0', '9'); }
static bool all_letters(const char *s) { return all_in(s, 'A', 'Z'); }

/* Leading decimal digits (at most 4) as a number, and how many there were. */
static size_t lead_number(const char *s, int *value)
{
    size_t k = 0;
    int v = 0;

    while (s[k] >= '0' && s[k] <= '9' && k < 4)
        v = v * 10 + (s[k++] - '0');
    if (k)
        *value = v;
    return k;
}

/* Leading upper-case letters. */
static size_t lead_letters(const char *s)
{
    size_t k = 0;

    while (s[k] >= 'A' && s[k] <= 'Z')
        k++;
    return k;
}

/* Strings firmware writes into a locator it did not fill in. */
static bool placeholder(const char *s)
{
    static const char *const words[] = { "NO DIMM", "NOT SPECIFIED", "N/A", "NA", "NONE", "UNKNOWN",
                                         "TO BE FILLED BY O.E.M.", "DEFAULT STRING", "NULL", "-" };

    for (size_t k = 0; k < ARRAY_SIZE(words); k++)
        if (!bm_strcasecmp(s, words[k]))
            return true;
    return false;
}

bool dimm_locator_is_placeholder(const char *s)
{
    return !s || !*s || placeholder(s);
}

/* If tok is PREFIX followed by digits (or PREFIX alone and next is all
 * digits), return the digits and how many tokens it used (1 or 2). */
static int prefixed_number(const char *prefix, char tok[][TOKEN_LEN], int i, int n, const char **digits)
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

/* A socket token: CPU1, P0, PROC 1, SOCKET 0, SKT1, and HP's memory
 * "Board 1". Returns tokens used. */
static int socket_token(char tok[][TOKEN_LEN], int i, int n, char *out, size_t cap)
{
    static const char *const prefixes[] = { "CPU", "PROC", "SOCKET", "SKT", "BOARD", "P" };
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

/* What one locator string names. */
struct loc_parts {
    char socket[12], node[8], controller[8], channel[12];
    int slot;
    bool digit_letter; /* "DIMM 2A", "DIMM-1A", "DIMM1A": maybe HPE's load-order letter */
    int digit;         /* the number of that form */
};

static void set_channel(struct loc_parts *p, const char *ch, size_t len)
{
    if (!p->channel[0] && len && len < sizeof(p->channel))
        snprintf(p->channel, sizeof(p->channel), "%.*s", (int)len, ch);
}

/* "A1" (channel A, slot 1), "A" (channel A), "1" (slot 1), "000". */
static bool letters_digits(const char *s, struct loc_parts *p)
{
    size_t nl = lead_letters(s);
    int v = -1;
    size_t nd = lead_number(s + nl, &v);

    if (nl > 2 || s[nl + nd] != '\0' || nl + nd == 0)
        return false;
    set_channel(p, s, nl);
    if (nd)
        p->slot = v;
    return true;
}

/* "1A": Supermicro X8 fused form, digit = channel, letter = slot (A = 0). */
static bool digit_channel_letter_slot(const char *s, struct loc_parts *p)
{
    int v;
    size_t nd = lead_number(s, &v);

    if (!nd || nd > 2 || !(s[nd] >= 'A' && s[nd] <= 'Z') || s[nd + 1] != '\0')
        return false;
    set_channel(p, s, nd);
    p->slot = s[nd] - 'A';
    p->digit_letter = true;
    p->digit = v;
    return true;
}

/* "C0D1": Inspur/Intel channel 0, DIMM 1. */
static bool c_d_form(const char *s, struct loc_parts *p)
{
    int ch = -1, slot = -1;
    size_t a, b;

    if (s[0] != 'C' || !(a = lead_number(s + 1, &ch)) || s[1 + a] != 'D' || !(b = lead_number(s + 2 + a, &slot)) ||
        s[2 + a + b] != '\0')
        return false;
    set_channel(p, s + 1, a);
    p->slot = slot;
    return true;
}

/* The token(s) after "DIMM"/"SODIMM" (rest = what followed in the same token). */
static int dimm_token(const char *rest, char tok[][TOKEN_LEN], int i, int n, struct loc_parts *p)
{
    int used = 0, v;

    /* "DIMM_P0_A0": a socket may sit between DIMM and its suffix (but
     * "DIMM_P0" alone is channel P, slot 0). */
    if (!*rest && i < n && !p->socket[0]) {
        char sock[12];
        int s = socket_token(tok, i, n, sock, sizeof(sock));
        if (s && i + s < n) {
            bm_strlcpy(p->socket, sock, sizeof(p->socket));
            i += s;
            used += s;
        }
    }
    if (*rest) {
        /* Fused: "DIMMA1", "DIMM1A" (X8: digit = channel), "DIMM000". */
        if (!letters_digits(rest, p))
            digit_channel_letter_slot(rest, p);
        return used;
    }
    if (i >= n)
        return used;
    if (letters_digits(tok[i], p))
        return used + 1;
    /* Separate "DIMM 2A" (HPE: digit = slot, letter = load order) or
     * "DIMM-1A" (Fujitsu: letter = channel): the summary tells them apart. */
    if (lead_number(tok[i], &v) && lead_letters(tok[i] + lead_number(tok[i], &v)) == 1 &&
        tok[i][lead_number(tok[i], &v) + 1] == '\0') {
        size_t nd = lead_number(tok[i], &v);
        set_channel(p, tok[i] + nd, 1);
        p->slot = v;
        p->digit_letter = true;
        p->digit = v;
        return used + 1;
    }
    /* Fujitsu "DIMM CHA3". */
    if (!strncmp(tok[i], "CH", 2) && letters_digits(tok[i] + 2, p))
        return used + 1;
    return used;
}

/* "CHANNEL0", "CHANNEL A", "CHAN A", "CH_A0", "CHA", "ChA". */
static int channel_token(char tok[][TOKEN_LEN], int i, int n, struct loc_parts *p)
{
    static const char *const prefixes[] = { "CHANNEL", "CHAN", "CH" };
    const char *rest = NULL;

    for (size_t k = 0; k < ARRAY_SIZE(prefixes) && !rest; k++)
        if (!strncmp(tok[i], prefixes[k], strlen(prefixes[k])))
            rest = tok[i] + strlen(prefixes[k]);
    if (!rest)
        return 0;
    if (!*rest && i + 1 < n) {
        const char *next = tok[i + 1];
        if (all_digits(next) || (all_letters(next) && strlen(next) <= 2)) {
            set_channel(p, next, strlen(next)); /* "CHANNEL 2", "CHAN A" */
            return 2;
        }
        if (letters_digits(next, p)) /* "CH_A0" */
            return 2;
    }
    if (*rest && (all_digits(rest) || (all_letters(rest) && strlen(rest) <= 2) || letters_digits(rest, p))) {
        set_channel(p, rest, all_digits(rest) || all_letters(rest) ? strlen(rest) : lead_letters(rest));
        return 1;
    }
    return 0;
}

/* One token at tok[i]; returns how many it used (at least 1). */
static int parse_token(char tok[][TOKEN_LEN], int i, int n, struct loc_parts *p)
{
    const char *digits;
    int used;

    if (!p->socket[0] && (used = socket_token(tok, i, n, p->socket, sizeof(p->socket))))
        return used;
    if ((used = prefixed_number("NODE", tok, i, n, &digits))) {
        snprintf(p->node, sizeof(p->node), "%s", digits);
        return used;
    }
    if ((used = prefixed_number("CONTROLLER", tok, i, n, &digits)) ||
        (used = prefixed_number("MC", tok, i, n, &digits))) {
        snprintf(p->controller, sizeof(p->controller), "%s", digits);
        return used;
    }
    if ((used = prefixed_number("BANK", tok, i, n, &digits)))
        return used; /* "BANK 0": a rank/bank number, not a channel */
    if ((used = channel_token(tok, i, n, p)))
        return used;
    if (!strncmp(tok[i], "DIMM", 4))
        return 1 + dimm_token(tok[i] + 4, tok, i + 1, n, p);
    if (!strncmp(tok[i], "SODIMM", 6))
        return 1 + dimm_token(tok[i] + 6, tok, i + 1, n, p);
    /* "DDR4_A1", "DDR5-A1": the memory generation, then channel and slot. */
    if (!strncmp(tok[i], "DDR", 3) && all_digits(tok[i] + 3) && i + 1 < n && letters_digits(tok[i + 1], p))
        return 2;
    if (c_d_form(tok[i], p))
        return 1;
    /* Supermicro X8 "P1-1A", "P1_1A": after the socket, digit = channel. */
    if (p->socket[0] && i > 0 && !p->channel[0] && digit_channel_letter_slot(tok[i], p))
        return 1;
    /* A bare "A1" (Dell): a letter group and a slot. */
    if (i == 0 && n == 1 && lead_letters(tok[i]) == 1 && letters_digits(tok[i], p))
        return 1;
    return 1;
}

/* Socket, node, controller, channel and slot named in one locator string. */
static void parse_one(const char *s, struct loc_parts *p)
{
    char tok[MAX_TOKENS][TOKEN_LEN];
    int n;

    memset(p, 0, sizeof(*p));
    p->slot = -1;
    if (dimm_locator_is_placeholder(s))
        return;
    n = tokenize(s, tok, MAX_TOKENS);
    for (int i = 0; i < n;)
        i += parse_token(tok, i, n, p);
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
    pos->digit_letter = chan_src->digit_letter;
    pos->digit = chan_src->digit;

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
