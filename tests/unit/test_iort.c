/* The IORT root complex coherency check against test-built tables
 * (Arm DEN 0049E: node header, root complex node with its memory access
 * properties and PCI segment), as QEMU virt's build_iort() lays them out:
 * an ITS group node first, then the root complex. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "iort.h"

static uint8_t tbl[256];
static char why[200];

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ITS group (24 bytes) then one root complex node (56 bytes with one ID
 * mapping) for segment seg with CCA cca; returns the table's length. */
static uint32_t iort(uint32_t seg, uint32_t cca)
{
    uint32_t off = 48, len;

    memset(tbl, 0, sizeof(tbl));
    memcpy(tbl, "IORT", 4);
    tbl[8] = 3;
    put32(tbl + IORT_OFF_NODE_COUNT, 2);
    put32(tbl + IORT_OFF_NODE_ARRAY, off);
    tbl[off] = 0;                    /* ITS group */
    put16(tbl + off + 1, 24);
    put32(tbl + off + 16, 1);        /* one ITS */
    off += 24;
    tbl[off] = IORT_NODE_PCI_ROOT_COMPLEX;
    put16(tbl + off + 1, 56);
    put32(tbl + off + 8, 1);         /* one ID mapping */
    put32(tbl + off + 12, 36);
    put32(tbl + off + IORT_RC_OFF_CCA, cca);
    put32(tbl + off + IORT_RC_OFF_SEGMENT, seg);
    len = off + 56;
    put32(tbl + 4, len);
    return len;
}

static void test_coherent_root_complex(void **state)
{
    (void)state;
    assert_int_equal(iort_pci_coherent(tbl, iort(0, 1), 0, why, sizeof(why)), BM_OK);
    assert_non_null(strstr(why, "CCA 1"));
}

static void test_non_coherent_root_complex_refused(void **state)
{
    (void)state;
    assert_int_equal(iort_pci_coherent(tbl, iort(0, 0), 0, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "not cache-coherent"));
}

static void test_other_segment_has_no_node(void **state)
{
    (void)state;
    assert_int_equal(iort_pci_coherent(tbl, iort(1, 0), 0, why, sizeof(why)), BM_ENODEV);
    assert_int_equal(iort_pci_coherent(tbl, iort(1, 0), 1, why, sizeof(why)), BM_ENOTSUP);
}

/* A node running past the table, a zero-length node (an endless walk), a
 * node array before the header's end, a foreign table: refused, and no
 * byte past the table is read. */
static void test_malformed_tables_refused(void **state)
{
    uint32_t len;
    (void)state;
    len = iort(0, 1);
    put16(tbl + 72 + 1, 200);
    assert_int_equal(iort_pci_coherent(tbl, len, 0, why, sizeof(why)), BM_EINVAL);
    len = iort(0, 1);
    put16(tbl + 48 + 1, 0);
    assert_int_equal(iort_pci_coherent(tbl, len, 0, why, sizeof(why)), BM_EINVAL);
    len = iort(0, 1);
    put32(tbl + IORT_OFF_NODE_ARRAY, 8);
    assert_int_equal(iort_pci_coherent(tbl, len, 0, why, sizeof(why)), BM_EINVAL);
    len = iort(0, 1);
    assert_int_equal(iort_pci_coherent(tbl, 100, 0, why, sizeof(why)), BM_EINVAL);  /* cut inside the RC node */
    memcpy(tbl, "SPCR", 4);
    assert_int_equal(iort_pci_coherent(tbl, len, 0, why, sizeof(why)), BM_EINVAL);
    assert_int_equal(iort_pci_coherent(NULL, 0, 0, why, sizeof(why)), BM_EINVAL);
}

/* The x86 and host builds' answer: coherent. */
static void test_platform_answer_on_this_build(void **state)
{
    (void)state;
    assert_int_equal(plat_dma_coherent(0, why, sizeof(why)), BM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coherent_root_complex),
        cmocka_unit_test(test_non_coherent_root_complex_refused),
        cmocka_unit_test(test_other_segment_has_no_node),
        cmocka_unit_test(test_malformed_tables_refused),
        cmocka_unit_test(test_platform_answer_on_this_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
