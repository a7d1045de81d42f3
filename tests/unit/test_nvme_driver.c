/* The NVMe driver as the registry and the engine see it: which PCI
 * functions it takes, and a probe that cannot claim the controller (the
 * host build has no DMA) leaves nothing behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/nvme/nvme.h"
#include "drivers/registry.h"

static void test_matches_nvme_class_only(void **state)
{
    (void)state;
    assert_true(nvme_driver.match(0x1b36, 0x0010, 0x010802));  /* QEMU */
    assert_true(nvme_driver.match(0x144d, 0xa808, 0x010802));  /* any vendor's NVMe */
    assert_false(nvme_driver.match(0x8086, 0x2922, 0x010601)); /* AHCI */
    assert_false(nvme_driver.match(0x1000, 0x0079, 0x010400)); /* RAID */
    assert_false(nvme_driver.match(0x8086, 0xf1a8, 0x010801)); /* NVMHCI, not NVMe */
    assert_false(nvme_driver.match(0x8086, 0x0a54, 0x010803)); /* another prog-if */
    assert_ptr_equal(registry_find(0x1b36, 0x0010, 0x010802), &nvme_driver);
}

static void test_probe_without_dma_fails_cleanly(void **state)
{
    struct bm_disk_list list = { .count = 0 };
    struct pci_addr a = { 0, 3, 0, 0 };
    void *ctrl = (void *)1;
    char err[160] = "";
    int rc;

    (void)state;
    rc = nvme_driver.probe(a, 0, &list, &ctrl, err, sizeof(err));
    assert_int_equal(rc, BM_ENOTSUP);
    assert_null(ctrl);
    assert_int_equal(list.count, 0);
    /* No device prefix: the record's where (discover.c) names the controller. */
    assert_null(strstr(err, "0000:03:00.0"));
    assert_non_null(strstr(err, "firmware"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_nvme_class_only),
        cmocka_unit_test(test_probe_without_dma_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
