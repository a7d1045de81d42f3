/* SPD read through the Intel 5000P/5000V/5000X memory controller hub's own
 * FB-DIMM SPD registers (device 21/22 function 0, one per branch), read
 * only: every command is an SPD EEPROM byte read. */
#ifndef BAREMARK_SPD_MCH_H
#define BAREMARK_SPD_MCH_H

#include "../../drivers/pci.h"
#include "spd_read.h"

/* 2 branches x 2 channels x 4 DIMMs (coreboot i5000 raminit's limits). */
#define SPD_MCH_DIMMS 16

/* Registers and bits as coreboot src/northbridge/intel/i5000/raminit.h
 * names them (Intel 5000P/5000X MCH datasheet, SPD0/SPD1, SPDCMD0/1). */
#define MCH_SPD_STATUS(ch) ((uint16_t)((ch) ? 0x76 : 0x74))  /* 16 bits */
#define MCH_SPD_CMD(ch) ((uint16_t)((ch) ? 0x7c : 0x78))     /* 32 bits */
#define MCH_SPD_BUSY 0x1000u    /* a command is running */
#define MCH_SPD_SBE 0x2000u     /* SPD bus error: no ACK (no DIMM) */
#define MCH_SPD_WOD 0x4000u     /* write operation done */
#define MCH_SPD_RDO 0x8000u     /* read data (bits 7:0) valid */
#define MCH_SPDCMD_DTI_SPD (0xau << 28)   /* device type: SPD EEPROM (1010b) */
#define MCH_SPDCMD_CKOVRD (1u << 27)      /* clock released: normal operation */
#define MCH_SPDCMD_WRITE 1u               /* CMD bit: 1 write, 0 read; never set here */
#define MCH_SPD_WAIT_NS 10000000ull       /* coreboot: 1000 polls of 10 us */

/* True when l holds an MCH whose SPD registers baremark reads. */
bool spd_mch_present(const struct pci_list *l);

/* Read every DIMM behind the MCH's SPD registers into raw (up to cap).
 * raw[i].addr is the DIMM's SPD EEPROM address on its channel (0x50 +
 * slot), raw[i].where names branch and channel ("b0c1"). Returns how many
 * DIMMs answered, BM_ENODEV when no supported MCH is in l; note says what
 * went wrong on a channel (a BUSY that never cleared: that channel is left). */
int spd_mch_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len);

#endif
