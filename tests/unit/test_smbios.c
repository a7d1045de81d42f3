/* SMBIOS parser: tables captured from QEMU q35 + OVMF, tables built here
 * per DSP0134 3.6 to exercise each rule, and malformed tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "inventory/smbios.h"
#include "platform.h"

static struct smbios_info info; /* large: keep it off the stack */

/* A fixture from tests/unit/data (the runner's cwd is the repo root). */
static uint8_t *load_fixture(const char *name, size_t *len)
{
    char path[256];
    FILE *f;
    uint8_t *buf;
    long n;

    snprintf(path, sizeof(path), "tests/unit/data/%s", name);
    f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static const struct dimm *find_dimm(const char *locator)
{
    for (unsigned i = 0; i < info.ndimms; i++)
        if (!strcmp(info.dimms[i].locator, locator))
            return &info.dimms[i];
    fail_msg("no DIMM %s", locator);
    return NULL;
}

/* ---- A table builder: structures appended with their strings ---------------- */

struct builder {
    uint8_t buf[4096];
    size_t len;
};

/* Append a structure: formatted area (len bytes, header filled here) then
 * the strings (NULL-terminated list), then the set's final NUL. */
static uint8_t *add_struct(struct builder *b, uint8_t type, uint8_t len, uint16_t handle, const char *const *strings)
{
    uint8_t *p = b->buf + b->len;
    memset(p, 0, len);
    p[0] = type;
    p[1] = len;
    p[2] = (uint8_t)handle;
    p[3] = (uint8_t)(handle >> 8);
    b->len += len;
    if (!strings || !strings[0]) {
        b->buf[b->len++] = 0;
        b->buf[b->len++] = 0;
        return p;
    }
    for (; *strings; strings++) {
        size_t n = strlen(*strings) + 1;
        memcpy(b->buf + b->len, *strings, n);
        b->len += n;
    }
    b->buf[b->len++] = 0;
    return p;
}

static void add_end(struct builder *b)
{
    add_struct(b, 127, 4, 0xfeff, NULL);
}

static void put16(uint8_t *p, unsigned off, uint16_t v)
{
    p[off] = (uint8_t)v;
    p[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, unsigned off, uint32_t v)
{
    put16(p, off, (uint16_t)v);
    put16(p, off + 2, (uint16_t)(v >> 16));
}

/* A 3.3-length Memory Device with locator, bank, manufacturer, serial,
 * part as strings 1..5. */
static uint8_t *add_t17(struct builder *b, uint16_t handle, uint16_t size, uint32_t ext_size)
{
    static const char *const s[] = { "DIMM_A1", "BANK 0", "Hynix", "1234ABCD", "HMA82GR7AFR8N-VK", NULL };
    uint8_t *p = add_struct(b, 17, 0x5c, handle, s);
    put16(p, 0x0c, size);
    p[0x10] = 1;
    p[0x11] = 2;
    p[0x12] = 0x1a;
    p[0x17] = 3;
    p[0x18] = 4;
    p[0x1a] = 5;
    put32(p, 0x1c, ext_size);
    return p;
}

/* ---- Captured tables -------------------------------------------------------------- */

/* QEMU 7.2 q35, -m 2048, -smbios type=1/2/17 options; OVMF added type 0. */
static void test_qemu_q35_table_identity_and_dimm(void **state)
{
    size_t len;
    uint8_t *t = load_fixture("smbios_qemu_q35_2g.bin", &len);
    const struct dimm *d;

    (void)state;
    assert_int_equal(smbios_parse(t, len, 2, 8, &info), BM_OK);
    assert_true(info.saw_end);
    assert_int_equal(info.problems, 0);
    assert_string_equal(info.bios_vendor, "EFI Development Kit II / OVMF");
    assert_string_equal(info.bios_version, "0.0.0");
    assert_string_equal(info.bios_date, "02/06/2015");
    assert_string_equal(info.sys_manufacturer, "Baremark Labs");
    assert_string_equal(info.sys_product, "Inventory Rig");
    assert_string_equal(info.sys_serial, "INV-SERIAL-1");
    assert_string_equal(info.sys_uuid, ""); /* QEMU without -uuid: all zeros, "not set" */
    assert_string_equal(info.board_manufacturer, "Baremark Labs");
    assert_string_equal(info.board_product, "Test Board");
    assert_string_equal(info.board_serial, "BOARD-7");
    assert_int_equal(info.nprocs, 1);
    assert_string_equal(info.procs[0].socket, "CPU 0");
    assert_true(info.procs[0].populated);
    assert_int_equal(info.procs[0].cores, 2);
    assert_int_equal(info.procs[0].threads, 2);

    assert_int_equal(info.ndimms, 1);
    d = &info.dimms[0];
    assert_string_equal(d->locator, "DIMM 0");
    assert_string_equal(d->bank, "");
    assert_int_equal(d->size_mb, 2048);
    assert_false(d->size_unknown);
    assert_string_equal(d->mem_type, "RAM");
    assert_int_equal(d->speed_mts, 2933);
    assert_int_equal(d->configured_mts, 2933);
    assert_int_equal(d->ranks, 0);
    assert_string_equal(d->manufacturer, "QEMU Memory");
    assert_string_equal(d->part, "QM-2G");
    assert_string_equal(d->serial, "D1MM-S3R");
    free(t);
}

/* The same machine fed 16 type 17 structures of a two-socket board
 * (tests/qemu/test_inventory.py SERVER_DIMMS), as OVMF installed them. */
static void test_qemu_server_table_dimms(void **state)
{
    size_t len;
    uint8_t *t = load_fixture("smbios_qemu_q35_server16.bin", &len);
    const struct dimm *d;
    unsigned populated = 0;

    (void)state;
    assert_int_equal(smbios_parse(t, len, 2, 8, &info), BM_OK);
    assert_int_equal(info.ndimms, 16);
    for (unsigned i = 0; i < info.ndimms; i++)
        populated += dimm_populated(&info.dimms[i]);
    assert_int_equal(populated, 9);

    d = find_dimm("P1-DIMMA1");
    assert_string_equal(d->bank, "P0_Node0_Channel0_Dimm0");
    assert_int_equal(d->size_mb, 16384);
    assert_string_equal(d->mem_type, "DDR4");
    assert_int_equal(d->speed_mts, 3200);
    assert_int_equal(d->configured_mts, 2933);
    assert_int_equal(d->ranks, 2);
    assert_string_equal(d->manufacturer, "Samsung");
    assert_string_equal(d->part, "M393A2K43DB3-CWE");

    d = find_dimm("P1-DIMMA2");
    assert_int_equal(d->size_mb, 8192);
    assert_int_equal(d->speed_mts, 2666);
    assert_int_equal(d->ranks, 1);
    assert_string_equal(d->serial, "0BADC0DE");

    d = find_dimm("P1-DIMMB2");
    assert_false(dimm_populated(d));
    assert_string_equal(d->manufacturer, "NO DIMM");

    d = find_dimm("P2-DIMMD1"); /* 64 GB: Size 7FFFh, Extended Size 65536 */
    assert_int_equal(d->size_mb, 65536);

    d = find_dimm("P2-DIMMC1"); /* speeds in the 3.3 extended fields */
    assert_int_equal(d->speed_mts, 3200);
    assert_int_equal(d->configured_mts, 2933);
    free(t);
}

/* Every prefix of a real table parses without reading past it, and
 * reports the cut as a problem. */
static void test_every_truncation_of_a_real_table_is_reported(void **state)
{
    size_t len;
    uint8_t *t = load_fixture("smbios_qemu_q35_2g.bin", &len);

    (void)state;
    for (size_t cut = 0; cut < len; cut++) {
        /* An exact-size copy, so a read past the cut would be a read past
         * the allocation (caught under valgrind/ASan). */
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, t, cut);
        assert_int_equal(smbios_parse(copy, cut, 2, 8, &info), BM_EINVAL);
        assert_true(info.problems > 0);
        assert_true(info.ndimms <= 1);
        free(copy);
    }
    free(t);
}

/* ---- Rules of the Memory Device structure ------------------------------------------ */

static void test_dimm_size_rules(void **state)
{
    struct builder b = { .len = 0 };

    (void)state;
    add_t17(&b, 1, 0x0000, 0);              /* empty slot */
    add_t17(&b, 2, 0x4000, 0);              /* 16384 MB */
    add_t17(&b, 3, 0x8000 | 512, 0);        /* 512 KB: KB granularity */
    add_t17(&b, 4, 0xffff, 0);              /* unknown */
    add_t17(&b, 5, 0x7fff, 0x80000 | 0x80000000u); /* extended: 512 GB, bit 31 reserved */
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_OK);
    assert_int_equal(info.ndimms, 5);
    assert_int_equal(info.dimms[0].size_mb, 0);
    assert_false(dimm_populated(&info.dimms[0]));
    assert_int_equal(info.dimms[1].size_mb, 16384);
    assert_int_equal(info.dimms[2].size_mb, 1); /* rounded up: not mistaken for empty */
    assert_true(dimm_populated(&info.dimms[2]));
    assert_true(info.dimms[3].size_unknown);
    assert_true(dimm_populated(&info.dimms[3]));
    assert_int_equal(info.dimms[4].size_mb, 0x80000);
}

/* A 2.3-length structure (0x1B) has no Extended Size: 7FFFh then means
 * nothing we can read, so the size is unknown rather than 32767 MB. */
static void test_extended_size_absent_in_short_structure(void **state)
{
    struct builder b = { .len = 0 };
    static const char *const s[] = { "DIMM 0", NULL };
    uint8_t *p = add_struct(&b, 17, 0x1b, 1, s);

    (void)state;
    put16(p, 0x0c, 0x7fff);
    p[0x10] = 1;
    put16(p, 0x15, 0xffff); /* extended speed that the structure is too short to hold */
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 2, 3, &info), BM_OK);
    assert_true(info.dimms[0].size_unknown);
    assert_int_equal(info.dimms[0].speed_mts, 0);
    assert_int_equal(info.dimms[0].configured_mts, 0); /* field past the length reads as unknown */
    assert_int_equal(info.dimms[0].ranks, 0);
}

static void test_speeds_ranks_and_strings(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *p = add_t17(&b, 1, 32768 >> 1, 0);

    (void)state;
    put16(p, 0x15, 4800);
    put16(p, 0x20, 4400);
    p[0x1b] = 0xf4; /* rank 4 in bits 3:0; the upper bits are other attributes */
    p[0x12] = 0x22;
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_OK);
    assert_int_equal(info.dimms[0].speed_mts, 4800);
    assert_int_equal(info.dimms[0].configured_mts, 4400);
    assert_int_equal(info.dimms[0].ranks, 4);
    assert_string_equal(info.dimms[0].mem_type, "DDR5");
    assert_string_equal(info.dimms[0].locator, "DIMM_A1");
    assert_string_equal(info.dimms[0].bank, "BANK 0");
    assert_string_equal(info.dimms[0].manufacturer, "Hynix");
    assert_string_equal(info.dimms[0].serial, "1234ABCD");
    assert_string_equal(info.dimms[0].part, "HMA82GR7AFR8N-VK");
}

static void test_memory_type_names(void **state)
{
    (void)state;
    assert_string_equal(smbios_memory_type_name(0x14), "DDR2 FB-DIMM");
    assert_string_equal(smbios_memory_type_name(0x18), "DDR3");
    assert_string_equal(smbios_memory_type_name(0x19), "FBD2");
    assert_string_equal(smbios_memory_type_name(0x1a), "DDR4");
    assert_string_equal(smbios_memory_type_name(0x1e), "LPDDR4");
    assert_string_equal(smbios_memory_type_name(0x22), "DDR5");
    assert_string_equal(smbios_memory_type_name(0x23), "LPDDR5");
    assert_string_equal(smbios_memory_type_name(0x16), "Reserved");
    assert_string_equal(smbios_memory_type_name(0x80), "Reserved");
    assert_string_equal(smbios_memory_type_name(0x00), "Unknown");
}

/* 7.5: a core/thread count byte of FFh defers to the 16-bit field. */
static void test_processor_core_count_2(void **state)
{
    struct builder b = { .len = 0 };
    static const char *const s[] = { "CPU1", "Intel(R) Corporation", "Xeon 6980P", NULL };
    uint8_t *p = add_struct(&b, 4, 0x30, 0x400, s);

    (void)state;
    p[0x04] = 1;
    p[0x07] = 2;
    p[0x10] = 3;
    p[0x18] = 0x41; /* populated, enabled */
    p[0x23] = 0xff;
    p[0x24] = 0xff;
    p[0x25] = 0xff;
    put16(p, 0x2a, 320);
    put16(p, 0x2c, 256);
    put16(p, 0x2e, 640);
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 6, &info), BM_OK);
    assert_int_equal(info.nprocs, 1);
    assert_string_equal(info.procs[0].socket, "CPU1");
    assert_string_equal(info.procs[0].version, "Xeon 6980P");
    assert_true(info.procs[0].populated);
    assert_int_equal(info.procs[0].cores, 320);
    assert_int_equal(info.procs[0].cores_enabled, 256);
    assert_int_equal(info.procs[0].threads, 640);
}

/* 7.2.1: from 2.6 the first three UUID fields are little-endian. */
static void test_uuid_byte_order_by_version(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *p = add_struct(&b, 1, 0x1b, 0x100, NULL);

    (void)state;
    for (int i = 0; i < 16; i++)
        p[0x08 + i] = (uint8_t)(i + 1);
    add_end(&b);
    smbios_parse(b.buf, b.len, 3, 0, &info);
    assert_string_equal(info.sys_uuid, "04030201-0605-0807-090a-0b0c0d0e0f10");
    smbios_parse(b.buf, b.len, 2, 4, &info);
    assert_string_equal(info.sys_uuid, "01020304-0506-0708-090a-0b0c0d0e0f10");
}

/* ---- Malformed tables --------------------------------------------------------------- */

static void test_length_below_header_stops_parsing(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *bad;

    (void)state;
    add_t17(&b, 1, 1024, 0);
    bad = add_struct(&b, 17, 0x5c, 2, NULL);
    bad[1] = 2; /* a length that cannot even hold the header */
    add_t17(&b, 3, 2048, 0);
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_EINVAL);
    assert_int_equal(info.ndimms, 1);
    assert_int_equal(info.dimms[0].size_mb, 1024);
    assert_non_null(strstr(info.problem, "length 2"));
}

static void test_length_past_table_end(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *p;

    (void)state;
    add_t17(&b, 1, 1024, 0);
    p = add_struct(&b, 17, 0x5c, 2, NULL);
    p[1] = 0xff; /* formatted area would run past the table */
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_EINVAL);
    assert_int_equal(info.ndimms, 1);
    assert_non_null(strstr(info.problem, "past the table end"));
}

/* Strings with no double-NUL before the table ends: the formatted area
 * still counts, and string reads stop at the table end. */
static void test_unterminated_strings(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *p = add_t17(&b, 1, 4096, 0);

    (void)state;
    (void)p;
    b.len -= 3; /* drop the set's final NUL, the last string's NUL and its last byte */
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_EINVAL);
    assert_int_equal(info.ndimms, 1);
    assert_int_equal(info.dimms[0].size_mb, 4096);
    assert_string_equal(info.dimms[0].locator, "DIMM_A1");
    assert_string_equal(info.dimms[0].part, "HMA82GR7AFR8N-V"); /* cut at the table end */
    assert_non_null(strstr(info.problem, "not terminated"));
}

static void test_string_index_past_the_set(void **state)
{
    struct builder b = { .len = 0 };
    uint8_t *p = add_t17(&b, 1, 4096, 0);

    (void)state;
    p[0x1a] = 9; /* part number: string 9 of 5 */
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_EINVAL);
    assert_int_equal(info.ndimms, 1);
    assert_string_equal(info.dimms[0].part, "");
    assert_string_equal(info.dimms[0].serial, "1234ABCD");
    assert_non_null(strstr(info.problem, "string 9"));
}

static void test_non_printable_bytes_are_replaced(void **state)
{
    struct builder b = { .len = 0 };
    static const char *const s[] = { "  DIMM\x01\xff A1  ", NULL };
    uint8_t *p = add_struct(&b, 17, 0x5c, 1, s);

    (void)state;
    p[0x10] = 1;
    add_end(&b);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_OK);
    assert_string_equal(info.dimms[0].locator, "DIMM?? A1");
}

static void test_missing_end_structure_and_empty_table(void **state)
{
    struct builder b = { .len = 0 };

    (void)state;
    add_t17(&b, 1, 1024, 0);
    assert_int_equal(smbios_parse(b.buf, b.len, 3, 3, &info), BM_EINVAL);
    assert_int_equal(info.ndimms, 1);
    assert_false(info.saw_end);
    assert_int_equal(smbios_parse(NULL, 0, 3, 3, &info), BM_EINVAL);
    assert_int_equal(smbios_parse(b.buf, 3, 3, 3, &info), BM_EINVAL);
}

/* Random bytes: the parser must return, never loop or overrun. */
static void test_random_tables_terminate(void **state)
{
    struct bm_rng rng;
    static uint8_t buf[512];

    (void)state;
    bm_rng_seed(&rng, 17);
    for (int round = 0; round < 2000; round++) {
        size_t len = 4 + bm_rng_below(&rng, sizeof(buf) - 4);
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)bm_rng_next(&rng);
        smbios_parse(buf, len, 3, 3, &info);
        assert_true(info.ndimms <= SMBIOS_MAX_DIMMS);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qemu_q35_table_identity_and_dimm),
        cmocka_unit_test(test_qemu_server_table_dimms),
        cmocka_unit_test(test_every_truncation_of_a_real_table_is_reported),
        cmocka_unit_test(test_dimm_size_rules),
        cmocka_unit_test(test_extended_size_absent_in_short_structure),
        cmocka_unit_test(test_speeds_ranks_and_strings),
        cmocka_unit_test(test_memory_type_names),
        cmocka_unit_test(test_processor_core_count_2),
        cmocka_unit_test(test_uuid_byte_order_by_version),
        cmocka_unit_test(test_length_below_header_stops_parsing),
        cmocka_unit_test(test_length_past_table_end),
        cmocka_unit_test(test_unterminated_strings),
        cmocka_unit_test(test_string_index_past_the_set),
        cmocka_unit_test(test_non_printable_bytes_are_replaced),
        cmocka_unit_test(test_missing_end_structure_and_empty_table),
        cmocka_unit_test(test_random_tables_terminate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
