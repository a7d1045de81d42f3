/* The SMBus layer above the drivers: controller lookup, and each call
 * checked against the address rules (smbus_bus.c) before a driver runs. */
#include "smbus.h"

int smbus_open(const struct pci_list *l, unsigned flags, struct smbus *b, char *note, size_t note_len)
{
    memset(b, 0, sizeof(*b));
    for (int i = 0; i < l->count; i++) {
        const struct pci_func *f = &l->funcs[i];
        if (i801_match(f->vendor, f->device))
            return i801_open(f, flags, b, note, note_len);
        if (piix4_match(f->vendor, f->device))
            return piix4_open(f, b, note, note_len);
    }
    snprintf(note, note_len, "no SMBus host controller baremark knows (Intel i801/PCH, AMD/ATI PIIX4/SB800/FCH)");
    return BM_ENODEV;
}

void smbus_close(struct smbus *b)
{
    if (b->ops && b->ops->close)
        b->ops->close(b);
    b->ops = NULL;
}

/* Every transaction passes here: refused unless the rules above allow it. */
static int smbus_xfer(struct smbus *b, uint8_t addr, enum smbus_xact x, uint8_t cmd, uint8_t *data)
{
    bool write = x == SMBUS_WRITE_BYTE;
    int rc;

    if (!b->ops)
        return BM_ENODEV;
    if (!smbus_xact_allowed(addr, write, cmd, write ? data[0] : 0))
        return BM_EPERM;
    rc = b->ops->xfer(b, addr, x, cmd, data);
    b->transactions++;
    if (rc != BM_OK && rc != BM_ENODEV)
        b->errors++;
    return rc;
}

int smbus_read_byte(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t *v)
{
    return smbus_xfer(b, addr, SMBUS_READ_BYTE, cmd, v);
}

int smbus_read_word(struct smbus *b, uint8_t addr, uint8_t cmd, uint16_t *v)
{
    uint8_t d[2] = { 0, 0 };
    int rc = smbus_xfer(b, addr, SMBUS_READ_WORD, cmd, d);
    *v = (uint16_t)(d[0] | d[1] << 8);
    return rc;
}

int smbus_recv_byte(struct smbus *b, uint8_t addr, uint8_t *v)
{
    return smbus_xfer(b, addr, SMBUS_RECV_BYTE, 0, v);
}

int smbus_spd_page_select(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t data)
{
    if (b->spd_write_disabled && smbus_addr_is_spd(addr))
        return BM_EPERM;   /* the chipset would refuse it anyway */
    return smbus_xfer(b, addr, SMBUS_WRITE_BYTE, cmd, &data);
}
