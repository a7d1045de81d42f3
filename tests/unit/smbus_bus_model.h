/* The devices on an SPD SMBus, as the host controller models
 * (test_smbus_i801_model.c, test_smbus_piix4_model.c) put transactions on
 * it: legacy SPD EEPROMs (DDR2/DDR3, 256 bytes), DDR4 EE1004 EEPROMs (two
 * 256-byte pages selected by writes to SPA0/SPA1, 0x36/0x37; a receive
 * byte at SPA0 is acknowledged only on page 0) and DDR5 SPD5118 hubs
 * (MR0/MR1 read 0x51 0x18; MR11 bits 2:0 page 128 bytes of NVM into
 * offsets 0x80-0xff; MR3/MR4 a JEP-106 vendor id), and 34C02-class
 * legacy EEPROMs (DDR2/DDR3 modules, riser or backplane EEPROMs): a write
 * to 0x30 | pins sets their permanent software write protect, irreversibly;
 * a read there is acknowledged while unprotected (or never, on parts that
 * do not answer it: swp_read_nack).
 *
 * Failures real buses have: page selects that switch the EE1004 page but
 * are not acknowledged (ee1004_select_nack, allowed by EE1004-v), a page
 * query that loses arbitration to another master (spa0_collisions), hubs
 * that refuse paging.
 *
 * It counts everything a careful host must never do: a write into an
 * EEPROM's memory, a write to 0x30-0x37 on a bus of legacy EEPROMs (the
 * 34C02 "permanent software write protect" commands), any transaction to
 * an address outside 0x50-0x57 and 0x36/0x37. */
#ifndef SMBUS_BUS_MODEL_H
#define SMBUS_BUS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drivers/smbus/smbus.h"
#include "platform_sim.h"

enum spd_dev_kind { DEV_NONE = 0, DEV_EEPROM, DEV_EE1004, DEV_HUB, DEV_34C02 };

/* Protocols, as the host's command field encodes them. */
enum bus_proto {
    BUS_RECV_BYTE, BUS_SEND_BYTE, BUS_READ_BYTE, BUS_WRITE_BYTE, BUS_READ_WORD, BUS_WRITE_WORD, BUS_OTHER
};

struct spd_bus {
    enum spd_dev_kind kind[8];
    uint8_t mem[8][1024];
    uint8_t mr11[8];
    bool hub_refuses_paging;     /* MR11 writes not acknowledged (hub write protection) */
    int ee1004_page;
    bool ee1004_select_nack;     /* SPA0/SPA1 writes switch the page but are not acknowledged */
    unsigned spa0_collisions;    /* the next n transactions at 0x36 lose arbitration */
    bool swp_read_nack;          /* 34C02s do not acknowledge reads at their protect address */
    bool swp_set[8];             /* a 34C02's permanent write protection, once set never cleared */
    /* Every write put on the bus, in order. */
    struct { uint8_t addr, cmd, data; } writes[64];
    unsigned nwrites;
    /* What must never happen. */
    unsigned eeprom_writes;      /* data written into an EEPROM / hub NVM or a hub register other than MR11 */
    unsigned legacy_protect_writes; /* a write to 0x30-0x37 with legacy EEPROMs on the bus */
    unsigned out_of_range;       /* any transaction outside 0x50-0x57, 0x36, 0x37 */
    /* Counted for the tests' own checks. */
    unsigned transactions, page_selects, mr11_writes;
};

static inline bool bus_has(const struct spd_bus *m, enum spd_dev_kind k)
{
    for (int i = 0; i < 8; i++)
        if (m->kind[i] == k)
            return true;
    return false;
}

#define SPD_BUS_NACK 0
#define SPD_BUS_ACK 1
#define SPD_BUS_COLLISION (-1)   /* lost arbitration to another master */

/* One transaction. Returns SPD_BUS_ACK / _NACK / _COLLISION; reads fill
 * d[0] (and d[1]). */
static inline int spd_bus_xact(struct spd_bus *m, uint8_t addr, enum bus_proto p, uint8_t cmd, uint8_t *d)
{
    bool write = p == BUS_SEND_BYTE || p == BUS_WRITE_BYTE || p == BUS_WRITE_WORD;
    int s = addr - 0x50;
    bool ack = false;

    m->transactions++;
    if (write && m->nwrites < sizeof(m->writes) / sizeof(m->writes[0])) {
        m->writes[m->nwrites].addr = addr;
        m->writes[m->nwrites].cmd = cmd;
        m->writes[m->nwrites].data = d[0];
        m->nwrites++;
    }
    if (addr >= 0x30 && addr <= 0x37) {
        if (addr == 0x36 && m->spa0_collisions) {
            m->spa0_collisions--;
            return SPD_BUS_COLLISION;
        }
        if (write && (bus_has(m, DEV_EEPROM) || bus_has(m, DEV_34C02)))
            m->legacy_protect_writes++;
        /* A 34C02 whose pins match: protect command (write) or status (read). */
        if (m->kind[addr - 0x30] == DEV_34C02) {
            if (write)
                m->swp_set[addr - 0x30] = true;
            else
                ack = !m->swp_read_nack && !m->swp_set[addr - 0x30];
            if (write || !bus_has(m, DEV_EE1004))
                return write ? SPD_BUS_ACK : ack;
        }
        if (addr != 0x36 && addr != 0x37) {
            m->out_of_range++;
            return ack;
        }
        if (!bus_has(m, DEV_EE1004))
            return ack;
        if (write) {
            m->ee1004_page = addr - 0x36;
            m->page_selects++;
            return !m->ee1004_select_nack;
        }
        if (p == BUS_RECV_BYTE && addr == 0x36) {
            d[0] = 0;
            return m->ee1004_page == 0 || ack;
        }
        return ack;
    }
    if (s < 0 || s > 7) {
        m->out_of_range++;
        return false;
    }
    switch (m->kind[s]) {
    case DEV_NONE:
        return false;
    case DEV_EEPROM:
    case DEV_34C02:
    case DEV_EE1004: {
        unsigned base = m->kind[s] == DEV_EE1004 ? (unsigned)m->ee1004_page * 256 : 0;
        if (write) {
            m->eeprom_writes++;
            if (!(m->kind[s] == DEV_34C02 && m->swp_set[s] && cmd < 0x80))
                m->mem[s][base + cmd] = d[0];
            return true;
        }
        if (p == BUS_READ_BYTE || p == BUS_READ_WORD) {
            d[0] = m->mem[s][base + cmd];
            d[1] = m->mem[s][base + (uint8_t)(cmd + 1)];
            return true;
        }
        return p == BUS_RECV_BYTE;
    }
    case DEV_HUB:
        if (write) {
            if (p == BUS_WRITE_BYTE && cmd == 0x0b) {
                if (m->hub_refuses_paging)
                    return false;
                m->mr11[s] = d[0];
                m->mr11_writes++;
                return true;
            }
            m->eeprom_writes++;
            return true;
        }
        for (int k = 0; k < 2; k++) {
            uint8_t c = (uint8_t)(cmd + k);
            if (c >= 0x80)
                d[k] = m->mem[s][(m->mr11[s] & 7) * 128 + (c - 0x80)];
            else
                d[k] = c == 0 ? 0x51 : c == 1 ? 0x18 : c == 0x03 ? 0x86 : c == 0x04 ? 0x32 /* Montage */
                     : c == 0x0b ? m->mr11[s] : 0;
        }
        return true;
    }
    return false;
}

/* Fill slot s with a recognisable image of n bytes whose key byte is type. */
static inline void spd_bus_fill(struct spd_bus *m, int s, enum spd_dev_kind kind, uint8_t type, unsigned n)
{
    m->kind[s] = kind;
    for (unsigned i = 0; i < n; i++)
        m->mem[s][i] = (uint8_t)(i * 7 + s * 31 + (i >> 8));
    m->mem[s][2] = type;
}

/* A DDR4 EE1004 image of 512 bytes as modules carry it: page 1 starts
 * with reserved zero bytes (256-319) and holds the module and DRAM makers'
 * JEP-106 ids at 320 and 350 (Samsung, 0x80 0xce). */
static inline void spd_bus_fill_ddr4(struct spd_bus *m, int s)
{
    spd_bus_fill(m, s, DEV_EE1004, 0x0c, 512);
    memset(m->mem[s] + 256, 0, 64);
    m->mem[s][320] = 0x80, m->mem[s][321] = 0xce;
    m->mem[s][350] = 0x80, m->mem[s][351] = 0xce;
}

/* Attach a simulated port block (platform_sim.h) at base. */
static inline void attach_ports(struct plat_sim_io *io, uint16_t base, uint16_t len, void *ctx,
                                uint8_t (*inb)(void *, uint16_t), void (*outb)(void *, uint16_t, uint8_t))
{
    io->base = base;
    io->len = len;
    io->ctx = ctx;
    io->inb = inb;
    io->outb = outb;
    plat_sim_io_attach(io);
}

/* smbus_open over a PCI list holding the one function a test attached. */
static inline int open_one_function(struct pci_list *l, struct pci_addr a, uint16_t vendor, uint16_t device,
                                    unsigned flags, struct smbus *b, char *note, size_t note_len)
{
    memset(l, 0, sizeof(*l));
    l->count = 1;
    l->funcs[0].addr = a;
    l->funcs[0].vendor = vendor;
    l->funcs[0].device = device;
    return smbus_open(l, flags, b, note, note_len);
}

#endif
