/* AHCI host quirks by PCI ID (Linux ahci_pci_tbl host flags) and ATA drive
 * quirks by model and firmware (libata __ata_dev_quirks, matched with
 * lib/glob.c glob_match() semantics). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/ahci/ahci_quirks.h"

static void test_host_quirks_for_sb600_marvell_and_via(void **state)
{
    (void)state;
    assert_int_equal(ahci_host_quirks(0x1002, 0x4380), AHCI_HQUIRK_32BIT_ONLY | AHCI_HQUIRK_SECT255);
    assert_int_equal(ahci_host_quirks(0x11ab, 0x6121), AHCI_HQUIRK_NO_NCQ);
    assert_int_equal(ahci_host_quirks(0x11ab, 0x6145), AHCI_HQUIRK_NO_NCQ);
    assert_int_equal(ahci_host_quirks(0x1106, 0x3349), AHCI_HQUIRK_NO_NCQ);
    assert_int_equal(ahci_host_quirks(0x1106, 0x6287), AHCI_HQUIRK_NO_NCQ);
    assert_int_equal(ahci_host_quirks(0x1002, 0x4390), 0);   /* SB700/800: 64-bit works */
    assert_int_equal(ahci_host_quirks(0x8086, 0x2922), 0);   /* ICH9 */
}

static void test_glob_match_as_linux(void **state)
{
    (void)state;
    assert_true(ata_glob_match("Maxtor *", "Maxtor 6L250S0"));
    assert_false(ata_glob_match("Maxtor *", "Maxtor"));
    assert_true(ata_glob_match("SD1[5-9]", "SD17"));
    assert_false(ata_glob_match("SD1[5-9]", "SD14"));
    assert_false(ata_glob_match("SD1[5-9]", "SD1"));
    assert_true(ata_glob_match("ST3640[36]23AS", "ST3640623AS"));
    assert_false(ata_glob_match("ST3640[36]23AS", "ST3640523AS"));
    assert_true(ata_glob_match("SanDisk SD[78]SN*G", "SanDisk SD8SN8U256G"));
    assert_false(ata_glob_match("SanDisk SD[78]SN*G", "SanDisk SD9SN8W256G"));
    assert_true(ata_glob_match("LITEON CX1-JB*-HP", "LITEON CX1-JB256-HP"));
    assert_true(ata_glob_match("[!A]?", "BC"));
    assert_false(ata_glob_match("[!A]?", "AC"));
    assert_true(ata_glob_match("a[b", "a[b"));            /* unterminated class: literal */
    assert_true(ata_glob_match("*", ""));
    assert_false(ata_glob_match("?", ""));
    assert_true(ata_glob_match("WDC WD740ADFD-00", "WDC WD740ADFD-00"));
    assert_false(ata_glob_match("WDC WD740ADFD-00", "WDC WD740ADFD-00NLR1"));
}

static void test_drive_quirks_by_model_and_firmware(void **state)
{
    (void)state;
    assert_int_equal(ata_dev_quirks("ST31500341AS", "SD15"), ATA_DQUIRK_NONCQ);
    assert_int_equal(ata_dev_quirks("ST31500341AS", "CC1H"), 0);      /* fixed firmware */
    assert_int_equal(ata_dev_quirks("Maxtor 6L250S0", "BANC1G10"), ATA_DQUIRK_NONCQ);
    assert_int_equal(ata_dev_quirks("Maxtor 6L250S0", "BACE1G10"), 0);
    assert_int_equal(ata_dev_quirks("WDC WD740ADFD-00NLR1", "21.07QR4"), ATA_DQUIRK_NONCQ);
    assert_int_equal(ata_dev_quirks("ST380013AS", "3.20"), ATA_DQUIRK_MAX_SEC_1024);
    assert_int_equal(ata_dev_quirks("ST380013AS", "3.18"), 0);
    assert_int_equal(ata_dev_quirks("LITEON EP1-KB480", "1.0"), ATA_DQUIRK_MAX_SEC_1024);
    assert_int_equal(ata_dev_quirks("Samsung SSD 860 EVO 500GB", "RVT04B6Q"), ATA_DQUIRK_NO_NCQ_ON_ATI);
    assert_int_equal(ata_dev_quirks("SAMSUNG MZ7LH960HAJR-00005", "HXT7404Q"), ATA_DQUIRK_NO_NCQ_ON_ATI);
    assert_int_equal(ata_dev_quirks("Samsung SSD 850 PRO 256GB", "EXM04B6Q"), 0);
}

/* Linux replaced the SanDisk SD7/SD8 NCQ entry with a trim limit
 * (ATA_QUIRK_MAX_TRIM_128M): their NCQ is used, as Linux uses it. */
static void test_sandisk_ssds_keep_their_ncq(void **state)
{
    (void)state;
    assert_int_equal(ata_dev_quirks("SanDisk SD8SN8U256G", "X4120000"), 0);
    assert_int_equal(ata_dev_quirks("SanDisk SD7SN6S256G", "X3310000"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_quirks_for_sb600_marvell_and_via),
        cmocka_unit_test(test_glob_match_as_linux),
        cmocka_unit_test(test_drive_quirks_by_model_and_firmware),
        cmocka_unit_test(test_sandisk_ssds_keep_their_ncq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
