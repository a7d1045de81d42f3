/* Namespace selection (drivers/nvme/nvme_ns.c): which namespaces of a
 * controller become disks, which are skipped and why, the 32-namespace
 * limit, the disk list's room and the granted queue pairs, and the probe's
 * note about the ones left out. Pure: Identify Namespace data in,
 * decisions out; no controller. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/nvme/nvme_regs.h"

static uint8_t id[4096];
static uint32_t nslist[NVME_NS_LIST_MAX];
static struct nvme_ns_select sel;

static void put32(size_t off, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        id[off + i] = (uint8_t)(v >> (8 * i));
}

static void put64(size_t off, uint64_t v)
{
    put32(off, (uint32_t)v);
    put32(off + 4, (uint32_t)(v >> 32));
}

/* Identify Namespace data: nsze blocks (0: inactive), 512-byte blocks
 * with ms bytes of metadata. */
static const uint8_t *ns_data(uint64_t nsze, unsigned ms)
{
    memset(id, 0, sizeof(id));
    put64(NVME_IDNS_NSZE, nsze);
    put64(NVME_IDNS_NCAP, nsze);
    id[NVME_IDNS_NLBAF] = 0;
    id[NVME_IDNS_FLBAS] = 0;
    put32(NVME_IDNS_LBAF, ms | (9u << 16));
    return id;
}

static void list_of(unsigned n)
{
    memset(nslist, 0, sizeof(nslist));
    for (unsigned i = 0; i < n; i++)
        nslist[i] = i + 1;
}

/* Offer every NSID the selection asks for: blocks(nsid) blocks (0:
 * inactive), metadata on the NSIDs in meta (bit nsid - 1). Returns how
 * many were asked. */
static unsigned offer_all(uint64_t (*blocks)(uint32_t), uint64_t meta)
{
    unsigned asked = 0;
    uint32_t nsid;

    while ((nsid = nvme_ns_select_next(&sel)) != 0) {
        asked++;
        nvme_ns_select_offer(&sel, ns_data(blocks(nsid), nsid <= 64 && (meta >> (nsid - 1)) & 1 ? 8 : 0), 0);
    }
    return asked;
}

static uint64_t same_size(uint32_t nsid) { (void)nsid; return 1u << 20; }
static uint64_t size_by_nsid(uint32_t nsid) { return 1000 + nsid; }

static void test_three_listed_namespaces_are_all_taken_without_a_note(void **state)
{
    unsigned dropped;
    char err[160] = "x", note[200];

    (void)state;
    list_of(3);
    nvme_ns_select_begin(&sel, nslist, 3);
    assert_int_equal(offer_all(same_size, 0), 3);
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(dropped, 0);
    assert_int_equal(sel.nused, 3);
    assert_int_equal(sel.ids[2], 3);
    assert_int_equal(sel.infos[0].lba_bytes, 512);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "");
}

static void test_list_beyond_32_is_not_asked_and_named_in_the_note(void **state)
{
    unsigned dropped;
    char err[160], note[200];

    (void)state;
    list_of(40);
    nvme_ns_select_begin(&sel, nslist, 40);
    assert_int_equal(offer_all(same_size, 0), NVME_MAX_NS_PER_CTRL);
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(sel.nused, 32);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "32 of 40 namespaces used: baremark takes at most 32 namespaces per controller");
}

static void test_scan_counts_all_but_keeps_the_data_of_the_32_it_takes(void **state)
{
    unsigned dropped;
    char err[160], note[200];

    (void)state;
    nvme_ns_select_begin(&sel, NULL, 40);
    assert_int_equal(offer_all(size_by_nsid, 0), 40);
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(sel.nused, 32);
    for (unsigned i = 0; i < 32; i++) {
        assert_int_equal(sel.ids[i], i + 1);
        assert_int_equal(sel.infos[i].blocks, size_by_nsid(i + 1)); /* not a later namespace's */
    }
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "32 of 40 namespaces used: baremark takes at most 32 namespaces per controller");
}

static uint64_t odd_inactive(uint32_t nsid) { return nsid % 2 ? 0 : 4096; }

static void test_scan_ignores_inactive_and_refused_nsids(void **state)
{
    unsigned dropped;
    char err[160], note[200];
    uint32_t nsid;

    (void)state;
    nvme_ns_select_begin(&sel, NULL, 6);
    while ((nsid = nvme_ns_select_next(&sel)) != 0) {
        if (nsid == 6)
            assert_int_equal(nvme_ns_select_offer(&sel, NULL, 0), NVME_NS_INACTIVE); /* refused with a status */
        else
            nvme_ns_select_offer(&sel, ns_data(odd_inactive(nsid), 0), 0);
    }
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(sel.nused, 2);
    assert_int_equal(sel.ids[0], 2);
    assert_int_equal(sel.ids[1], 4);
    assert_int_equal(sel.looked, 2);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "");
}

static void test_scan_stops_at_1024_nsids(void **state)
{
    (void)state;
    nvme_ns_select_begin(&sel, NULL, 100000);
    assert_int_equal(sel.ncand, NVME_SCAN_MAX_NSID);
}

static void test_empty_namespace_in_the_list_is_skipped_with_its_reason(void **state)
{
    (void)state;
    list_of(1);
    nvme_ns_select_begin(&sel, nslist, 1);
    assert_int_equal(nvme_ns_select_next(&sel), 1);
    assert_int_equal(nvme_ns_select_offer(&sel, ns_data(0, 0), 0), NVME_NS_SKIPPED);
    assert_string_equal(sel.why, "size 0 (inactive)");
}

static void test_skip_reason_survives_a_usable_namespace_after_it(void **state)
{
    unsigned dropped;
    char err[160], note[200];

    (void)state;
    list_of(2);
    nvme_ns_select_begin(&sel, nslist, 2);
    offer_all(same_size, 1u << 0); /* namespace 1: metadata */
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(sel.nused, 1);
    assert_int_equal(sel.ids[0], 2);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "namespace 1 skipped: formatted with 8 bytes of metadata per block (separate buffer)");
}

static void test_no_usable_namespace_names_the_last_reason(void **state)
{
    unsigned dropped;
    char err[160];

    (void)state;
    list_of(2);
    nvme_ns_select_begin(&sel, nslist, 2);
    offer_all(same_size, 3);
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_ENODEV);
    assert_string_equal(err, "no usable namespace (2 active; namespace 2: formatted with 8 bytes of metadata per "
                             "block (separate buffer))");
}

static void test_full_disk_list_keeps_what_fits_and_counts_the_rest(void **state)
{
    unsigned dropped;
    char err[160], note[200];

    (void)state;
    list_of(3);
    nvme_ns_select_begin(&sel, nslist, 3);
    offer_all(same_size, 0);
    assert_int_equal(nvme_ns_select_fit(&sel, 2, &dropped, err, sizeof(err)), BM_OK);
    assert_int_equal(dropped, 1);
    assert_int_equal(sel.nused, 2);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "2 of 3 namespaces used: the disk list is full (64 disks)");

    nvme_ns_select_begin(&sel, nslist, 3);
    offer_all(same_size, 0);
    assert_int_equal(nvme_ns_select_fit(&sel, 0, &dropped, err, sizeof(err)), BM_ENOSPC);
    assert_int_equal(dropped, 3);
    assert_string_equal(err, "3 namespaces left out: the disk list is full (64 disks)");
}

static void test_granted_queue_pairs_limit_the_namespaces(void **state)
{
    unsigned dropped;
    char err[160], note[200];

    (void)state;
    list_of(6);
    nvme_ns_select_begin(&sel, nslist, 6);
    offer_all(same_size, 1u << 5); /* namespace 6: metadata */
    assert_int_equal(nvme_ns_select_fit(&sel, 64, &dropped, err, sizeof(err)), BM_OK);
    nvme_ns_select_granted(&sel, 8);
    assert_int_equal(sel.nused, 5);
    nvme_ns_select_granted(&sel, 4);
    assert_int_equal(sel.nused, 4);
    nvme_ns_select_note(&sel, note, sizeof(note));
    assert_string_equal(note, "4 of 6 namespaces used: the controller granted only 4 I/O queue pairs; namespace 6 "
                              "skipped: formatted with 8 bytes of metadata per block (separate buffer)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_listed_namespaces_are_all_taken_without_a_note),
        cmocka_unit_test(test_list_beyond_32_is_not_asked_and_named_in_the_note),
        cmocka_unit_test(test_scan_counts_all_but_keeps_the_data_of_the_32_it_takes),
        cmocka_unit_test(test_scan_ignores_inactive_and_refused_nsids),
        cmocka_unit_test(test_scan_stops_at_1024_nsids),
        cmocka_unit_test(test_empty_namespace_in_the_list_is_skipped_with_its_reason),
        cmocka_unit_test(test_skip_reason_survives_a_usable_namespace_after_it),
        cmocka_unit_test(test_no_usable_namespace_names_the_last_reason),
        cmocka_unit_test(test_full_disk_list_keeps_what_fits_and_counts_the_rest),
        cmocka_unit_test(test_granted_queue_pairs_limit_the_namespaces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
