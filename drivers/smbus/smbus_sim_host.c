/* The simulated SPD bus of smbus_sim.h: a bus-file parser and a struct
 * smbus whose transactions reach modelled devices. The devices behave as
 * smbus_bus_model.h's do for the unit tests (EE1004 page query and selects,
 * SPD5118 MR0/MR1/MR3/MR4/MR11 and NVM paging, a 34C02's permanent write
 * protect at 0x30 | pins); the parser takes untrusted text (a field
 * report) and is fuzzed (tests/fuzz/fuzz_spdbus.c). */
#include "smbus_sim.h"
#include "lib/bmlib.h"

static bool legacy_on_bus(const struct smbus_sim *m)
{
    for (int i = 0; i < 8; i++)
        if (m->kind[i] == SIM_EEPROM || m->kind[i] == SIM_34C02)
            return true;
    return false;
}

static bool ee1004_on_bus(const struct smbus_sim *m)
{
    for (int i = 0; i < 8; i++)
        if (m->kind[i] == SIM_EE1004)
            return true;
    return false;
}

/* Page-select and write-protect addresses 0x30-0x37. */
static int xact_low(struct smbus_sim *m, uint8_t addr, bool write, enum smbus_xact x, uint8_t *data)
{
    int slot = addr - 0x30;
    bool ack = false;

    if (addr == SMBUS_EE1004_SPA0 && m->page_query_busy) {
        m->page_query_busy--;
        return BM_EBUSY;
    }
    if (write && legacy_on_bus(m))
        m->protect_writes++;
    if (m->kind[slot] == SIM_34C02) {
        if (write) {
            m->swp_set[slot] = true;   /* permanent: nothing clears it */
            return BM_OK;
        }
        ack = !m->swp_read_nack && !m->swp_set[slot];
    }
    if (ee1004_on_bus(m) && (addr == SMBUS_EE1004_SPA0 || addr == SMBUS_EE1004_SPA1)) {
        if (write) {
            m->ee1004_page = addr - SMBUS_EE1004_SPA0;
            return m->ee1004_select_nack ? BM_ENODEV : BM_OK;
        }
        if (x == SMBUS_RECV_BYTE && addr == SMBUS_EE1004_SPA0 && m->ee1004_page == 0)
            ack = true;
    }
    data[0] = 0;
    return ack ? BM_OK : BM_ENODEV;
}

/* A hub register or, at 0x80-0xff, its NVM through the MR11 page. */
static uint8_t hub_byte(const struct smbus_sim *m, int s, uint8_t c)
{
    if (c >= 0x80)
        return m->mem[s][(m->mr11[s] & 7) * 128 + (c - 0x80)];
    switch (c) {
    case 0x00: return 0x51;
    case 0x01: return 0x18;
    case 0x03: return 0x86;   /* vendor: bank 7 with parity */
    case 0x04: return 0x32;   /* ... Montage */
    case 0x0b: return m->mr11[s];
    default: return 0;
    }
}

/* One transaction on the modelled bus. */
static int xact(struct smbus_sim *m, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;
    int s = addr - SMBUS_SPD_FIRST;
    unsigned base;

    if (write)
        m->writes++;
    if (addr >= 0x30 && addr <= 0x37)
        return xact_low(m, addr, write, x, data);
    if (s < 0 || s > 7 || m->kind[s] == SIM_NONE)
        return BM_ENODEV;
    if (write && m->spd_write_disable)
        return BM_ENODEV;
    if (m->kind[s] == SIM_HUB) {
        if (write) {
            if (cmd != SMBUS_SPD5118_MR11) {
                m->eeprom_writes++;
                return BM_OK;
            }
            if (m->refuses_paging[s])
                return BM_ENODEV;
            m->mr11[s] = data[0];
            return BM_OK;
        }
        data[0] = hub_byte(m, s, cmd);
        if (x == SMBUS_READ_WORD)
            data[1] = hub_byte(m, s, (uint8_t)(cmd + 1));
        return BM_OK;
    }
    base = m->kind[s] == SIM_EE1004 ? (unsigned)m->ee1004_page * 256 : 0;
    if (write) {
        m->eeprom_writes++;
        return BM_OK;
    }
    if (x == SMBUS_RECV_BYTE)
        cmd = 0;
    data[0] = m->mem[s][base + cmd];
    if (x == SMBUS_READ_WORD)
        data[1] = m->mem[s][base + (uint8_t)(cmd + 1)];
    return BM_OK;
}

static int sim_xfer(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    static const char *const names[] = { "recv", "read-byte", "read-word", "WRITE-byte" };
    struct smbus_sim *m = b->sim;
    int rc = xact(m, addr, x, cmd, data);
    char line[120];

    if (m->trace) {
        int n = snprintf(line, sizeof(line), "%-10s 0x%02x cmd 0x%02x", names[x], addr, cmd);
        if (x == SMBUS_WRITE_BYTE)
            n += snprintf(line + n, sizeof(line) - (size_t)n, " data 0x%02x", data[0]);
        else if (rc == BM_OK && x == SMBUS_READ_WORD)
            n += snprintf(line + n, sizeof(line) - (size_t)n, " -> 0x%02x 0x%02x", data[0], data[1]);
        else if (rc == BM_OK)
            n += snprintf(line + n, sizeof(line) - (size_t)n, " -> 0x%02x", data[0]);
        snprintf(line + n, sizeof(line) - (size_t)n, "  %s", rc == BM_OK ? "ACK" : rc == BM_ENODEV ? "NACK"
                                                                                        : bm_strerror(rc));
        m->trace(m->trace_ctx, line);
    }
    return rc;
}

static void sim_close(struct smbus *b)
{
    (void)b;
}

static const struct smbus_ops sim_ops = { sim_xfer, sim_close };

void smbus_sim_open(struct smbus_sim *sim, struct smbus *b)
{
    memset(b, 0, sizeof(*b));
    b->ops = &sim_ops;
    b->kind = "sim";
    bm_strlcpy(b->where, "sim", sizeof(b->where));
    b->spd_write_disabled = sim->spd_write_disable;
    b->sim = sim;
}

/* ---- The bus file ---------------------------------------------------------------- */

struct cursor {
    const char *p, *end;
};

/* The next whitespace-separated token on the line into tok; false at the line's end. */
static bool token(struct cursor *c, char *tok, size_t cap)
{
    size_t n = 0;

    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        c->p++;
    if (c->p >= c->end || *c->p == '#')
        return false;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\r' && *c->p != '#') {
        if (n + 1 < cap)
            tok[n++] = *c->p;
        c->p++;
    }
    tok[n] = '\0';
    return true;
}

/* A number in C notation (0x hex or decimal, bm_parse_u64), at most max. */
static bool number(const char *s, unsigned long max, unsigned long *out)
{
    uint64_t v;

    if (!bm_parse_u64(s, &v) || v > max)
        return false;
    *out = (unsigned long)v;
    return true;
}

/* Two hex digits. */
static bool hex_byte(const char *s, uint8_t *out)
{
    unsigned long v;
    char buf[8];

    if (strlen(s) != 2)
        return false;
    snprintf(buf, sizeof(buf), "0x%s", s);
    if (!number(buf, 0xff, &v))
        return false;
    *out = (uint8_t)v;
    return true;
}

/* An SPD address 0x50-0x57 as a slot number, or -1. */
static int slot_of(const char *s)
{
    unsigned long v;
    if (!number(s, 0xff, &v) || v < SMBUS_SPD_FIRST || v > SMBUS_SPD_LAST)
        return -1;
    return (int)(v - SMBUS_SPD_FIRST);
}

/* One line; BM_OK or BM_EINVAL with why. */
static int parse_line(struct cursor *c, struct smbus_sim *m, char *why, size_t cap)
{
    char tok[32], arg[32];
    unsigned long v;
    int s;

    if (!token(c, tok, sizeof(tok)))
        return BM_OK;
    if (!strcmp(tok, "smbios")) {
        if (!token(c, arg, sizeof(arg))) {
            snprintf(why, cap, "smbios needs a memory type");
            return BM_EINVAL;
        }
        m->smbios_ddr4 = !strcmp(arg, "ddr4");
        m->smbios_ddr5 = !strcmp(arg, "ddr5");
        while (token(c, arg, sizeof(arg))) {
            if (strncmp(arg, "slots=", 6) || !number(arg + 6, 64, &v)) {
                snprintf(why, cap, "smbios: '%s' is not slots=N (N <= 64)", arg);
                return BM_EINVAL;
            }
            m->smbios_slots = (unsigned)v;
        }
    } else if (!strcmp(tok, "spd-write-disable")) {
        m->spd_write_disable = true;
    } else if (!strcmp(tok, "ee1004-select-nack")) {
        m->ee1004_select_nack = true;
    } else if (!strcmp(tok, "ee1004-page") || !strcmp(tok, "page-query-busy")) {
        bool page = tok[0] == 'e';
        if (!token(c, arg, sizeof(arg)) || !number(arg, page ? 1 : 1000, &v)) {
            snprintf(why, cap, "%s needs a number (%s)", tok, page ? "0 or 1" : "0-1000");
            return BM_EINVAL;
        }
        if (page)
            m->ee1004_page = (int)v;
        else
            m->page_query_busy = (unsigned)v;
    } else if (!strcmp(tok, "device")) {
        if (!token(c, arg, sizeof(arg)) || (s = slot_of(arg)) < 0) {
            snprintf(why, cap, "device needs an address 0x50-0x57");
            return BM_EINVAL;
        }
        if (!token(c, arg, sizeof(arg))) {
            snprintf(why, cap, "device needs a kind (eeprom, 34c02, ee1004, hub)");
            return BM_EINVAL;
        }
        m->kind[s] = !strcmp(arg, "eeprom") ? SIM_EEPROM : !strcmp(arg, "34c02") ? SIM_34C02
                   : !strcmp(arg, "ee1004") ? SIM_EE1004 : !strcmp(arg, "hub") ? SIM_HUB : SIM_NONE;
        if (m->kind[s] == SIM_NONE) {
            snprintf(why, cap, "unknown device kind '%s' (eeprom, 34c02, ee1004, hub)", arg);
            return BM_EINVAL;
        }
        while (token(c, arg, sizeof(arg))) {
            if (!strcmp(arg, "swp-read-nack"))
                m->swp_read_nack = true;
            else if (!strcmp(arg, "refuses-paging"))
                m->refuses_paging[s] = true;
            else if (!strncmp(arg, "mr11=", 5) && number(arg + 5, 0xff, &v))
                m->mr11[s] = (uint8_t)v;
            else {
                snprintf(why, cap, "unknown device option '%s'", arg);
                return BM_EINVAL;
            }
        }
    } else if (!strcmp(tok, "imc")) {
        if (!token(c, arg, sizeof(arg)) || (strcmp(arg, "e5") && strcmp(arg, "scalable"))) {
            snprintf(why, cap, "imc needs a layout (e5, scalable)");
            return BM_EINVAL;
        }
        m->imc = arg[0] == 'e' ? 1 : 2;
        while (token(c, arg, sizeof(arg))) {
            if (!strcmp(arg, "cltt-locked"))
                m->imc_cltt_locked = true;
            else if (!strcmp(arg, "poll-off"))
                m->imc_poll_off = true;
            else if (!strcmp(arg, "stuck"))
                m->imc_stuck = true;
            else if (!strcmp(arg, "bmc-busy=forever"))
                m->imc_bmc_busy = ~0u;
            else if (!strncmp(arg, "bmc-busy=", 9) && number(arg + 9, 1000000, &v))
                m->imc_bmc_busy = (unsigned)v;
            else {
                snprintf(why, cap, "unknown imc option '%s' (cltt-locked, poll-off, bmc-busy=N|forever, stuck)", arg);
                return BM_EINVAL;
            }
        }
    } else if (!strcmp(tok, "bytes")) {
        if (!token(c, arg, sizeof(arg)) || (s = slot_of(arg)) < 0) {
            snprintf(why, cap, "bytes needs an address 0x50-0x57");
            return BM_EINVAL;
        }
        if (!token(c, arg, sizeof(arg)) || !number(arg, 1023, &v)) {
            snprintf(why, cap, "bytes needs an offset 0-1023");
            return BM_EINVAL;
        }
        while (token(c, arg, sizeof(arg))) {
            if (v >= sizeof(m->mem[s])) {
                snprintf(why, cap, "bytes run past offset 1023");
                return BM_EINVAL;
            }
            if (!hex_byte(arg, &m->mem[s][v])) {
                snprintf(why, cap, "'%s' is not a byte in hex (two digits)", arg);
                return BM_EINVAL;
            }
            v++;
        }
    } else {
        snprintf(why, cap, "unknown directive '%s'", tok);
        return BM_EINVAL;
    }
    if (token(c, arg, sizeof(arg))) {
        snprintf(why, cap, "unexpected '%s' at the end of the line", arg);
        return BM_EINVAL;
    }
    return BM_OK;
}

int smbus_sim_parse(const char *text, size_t len, struct smbus_sim *sim, char *err, size_t err_len)
{
    const char *p = text, *end = text + len;
    unsigned line = 0;

    memset(sim, 0, sizeof(*sim));
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        struct cursor c = { p, eol ? eol : end };
        char why[120];

        line++;
        if (parse_line(&c, sim, why, sizeof(why)) != BM_OK) {
            snprintf(err, err_len, "line %u: %s", line, why);
            return BM_EINVAL;
        }
        p = eol ? eol + 1 : end;
    }
    for (int s = 0; s < 8 && sim->imc; s++) {
        if (sim->kind[s] == SIM_HUB || sim->kind[s] == SIM_34C02) {
            snprintf(err, err_len, "device 0x%02x: an imc bus holds SPD EEPROMs only (eeprom, ee1004)", 0x50 + s);
            return BM_EINVAL;
        }
    }
    return BM_OK;
}
