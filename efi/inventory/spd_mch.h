/* SPD read through the memory controller hub's own SPD registers, read
 * only (every command is an SPD EEPROM byte read): the Intel
 * 5000P/5000V/5000X FB-DIMM branches (device 21/22 function 0) and the
 * Intel 5100 (device 16 function 1, DDR2 registered DIMMs). */
#ifndef BAREMARK_SPD_MCH_H
#define BAREMARK_SPD_MCH_H

#include "../../drivers/pci.h"
#include "spd_read.h"

/* 2 branches x 2 channels x 4 DIMMs (coreboot i5000 raminit's limits);
 * the 5100 has 2 channels x 4. */
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
/* The Intel 5100 MCH (Linux i5100_edac: device 16 function 1, 8086:65f0):
 * the same status and command words, one pair for both channels. */
#define MCH5100_SPDDATA 0x48              /* 16 bits: BUSY/SBE/RDO, data in 7:0 */
#define MCH5100_SPDCMD 0x4c               /* 32 bits; slot address = channel * 4 + slot */
#define MCH5100_WAIT_NS 100000000ull      /* Linux: "wait up to 100ms" */

/* True when l holds an MCH whose SPD registers baremark reads. */
bool spd_mch_present(const struct pci_list *l);

/* Read every DIMM behind the MCH's SPD registers into raw (up to cap).
 * raw[i].addr is the DIMM's SPD EEPROM address (0x50 + slot on a 5000
 * channel; 0x50 + channel * 4 + slot on a 5100), raw[i].where names branch
 * and channel ("b0c1"; "c1" on a 5100). Returns how many
 * DIMMs answered, BM_ENODEV when no supported MCH is in l; note says what
 * went wrong on a channel (a BUSY that never cleared: that channel is left). */
int spd_mch_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len);

#endif
