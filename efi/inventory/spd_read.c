/* SPD over SMBus: read-only except for page selects, and those only where
 * the memory type is established (see spd_read.h). Follows Linux
 * drivers/misc/eeprom/ee1004.c (ee1004_get_current_page(): a receive byte
 * at SPA0 is acknowledged only while page 0 is selected) and
 * drivers/hwmon/spd5118.c (legacy mode: MR11 bits 2:0 page the NVM into
 * offsets 0x80-0xff, MR0/MR1 read 0x51 0x18). */
#include "spd_read.h"

#define EE1004_PAGE_BYTES 256
#define SPD5118_PAGE_BYTES 128
#define SPD5118_NVM_BASE 0x80
#define SPD5118_MR0 0x00

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

/* The EE1004 page: 0 when SPA0 acknowledges a receive byte, 1 when not
 * (or no EE1004 on the bus at all: the caller tells them apart). */
static int ee1004_page(struct smbus *b)
{
    uint8_t v;
    return smbus_recv_byte(b, SMBUS_EE1004_SPA0, &v) == BM_OK ? 0 : 1;
}

static int ee1004_select(struct smbus *b, int page)
{
    return smbus_spd_page_select(b, page ? SMBUS_EE1004_SPA1 : SMBUS_EE1004_SPA0, 0, 0);
}

/* A legacy (EEPROM) device: page 0 of a DDR4 EE1004, or all of an older
 * one. The caller has selected page 0. */
static void read_eeprom(struct smbus *b, struct spd_raw *r, bool ddr4_ok)
{
    size_t want;

    r->rc = read_block(b, r->addr, 0, EE1004_PAGE_BYTES, r->data);
    if (r->rc != BM_OK) {
        snprintf(r->note, sizeof(r->note), "SPD read failed at 0x%02x: %s", r->addr, bm_strerror(r->rc));
        return;
    }
    r->len = EE1004_PAGE_BYTES;
    want = spd_bytes_wanted(r->data[2]);
    if (r->data[2] != SPD_TYPE_DDR4 || want <= EE1004_PAGE_BYTES)
        return;
    if (!ddr4_ok) {
        snprintf(r->note, sizeof(r->note), "DDR4 page 1 (manufacturer, part, serial) not read: page select refused");
        return;
    }
    r->rc = ee1004_select(b, 1);
    if (r->rc == BM_OK)
        r->rc = read_block(b, r->addr, 0, EE1004_PAGE_BYTES, r->data + EE1004_PAGE_BYTES);
    if (r->rc == BM_OK)
        r->len = 2 * EE1004_PAGE_BYTES;
    else
        snprintf(r->note, sizeof(r->note), "DDR4 page 1 not read: %s", bm_strerror(r->rc));
    ee1004_select(b, 0);
}

/* A DDR5 SPD5118 hub in legacy (1-byte) mode: eight 128-byte NVM pages
 * through MR11, put back as found. Paging needs a write to the hub, which
 * the chipset's SPD write disable (or a hub that refuses it) forbids:
 * then only the page already selected is read, and only if it is page 0
 * (the decoder needs the image from byte 0). */
static void read_hub(struct smbus *b, struct spd_raw *r, bool may_page)
{
    uint8_t mr11, page;
    int rc;

    r->hub = true;
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
    for (page = 0; page < 8; page++) {
        if (page != (mr11 & SMBUS_SPD5118_MR11_PAGE_MASK)) {
            rc = may_page ? smbus_spd_page_select(b, r->addr, SMBUS_SPD5118_MR11, page) : BM_EPERM;
            if (rc != BM_OK) {
                snprintf(r->note, sizeof(r->note),
                         "SPD5118 hub at 0x%02x: paging to NVM page %u %s; %zu of 1024 bytes read", r->addr, page,
                         !may_page ? "not attempted (SMBIOS does not report DDR5)"
                         : b->spd_write_disabled ? "forbidden by the chipset's SPD write disable (BIOS lock)"
                                                 : "refused by the hub (write protection)",
                         r->len);
                break;
            }
        }
        rc = read_block(b, r->addr, SPD5118_NVM_BASE, SPD5118_PAGE_BYTES, r->data + page * SPD5118_PAGE_BYTES);
        if (rc != BM_OK) {
            r->rc = rc;
            snprintf(r->note, sizeof(r->note), "SPD5118 hub at 0x%02x: NVM page %u read failed: %s", r->addr, page,
                     bm_strerror(rc));
            break;
        }
        if (r->len != (size_t)page * SPD5118_PAGE_BYTES)
            break;  /* only the image from byte 0 is of use */
        r->len += SPD5118_PAGE_BYTES;
    }
    if (page != (mr11 & SMBUS_SPD5118_MR11_PAGE_MASK) && may_page)
        smbus_spd_page_select(b, r->addr, SMBUS_SPD5118_MR11, mr11 & SMBUS_SPD5118_MR11_PAGE_MASK);
}

int spd_read_bus(struct smbus *b, const struct spd_bus_hint *hint, struct spd_raw raw[SPD_SLOTS], char *note,
                 size_t note_len)
{
    int orig_page = ee1004_page(b), page = orig_page, found = 0;
    bool ddr4_seen = false;

    for (int s = 0; s < SPD_SLOTS; s++) {
        struct spd_raw *r = &raw[s];
        uint8_t id[3];
        int rc;

        memset(r, 0, sizeof(*r));
        r->addr = (uint8_t)(SMBUS_SPD_FIRST + s);
        rc = smbus_read_byte(b, r->addr, SPD5118_MR0, &id[0]);
        if (rc == BM_ENODEV)
            continue;
        r->present = true;
        found++;
        if (rc == BM_OK)
            rc = smbus_read_byte(b, r->addr, 1, &id[1]);
        if (rc == BM_OK)
            rc = smbus_read_byte(b, r->addr, 2, &id[2]);
        if (rc != BM_OK) {
            r->rc = rc;
            snprintf(r->note, sizeof(r->note), "SPD at 0x%02x answers but reads fail: %s", r->addr, bm_strerror(rc));
            if (rc == BM_EBUSY || rc == BM_ETIMEDOUT) {
                snprintf(note, note_len, "SMBus unusable (%s): SPD reading stopped", bm_strerror(rc));
                return rc;
            }
            continue;
        }
        if (id[0] == 0x51 && id[1] == 0x18) {
            read_hub(b, r, hint->smbios_ddr5);
            continue;
        }
        /* EE1004 on page 1 (SPA0 silent) while SMBIOS says DDR4: page 0 first. */
        if (page == 1 && (hint->smbios_ddr4 || ddr4_seen) && ee1004_select(b, 0) == BM_OK) {
            page = 0;
        } else if (spd_bytes_wanted(id[2]) == 0) {
            /* No SPD image here (erased, or not an SPD device): keep the
             * key bytes for the note, do not read the rest. */
            memcpy(r->data, id, sizeof(id));
            r->len = sizeof(id);
            continue;
        }
        ddr4_seen |= id[2] == SPD_TYPE_DDR4;
        read_eeprom(b, r, page == 0 && (hint->smbios_ddr4 || ddr4_seen));
    }
    /* Leave the EE1004 page as found (only ever changed on a DDR4 bus). */
    if (page != orig_page && orig_page == 1)
        ee1004_select(b, 1);
    if (!found)
        snprintf(note, note_len, "no SPD EEPROM answered at 0x50-0x57");
    return found;
}
