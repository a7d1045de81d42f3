/* PRP construction (NVMe 1.4 section 4.3) at every dword alignment and at
 * every size up to the largest transfer the driver offers. Each result is
 * walked the way a controller reads it, and must cover exactly the buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"

#define PAGE 4096u
#define LIST_PHYS 0x7ff000ull            /* where the PRP list "lives" */
#define BUF_BASE 0x40000000ull
#define MAX_LIST (NVME_MAX_TRANSFER_BYTES / PAGE)

static uint64_t list[4096 / 8 * 2];

/* Read the PRPs as a controller would; fail the test on any rule broken. */
static void walk_prp(const struct nvme_prp *p, uint64_t buf, uint32_t len, uint32_t page, uint64_t list_phys)
{
    uint64_t expect = buf, rest = len, first = page - (p->prp1 % page), n;

    assert_int_equal(p->prp1, buf);
    assert_int_equal(p->prp1 & 3, 0);
    n = MIN(first, rest);
    expect += n;
    rest -= n;
    if (rest == 0) {
        assert_int_equal(p->prp2, 0);
        assert_int_equal(p->list_entries, 0);
        return;
    }
    if (rest <= page) {
        /* PRP2 is a data page: page aligned, continuing the buffer. */
        assert_int_equal(p->list_entries, 0);
        assert_int_equal(p->prp2 % page, 0);
        assert_int_equal(p->prp2, expect);
        return;
    }
    /* PRP2 is the list; entries are page aligned and cover the rest. */
    assert_int_equal(p->prp2, list_phys);
    assert_true(p->list_entries >= 1);
    assert_true((list_phys % page) + (uint64_t)p->list_entries * 8 <= page); /* no chaining needed */
    for (uint32_t i = 0; i < p->list_entries; i++) {
        assert_true(rest > 0);
        assert_int_equal(list[i] % page, 0);
        assert_int_equal(list[i], expect);
        n = MIN((uint64_t)page, rest);
        expect += n;
        rest -= n;
    }
    assert_int_equal(rest, 0); /* no unused entries, no bytes left out */
    assert_int_equal(expect, buf + len);
}

static void check(uint64_t buf, uint32_t len, uint32_t page, uint32_t list_cap)
{
    struct nvme_prp p;
    int rc;

    memset(list, 0xa5, sizeof(list));
    rc = nvme_prp_build(buf, len, page, list, LIST_PHYS, list_cap, &p);
    if (rc != BM_OK)
        fail_msg("buf %#llx len %u page %u: rc %d", (unsigned long long)buf, len, page, rc);
    walk_prp(&p, buf, len, page, LIST_PHYS);
}

/* Every dword offset in a page, at lengths around each page boundary. */
static void test_every_alignment(void **state)
{
    (void)state;
    for (uint32_t off = 0; off < PAGE; off += 4) {
        uint32_t to_end = PAGE - off;
        uint32_t lens[] = { 4, 512, to_end, to_end + 4, PAGE, PAGE + 4, to_end + PAGE, to_end + PAGE + 4,
                            3 * PAGE, 64 * 1024, 128 * 1024 + 512, NVME_MAX_TRANSFER_BYTES - PAGE,
                            NVME_MAX_TRANSFER_BYTES };
        for (size_t i = 0; i < ARRAY_SIZE(lens); i++)
            check(BUF_BASE + off, lens[i], PAGE, MAX_LIST);
    }
}

/* Every 512-byte multiple up to the largest transfer, at sector offsets. */
static void test_every_size_up_to_max_transfer(void **state)
{
    (void)state;
    for (uint32_t off = 0; off < PAGE; off += 512)
        for (uint32_t len = 512; len <= NVME_MAX_TRANSFER_BYTES; len += 512)
            check(BUF_BASE + off, len, PAGE, MAX_LIST);
}

/* Larger memory pages follow the same rules. */
static void test_8k_pages(void **state)
{
    (void)state;
    for (uint32_t off = 0; off < 8192; off += 508)
        for (uint32_t len = 4; len <= 40 * 8192; len += 4092)
            check(BUF_BASE + (off & ~3u), len, 8192, 512);
}

/* A transfer of exactly one page at offset 0 needs no PRP2; two pages at
 * offset 0 need PRP2 as a page pointer; three need a two-entry list. */
static void test_list_only_beyond_two_pages(void **state)
{
    struct nvme_prp p;

    (void)state;
    assert_int_equal(nvme_prp_build(BUF_BASE, PAGE, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_OK);
    assert_int_equal(p.prp2, 0);
    assert_int_equal(nvme_prp_build(BUF_BASE, 2 * PAGE, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_OK);
    assert_int_equal(p.prp2, BUF_BASE + PAGE);
    assert_int_equal(p.list_entries, 0);
    assert_int_equal(nvme_prp_build(BUF_BASE, 3 * PAGE, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_OK);
    assert_int_equal(p.prp2, LIST_PHYS);
    assert_int_equal(p.list_entries, 2);
    /* Unaligned two-page transfer touches three pages: a list of two. */
    assert_int_equal(nvme_prp_build(BUF_BASE + 4, 2 * PAGE, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_OK);
    assert_int_equal(p.list_entries, 2);
}

/* A full 4 KiB list (512 entries) holds a 2 MiB transfer at any offset
 * without chaining: its last entry is a data page. */
static void test_full_list_page_without_chaining(void **state)
{
    struct nvme_prp p;

    (void)state;
    assert_int_equal(nvme_prp_build(BUF_BASE + 8, NVME_MAX_TRANSFER_BYTES, PAGE, list, LIST_PHYS, 512, &p), BM_OK);
    assert_int_equal(p.list_entries, 512);
    assert_int_equal(list[511], BUF_BASE + 512ull * PAGE);
}

static void test_rejects_bad_arguments(void **state)
{
    struct nvme_prp p;

    (void)state;
    assert_int_equal(nvme_prp_build(BUF_BASE, 0, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    assert_int_equal(nvme_prp_build(BUF_BASE + 1, 512, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    assert_int_equal(nvme_prp_build(BUF_BASE + 2, 512, PAGE, list, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    assert_int_equal(nvme_prp_build(BUF_BASE, 512, 2048, list, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    assert_int_equal(nvme_prp_build(BUF_BASE, 512, 6144, list, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    /* A list is needed but none given, or it is not qword aligned. */
    assert_int_equal(nvme_prp_build(BUF_BASE, 3 * PAGE, PAGE, NULL, LIST_PHYS, MAX_LIST, &p), BM_EINVAL);
    assert_int_equal(nvme_prp_build(BUF_BASE, 3 * PAGE, PAGE, list, LIST_PHYS + 4, MAX_LIST, &p), BM_EINVAL);
}

static void test_list_too_small_or_crossing_a_page(void **state)
{
    struct nvme_prp p;

    (void)state;
    /* 32 entries hold 33 pages at offset 0 (PRP1 + 32)... */
    assert_int_equal(nvme_prp_build(BUF_BASE, 33 * PAGE, PAGE, list, LIST_PHYS, 32, &p), BM_OK);
    /* ...but not 34, nor 33 pages starting mid-page. */
    assert_int_equal(nvme_prp_build(BUF_BASE, 34 * PAGE, PAGE, list, LIST_PHYS, 32, &p), BM_ENOSPC);
    assert_int_equal(nvme_prp_build(BUF_BASE + 512, 33 * PAGE, PAGE, list, LIST_PHYS, 32, &p), BM_ENOSPC);
    /* A list placed 8 bytes before a page end would need chaining. */
    assert_int_equal(nvme_prp_build(BUF_BASE, 4 * PAGE, PAGE, list, LIST_PHYS + PAGE - 8, MAX_LIST, &p),
                     BM_ENOSPC);
}

/* What the probe computes always fits: the largest transfer, at the worst
 * offset, in one tag's list. */
static void test_io_limits_fit_their_lists(void **state)
{
    static const unsigned qds[] = { 1, 31, 32, 255, 1023, 1024 };

    (void)state;
    for (unsigned mdts = 0; mdts <= 12; mdts++)
        for (unsigned nq = 1; nq <= 16; nq++)
            for (size_t k = 0; k < ARRAY_SIZE(qds); k++) {
                struct nvme_io_limits lim;
                uint64_t cap = nvme_mdts_bytes((uint8_t)mdts, 0);

                nvme_io_limits((uint8_t)mdts, 0, nq, qds[k], &lim);
                assert_true(lim.list_bytes >= NVME_PRP_LIST_MIN_BYTES && lim.list_bytes <= PAGE);
                assert_int_equal(lim.list_bytes & (lim.list_bytes - 1), 0);
                assert_true((uint64_t)nq * qds[k] * lim.list_bytes <= NVME_PRP_BUDGET_BYTES);
                assert_true(lim.max_transfer_bytes >= PAGE);
                assert_int_equal(lim.max_transfer_bytes % PAGE, 0);
                assert_true(lim.max_transfer_bytes <= NVME_MAX_TRANSFER_BYTES);
                if (cap)
                    assert_true(lim.max_transfer_bytes <= cap);
                check(BUF_BASE + PAGE - 4, lim.max_transfer_bytes, PAGE, lim.list_bytes / 8);
            }
}

/* QEMU's default controller (MDTS 7, MQES 2047) with 16 queues of 1024. */
static void test_io_limits_qemu_default(void **state)
{
    struct nvme_io_limits lim;

    (void)state;
    nvme_io_limits(7, 0, 16, 1024, &lim);
    assert_int_equal(lim.max_transfer_bytes, 512 * 1024);
    assert_int_equal(lim.list_bytes, 1024);
    /* No MDTS limit, one shallow queue: a whole page, 2 MiB commands. */
    nvme_io_limits(0, 0, 1, 32, &lim);
    assert_int_equal(lim.list_bytes, 4096);
    assert_int_equal(lim.max_transfer_bytes, NVME_MAX_TRANSFER_BYTES);
    /* MDTS in units of CAP.MPSMIN pages. */
    assert_int_equal(nvme_mdts_bytes(7, 0), 512 * 1024);
    assert_int_equal(nvme_mdts_bytes(5, 1), 256 * 1024);
    assert_int_equal(nvme_mdts_bytes(0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_alignment),
        cmocka_unit_test(test_every_size_up_to_max_transfer),
        cmocka_unit_test(test_8k_pages),
        cmocka_unit_test(test_list_only_beyond_two_pages),
        cmocka_unit_test(test_full_list_page_without_chaining),
        cmocka_unit_test(test_rejects_bad_arguments),
        cmocka_unit_test(test_list_too_small_or_crossing_a_page),
        cmocka_unit_test(test_io_limits_fit_their_lists),
        cmocka_unit_test(test_io_limits_qemu_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
