/* The SPCR parser against test-built tables: what Linux acpi_parse_spcr()
 * accepts as a 16550, and what real firmware ships with redirection off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "spcr.h"

static uint8_t tbl[96];
static char why[128];

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A revision-2 SPCR table (80 bytes) as firmware builds it. */
static const uint8_t *spcr(uint8_t type, uint8_t space, uint8_t bit_width, uint8_t access, uint64_t addr,
                           uint8_t baud_code)
{
    memset(tbl, 0, sizeof(tbl));
    memcpy(tbl, "SPCR", 4);
    put32(tbl + 4, 80);
    tbl[8] = 2;
    memcpy(tbl + 10, "BAREMK", 6);
    tbl[36] = type;
    tbl[40] = space;
    tbl[41] = bit_width;
    tbl[42] = 0;
    tbl[43] = access;
    put32(tbl + 44, (uint32_t)addr);
    put32(tbl + 48, (uint32_t)(addr >> 32));
    tbl[52] = 1;          /* interrupt type: 8259 */
    tbl[53] = 3;          /* IRQ 3 */
    tbl[58] = baud_code;
    tbl[60] = 1;          /* stop bits */
    tbl[62] = 0;          /* VT100 */
    tbl[64] = 0xff, tbl[65] = 0xff, tbl[66] = 0xff, tbl[67] = 0xff;   /* not a PCI UART */
    return tbl;
}

static void test_io_port_com2_at_115200(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 1, 8, 1, 0x2f8, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.space, PLAT_UART_IO);
    assert_int_equal(u.base, 0x2f8);
    assert_int_equal(u.reg_bytes, 1);
    assert_int_equal(u.baud, 115200);
    assert_non_null(strstr(why, "I/O port 0x2f8"));
}

static void test_baud_codes(void **state)
{
    static const struct { uint8_t code; uint32_t baud; } codes[] = {
        { 3, 9600 }, { 4, 19200 }, { 6, 57600 }, { 7, 115200 }, { 0, 0 }, { 5, 0 }, { 9, 0 },
    };
    struct plat_uart u;
    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
        spcr(0x01, 1, 8, 1, 0x3f8, codes[i].code);
        assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
        assert_int_equal(u.baud, codes[i].baud);
    }
}

/* Baud 0 is "as is": the port is still named; its rate is left alone. */
static void test_baud_zero_names_the_port_as_is(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 1, 8, 1, 0x2f8, 0);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.base, 0x2f8);
    assert_int_equal(u.baud, 0);
}

static void test_mmio_8_bit_registers(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 0, 8, 1, 0xfedc9000ull, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.space, PLAT_UART_MMIO);
    assert_int_equal(u.base, 0xfedc9000ull);
    assert_int_equal(u.reg_bytes, 1);
}

/* An AMD EPYC-style DesignWare UART: 16550 with GAS (0x12), dword access. */
static void test_mmio_32_bit_registers(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x12, 0, 32, 3, 0x1fedc9000ull, 0);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.space, PLAT_UART_MMIO);
    assert_int_equal(u.base, 0x1fedc9000ull);
    assert_int_equal(u.reg_bytes, 4);
    assert_non_null(strstr(why, "32-bit"));
}

/* Access size "undefined" (legacy tables): the register bit width decides;
 * with neither saying 32, bytes, as Linux defaults. */
static void test_mmio_legacy_access_size_uses_bit_width(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 0, 32, 0, 0xfe030000ull, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.reg_bytes, 4);
    spcr(0x00, 0, 8, 0, 0xfe030000ull, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.reg_bytes, 1);
}

static void test_mmio_16_and_64_bit_access_refused(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 0, 16, 2, 0xfe030000ull, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "16-bit"));
    spcr(0x00, 0, 64, 4, 0xfe030000ull, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
}

/* Redirection switched off in setup: the table stays, the address is 0. */
static void test_all_zero_address_names_no_port(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 0, 0, 0, 0, 0);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENODEV);
    assert_non_null(strstr(why, "address 0"));
    spcr(0x00, 1, 8, 1, 0, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENODEV);
}

static void test_non_16550_interface_types_refused(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x0f, 0, 32, 3, 0x9000000, 3);        /* ARM DCC: no UART registers at all */
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "DCC"));
    spcr(0x2a, 1, 8, 1, 0x2f8, 7);             /* a type nobody defined */
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "0x2a"));
    spcr(0x00, 2, 8, 1, 0x2f8, 7);             /* PCI configuration space */
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    spcr(0x00, 1, 8, 1, 0x12345, 7);           /* beyond the I/O space */
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
}

/* Interface type 0x03, as QEMU virt's firmware builds it (build_spcr():
 * PL011 at 0x9000000, 32-bit access, 115200 code): a PL011, its rate left
 * to the firmware, as Linux's pl011 earlycon leaves it. */
static void test_arm_pl011_selected(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x03, 0, 32, 3, 0x9000000, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.kind, PLAT_UART_PL011);
    assert_int_equal(u.space, PLAT_UART_MMIO);
    assert_int_equal(u.base, 0x9000000);
    assert_int_equal(u.reg_bytes, 4);
    assert_int_equal(u.baud, 0);
    assert_non_null(strstr(why, "PL011"));
    /* A legacy table with byte access still gets 32-bit registers. */
    spcr(0x03, 0, 8, 1, 0x9000000, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.reg_bytes, 4);
}

/* Types 0x0E and 0x0D: the SBSA Generic UART (Ampere, Grace and other
 * SBSA servers), driven through its data and flag registers only. */
static void test_arm_sbsa_generic_uart_selected(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x0e, 0, 32, 3, 0x100002600000ull, 0);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.kind, PLAT_UART_SBSA);
    assert_int_equal(u.base, 0x100002600000ull);
    assert_int_equal(u.reg_bytes, 4);
    assert_non_null(strstr(why, "SBSA generic"));
    spcr(0x0d, 0, 32, 3, 0x2a400000, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.kind, PLAT_UART_SBSA);
    /* A 16550 table is still a 16550. */
    spcr(0x00, 0, 8, 1, 0xfe001000, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.kind, PLAT_UART_16550);
}

/* An Arm UART only exists memory mapped and on 32-bit registers. */
static void test_arm_uart_in_io_space_or_misaligned_refused(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x03, 1, 8, 1, 0x3f8, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "not memory"));
    spcr(0x0e, 0, 32, 3, 0x9000002, 7);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_ENOTSUP);
    assert_non_null(strstr(why, "not aligned"));
}

static void test_truncated_or_foreign_table_refused(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 1, 8, 1, 0x2f8, 7);
    put32(tbl + 4, 52);                        /* header says it ends inside the GAS */
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_EINVAL);
    assert_non_null(strstr(why, "truncated"));
    spcr(0x00, 1, 8, 1, 0x2f8, 7);
    assert_int_equal(spcr_parse(tbl, 50, &u, why, sizeof(why)), BM_EINVAL);   /* fewer bytes readable */
    memcpy(tbl, "DBG2", 4);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_EINVAL);
    assert_int_equal(spcr_parse(NULL, 0, &u, why, sizeof(why)), BM_EINVAL);
}

/* Revision 4: Precise Baud Rate, when non-zero, overrides the code. */
static void test_revision_4_precise_baud_rate(void **state)
{
    struct plat_uart u;
    (void)state;
    spcr(0x00, 1, 8, 1, 0x2f8, 7);
    tbl[8] = 4;
    put32(tbl + 4, 90);
    put32(tbl + 81, 38400);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.baud, 38400);
    put32(tbl + 81, 0);
    assert_int_equal(spcr_parse(tbl, sizeof(tbl), &u, why, sizeof(why)), BM_OK);
    assert_int_equal(u.baud, 115200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_io_port_com2_at_115200),
        cmocka_unit_test(test_baud_codes),
        cmocka_unit_test(test_baud_zero_names_the_port_as_is),
        cmocka_unit_test(test_mmio_8_bit_registers),
        cmocka_unit_test(test_mmio_32_bit_registers),
        cmocka_unit_test(test_mmio_legacy_access_size_uses_bit_width),
        cmocka_unit_test(test_mmio_16_and_64_bit_access_refused),
        cmocka_unit_test(test_all_zero_address_names_no_port),
        cmocka_unit_test(test_non_16550_interface_types_refused),
        cmocka_unit_test(test_truncated_or_foreign_table_refused),
        cmocka_unit_test(test_arm_pl011_selected),
        cmocka_unit_test(test_arm_sbsa_generic_uart_selected),
        cmocka_unit_test(test_arm_uart_in_io_space_or_misaligned_refused),
        cmocka_unit_test(test_revision_4_precise_baud_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
