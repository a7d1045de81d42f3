/* SPD against SMBIOS: matching and warnings. The warnings go into the
 * dimm_summary record next to the SMBIOS-only ones (inventory.c calls
 * this after dimm_summarize). */
#include "spd_match.h"

/* Same serial, ignoring case and leading zeros ("0012AB34" = "12ab34"). */
static bool serial_eq(const char *a, const char *b)
{
    while (*a == '0')
        a++;
    while (*b == '0')
        b++;
    if (!*a || !*b)
        return false;
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'a' && *a <= 'z') ? (char)(*a - 32) : *a;
        char y = (*b >= 'a' && *b <= 'z') ? (char)(*b - 32) : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

void spd_match_dimms(struct spd_dimm *s, unsigned ns, const struct dimm *d, unsigned nd)
{
    bool taken[64] = { false };
    unsigned populated = 0, unmatched = 0;

    for (unsigned i = 0; i < ns; i++) {
        s[i].dimm_index = -1;
        s[i].match = NULL;
    }
    for (unsigned k = 0; k < nd; k++)
        populated += dimm_populated(&d[k]);
    for (unsigned i = 0; i < ns; i++)
        for (unsigned k = 0; k < nd && k < ARRAY_SIZE(taken); k++)
            if (!taken[k] && dimm_populated(&d[k]) && serial_eq(s[i].info.serial, d[k].serial)) {
                taken[k] = true;
                s[i].dimm_index = (int)k;
                s[i].match = "serial";
                break;
            }
    for (unsigned i = 0; i < ns; i++)
        unmatched += s[i].dimm_index < 0;
    /* By order only when SPD and SMBIOS see the same number of DIMMs. */
    if (ns != populated || !unmatched)
        return;
    for (unsigned i = 0, k = 0; i < ns; i++) {
        if (s[i].dimm_index >= 0)
            continue;
        while (k < nd && (k >= ARRAY_SIZE(taken) || taken[k] || !dimm_populated(&d[k])))
            k++;
        if (k >= nd)
            break;
        taken[k] = true;
        s[i].dimm_index = (int)k;
        s[i].match = "order";
    }
}

/* Rated speeds agree: equal within 2 %, or the firmware gave MHz (half). */
static bool speed_agrees(uint32_t smbios, uint32_t spd)
{
    if (!smbios || !spd)
        return true;
    if (smbios * 100 >= spd * 98 && smbios * 100 <= spd * 102)
        return true;
    return smbios * 200 >= spd * 98 && smbios * 200 <= spd * 102;
}

unsigned spd_disagreement(const struct spd_dimm *s, const struct dimm *d, char *out, size_t cap)
{
    unsigned bits = 0;

    if (s->dimm_index >= 0) {
        const struct dimm *m = &d[s->dimm_index];
        if (s->info.size_mb && !m->size_unknown && m->size_mb != s->info.size_mb)
            bits |= SPD_DISAGREE_SIZE;
        if (!speed_agrees(m->speed_mts, s->info.speed_mts))
            bits |= SPD_DISAGREE_SPEED;
    }
    if (cap)
        snprintf(out, cap, "%s%s%s", bits & SPD_DISAGREE_SIZE ? "size" : "",
                 bits == (SPD_DISAGREE_SIZE | SPD_DISAGREE_SPEED) ? ", " : "", bits & SPD_DISAGREE_SPEED ? "speed" : "");
    return bits;
}

/* Size and speed of each matched pair. */
static void warn_disagreements(const struct spd_dimm *s, unsigned ns, const struct dimm *d,
                               struct dimm_summary *sum)
{
    for (unsigned i = 0; i < ns; i++) {
        const struct dimm *m;
        unsigned bits = spd_disagreement(&s[i], d, NULL, 0);
        if (s[i].dimm_index < 0)
            continue;
        m = &d[s[i].dimm_index];
        if (bits & SPD_DISAGREE_SIZE)
            dimm_summary_warn(sum,
                              "SPD and SMBIOS disagree on size: %s is %u MB in SMBIOS, %llu MB in its SPD (0x%02x)",
                              m->locator, (unsigned)m->size_mb, (unsigned long long)s[i].info.size_mb, s[i].addr);
        if (bits & SPD_DISAGREE_SPEED)
            dimm_summary_warn(sum,
                              "SPD and SMBIOS disagree on speed: %s is rated %u MT/s in SMBIOS, %u MT/s in its SPD "
                              "(0x%02x)", m->locator, (unsigned)m->speed_mts, (unsigned)s[i].info.speed_mts, s[i].addr);
    }
}

/* "3200 CL22-22-22" */
static void timing_text(const struct spd_info *in, char *buf, size_t cap)
{
    snprintf(buf, cap, "%u CL%u-%u-%u", (unsigned)in->speed_mts, in->cl, in->trcd, in->trp);
}

/* DIMMs whose SPD timings differ run at the slowest common setting. */
static void warn_mixed_timings(const struct spd_dimm *s, unsigned ns, struct dimm_summary *sum)
{
    char kinds[4][32], text[DIMM_WARNING_LEN];
    unsigned count[4] = { 0 }, nk = 0;
    size_t n = 0;

    for (unsigned i = 0; i < ns; i++) {
        char t[32];
        unsigned k;
        timing_text(&s[i].info, t, sizeof(t));
        for (k = 0; k < nk && strcmp(kinds[k], t); k++)
            ;
        if (k == nk && nk < ARRAY_SIZE(kinds))
            bm_strlcpy(kinds[nk++], t, sizeof(kinds[0]));
        if (k < nk)
            count[k]++;
    }
    if (nk < 2)
        return;
    text[0] = '\0';
    for (unsigned k = 0; k < nk && n < sizeof(text); k++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s (%u)", k ? ", " : "", kinds[k], count[k]);
    dimm_summary_warn(sum, "mixed SPD timings: %s", text);
}

void spd_match_warnings(const struct spd_dimm *s, unsigned ns, const struct dimm *d, unsigned nd,
                        struct dimm_summary *sum)
{
    unsigned populated = 0;

    for (unsigned k = 0; k < nd; k++)
        populated += dimm_populated(&d[k]);
    warn_disagreements(s, ns, d, sum);
    /* Fewer SPD DIMMs than SMBIOS slots is normal (server SPD buses sit
     * behind muxes or on the CPU); more means SMBIOS left some out. */
    if (ns > populated)
        dimm_summary_warn(sum, "SMBIOS omits DIMMs: SPD finds %u DIMM%s on the SMBus, SMBIOS lists %u populated slot%s",
                          ns, ns == 1 ? "" : "s", populated, populated == 1 ? "" : "s");
    warn_mixed_timings(s, ns, sum);
}
