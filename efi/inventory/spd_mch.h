/* SPD read through the memory controller hub's own SPD registers, read
 * only (every command is an SPD EEPROM byte read): the FB-DIMM branches
 * (device 21/22 function 0) of the Intel 5000P/5000V/5000X, 5400 and 7300,
 * and the Intel 5100 (device 16 function 1, DDR2 registered DIMMs). */
#ifndef BAREMARK_SPD_MCH_H
#define BAREMARK_SPD_MCH_H

#include "../../drivers/pci.h"
#include "spd_read.h"

/* 2 branches x 2 channels x 8 DIMMs: the 7300's limit (Linux i7300_edac
 * MAX_SLOTS 8); the 5000 and 5400 have 4 per channel (coreboot i5000
 * raminit, Linux i5400_edac DIMMS_PER_CHANNEL), the 5100 2 channels x 4. */
#define SPD_MCH_DIMMS 32

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
/* The Intel 5400 (Seaburg) and 7300 (Clarksboro) FB-DIMM branches: the
 * 5000's SPD0/SPD1 and SPDCMD0/SPDCMD1 at the same offsets of device 21/22
 * function 0, as illumos intel_nb5000 drives all three (nb5000.h SPD_RD()
 * and SPDCMD_WR(), only the 5100 set apart; nb5000_init.c
 * read_spd_eeprom(): 1000 polls of 10 us per wait, slave address = DIMM
 * index on the channel, up to 8 on a 7300). PCI ids as Linux binds the
 * branches: i5400_edac PCI_DEVICE_ID_INTEL_5400_FBD0/1, i7300_edac
 * PCI_DEVICE_ID_INTEL_I7300_MCH_FB0/1 ("Device 21 function 0", "Device 22
 * function 0"). */
#define MCH5400_FBD0 0x4035
#define MCH5400_FBD1 0x4036
#define MCH7300_FB0 0x360f
#define MCH7300_FB1 0x3610

/* True when l holds an MCH whose SPD registers baremark reads. */
bool spd_mch_present(const struct pci_list *l);

/* Read every DIMM behind the MCH's SPD registers into raw (up to cap).
 * raw[i].addr is the DIMM's SPD EEPROM address (0x50 + slot on a 5000,
 * 5400 or 7300 channel; 0x50 + channel * 4 + slot on a 5100), raw[i].where names branch
 * and channel ("b0c1"; "c1" on a 5100). Returns how many
 * DIMMs answered, BM_ENODEV when no supported MCH is in l; note says what
 * went wrong on a channel (a BUSY that never cleared: that channel is left). */
int spd_mch_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len);

#endif
