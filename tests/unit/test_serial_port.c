/* serial=: the options, the console device path, and which port auto
 * picks (SPCR, else the console's 16550, else COM1) and says it picked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform_sim.h"
#include "serial_port.h"

static struct config c;
static char err[CONFIG_ERR_LEN];
static uint8_t tbl[80];
static char json_buf[2048];
static struct json j;

static int setup(void **state)
{
    (void)state;
    config_defaults(&c);
    return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static const uint8_t *spcr(uint8_t type, uint8_t space, uint8_t access, uint64_t addr, uint8_t baud_code)
{
    memset(tbl, 0, sizeof(tbl));
    memcpy(tbl, "SPCR", 4);
    put32(tbl + 4, 80);
    tbl[8] = 2;
    tbl[36] = type;
    tbl[40] = space;
    tbl[41] = access == 3 ? 32 : 8;
    tbl[43] = access;
    put32(tbl + 44, (uint32_t)addr);
    put32(tbl + 48, (uint32_t)(addr >> 32));
    tbl[58] = baud_code;
    return tbl;
}

/* Device path nodes (UEFI 2.10 section 10.3). */
static size_t node(uint8_t *p, uint8_t type, uint8_t sub, size_t len)
{
    memset(p, 0, len);
    p[0] = type, p[1] = sub, p[2] = (uint8_t)len, p[3] = (uint8_t)(len >> 8);
    return len;
}
static size_t pci_node(uint8_t *p, uint8_t dev, uint8_t fn)
{
    node(p, 0x01, 0x01, 6);
    p[4] = fn, p[5] = dev;
    return 6;
}
static size_t pnp_node(uint8_t *p, uint16_t pnp, uint32_t uid)
{
    node(p, 0x02, 0x01, 12);
    put32(p + 4, 0x41d0u | (uint32_t)pnp << 16);
    put32(p + 8, uid);
    return 12;
}
static size_t uart_node(uint8_t *p, uint32_t baud)
{
    node(p, 0x03, 0x0e, 19);
    put32(p + 8, baud);
    p[16] = 8, p[17] = 1, p[18] = 1;
    return 19;
}

/* OVMF's ConOut on q35: the GOP, then PciRoot/Pci(1F,0)/Serial(UID)/Uart/VenPcAnsi. */
static size_t conout(uint8_t *buf, uint32_t uid, bool with_serial)
{
    size_t n = 0;
    n += pnp_node(buf + n, 0x0a03, 0);          /* PciRoot(0) */
    n += pci_node(buf + n, 1, 0);               /* the display */
    n += node(buf + n, 0x02, 0x08, 8);          /* AcpiAdr */
    n += node(buf + n, 0x7f, 0x01, 4);          /* end of instance */
    if (with_serial) {
        n += pnp_node(buf + n, 0x0a03, 0);
        n += pci_node(buf + n, 0x1f, 0);
        n += pnp_node(buf + n, 0x0501, uid);
        n += uart_node(buf + n, 115200);
        n += node(buf + n, 0x03, 0x0a, 20);     /* VenPcAnsi */
    }
    n += node(buf + n, 0x7f, 0xff, 4);
    return n;
}

static const char *plan_json(const struct serial_plan *p)
{
    json_init(&j, json_buf, sizeof(json_buf));
    json_obj_begin(&j, NULL);
    serial_plan_json(p, &j);
    json_obj_end(&j);
    return json_text(&j);
}

/* ---- options ---- */

static void test_serial_option_values(void **state)
{
    (void)state;
    assert_int_equal(c.serial, SERIAL_AUTO);
    assert_int_equal(config_set(&c, "serial", "com3", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial, SERIAL_FIXED);
    assert_int_equal(c.serial_uart.space, PLAT_UART_IO);
    assert_int_equal(c.serial_uart.base, 0x3e8);
    assert_int_equal(config_set(&c, "serial", "0x2f8", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial_uart.base, 0x2f8);
    assert_int_equal(config_set(&c, "serial", "mmio:0xfedc9000,32", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial_uart.space, PLAT_UART_MMIO);
    assert_int_equal(c.serial_uart.base, 0xfedc9000ull);
    assert_int_equal(c.serial_uart.reg_bytes, 4);
    assert_int_equal(config_set(&c, "serial", "mmio:0xfe030001", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial_uart.reg_bytes, 1);
    assert_int_equal(config_set(&c, "serial", "mmio:0xfe030000,8", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial_uart.reg_bytes, 1);
    assert_int_equal(config_set(&c, "serial", "off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial, SERIAL_OFF);
    assert_int_equal(config_set(&c, "serial", "auto", err, sizeof(err)), BM_OK);
    assert_int_equal(c.serial, SERIAL_AUTO);
    assert_false(c.baud_given);
    assert_int_equal(config_set(&c, "baud", "57600", err, sizeof(err)), BM_OK);
    assert_true(c.baud_given);
}

static void test_bad_serial_values_are_refused(void **state)
{
    static const char *bad[] = { "com0", "com5", "com12", "0x0", "0x10000", "mmio:", "mmio:0x0", "mmio:fe000000",
                                 "mmio:0xfe000002,32", "mmio:0xfe000000,16", "mmio:0xfe000000,", "mmio:0xzz",
                                 "auto,32", "" };
    (void)state;
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        err[0] = '\0';
        assert_int_equal(config_set(&c, "serial", bad[i], err, sizeof(err)), BM_EINVAL);
        assert_non_null(strstr(err, "mmio:0xADDR"));
    }
    assert_int_equal(c.serial, SERIAL_AUTO);
}

/* ---- the console device path ---- */

static void test_console_path_names_com_port_by_uid(void **state)
{
    uint8_t buf[256];
    struct plat_uart u;
    char desc[128];
    size_t n;
    (void)state;
    n = conout(buf, 0, true);
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_OK);
    assert_int_equal(u.space, PLAT_UART_IO);
    assert_int_equal(u.base, 0x3f8);
    assert_int_equal(u.baud, 115200);
    assert_non_null(strstr(desc, "PNP0501 UID 0"));
    n = conout(buf, 1, true);
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_OK);
    assert_int_equal(u.base, 0x2f8);
    n = conout(buf, 3, true);
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_OK);
    assert_int_equal(u.base, 0x2e8);
}

static void test_console_path_without_a_com_port(void **state)
{
    uint8_t buf[256];
    struct plat_uart u;
    char desc[128];
    size_t n = 0;
    (void)state;
    n = conout(buf, 0, false);                   /* video only */
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_ENODEV);
    /* A PCI serial card: a Uart node with no PNP0501 in front of it. */
    n = 0;
    n += pnp_node(buf + n, 0x0a03, 0);
    n += pci_node(buf + n, 3, 0);
    n += uart_node(buf + n, 115200);
    n += node(buf + n, 0x7f, 0xff, 4);
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_ENODEV);
    /* PNP0501 with a UID past COM4: no standard port to name. */
    n = conout(buf, 7, true);
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_ENODEV);
    /* A node whose length runs past the variable. */
    n = conout(buf, 0, true);
    buf[2] = 0xff;
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_EINVAL);
    buf[2] = 2;
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_EINVAL);
}

/* The Uart node's rate is used only when the 16550 driver can program it. */
static void test_console_path_unusual_baud_is_kept(void **state)
{
    uint8_t buf[256];
    struct plat_uart u;
    char desc[128];
    size_t n;
    (void)state;
    n = conout(buf, 1, true);
    put32(buf + 60 + 8, 0);                      /* Uart(0): the device's default */
    assert_int_equal(serial_console_path_uart(buf, n, &u, desc, sizeof(desc)), BM_OK);
    assert_int_equal(u.baud, 0);
}

/* ---- auto ---- */

static void test_auto_follows_spcr_to_com2(void **state)
{
    struct serial_plan p;
    uint8_t path[256];
    size_t n = conout(path, 0, true);
    (void)state;
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 7), path, (long)n);
    assert_int_equal(p.count, 2);                 /* COM1 is named by the console path already */
    assert_int_equal(p.c[0].source, SERIAL_SRC_SPCR);
    assert_int_equal(p.c[0].uart.base, 0x2f8);
    assert_int_equal(p.c[0].uart.baud, 115200);
    assert_int_equal(p.c[1].source, SERIAL_SRC_CONSOLE);
    assert_int_equal(p.c[1].uart.base, 0x3f8);
    assert_int_equal(serial_plan_open(&p), BM_OK);   /* the host's channel always opens */
    assert_int_equal(p.chosen, 0);
    assert_non_null(strstr(plan_json(&p), "\"serial\":{\"port\":\"0x2f8\",\"source\":\"spcr\",\"baud\":115200"));
    assert_null(strstr(json_buf, "passed_over"));
    serial_plan_human(&p, json_buf, sizeof(json_buf));
    assert_string_equal(json_buf, "\nrecords on serial 0x2f8 (SPCR names a 16550 at I/O port 0x2f8)");
}

static void test_auto_without_spcr_uses_the_console_port(void **state)
{
    struct serial_plan p;
    uint8_t path[256];
    size_t n = conout(path, 1, true);
    (void)state;
    serial_plan_build(&p, &c, NULL, path, (long)n);
    assert_int_equal(p.c[0].source, SERIAL_SRC_CONSOLE);
    assert_int_equal(p.c[0].uart.base, 0x2f8);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    plan_json(&p);
    assert_non_null(strstr(json_buf, "\"port\":\"0x2f8\",\"source\":\"console\""));
    assert_non_null(strstr(json_buf, "\"passed_over\":\"no SPCR table\""));
}

/* A malformed console device path (a node shorter than its header or
 * running past the variable) says so in desc and in the plan's note; the
 * note was the stack's leftovers before (fuzz_spcr). */
static void test_console_path_malformed_says_so(void **state)
{
    struct serial_plan p;
    uint8_t path[256];
    struct plat_uart u;
    char desc[128];
    size_t n = conout(path, 1, true);
    (void)state;
    path[2] = 2, path[3] = 0;              /* the first node's length below its header */
    memset(desc, 'x', sizeof(desc));
    assert_int_equal(serial_console_path_uart(path, n, &u, desc, sizeof(desc)), BM_EINVAL);
    assert_non_null(memchr(desc, '\0', sizeof(desc)));
    assert_non_null(strstr(desc, "malformed"));
    serial_plan_build(&p, &c, NULL, path, (long)n);
    assert_true(p.notes >= 2);
    assert_non_null(strstr(p.note[1].text, "console device path malformed"));
}

/* SPCR with redirection off and a console on video only: COM1, and the
 * record says why the better sources gave nothing. */
static void test_auto_falls_back_to_com1(void **state)
{
    struct serial_plan p;
    uint8_t path[256];
    size_t n = conout(path, 0, false);
    (void)state;
    serial_plan_build(&p, &c, spcr(0x00, 0, 0, 0, 0), path, (long)n);
    assert_int_equal(p.count, 2);
    assert_int_equal(p.c[0].source, SERIAL_SRC_DEFAULT);
    assert_int_equal(p.c[0].uart.base, 0x3f8);
    assert_int_equal(p.c[0].uart.baud, 115200);
    /* No usable SPCR: COM2 after COM1 (a BMC's SOL port). */
    assert_int_equal(p.c[1].uart.base, 0x2f8);
    assert_int_equal(p.c[1].uart.baud, 115200);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    assert_int_equal(p.also, -1);       /* no UART answers at COM2 */
    plan_json(&p);
    assert_non_null(strstr(json_buf, "\"port\":\"0x3f8\",\"source\":\"default\""));
    assert_non_null(strstr(json_buf, "address 0"));
    assert_non_null(strstr(json_buf, "names no COM port"));
    assert_null(strstr(json_buf, "\"also\""));
}

/* Headless server, no SPCR: COM1 answers and so does COM2 (iLO, iDRAC,
 * Supermicro SOL): the records go to both, and the run record says so. */
static void test_no_spcr_com2_gets_the_records_too(void **state)
{
    struct serial_plan p;
    char human[256];
    (void)state;
    serial_plan_build(&p, &c, NULL, NULL, 0);
    assert_int_equal(p.count, 2);
    plat_sim_serial_also(true);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    plat_sim_serial_also(false);
    assert_int_equal(p.chosen, 0);
    assert_int_equal(p.also, 1);
    plan_json(&p);
    assert_non_null(strstr(json_buf, "\"port\":\"0x3f8\""));
    assert_non_null(strstr(json_buf, "\"also\":\"0x2f8\""));
    serial_plan_human(&p, human, sizeof(human));
    assert_non_null(strstr(human, "and 0x2f8 (COM2)"));
}

/* A usable SPCR names the port: COM2 is not added beside it. */
static void test_spcr_leaves_com2_alone(void **state)
{
    struct serial_plan p;
    (void)state;
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x3f8, 7), NULL, 0);
    for (unsigned i = 0; i < p.count; i++)
        assert_int_not_equal(p.c[i].uart.base, 0x2f8);
    plat_sim_serial_also(true);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    plat_sim_serial_also(false);
    assert_int_equal(p.also, -1);
}

/* The same port named twice is one candidate, under the better source. */
static void test_spcr_and_console_naming_the_same_port(void **state)
{
    struct serial_plan p;
    uint8_t path[256];
    size_t n = conout(path, 1, true);
    (void)state;
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 0), path, (long)n);
    assert_int_equal(p.count, 2);
    assert_int_equal(p.c[0].source, SERIAL_SRC_SPCR);
    assert_int_equal(p.c[0].uart.baud, 0);        /* SPCR "as is" */
    assert_int_equal(p.c[1].source, SERIAL_SRC_DEFAULT);
}

/* A memory-mapped UART's clock is not the PC's: its rate is kept unless
 * baud= says otherwise. */
static void test_mmio_spcr_keeps_rate_unless_baud_given(void **state)
{
    struct serial_plan p;
    (void)state;
    serial_plan_build(&p, &c, spcr(0x12, 0, 3, 0xfedc9000ull, 7), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].source, SERIAL_SRC_SPCR);
    assert_int_equal(p.c[0].uart.space, PLAT_UART_MMIO);
    assert_int_equal(p.c[0].uart.reg_bytes, 4);
    assert_int_equal(p.c[0].uart.baud, 0);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    assert_non_null(strstr(plan_json(&p), "\"port\":\"mmio:0xfedc9000,32\",\"source\":\"spcr\",\"baud\":0"));
    assert_int_equal(config_set(&c, "baud", "57600", err, sizeof(err)), BM_OK);
    serial_plan_build(&p, &c, spcr(0x12, 0, 3, 0xfedc9000ull, 7), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].uart.baud, 57600);
}

/* baud= wins over the rate SPCR names; without it SPCR's code is used. */
static void test_baud_option_wins_over_spcr_rate(void **state)
{
    struct serial_plan p;
    (void)state;
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 4), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].uart.baud, 19200);
    assert_int_equal(config_set(&c, "baud", "38400", err, sizeof(err)), BM_OK);
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 4), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].uart.baud, 38400);
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 0), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].uart.baud, 38400);    /* even over "as is" */
}

static void test_explicit_port_ignores_spcr(void **state)
{
    struct serial_plan p;
    (void)state;
    assert_int_equal(config_set(&c, "serial", "com3", err, sizeof(err)), BM_OK);
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 7), NULL, BM_ENODEV);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.c[0].source, SERIAL_SRC_OPTION);
    assert_int_equal(p.c[0].uart.base, 0x3e8);
    assert_int_equal(p.c[0].uart.baud, 115200);
    assert_int_equal(serial_plan_open(&p), BM_OK);
    assert_non_null(strstr(plan_json(&p), "\"port\":\"0x3e8\",\"source\":\"option\""));
    assert_int_equal(config_set(&c, "serial", "mmio:0xfe030000", err, sizeof(err)), BM_OK);
    serial_plan_build(&p, &c, NULL, NULL, BM_ENODEV);
    assert_int_equal(p.c[0].uart.baud, 0);        /* unknown UART clock: keep the rate */
}

static void test_serial_off(void **state)
{
    struct serial_plan p;
    (void)state;
    assert_int_equal(config_set(&c, "serial", "off", err, sizeof(err)), BM_OK);
    serial_plan_build(&p, &c, spcr(0x00, 1, 1, 0x2f8, 7), NULL, BM_ENODEV);
    assert_true(p.off);
    assert_int_equal(serial_plan_open(&p), BM_ENODEV);
    assert_non_null(strstr(plan_json(&p), "\"serial\":{\"port\":\"off\",\"source\":\"option\"}"));
}

/* After bad options the records still go where auto would send them. */
static void test_bad_options_still_follow_spcr(void **state)
{
    struct serial_plan p;
    (void)state;
    serial_plan_build(&p, NULL, spcr(0x00, 1, 1, 0x2f8, 7), NULL, BM_ENODEV);
    assert_int_equal(p.c[0].source, SERIAL_SRC_SPCR);
    assert_int_equal(p.c[0].uart.base, 0x2f8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_serial_option_values, setup),
        cmocka_unit_test_setup(test_bad_serial_values_are_refused, setup),
        cmocka_unit_test_setup(test_console_path_names_com_port_by_uid, setup),
        cmocka_unit_test_setup(test_console_path_without_a_com_port, setup),
        cmocka_unit_test_setup(test_console_path_unusual_baud_is_kept, setup),
        cmocka_unit_test_setup(test_auto_follows_spcr_to_com2, setup),
        cmocka_unit_test_setup(test_auto_without_spcr_uses_the_console_port, setup),
        cmocka_unit_test_setup(test_auto_falls_back_to_com1, setup),
        cmocka_unit_test_setup(test_no_spcr_com2_gets_the_records_too, setup),
        cmocka_unit_test_setup(test_spcr_leaves_com2_alone, setup),
        cmocka_unit_test_setup(test_spcr_and_console_naming_the_same_port, setup),
        cmocka_unit_test_setup(test_mmio_spcr_keeps_rate_unless_baud_given, setup),
        cmocka_unit_test_setup(test_baud_option_wins_over_spcr_rate, setup),
        cmocka_unit_test_setup(test_explicit_port_ignores_spcr, setup),
        cmocka_unit_test_setup(test_serial_off, setup),
        cmocka_unit_test_setup(test_bad_options_still_follow_spcr, setup),
        cmocka_unit_test_setup(test_console_path_malformed_says_so, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
