/* The Intel MP table (efi/mp/mptable.c), as Linux mpparse.c reads it.
 * No byte dump of a real MP table was found in a public collection
 * (dmidecode dumps such as linuxhw/DMI hold none: the MP table is neither
 * SMBIOS nor ACPI); two machines' tables are rebuilt here from their
 * mptable(8) dumps posted to linux-kernel, field by field as MP spec 1.4
 * chapter 4 lays them out (the second only as far as the dump shows its
 * bytes):
 * - a 4-way i686 with one I/O APIC, one ISA bus and the BSP at APIC ID 2
 *   (OEM "BOCHSCPU", 22 entries, 268 bytes; Zwane Mwaikambo, "Re: [PATCH]
 *   SMP parsing rewrite, phase 1", 21 January 2003);
 * - an EPoX 8RDA+ (nForce2) whose valid floating pointer at 0xF5AC0 leads
 *   to 0xF0C00, which holds BIOS code, not "PCMP" (Lenar Lõhmus, "Re:
 *   Fixes for nforce2 hard lockup", 11 December 2003: "MPTABLE HOSED!").
 * The rest are built from the spec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mp/mptable.h"

static struct madt_info info;
static char why[160];

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v), put16(p + 2, (uint16_t)(v >> 16)); }

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s += *p++;
    return s;
}

/* A floating pointer at p (16 bytes): config address, revision, feature byte 1. */
static void fps(uint8_t *p, uint32_t config, uint8_t rev, uint8_t feature1)
{
    memset(p, 0, 16);
    memcpy(p, "_MP_", 4);
    put32(p + 4, config);
    p[8] = 1;
    p[9] = rev;
    p[11] = feature1;
    p[10] = (uint8_t)-sum(p, 16);
}

static size_t header(uint8_t *t, const char *oem, const char *product, uint16_t entries)
{
    memset(t, 0, 44);
    memcpy(t, "PCMP", 4);
    t[6] = 4;
    memcpy(t + 8, oem, 8);
    memcpy(t + 16, product, 12);
    put16(t + 34, entries);
    put32(t + 36, 0xfee00000);
    return 44;
}

static size_t processor(uint8_t *e, uint8_t id, uint8_t flags)
{
    memset(e, 0, 20);
    e[0] = MPTABLE_ENTRY_PROCESSOR;
    e[1] = id;
    e[2] = 0x11;                /* local APIC version */
    e[3] = flags;
    put32(e + 4, 0x600);        /* family 6, model 0, stepping 0 */
    put32(e + 8, 0x0201);       /* feature flags as the dump shows them */
    return 20;
}

static size_t eight(uint8_t *e, uint8_t type, uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t f, uint8_t g,
                    uint8_t h)
{
    e[0] = type, e[1] = a, e[2] = b, e[3] = c, e[4] = d, e[5] = f, e[6] = g, e[7] = h;
    return 8;
}

static void finish(uint8_t *t, size_t len)
{
    put16(t + 4, (uint16_t)len);
    t[7] = 0;
    t[7] = (uint8_t)-sum(t, len);
}

/* The 4-way i686 of the 2003 dump: 4 processors (BSP APIC ID 2), bus 0
 * ISA, I/O APIC 4 at 0xFEC00000, 16 I/O interrupts (ISA IRQ n -> pin n). */
static size_t zwane_4way(uint8_t *t)
{
    size_t n = header(t, "BOCHSCPU", "0.1         ", 22);

    for (uint8_t id = 0; id < 4; id++)
        n += processor(t + n, id, MPTABLE_CPU_EN | (id == 2 ? MPTABLE_CPU_BP : 0));
    n += eight(t + n, MPTABLE_ENTRY_BUS, 0, 'I', 'S', 'A', ' ', ' ', ' ');
    n += eight(t + n, MPTABLE_ENTRY_IOAPIC, 4, 0x11, 1, 0x00, 0x00, 0xc0, 0xfe);
    for (uint8_t irq = 0; irq < 16; irq++)
        n += eight(t + n, MPTABLE_ENTRY_IOINT, 0, 0, 0, 0, irq, 4, irq);
    finish(t, n);
    return n;
}

static void test_mptable_real_4way_with_bsp_at_apic_id_2(void **state)
{
    uint8_t t[512];
    size_t n = zwane_4way(t);

    (void)state;
    assert_int_equal(n, 268);   /* "base table length: 268" */
    assert_int_equal(mptable_parse(t, sizeof(t), &info, why, sizeof(why)), BM_OK);
    assert_int_equal(info.ncpus, 4);
    assert_int_equal(info.lapic_base, 0xfee00000);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(info.cpus[i].apic_id, i);
        assert_true(info.cpus[i].enabled);
    }
}

static void test_mptable_found_in_the_bios_area_by_its_floating_pointer(void **state)
{
    /* 0xF0000-0xFFFFF with the pointer at 0xFD110 and the table at 0xFD000,
     * as in the dump; a "_MP_" with a bad checksum before it is passed over. */
    static uint8_t bios[0x10000];
    struct mptable_fps f;

    (void)state;
    memset(bios, 0xff, sizeof(bios));
    fps(bios + 0x100, 0xfd000, 4, 0);
    bios[0x10f] ^= 1;
    fps(bios + 0xd110, 0xfd000, 4, 0);
    zwane_4way(bios + 0xd000);
    assert_int_equal(mptable_find(bios, sizeof(bios), &f), 0xd110);
    assert_int_equal(f.config_addr, 0xfd000);
    assert_int_equal(f.spec_rev, 4);
    assert_int_equal(f.default_config, 0);
    assert_int_equal(mptable_parse(bios + (f.config_addr - 0xf0000), sizeof(bios) - (f.config_addr - 0xf0000), &info,
                                   why, sizeof(why)),
                     BM_OK);
    assert_int_equal(info.ncpus, 4);
}

static void test_mptable_real_pointer_to_bios_code_is_refused(void **state)
{
    /* EPoX 8RDA+: the pointer (MP 1.1, checksum fine) leads to BIOS code
     * ("'M'", length 49091, "POWER ON F..."): no CPUs from it. */
    static uint8_t bios[0x10000];
    struct mptable_fps f;
    const char code[] = "M\xc3\xbf\x0c\x33\xc9\xe8\x6f\xc3\x0a\x00\x00\xff\xffPOWER ON FUNCTION     ";

    (void)state;
    memset(bios, 0, sizeof(bios));
    fps(bios + 0x5ac0, 0xf0c00, 1, 0);
    memcpy(bios + 0xc00, code, sizeof(code));
    assert_int_equal(mptable_find(bios, sizeof(bios), &f), 0x5ac0);
    assert_int_equal(f.spec_rev, 1);
    assert_int_equal(mptable_parse(bios + 0xc00, sizeof(bios) - 0xc00, &info, why, sizeof(why)), BM_EINVAL);
    assert_int_equal(info.ncpus, 0);
    assert_non_null(strstr(why, "no \"PCMP\""));
}

static void test_mptable_checksum_length_and_revision_are_checked(void **state)
{
    uint8_t t[512];
    size_t n = zwane_4way(t);

    (void)state;
    t[50] ^= 0x10;              /* checksum */
    assert_int_equal(mptable_parse(t, sizeof(t), &info, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "checksum"));
    zwane_4way(t);
    assert_int_equal(mptable_parse(t, n - 1, &info, why, sizeof(why)), BM_EINVAL);   /* past what may be read */
    assert_non_null(strstr(why, "length"));
    t[6] = 2;
    finish(t, n);
    assert_int_equal(mptable_parse(t, sizeof(t), &info, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "revision"));
}

static void test_mptable_unusable_and_repeated_processors(void **state)
{
    /* A processor marked unusable (CPU_EN clear: disabled in the BIOS
     * setup) is not started; one listed twice is one CPU. */
    uint8_t t[512];
    size_t n = header(t, "OEM00000", "PROD00000000", 4);

    (void)state;
    n += processor(t + n, 0, MPTABLE_CPU_EN | MPTABLE_CPU_BP);
    n += processor(t + n, 1, 0);
    n += processor(t + n, 6, MPTABLE_CPU_EN);
    n += processor(t + n, 6, MPTABLE_CPU_EN);
    finish(t, n);
    assert_int_equal(mptable_parse(t, n, &info, why, sizeof(why)), BM_OK);
    assert_int_equal(info.ncpus, 2);
    assert_int_equal(info.cpus[0].apic_id, 0);
    assert_int_equal(info.cpus[1].apic_id, 6);
}

static void test_mptable_bad_entries_are_refused(void **state)
{
    uint8_t t[512];
    size_t n = header(t, "OEM00000", "PROD00000000", 3);

    (void)state;
    n += processor(t + n, 0, MPTABLE_CPU_EN);
    n += eight(t + n, 0x80, 0, 0, 0, 0, 0, 0, 0);   /* a type the spec does not define */
    n += processor(t + n, 1, MPTABLE_CPU_EN);
    finish(t, n);
    assert_int_equal(mptable_parse(t, n, &info, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "unknown type 128"));
    assert_int_equal(info.ncpus, 0);    /* not even the processor before it */
    /* A processor entry cut by the table's end. */
    n = header(t, "OEM00000", "PROD00000000", 2);
    n += processor(t + n, 0, MPTABLE_CPU_EN);
    n += eight(t + n, MPTABLE_ENTRY_PROCESSOR, 1, 0x11, MPTABLE_CPU_EN, 0, 0, 0, 0);
    finish(t, n);
    assert_int_equal(mptable_parse(t, n, &info, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "runs past"));
    /* No processor at all. */
    n = header(t, "OEM00000", "PROD00000000", 1);
    n += eight(t + n, MPTABLE_ENTRY_BUS, 0, 'P', 'C', 'I', ' ', ' ', ' ');
    finish(t, n);
    assert_int_equal(mptable_parse(t, n, &info, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "no usable processor"));
}

static void test_mptable_default_configuration(void **state)
{
    /* Feature byte 1 non-zero: no table, one of the spec's chapter 5 default
     * configurations, two CPUs at APIC IDs 0 and 1. */
    uint8_t mem[32] = { 0 };
    struct mptable_fps f;

    (void)state;
    fps(mem + 16, 0, 4, 5);
    assert_int_equal(mptable_find(mem, sizeof(mem), &f), 16);
    assert_int_equal(f.default_config, 5);
    assert_int_equal(mptable_default_config(f.default_config, &info), BM_OK);
    assert_int_equal(info.ncpus, 2);
    assert_int_equal(info.cpus[1].apic_id, 1);
    assert_int_equal(mptable_default_config(8, &info), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mptable_real_4way_with_bsp_at_apic_id_2),
        cmocka_unit_test(test_mptable_found_in_the_bios_area_by_its_floating_pointer),
        cmocka_unit_test(test_mptable_real_pointer_to_bios_code_is_refused),
        cmocka_unit_test(test_mptable_checksum_length_and_revision_are_checked),
        cmocka_unit_test(test_mptable_unusable_and_repeated_processors),
        cmocka_unit_test(test_mptable_bad_entries_are_refused),
        cmocka_unit_test(test_mptable_default_configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
