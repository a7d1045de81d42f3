/* SPD read over the SMBus controllers of the Xeon integrated memory
 * controller, read only: Xeon E5 v1-v4 (Sandy Bridge-EP, Ivy Bridge-EP,
 * Haswell-EP, Broadwell-EP: two controllers in the IMC's PCI function) and
 * the first Xeon Scalable generations (Skylake-SP, Cascade Lake-SP: two in
 * the PCU's function 5). The firmware's closed-loop thermal throttling
 * polls the DIMMs' thermal sensors over the same wires: that polling is
 * paused around each DIMM's read, and put back exactly as found. */
#ifndef BAREMARK_SPD_IMC_H
#define BAREMARK_SPD_IMC_H

#include "../../drivers/pci.h"
#include "spd_read.h"

/* 4 sockets x 2 memory controller functions (Haswell/Broadwell-EP) x 2
 * SMBus controllers x 8 SPD addresses would be 128; 64 covers the 4-socket
 * E5-4600 (4 channels x 3 DIMMs a socket) and 2-socket Scalable boards. */
#define SPD_IMC_DIMMS 64

/* ---- Xeon E5 v1-v4: the IMC function's configuration space --------------------
 * Offsets and bits as FreeBSD imcsmb_reg.h (IMCSMB_REG_STATUS0/COMMAND0/
 * CONTROL0 ...) and Linux i2c-imc (Lutomirski, 2016: SMBSTAT(i), SMBCMD(i),
 * SMBCNTL(i)) name them, from the E5-1600/2600 v1-v4 datasheets volume 2.
 * One register triple per SMBus controller (channel pair), 0x10 apart. */
#define IMC_E5_SMBSTAT(b) ((uint16_t)(0x180 + 0x10 * (b)))
#define IMC_E5_SMBCMD(b) ((uint16_t)(0x184 + 0x10 * (b)))
#define IMC_E5_SMBCNTL(b) ((uint16_t)(0x188 + 0x10 * (b)))
#define  IMC_E5_STAT_RDO (1u << 31)       /* read data valid (data in 15:0) */
#define  IMC_E5_STAT_WOD (1u << 30)       /* write operation done (a read sets it too, Linux) */
#define  IMC_E5_STAT_SBE (1u << 29)       /* bus error: no acknowledge */
#define  IMC_E5_STAT_BUSY (1u << 28)      /* a transaction runs (ours, the TSOD poll's, another master's) */
#define  IMC_E5_CMD_TRIGGER (1u << 31)    /* start the command */
#define  IMC_E5_CMD_PNTR_SEL (1u << 30)   /* pointer-based (TSOD) access */
#define  IMC_E5_CMD_WORD (1u << 29)       /* word access */
#define  IMC_E5_CMD_TYPE_MASK (3u << 27)  /* 00 read, 01 write, 11 pointer write: only 00 is ever issued */
#define  IMC_E5_CMD_SA_SHIFT 24           /* slave address bits 2:0 */
#define  IMC_E5_CMD_BA_SHIFT 16           /* byte offset (SMBus command code) */
#define  IMC_E5_CNTL_DTI_SHIFT 28         /* device type identifier = slave address bits 6:3 */
#define  IMC_E5_CNTL_DTI_MASK (0xfu << 28)
#define  IMC_E5_CNTL_CKOVRD (1u << 27)    /* 1: clock released (normal operation) */
#define  IMC_E5_CNTL_DIS_WRT (1u << 26)   /* SMBus writes disabled */
#define  IMC_E5_CNTL_SOFT_RST (1u << 10)
#define  IMC_E5_CNTL_TSOD_POLL_EN (1u << 8) /* the IMC polls the DIMMs' thermal sensors */

/* ---- Xeon Scalable (Skylake-SP, Cascade Lake-SP): PCU function 5 ---------------
 * Intel's Purley reference code register header (SMB_CMD_CFG_0/1_PCU_FUN5,
 * SMB_STATUS_CFG_0/1_PCU_FUN5, SMB_DATA_CFG_0/1_PCU_FUN5: SKX
 * 0x401F509C..; device 30 function 5 of each socket's uncore bus, 8086:2085
 * in Linux's enumeration of those machines). The thermal poll enable, the
 * device type and the clock override live in the command register. */
#define IMC_SKX_CMD(b) ((uint16_t)(0x9c + 4 * (b)))
#define IMC_SKX_STATUS(b) ((uint16_t)(0xa8 + 4 * (b)))
#define IMC_SKX_DATA(b) ((uint16_t)(0xb4 + 4 * (b)))
#define  IMC_SKX_STAT_BUSY (1u << 0)
#define  IMC_SKX_STAT_SBE (1u << 1)
#define  IMC_SKX_STAT_RDO (1u << 2)
#define  IMC_SKX_STAT_WOD (1u << 3)
#define  IMC_SKX_CMD_BA_SHIFT 0           /* byte offset */
#define  IMC_SKX_CMD_SA_SHIFT 8           /* slave address bits 2:0 */
#define  IMC_SKX_CMD_DTI_SHIFT 11         /* device type identifier, bits 14:11 */
#define  IMC_SKX_CMD_DTI_MASK (0xfu << 11)
#define  IMC_SKX_CMD_WRT_MASK (3u << 15)  /* 00 read, 01 write, 11 pointer write: only 00 is ever issued */
#define  IMC_SKX_CMD_WORD (1u << 17)
#define  IMC_SKX_CMD_PNTR_SEL (1u << 18)
#define  IMC_SKX_CMD_TRIGGER (1u << 19)
#define  IMC_SKX_CMD_TSOD_POLL_EN (1u << 20)
#define  IMC_SKX_CMD_SOFT_RST (1u << 24)
#define  IMC_SKX_CMD_DIS_WRT (1u << 28)
#define  IMC_SKX_CMD_CKOVRD (1u << 29)

#define IMC_DTI_EEPROM 0xau               /* 1010b: the SPD EEPROM (0x50-0x57) */

/* Bounds. */
#define IMC_WAIT_NS 50000000ull           /* one wait: illumos (Tegile) imc SMB_TOTAL_TIMEOUT, 50 ms */
#define IMC_PAUSE_MAX_NS 500000000ull     /* thermal polling paused at most this long at a time */

/* True when l holds an IMC SMBus function baremark reads. */
bool spd_imc_present(const struct pci_list *l);

/* Read every DIMM on the IMC SMBus controllers in l into raw (up to cap).
 * raw[i].addr is the SPD EEPROM address, raw[i].where names the function
 * (in PCI order) and its controller: "i0.1" (function 0, SMBus 1). Returns
 * how many answered, BM_ENODEV when no such function is in l; note says
 * what kept a bus from being read (thermal polling that could not be
 * paused, a bus another master holds, a transaction that never ended). */
int spd_imc_read(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len);

#endif
