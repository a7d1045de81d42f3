/* DIMM population summary on synthetic SMBIOS data: balanced, unbalanced
 * and mixed populations, and the locator formats boards use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inventory/dimm.h"

static struct dimm_summary sum;

static struct dimm make(const char *loc, const char *bank, uint32_t mb, uint32_t rated, uint32_t conf, uint8_t ranks)
{
    struct dimm d;
    memset(&d, 0, sizeof(d));
    bm_strlcpy(d.locator, loc, sizeof(d.locator));
    bm_strlcpy(d.bank, bank, sizeof(d.bank));
    d.size_mb = mb;
    d.speed_mts = rated;
    d.configured_mts = conf;
    d.ranks = ranks;
    bm_strlcpy(d.mem_type, "DDR4", sizeof(d.mem_type));
    return d;
}

/* The warning that starts with prefix, or NULL. */
static const char *warning(const char *prefix)
{
    for (unsigned i = 0; i < sum.nwarnings; i++)
        if (!strncmp(sum.warnings[i], prefix, strlen(prefix)))
            return sum.warnings[i];
    return NULL;
}

static const struct dimm_channel *channel(const char *name)
{
    for (unsigned i = 0; i < sum.nchannels; i++)
        if (!strcmp(sum.channels[i].name, name))
            return &sum.channels[i];
    fail_msg("no channel %s", name);
    return NULL;
}

/* ---- Locators ---------------------------------------------------------------------- */

struct loc_case {
    const char *locator, *bank;
    bool found;
    const char *socket, *group, *channel;
    int slot;
};

static void test_locator_formats(void **state)
{
    static const struct loc_case cases[] = {
        { "DIMM_A1", "", true, "", "", "A", 1 },
        { "DIMM_B2", "BANK 1", true, "", "", "B", 2 },        /* "BANK n" is not a channel */
        { "CPU1_DIMM_A1", "", true, "CPU1", "", "A", 1 },
        { "CPU2_DIMM_F2", "", true, "CPU2", "", "F", 2 },
        { "P1-DIMMA1", "P0_Node0_Channel0_Dimm0", true, "P1", "", "A", 1 }, /* Supermicro */
        { "P2-DIMMH1", "", true, "P2", "", "H", 1 },
        { "ChannelA-DIMM0", "BANK 0", true, "", "", "A", 0 },  /* desktop boards */
        { "ChannelB-DIMM1", "BANK 3", true, "", "", "B", 1 },
        { "Controller1-ChannelA-DIMM0", "BANK 0", true, "", "C1", "A", 0 },
        { "DIMM 0", "P0 CHANNEL A", true, "P0", "", "A", 0 }, /* AMD boards: channel in the bank */
        { "DIMM 1", "P0 CHANNEL B", true, "P0", "", "B", 1 },
        { "DIMM_A1", "NODE 1", true, "NODE1", "", "A", 1 },  /* Intel server boards */
        { "DIMM_P0_A0", "", true, "P0", "", "A", 0 },
        { "DIMMA1", "", true, "", "", "A", 1 },
        { "DIMM_P0", "", true, "", "", "P", 0 },              /* channel P, not socket P0 */
        { "DIMM 0", "", false, "", "", "", 0 },                /* QEMU: slot only */
        { "DIMM0", "", false, "", "", "", 0 },
        { "DIMM 3", "BANK 3", false, "", "", "", 3 },
        { "A1", "", true, "", "", "A", 1 },                   /* Dell: a letter group, see test_dell_* */
        { "PROC 1 DIMM 4", "", false, "PROC1", "", "", 4 },   /* HPE */
        { "", "", false, "", "", "", -1 },
        /* Real strings from linuxhw/DMI server dumps, one per convention. */
        { "DIMM_B12", "Not Specified", true, "", "", "B", 12 }, /* Dell R620/R720: letter = socket */
        { "DIMM5_CPU0", "Not Specified", false, "CPU0", "", "", 5 }, /* Dell C6220 */
        { "PROC  1 DIMM  1", "Not Specified", false, "PROC1", "", "", 1 }, /* HP Gen8 */
        { "PROC 1 DIMM 2A", "Not Specified", true, "PROC1", "", "A", 2 }, /* HP G6/G7: A = load order */
        { "CPU0-DIMM1", "CPU0", false, "CPU0", "", "", 1 },   /* HP SL */
        { "Board 1, DIMM 1A", "Not Specified", true, "BOARD1", "", "A", 1 }, /* HP DL580 G7 */
        { "P1_DIMM1A", "BANK1", true, "P1", "", "1", 0 },     /* Supermicro/DEPO X8: digit = channel */
        { "P1-DIMM2B", "BANK1", true, "P1", "", "2", 1 },
        { "P1-1A", "BANK0", true, "P1", "", "1", 0 },
        { "P2_3B", "1", true, "P2", "", "3", 1 },
        { "DIMM1A", "BANK0", true, "", "", "1", 0 },
        { "P1-DIMMA1", "NO DIMM", true, "P1", "", "A", 1 },   /* "NO DIMM" bank on an empty slot */
        { "NO DIMM", "NO DIMM", false, "", "", "", -1 },
        { "DIMM 1", "CPU 1", false, "CPU1", "", "", 1 },      /* Lenovo */
        { "Dimm 3", "CPU 2", false, "CPU2", "", "", 3 },
        { "CPU1_DIMM_3", "NODE 1", false, "CPU1", "N1", "", 3 }, /* Lenovo ThinkSystem */
        { "DIMM-2C", "n/a", true, "", "", "C", 2 },           /* Fujitsu: letter = channel */
        { "DIMM CHA3", "", true, "", "", "A", 3 },
        { "CPU0_C1D0", "NODE 0", true, "CPU0", "", "1", 0 },  /* Inspur */
        { "DDR4_A1", "BANK 0", true, "", "", "A", 1 },
        { "DDR5-B2", "", true, "", "", "B", 2 },
        { "CH_A0", "BANK0", true, "", "", "A", 0 },           /* TYAN */
        { "P0-ChF-DIMM1", "BANK1", true, "P0", "", "F", 1 },
        { "DIMM 1", "CHAN A", true, "", "", "A", 1 },         /* "CHAN A" is channel A, not "AN" */
        { "DIMM000 J27", "SOCKET 0 CHANNEL 2 DIMM 0", true, "SOCKET0", "", "2", 0 }, /* Huawei */
        { "DIMM010", "_Node0_Channel1_Dimm0", true, "NODE0", "", "1", 10 },
        { "DIMM_A1", "NODE 0 CHANNEL 0 DIMM 0", true, "NODE0", "", "A", 1 }, /* Intel S2600 */
        { "ChannelC_Dimm2", "ChannelC", true, "", "", "C", 2 }, /* ETegro */
        { "DIMM_P1_H1", "P1_Node1_Channel3_Dimm0", true, "P1", "", "H", 1 }, /* Gigabyte */
        { "D11", "/SYS/MB/P0", true, "P0", "", "D", 11 },     /* Oracle: summary falls back */
    };

    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        const struct loc_case *c = &cases[i];
        struct dimm_slot_pos pos;
        bool found = dimm_locator_parse(c->locator, c->bank, &pos);
        if (found != c->found || strcmp(pos.socket, c->socket) || strcmp(pos.group, c->group) ||
            strcmp(pos.channel, c->channel) || pos.slot != c->slot)
            fail_msg("\"%s\" / \"%s\": got found=%d socket=%s group=%s channel=%s slot=%d", c->locator, c->bank,
                     found, pos.socket, pos.group, pos.channel, pos.slot);
    }
}

/* ---- Summaries ---------------------------------------------------------------------- */

/* Two sockets, four channels each, one identical DIMM per channel. */
static void test_balanced_population_has_no_warnings(void **state)
{
    struct dimm d[16];
    unsigned n = 0;

    (void)state;
    for (int sock = 1; sock <= 2; sock++)
        for (char ch = 'A'; ch <= 'D'; ch++)
            for (int slot = 1; slot <= 2; slot++) {
                char loc[32];
                snprintf(loc, sizeof(loc), "CPU%d_DIMM_%c%d", sock, ch, slot);
                d[n++] = slot == 1 ? make(loc, "", 32768, 3200, 3200, 2) : make(loc, "", 0, 0, 0, 0);
            }
    dimm_summarize(d, n, &sum);
    assert_int_equal(sum.slots, 16);
    assert_int_equal(sum.populated, 8);
    assert_int_equal(sum.total_mb, 8 * 32768);
    assert_true(sum.channels_known);
    assert_int_equal(sum.nchannels, 8);
    assert_int_equal(channel("CPU1/A")->slots, 2);
    assert_int_equal(channel("CPU1/A")->populated, 1);
    assert_int_equal(channel("CPU2/D")->size_mb, 32768);
    assert_int_equal(sum.nwarnings, 0);
}

/* Three DIMMs on a two-channel desktop board: A has two, B one. */
static void test_unbalanced_channels_warn(void **state)
{
    struct dimm d[4] = {
        make("ChannelA-DIMM0", "BANK 0", 8192, 3200, 3200, 1),
        make("ChannelA-DIMM1", "BANK 1", 8192, 3200, 3200, 1),
        make("ChannelB-DIMM0", "BANK 2", 8192, 3200, 3200, 1),
        make("ChannelB-DIMM1", "BANK 3", 0, 0, 0, 0),
    };
    const char *w;

    (void)state;
    dimm_summarize(d, 4, &sum);
    assert_int_equal(sum.populated, 3);
    assert_int_equal(channel("A")->populated, 2);
    assert_int_equal(channel("B")->populated, 1);
    w = warning("unbalanced channels");
    assert_non_null(w);
    assert_non_null(strstr(w, "A has 2 DIMMs"));
    assert_non_null(strstr(w, "B has 1"));
    assert_int_equal(sum.nwarnings, 1);
}

/* One DIMM in a two-channel board runs single-channel. */
static void test_single_dimm_on_two_channels_is_unbalanced(void **state)
{
    struct dimm d[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_B1", "", 0, 0, 0, 0) };

    (void)state;
    dimm_summarize(d, 2, &sum);
    assert_non_null(warning("unbalanced channels"));
}

/* Same count per channel but different capacity: only part of memory
 * interleaves over both channels. */
static void test_equal_counts_unequal_capacity_is_unbalanced(void **state)
{
    struct dimm d[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_B1", "", 8192, 3200, 3200, 2) };
    const char *w;

    (void)state;
    dimm_summarize(d, 2, &sum);
    w = warning("unbalanced channels");
    assert_non_null(w);
    assert_non_null(strstr(w, "16384 MB"));
    assert_non_null(warning("mixed sizes"));
}

static void test_mixed_sizes_speeds_ranks_each_warn(void **state)
{
    struct dimm sizes[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_A2", "", 8192, 3200, 3200, 2) };
    struct dimm speeds[2] = { make("DIMM_A1", "", 16384, 3200, 2933, 2), make("DIMM_B1", "", 16384, 2933, 2933, 2) };
    struct dimm ranks[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_B1", "", 16384, 3200, 3200, 1) };

    (void)state;
    dimm_summarize(sizes, 2, &sum);
    assert_non_null(strstr(warning("mixed sizes"), "1 x 16384 MB, 1 x 8192 MB"));
    assert_null(warning("mixed rated speeds"));
    assert_null(warning("mixed ranks"));

    dimm_summarize(speeds, 2, &sum);
    assert_non_null(strstr(warning("mixed rated speeds"), "1 x 3200 MT/s, 1 x 2933 MT/s"));
    assert_null(warning("mixed sizes"));
    assert_null(warning("unbalanced"));

    dimm_summarize(ranks, 2, &sum);
    assert_non_null(strstr(warning("mixed ranks"), "1 x 2R, 1 x 1R"));
    assert_int_equal(sum.nwarnings, 1);
}

static void test_configured_below_rated_warns(void **state)
{
    struct dimm d[2] = { make("DIMM_A1", "", 16384, 3200, 2400, 2), make("DIMM_B1", "", 16384, 3200, 2400, 2) };
    struct dimm fine[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_B1", "", 16384, 0, 2400, 2) };
    const char *w;

    (void)state;
    dimm_summarize(d, 2, &sum);
    w = warning("configured speed below rated");
    assert_non_null(w);
    assert_non_null(strstr(w, "2 DIMMs"));
    assert_non_null(strstr(w, "DIMM_A1 runs at 2400 of 3200 MT/s"));
    assert_int_equal(sum.nwarnings, 1);

    /* An unknown rated speed (0) is not "below". */
    dimm_summarize(fine, 2, &sum);
    assert_int_equal(sum.nwarnings, 0);
}

/* QEMU's "DIMM 0", "DIMM 1": counts still right, channels unknown. */
static void test_locators_without_channels(void **state)
{
    struct dimm d[2] = { make("DIMM 0", "", 16384, 0, 0, 0), make("DIMM 1", "", 4096, 0, 0, 0) };

    (void)state;
    dimm_summarize(d, 2, &sum);
    assert_int_equal(sum.slots, 2);
    assert_int_equal(sum.populated, 2);
    assert_int_equal(sum.total_mb, 20480);
    assert_false(sum.channels_known);
    assert_int_equal(sum.nchannels, 0);
    assert_non_null(strstr(sum.channels_note, "DIMM 0"));
    assert_null(warning("unbalanced"));
    assert_non_null(warning("mixed sizes"));
}

static void test_unknown_size_counts_as_populated(void **state)
{
    struct dimm d[2] = { make("DIMM_A1", "", 16384, 3200, 3200, 2), make("DIMM_B1", "", 0, 3200, 3200, 2) };

    (void)state;
    d[1].size_unknown = true;
    dimm_summarize(d, 2, &sum);
    assert_int_equal(sum.populated, 2);
    assert_int_equal(sum.total_mb, 16384);
    assert_non_null(warning("1 populated slot reports an unknown size"));
}

static void test_no_memory_devices(void **state)
{
    (void)state;
    dimm_summarize(NULL, 0, &sum);
    assert_int_equal(sum.slots, 0);
    assert_int_equal(sum.populated, 0);
    assert_false(sum.channels_known);
    assert_non_null(strstr(sum.channels_note, "no memory devices"));
    assert_int_equal(sum.nwarnings, 0);
}

/* Warnings are capped, never overflow their array. */
static void test_many_problems_stay_bounded(void **state)
{
    static struct dimm d[40];

    (void)state;
    for (unsigned i = 0; i < ARRAY_SIZE(d); i++) {
        char loc[32];
        snprintf(loc, sizeof(loc), "DIMM_%c%u", 'A' + (i % 20), i / 20);
        d[i] = make(loc, "", 1024u * (i + 1), 2000 + 100 * (i % 5), 1800, (uint8_t)(1 + i % 4));
        if (i % 3 == 0)
            d[i].size_unknown = true;
    }
    dimm_summarize(d, ARRAY_SIZE(d), &sum);
    assert_true(sum.nwarnings <= DIMM_MAX_WARNINGS);
    assert_int_equal(sum.nchannels, 20);
    for (unsigned i = 0; i < sum.nwarnings; i++)
        assert_true(strlen(sum.warnings[i]) < DIMM_WARNING_LEN);
}

/* ---- Real server layouts (linuxhw/DMI dumps) ------------------------------------ */

static unsigned fill(struct dimm *d, const char *const *locs, const char *bank, uint32_t mb, const char *populated)
{
    unsigned n = 0;

    for (; locs[n]; n++)
        d[n] = make(locs[n], bank, populated[n] == '1' ? mb : 0, 1333, 1333, 2);
    return n;
}

/* Dell R720: DIMM_A1..A12 on CPU1, B1..B12 on CPU2. The letter is the
 * socket: twelve slots in "channel A" is no channel. No unbalanced warning
 * for A1-A8 + B1-B8. */
static void test_dell_letter_is_the_socket(void **state)
{
    struct dimm d[24];
    struct dimm_cpus cpus = { 2, 2 };

    (void)state;
    for (unsigned i = 0; i < 24; i++) {
        char loc[16];
        snprintf(loc, sizeof(loc), "DIMM_%c%u", i < 12 ? 'A' : 'B', i % 12 + 1);
        d[i] = make(loc, "Not Specified", i % 12 < 8 ? 16384 : 0, 1600, 1600, 2);
    }
    dimm_summarize_cpus(d, 24, &cpus, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_SOCKET);
    assert_false(sum.channels_known);
    assert_int_equal(sum.nchannels, 2);
    assert_int_equal(channel("A")->slots, 12);
    assert_int_equal(channel("B")->populated, 8);
    assert_int_equal(sum.nwarnings, 0);
}

/* HP DL380 G7: PROC n DIMM 1..9 with load-order letters, CPU2 empty. */
static void test_hpe_proc_dimm_load_order(void **state)
{
    static const char *const locs[] = { "PROC 1 DIMM 1D", "PROC 1 DIMM 2A", "PROC 1 DIMM 3E", "PROC 1 DIMM 4B",
                                        "PROC 1 DIMM 5F", "PROC 1 DIMM 6C", "PROC 1 DIMM 7I", "PROC 1 DIMM 8H",
                                        "PROC 1 DIMM 9G", "PROC 2 DIMM 1D", "PROC 2 DIMM 2A", "PROC 2 DIMM 3E",
                                        NULL };
    struct dimm d[16];
    struct dimm_cpus cpus = { 2, 1 };
    unsigned n = fill(d, locs, "Not Specified", 8192, "010101000000");

    (void)state;
    dimm_summarize_cpus(d, n, &cpus, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_SOCKET);
    assert_int_equal(channel("PROC1")->slots, 9);
    assert_int_equal(channel("PROC1")->populated, 3);
    assert_int_equal(channel("PROC2")->populated, 0);
    assert_null(warning("unbalanced"));
    assert_null(warning("sockets differ"));
}

/* Fujitsu RX300 S6: DIMM-1A..3F, the digit repeats: the letter is the channel. */
static void test_fujitsu_letter_is_the_channel(void **state)
{
    struct dimm d[18];
    unsigned n = 0;

    (void)state;
    for (char ch = 'A'; ch <= 'F'; ch++)
        for (int slot = 1; slot <= 3; slot++) {
            char loc[16];
            snprintf(loc, sizeof(loc), "DIMM-%d%c", slot, ch);
            d[n++] = make(loc, "n/a", slot == 1 ? 8192 : 0, 1333, 1333, 2);
        }
    dimm_summarize(d, n, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_CHANNEL);
    assert_int_equal(sum.nchannels, 6);
    assert_int_equal(channel("C")->slots, 3);
    assert_int_equal(sum.nwarnings, 0);
}

/* Supermicro X8DTi: the BIOS flash as a type 17 entry and "NO DIMM"
 * placeholders; P1_DIMM1A..3B, digit = channel. CPU2's channels are empty
 * (type 4: socket not populated): no unbalanced warning. */
static void test_supermicro_x8_rom_and_placeholders(void **state)
{
    static const char *const locs[] = { "P1_DIMM1A", "P1_DIMM1B", "P1_DIMM2A", "P1_DIMM2B", "P1_DIMM3A",
                                        "P1_DIMM3B", "P2_DIMM1A", "P2_DIMM1B", "P2_DIMM2A", "P2_DIMM2B",
                                        "P2_DIMM3A", "P2_DIMM3B", "NO DIMM", "NO DIMM", NULL };
    struct dimm d[16];
    struct dimm_cpus cpus = { 2, 1 };
    unsigned n = fill(d, locs, "BANK0", 4096, "10101000000000");

    (void)state;
    d[n] = make("BIOS", "ROM0", 4, 33, 0, 0);
    d[n].type_code = 0x09; /* Flash */
    n++;
    dimm_summarize_cpus(d, n, &cpus, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_CHANNEL);
    assert_int_equal(sum.rom_entries, 1);
    assert_int_equal(sum.unnamed_slots, 2);
    assert_int_equal(sum.slots, 14);
    assert_int_equal(sum.populated, 3);
    assert_int_equal(sum.total_mb, 3 * 4096);
    assert_int_equal(sum.nchannels, 6);
    assert_int_equal(channel("P1/2")->slots, 2);
    assert_int_equal(channel("P1/2")->populated, 1);
    assert_int_equal(sum.nwarnings, 0);
}

/* Lenovo "DIMM n" + bank "CPU n": socket level, sockets compared apart. */
static void test_lenovo_socket_level_sockets_differ(void **state)
{
    struct dimm d[8];

    (void)state;
    for (unsigned i = 0; i < 8; i++) {
        char loc[16], bank[8];
        snprintf(loc, sizeof(loc), "DIMM %u", i + 1);
        snprintf(bank, sizeof(bank), "CPU %u", i / 4 + 1);
        d[i] = make(loc, bank, i < 4 || i == 4 ? 16384 : 0, 2666, 2666, 2);
    }
    dimm_summarize(d, 8, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_SOCKET);
    assert_null(warning("unbalanced"));
    assert_non_null(strstr(warning("sockets differ"), "CPU1 holds 65536 MB, CPU2 holds 16384 MB"));
}

/* Two sockets each balanced inside but with different channel counts:
 * no "unbalanced channels", only the sockets' difference. */
static void test_per_socket_balance(void **state)
{
    static const char *const locs[] = { "CPU1_DIMM_A1", "CPU1_DIMM_B1", "CPU1_DIMM_C1", "CPU1_DIMM_D1",
                                        "CPU2_DIMM_A1", "CPU2_DIMM_B1", "CPU2_DIMM_C1", "CPU2_DIMM_D1", NULL };
    struct dimm d[8];
    unsigned n = fill(d, locs, "", 8192, "11111111");

    (void)state;
    d[4].size_mb = d[5].size_mb = d[6].size_mb = d[7].size_mb = 16384;
    dimm_summarize(d, n, &sum);
    assert_null(warning("unbalanced"));
    assert_non_null(warning("sockets differ"));
    d[7].size_mb = 0; /* now CPU2 is unbalanced */
    dimm_summarize(d, n, &sum);
    assert_non_null(strstr(warning("unbalanced channels"), "CPU2/A has 1 DIMM, CPU2/D has 0"));
}

/* Dell CS24-TY: "DIMM A0".."F2" in banks "CHANNEL A".."F", two CPUs,
 * A-C with two DIMMs, D-F with one. The channels name no socket: the first
 * three belong to CPU1, so each socket is balanced and only the sockets
 * differ. */
static void test_unnamed_sockets_inferred_from_channel_order(void **state)
{
    struct dimm d[18];
    struct dimm_cpus cpus = { 2, 2 };
    unsigned n = 0;

    (void)state;
    for (char ch = 'A'; ch <= 'F'; ch++)
        for (int slot = 0; slot < 3; slot++) {
            char loc[16], bank[16];
            snprintf(loc, sizeof(loc), "DIMM %c%d", ch, slot);
            snprintf(bank, sizeof(bank), "CHANNEL %c", ch);
            d[n++] = make(loc, bank, slot < (ch <= 'C' ? 2 : 1) ? 4096 : 0, 1066, 1066, 2);
        }
    dimm_summarize_cpus(d, n, &cpus, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_CHANNEL);
    assert_string_equal(channel("C")->socket, "CPU1?");
    assert_string_equal(channel("D")->socket, "CPU2?");
    assert_null(warning("unbalanced"));
    assert_non_null(strstr(warning("sockets differ"), "CPU1? holds 24576 MB, CPU2? holds 12288 MB"));
    /* Without type 4 nothing is inferred: A-C against D-F is unbalanced. */
    dimm_summarize(d, n, &sum);
    assert_non_null(warning("unbalanced channels"));
}

/* HP DL120 G6: fused "DIMM3A", "DIMM6B" with every number once: load-order
 * letters, not Supermicro X8 channels; one socket from type 4. */
static void test_hp_fused_load_order_is_socket_level(void **state)
{
    static const char *const locs[] = { "DIMM3A", "DIMM2C", "DIMM1E", "DIMM6B", "DIMM5D", "DIMM4F", NULL };
    struct dimm d[6];
    struct dimm_cpus cpus = { 1, 1 };
    unsigned n = fill(d, locs, "Not Specified", 2048, "100100");

    (void)state;
    dimm_summarize_cpus(d, n, &cpus, &sum);
    assert_int_equal(sum.grouping, DIMM_GROUP_SOCKET);
    assert_int_equal(sum.nchannels, 1);
    assert_int_equal(channel("CPU")->slots, 6);
    assert_null(warning("unbalanced"));
}

/* SMBIOS < 3.1 "Configured Memory Clock Speed" of 800 on a DDR3-1600
 * DIMM (HP DL380 G7) is the clock, not a slow DIMM; under 3.1+ it is. */
static void test_configured_clock_in_mhz_is_not_slow(void **state)
{
    struct dimm d[2] = { make("DIMM_A1", "", 8192, 1600, 800, 2), make("DIMM_B1", "", 8192, 1600, 800, 2) };

    (void)state;
    d[0].configured_may_be_clock = d[1].configured_may_be_clock = true;
    dimm_summarize(d, 2, &sum);
    assert_null(warning("configured speed below rated"));
    d[0].configured_mts = d[1].configured_mts = 1333; /* really below */
    dimm_summarize(d, 2, &sum);
    assert_non_null(warning("configured speed below rated"));
    d[0].configured_mts = d[1].configured_mts = 800;
    d[0].configured_may_be_clock = d[1].configured_may_be_clock = false;
    dimm_summarize(d, 2, &sum);
    assert_non_null(warning("configured speed below rated"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locator_formats),
        cmocka_unit_test(test_balanced_population_has_no_warnings),
        cmocka_unit_test(test_unbalanced_channels_warn),
        cmocka_unit_test(test_single_dimm_on_two_channels_is_unbalanced),
        cmocka_unit_test(test_equal_counts_unequal_capacity_is_unbalanced),
        cmocka_unit_test(test_mixed_sizes_speeds_ranks_each_warn),
        cmocka_unit_test(test_configured_below_rated_warns),
        cmocka_unit_test(test_locators_without_channels),
        cmocka_unit_test(test_unknown_size_counts_as_populated),
        cmocka_unit_test(test_no_memory_devices),
        cmocka_unit_test(test_many_problems_stay_bounded),
        cmocka_unit_test(test_dell_letter_is_the_socket),
        cmocka_unit_test(test_hpe_proc_dimm_load_order),
        cmocka_unit_test(test_fujitsu_letter_is_the_channel),
        cmocka_unit_test(test_supermicro_x8_rom_and_placeholders),
        cmocka_unit_test(test_lenovo_socket_level_sockets_differ),
        cmocka_unit_test(test_per_socket_balance),
        cmocka_unit_test(test_configured_clock_in_mhz_is_not_slow),
        cmocka_unit_test(test_unnamed_sockets_inferred_from_channel_order),
        cmocka_unit_test(test_hp_fused_load_order_is_socket_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
