/* SPD over SMBus: read-only except for page selects, and those only to a
 * device identified first. Follows Linux drivers/misc/eeprom/ee1004.c
 * (ee1004_get_current_page(): a receive byte at SPA0 is acknowledged only
 * while page 0 is selected; ee1004_eeprom_read(): a page select that is
 * not acknowledged may still have switched, the page query decides),
 * drivers/i2c/i2c-smbus.c i2c_register_spd() (EE1004 only when SMBIOS says
 * DDR4 in every populated slot, with 1 to 8 slots) and
 * drivers/hwmon/spd5118.c (spd5118_detect(): MR0/MR1 read 0x51 0x18 and
 * MR3/MR4 hold a JEP-106 id with odd parity; legacy mode: MR11 bits 2:0
 * page the NVM into offsets 0x80-0xff).
 *
 * The writes this file can issue, and when:
 *  - EE1004 SPA0 (0x36) / SPA1 (0x37), write byte data, command and data 0:
 *    selects DDR4 page 0 / 1. Only when SMBIOS reports DDR4 in every
 *    populated slot and 1-8 slots, no device on the bus answers like a
 *    pre-DDR4 EEPROM (key byte 0x01-0x0b: for a 34C02 at 0x5n, 0x3n is
 *    its permanent write protect command) or like a DDR5 hub, the page
 *    query answered, and every device reads like an EE1004: the DDR4 key
 *    byte while SPA0 acknowledged (page 0), or on page 1 every device reading like
 *    DDR4 page 1 (bytes 256-258 zero, JEP-106 ids with parity at 320 and
 *    350). Each select is checked by the page query; one that does not
 *    take ends all page selects. The page found is put back and checked.
 *  - SPD5118 MR11 (0x0b) at the hub's address, write byte data, data =
 *    page 0-7: pages the hub's NVM. Only to a hub identified by MR0/MR1
 *    and a valid MR3/MR4 vendor id, with SMBIOS reporting DDR5 and the
 *    chipset's SPD write disable clear; each write is read back; the page
 *    found is put back and read back. */
#include "spd_read.h"

#define EE1004_PAGE_BYTES 256
#define EE1004_QUERY_TRIES 3
#define EE1004_QUERY_RETRY_NS 1000000ull
#define EE1004_PAGE_UNKNOWN (-1)
/* DDR4 page 1 seen at offsets 0-255 (JESD21-C Annex L): bytes 256-258 are
 * reserved (zero) on a standard module; module maker at 320-321, DRAM
 * maker at 350-351. */
#define DDR4_P1_MODULE_MFR (320 - 256)
#define DDR4_P1_DRAM_MFR (350 - 256)
#define SPD5118_PAGE_BYTES 128
#define SPD5118_NVM_BASE 0x80
#define SPD5118_MR0 0x00       /* device type, high byte: 0x51 */
#define SPD5118_MR1 0x01       /* device type, low byte: 0x18 */
#define SPD5118_MR3 0x03       /* vendor id: continuation count with parity */
#define SPD5118_MR4 0x04       /* vendor id: code with parity */

/* What one spd_read_bus() call knows about the bus. */
struct spd_ctx {
    struct smbus *b;
    const struct spd_bus_hint *hint;
    int orig_page, page;     /* EE1004 page at entry and now (EE1004_PAGE_UNKNOWN) */
    bool ee1004_ok;          /* an EE1004 is identified: page selects may be written */
    char why[160];           /* why not, for the notes */
};

/* Read n bytes from offset cmd0 of the device's current page into dst,
 * by word reads (SMBus read word = two sequential EEPROM bytes). */
static int read_block(struct smbus *b, uint8_t addr, unsigned cmd0, size_t n, uint8_t *dst)
{
    for (size_t i = 0; i < n; i += 2) {
        uint16_t w;
        int rc = smbus_read_word(b, addr, (uint8_t)(cmd0 + i), &w);
        if (rc != BM_OK)
            return rc;
        dst[i] = (uint8_t)w;
        if (i + 1 < n)
            dst[i + 1] = (uint8_t)(w >> 8);
    }
    return BM_OK;
}

/* A key byte (byte 2) of the generations before DDR4 (FPM .. DDR3): their
 * 24C02/34C02-class EEPROMs take writes to 0x30-0x37 as write protection. */
static bool key_is_legacy(uint8_t key)
{
    return key >= 0x01 && key <= SPD_TYPE_DDR3;
}

static bool odd_parity(uint8_t v)
{
    v ^= (uint8_t)(v >> 4);
    v ^= (uint8_t)(v >> 2);
    v ^= (uint8_t)(v >> 1);
    return v & 1;
}

/* A JEP-106 id as SPD and the SPD5118 store it: both bytes odd parity,
 * the code neither 0 nor 0x7f (as Linux spd5118_vendor_valid()). */
static bool jep106_valid(uint8_t bank, uint8_t code)
{
    return odd_parity(bank) && odd_parity(code) && (code & 0x7f) != 0 && (code & 0x7f) != 0x7f;
}

/* The EE1004 page, as Linux ee1004_get_current_page(): 0 when SPA0
 * acknowledges a receive byte, 1 when it does not (or no EE1004 is on the
 * bus: the caller tells them apart). Any other outcome (lost arbitration,
 * a timeout) is no answer: asked again, then EE1004_PAGE_UNKNOWN. */
static int ee1004_page(struct smbus *b)
{
    for (int i = 0; i < EE1004_QUERY_TRIES; i++) {
        uint8_t v;
        int rc = smbus_recv_byte(b, SMBUS_EE1004_SPA0, &v);
        if (rc == BM_OK)
            return 0;
        if (rc == BM_ENODEV)
            return 1;
        if (rc == BM_EPERM)
            break;
        plat_delay_ns(EE1004_QUERY_RETRY_NS);
    }
    return EE1004_PAGE_UNKNOWN;
}

/* Select an EE1004 page and check with the page query that it took. A
 * select that is not acknowledged is not a failure by itself (EE1004-v
 * lets a module switch without ACK; Linux ee1004_eeprom_read() accepts
 * -ENXIO when the query then shows the page). A select that does not
 * take means the bus is not what it seemed: no more selects. */
static int ee1004_select(struct spd_ctx *c, int page)
{
    int rc, now;

    if (!c->ee1004_ok)
        return BM_EPERM;
    rc = smbus_spd_page_select(c->b, page ? SMBUS_EE1004_SPA1 : SMBUS_EE1004_SPA0, 0, 0);
    if (rc != BM_OK && rc != BM_ENODEV)
        return rc;
    now = ee1004_page(c->b);
    c->page = now;
    if (now == page)
        return BM_OK;
    c->ee1004_ok = false;
    snprintf(c->why, sizeof(c->why), "a select of EE1004 page %d %s", page,
             now == EE1004_PAGE_UNKNOWN ? "left the page query unanswered" : "did not take (page query)");
    return BM_EIO;
}

/* Does every device that answered read like DDR4 page 1 (what an EE1004
 * left on page 1 shows at offsets 0-255)? The only proof of an EE1004 on
 * page 1 that needs no write. */
static bool reads_like_ddr4_page1(struct smbus *b, struct spd_raw *raw)
{
    unsigned seen = 0;

    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        uint8_t m[4];
        static const uint8_t off[4] = { DDR4_P1_MODULE_MFR, DDR4_P1_MODULE_MFR + 1, DDR4_P1_DRAM_MFR,
                                        DDR4_P1_DRAM_MFR + 1 };
        if (!r->present || r->hub || r->rc != BM_OK)
            continue;
        if (r->data[0] || r->data[1] || r->data[2])
            return false;
        for (int k = 0; k < 4; k++)
            if (smbus_read_byte(b, r->addr, off[k], &m[k]) != BM_OK)
                return false;
        if (!jep106_valid(m[0], m[1]) || !jep106_valid(m[2], m[3]))
            return false;
        seen++;
    }
    return seen > 0;
}

/* Decide whether an EE1004 is identified (c->ee1004_ok), or say why not. */
static void ee1004_identify(struct spd_ctx *c, struct spd_raw *raw)
{
    const struct spd_bus_hint *h = c->hint;
    const struct spd_raw *other = NULL;
    bool ddr4_key = false, eeprom = false;

    c->ee1004_ok = false;
    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        if (!r->present || r->rc != BM_OK)
            continue;
        if (r->hub) {
            snprintf(c->why, sizeof(c->why), "0x%02x is a DDR5 hub", r->addr);
            return;
        }
        if (key_is_legacy(r->data[2])) {
            snprintf(c->why, sizeof(c->why), "0x%02x answers like a pre-DDR4 SPD EEPROM (key byte 0x%02x), whose "
                     "write protect commands are 0x30-0x37", r->addr, r->data[2]);
            return;
        }
        /* On page 0 every device must show the DDR4 key byte: a device
         * with anything else (a blank or foreign EEPROM) may be a 34C02. */
        if (c->page == 0 && r->data[2] != SPD_TYPE_DDR4 && !other) {
            other = r;
        }
        eeprom = true;
        ddr4_key |= r->data[2] == SPD_TYPE_DDR4;
    }
    if (!eeprom)
        snprintf(c->why, sizeof(c->why), "no EEPROM answered");
    else if (!h->smbios_ddr4)
        snprintf(c->why, sizeof(c->why), "SMBIOS does not report DDR4 in every populated slot");
    else if (h->smbios_slots == 0 || h->smbios_slots > SPD_SLOTS)
        snprintf(c->why, sizeof(c->why), "SMBIOS lists %u memory slots (page selects only with 1-8 slots on one "
                 "bus, as Linux)", h->smbios_slots);
    else if (c->page == EE1004_PAGE_UNKNOWN)
        snprintf(c->why, sizeof(c->why), "the EE1004 page query (receive byte at 0x36) did not answer");
    else if (c->page == 0 && !ddr4_key)
        snprintf(c->why, sizeof(c->why), "no device shows the DDR4 key byte on page 0");
    else if (other)
        snprintf(c->why, sizeof(c->why), "0x%02x answers without the DDR4 key byte (0x%02x): it may be a legacy "
                 "EEPROM", other->addr, other->data[2]);
    else if (c->page == 1 && !reads_like_ddr4_page1(c->b, raw))
        snprintf(c->why, sizeof(c->why), "0x36 does not acknowledge (page 1, or no EE1004) and the devices do not "
                 "read like DDR4 page 1");
    else
        c->ee1004_ok = true;
}

/* Read MR11 of a hub and check its page bits. */
static int hub_page(struct smbus *b, uint8_t addr, uint8_t *page)
{
    uint8_t mr11;
    int rc = smbus_read_byte(b, addr, SMBUS_SPD5118_MR11, &mr11);
    *page = mr11 & SMBUS_SPD5118_MR11_PAGE_MASK;
    return rc;
}

/* Page a hub's NVM through MR11 and read MR11 back. */
static int hub_select(struct smbus *b, uint8_t addr, uint8_t page)
{
    uint8_t now;
    int rc = smbus_spd_page_select(b, addr, SMBUS_SPD5118_MR11, page);

    if (rc != BM_OK)
        return rc;
    rc = hub_page(b, addr, &now);
    if (rc != BM_OK)
        return rc;
    return now == page ? BM_OK : BM_EIO;
}

/* A DDR5 SPD5118 hub in legacy (1-byte) mode: eight 128-byte NVM pages
 * through MR11, put back as found. The page the hub is on is tracked from
 * MR11 as read at entry (a hub may start on any page). Paging needs a
 * write to the hub, which the chipset's SPD write disable (or a hub that
 * refuses it) forbids: then only the page already selected is read, and
 * only if it is page 0 (the decoder needs the image from byte 0). */
static void read_hub(struct smbus *b, struct spd_raw *r, bool may_page)
{
    uint8_t mr11, orig, cur, page;
    int rc;

    rc = smbus_read_byte(b, r->addr, SMBUS_SPD5118_MR11, &mr11);
    if (rc != BM_OK || (mr11 & ~(SMBUS_SPD5118_MR11_PAGE_MASK | SMBUS_SPD5118_MR11_ADDR16))) {
        r->rc = rc != BM_OK ? rc : BM_EIO;
        snprintf(r->note, sizeof(r->note), "SPD5118 hub at 0x%02x: MR11 unreadable or reserved bits set", r->addr);
        return;
    }
    if (mr11 & SMBUS_SPD5118_MR11_ADDR16) {
        r->rc = BM_ENOTSUP;
        snprintf(r->note, sizeof(r->note), "SPD5118 hub at 0x%02x is in 2-byte addressing mode: not read", r->addr);
        return;
    }
    orig = cur = mr11 & SMBUS_SPD5118_MR11_PAGE_MASK;
    for (page = 0; page < 8; page++) {
        if (page != cur) {
            rc = may_page ? hub_select(b, r->addr, page) : BM_EPERM;
            if (rc != BM_OK) {
                snprintf(r->note, sizeof(r->note),
                         "SPD5118 hub at 0x%02x on NVM page %u: paging to page %u %s; %zu of 1024 bytes read", r->addr,
                         orig, page, !may_page ? "not attempted (SMBIOS does not report DDR5)"
                         : b->spd_write_disabled ? "forbidden by the chipset's SPD write disable (BIOS lock)"
                         : rc == BM_EIO ? "did not take (MR11 read back differs)"
                                        : "refused by the hub (write protection)",
                         r->len);
                if (rc == BM_EIO && hub_page(b, r->addr, &cur) != BM_OK)
                    cur = (uint8_t)(orig ^ 0xff);  /* unknown: the restore below is tried */
                break;
            }
            cur = page;
        }
        rc = read_block(b, r->addr, SPD5118_NVM_BASE, SPD5118_PAGE_BYTES, r->data + page * SPD5118_PAGE_BYTES);
        if (rc != BM_OK) {
            r->rc = rc;
            snprintf(r->note, sizeof(r->note), "SPD5118 hub at 0x%02x: NVM page %u read failed: %s", r->addr, page,
                     bm_strerror(rc));
            break;
        }
        r->len += SPD5118_PAGE_BYTES;
    }
    if (cur != orig && may_page && hub_select(b, r->addr, orig) != BM_OK) {
        size_t n = strlen(r->note);
        snprintf(r->note + n, sizeof(r->note) - n, "%sMR11 not put back to page %u", n ? "; " : "", orig);
    }
}

/* Read the first 256 bytes (page 0 of an EE1004, all of an older EEPROM). */
static void read_page0(struct spd_raw *r, struct smbus *b)
{
    uint8_t key = r->data[2];

    if (spd_bytes_wanted(key) == 0)
        return;  /* no SPD image (erased, or not an SPD device): the key bytes are kept for the note */
    r->rc = read_block(b, r->addr, 0, EE1004_PAGE_BYTES, r->data);
    if (r->rc != BM_OK) {
        r->len = 0;
        snprintf(r->note, sizeof(r->note), "SPD read failed at 0x%02x: %s", r->addr, bm_strerror(r->rc));
        return;
    }
    r->len = EE1004_PAGE_BYTES;
}

/* DDR4 page 1 (manufacturer, part, serial) of every DDR4 device read on
 * page 0, through one select of page 1. */
static void read_ddr4_page1(struct spd_ctx *c, struct spd_raw *raw)
{
    bool want = false;
    int rc;

    for (int s = 0; s < SPD_SLOTS; s++)
        want |= raw[s].len == EE1004_PAGE_BYTES && raw[s].data[2] == SPD_TYPE_DDR4;
    if (!want)
        return;
    rc = ee1004_select(c, 1);
    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        if (r->len != EE1004_PAGE_BYTES || r->data[2] != SPD_TYPE_DDR4)
            continue;
        if (rc == BM_OK)
            r->rc = read_block(c->b, r->addr, 0, EE1004_PAGE_BYTES, r->data + EE1004_PAGE_BYTES);
        if (rc == BM_OK && r->rc == BM_OK)
            r->len = 2 * EE1004_PAGE_BYTES;
        else if (rc == BM_EPERM)
            snprintf(r->note, sizeof(r->note), "DDR4 page 1 (manufacturer, part, serial) not read (no page select "
                     "written: %.110s)", c->why);
        else
            snprintf(r->note, sizeof(r->note), "DDR4 page 1 not read: %s", rc != BM_OK ? c->why : bm_strerror(r->rc));
        if (r->rc != BM_OK)
            r->rc = BM_OK;   /* page 0 is good: the image decodes, truncated */
    }
}

/* The key bytes of the device at r->addr; hub identification. Returns
 * BM_ENODEV when nothing answers, an error when the reads fail. */
static int identify(struct smbus *b, struct spd_raw *r)
{
    uint8_t id[5];
    int rc = smbus_read_byte(b, r->addr, SPD5118_MR0, &id[0]);

    if (rc == BM_ENODEV)
        return rc;
    r->present = true;
    for (uint8_t k = 1; k < 3 && rc == BM_OK; k++)
        rc = smbus_read_byte(b, r->addr, k, &id[k]);
    if (rc != BM_OK)
        return rc;
    memcpy(r->data, id, 3);
    r->len = 3;
    /* As Linux spd5118_detect(): the device type and a valid vendor id. */
    if (id[0] == 0x51 && id[1] == 0x18 && smbus_read_byte(b, r->addr, SPD5118_MR3, &id[3]) == BM_OK &&
        smbus_read_byte(b, r->addr, SPD5118_MR4, &id[4]) == BM_OK && jep106_valid(id[3], id[4])) {
        r->hub = true;
        r->len = 0;
    }
    return BM_OK;
}

int spd_read_bus(struct smbus *b, const struct spd_bus_hint *hint, struct spd_raw raw[SPD_SLOTS], char *note,
                 size_t note_len)
{
    struct spd_ctx c = { .b = b, .hint = hint };
    int found = 0;

    c.orig_page = c.page = ee1004_page(b);
    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        int rc;

        memset(r, 0, sizeof(*r));
        r->addr = (uint8_t)(SMBUS_SPD_FIRST + s);
        rc = identify(b, r);
        if (rc == BM_ENODEV)
            continue;
        found++;
        if (rc != BM_OK) {
            r->rc = rc;
            r->len = 0;
            snprintf(r->note, sizeof(r->note), "SPD at 0x%02x answers but reads fail: %s", r->addr, bm_strerror(rc));
            if (rc == BM_EBUSY || rc == BM_ETIMEDOUT) {
                snprintf(note, note_len, "SMBus unusable (%s): SPD reading stopped", bm_strerror(rc));
                return rc;
            }
        }
    }
    ee1004_identify(&c, raw);
    for (int s = 0; s < SPD_SLOTS; s++)
        if (raw[s].hub)
            read_hub(b, &raw[s], hint->smbios_ddr5);
    /* An EE1004 left on page 1 by an earlier owner: page 0 first. */
    if (c.page == 1 && c.ee1004_ok && ee1004_select(&c, 0) == BM_OK) {
        bool ddr4 = true;
        for (int s = 0; s < SPD_SLOTS; s++)
            if (raw[s].present && !raw[s].hub && raw[s].rc == BM_OK)
                ddr4 &= smbus_read_byte(b, raw[s].addr, 2, &raw[s].data[2]) == BM_OK &&
                        raw[s].data[2] == SPD_TYPE_DDR4;
        if (!ddr4) {
            c.ee1004_ok = false;
            snprintf(c.why, sizeof(c.why), "after the select of page 0 not every device shows the DDR4 key byte");
        }
    }
    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        if (!r->present || r->hub || r->rc != BM_OK)
            continue;
        if (c.page == 1 && hint->smbios_ddr4 && !key_is_legacy(r->data[2]) && r->data[2] != SPD_TYPE_DDR4) {
            r->len = 0;
            r->rc = BM_ENOTSUP;
            snprintf(r->note, sizeof(r->note), "SPD at 0x%02x not read (the bus may be on EE1004 page 1 and no page "
                     "select was written: %.100s)", r->addr, c.why);
            continue;
        }
        read_page0(r, b);
    }
    read_ddr4_page1(&c, raw);
    /* Leave the EE1004 page as found, checked by the page query. */
    if (c.page != c.orig_page && (!c.ee1004_ok || ee1004_select(&c, c.orig_page) != BM_OK))
        plat_diag(b->where, "EE1004 page not put back to page %d: %s", c.orig_page, c.why);
    if (!found)
        snprintf(note, note_len, "no SPD EEPROM answered at 0x50-0x57");
    return found;
}
