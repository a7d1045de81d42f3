/* ACPI MADT parsing (ACPI 6.5, 5.2.12) on synthetic tables: local APIC and
 * x2APIC entries, enabled / online-capable / disabled processors, the
 * "no processor" IDs, the local APIC address override, and tables that are
 * not a MADT or are cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mp/madt.h"

struct table {
    uint8_t b[512];
    size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* ACPI header, local APIC address 0xfee00000, flags PCAT_COMPAT. */
static void madt_begin(struct table *t)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->b, "APIC", 4);
    t->b[8] = 5;
    put32(t->b + 36, 0xfee00000u);
    put32(t->b + 40, 1);
    t->len = MADT_HEADER_LEN;
}

static void madt_end(struct table *t) { put32(t->b + 4, (uint32_t)t->len); }

static void add_lapic(struct table *t, uint8_t uid, uint8_t apic, uint32_t flags)
{
    uint8_t *e = t->b + t->len;
    e[0] = MADT_TYPE_LAPIC;
    e[1] = MADT_LAPIC_LEN;
    e[2] = uid;
    e[3] = apic;
    put32(e + 4, flags);
    t->len += MADT_LAPIC_LEN;
}

static void add_x2apic(struct table *t, uint32_t apic, uint32_t flags)
{
    uint8_t *e = t->b + t->len;
    memset(e, 0, MADT_X2APIC_LEN);
    e[0] = MADT_TYPE_X2APIC;
    e[1] = MADT_X2APIC_LEN;
    put32(e + 4, apic);
    put32(e + 8, flags);
    t->len += MADT_X2APIC_LEN;
}

/* An I/O APIC entry (type 1, 12 bytes): not a processor. */
static void add_ioapic(struct table *t)
{
    uint8_t *e = t->b + t->len;
    memset(e, 0, 12);
    e[0] = 1;
    e[1] = 12;
    put32(e + 4, 0xfec00000u);
    t->len += 12;
}

static struct madt_info info;

static void test_enabled_local_apics_are_the_cpus(void **state)
{
    struct table t;
    madt_begin(&t);
    add_lapic(&t, 0, 0, MADT_FLAG_ENABLED);
    add_ioapic(&t);
    add_lapic(&t, 1, 2, MADT_FLAG_ENABLED);
    add_lapic(&t, 2, 4, 0);            /* a hot-plug slot QEMU lists for maxcpus */
    madt_end(&t);
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_OK);
    assert_int_equal(info.ncpus, 2);
    assert_int_equal(info.cpus[0].apic_id, 0);
    assert_int_equal(info.cpus[1].apic_id, 2);
    assert_true(info.cpus[1].enabled);
    assert_int_equal(info.lapic_base, 0xfee00000u);
}

static void test_online_capable_cpus_are_kept_as_not_enabled(void **state)
{
    struct table t;
    madt_begin(&t);
    add_lapic(&t, 0, 0, MADT_FLAG_ENABLED);
    add_lapic(&t, 1, 1, MADT_FLAG_ONLINE_CAPABLE);
    madt_end(&t);
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_OK);
    assert_int_equal(info.ncpus, 2);
    assert_false(info.cpus[1].enabled);
}

static void test_x2apic_entries_and_no_processor_ids(void **state)
{
    struct table t;
    madt_begin(&t);
    add_lapic(&t, 0, 0, MADT_FLAG_ENABLED);
    add_lapic(&t, 1, 0xff, MADT_FLAG_ENABLED); /* 0xff: no processor */
    add_x2apic(&t, 300, MADT_FLAG_ENABLED);
    add_x2apic(&t, 0, MADT_FLAG_ENABLED);      /* the same CPU again: counted once */
    add_x2apic(&t, 0xffffffffu, MADT_FLAG_ENABLED);
    madt_end(&t);
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_OK);
    assert_int_equal(info.ncpus, 2);
    assert_int_equal(info.cpus[1].apic_id, 300);
    assert_true(info.cpus[1].x2apic);
}

static void test_local_apic_address_override(void **state)
{
    struct table t;
    uint8_t *e;
    madt_begin(&t);
    e = t.b + t.len;
    e[0] = MADT_TYPE_LAPIC_ADDR;
    e[1] = MADT_LAPIC_ADDR_LEN;
    put32(e + 4, 0xfed00000u);
    put32(e + 8, 1);
    t.len += MADT_LAPIC_ADDR_LEN;
    madt_end(&t);
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_OK);
    assert_int_equal(info.lapic_base, 0x1fed00000ull);
}

static void test_bad_tables_are_refused(void **state)
{
    struct table t;
    madt_begin(&t);
    add_lapic(&t, 0, 0, MADT_FLAG_ENABLED);
    madt_end(&t);
    assert_int_equal(madt_parse(t.b, t.len - 1, &info), BM_EINVAL);  /* longer than what we may read */
    assert_int_equal(madt_parse(NULL, 0, &info), BM_EINVAL);
    t.b[MADT_HEADER_LEN + 1] = 0;                                   /* a zero-length entry */
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_EINVAL);
    t.b[MADT_HEADER_LEN + 1] = 4;                                   /* a local APIC entry cut short */
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_EINVAL);
    t.b[MADT_HEADER_LEN + 1] = MADT_LAPIC_LEN;
    memcpy(t.b, "SRAT", 4);
    assert_int_equal(madt_parse(t.b, t.len, &info), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_enabled_local_apics_are_the_cpus),
        cmocka_unit_test(test_online_capable_cpus_are_kept_as_not_enabled),
        cmocka_unit_test(test_x2apic_entries_and_no_processor_ids),
        cmocka_unit_test(test_local_apic_address_override),
        cmocka_unit_test(test_bad_tables_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
