/* ACPI SRAT parsing (ACPI 6.5, 5.2.16) on synthetic tables: processor
 * local APIC, x2APIC and GICC (Arm) affinity, memory affinity, disabled and
 * unknown entries, and tables that are cut short or malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mem/mem_srat.h"

struct table {
    uint8_t b[1024];
    size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* The 48-byte SRAT header: ACPI header plus "reserved, must be 1" and 8 reserved bytes. */
static void srat_begin(struct table *t)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->b, "SRAT", 4);
    t->b[8] = 3; /* revision */
    memcpy(t->b + 10, "BOCHS ", 6);
    put32(t->b + 36, 1);
    t->len = SRAT_HEADER_LEN;
}

/* Set the header's length and checksum, as firmware would. */
static void srat_end(struct table *t)
{
    uint8_t sum = 0;
    put32(t->b + 4, (uint32_t)t->len);
    t->b[9] = 0;
    for (size_t i = 0; i < t->len; i++)
        sum += t->b[i];
    t->b[9] = (uint8_t)-sum;
}

/* Processor Local APIC/SAPIC Affinity (5.2.16.1): domain bits 7:0 at 2,
 * APIC ID at 3, flags at 4, domain bits 31:8 at 9..11. */
static void add_lapic(struct table *t, uint8_t apic, uint32_t domain, bool enabled)
{
    uint8_t *e = t->b + t->len;
    e[0] = SRAT_TYPE_LAPIC;
    e[1] = SRAT_LAPIC_LEN;
    e[2] = (uint8_t)domain;
    e[3] = apic;
    put32(e + 4, enabled ? SRAT_FLAG_ENABLED : 0);
    e[9] = (uint8_t)(domain >> 8);
    e[10] = (uint8_t)(domain >> 16);
    e[11] = (uint8_t)(domain >> 24);
    t->len += SRAT_LAPIC_LEN;
}

/* Processor Local x2APIC Affinity (5.2.16.3): domain at 4, x2APIC ID at 8, flags at 12. */
static void add_x2apic(struct table *t, uint32_t apic, uint32_t domain, bool enabled)
{
    uint8_t *e = t->b + t->len;
    e[0] = SRAT_TYPE_X2APIC;
    e[1] = SRAT_X2APIC_LEN;
    put32(e + 4, domain);
    put32(e + 8, apic);
    put32(e + 12, enabled ? SRAT_FLAG_ENABLED : 0);
    t->len += SRAT_X2APIC_LEN;
}

/* Memory Affinity (5.2.16.2): domain at 2, base at 8, length at 16, flags at 28. */
static void add_memory(struct table *t, uint32_t domain, uint64_t base, uint64_t length, uint32_t flags)
{
    uint8_t *e = t->b + t->len;
    e[0] = SRAT_TYPE_MEMORY;
    e[1] = SRAT_MEMORY_LEN;
    put32(e + 2, domain);
    put64(e + 8, base);
    put64(e + 16, length);
    put32(e + 28, flags);
    t->len += SRAT_MEMORY_LEN;
}

/* GICC Affinity (5.2.16.4): domain at 2, ACPI processor UID at 6, flags at
 * 10, clock domain at 14. */
static void add_gicc(struct table *t, uint32_t uid, uint32_t domain, bool enabled)
{
    uint8_t *e = t->b + t->len;
    e[0] = SRAT_TYPE_GICC;
    e[1] = SRAT_GICC_LEN;
    put32(e + 2, domain);
    put32(e + 6, uid);
    put32(e + 10, enabled ? SRAT_FLAG_ENABLED : 0);
    put32(e + 14, 0);
    t->len += SRAT_GICC_LEN;
}

/* An entry of a type we do not use (GIC ITS Affinity, 12 bytes). */
static void add_gic_its(struct table *t, uint32_t domain)
{
    uint8_t *e = t->b + t->len;
    e[0] = 4;
    e[1] = 12;
    put32(e + 2, domain);
    t->len += 12;
}

/* Two sockets as QEMU describes them with -numa, plus what real firmware adds. */
static void two_node_table(struct table *t)
{
    srat_begin(t);
    add_lapic(t, 0, 0, true);
    add_lapic(t, 1, 0, true);
    add_lapic(t, 2, 1, true);
    add_x2apic(t, 0x100, 1, true);
    add_lapic(t, 9, 5, false); /* a socket that is not populated */
    add_gicc(t, 0, 9, true);   /* an Arm processor's UID 0 is not APIC ID 0 */
    add_gic_its(t, 11);
    add_memory(t, 0, 0, 0xa0000, SRAT_FLAG_ENABLED);
    add_memory(t, 0, 0x100000, 0x1ff00000ull, SRAT_FLAG_ENABLED);
    add_memory(t, 1, 0x20000000ull, 0x20000000ull, SRAT_FLAG_ENABLED);
    add_memory(t, 2, 0x100000000ull, 64ull << 30, SRAT_FLAG_ENABLED | SRAT_MEM_HOTPLUG);
    add_memory(t, 7, 0x2000000000ull, 1ull << 30, 0); /* disabled */
    add_memory(t, 0, 0x3000000000ull, 0, SRAT_FLAG_ENABLED); /* empty */
    srat_end(t);
}

static void test_srat_two_nodes_cpus_and_memory(void **state)
{
    static struct table t;
    static struct srat_info s;
    (void)state;

    two_node_table(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_OK);
    assert_int_equal(s.ncpus, 5);
    assert_int_equal(s.nmems, 4);
    assert_int_equal(s.dropped, 0);
    assert_int_equal(srat_domain_of_apic(&s, 0), 0);
    assert_int_equal(srat_domain_of_apic(&s, 1), 0);
    assert_int_equal(srat_domain_of_apic(&s, 2), 1);
    assert_int_equal(srat_domain_of_apic(&s, 0x100), 1);
    assert_int_equal(srat_domain_of_apic(&s, 9), -1); /* disabled */
    assert_int_equal(srat_domain_of_apic(&s, 3), -1); /* not listed */
    assert_int_equal(srat_domain_of_cpu(&s, 0), 9);   /* the GICC entry, by UID */
    assert_int_equal(srat_domain_of_cpu(&s, 2), -1);  /* APIC IDs are not UIDs */

    assert_int_equal(s.mems[2].domain, 1);
    assert_int_equal(s.mems[2].base, 0x20000000ull);
    assert_int_equal(s.mems[2].length, 0x20000000ull);
    assert_false(s.mems[2].hotplug);
    assert_int_equal(s.mems[3].domain, 2);
    assert_int_equal(s.mems[3].base, 0x100000000ull);
    assert_int_equal(s.mems[3].length, 64ull << 30);
    assert_true(s.mems[3].hotplug);

    /* Distinct domains in order; the disabled ones (5, 7) and the ITS's (11) are not among them. */
    assert_int_equal(s.ndomains, 4);
    assert_int_equal(s.domains[0], 0);
    assert_int_equal(s.domains[1], 1);
    assert_int_equal(s.domains[2], 2);
    assert_int_equal(s.domains[3], 9);
}

/* Two sockets of an Arm server as its firmware lists them (Ampere Altra
 * style: GICC UIDs, DRAM of each socket), the processors' domains by ACPI
 * processor UID, as Linux acpi_numa_gicc_affinity_init() reads them. */
static void test_srat_gicc_affinity_two_arm_sockets(void **state)
{
    static struct table t;
    static struct srat_info s;
    (void)state;

    srat_begin(&t);
    for (uint32_t i = 0; i < 4; i++)
        add_gicc(&t, i, 0, true);
    for (uint32_t i = 0; i < 4; i++)
        add_gicc(&t, 0x10000 + i, 1, true);
    add_gicc(&t, 0x20000, 3, false); /* listed, not enabled */
    add_gic_its(&t, 0);
    add_memory(&t, 0, 0x80000000ull, 0x80000000ull, SRAT_FLAG_ENABLED);
    add_memory(&t, 1, 0x400000000000ull, 32ull << 30, SRAT_FLAG_ENABLED);
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_OK);
    assert_int_equal(s.ncpus, 8);
    assert_int_equal(s.ndomains, 2);
    assert_int_equal(srat_domain_of_cpu(&s, 0), 0);
    assert_int_equal(srat_domain_of_cpu(&s, 3), 0);
    assert_int_equal(srat_domain_of_cpu(&s, 0x10000), 1);
    assert_int_equal(srat_domain_of_cpu(&s, 0x10003), 1);
    assert_int_equal(srat_domain_of_cpu(&s, 0x20000), -1); /* disabled */
    assert_int_equal(srat_domain_of_cpu(&s, 4), -1);       /* not listed */
    assert_int_equal(srat_domain_of_apic(&s, 0), -1);      /* no x86 entry */
    assert_int_equal(srat_domain_of_addr(&s, 0x400000001000ull), 1);
#if !defined(__aarch64__)
    assert_int_equal(srat_domain_of_plat_cpu(&s, 0x10000), -1); /* x86: APIC IDs */
#endif

    /* The full 32-bit domain. */
    srat_begin(&t);
    add_gicc(&t, 7, 0x89abcdefu, true);
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_OK);
    assert_int_equal(srat_domain_of_cpu(&s, 7), 0x89abcdef);

    /* A GICC entry shorter than its 18 bytes makes the table bad, as in Linux. */
    srat_begin(&t);
    add_gicc(&t, 1, 0, true);
    t.b[SRAT_HEADER_LEN + 1] = 16;
    t.len = SRAT_HEADER_LEN + 16;
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_EINVAL);
}

static void test_srat_lapic_domain_high_bits(void **state)
{
    static struct table t;
    static struct srat_info s;
    (void)state;

    srat_begin(&t);
    add_lapic(&t, 4, 0x12345678u, true);
    add_memory(&t, 0x12345678u, 0, 1 << 20, SRAT_FLAG_ENABLED);
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_OK);
    assert_int_equal(srat_domain_of_apic(&s, 4), 0x12345678);
    assert_int_equal(s.ndomains, 1);
}

static void test_srat_one_domain_without_entries(void **state)
{
    static struct table t;
    static struct srat_info s;
    (void)state;

    srat_begin(&t);
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_OK);
    assert_int_equal(s.ncpus + s.nmems + s.ndomains, 0);
}

static void test_srat_rejects_malformed_tables(void **state)
{
    static struct table t;
    static struct srat_info s;
    (void)state;

    two_node_table(&t);
    /* Not a SRAT. */
    memcpy(t.b, "SLIT", 4);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_EINVAL);
    memcpy(t.b, "SRAT", 4);
    /* The length field promises more than we have. */
    assert_int_equal(srat_parse(t.b, t.len - 1, &s), BM_EINVAL);
    assert_int_equal(srat_parse(t.b, 20, &s), BM_EINVAL);
    assert_int_equal(srat_parse(NULL, 100, &s), BM_EINVAL);

    /* The last entry runs past the table's end. */
    srat_begin(&t);
    add_lapic(&t, 0, 0, true);
    add_memory(&t, 0, 0, 1 << 20, SRAT_FLAG_ENABLED);
    t.len -= 8;
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_EINVAL);

    /* An entry of length 0 would loop forever. */
    srat_begin(&t);
    add_lapic(&t, 0, 0, true);
    t.b[t.len] = SRAT_TYPE_LAPIC;
    t.b[t.len + 1] = 0;
    t.len += 16;
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_EINVAL);

    /* A memory entry shorter than its type's layout. */
    srat_begin(&t);
    add_memory(&t, 0, 0, 1 << 20, SRAT_FLAG_ENABLED);
    t.b[SRAT_HEADER_LEN + 1] = 24;
    t.len = SRAT_HEADER_LEN + 24;
    srat_end(&t);
    assert_int_equal(srat_parse(t.b, t.len, &s), BM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srat_two_nodes_cpus_and_memory),
        cmocka_unit_test(test_srat_lapic_domain_high_bits),
        cmocka_unit_test(test_srat_gicc_affinity_two_arm_sockets),
        cmocka_unit_test(test_srat_one_domain_without_entries),
        cmocka_unit_test(test_srat_rejects_malformed_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
