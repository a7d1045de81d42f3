/* The write-permission rule and the boot-disk identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/disk/safety.h"

static struct config cfg;

static void set_write(const char *v)
{
    char err[256];
    config_defaults(&cfg);
    assert_int_equal(config_set(&cfg, "write", v, err, sizeof(err)), BM_OK);
}

static void test_write_refused_without_serial(void **state)
{
    struct disk_facts f = { 0 };
    char why[128];
    (void)state;
    set_write("S1,S2");
    assert_int_equal(disk_write_permission(&cfg, "", &f, why, sizeof(why)), WRITE_NOT_LISTED);
}

static void test_write_not_listed_is_read_only(void **state)
{
    struct disk_facts f = { 0 };
    char why[128];
    (void)state;
    set_write("S1,S2");
    assert_int_equal(disk_write_permission(&cfg, "S3", &f, why, sizeof(why)), WRITE_NOT_LISTED);
    assert_int_equal(disk_write_permission(&cfg, "s1", &f, why, sizeof(why)), WRITE_NOT_LISTED);
    config_defaults(&cfg); /* write=none */
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_NOT_LISTED);
}

static void test_write_allowed_when_listed(void **state)
{
    struct disk_facts f = { 0 };
    char why[128];
    (void)state;
    set_write("S1,S2");
    assert_int_equal(disk_write_permission(&cfg, "S2", &f, why, sizeof(why)), WRITE_ALLOWED);
}

static void test_write_refused_on_boot_disk_even_if_listed(void **state)
{
    struct disk_facts f = { .boot = true };
    char why[128];
    (void)state;
    set_write("S1");
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "loaded from"));
}

static void test_write_refused_on_results_disk_even_if_listed(void **state)
{
    struct disk_facts f = { .results = true };
    char why[128];
    (void)state;
    set_write("S1");
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "results"));
}

static void test_results_refusal_by_controller_says_so(void **state)
{
    struct disk_facts f = { .results = true, .results_by_controller = true };
    char why[200];
    (void)state;
    /* Booted from a USB stick with the results on it: another stick on
     * that controller may not hold them, and the error must not claim it
     * does; it says how to lift the rule. */
    set_write("S1");
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "controller"));
    assert_non_null(strstr(why, "out=off"));
    assert_null(strstr(why, "it holds"));
    /* the boot rule comes first and says what it is */
    f.boot = true;
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "loaded from"));
}

static void test_every_rule_refuses_on_its_own(void **state)
{
    struct disk_facts none = { 0 }, all[] = { { .boot = true }, { .results = true }, { .read_only = true },
                                               { .serial_twin = "fw9" } };
    char why[200];
    (void)state;
    set_write("S1");
    assert_int_equal(disk_write_permission(&cfg, "S1", &none, why, sizeof(why)), WRITE_ALLOWED);
    assert_string_equal(why, "");
    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        assert_int_equal(disk_write_permission(&cfg, "S1", &all[i], why, sizeof(why)), WRITE_REFUSED);
        assert_true(strlen(why) > 10);
        /* a refusal needs the serial listed: otherwise the run says nothing */
        assert_int_equal(disk_write_permission(&cfg, "S2", &all[i], why, sizeof(why)), WRITE_NOT_LISTED);
        assert_string_equal(why, "");
    }
}

static void test_write_refused_on_read_only_medium(void **state)
{
    struct disk_facts f = { .read_only = true };
    char why[128];
    (void)state;
    set_write("S1");
    assert_int_equal(disk_write_permission(&cfg, "S1", &f, why, sizeof(why)), WRITE_REFUSED);
    assert_non_null(strstr(why, "read-only"));
}

static struct bm_disk disk_at(uint8_t bus, uint8_t dev, uint32_t port)
{
    struct bm_disk d;
    memset(&d, 0, sizeof(d));
    d.has_pci = true;
    d.pci_addr = (struct pci_addr){ 0, bus, dev, 0 };
    d.port = port;
    return d;
}

static void test_boot_disk_found_by_controller_and_port(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk same = disk_at(3, 0, 1), other_port = disk_at(3, 0, 2), other_ctrl = disk_at(4, 0, 1);
    (void)state;

    memset(&boot, 0, sizeof(boot));
    boot.has_volume = boot.has_pci = boot.has_port = true;
    boot.pci = (struct pci_addr){ 0, 3, 0, 0 };
    boot.port = 1;
    assert_true(disk_holds_boot(&same, &boot, BOOT_UNKNOWN));
    assert_false(disk_holds_boot(&other_port, &boot, BOOT_UNKNOWN));
    assert_false(disk_holds_boot(&other_ctrl, &boot, BOOT_UNKNOWN));
}

static void test_boot_controller_without_port_protects_all_its_disks(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk a = disk_at(3, 0, 1), b = disk_at(3, 0, 7);
    (void)state;

    memset(&boot, 0, sizeof(boot));
    boot.has_volume = boot.has_pci = true;
    boot.pci = (struct pci_addr){ 0, 3, 0, 0 };
    assert_true(disk_holds_boot(&a, &boot, BOOT_UNKNOWN));
    assert_true(disk_holds_boot(&b, &boot, BOOT_UNKNOWN));
}

static void test_unknown_boot_storage_protects_every_disk(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk a = disk_at(3, 0, 1), b = disk_at(4, 0, 7), off_pci = disk_at(5, 0, 0);
    (void)state;

    /* A BIOS boot: the loader read us from some drive the platform cannot
     * place, so every disk may be that one. */
    memset(&boot, 0, sizeof(boot));
    boot.disk_unknown = true;
    off_pci.has_pci = false;
    assert_true(disk_holds_boot(&a, &boot, BOOT_UNKNOWN));
    assert_true(disk_holds_boot(&b, &boot, BOOT_UNKNOWN));
    assert_true(disk_holds_boot(&off_pci, &boot, BOOT_UNKNOWN));
    assert_true(disk_holds_boot(&a, &boot, BOOT_NO));
}

static void test_firmware_device_path_answer(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk a = disk_at(3, 0, 1);
    (void)state;

    memset(&boot, 0, sizeof(boot));
    boot.has_volume = boot.has_pci = true;
    boot.pci = (struct pci_addr){ 0, 3, 0, 0 };
    /* "not the boot disk" by device path, and the location names no port:
     * another disk on the boot stick's USB controller may be written */
    assert_false(disk_holds_boot(&a, &boot, BOOT_NO));
    /* but not when controller and port say it is the boot disk after all */
    boot.has_port = true;
    boot.port = 1;
    assert_true(disk_holds_boot(&a, &boot, BOOT_NO));
    boot.port = 2;
    assert_false(disk_holds_boot(&a, &boot, BOOT_NO));
    /* "yes" is final */
    boot.pci.bus = 9;
    assert_true(disk_holds_boot(&a, &boot, BOOT_YES));
}

static void test_disk_that_cannot_be_placed_counts_as_boot_disk(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk lost;
    (void)state;

    /* No PCI location and no device-path answer (a firmware disk without a
     * device path): nothing says it is not the disk we booted from. */
    memset(&lost, 0, sizeof(lost));
    memset(&boot, 0, sizeof(boot));
    boot.has_volume = boot.has_pci = boot.has_port = true;
    boot.pci = (struct pci_addr){ 0, 3, 0, 0 };
    assert_true(disk_holds_boot(&lost, &boot, BOOT_UNKNOWN));
    /* the firmware's device paths did compare: its answer stands */
    assert_false(disk_holds_boot(&lost, &boot, BOOT_NO));
    /* booted from no disk (netboot): nothing to protect */
    memset(&boot, 0, sizeof(boot));
    assert_false(disk_holds_boot(&lost, &boot, BOOT_UNKNOWN));
}

static void test_netboot_has_no_boot_disk(void **state)
{
    struct plat_boot_location boot;
    struct bm_disk a = disk_at(3, 0, 1);
    (void)state;

    memset(&boot, 0, sizeof(boot));
    assert_false(disk_holds_boot(&a, &boot, BOOT_UNKNOWN));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_refused_without_serial),
        cmocka_unit_test(test_write_not_listed_is_read_only),
        cmocka_unit_test(test_write_allowed_when_listed),
        cmocka_unit_test(test_write_refused_on_boot_disk_even_if_listed),
        cmocka_unit_test(test_write_refused_on_results_disk_even_if_listed),
        cmocka_unit_test(test_write_refused_on_read_only_medium),
        cmocka_unit_test(test_results_refusal_by_controller_says_so),
        cmocka_unit_test(test_every_rule_refuses_on_its_own),
        cmocka_unit_test(test_boot_disk_found_by_controller_and_port),
        cmocka_unit_test(test_boot_controller_without_port_protects_all_its_disks),
        cmocka_unit_test(test_unknown_boot_storage_protects_every_disk),
        cmocka_unit_test(test_firmware_device_path_answer),
        cmocka_unit_test(test_disk_that_cannot_be_placed_counts_as_boot_disk),
        cmocka_unit_test(test_netboot_has_no_boot_disk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
