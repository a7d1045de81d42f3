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
        { "A1", "", false, "", "", "", -1 },                  /* Dell: the letter is the socket */
        { "PROC 1 DIMM 4", "", false, "PROC1", "", "", 4 },   /* HPE */
        { "", "", false, "", "", "", -1 },
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
