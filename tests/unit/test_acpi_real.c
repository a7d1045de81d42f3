/* The ACPI table parsers (efi/acpi.c) and the device path reader
 * (efi/devpath.c): against the FADT, HPET, MCFG and DSDT tables of 605 real
 * machines (tests/unit/data/acpi_machines.txt.gz, made by
 * tests/tools/extract_acpi_machines.py from the linuxhw/ACPI collection,
 * the expectations printed by ACPICA's own disassembler), and against
 * test-built RSDP/XSDT/RSDT walks and device paths with the faults real
 * firmware has shipped (bad checksums, zero lengths, entries into nowhere,
 * nodes that do not end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "acpi.h"
#include "devpath.h"
#include "platform.h"

#define FIXTURE "tests/unit/data/acpi_machines.txt.gz"

/* ---- Real machines ------------------------------------------------------------- */

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (s[0] && s[1] && s[0] != '\n' && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void test_real_machines(void **state)
{
    static char line[8 << 20];
    static uint8_t tbl[4 << 20];
    char sig[5] = "", machine[256] = "", want[512], got[512];
    size_t len = 0;
    unsigned facp = 0, hpet = 0, mcfg = 0, dsdt = 0, s5 = 0, windows = 0, bad = 0;
    FILE *in = popen("gzip -dc " FIXTURE, "r");

    (void)state;
    assert_non_null(in);
    while (fgets(line, sizeof(line), in)) {
        size_t l = strlen(line);
        if (l && line[l - 1] == '\n')
            line[--l] = '\0';
        if (!strncmp(line, "M ", 2)) {
            bm_strlcpy(machine, line + 2, sizeof(machine));
        } else if (!strncmp(line, "T ", 2)) {
            memcpy(sig, line + 2, 4);
            len = unhex(line + 7, tbl, sizeof(tbl));
            assert_int_equal(acpi_table_len(tbl, len), len);
            /* Every table these machines shipped sums to zero: the walk's
             * checksum rule (ACPICA table validation) drops none of them. */
            if (!acpi_checksum_ok(tbl, len)) {
                fprintf(stderr, "%s: %s checksum wrong\n", machine, sig);
                bad++;
            }
        } else if (!strncmp(line, "E FACP ", 7)) {
            struct acpi_fadt f;
            assert_int_equal(acpi_fadt_parse(tbl, len, &f), BM_OK);
            snprintf(got, sizeof(got), "E FACP smi=%x enable=%x pm1a=%x pm1b=%x tmr=%x ext32=%d dsdt=%llx",
                     f.smi_cmd, f.acpi_enable, f.pm1a_cnt, f.pm1b_cnt, f.pm_tmr_port, f.pm_tmr_32bit,
                     (unsigned long long)f.dsdt);
            bm_strlcpy(want, line, sizeof(want));
            if (strcmp(got, want))
                fprintf(stderr, "%s:\n  want %s\n  got  %s\n", machine, want, got);
            assert_string_equal(got, want);
            facp++;
        } else if (!strncmp(line, "E HPET ", 7)) {
            uint64_t base;
            if (acpi_hpet_parse(tbl, len, &base) == BM_OK)
                snprintf(got, sizeof(got), "E HPET base=%llx", (unsigned long long)base);
            else
                snprintf(got, sizeof(got), "E HPET base=none");
            assert_string_equal(got, line);
            hpet++;
        } else if (!strncmp(line, "E MCFG", 6)) {
            struct acpi_mcfg_window w[64];
            int n = acpi_mcfg_parse(tbl, len, w, 64);
            size_t at = (size_t)snprintf(got, sizeof(got), "E MCFG");
            for (int i = 0; i < n && at < sizeof(got); i++)
                at += (size_t)snprintf(got + at, sizeof(got) - at, " %llx:%x:%x:%x", (unsigned long long)w[i].base,
                                       w[i].segment, w[i].bus_start, w[i].bus_end);
            assert_string_equal(got, line);
            mcfg++;
            windows += (unsigned)n;
        } else if (!strncmp(line, "E DSDT ", 7)) {
            unsigned a, b;
            if (acpi_dsdt_s5(tbl, len, &a, &b))
                snprintf(got, sizeof(got), "E DSDT s5=%u,%u", a, b);
            else
                snprintf(got, sizeof(got), "E DSDT s5=none");
            if (strcmp(got, line))
                fprintf(stderr, "%s: want %s, got %s\n", machine, line, got);
            assert_string_equal(got, line);
            dsdt++;
            s5 += strcmp(line, "E DSDT s5=none") != 0;
        }
    }
    assert_int_equal(pclose(in), 0);
    printf("real ACPI tables: %u FADT, %u HPET, %u MCFG (%u windows), %u DSDT (%u with \\_S5), %u bad checksums\n",
           facp, hpet, mcfg, windows, dsdt, s5, bad);
    /* The fixture as extracted: the whole of it was read. */
    assert_true(facp >= 600 && hpet >= 570 && mcfg >= 600 && dsdt >= 15 && s5 >= 15);
    assert_int_equal(bad, 0);
}

/* ---- A test-built firmware: RSDP, RSDT/XSDT, tables in an arena ---------------- */

#define ARENA_BASE 0x7f000000ull
static uint8_t arena[64 * 1024];
static unsigned maps;

static const void *arena_map(uint64_t phys, size_t len, void *ctx)
{
    (void)ctx;
    maps++;
    if (phys < ARENA_BASE || phys - ARENA_BASE > sizeof(arena) || len > sizeof(arena) - (phys - ARENA_BASE))
        return NULL;
    return arena + (phys - ARENA_BASE);
}

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

static void fix_checksum(uint8_t *t, size_t len, size_t at)
{
    uint8_t sum = 0;
    t[at] = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + t[i]);
    t[at] = (uint8_t)(0x100 - sum);
}

/* A table of len bytes at arena offset off; its physical address. */
static uint64_t table(size_t off, const char *sig, uint32_t len)
{
    uint8_t *t = arena + off;
    size_t fill = len < sizeof(arena) - off ? len : sizeof(arena) - off;   /* a table told to run past the arena */
    memset(t, 0, fill);
    memcpy(t, sig, 4);
    put32(t + 4, len);
    t[8] = 2;
    memcpy(t + 10, "BAREMK", 6);
    fix_checksum(t, fill, 9);
    return ARENA_BASE + off;
}

static void seal(uint64_t phys)
{
    uint8_t *t = arena + (phys - ARENA_BASE);
    uint32_t len = t[4] | t[5] << 8 | t[6] << 16 | (uint32_t)t[7] << 24;
    fix_checksum(t, len, 9);
}

/* An RSDP (revision 2: RSDT and XSDT) at offset 0 and an XSDT/RSDT listing
 * entries; tables at 0x1000 + 0x1000 * i. */
static struct acpi_rsdp build(int revision, const uint64_t *entries, int n, bool xsdt_too)
{
    struct acpi_rsdp r;
    char why[64];
    uint64_t xsdt = table(0x200, "XSDT", 36 + 8 * n), rsdt = table(0x600, "RSDT", 36 + 4 * n);

    for (int i = 0; i < n; i++) {
        put64(arena + 0x200 + 36 + 8 * i, entries[i]);
        put32(arena + 0x600 + 36 + 4 * i, (uint32_t)entries[i]);
    }
    seal(xsdt);
    seal(rsdt);
    memset(arena, 0, 36);
    memcpy(arena, "RSD PTR ", 8);
    memcpy(arena + 9, "BAREMK", 6);
    arena[15] = (uint8_t)revision;
    put32(arena + 16, (uint32_t)rsdt);
    put32(arena + 20, 36);
    put64(arena + 24, xsdt_too ? xsdt : 0);
    fix_checksum(arena, 20, 8);
    fix_checksum(arena, 36, 32);
    assert_int_equal(acpi_rsdp_parse(arena, 36, &r, why, sizeof(why)), BM_OK);
    return r;
}

static uint64_t fadt_at(size_t off, uint64_t dsdt32, uint64_t xdsdt)
{
    uint64_t p = table(off, "FACP", 276);
    uint8_t *t = arena + off;
    put32(t + 40, (uint32_t)dsdt32);
    put32(t + 48, 0xb2);
    t[52] = 0xa0;
    put32(t + 64, 0x604);
    put32(t + 76, 0x608);
    put64(t + 140, xdsdt);
    seal(p);
    return p;
}

static void test_walk_finds_tables_and_the_dsdt(void **state)
{
    uint64_t e[4];
    struct acpi_rsdp r;
    uint32_t len;
    const uint8_t *t;

    (void)state;
    memset(arena, 0, sizeof(arena));
    uint64_t dsdt = table(0x3000, "DSDT", 64);
    e[0] = fadt_at(0x1000, 0, dsdt);
    e[1] = table(0x2000, "SSDT", 40);
    e[2] = table(0x2800, "SSDT", 44);
    e[3] = table(0x4000, "MCFG", 60);
    r = build(2, e, 4, true);
    assert_true(r.xsdt);
    t = acpi_find_table(&r, "SSDT", 1, arena_map, NULL, &len);
    assert_ptr_equal(t, arena + 0x2800);
    assert_int_equal(len, 44);
    assert_null(acpi_find_table(&r, "SSDT", 2, arena_map, NULL, &len));
    assert_ptr_equal(acpi_find_table(&r, "MCFG", 0, arena_map, NULL, &len), arena + 0x4000);
    /* The DSDT is not listed: reached through the FADT's X_DSDT. */
    assert_ptr_equal(acpi_find_table(&r, "DSDT", 0, arena_map, NULL, &len), arena + 0x3000);
    assert_null(acpi_find_table(&r, "HPET", 0, arena_map, NULL, &len));

    /* ACPI 1.0 (revision 0): the RSDT, 4-byte entries; a 32-bit DSDT. */
    e[0] = fadt_at(0x1000, dsdt, 0);
    r = build(0, e, 4, true);
    assert_false(r.xsdt);
    assert_ptr_equal(acpi_find_table(&r, "SSDT", 1, arena_map, NULL, &len), arena + 0x2800);
    assert_ptr_equal(acpi_find_table(&r, "DSDT", 0, arena_map, NULL, &len), arena + 0x3000);
}

static void test_walk_skips_what_acpica_refuses(void **state)
{
    uint64_t e[5];
    struct acpi_rsdp r;
    uint32_t len;

    (void)state;
    memset(arena, 0, sizeof(arena));
    e[0] = table(0x1000, "SSDT", 40);
    arena[0x1000 + 20] ^= 0x55;              /* checksum now wrong */
    e[1] = table(0x2000, "SSDT", 40);        /* length 0 below */
    put32(arena + 0x2000 + 4, 0);
    e[2] = 0x12345678000ull;                 /* into nowhere */
    e[3] = table(0x3000, "SSDT", 48);        /* the first good one */
    e[4] = table(0x4000, "SSDT", 0x10000);   /* runs past the arena */
    r = build(2, e, 5, true);
    assert_ptr_equal(acpi_find_table(&r, "SSDT", 0, arena_map, NULL, &len), arena + 0x3000);
    assert_int_equal(len, 48);
    assert_null(acpi_find_table(&r, "SSDT", 1, arena_map, NULL, &len));
    assert_int_equal(len, 0);
    /* No FADT: no DSDT either, and no read through a null address. */
    maps = 0;
    assert_null(acpi_find_table(&r, "DSDT", 0, arena_map, NULL, &len));
    assert_true(maps > 0);

    /* An XSDT whose own checksum is wrong lists nothing. */
    arena[0x200 + 36] ^= 1;
    assert_null(acpi_find_table(&r, "SSDT", 0, arena_map, NULL, &len));
}

static void test_rsdp(void **state)
{
    struct acpi_rsdp r;
    char why[64];
    uint64_t e[1];

    (void)state;
    memset(arena, 0, sizeof(arena));
    e[0] = table(0x1000, "SSDT", 40);
    build(2, e, 1, true);
    assert_int_equal(acpi_rsdp_parse(arena, 19, &r, why, sizeof(why)), BM_EINVAL);
    /* Revision 2 with a wrong extended checksum: the RSDT (ACPICA takes the
     * XSDT only from a valid extended structure). */
    arena[33] ^= 1;
    assert_int_equal(acpi_rsdp_parse(arena, 36, &r, why, sizeof(why)), BM_OK);
    assert_false(r.xsdt);
    assert_int_equal(r.sdt, ARENA_BASE + 0x600);
    /* Revision 2 read with only 20 bytes readable: the RSDT. */
    arena[33] ^= 1;
    assert_int_equal(acpi_rsdp_parse(arena, 20, &r, why, sizeof(why)), BM_OK);
    assert_false(r.xsdt);
    /* The 20-byte checksum wrong: refused, named. */
    arena[17] ^= 1;
    assert_int_equal(acpi_rsdp_parse(arena, 36, &r, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "checksum"));
    arena[17] ^= 1;
    memcpy(arena, "RSD PTX ", 8);
    assert_int_equal(acpi_rsdp_parse(arena, 36, &r, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "signature"));
}

static void test_fadt_bounds(void **state)
{
    struct acpi_fadt f;
    uint8_t *t = arena + 0x1000;

    (void)state;
    memset(arena, 0, sizeof(arena));
    fadt_at(0x1000, 0x1234, 0x5678);
    assert_int_equal(acpi_fadt_parse(t, 276, &f), BM_OK);
    assert_int_equal(f.dsdt, 0x5678);
    assert_int_equal(f.pm_tmr_port, 0x608);
    /* X_PM_TMR_BLK in system I/O wins; in memory it does not. */
    t[208] = 1;
    put64(t + 212, 0x1808);
    assert_int_equal(acpi_fadt_parse(t, 276, &f), BM_OK);
    assert_int_equal(f.pm_tmr_port, 0x1808);
    t[208] = 0;
    assert_int_equal(acpi_fadt_parse(t, 276, &f), BM_OK);
    assert_int_equal(f.pm_tmr_port, 0x608);
    /* Only 116 bytes readable (an ACPI 1.0 FADT's length): no X_ fields. */
    assert_int_equal(acpi_fadt_parse(t, 116, &f), BM_OK);
    assert_int_equal(f.dsdt, 0x1234);
    /* Fewer than 116 readable, or a header saying less: refused. */
    assert_int_equal(acpi_fadt_parse(t, 115, &f), BM_EINVAL);
    put32(t + 4, 100);
    assert_int_equal(acpi_fadt_parse(t, 276, &f), BM_EINVAL);
    put32(t + 4, 0);
    assert_int_equal(acpi_fadt_parse(t, 276, &f), BM_EINVAL);
}

static void test_hpet_and_mcfg_bounds(void **state)
{
    uint8_t *t = arena + 0x1000;
    uint64_t base;
    struct acpi_mcfg_window w[4];

    (void)state;
    memset(arena, 0, sizeof(arena));
    table(0x1000, "HPET", 56);
    put64(t + 44, 0xfed00000);
    assert_int_equal(acpi_hpet_parse(t, 56, &base), BM_OK);
    assert_int_equal(base, 0xfed00000);
    assert_int_equal(acpi_hpet_parse(t, 55, &base), BM_EINVAL);   /* cut short */
    t[40] = 1;                                                     /* in I/O space */
    assert_int_equal(acpi_hpet_parse(t, 56, &base), BM_EINVAL);

    table(0x1000, "MCFG", 44 + 3 * 16);
    put64(t + 44, 0xe0000000);
    t[44 + 11] = 0xff;
    put64(t + 60, 0xf0000000);                                     /* end bus below start */
    t[60 + 10] = 0x80;
    t[60 + 11] = 0x7f;
    put64(t + 76, 0x380000000000ull);
    put32(t + 76 + 8, 1);
    t[76 + 11] = 0x3f;
    assert_int_equal(acpi_mcfg_parse(t, 92, w, 4), 2);
    assert_int_equal(w[1].base, 0x380000000000ull);
    assert_int_equal(w[1].segment, 1);
    /* Only two entries readable: the third is not read. */
    assert_int_equal(acpi_mcfg_parse(t, 76 + 15, w, 4), 1);
    assert_int_equal(acpi_mcfg_parse(t, 92, w, 1), 1);
}

static void test_s5_forms(void **state)
{
    uint8_t *t = arena + 0x1000;
    unsigned a, b;
    static const uint8_t byteprefix[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x0a, 0x04, 0x0a, 0x07, 0x0a, 0x07, 0, 0 };
    static const uint8_t rooted[] = { 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x01, 0, 0 };
    static const uint8_t method[] = { 0x14, 0x0a, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x01, 0, 0 };

    (void)state;
    memset(arena, 0, sizeof(arena));
    table(0x1000, "DSDT", 36 + sizeof(byteprefix));
    memcpy(t + 36, byteprefix, sizeof(byteprefix));
    assert_true(acpi_dsdt_s5(t, 36 + sizeof(byteprefix), &a, &b));
    assert_int_equal(a, 7);
    assert_int_equal(b, 7);
    /* Cut inside the package: absent, nothing read past the end. */
    assert_false(acpi_dsdt_s5(t, 36 + 9, &a, &b));
    memcpy(t + 36, rooted, sizeof(rooted));
    assert_true(acpi_dsdt_s5(t, 36 + sizeof(byteprefix), &a, &b));
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    /* The name not after a NameOp (a method's name): not the package. */
    memcpy(t + 36, method, sizeof(method));
    assert_false(acpi_dsdt_s5(t, 36 + sizeof(byteprefix), &a, &b));
}

/* ---- Device paths ------------------------------------------------------------- */

static size_t node(uint8_t *p, uint8_t type, uint8_t sub, uint16_t len)
{
    memset(p, 0, len < 4 ? 4 : len);
    p[0] = type;
    p[1] = sub;
    p[2] = (uint8_t)len;
    p[3] = (uint8_t)(len >> 8);
    return len;
}

static void test_devpath_disks(void **state)
{
    uint8_t p[256];
    size_t at;
    struct devpath_disk d;
    uint8_t mac[6];

    (void)state;
    /* PciRoot/Pci/Sata(3,0xFFFF,0)/HD: the SATA port. */
    at = node(p, 0x02, 0x01, 12);
    at += node(p + at, 0x01, 0x01, 6);
    at += node(p + at, 0x03, 0x12, 10);
    p[at - 6] = 3;
    at += node(p + at, 0x04, 0x01, 42);
    at += node(p + at, 0x7f, 0xff, 4);
    assert_true(devpath_disk_node(p, at, &d));
    assert_int_equal(d.subtype, 0x12);
    assert_int_equal(d.port, 3);
    /* The bytes readable end inside the SATA node: not named. */
    assert_false(devpath_disk_node(p, 12 + 6 + 8, &d));

    /* Scsi(2,5) and NVMe(0x1,...). */
    at = node(p, 0x03, 0x02, 8);
    p[4] = 2;
    p[6] = 5;
    assert_true(devpath_disk_node(p, at, &d));
    assert_int_equal(d.port, 2);
    assert_int_equal(d.lun, 5);
    at = node(p, 0x03, 0x17, 16);
    p[4] = 7;
    assert_true(devpath_disk_node(p, at, &d));
    assert_int_equal(d.port, 7);

    /* A SATA node too short for its port is passed over; a node of length
     * 0 ends the walk instead of looping on it (EDK2 IsDevicePathValid). */
    at = node(p, 0x03, 0x12, 4);
    at += node(p + at, 0x03, 0x02, 8);
    p[at - 4] = 9;
    assert_true(devpath_disk_node(p, at, &d));
    assert_int_equal(d.subtype, 0x02);
    assert_int_equal(d.port, 9);
    node(p, 0x01, 0x01, 0);
    node(p + 4, 0x03, 0x02, 8);
    assert_false(devpath_disk_node(p, 12, &d));
    /* The end node stops the walk before a disk node after it. */
    at = node(p, 0x7f, 0xff, 4);
    at += node(p + at, 0x03, 0x02, 8);
    assert_false(devpath_disk_node(p, at, &d));

    /* MAC(525400123456,0x1): the address; a MAC node cut short: none. */
    at = node(p, 0x03, 0x0b, 37);
    memcpy(p + 4, "\x52\x54\x00\x12\x34\x56", 6);
    assert_true(devpath_mac_node(p, at, mac));
    assert_memory_equal(mac, "\x52\x54\x00\x12\x34\x56", 6);
    node(p, 0x03, 0x0b, 20);
    assert_false(devpath_mac_node(p, 20, mac));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_machines),
        cmocka_unit_test(test_walk_finds_tables_and_the_dsdt),
        cmocka_unit_test(test_walk_skips_what_acpica_refuses),
        cmocka_unit_test(test_rsdp),
        cmocka_unit_test(test_fadt_bounds),
        cmocka_unit_test(test_hpet_and_mcfg_bounds),
        cmocka_unit_test(test_s5_forms),
        cmocka_unit_test(test_devpath_disks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
