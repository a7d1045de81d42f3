/* SMBus host controllers, as far as reading SPD needs them.
 *
 * A driver offers byte and word reads at a 7-bit address and command, a
 * receive byte (the DDR4 "read page address" query), and one kind of
 * write: the SPD page select (DDR4 SPA0/SPA1 at 0x36/0x37, JEDEC EE1004;
 * the DDR5 SPD5118 hub's legacy-mode page register MR11). Nothing else is
 * ever addressed: every call is checked against the SPD range here, and
 * again by each driver before it touches the controller. Polled, every
 * wait bounded, the controller left as it was found (smbus_close).
 * A driver knows nothing of SPD contents (efi/inventory/spd*.c do). */
#ifndef BAREMARK_SMBUS_H
#define BAREMARK_SMBUS_H

#include "smbus_bus.h"

/* Find the first SMBus host controller a driver here knows in l and open
 * it. BM_ENODEV: none (note says so); BM_EPERM: the firmware disabled or
 * locked it (note says how); BM_OK: b is ready. */
int smbus_open(const struct pci_list *l, unsigned flags, struct smbus *b, char *note, size_t note_len);
void smbus_close(struct smbus *b);

int smbus_read_byte(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t *v);
int smbus_read_word(struct smbus *b, uint8_t addr, uint8_t cmd, uint16_t *v);
/* Receive byte: used only as the EE1004 page query (BM_ENODEV = NAK). */
int smbus_recv_byte(struct smbus *b, uint8_t addr, uint8_t *v);
/* The page selects: SPA0/SPA1 (addr 0x36/0x37, cmd and data 0), or MR11
 * of an SPD5118 hub (addr 0x50-0x57, cmd 0x0b, data = page 0..7). */
int smbus_spd_page_select(struct smbus *b, uint8_t addr, uint8_t cmd, uint8_t data);

#endif
