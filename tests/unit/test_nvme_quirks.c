/* The NVMe quirk table (Linux drivers/nvme/host/pci.c nvme_id_table and
 * nvme_pci_enable()) and the retry rule for failed commands (Linux
 * nvme_decide_disposition() / nvme_retry_req(), NVMe 1.4 section 4.6.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/nvme/nvme_regs.h"

static void test_delay_before_ready_check_for_the_controllers_linux_names(void **state)
{
    static const uint16_t ids[][2] = {
        { 0x1bb1, 0x0100 }, { 0x1c58, 0x0003 }, { 0x1c58, 0x0023 }, { 0x1c5f, 0x0540 },
        { 0x144d, 0xa821 }, { 0x144d, 0xa822 },
    };

    (void)state;
    for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        assert_true(nvme_pci_quirks(ids[i][0], ids[i][1]) & NVME_QUIRK_DELAY_BEFORE_CHK_RDY);
}

static void test_mqes_0_depth_only_for_the_pm1725(void **state)
{
    (void)state;
    assert_true(nvme_pci_quirks(0x144d, 0xa821) & NVME_QUIRK_MQES0_DEPTH_64);
    assert_true(nvme_pci_quirks(0x144d, 0xa822) & NVME_QUIRK_MQES0_DEPTH_64);
    assert_false(nvme_pci_quirks(0x1c58, 0x0023) & NVME_QUIRK_MQES0_DEPTH_64);
    assert_int_equal(nvme_pci_quirks(0x144d, 0xa808), 0);   /* 970 EVO: none */
    assert_int_equal(nvme_pci_quirks(0x1b36, 0x0010), 0);   /* QEMU */
}

static void test_stripe_48_bit_dma_and_apple_quirks_by_pci_id(void **state)
{
    static const uint16_t stripe[] = { 0x0953, 0x0a53, 0x0a54, 0x0a55 };
    static const uint16_t amazon[] = { 0x0061, 0x0065, 0x8061, 0xcd00, 0xcd01, 0xcd02 };

    (void)state;
    for (unsigned i = 0; i < sizeof(stripe) / sizeof(stripe[0]); i++)
        assert_int_equal(nvme_pci_quirks(0x8086, stripe[i]), NVME_QUIRK_STRIPE_SIZE);
    for (unsigned i = 0; i < sizeof(amazon) / sizeof(amazon[0]); i++)
        assert_int_equal(nvme_pci_quirks(0x1d0f, amazon[i]), NVME_QUIRK_DMA_ADDRESS_BITS_48);
    assert_int_equal(nvme_pci_quirks(0x106b, 0x2001), NVME_QUIRK_QDEPTH_ONE);
    assert_int_equal(nvme_pci_quirks(0x106b, 0x2005), NVME_QUIRK_128_BYTES_SQES | NVME_QUIRK_SHARED_TAGS);
    assert_int_equal(nvme_pci_quirks(0x8086, 0xf1a5), 0);   /* Intel 600P: none of these */
}

/* Linux: stripe = 1 << (vs[3] + page_shift). */
static void test_stripe_bytes_from_vendor_byte_3(void **state)
{
    (void)state;
    assert_int_equal(nvme_stripe_bytes(0, 0), 0);
    assert_int_equal(nvme_stripe_bytes(5, 0), 128u << 10);
    assert_int_equal(nvme_stripe_bytes(5, 1), 256u << 10);
    assert_int_equal(nvme_stripe_bytes(19, 0), 1u << 31);
    assert_int_equal(nvme_stripe_bytes(20, 0), 0);          /* no such stripe */
    assert_int_equal(nvme_stripe_bytes(255, 0), 0);
}

static void test_dma_reach_and_the_cmb_note(void **state)
{
    char note[160];

    (void)state;
    assert_true(nvme_dma_reachable(1ull << 47, 4096, 48));
    assert_false(nvme_dma_reachable((1ull << 48) - 4096, 8192, 48));
    assert_false(nvme_dma_reachable(1ull << 48, 4096, 48));
    assert_true(nvme_dma_reachable(1ull << 60, 4096, 64));
    nvme_cmb_note(0, 0, note, sizeof(note));
    assert_string_equal(note, "");
    nvme_cmb_note(0, 0x10002u << 4 | 0x1e, note, sizeof(note));   /* CMB without SQS */
    assert_string_equal(note, "");
    nvme_cmb_note(0, 16u << 12 | 2u << 8 | 1u, note, sizeof(note));
    assert_non_null(strstr(note, "CMBSZ.SQS"));
}

/* A CQE status field: SCT, SC, CRD, DNR (phase bit 0 left clear). */
static uint16_t status(unsigned sct, unsigned sc, unsigned crd, bool dnr)
{
    return (uint16_t)(sc << 1 | sct << 9 | crd << 12 | (dnr ? 1u << 15 : 0));
}

static void test_retry_follows_dnr_crd_and_the_retry_limit(void **state)
{
    const uint16_t crdt[3] = { 5, 20, 65535 };

    (void)state;
    assert_int_equal(nvme_retry_delay_ms(0, crdt, 0), -1);                              /* success */
    assert_int_equal(nvme_retry_delay_ms(status(2, 0x81, 0, true), crdt, 0), -1);       /* DNR */
    assert_int_equal(nvme_retry_delay_ms(status(2, 0x81, 0, false), crdt, 0), 0);       /* at once */
    assert_int_equal(nvme_retry_delay_ms(status(2, 0x81, 0, false), crdt, NVME_MAX_RETRIES), -1);
    assert_int_equal(nvme_retry_delay_ms(status(0, 0x82, 1, false), crdt, 0), 500);     /* CRDT1 */
    assert_int_equal(nvme_retry_delay_ms(status(0, 0x82, 2, false), crdt, 3), 2000);    /* CRDT2 */
    assert_int_equal(nvme_retry_delay_ms(status(0, 0x82, 3, false), crdt, 0), NVME_RETRY_DELAY_MAX_MS);
    assert_int_equal(nvme_retry_delay_ms(status(0, 0x82, 0, false), crdt, 0), 1000);    /* not ready, no CRD */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delay_before_ready_check_for_the_controllers_linux_names),
        cmocka_unit_test(test_mqes_0_depth_only_for_the_pm1725),
        cmocka_unit_test(test_stripe_48_bit_dma_and_apple_quirks_by_pci_id),
        cmocka_unit_test(test_stripe_bytes_from_vendor_byte_3),
        cmocka_unit_test(test_dma_reach_and_the_cmb_note),
        cmocka_unit_test(test_retry_follows_dnr_crd_and_the_retry_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
