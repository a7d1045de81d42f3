/* serial=auto: follow the firmware's console redirection. */
#include "serial_port.h"
#include "spcr.h"

#define PC_UART_CLOCK_DIV_BASE 115200 /* 1.8432 MHz / 16: the PC COM ports' clock */

/* UEFI 2.10 section 10.3: device path node types. */
#define DP_TYPE_ACPI 0x02
#define DP_ACPI_HID 0x01               /* HID u32, UID u32 */
#define DP_TYPE_MESSAGING 0x03
#define DP_MSG_UART 0x0e               /* reserved u32, baud u64, data bits, parity, stop bits */
#define DP_TYPE_END 0x7f
#define DP_END_INSTANCE 0x01
#define DP_END_ENTIRE 0xff
#define EISA_PNP(n) (0x41d0u | (uint32_t)(n) << 16)  /* compressed "PNP" + product number */

static const uint16_t com_ports[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };

const char *serial_source_name(enum serial_source s)
{
    switch (s) {
    case SERIAL_SRC_OPTION: return "option";
    case SERIAL_SRC_SPCR: return "spcr";
    case SERIAL_SRC_CONSOLE: return "console";
    default: return "default";
    }
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* A rate the 16550 driver can program on a PC UART, else 0 (keep). */
static uint32_t programmable(uint64_t baud)
{
    return baud && baud <= PC_UART_CLOCK_DIV_BASE && PC_UART_CLOCK_DIV_BASE % baud == 0 ? (uint32_t)baud : 0;
}

/* Does the instance going on at p end with an end node inside the
 * buffer? The firmware walks it to that node (LocateDevicePath). */
static bool instance_ends(const uint8_t *p, const uint8_t *end)
{
    while (p + 4 <= end) {
        uint16_t nlen = (uint16_t)(p[2] | p[3] << 8);
        if (nlen < 4 || p + nlen > end)
            return false;
        if (p[0] == DP_TYPE_END)
            return true;
        p += nlen;
    }
    return false;
}

int serial_console_path_uart(const void *path, size_t len, struct plat_uart *u, char *desc, size_t desc_len)
{
    const uint8_t *p = path, *end = p + len, *instance = p, *pnp_end = NULL;
    uint32_t hid = 0, uid = 0;
    uint16_t port;

    memset(u, 0, sizeof(*u));
    while (p + 4 <= end) {
        uint8_t type = p[0], sub = p[1];
        uint16_t nlen = (uint16_t)(p[2] | p[3] << 8);

        if (nlen < 4 || nlen > end - p) {
            snprintf(desc, desc_len, "console device path malformed: a node of %u bytes at offset %u of %u",
                     nlen, (unsigned)(p - (const uint8_t *)path), (unsigned)len);
            return BM_EINVAL;
        }
        if (type == DP_TYPE_END) {
            if (sub == DP_END_ENTIRE)
                break;
            pnp_end = NULL;          /* next instance */
            instance = p + nlen;
        } else if (type == DP_TYPE_ACPI && sub == DP_ACPI_HID && nlen >= 12) {
            hid = le32(p + 4);
            uid = le32(p + 8);
            pnp_end = hid == EISA_PNP(0x0501) || hid == EISA_PNP(0x0500) ? p + nlen : NULL;
        } else if (type == DP_TYPE_MESSAGING && sub == DP_MSG_UART && nlen >= 19 && pnp_end) {
            uint64_t baud = le32(p + 8) | (uint64_t)le32(p + 12) << 32;
            u->space = PLAT_UART_IO;
            u->reg_bytes = 1;
            u->baud = programmable(baud);
            /* The port itself, from the Super I/O device's resources when
             * the firmware publishes them; else the UID as EDK2 SioBusDxe
             * numbers COM1 and COM2. */
            if (instance_ends(p, end) && plat_sio_io_port(instance, (size_t)(pnp_end - instance), &port) == BM_OK &&
                port) {
                u->base = port;
                snprintf(desc, desc_len, "console device path: PNP%04X UID %u at I/O 0x%x (Super I/O resources), "
                         "Uart %llu baud", hid >> 16, uid, port, (unsigned long long)baud);
                return BM_OK;
            }
            if (uid < 4) {
                u->base = com_ports[uid];
                snprintf(desc, desc_len, "console device path: PNP%04X UID %u (COM%u by its UID), Uart %llu baud",
                         hid >> 16, uid, uid + 1, (unsigned long long)baud);
                return BM_OK;
            }
        }
        p += nlen;
    }
    snprintf(desc, desc_len, "console device path names no COM port (PNP0501 with a Uart node)");
    return BM_ENODEV;
}

static bool same_uart(const struct plat_uart *a, const struct plat_uart *b)
{
    return a->space == b->space && a->base == b->base;
}

static void add_note(struct serial_plan *p, enum serial_source s, const char *text)
{
    if (p->notes >= SERIAL_MAX_NOTES)
        return;
    p->note[p->notes].source = s;
    bm_strlcpy(p->note[p->notes].text, text, sizeof(p->note[0].text));
    p->notes++;
}

static void add_candidate(struct serial_plan *p, enum serial_source s, const struct plat_uart *u, const char *detail)
{
    for (unsigned i = 0; i < p->count; i++)
        if (same_uart(&p->c[i].uart, u))
            return;            /* named twice: the better source stands */
    if (p->count >= SERIAL_MAX_CANDIDATES)
        return;
    p->c[p->count].uart = *u;
    p->c[p->count].source = s;
    bm_strlcpy(p->c[p->count].detail, detail, sizeof(p->c[0].detail));
    p->count++;
}

/* The rate to program: baud= when given; else the rate the source named
 * if the driver can program it on a PC UART; 0 (keep the firmware's) for
 * memory-mapped UARTs, whose input clock need not be the PC's 1.8432 MHz
 * (SPCR revision 3 gives it; the firmware has already set the divisor). */
static uint32_t pick_baud(const struct config *c, const struct plat_uart *u, uint32_t named)
{
    if (c->baud_given)
        return c->baud;
    if (u->space == PLAT_UART_MMIO)
        return 0;
    return programmable(named);
}

void serial_plan_build(struct serial_plan *p, const struct config *c, const void *spcr, const void *conout,
                       long conout_len)
{
    static struct config defaults;
    struct plat_uart u;
    char text[SERIAL_DETAIL_LEN];

    memset(p, 0, sizeof(*p));
    p->chosen = p->also = -1;
    if (!c) {
        config_defaults(&defaults);
        c = &defaults;
    }
    if (c->serial == SERIAL_OFF) {
        p->off = true;
        return;
    }
    if (c->serial == SERIAL_FIXED) {
        char name[40];
        u = c->serial_uart;
        u.baud = pick_baud(c, &u, c->baud);
        serial_port_name(&u, name, sizeof(name));
        snprintf(text, sizeof(text), "serial=%s", name);
        add_candidate(p, SERIAL_SRC_OPTION, &u, text);
        return;
    }

    if (!spcr) {
        add_note(p, SERIAL_SRC_SPCR, "no SPCR table");
    } else {
        /* The firmware's table: its header's length is its extent. */
        if (spcr_parse(spcr, le32((const uint8_t *)spcr + 4), &u, text, sizeof(text)) == BM_OK) {
            u.baud = pick_baud(c, &u, u.baud);
            add_candidate(p, SERIAL_SRC_SPCR, &u, text);
        } else {
            add_note(p, SERIAL_SRC_SPCR, text);
        }
    }

    if (conout && conout_len > 0) {
        if (serial_console_path_uart(conout, (size_t)conout_len, &u, text, sizeof(text)) == BM_OK) {
            u.baud = pick_baud(c, &u, u.baud);
            add_candidate(p, SERIAL_SRC_CONSOLE, &u, text);
        } else {
            add_note(p, SERIAL_SRC_CONSOLE, text);
        }
    } else {
        add_note(p, SERIAL_SRC_CONSOLE, "no console device path (ConOut)");
    }

    /* COM1 is a PC's port; on Arm there are no I/O ports, only what SPCR
     * names (as Linux's earlycon follows SPCR alone there). */
    if (!plat_has_port_io()) {
        add_note(p, SERIAL_SRC_DEFAULT, "no COM1 default: no I/O ports on " PLAT_ARCH_NAME);
        return;
    }
    u = (struct plat_uart){ PLAT_UART_IO, com_ports[0], 1, 0 };
    u.baud = pick_baud(c, &u, c->baud);
    add_candidate(p, SERIAL_SRC_DEFAULT, &u, "COM1, the default");
    /* No SPCR to say where the BMC listens: COM2, where iLO, iDRAC and
     * Supermicro SOL sit on most servers, after COM1 (and beside it when
     * both answer: serial_plan_open). */
    for (unsigned i = 0; i < p->count; i++)
        if (p->c[i].source == SERIAL_SRC_SPCR)
            return;
    u = (struct plat_uart){ PLAT_UART_IO, com_ports[1], 1, 0 };
    u.baud = pick_baud(c, &u, c->baud);
    add_candidate(p, SERIAL_SRC_DEFAULT, &u, "COM2, where a BMC's Serial over LAN usually is (no SPCR)");
}

static bool is_com(const struct serial_candidate *c, unsigned n)
{
    return c->source == SERIAL_SRC_DEFAULT && c->uart.space == PLAT_UART_IO && c->uart.base == com_ports[n];
}

int serial_plan_open(struct serial_plan *p)
{
    char name[40], text[SERIAL_DETAIL_LEN];

    p->chosen = p->also = -1;
    if (p->off)
        return BM_ENODEV;
    for (unsigned i = 0; i < p->count; i++) {
        int rc = plat_serial_open(&p->c[i].uart);
        if (rc == BM_OK) {
            p->chosen = (int)i;
            if (is_com(&p->c[i], 0) && i + 1 < p->count && is_com(&p->c[i + 1], 1) &&
                plat_serial_open_also(&p->c[i + 1].uart) == BM_OK)
                p->also = (int)i + 1;
            return BM_OK;
        }
        serial_port_name(&p->c[i].uart, name, sizeof(name));
        snprintf(text, sizeof(text), "%s names %s, but %s", serial_source_name(p->c[i].source), name,
                 rc == BM_ENODEV ? "no UART answers there" : bm_strerror(rc));
        add_note(p, p->c[i].source, text);
    }
    return BM_ENODEV;
}

void serial_port_name(const struct plat_uart *u, char *buf, size_t len)
{
    if (u->kind != PLAT_UART_16550)
        snprintf(buf, len, "%s:0x%llx", u->kind == PLAT_UART_PL011 ? "pl011" : "sbsa", (unsigned long long)u->base);
    else if (u->space == PLAT_UART_IO)
        snprintf(buf, len, "0x%llx", (unsigned long long)u->base);
    else
        snprintf(buf, len, "mmio:0x%llx%s", (unsigned long long)u->base, u->reg_bytes == 4 ? ",32" : "");
}

void serial_plan_json(const struct serial_plan *p, struct json *j)
{
    char name[40], passed[SERIAL_MAX_NOTES * (SERIAL_DETAIL_LEN + 2)];
    const struct serial_candidate *c = p->chosen >= 0 ? &p->c[p->chosen] : NULL;
    size_t n = 0;

    json_obj_begin(j, "serial");
    if (p->off) {
        json_str(j, "port", "off");
        json_str(j, "source", "option");
        json_obj_end(j);
        return;
    }
    if (c) {
        serial_port_name(&c->uart, name, sizeof(name));
        json_str(j, "port", name);
        json_str(j, "source", serial_source_name(c->source));
        json_u64(j, "baud", c->uart.baud);
        json_str(j, "detail", c->detail);
        if (p->also >= 0) {
            serial_port_name(&p->c[p->also].uart, name, sizeof(name));
            json_str(j, "also", name);
        }
    } else {
        json_str(j, "port", "none");
        json_str(j, "source", "none");
    }
    /* Only what kept a better source from being used. */
    passed[0] = '\0';
    for (unsigned i = 0; i < p->notes; i++)
        if (!c || p->note[i].source < c->source)
            n += (size_t)snprintf(passed + n, n < sizeof(passed) ? sizeof(passed) - n : 0, "%s%s", n ? "; " : "",
                                  p->note[i].text);
    if (passed[0])
        json_str(j, "passed_over", passed);
    json_obj_end(j);
}

void serial_plan_human(const struct serial_plan *p, char *buf, size_t len)
{
    char name[40];
    const struct serial_candidate *c = p->chosen >= 0 ? &p->c[p->chosen] : NULL;

    if (p->off)
        snprintf(buf, len, "\nrecords on serial: off");
    else if (!c)
        snprintf(buf, len, "\nrecords on serial: none (no UART answered)");
    else {
        char also[64] = "";
        serial_port_name(&c->uart, name, sizeof(name));
        if (p->also >= 0) {
            char second[40];
            serial_port_name(&p->c[p->also].uart, second, sizeof(second));
            snprintf(also, sizeof(also), " and %s (COM2)", second);
        }
        snprintf(buf, len, "\nrecords on serial %s (%s)%s", name, c->detail, also);
    }
}
