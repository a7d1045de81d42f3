/* The DIMM summary on 2,049 real servers: the memory population of every
 * dmidecode dump under Server/ of the public linuxhw/DMI collection
 * (tests/unit/data/dmi_servers.txt.gz, made by
 * tests/tools/extract_dmi_servers.py), run through dimm_locator_parse()
 * and dimm_summarize_cpus().
 *
 * "Right" for one machine (no one has checked 2,049 boards by hand; the
 * `sample` below and the per-vendor cases in test_dimm_summary.c are the
 * hand-checked part):
 *   channel grouping: every socket has no more channels than its memory
 *     generation has per CPU (DDR2/FB-DIMM/DDR3 4, DDR4 8, DDR5 12; channels
 *     whose socket is not named count against all type 4 sockets), no
 *     channel holds more than 3 slots (4 for DDR2/FB-DIMM), and there are
 *     no more sockets than SMBIOS type 4 lists;
 *   socket grouping (honestly "socket", the locators name no channel): no
 *     more groups than type 4 lists sockets (at least 1);
 *   no grouping at all: not right.
 * A machine whose firmware lists no DRAM (empty type 17) is not counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "inventory/dimm.h"
#include "inventory/smbios.h"

#define FIXTURE "tests/unit/data/dmi_servers.txt.gz"
#define MAX_MACHINES 2100

struct machine {
    char path[160];
    int smbios_major, smbios_minor;
    unsigned n;
    struct dimm dimms[SMBIOS_MAX_DIMMS];
    struct dimm_cpus cpus;
};

struct tally {
    char vendor[32];
    unsigned machines, channel_right, socket_right, wrong, none, unbalanced;
};

static struct tally tallies[160];
static unsigned ntallies;
static struct tally total = { "all" };
static unsigned sample_seen;

/* Split a tab-separated line in place. */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;

    line[strcspn(line, "\n")] = '\0';
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

/* dmidecode's name of a memory type back to its SMBIOS code. */
static uint8_t type_code(const char *name)
{
    for (unsigned c = 1; c < 0x40; c++)
        if (!strcmp(smbios_memory_type_name((uint8_t)c), name))
            return (uint8_t)c;
    return 0x02; /* Unknown, "<OUT OF SPEC>" */
}

/* One "D" line into the machine's next slot. */
static void add_dimm(struct machine *m, char **f, int nf)
{
    struct dimm *d;
    long size;

    if (nf < 11 || m->n >= SMBIOS_MAX_DIMMS)
        return;
    d = &m->dimms[m->n++];
    memset(d, 0, sizeof(*d));
    bm_strlcpy(d->locator, f[1], sizeof(d->locator));
    bm_strlcpy(d->bank, f[2], sizeof(d->bank));
    size = strtol(f[3], NULL, 10);
    d->size_mb = size > 0 ? (uint32_t)size : 0;
    d->size_unknown = size < 0;
    d->type_code = type_code(f[4]);
    bm_strlcpy(d->mem_type, f[4], sizeof(d->mem_type));
    d->speed_mts = (uint32_t)strtoul(f[5], NULL, 10);
    d->configured_mts = (uint32_t)strtoul(f[6], NULL, 10);
    /* As smbios.c decides: the field's meaning comes from the table's version. */
    d->configured_may_be_clock = m->smbios_major < 3 || (m->smbios_major == 3 && m->smbios_minor < 1);
    bm_strlcpy(d->manufacturer, f[8], sizeof(d->manufacturer));
    d->ranks = (uint8_t)strtoul(f[10], NULL, 10);
}

/* Most channels per CPU socket of a memory generation. */
static unsigned max_channels(const struct machine *m)
{
    unsigned most = 4;

    for (unsigned i = 0; i < m->n; i++) {
        if (!strcmp(m->dimms[i].mem_type, "DDR4") && most < 8)
            most = 8;
        if (!strcmp(m->dimms[i].mem_type, "DDR5") || !strcmp(m->dimms[i].mem_type, "<OUT OF SPEC>"))
            most = 12;
    }
    return most;
}

static bool old_generation(const struct machine *m)
{
    for (unsigned i = 0; i < m->n; i++)
        if (!strncmp(m->dimms[i].mem_type, "DDR2", 4))
            return true;
    return false;
}

/* Distinct sockets named by the groups. */
static unsigned count_sockets(const struct dimm_summary *s)
{
    unsigned n = 0;

    for (unsigned c = 0; c < s->nchannels; c++) {
        bool first = true;
        for (unsigned k = 0; k < c; k++)
            first &= strcmp(s->channels[k].socket, s->channels[c].socket) != 0;
        n += first;
    }
    return n;
}

/* Is the summary of this machine plausible (see the top of the file)? */
static bool channels_right(const struct machine *m, const struct dimm_summary *s)
{
    unsigned sockets = count_sockets(s), most_slots = old_generation(m) ? 4 : 3;

    if (m->cpus.sockets && sockets > m->cpus.sockets)
        return false;
    if (s->grouping == DIMM_GROUP_SOCKET)
        return true;
    for (unsigned c = 0; c < s->nchannels; c++) {
        unsigned in_socket = 0;
        if (s->channels[c].slots > most_slots)
            return false;
        for (unsigned k = 0; k < s->nchannels; k++)
            in_socket += !strcmp(s->channels[k].socket, s->channels[c].socket);
        /* Channels whose socket is not named may belong to any CPU. */
        if (in_socket > max_channels(m) * (s->channels[c].socket[0] || !m->cpus.sockets ? 1 : m->cpus.sockets))
            return false;
    }
    return true;
}

static struct tally *tally_of(const char *path)
{
    char vendor[32];

    snprintf(vendor, sizeof(vendor), "%.*s", (int)strcspn(path, "/"), path);
    for (unsigned i = 0; i < ntallies; i++)
        if (!strcmp(tallies[i].vendor, vendor))
            return &tallies[i];
    if (ntallies == ARRAY_SIZE(tallies))
        return &tallies[ntallies - 1];
    bm_strlcpy(tallies[ntallies].vendor, vendor, sizeof(tallies[ntallies].vendor));
    return &tallies[ntallies++];
}

/* The hand-checked sample: real machines whose dumps were read by a
 * person against the vendor's slot layout (see the notes per line). */
struct expectation {
    const char *path;
    enum dimm_grouping grouping;
    unsigned groups;
    const char *first, *first_socket;
    unsigned first_slots;
    bool unbalanced;
};

static const struct expectation sample[] = {
    /* R720: DIMM_A1..A12 = CPU1, B1..B12 = CPU2 (4 channels x 3 per CPU). */
    { "Dell/PowerEdge/PowerEdge R720/13A7060552FC", DIMM_GROUP_SOCKET, 2, "A", "A", 12, false },
    /* DL380 G7: PROC n DIMM 1..9 with load-order letters, 9 per CPU. */
    { "Hewlett-Packard/ProLiant/ProLiant DL380 G7/26B8678D8D7B", DIMM_GROUP_SOCKET, 2, "PROC1", "PROC1", 9,
      false },
    /* SR650: DIMM 1..24, bank CPU 1/CPU 2. */
    { "Lenovo/ThinkSystem/ThinkSystem SR650 -[7X06CTO1WW]-/447F1CAA9701", DIMM_GROUP_SOCKET, 2, "CPU1", "CPU1",
      12, false },
    /* NF5280M6 (Ice Lake): CPUn_CxDy, 8 channels x 2 per CPU, one DIMM each. */
    { "Inspur/NF5280/NF5280M6/48E15DC00C22", DIMM_GROUP_CHANNEL, 16, "CPU0/0", "CPU0", 2, false },
    /* S2600WT (Haswell): DIMM_A1..H3, bank NODE n: 4 channels x 3 per CPU;
     * one DIMM in each of CPU1's, CPU2's empty. */
    { "DALCO/S2600/S2600WTTR/F200B7AE62EB", DIMM_GROUP_CHANNEL, 8, "NODE1/A", "NODE1", 3, false },
    /* CS24-TY: DIMM A0..F2 in CHANNEL A..F, 3 channels per CPU: A-C hold
     * two DIMMs, D-F one; each CPU balanced, the CPUs differ. */
    { "Dell/CS24/CS24-TY/77C94ADE7569", DIMM_GROUP_CHANNEL, 6, "A", "CPU1?", 3, false },
    /* X8DAH: P1_DIMM1A..3C, digit = channel (3 per CPU, 3 slots each); two
     * DIMMs in channel 1 only: really unbalanced. */
    { "DEPO Computers/X8/X8DAH/6FED46D0B032", DIMM_GROUP_CHANNEL, 6, "P1/1", "P1", 3, true },
    /* ROMED8-2T (EPYC): DIMM 0 in bank "P0 CHANNEL A".."H", one per channel. */
    { "ASRockRack/ROMED8/ROMED8-2T/3BC6540442E7", DIMM_GROUP_CHANNEL, 8, "P0/A", "P0", 1, false },
};

/* A machine of the sample matches what a person read in its dump. */
static void check_sample(const struct machine *m, const struct dimm_summary *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(sample); i++) {
        const struct expectation *e = &sample[i];
        bool unbalanced = false;
        if (strcmp(m->path, e->path))
            continue;
        for (unsigned w = 0; w < s->nwarnings; w++)
            unbalanced |= !strncmp(s->warnings[w], "unbalanced", 10);
        if (s->grouping != e->grouping || s->nchannels != e->groups || strcmp(s->channels[0].name, e->first) ||
            strcmp(s->channels[0].socket, e->first_socket) || s->channels[0].slots != e->first_slots ||
            unbalanced != e->unbalanced)
            fail_msg("%s: got %s, %u groups, first %s (socket %s, %u slots), unbalanced %d", m->path,
                     dimm_grouping_name(s->grouping), s->nchannels, s->nchannels ? s->channels[0].name : "-",
                     s->nchannels ? s->channels[0].socket : "-", s->nchannels ? s->channels[0].slots : 0,
                     unbalanced);
        sample_seen++;
    }
}

/* Summarize one machine and count the outcome. */
static void judge(const struct machine *m)
{
    static struct dimm_summary s;
    struct tally *t = tally_of(m->path);
    unsigned dram = 0;

    for (unsigned i = 0; i < m->n; i++)
        dram += !dimm_is_rom(&m->dimms[i]);
    if (!dram)
        return;
    dimm_summarize_cpus(m->dimms, m->n, &m->cpus, &s);
    for (unsigned w = 0; w < s.nwarnings; w++)
        if (!strncmp(s.warnings[w], "unbalanced", 10)) {
            t->unbalanced++, total.unbalanced++;
            if (getenv("DIMM_REAL_VERBOSE"))
                printf("warn   %s: %s\n", m->path, s.warnings[w]);
            break;
        }
    check_sample(m, &s);
    /* Socket-level grouping never judges channels. */
    for (unsigned w = 0; w < s.nwarnings && s.grouping == DIMM_GROUP_SOCKET; w++)
        assert_false(!strncmp(s.warnings[w], "unbalanced", 10));
    t->machines++, total.machines++;
    if (getenv("DIMM_REAL_SHOW") && strstr(m->path, getenv("DIMM_REAL_SHOW"))) {
        printf("show   %s: %s, %u groups:", m->path, dimm_grouping_name(s.grouping), s.nchannels);
        for (unsigned c = 0; c < s.nchannels; c++)
            printf(" %s[%s]=%u/%u", s.channels[c].name, s.channels[c].socket, s.channels[c].populated,
                   s.channels[c].slots);
        for (unsigned w = 0; w < s.nwarnings; w++)
            printf("\n         warning: %s", s.warnings[w]);
        printf("\n");
    }
    if (s.grouping == DIMM_GROUP_NONE) {
        t->none++, total.none++;
        if (getenv("DIMM_REAL_VERBOSE"))
            printf("none   %s: %s\n", m->path, s.channels_note);
    } else if (!channels_right(m, &s)) {
        t->wrong++, total.wrong++;
        if (getenv("DIMM_REAL_VERBOSE"))
            printf("wrong  %s: %s %u groups, first %s (%u slots)\n", m->path, dimm_grouping_name(s.grouping),
                   s.nchannels, s.channels[0].name, s.channels[0].slots);
    } else if (s.grouping == DIMM_GROUP_CHANNEL) {
        t->channel_right++, total.channel_right++;
    } else {
        t->socket_right++, total.socket_right++;
    }
}

/* Read the fixture, judging each machine as its last line arrives. */
static void run_fixture(void)
{
    static struct machine m;
    static char line[1024];
    FILE *in = popen("gzip -dc " FIXTURE, "r");
    bool have = false;

    assert_non_null(in);
    while (fgets(line, sizeof(line), in)) {
        char *f[12];
        int nf = split_tabs(line, f, 12);
        if (!strcmp(f[0], "M") && nf >= 3) {
            if (have)
                judge(&m);
            memset(&m, 0, sizeof(m));
            bm_strlcpy(m.path, f[1], sizeof(m.path));
            sscanf(f[2], "%d.%d", &m.smbios_major, &m.smbios_minor);
            have = true;
        } else if (!strcmp(f[0], "P") && nf >= 3 && have) {
            m.cpus.sockets++;
            m.cpus.populated += f[2][0] == '1';
        } else if (!strcmp(f[0], "D") && have) {
            add_dimm(&m, f, nf);
        }
    }
    if (have)
        judge(&m);
    assert_int_equal(pclose(in), 0);
}

static void print_tally(const struct tally *t)
{
    printf("  %-22s %5u  channel %5.1f%%  socket %5.1f%%  right %5.1f%%  wrong %4u  none %4u  unbalanced %4u\n",
           t->vendor, t->machines, 100.0 * t->channel_right / t->machines, 100.0 * t->socket_right / t->machines,
           100.0 * (t->channel_right + t->socket_right) / t->machines, t->wrong, t->none, t->unbalanced);
}

/* The target: right (by channel, or honestly by socket) on at
 * least 90 % of the servers. */
static void test_real_servers_grouped_right(void **state)
{
    (void)state;
    run_fixture();
    assert_true(total.machines > 1900);
    for (unsigned i = 0; i < ntallies; i++)
        if (tallies[i].machines >= 10)
            print_tally(&tallies[i]);
    print_tally(&total);
    assert_true((total.channel_right + total.socket_right) * 100 >= total.machines * 90);
    assert_int_equal(sample_seen, ARRAY_SIZE(sample));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_servers_grouped_right),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
