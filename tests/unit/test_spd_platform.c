/* Where servers keep SPD that baremark does not read: the note names the
 * path (spd_platform_elsewhere) instead of "no SPD EEPROM answered". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/inventory/spd_platform.h"

static struct pci_list L;
static char note[240];

/* A PCI list with one Intel function at bus:dev.fn. */
static void one_function(uint16_t device, uint8_t bus, uint8_t dev, uint8_t fn)
{
    memset(&L, 0, sizeof(L));
    L.count = 1;
    L.funcs[0].addr = (struct pci_addr){ 0, bus, dev, fn };
    L.funcs[0].vendor = 0x8086;
    L.funcs[0].device = device;
}

static void test_5000p_mch_fbdimm_path_named(void **state)
{
    (void)state;
    one_function(0x25f5, 0, 21, 0);
    assert_true(spd_platform_elsewhere(&L, "Intel(R) Xeon(R) CPU E5345 @ 2.33GHz", note, sizeof(note)));
    assert_non_null(strstr(note, "FB-DIMM SPD registers"));
    assert_non_null(strstr(note, "8086:25f5 at 0000:00:15.0"));
    assert_non_null(strstr(note, "not read"));
}

static void test_xeon_e5_v2_imc_smbus_named(void **state)
{
    (void)state;
    one_function(0x0ea8, 0xff, 15, 0);
    assert_true(spd_platform_elsewhere(&L, "Intel(R) Xeon(R) CPU E5-2650 v2 @ 2.60GHz", note, sizeof(note)));
    assert_non_null(strstr(note, "SPD is on the memory controller's SMBus (Xeon E5 v2"));
    assert_non_null(strstr(note, "0000:ff:0f.0"));
}

static void test_xeon_scalable_named_from_the_brand(void **state)
{
    (void)state;
    one_function(0xa1a3, 0, 31, 4);   /* the C620 PCH SMBus: no DIMM on it */
    assert_true(spd_platform_elsewhere(&L, "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz", note, sizeof(note)));
    assert_non_null(strstr(note, "Xeon Scalable"));
}

static void test_epyc_sp5_i3c_named(void **state)
{
    (void)state;
    memset(&L, 0, sizeof(L));
    assert_true(spd_platform_elsewhere(&L, "AMD EPYC 9354 32-Core Processor", note, sizeof(note)));
    assert_non_null(strstr(note, "I3C"));
}

static void test_desktop_pch_machine_has_nothing_elsewhere(void **state)
{
    (void)state;
    one_function(0x7a23, 0, 31, 4);
    assert_false(spd_platform_elsewhere(&L, "13th Gen Intel(R) Core(TM) i7-13700", note, sizeof(note)));
    assert_false(spd_platform_elsewhere(&L, NULL, note, sizeof(note)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_5000p_mch_fbdimm_path_named),
        cmocka_unit_test(test_xeon_e5_v2_imc_smbus_named),
        cmocka_unit_test(test_xeon_scalable_named_from_the_brand),
        cmocka_unit_test(test_epyc_sp5_i3c_named),
        cmocka_unit_test(test_desktop_pch_machine_has_nothing_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
